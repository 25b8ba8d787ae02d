//! The node-list parser as it was before the allocation and encoding work
//! of issue 29, kept verbatim (test builds only) so that property tests can
//! compare the current parser with it on generated and mutated node pages.
//! Only the parse path is copied; the public types are the current ones.

#![allow(dead_code, clippy::all)]

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Deserialize;

// The CPU quantity reader did not change: the reference uses it as is.
use super::quantity::parse_cpu_quantity;

use super::labels::{
    GKE_ACCELERATOR_COUNT_LABEL, GKE_TPU_LABEL, GKE_TPU_TOPOLOGY_LABEL, LabelFormatter,
    canonical_gpu_name,
};
use super::nodes::{
    ACCELERATOR_RESOURCE_KEYS, AMD_GPU_KEY, KubeNode, KubeParseError, KubeTaint, ListPage,
    NEURON_RESOURCE_KEY, NVIDIA_GPU_KEY, TPU_RESOURCE_KEY, TpuSlice,
};

// The part of the API's `NodeList` that is read, as serde structs rather than
// k8s-openapi types (this crate has no Kubernetes dependency). Every field may
// be absent or null, so that one odd node never fails the whole listing.
#[derive(Deserialize)]
struct RawNodeList<'a> {
    #[serde(borrow, default, deserialize_with = "null_as_default")]
    items: Vec<RawNode<'a>>,
    #[serde(default, deserialize_with = "continue_token")]
    metadata: Option<String>,
}

