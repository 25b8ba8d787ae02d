//! A cloud's unfiltered listing, computed once per catalog and stored
//! ([`CloudSummary`]): what `sky gpus list` and `sky gpus list --all` read
//! instead of the catalog's rows while the catalog is unchanged.
//!
//! Without a GPU name, a region or `--all-regions` (see
//! [`Query::reads_summaries`](super::Query::reads_summaries)), every
//! catalog is asked the same two questions: its `list_accelerators` with
//! `require_price` (the offers) and without it (the quantity tables; they
//! differ for GCP only). Those answers depend on nothing but the catalog,
//! so they are computed from the rows once ([`CloudSummary::of`]) and kept
//! beside the catalog's image, keyed by the same fingerprint; a listing
//! then decodes a few thousand offers instead of reading, de-duplicating,
//! sorting and pricing the rows of 22 catalogs. The merge across clouds,
//! `--sort-by` and the rendering stay per invocation.
//!
//! The stored form ([`summaries_to_bytes`]) carries a magic, a format
//! number and each summary's cloud; anything else is refused ([`SummaryError`]) and
//! the caller lists from the rows (and stores a new summary), so a summary
//! written by another version is rebuilt, never misread.

use std::sync::Arc;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::{Listing, Num, Offer};
use crate::cloud::CloudId;

/// Bumped whenever the stored layout or what a listing computes changes
/// (2: every string once, in a table the offers index). Part of the
/// summary's key in the catalog index too, so a build of another format
/// sharing the state folder keeps its own summary instead of replacing
/// this one at every run.
pub const FORMAT: u32 = 2;
const MAGIC: [u8; 8] = *b"SKYGPUSM";

/// Why stored bytes are not a usable summary.
#[derive(Debug, thiserror::Error)]
pub enum SummaryError {
    /// Not a complete summary of this format.
    #[error("not a GPU listing summary (or a truncated one): {0}")]
    Decode(String),
    /// A well-formed summary of something else.
    #[error("GPU listing summary does not match: {0}")]
    Mismatch(&'static str),
}

/// One cloud's unfiltered `list_accelerators` answers and accelerator names.
#[derive(Debug, Clone, PartialEq)]
pub struct CloudSummary {
    /// The cloud.
    pub cloud: CloudId,
    /// `list_accelerators(require_price=True)`: the offers tables.
    pub(super) priced: Listing,
    /// `list_accelerators(require_price=False)`, when it differs from
    /// `priced` (GCP: its GPUs are not priced with a host VM here).
    pub(super) unpriced: Option<Listing>,
    /// Every accelerator name of a row the listing reads (for "did you mean").
    pub(super) names: Vec<String>,
}

impl CloudSummary {
    /// A summary of `cloud` from its two unfiltered answers and accelerator
    /// names ([`CloudSummary::of`], in `merge`, computes them from the
    /// rows); `unpriced` is kept only where it differs from `priced`.
    pub(super) fn from_listings(
        cloud: CloudId,
        priced: Listing,
        unpriced: Listing,
        names: Vec<String>,
    ) -> CloudSummary {
        // Compared as stored (bit for bit: `NaN` equals `NaN` there).
        let stored = |listing| {
            let mut table = Table::default();
            let listing = StoredListing::of(listing, &mut table);
            postcard::to_allocvec(&(table.strings, listing)).ok()
        };
        let same = stored(&priced) == stored(&unpriced);
        CloudSummary {
            cloud,
            unpriced: (!same).then_some(unpriced),
            priced,
            names,
        }
    }

