//! A `NodeList` page read straight into its nodes and next-page token
//! (`parse_node_page`, `parse_node_list_with`): each item is made a
//! [`KubeNode`] as soon as it is read, never held as a raw node.

use super::nodes::{
    AcceleratorsSeen, KubeNode, KubeParseError, ListPage, RawNode, continue_token, node_from_raw,
};

// A node list is read by [`NodePage`], which makes each item a
// `KubeNode` as soon as it is read (the items are never held as raw nodes):
// it accepts and refuses what the derived
// `struct RawNodeList { #[serde(default, deserialize_with = "null_as_default")]
// items: Vec<RawNode>, #[serde(default, deserialize_with = "continue_token")]
// metadata: Option<String> }` did, with the same messages (the old parser,
// kept in `nodes_reference.rs` for tests, is compared with it there).

/// The name the list's errors give it (serde's derived
/// `expecting` of the struct it replaced: `expected struct RawNodeList`).
const NODE_LIST_STRUCT: &str = "RawNodeList";
/// The list fields read.
const NODE_LIST_FIELDS: &[&str] = &["items", "metadata"];

/// A `NodeList` page read into its nodes and next-page token.
struct NodePage<'c> {
    /// The caller's accelerator canonicaliser.
    canonicalise: &'c dyn Fn(&str) -> Option<String>,
}

impl<'de> serde::de::DeserializeSeed<'de> for NodePage<'_> {
    type Value = ListPage<KubeNode>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_struct(NODE_LIST_STRUCT, NODE_LIST_FIELDS, self)
    }
}

impl<'de> serde::de::Visitor<'de> for NodePage<'_> {
    type Value = ListPage<KubeNode>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "struct {NODE_LIST_STRUCT}")
    }
    // A struct may be written as the array of its fields (serde's derive
    // reads `[items, metadata]`, either left out at the end).
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let nodes = seq
            .next_element_seed(Items(self.canonicalise))?
            .unwrap_or_default();
        let next = seq.next_element_seed(ContinueToken)?.unwrap_or_default();
        Ok((nodes, next))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        use serde::de::Error;
        let (mut nodes, mut next) = (None, None);
        while let Some(field) = map.next_key_seed(ListField)? {
            match field {
                Some(0) => {
                    if nodes.is_some() {
                        return Err(A::Error::duplicate_field(NODE_LIST_FIELDS[0]));
                    }
                    nodes = Some(map.next_value_seed(Items(self.canonicalise))?);
                }
                Some(_) => {
                    if next.is_some() {
                        return Err(A::Error::duplicate_field(NODE_LIST_FIELDS[1]));
                    }
                    next = Some(map.next_value_seed(ContinueToken)?);
                }
                None => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        Ok((nodes.unwrap_or_default(), next.unwrap_or_default()))
    }
}

/// A list key: the index of one of [`NODE_LIST_FIELDS`], `None` for any
/// other, read without allocating.
struct ListField;

impl<'de> serde::de::DeserializeSeed<'de> for ListField {
    type Value = Option<usize>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Option<usize>, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl<'de> serde::de::Visitor<'de> for ListField {
    type Value = Option<usize>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("field identifier")
    }
    fn visit_u64<E>(self, v: u64) -> Result<Option<usize>, E> {
        Ok(match v {
            0 => Some(0),
            1 => Some(1),
            _ => None,
        })
    }
    fn visit_str<E>(self, v: &str) -> Result<Option<usize>, E> {
        Ok(NODE_LIST_FIELDS.iter().position(|n| *n == v))
    }
    fn visit_bytes<E>(self, v: &[u8]) -> Result<Option<usize>, E> {
        Ok(NODE_LIST_FIELDS.iter().position(|n| n.as_bytes() == v))
    }
}

/// `metadata`, read by [`continue_token`].
struct ContinueToken;

impl<'de> serde::de::DeserializeSeed<'de> for ContinueToken {
    type Value = Option<String>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Option<String>, D::Error> {
        continue_token(d)
    }
}

/// `items`: null is no items, anything else must be a sequence of nodes,
/// each made a `KubeNode` as it is read. One memo of label readings serves
/// the whole page.
struct Items<'c>(&'c dyn Fn(&str) -> Option<String>);

impl<'de> serde::de::DeserializeSeed<'de> for Items<'_> {
    type Value = Vec<KubeNode>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Vec<KubeNode>, D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Items<'_> {
    type Value = Vec<KubeNode>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("option")
    }
    fn visit_none<E>(self) -> Result<Vec<KubeNode>, E> {
        Ok(Vec::new())
    }
    fn visit_unit<E>(self) -> Result<Vec<KubeNode>, E> {
        Ok(Vec::new())
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Vec<KubeNode>, D::Error> {
        d.deserialize_seq(ItemSeq(self.0))
    }
}

/// The items' array (`expected a sequence`, as `Vec`'s visitor says).
struct ItemSeq<'c>(&'c dyn Fn(&str) -> Option<String>);

impl<'de> serde::de::Visitor<'de> for ItemSeq<'_> {
    type Value = Vec<KubeNode>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a sequence")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> Result<Vec<KubeNode>, A::Error> {
        let mut seen = AcceleratorsSeen::default();
        let mut nodes = Vec::new();
        while let Some(raw) = seq.next_element::<RawNode<'de>>()? {
            nodes.push(node_from_raw(raw, self.0, &mut seen));
        }
        Ok(nodes)
    }
}

/// A page read by [`NodePage`], as [`from_json`](super::nodes::from_json)
/// reads a document.
pub(super) fn read_node_page(
    json: &[u8],
    canonicalise: &dyn Fn(&str) -> Option<String>,
) -> Result<ListPage<KubeNode>, KubeParseError> {
    use serde::de::DeserializeSeed;
    let page = NodePage { canonicalise };
    // `serde_json::from_str`/`from_slice` with a seed: read, then the end.
    Ok(match std::str::from_utf8(json) {
        Ok(text) => {
            let mut de = serde_json::Deserializer::from_str(text);
            let page = page.deserialize(&mut de)?;
            de.end()?;
            page
        }
        Err(_) => {
            let mut de = serde_json::Deserializer::from_slice(json);
            let page = page.deserialize(&mut de)?;
            de.end()?;
            page
        }
    })
}