/// `metadata.continue` of a list, when a non-empty string: the token of the
/// next page. Any other `metadata` (absent, null, not an object, no token)
/// is no next page, never an error. Read in place: only the token is kept
/// (a later duplicate `continue` wins, as in a JSON object read whole).
pub(super) fn continue_token<'de, D>(d: D) -> Result<Option<String>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    use serde::de::IgnoredAny;
    /// Any metadata value; a map is searched for `continue`.
    struct Meta;
    impl<'de> serde::de::Visitor<'de> for Meta {
        type Value = Option<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("any valid JSON value")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Option<String>, A::Error> {
            let mut token = None;
            while let Some(is_continue) = map.next_key_seed(KeyIs("continue"))? {
                if is_continue {
                    token = map.next_value::<NonEmptyString>()?.0;
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(token)
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> Result<Option<String>, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(None)
        }
        fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Option<String>, D::Error> {
            d.deserialize_any(Meta)
        }
        fn visit_none<E>(self) -> Result<Option<String>, E> {
            Ok(None)
        }
        fn visit_unit<E>(self) -> Result<Option<String>, E> {
            Ok(None)
        }
        fn visit_bool<E>(self, _: bool) -> Result<Option<String>, E> {
            Ok(None)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Option<String>, E> {
            Ok(None)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Option<String>, E> {
            Ok(None)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Option<String>, E> {
            Ok(None)
        }
        fn visit_str<E>(self, _: &str) -> Result<Option<String>, E> {
            Ok(None)
        }
    }
    d.deserialize_any(Meta)
}

/// A map key compared with one name (`true`: it is that name), read
/// without allocating.
pub(super) struct KeyIs(pub(super) &'static str);

impl<'de> serde::de::DeserializeSeed<'de> for KeyIs {
    type Value = bool;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> serde::de::Visitor<'de> for KeyIs {
    type Value = bool;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a string key")
    }
    fn visit_str<E>(self, v: &str) -> Result<bool, E> {
        Ok(v == self.0)
    }
}

/// A non-empty JSON string; any other value reads as `None`.
struct NonEmptyString(Option<String>);

impl<'de> Deserialize<'de> for NonEmptyString {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(NonEmptyString(match AnyString::deserialize(d)?.0 {
            Some(s) if !s.is_empty() => Some(s),
            _ => None,
        }))
    }
}

/// A JSON value: `Some` for a string, `None` for anything else (skipped).
struct AnyString(Option<String>);

impl<'de> Deserialize<'de> for AnyString {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::IgnoredAny;
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = AnyString;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any valid JSON value")
            }
            fn visit_str<E>(self, v: &str) -> Result<AnyString, E> {
                Ok(AnyString(Some(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<AnyString, E> {
                Ok(AnyString(Some(v)))
            }
            fn visit_bool<E>(self, _: bool) -> Result<AnyString, E> {
                Ok(AnyString(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<AnyString, E> {
                Ok(AnyString(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<AnyString, E> {
                Ok(AnyString(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<AnyString, E> {
                Ok(AnyString(None))
            }
            fn visit_unit<E>(self) -> Result<AnyString, E> {
                Ok(AnyString(None))
            }
            fn visit_none<E>(self) -> Result<AnyString, E> {
                Ok(AnyString(None))
            }
            fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<AnyString, D::Error> {
                AnyString::deserialize(d)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<AnyString, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(AnyString(None))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<AnyString, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(AnyString(None))
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawNode<'a> {
    #[serde(deserialize_with = "null_as_default")]
    metadata: RawMeta,
    #[serde(deserialize_with = "null_as_default")]
    spec: RawSpec,
    #[serde(borrow, deserialize_with = "null_as_default")]
    status: RawStatus<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawMeta {
    #[serde(deserialize_with = "null_as_default")]
    name: String,
    #[serde(deserialize_with = "lenient_string_map")]
    labels: BTreeMap<String, String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawSpec {
    #[serde(deserialize_with = "null_as_default")]
    unschedulable: bool,
    #[serde(deserialize_with = "null_as_default")]
    taints: Vec<RawTaint>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawTaint {
    #[serde(deserialize_with = "null_as_default")]
    key: String,
    #[serde(deserialize_with = "null_as_default")]
    value: Option<String>,
    #[serde(deserialize_with = "null_as_default")]
    effect: String,
}

// The status is read in place where it can be (its strings borrowed from
// the answer): only what the node keeps is copied.
#[derive(Deserialize, Default)]
#[serde(default)]
struct RawStatus<'a> {
    #[serde(borrow)]
    capacity: RawResources<'a>,
    #[serde(borrow)]
    allocatable: RawResources<'a>,
    #[serde(borrow, deserialize_with = "null_as_default")]
    conditions: Vec<RawCondition<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawCondition<'a> {
    #[serde(rename = "type", borrow, deserialize_with = "null_as_default")]
    kind: Str<'a>,
    #[serde(borrow, deserialize_with = "null_as_default")]
    status: Str<'a>,
}

/// A JSON string as `String` reads it (anything else is the same error,
/// "expected a string"), borrowed from the answer when it has no escapes.
#[derive(Default)]
struct Str<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Cow<'de, str>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
                Ok(Cow::Borrowed(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<Cow<'de, str>, E> {
                Ok(Cow::Owned(v.to_owned()))
            }
            fn visit_string<E>(self, v: String) -> Result<Cow<'de, str>, E> {
                Ok(Cow::Owned(v))
            }
        }
        d.deserialize_str(V).map(Str)
    }
}

/// The resource names a node's `capacity` / `allocatable` is read for:
/// CPU, memory, ephemeral storage and [`ACCELERATOR_RESOURCE_KEYS`].
const RESOURCE_NAMES: [&str; 7] = [
    "cpu",
    "memory",
    "ephemeral-storage",
    AMD_GPU_KEY,
    NVIDIA_GPU_KEY,
    TPU_RESOURCE_KEY,
    NEURON_RESOURCE_KEY,
];

/// A `status.capacity` / `status.allocatable` map as [`lenient_string_map`]
/// reads it (scalars as strings, a later duplicate wins, a value that is not
/// a scalar drops its key; null or absent: empty), keeping only the entries
/// of [`RESOURCE_NAMES`]: the others (`pods`, `hugepages-*`, device plugins
/// the optimizer does not know) are skipped without being copied.
#[derive(Default)]
struct RawResources<'a>([Option<Cow<'a, str>>; RESOURCE_NAMES.len()]);

impl RawResources<'_> {
    /// The quantity of `name`, one of [`RESOURCE_NAMES`].
    fn get(&self, name: &str) -> Option<&str> {
        let i = RESOURCE_NAMES.iter().position(|n| *n == name)?;
        self.0[i].as_deref()
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for RawResources<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        /// The index in [`RESOURCE_NAMES`] of a key, read without allocating.
        struct Name;
        impl<'de> serde::de::DeserializeSeed<'de> for Name {
            type Value = Option<usize>;
            fn deserialize<D: serde::Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<Option<usize>, D::Error> {
                d.deserialize_str(self)
            }
        }
        impl<'de> serde::de::Visitor<'de> for Name {
            type Value = Option<usize>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string key")
            }
            fn visit_str<E>(self, v: &str) -> Result<Option<usize>, E> {
                Ok(RESOURCE_NAMES.iter().position(|n| *n == v))
            }
        }
        struct Entries;
        impl<'de> serde::de::Visitor<'de> for Entries {
            type Value = RawResources<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<RawResources<'de>, A::Error> {
                let mut out = RawResources::default();
                while let Some(name) = map.next_key_seed(Name)? {
                    match name {
                        Some(i) => out.0[i] = map.next_value::<LenientScalar<'de>>()?.0,
                        None => {
                            map.next_value::<serde::de::IgnoredAny>()?;
                        }
                    }
                }
                Ok(out)
            }
        }
        /// `null` is an empty map; anything else must be a map.
        struct Nullable;
        impl<'de> serde::de::Visitor<'de> for Nullable {
            type Value = RawResources<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map")
            }
            fn visit_none<E>(self) -> Result<RawResources<'de>, E> {
                Ok(RawResources::default())
            }
            fn visit_unit<E>(self) -> Result<RawResources<'de>, E> {
                Ok(RawResources::default())
            }
            fn visit_some<D: serde::Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<RawResources<'de>, D::Error> {
                d.deserialize_map(Entries)
            }
        }
        d.deserialize_option(Nullable)
    }
}

pub(super) fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// A string map that also accepts numbers/bools as values (`"cpu": 4`) and null.
///
/// Read entry by entry, as `BTreeMap<String, serde_json::Value>` then
/// filtered would read it (a later duplicate key wins; a value that is not
/// a scalar drops its key), without building a `Value` per entry: labels and
/// resource maps are most of a node list.
pub(super) fn lenient_string_map<'de, D>(d: D) -> Result<BTreeMap<String, String>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    let raw: Option<LenientMap> = Option::deserialize(d)?;
    Ok(raw.map(|m| m.0).unwrap_or_default())
}

/// A JSON object's scalar entries as strings (see [`lenient_string_map`]).
struct LenientMap(BTreeMap<String, String>);

impl<'de> Deserialize<'de> for LenientMap {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Entries;
        impl<'de> serde::de::Visitor<'de> for Entries {
            type Value = LenientMap;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<LenientMap, A::Error> {
                let mut out = BTreeMap::new();
                while let Some((key, LenientScalar(value))) =
                    map.next_entry::<String, LenientScalar<'de>>()?
                {
                    match value {
                        Some(v) => {
                            out.insert(key, v.into_owned());
                        }
                        None => {
                            out.remove(&key);
                        }
                    }
                }
                Ok(LenientMap(out))
            }
        }
        d.deserialize_map(Entries)
    }
}

/// A JSON value as `serde_json::Value`'s display of it when it is a string,
/// number or bool; `None` for anything else (read and skipped). A string
/// without escapes is borrowed from the answer.
struct LenientScalar<'a>(Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for LenientScalar<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::IgnoredAny;
        struct Scalar;
        impl<'de> serde::de::Visitor<'de> for Scalar {
            type Value = LenientScalar<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any valid JSON value")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<LenientScalar<'de>, E> {
                Ok(LenientScalar(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E>(self, v: &str) -> Result<LenientScalar<'de>, E> {
                Ok(LenientScalar(Some(Cow::Owned(v.to_owned()))))
            }
            fn visit_string<E>(self, v: String) -> Result<LenientScalar<'de>, E> {
                Ok(LenientScalar(Some(Cow::Owned(v))))
            }
            fn visit_u64<E>(self, v: u64) -> Result<LenientScalar<'de>, E> {
                Ok(LenientScalar(Some(Cow::Owned(
                    serde_json::Number::from(v).to_string(),
                ))))
            }
            fn visit_i64<E>(self, v: i64) -> Result<LenientScalar<'de>, E> {
                Ok(LenientScalar(Some(Cow::Owned(
                    serde_json::Number::from(v).to_string(),
                ))))
            }
            fn visit_f64<E>(self, v: f64) -> Result<LenientScalar<'de>, E> {
                // `Value` keeps a non-finite float as null.
                Ok(LenientScalar(
                    serde_json::Number::from_f64(v).map(|n| Cow::Owned(n.to_string())),
                ))
            }
            fn visit_bool<E>(self, v: bool) -> Result<LenientScalar<'de>, E> {
                Ok(LenientScalar(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_unit<E>(self) -> Result<LenientScalar<'de>, E> {
                Ok(LenientScalar(None))
            }
            fn visit_none<E>(self) -> Result<LenientScalar<'de>, E> {
                Ok(LenientScalar(None))
            }
            fn visit_some<D: serde::Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<LenientScalar<'de>, D::Error> {
                LenientScalar::deserialize(d)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<LenientScalar<'de>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(LenientScalar(None))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<LenientScalar<'de>, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(LenientScalar(None))
            }
        }
        d.deserialize_any(Scalar)
    }
}