    /// The answer of `list_accelerators` with or without `require_price`.
    pub(super) fn listing(&self, require_price: bool) -> &Listing {
        match (&self.unpriced, require_price) {
            (Some(unpriced), false) => unpriced,
            _ => &self.priced,
        }
    }
}

/// The stored form of several clouds' summaries, in order (what one
/// listing reads: one file, one read).
pub fn summaries_to_bytes(summaries: &[CloudSummary]) -> Vec<u8> {
    let mut table = Table::default();
    let clouds = summaries
        .iter()
        .map(|s| StoredCloud {
            cloud: s.cloud.name(),
            priced: StoredListing::of(&s.priced, &mut table),
            unpriced: s
                .unpriced
                .as_ref()
                .map(|l| StoredListing::of(l, &mut table)),
            names: s.names.iter().map(|n| table.index(n)).collect(),
        })
        .collect();
    let stored = Stored {
        strings: table.strings,
        clouds,
    };
    let mut bytes = postcard::to_allocvec(&(MAGIC, FORMAT)).expect("encoding to a Vec cannot fail");
    bytes.extend(postcard::to_allocvec(&stored).expect("encoding to a Vec cannot fail"));
    bytes
}

/// Reads [`summaries_to_bytes`]'s form of the summaries of `clouds`, in
/// that order; every byte must belong to it. The magic and format number
/// are read first: another version's summary is refused before its body
/// is decoded.
pub fn summaries_from_bytes(
    clouds: &[CloudId],
    bytes: &[u8],
) -> Result<Vec<CloudSummary>, SummaryError> {
    let decode = |e: postcard::Error| SummaryError::Decode(e.to_string());
    let ((magic, format), body): (([u8; 8], u32), &[u8]) =
        postcard::take_from_bytes(bytes).map_err(decode)?;
    if magic != MAGIC || format != FORMAT {
        return Err(SummaryError::Mismatch("format version"));
    }
    let (stored, rest): (Stored<'_>, &[u8]) = postcard::take_from_bytes(body).map_err(decode)?;
    if !rest.is_empty() {
        return Err(SummaryError::Decode("trailing bytes".into()));
    }
    if stored.clouds.len() != clouds.len() {
        return Err(SummaryError::Mismatch("clouds"));
    }
    // Each string made once; the offers share them.
    let strings: Vec<Arc<str>> = stored.strings.iter().map(|&s| Arc::from(s)).collect();
    let string = |i: u32| {
        strings
            .get(i as usize)
            .cloned()
            .ok_or_else(|| SummaryError::Decode(format!("string {i} is not in the table")))
    };
    stored
        .clouds
        .into_iter()
        .zip(clouds)
        .map(|(s, &cloud)| {
            if s.cloud != cloud.name() {
                return Err(SummaryError::Mismatch("cloud"));
            }
            let label = label(cloud);
            Ok(CloudSummary {
                cloud,
                priced: s.priced.listing(label, &string)?,
                unpriced: s.unpriced.map(|l| l.listing(label, &string)).transpose()?,
                names: s
                    .names
                    .into_iter()
                    .map(|n| string(n).map(|n| n.to_string()))
                    .collect::<Result<_, _>>()?,
            })
        })
        .collect()
}

/// The label a cloud's offers carry (its catalog module's name).
pub(super) fn label(cloud: CloudId) -> &'static str {
    cloud.spec().listing_label.unwrap_or(cloud.spec().repr)
}

/// The strings of summaries being stored, each once, by first use.
#[derive(Default)]
struct Table<'a> {
    strings: Vec<&'a str>,
    at: FxHashMap<&'a str, u32>,
}

impl<'a> Table<'a> {
    fn index(&mut self, s: &'a str) -> u32 {
        *self.at.entry(s).or_insert_with(|| {
            self.strings.push(s);
            u32::try_from(self.strings.len() - 1).expect("fewer than 2^32 strings")
        })
    }
}

/// After the magic and format number.
#[derive(Serialize, Deserialize)]
struct Stored<'a> {
    /// Every string of the summaries, once.
    #[serde(borrow)]
    strings: Vec<&'a str>,
    #[serde(borrow)]
    clouds: Vec<StoredCloud<'a>>,
}

#[derive(Serialize, Deserialize)]
struct StoredCloud<'a> {
    cloud: &'a str,
    priced: StoredListing,
    unpriced: Option<StoredListing>,
    names: Vec<u32>,
}

/// A [`Listing`] without its cloud label (the summary's cloud gives it),
/// its strings as indices into the table.
#[derive(Serialize, Deserialize)]
struct StoredListing(Vec<(u32, Vec<StoredOffer>)>);

/// An [`Offer`] as stored: numbers bit for bit (`NaN` is missing), each
/// with its column's integer-ness; strings by their index in the table.
#[derive(Serialize, Deserialize)]
struct StoredOffer {
    instance_type: Option<u32>,
    accelerator_name: u32,
    accelerator_count: f64,
    cpu_count: (f64, bool),
    device_memory: Option<f64>,
    memory: (f64, bool),
    price: (f64, bool),
    spot_price: (f64, bool),
    region: Option<u32>,
}

