//! `skypilot:<tag>` images: the tags each cloud's `images.csv` lists
//! (`sky/catalog/aws_catalog.py`, `gcp_catalog.py`: `_image_df`), and
//! SkyPilot's rule for whether a tag is valid where a resource asks for it
//! (`Cloud.is_image_tag_valid` → `catalog.is_image_tag_valid`).
//!
//! Only AWS and GCP are read: they are the clouds whose `images.csv` the
//! launch has (the fixtures in `fixtures/catalogs/`, or the catalog folder).
//! A cloud without a table here has its tags accepted, as before.
//! Pure: the caller reads the file and hands its text in.

use crate::cloud::CloudId;
use crate::pytext::py_str_repr;
use crate::resources::RequestError;

/// The clouds whose `skypilot:` tags are checked against an `images.csv`.
pub const IMAGE_TAG_CLOUDS: [CloudId; 2] = [CloudId::Aws, CloudId::Gcp];

/// One cloud's `images.csv`: `(Tag, Region, ImageId)` per row.
#[derive(Debug, Clone, Default, PartialEq)]
struct TagTable {
    rows: Vec<(String, String, String)>,
}

/// The `images.csv` tables at hand, per cloud.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImageTags {
    tables: Vec<(CloudId, TagTable)>,
}

impl ImageTags {
    /// No tables: every tag is accepted.
    pub fn none() -> Self {
        Self::default()
    }

    /// Adds `cloud`'s `images.csv` (its text). Rows with fewer fields than
    /// the header are read as pandas does (the missing ones empty); a table
    /// without a `Tag` or `ImageId` column holds no tag.
    pub fn insert_csv(&mut self, cloud: CloudId, text: &str) {
        let mut lines = text.lines();
        let header: Vec<&str> = lines
            .next()
            .map(|h| h.trim_start_matches('\u{feff}').split(',').collect())
            .unwrap_or_default();
        let col = |name: &str| header.iter().position(|h| h.trim() == name);
        let mut table = TagTable::default();
        if let (Some(tag), Some(image)) = (col("Tag"), col("ImageId")) {
            let region = col("Region");
            for line in lines.filter(|l| !l.trim().is_empty()) {
                let fields: Vec<&str> = line.split(',').collect();
                let field = |i: Option<usize>| {
                    i.and_then(|i| fields.get(i))
                        .map(|f| f.trim_matches('"').to_string())
                        .unwrap_or_default()
                };
                table
                    .rows
                    .push((field(Some(tag)), field(region), field(Some(image))));
            }
        }
        self.tables.retain(|(c, _)| *c != cloud);
        self.tables.push((cloud, table));
    }

    /// `cloud.is_image_tag_valid(tag, region)`; `None` when there is no
    /// table for `cloud` (nothing to check against).
    ///
    /// AWS (`common.is_image_tag_valid_impl`): a row with the tag, in
    /// `region` (any region when none; compared case-insensitively), with
    /// an image id. GCP (`gcp_catalog.is_image_tag_valid`): images are
    /// global, the region is not looked at.
    pub fn is_valid(&self, cloud: CloudId, tag: &str, region: Option<&str>) -> Option<bool> {
        let (_, table) = self.tables.iter().find(|(c, _)| *c == cloud)?;
        let region = if cloud == CloudId::Gcp { None } else { region };
        Some(table.rows.iter().any(|(t, r, id)| {
            t == tag && !id.is_empty() && region.is_none_or(|want| r.eq_ignore_ascii_case(want))
        }))
    }
}

/// `Resources._try_validate_image_id`'s error for a tag that is not valid
/// (`ValueError`): `Image tag 'skypilot:x' is not valid, please make sure
/// the tag exists in AWS (us-east-1).`
pub fn invalid_tag(cloud: CloudId, tag: &str, region: Option<&str>) -> RequestError {
    let region = region
        .filter(|r| !r.is_empty())
        .map(|r| format!(" ({r})"))
        .unwrap_or_default();
    RequestError::value(format!(
        "Image tag {} is not valid, please make sure the tag exists in {}{region}.",
        py_str_repr(tag),
        cloud.repr()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const AWS: &str = "Tag,Region,OS,OSVersion,ImageId,CreationDate,BaseImageId\n\
        skypilot:gpu-ubuntu-2204,us-east-1,ubuntu,22.04,ami-1,20240101\n\
        skypilot:gpu-ubuntu-2204,us-west-2,ubuntu,22.04,ami-2,20240101\n\
        skypilot:gone,us-east-1,ubuntu,22.04,,20240101,ami-0\n";
    const GCP: &str = "Tag,Region,OS,OSVersion,ImageId,CreationDate,BaseImageId\n\
        skypilot:cpu-debian-10,,debian,10,projects/p/global/images/x,20221215,\n";

    #[test]
    fn tags_are_checked_per_region_on_aws_and_globally_on_gcp() {
        let mut tags = ImageTags::none();
        assert_eq!(tags.is_valid(CloudId::Aws, "skypilot:x", None), None);
        tags.insert_csv(CloudId::Aws, AWS);
        tags.insert_csv(CloudId::Gcp, GCP);
        let aws = |t: &str, r: Option<&str>| tags.is_valid(CloudId::Aws, t, r);
        assert_eq!(aws("skypilot:gpu-ubuntu-2204", None), Some(true));
        assert_eq!(
            aws("skypilot:gpu-ubuntu-2204", Some("US-WEST-2")),
            Some(true)
        );
        assert_eq!(
            aws("skypilot:gpu-ubuntu-2204", Some("eu-west-1")),
            Some(false)
        );
        assert_eq!(aws("skypilot:gpu-ubuntu-2004", None), Some(false));
        // A row without an image id does not count (`dropna`).
        assert_eq!(aws("skypilot:gone", Some("us-east-1")), Some(false));
        let gcp = |t: &str, r: Option<&str>| tags.is_valid(CloudId::Gcp, t, r);
        assert_eq!(
            gcp("skypilot:cpu-debian-10", Some("us-central1")),
            Some(true)
        );
        assert_eq!(gcp("skypilot:cpu-debian-11", None), Some(false));
        assert_eq!(tags.is_valid(CloudId::Azure, "skypilot:x", None), None);
    }

    #[test]
    fn the_error_is_skypilots() {
        assert_eq!(
            invalid_tag(CloudId::Aws, "skypilot:nope", Some("us-east-1")).message,
            "Image tag 'skypilot:nope' is not valid, please make sure the tag exists in AWS (us-east-1)."
        );
        assert_eq!(
            invalid_tag(CloudId::Gcp, "skypilot:nope", None).message,
            "Image tag 'skypilot:nope' is not valid, please make sure the tag exists in GCP."
        );
    }
}