/// Parses the API server's `NodeList` JSON (`GET /api/v1/nodes`).
///
/// Missing or malformed fields are tolerated (a node without capacity has 0
/// CPUs); only a document that is not a JSON object with an `items` array
/// (or an unreadable input) is an error.
pub fn parse_node_list(json: &[u8]) -> Result<Vec<KubeNode>, KubeParseError> {
    parse_node_list_with(json, |_| None)
}

/// One page of a list answer: its items, and the `metadata.continue` token
/// of the next page (`None`: the last page).

/// Like [`parse_node_list`], for one page of a paged listing: the nodes and
/// the next page's token, in one pass over the answer.
pub fn parse_node_page(json: &[u8]) -> Result<ListPage<KubeNode>, KubeParseError> {
    let list: RawNodeList = from_json(json)?;
    let mut seen = AcceleratorsSeen::default();
    let nodes = list
        .items
        .into_iter()
        .map(|raw| node_from_raw(raw, &|_| None, &mut seen))
        .collect();
    Ok((nodes, list.metadata))
}

/// `json` read by serde_json as `from_slice` reads it, faster: a body that
/// is UTF-8 throughout (every real answer) is checked once, whole, and read
/// as a `str`, instead of each string being checked as it is read (a tenth
/// of a node page's parse). Any other body is read by `from_slice`, so
/// what is accepted and every error message are the same either way.
pub(super) fn from_json<'de, T: Deserialize<'de>>(json: &'de [u8]) -> serde_json::Result<T> {
    match std::str::from_utf8(json) {
        Ok(text) => serde_json::from_str(text),
        Err(_) => serde_json::from_slice(json),
    }
}