impl StoredListing {
    fn of<'a>(listing: &'a Listing, table: &mut Table<'a>) -> StoredListing {
        let num = |n: Num| (n.value, n.int);
        StoredListing(
            listing
                .iter()
                .map(|(name, offers)| {
                    let offers = offers
                        .iter()
                        .map(|o| StoredOffer {
                            instance_type: o.instance_type.as_deref().map(|t| table.index(t)),
                            accelerator_name: table.index(&o.accelerator_name),
                            accelerator_count: o.accelerator_count,
                            cpu_count: num(o.cpu_count),
                            device_memory: o.device_memory,
                            memory: num(o.memory),
                            price: num(o.price),
                            spot_price: num(o.spot_price),
                            region: o.region.as_deref().map(|r| table.index(r)),
                        })
                        .collect();
                    (table.index(name), offers)
                })
                .collect(),
        )
    }

    /// The listing, its strings taken from the table (`string`).
    fn listing(
        self,
        label: &'static str,
        string: &impl Fn(u32) -> Result<Arc<str>, SummaryError>,
    ) -> Result<Listing, SummaryError> {
        let num = |(value, int): (f64, bool)| Num { value, int };
        self.0
            .into_iter()
            .map(|(name, offers)| {
                let offers = offers
                    .into_iter()
                    .map(|o| {
                        Ok(Offer {
                            cloud: label,
                            instance_type: o.instance_type.map(string).transpose()?,
                            accelerator_name: string(o.accelerator_name)?,
                            accelerator_count: o.accelerator_count,
                            cpu_count: num(o.cpu_count),
                            device_memory: o.device_memory,
                            memory: num(o.memory),
                            price: num(o.price),
                            spot_price: num(o.spot_price),
                            region: o.region.map(string).transpose()?,
                        })
                    })
                    .collect::<Result<_, SummaryError>>()?;
                Ok((string(name)?.to_string(), offers))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::CloudCatalog;
    use crate::gpus::CloudGpuRows;
    use crate::gpus::{Query, SortBy, json_listing, report};
    use crate::render::gpus::text;

    /// Every fixture catalog, read as the listing reads it.
    #[allow(clippy::disallowed_methods)] // reads the fixture catalogs
    fn fixture_catalogs() -> Vec<CloudGpuRows> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/catalogs");
        Query {
            accelerator: None,
            all: true,
            cloud: None,
            region: None,
            all_regions: false,
            sort: SortBy::Cloud,
        }
        .catalog_clouds()
        .into_iter()
        .filter_map(|cloud| {
            let csv = std::fs::read(dir.join(cloud.name()).join("vms.csv")).ok()?;
            let (catalog, _) = CloudCatalog::from_bytes(cloud, &csv, "vms.csv").unwrap();
            Some(CloudGpuRows::new(catalog, "vms.csv").unwrap())
        })
        .collect()
    }

    fn query(all: bool, cloud: Option<CloudId>, sort: SortBy) -> Query {
        Query {
            accelerator: None,
            all,
            cloud,
            region: None,
            all_regions: false,
            sort,
        }
    }

    #[test]
    fn stored_summaries_list_what_the_rows_list() {
        let rows = fixture_catalogs();
        assert!(rows.len() >= 20, "only {} fixture catalogs", rows.len());
        let clouds: Vec<CloudId> = rows.iter().map(|r| r.cloud).collect();
        let summaries: Vec<CloudSummary> = rows.iter().map(CloudSummary::of).collect();
        assert!(
            summaries
                .iter()
                .any(|s| s.cloud == CloudId::Gcp && s.unpriced.is_some()),
            "GCP's unpriced answer differs from its priced one"
        );
        let read = summaries_from_bytes(&clouds, &summaries_to_bytes(&summaries)).unwrap();
        let read: Vec<CloudGpuRows> = read.into_iter().map(CloudGpuRows::from_summary).collect();
        let by_rows: Vec<&CloudGpuRows> = rows.iter().collect();
        let by_summary: Vec<&CloudGpuRows> = read.iter().collect();
        for q in [
            query(true, None, SortBy::Cloud),
            query(false, None, SortBy::Cloud),
            query(true, None, SortBy::Price),
            query(true, None, SortBy::Spot),
            query(true, Some(CloudId::Gcp), SortBy::Cloud),
        ] {
            assert!(q.reads_summaries());
            let listed = |c: &[&CloudGpuRows]| text(&report(&q, c, true).unwrap());
            let (a, b) = (listed(&by_rows), listed(&by_summary));
            assert!(a.lines().count() > 20, "{a}");
            assert_eq!(a, b, "{q:?}");
            let json = |c: &[&CloudGpuRows]| format!("{:?}", json_listing(&q, c).unwrap());
            assert_eq!(json(&by_rows), json(&by_summary), "{q:?}");
        }
        assert_eq!(
            crate::gpus::accelerator_names(&by_rows),
            crate::gpus::accelerator_names(&by_summary)
        );
    }

    #[test]
    fn a_summary_refuses_a_filtered_listing() {
        let rows = fixture_catalogs();
        let read: Vec<CloudGpuRows> = rows
            .iter()
            .map(|r| CloudGpuRows::from_summary(CloudSummary::of(r)))
            .collect();
        let refs: Vec<&CloudGpuRows> = read.iter().collect();
        let mut q = query(false, None, SortBy::Cloud);
        q.accelerator = Some(("H100".into(), None));
        assert!(!q.reads_summaries());
        let err = report(&q, &refs, false).unwrap_err();
        assert!(
            err.to_string().contains("stored listing answers only"),
            "{err}"
        );
    }

    #[test]
    fn an_earlier_format_and_a_string_outside_the_table_are_refused() {
        // Format 1 (strings in place) under today's magic.
        let mut earlier = postcard::to_allocvec(&(MAGIC, 1u32)).unwrap();
        earlier.extend([0, 0]);
        assert!(matches!(
            summaries_from_bytes(&[], &earlier),
            Err(SummaryError::Mismatch("format version"))
        ));
        let offer = |accelerator_name| StoredOffer {
            instance_type: None,
            accelerator_name,
            accelerator_count: 1.0,
            cpu_count: (1.0, true),
            device_memory: None,
            memory: (1.0, false),
            price: (1.0, false),
            spot_price: (f64::NAN, false),
            region: Some(0),
        };
        let bytes = |accelerator_name| {
            let stored = Stored {
                strings: vec!["r", "H100"],
                clouds: vec![StoredCloud {
                    cloud: CloudId::Lambda.name(),
                    priced: StoredListing(vec![(1, vec![offer(accelerator_name)])]),
                    unpriced: None,
                    names: vec![1],
                }],
            };
            let mut bytes = postcard::to_allocvec(&(MAGIC, FORMAT)).unwrap();
            bytes.extend(postcard::to_allocvec(&stored).unwrap());
            bytes
        };
        let read = summaries_from_bytes(&[CloudId::Lambda], &bytes(1)).unwrap();
        assert_eq!(&*read[0].priced[0].1[0].accelerator_name, "H100");
        assert_eq!(read[0].priced[0].1[0].region.as_deref(), Some("r"));
        let err = summaries_from_bytes(&[CloudId::Lambda], &bytes(7)).unwrap_err();
        assert!(matches!(err, SummaryError::Decode(_)), "{err}");
        assert!(err.to_string().contains("string 7"), "{err}");
    }

    #[test]
    fn other_clouds_formats_and_damaged_bytes_are_refused() {
        let rows = fixture_catalogs();
        let summaries: Vec<CloudSummary> = rows.iter().take(2).map(CloudSummary::of).collect();
        let clouds: Vec<CloudId> = summaries.iter().map(|s| s.cloud).collect();
        let bytes = summaries_to_bytes(&summaries);
        assert!(summaries_from_bytes(&clouds, &bytes).is_ok());
        assert!(matches!(
            summaries_from_bytes(&[clouds[1], clouds[0]], &bytes),
            Err(SummaryError::Mismatch("cloud"))
        ));
        assert!(matches!(
            summaries_from_bytes(&clouds[..1], &bytes),
            Err(SummaryError::Mismatch("clouds"))
        ));
        let mut other_format = bytes.clone();
        other_format[8] ^= 0x7f;
        assert!(summaries_from_bytes(&clouds, &other_format).is_err());
        for cut in [0, 1, bytes.len() / 2, bytes.len() - 1] {
            assert!(
                summaries_from_bytes(&clouds, &bytes[..cut]).is_err(),
                "accepted bytes cut at {cut}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(
            summaries_from_bytes(&clouds, &longer).is_err(),
            "trailing bytes"
        );
    }
}