/// Like [`parse_node_list`], with a caller-provided accelerator canonicaliser
/// (e.g. a case-insensitive catalog lookup) tried before SkyPilot's built-in
/// list of canonical GPU names. It receives the label formatter's output
/// (`H100`, `A100-80GB`, `RTX6000-ADA`, ...).
pub fn parse_node_list_with(
    json: &[u8],
    canonicalise: impl Fn(&str) -> Option<String>,
) -> Result<Vec<KubeNode>, KubeParseError> {
    // From a slice: serde_json's reader path goes byte by byte (it was 8 %
    // of a 64-context launch).
    let list: RawNodeList = from_json(json)?;
    let mut seen = AcceleratorsSeen::default();
    Ok(list
        .items
        .into_iter()
        .map(|raw| node_from_raw(raw, &canonicalise, &mut seen))
        .collect())
}

fn node_from_raw(
    raw: RawNode<'_>,
    canonicalise: &dyn Fn(&str) -> Option<String>,
    seen: &mut AcceleratorsSeen,
) -> KubeNode {
    let RawNode {
        metadata,
        spec,
        status,
    } = raw;
    let cpu = |m: &RawResources| m.get("cpu").and_then(parse_cpu_quantity);
    let mem = |m: &RawResources| m.get("memory").and_then(parse_memory_gib);
    let ready = status
        .conditions
        .iter()
        .find(|c| c.kind.0 == "Ready")
        .is_some_and(|c| c.status.0 == "True");
    let devices = |m: &RawResources| -> BTreeMap<String, u32> {
        ACCELERATOR_RESOURCE_KEYS
            .iter()
            .filter_map(|k| Some((k.to_string(), device_count(m.get(k)?)?)))
            .collect()
    };
    let accelerator_resources = devices(&status.allocatable);
    let accelerator_capacity = devices(&status.capacity);
    let capacity_cpus = status.capacity.get("cpu").map(parse_cpu_display);
    let capacity_memory_gib = match capacity_cpus {
        Some(None) => None,
        _ => status.capacity.get("memory").and_then(parse_memory_gib),
    };
    let accelerator = node_accelerator(&metadata.labels, seen).map(|acc| {
        canonicalise(&acc)
            .or_else(|| canonical_gpu_name(&acc).map(str::to_string))
            .unwrap_or(acc)
    });
    let tpu = tpu_slice(&metadata.labels);
    let taints = spec
        .taints
        .into_iter()
        .map(|t| KubeTaint {
            key: t.key,
            value: t.value.filter(|v| !v.is_empty()),
            effect: t.effect,
        })
        .collect();
    KubeNode {
        name: metadata.name,
        ready,
        unschedulable: spec.unschedulable,
        cpu_capacity: cpu(&status.capacity).unwrap_or(0.0),
        memory_capacity_gib: mem(&status.capacity).unwrap_or(0.0),
        ephemeral_storage_gib: status
            .capacity
            .get("ephemeral-storage")
            .and_then(parse_memory_gib),
        cpu_allocatable: cpu(&status.allocatable).unwrap_or(0.0),
        memory_allocatable_gib: mem(&status.allocatable).unwrap_or(0.0),
        accelerator,
        accelerator_resources,
        tpu,
        labels: metadata.labels,
        accelerator_capacity,
        taints,
        capacity_cpus: capacity_cpus.flatten(),
        capacity_memory_gib,
    }
}

/// A device count (`int(...)` in SkyPilot; fractional quantities are floored).
pub(super) fn device_count(q: &str) -> Option<u32> {
    q.trim()
        .parse::<u32>()
        .ok()
        .or_else(|| parse_cpu_quantity(q).map(|f| f.max(0.0).floor() as u32))
}

/// SkyPilot's `parse_cpu_or_gpu_resource`: `3500m` → 4 (millicores rounded
/// up), `3.5` → 3.5.
fn parse_cpu_display(q: &str) -> Option<f64> {
    let q = q.trim();
    match q.strip_suffix('m') {
        Some(milli) => milli.parse::<u64>().ok().map(|m| m.div_ceil(1000) as f64),
        None => q.parse::<f64>().ok().filter(|v| v.is_finite()),
    }
}

fn tpu_slice(labels: &BTreeMap<String, String>) -> Option<TpuSlice> {
    let accelerator = labels.get(GKE_TPU_LABEL)?.clone();
    let topology = labels
        .get(GKE_TPU_TOPOLOGY_LABEL)
        .cloned()
        .unwrap_or_default();
    let chips = labels
        .get(GKE_ACCELERATOR_COUNT_LABEL)
        .and_then(|c| c.trim().parse().ok())
        .unwrap_or(0);
    let topology_chips = reduce_tpu_topology(&topology).unwrap_or(chips);
    Some(TpuSlice {
        accelerator,
        topology,
        chips,
        topology_chips,
    })
}

/// Chips in a TPU topology (`2x2x1` → 4); `None` if malformed.
pub fn reduce_tpu_topology(topology: &str) -> Option<u32> {
    topology
        .split('x')
        .map(|d| d.trim().parse::<u32>().ok())
        .try_fold(1u32, |acc, d| acc.checked_mul(d?))
}

/// The accelerator a single node advertises: the first formatter (in
/// SkyPilot's priority order) with a non-empty, valid label on this node.
fn node_accelerator(
    labels: &BTreeMap<String, String>,
    seen: &mut AcceleratorsSeen,
) -> Option<String> {
    LabelFormatter::REGISTRY.iter().find_map(|lf| {
        labels.iter().find_map(|(k, v)| {
            if !lf.matches_key(k) || v.trim().is_empty() {
                return None;
            }
            seen.accelerator(*lf, v)
        })
    })
}

/// What the label values met so far in one answer name, by formatter and
/// value: a cluster's nodes mostly carry the same few GPU labels, and
/// reading a value (`gfd_accelerator` searches ~30 GPU names) cost more
/// than the rest of a node's parse.
#[derive(Default)]
struct AcceleratorsSeen(Vec<(LabelFormatter, String, Option<String>)>);

impl AcceleratorsSeen {
    /// The accelerator `lf` reads from label value `value`: `None` when the
    /// value is invalid for it or names none.
    fn accelerator(&mut self, lf: LabelFormatter, value: &str) -> Option<String> {
        if let Some((_, _, known)) = self.0.iter().find(|(f, v, _)| *f == lf && v == value) {
            return known.clone();
        }
        let read = match lf.validate(value) {
            Ok(()) => lf
                .accelerator_from_value(value)
                .ok()
                .filter(|a| !a.is_empty()),
            Err(_) => None,
        };
        self.0.push((lf, value.to_string(), read.clone()));
        read
    }
}

/// Parses a Kubernetes memory/storage quantity into GiB the way SkyPilot's
/// `parse_memory_resource(unit='G')` does: a bare integer is bytes; otherwise
/// the first letter of the suffix picks a binary multiplier, so `16Gi`, `16G`
/// and `16384Mi` are all 16 GiB (SkyPilot treats SI suffixes as binary).
/// `m` is milli-bytes. `None` for malformed input.
pub fn parse_memory_gib(q: &str) -> Option<f64> {
    const GIB: f64 = (1u64 << 30) as f64;
    let q = q.trim();
    if let Ok(bytes) = q.parse::<u64>() {
        return Some(bytes as f64 / GIB);
    }
    // SkyPilot splits at the first unit letter (`[KMGTPBm]`); `k`/`E` are tolerated too.
    let split = q.find(|c: char| "KkMGTPEBm".contains(c));
    let (number, unit) = match split {
        Some(i) => (&q[..i], &q[i..]),
        None => (q, ""),
    };
    let number: f64 = number.trim().parse().ok()?;
    let multiplier = match unit.chars().next() {
        None | Some('B') => 1.0,
        Some('m') => 0.001,
        Some('K' | 'k') => (1u64 << 10) as f64,
        Some('M') => (1u64 << 20) as f64,
        Some('G') => GIB,
        Some('T') => (1u64 << 40) as f64,
        Some('P') => (1u64 << 50) as f64,
        Some('E') => (1u64 << 60) as f64,
        Some(_) => return None,
    };
    let v = number * multiplier / GIB;
    (v.is_finite() && v >= 0.0).then_some(v)
}

/// `KubeNode` as its derived `Serialize` wrote it before the hand-written one:
/// the cache's bytes must not change.
#[derive(serde::Serialize)]
pub(super) struct DerivedNode<'a> {
    name: &'a String,
    ready: bool,
    unschedulable: bool,
    cpu_capacity: f64,
    memory_capacity_gib: f64,
    ephemeral_storage_gib: Option<f64>,
    cpu_allocatable: f64,
    memory_allocatable_gib: f64,
    accelerator: &'a Option<String>,
    accelerator_resources: &'a BTreeMap<String, u32>,
    tpu: &'a Option<TpuSlice>,
    labels: &'a BTreeMap<String, String>,
    accelerator_capacity: &'a BTreeMap<String, u32>,
    taints: &'a Vec<KubeTaint>,
    capacity_cpus: Option<f64>,
    capacity_memory_gib: Option<f64>,
}

impl<'a> From<&'a KubeNode> for DerivedNode<'a> {
    fn from(n: &'a KubeNode) -> Self {
        DerivedNode {
            name: &n.name,
            ready: n.ready,
            unschedulable: n.unschedulable,
            cpu_capacity: n.cpu_capacity,
            memory_capacity_gib: n.memory_capacity_gib,
            ephemeral_storage_gib: n.ephemeral_storage_gib,
            cpu_allocatable: n.cpu_allocatable,
            memory_allocatable_gib: n.memory_allocatable_gib,
            accelerator: &n.accelerator,
            accelerator_resources: &n.accelerator_resources,
            tpu: &n.tpu,
            labels: &n.labels,
            accelerator_capacity: &n.accelerator_capacity,
            taints: &n.taints,
            capacity_cpus: n.capacity_cpus,
            capacity_memory_gib: n.capacity_memory_gib,
        }
    }
}

#[cfg(test)]
mod differential {
    //! The current parser against the reference copy above, on generated
    //! node pages, byte-level mutations of them, and every `NodeList`
    //! fixture; and the current encoding against the derived one.

    use proptest::prelude::*;

    use super::super::nodes;

    /// What a parse gives, comparable: the nodes' Debug text (stricter than
    /// `PartialEq` on floats: `-0.0` differs from `0.0`) and the token, or
    /// the error's message.
    fn outcome(r: Result<super::ListPage<super::KubeNode>, super::KubeParseError>) -> String {
        match r {
            Ok((nodes, next)) => format!("{nodes:?} {next:?}"),
            Err(e) => format!("error: {e}"),
        }
    }

    fn outcome_list(r: Result<Vec<super::KubeNode>, super::KubeParseError>) -> String {
        outcome(r.map(|n| (n, None)))
    }

    fn canonicalise(a: &str) -> Option<String> {
        (a == "H100" || a == "MI300X").then(|| format!("{a}-custom"))
    }

    fn same_as_reference(doc: &[u8]) {
        let page = outcome(nodes::parse_node_page(doc));
        let reference = outcome(super::parse_node_page(doc));
        assert_eq!(page, reference, "{}", String::from_utf8_lossy(doc));
        let with = outcome_list(nodes::parse_node_list_with(doc, canonicalise));
        let reference = outcome_list(super::parse_node_list_with(doc, canonicalise));
        assert_eq!(with, reference, "{}", String::from_utf8_lossy(doc));
        if let Ok((list, _)) = nodes::parse_node_page(doc) {
            same_encoding(&list);
        }
    }

    fn same_encoding(list: &[super::KubeNode]) {
        let derived: Vec<super::DerivedNode> = list.iter().map(Into::into).collect();
        let want = serde_json::to_string(&derived).expect("derived encoding");
        // `to_raw_value`, which the node cache calls, is `to_string` boxed.
        let ours = serde_json::to_string(list).expect("encoding");
        assert_eq!(ours, want);
    }

    /// JSON text of one of a few scalars, odd ones included.
    fn scalar() -> impl Strategy<Value = String> {
        prop_oneof![
            prop::sample::select(vec![
                "\"4\"",
                "\"3500m\"",
                "\"192\"",
                "\"1024Gi\"",
                "\"16384Mi\"",
                "\"17179869184\"",
                "\"1.5Gi\"",
                "\"1e400\"",
                "\"-1\"",
                "\"16Xi\"",
                "\" 8 \"",
                "\"m\"",
                "\"\"",
                "\"8\"",
                "\"2.7\"",
                "\"1073741824000m\"",
                "\"100Gi\"",
                "\"NaN\"",
                "\"inf\"",
                "\"1E3\"",
                "\"0x10\"",
                "\"+5\"",
                "\"5k\"",
                "\"3Ei\"",
                "\"9Pi\"",
                "\"\\u0038\"",
                "\"h100\"",
                "\"H100\"",
                "\"NVIDIA-H100-80GB-HBM3\"",
                "\"nvidia-tesla-t4\"",
                "\"tpu-v5-lite-podslice\"",
                "\"2x2\"",
                "\"2x2x1\"",
                "\"4\"",
                "\"True\"",
                "\"False\"",
                "\"Ready\"",
                "\"é\"",
                "\"a\\\"b\"",
                "8",
                "-3",
                "2.50",
                "1e400",
                "18446744073709551616",
                "-0.0",
                "0",
                "true",
                "false",
                "null",
                "{}",
                "{\"x\":[1,{\"y\":2}]}",
                "[]",
                "[1,\"x\"]",
            ])
            .prop_map(str::to_string),
            "[a-z0-9.-]{0,12}".prop_map(|s| format!("\"{s}\"")),
            any::<u64>().prop_map(|n| n.to_string()),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(|f| format!("{f:e}")),
        ]
    }

    fn key(names: &'static [&'static str]) -> impl Strategy<Value = String> {
        prop_oneof![
            4 => prop::sample::select(names).prop_map(|k| format!("\"{k}\"")),
            1 => "[a-z/.-]{0,10}".prop_map(|k| format!("\"{k}\"")),
        ]
    }

    fn object(
        names: &'static [&'static str],
        value: impl Strategy<Value = String>,
        max: usize,
    ) -> impl Strategy<Value = String> {
        prop::collection::vec((key(names), value), 0..max).prop_map(|entries| {
            let body: Vec<String> = entries.iter().map(|(k, v)| format!("{k}:{v}")).collect();
            format!("{{{}}}", body.join(","))
        })
    }

    /// A value that is usually `good`, sometimes null or a scalar.
    fn or_odd(good: impl Strategy<Value = String>) -> impl Strategy<Value = String> {
        prop_oneof![6 => good, 1 => Just("null".to_string()), 1 => scalar()]
    }

    const LABELS: &[&str] = &[
        "skypilot.co/accelerator",
        "nvidia.com/gpu.product",
        "cloud.google.com/gke-accelerator",
        "cloud.google.com/gke-tpu-accelerator",
        "cloud.google.com/gke-tpu-topology",
        "cloud.google.com/gke-accelerator-count",
        "karpenter.k8s.aws/instance-gpu-name",
        "gpu.nvidia.com/class",
        "nebius.com/gpu-name",
        "kubernetes.io/hostname",
        "node.kubernetes.io/instance-type",
    ];
    const RESOURCES: &[&str] = &[
        "cpu",
        "memory",
        "ephemeral-storage",
        "pods",
        "nvidia.com/gpu",
        "amd.com/gpu",
        "google.com/tpu",
        "aws.amazon.com/neuron",
    ];
    const META: &[&str] = &["name", "labels", "uid", "name"];
    const SPEC: &[&str] = &["unschedulable", "taints", "podCIDR"];
    const TAINT: &[&str] = &["key", "value", "effect"];
    const STATUS: &[&str] = &["capacity", "allocatable", "conditions", "addresses"];
    const CONDITION: &[&str] = &["type", "status", "reason"];
    const NODE: &[&str] = &["metadata", "spec", "status", "kind"];
    const LIST: &[&str] = &["items", "metadata", "kind", "apiVersion"];
    const LIST_META: &[&str] = &["continue", "resourceVersion"];

    fn array(item: impl Strategy<Value = String>, max: usize) -> impl Strategy<Value = String> {
        prop::collection::vec(item, 0..max).prop_map(|v| format!("[{}]", v.join(",")))
    }

    fn node() -> impl Strategy<Value = String> {
        let labels = or_odd(object(LABELS, scalar(), 6));
        let resources = or_odd(object(RESOURCES, scalar(), 7));
        let meta = or_odd(object(META, prop_oneof![labels, scalar()].boxed(), 4));
        let taint = or_odd(object(TAINT, scalar(), 4));
        let spec = or_odd(object(
            SPEC,
            prop_oneof![or_odd(array(taint, 3)), scalar()].boxed(),
            3,
        ));
        let condition = or_odd(object(CONDITION, scalar(), 3));
        let status = or_odd(object(
            STATUS,
            prop_oneof![resources, or_odd(array(condition, 3)), scalar()].boxed(),
            4,
        ));
        object(NODE, prop_oneof![meta, spec, status].boxed(), 4)
    }

    fn page() -> impl Strategy<Value = String> {
        let items = or_odd(array(node(), 5));
        let meta = or_odd(object(LIST_META, scalar(), 3));
        object(LIST, prop_oneof![items, meta, scalar()].boxed(), 4)
    }

    /// A byte-level mutation of a page: a byte deleted, replaced, or a span
    /// repeated.
    fn mutated() -> impl Strategy<Value = Vec<u8>> {
        (
            page(),
            prop::collection::vec((any::<usize>(), 0u8..3, any::<u8>(), 0usize..12), 1..4),
        )
            .prop_map(|(doc, edits)| {
                let mut doc = doc.into_bytes();
                for (at, kind, byte, len) in edits {
                    if doc.is_empty() {
                        break;
                    }
                    let at = at % doc.len();
                    match kind {
                        0 => {
                            doc.remove(at);
                        }
                        1 => {
                            let pool = b"{}[]\",:n0e-.\\\xff\xc3";
                            doc[at] = pool[byte as usize % pool.len()];
                        }
                        _ => {
                            let end = (at + len).min(doc.len());
                            let span = doc[at..end].to_vec();
                            doc.splice(at..at, span);
                        }
                    }
                }
                doc
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        #[test]
        fn generated_pages_parse_as_the_reference_parses_them(doc in page()) {
            same_as_reference(doc.as_bytes());
        }

        #[test]
        fn mutated_pages_parse_as_the_reference_parses_them(doc in mutated()) {
            same_as_reference(&doc);
        }
    }

    #[test]
    fn hand_picked_documents_parse_as_the_reference_parses_them() {
        for doc in [
            "",
            "null",
            "[]",
            "[1,2]",
            "[[{}],{\"continue\":\"x\"}]",
            "[null]",
            "[[],null,3]",
            "{}",
            "{\"items\":null}",
            "{\"items\":{}}",
            "{\"items\":[],\"items\":[]}",
            "{\"metadata\":{},\"metadata\":{}}",
            "{\"items\":[{\"metadata\":{\"name\":\"a\",\"name\":\"b\"}}]}",
            "{\"items\":[{\"metadata\":null,\"metadata\":{}}]}",
            "{\"items\":[[{\"name\":\"x\"},null,{\"capacity\":{\"cpu\":\"4\"}}]]}",
            "{\"items\":[{\"status\":{\"conditions\":[[\"Ready\",\"True\"]]}}]}",
            "{\"items\":[{\"spec\":{\"taints\":[{\"key\":1}]}}]}",
            "{\"items\":[{}]} trailing",
            "{\"items\":[{}],}",
            "{\"items\":[{},]}",
            "{\"items\":[\"\\ud800\"]}",
            "{\"items\":[{\"metadata\":{\"name\":\"\\ud83d\\ude00\"}}]}",
        ] {
            same_as_reference(doc.as_bytes());
        }
        same_as_reference(b"{\"items\":[{\"metadata\":{\"name\":\"\xff\"}}]}");
        same_as_reference(b"{\"items\":[{\"metadata\":{\"labels\":{\"\xff\":\"x\"}}}]}");
    }

    #[test]
    #[allow(clippy::disallowed_methods)] // test code reading fixtures
    fn every_node_list_fixture_parses_as_the_reference_parses_it() {
        fn walk(dir: &std::path::Path, found: &mut Vec<std::path::PathBuf>) {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, found);
                } else if path.extension().is_some_and(|e| e == "json") {
                    found.push(path);
                }
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
        let mut files = Vec::new();
        walk(&root, &mut files);
        let mut lists = 0;
        for file in files {
            let bytes = std::fs::read(&file).expect("fixture");
            if !bytes.windows(10).any(|w| w == b"\"NodeList\"") {
                continue;
            }
            lists += 1;
            same_as_reference(&bytes);
            assert!(nodes::parse_node_page(&bytes).is_ok(), "{}", file.display());
        }
        assert!(lists >= 10, "only {lists} NodeList fixtures found");
    }
}
