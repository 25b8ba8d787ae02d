//! The few protobuf messages of Nebius' API that SkyPilot's pricing path
//! sends and reads, encoded and decoded by hand (field numbers from
//! `github.com/nebius/api`: `iam/v1/project_service.proto`,
//! `iam/v1/container.proto`, `iam/v1/token_service.proto`,
//! `compute/v1/platform*.proto`, `compute/v1/instance*.proto`,
//! `billing/v1/calculator*.proto`, `common/v1/metadata.proto`). Unknown
//! fields are skipped, as protobuf readers do; malformed input is an error,
//! never a panic.

use planner::catalog::nebius::{CostKind, TotalCost};

/// A protobuf writer (proto3: default values are not written).
#[derive(Debug, Default)]
pub(crate) struct Writer(Vec<u8>);

impl Writer {
    /// The encoded bytes.
    pub(crate) fn finish(self) -> Vec<u8> {
        self.0
    }

    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }

    fn key(&mut self, field: u32, wire: u8) {
        self.varint((u64::from(field) << 3) | u64::from(wire));
    }

    /// A `string` field (skipped when empty).
    pub(crate) fn string(&mut self, field: u32, v: &str) -> &mut Self {
        if !v.is_empty() {
            self.bytes(field, v.as_bytes());
        }
        self
    }

    /// A `bytes` or embedded message field.
    pub(crate) fn bytes(&mut self, field: u32, v: &[u8]) -> &mut Self {
        self.key(field, 2);
        self.varint(v.len() as u64);
        self.0.extend_from_slice(v);
        self
    }

    /// An `int64`/`int32`/enum field (skipped when zero).
    pub(crate) fn int(&mut self, field: u32, v: i64) -> &mut Self {
        if v != 0 {
            self.key(field, 0);
            self.varint(v as u64);
        }
        self
    }

    /// A packed `repeated` enum/int field (proto3's default encoding).
    pub(crate) fn packed(&mut self, field: u32, values: &[i64]) -> &mut Self {
        if !values.is_empty() {
            let mut inner = Writer::default();
            for &v in values {
                inner.varint(v as u64);
            }
            self.bytes(field, &inner.0);
        }
        self
    }
}

/// One field of a message.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Value<'a> {
    /// Wire type 0.
    Varint(u64),
    /// Wire type 2: bytes, string or embedded message.
    Bytes(&'a [u8]),
    /// Wire types 1 and 5.
    Fixed,
}

/// The fields of a message, in wire order.
pub(crate) fn fields(mut buf: &[u8]) -> Result<Vec<(u32, Value<'_>)>, String> {
    fn varint(buf: &mut &[u8]) -> Result<u64, String> {
        let mut out = 0u64;
        for shift in (0..64).step_by(7) {
            let (&b, rest) = buf.split_first().ok_or("truncated varint")?;
            *buf = rest;
            out |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(out);
            }
        }
        Err("varint too long".into())
    }
    let mut out = Vec::new();
    while !buf.is_empty() {
        let key = varint(&mut buf)?;
        let field = u32::try_from(key >> 3).map_err(|_| "field number out of range")?;
        let value = match key & 7 {
            0 => Value::Varint(varint(&mut buf)?),
            1 | 5 => {
                let n = if key & 7 == 1 { 8 } else { 4 };
                if buf.len() < n {
                    return Err("truncated fixed field".into());
                }
                buf = &buf[n..];
                Value::Fixed
            }
            2 => {
                let len = usize::try_from(varint(&mut buf)?).map_err(|_| "length overflow")?;
                if buf.len() < len {
                    return Err("truncated length-delimited field".into());
                }
                let (v, rest) = buf.split_at(len);
                buf = rest;
                Value::Bytes(v)
            }
            w => return Err(format!("unsupported wire type {w}")),
        };
        out.push((field, value));
    }
    Ok(out)
}

fn text(v: &[u8]) -> Result<String, String> {
    String::from_utf8(v.to_vec()).map_err(|_| "a string field is not UTF-8".to_string())
}

/// The last value of a string field, else empty (proto3 semantics).
fn string_field(msg: &[u8], field: u32) -> Result<String, String> {
    let mut out = String::new();
    for (f, v) in fields(msg)? {
        if f == field
            && let Value::Bytes(b) = v
        {
            out = text(b)?;
        }
    }
    Ok(out)
}

/// The last value of an embedded message field.
fn message_field(msg: &[u8], field: u32) -> Result<Option<&[u8]>, String> {
    let mut out = None;
    for (f, v) in fields(msg)? {
        if f == field
            && let Value::Bytes(b) = v
        {
            out = Some(b);
        }
    }
    Ok(out)
}

/// The last value of an int32 field, negative values as 0 (counts only).
fn count_field(msg: &[u8], field: u32) -> Result<u32, String> {
    let mut out = 0u32;
    for (f, v) in fields(msg)? {
        if f == field
            && let Value::Varint(n) = v
        {
            out = u32::try_from((n as i64).max(0)).unwrap_or(u32::MAX);
        }
    }
    Ok(out)
}

fn repeated(msg: &[u8], field: u32) -> Result<Vec<&[u8]>, String> {
    Ok(fields(msg)?
        .into_iter()
        .filter_map(|(f, v)| match (f == field, v) {
            (true, Value::Bytes(b)) => Some(b),
            _ => None,
        })
        .collect())
}

/// One project of a tenant (`iam.v1.Container`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Project {
    /// `metadata.id`.
    pub id: String,
    /// `status.region`.
    pub region: String,
}

/// `ListProjectsRequest { parent_id }` (no page size: SkyPilot reads the
/// first page only, the service's default size).
pub(crate) fn list_projects_request(tenant: &str) -> Vec<u8> {
    let mut w = Writer::default();
    w.string(1, tenant);
    w.finish()
}

/// `ListProjectsResponse.items`.
pub(crate) fn list_projects_response(msg: &[u8]) -> Result<Vec<Project>, String> {
    repeated(msg, 1)?
        .into_iter()
        .map(|c| {
            let id = match message_field(c, 1)? {
                Some(m) => string_field(m, 1)?,
                None => String::new(),
            };
            let region = match message_field(c, 3)? {
                Some(s) => string_field(s, 4)?,
                None => String::new(),
            };
            Ok(Project { id, region })
        })
        .collect()
}

/// One preset of a platform.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Preset {
    /// `name`.
    pub name: String,
    /// `resources.vcpu_count`.
    pub vcpus: u32,
    /// `resources.memory_gibibytes`.
    pub memory_gib: u32,
    /// `resources.gpu_count`.
    pub gpus: u32,
}

/// One compute platform (`compute.v1.Platform`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Platform {
    /// `metadata.name`.
    pub name: String,
    /// `spec.gpu_memory_gigabytes`.
    pub gpu_memory_gb: u32,
    /// `spec.presets`.
    pub presets: Vec<Preset>,
}

/// `ListPlatformsRequest { page_size: 999, parent_id }`, as
/// `fetch_nebius.fetch_platforms_for_project` asks.
pub(crate) fn list_platforms_request(project: &str) -> Vec<u8> {
    let mut w = Writer::default();
    w.int(1, 999).string(3, project);
    w.finish()
}

/// `ListPlatformsResponse.items`.
pub(crate) fn list_platforms_response(msg: &[u8]) -> Result<Vec<Platform>, String> {
    repeated(msg, 1)?
        .into_iter()
        .map(|p| {
            let name = match message_field(p, 1)? {
                Some(m) => string_field(m, 3)?,
                None => String::new(),
            };
            let (gpu_memory_gb, presets) = match message_field(p, 2)? {
                Some(spec) => {
                    let presets = repeated(spec, 1)?
                        .into_iter()
                        .map(|preset| {
                            let resources = message_field(preset, 2)?.unwrap_or_default();
                            Ok(Preset {
                                name: string_field(preset, 1)?,
                                vcpus: count_field(resources, 1)?,
                                memory_gib: count_field(resources, 3)?,
                                gpus: count_field(resources, 4)?,
                            })
                        })
                        .collect::<Result<Vec<_>, String>>()?;
                    (count_field(spec, 12)?, presets)
                }
                None => (0, Vec::new()),
            };
            Ok(Platform {
                name,
                gpu_memory_gb,
                presets,
            })
        })
        .collect()
}

/// `billing.v1.OfferType.OFFER_TYPE_CONTRACT_PRICE`.
const OFFER_TYPE_CONTRACT_PRICE: i64 = 1;
/// `FilterAggregationUnitValue.FILTER_AGGREGATION_UNIT_HOUR`.
const FILTER_AGGREGATION_UNIT_HOUR: i64 = 2;
/// `PreemptibleSpec.PreemptionPolicy.STOP`.
const PREEMPTION_POLICY_STOP: i64 = 1;

/// `fetch_nebius._make_estimate_batch_request`: one `CreateInstanceRequest`
/// (`metadata.parent_id`, `spec.resources.{platform, preset}`, and for spot
/// `spec.preemptible.on_preemption = STOP`) packed in an `Any`, the tenant's
/// contract prices, hourly units.
///
/// SkyPilot 0.14.1 also sets `spec.follows_spot_price` for spot; that field
/// is newer than the published `nebius/api` protos available here, so its
/// number is unknown and it is not sent (see the module docs of
/// `clouds::nebius`).
pub(crate) fn estimate_batch_request(
    project: &str,
    platform: &str,
    preset: &str,
    preemptible: bool,
) -> Vec<u8> {
    let mut metadata = Writer::default();
    metadata.string(2, project);
    let mut resources = Writer::default();
    resources.string(1, platform).string(2, preset);
    let mut spec = Writer::default();
    spec.bytes(2, &resources.finish());
    if preemptible {
        let mut p = Writer::default();
        p.int(1, PREEMPTION_POLICY_STOP);
        spec.bytes(19, &p.finish());
    }
    let mut create = Writer::default();
    create.bytes(1, &metadata.finish()).bytes(2, &spec.finish());
    let mut any = Writer::default();
    any.string(
        1,
        "type.googleapis.com/nebius.compute.v1.CreateInstanceRequest",
    )
    .bytes(2, &create.finish());
    let mut resource_spec = Writer::default();
    resource_spec.bytes(1, &any.finish());
    let mut filter = Writer::default();
    filter.packed(1, &[FILTER_AGGREGATION_UNIT_HOUR]);
    let mut w = Writer::default();
    w.bytes(1, &resource_spec.finish())
        .packed(10, &[OFFER_TYPE_CONTRACT_PRICE])
        .bytes(20, &filter.finish());
    w.finish()
}

/// `EstimateBatchResponse.total_costs`, as `_get_hourly_total_cost` reads them.
pub(crate) fn estimate_batch_response(msg: &[u8]) -> Result<Vec<TotalCost>, String> {
    repeated(msg, 10)?
        .into_iter()
        .map(|tc| {
            let unit = match message_field(tc, 1)? {
                Some(u) => string_field(u, 1)?,
                None => String::new(),
            };
            // The `cost_type` oneof: the last of its members wins.
            let mut cost = CostKind::Unset;
            for (f, v) in fields(tc)? {
                match (f, v) {
                    (20, Value::Bytes(general)) => {
                        cost = CostKind::General(match message_field(general, 1)? {
                            Some(total) => Some(string_field(total, 2)?),
                            None => None,
                        });
                    }
                    (21, Value::Bytes(_)) => cost = CostKind::Range,
                    _ => {}
                }
            }
            Ok(TotalCost { unit, cost })
        })
        .collect()
}

/// `ExchangeTokenRequest` for a self-signed service-account JWT
/// (`ServiceAccount.get_exchange_token_request` of the Nebius SDK).
pub(crate) fn exchange_token_request(jwt: &str) -> Vec<u8> {
    let mut w = Writer::default();
    w.string(1, "urn:ietf:params:oauth:grant-type:token-exchange")
        .string(2, "urn:ietf:params:oauth:token-type:access_token")
        .string(3, jwt)
        .string(4, "urn:ietf:params:oauth:token-type:jwt");
    w.finish()
}

/// `CreateTokenResponse.access_token`.
pub(crate) fn exchange_token_response(msg: &[u8]) -> Result<String, String> {
    let token = string_field(msg, 1)?;
    if token.is_empty() {
        return Err("the token exchange returned no access token".into());
    }
    Ok(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_request_has_skypilots_shape() {
        let req = estimate_batch_request("project-e00a", "gpu-h100-sxm", "1gpu-16vcpu-200gb", true);
        let top = fields(&req).unwrap();
        let numbers: Vec<u32> = top.iter().map(|(f, _)| *f).collect();
        assert_eq!(numbers, [1, 10, 20]);
        let Value::Bytes(offer) = top[1].1 else {
            panic!()
        };
        assert_eq!(offer, [1]);
        let Value::Bytes(spec) = top[0].1 else {
            panic!()
        };
        let any = message_field(spec, 1).unwrap().unwrap();
        assert_eq!(
            string_field(any, 1).unwrap(),
            "type.googleapis.com/nebius.compute.v1.CreateInstanceRequest"
        );
        let create = message_field(any, 2).unwrap().unwrap();
        let metadata = message_field(create, 1).unwrap().unwrap();
        assert_eq!(string_field(metadata, 2).unwrap(), "project-e00a");
        let instance = message_field(create, 2).unwrap().unwrap();
        let resources = message_field(instance, 2).unwrap().unwrap();
        assert_eq!(string_field(resources, 1).unwrap(), "gpu-h100-sxm");
        assert_eq!(string_field(resources, 2).unwrap(), "1gpu-16vcpu-200gb");
        let preemptible = message_field(instance, 19).unwrap().unwrap();
        assert_eq!(count_field(preemptible, 1).unwrap(), 1);
        let on_demand = estimate_batch_request("p", "x", "y", false);
        let any = message_field(message_field(&on_demand, 1).unwrap().unwrap(), 1)
            .unwrap()
            .unwrap();
        let create = message_field(any, 2).unwrap().unwrap();
        let instance = message_field(create, 2).unwrap().unwrap();
        assert!(message_field(instance, 19).unwrap().is_none());
    }

    fn container(id: &str, region: &str) -> Vec<u8> {
        let mut m = Writer::default();
        m.string(1, id).string(2, "tenant-x");
        let mut st = Writer::default();
        st.int(3, 1).string(4, region);
        let mut c = Writer::default();
        c.bytes(1, &m.finish()).bytes(3, &st.finish());
        c.finish()
    }

    #[test]
    fn listings_decode_and_skip_unknown_fields() {
        let mut w = Writer::default();
        w.bytes(1, &container("project-e00a", "eu-north1"))
            .bytes(1, &container("project-e01b", "us-central1"))
            .string(2, "next")
            .int(99, 5);
        assert_eq!(
            list_projects_response(&w.finish()).unwrap(),
            [
                Project {
                    id: "project-e00a".into(),
                    region: "eu-north1".into()
                },
                Project {
                    id: "project-e01b".into(),
                    region: "us-central1".into()
                }
            ]
        );

        let mut res = Writer::default();
        res.int(1, 16).int(3, 200).int(4, 1);
        let mut preset = Writer::default();
        preset
            .string(1, "1gpu-16vcpu-200gb")
            .bytes(2, &res.finish());
        let mut spec = Writer::default();
        spec.bytes(1, &preset.finish()).int(11, 80).int(12, 80);
        let mut meta = Writer::default();
        meta.string(1, "computeplatform-x")
            .string(3, "gpu-h100-sxm");
        let mut platform = Writer::default();
        platform.bytes(1, &meta.finish()).bytes(2, &spec.finish());
        let mut list = Writer::default();
        list.bytes(1, &platform.finish());
        assert_eq!(
            list_platforms_response(&list.finish()).unwrap(),
            [Platform {
                name: "gpu-h100-sxm".into(),
                gpu_memory_gb: 80,
                presets: vec![Preset {
                    name: "1gpu-16vcpu-200gb".into(),
                    vcpus: 16,
                    memory_gib: 200,
                    gpus: 1
                }]
            }]
        );
        assert!(list_projects_response(&[0x0a, 0x05, 0x01]).is_err());
    }

    #[test]
    fn total_costs_decode_with_their_oneof() {
        let mut unit = Writer::default();
        unit.string(1, "hour").int(2, 1);
        let mut breakdown = Writer::default();
        breakdown.string(2, "2.95").string(3, "2.95");
        let mut general = Writer::default();
        general.bytes(1, &breakdown.finish());
        let mut hour = Writer::default();
        hour.bytes(1, &unit.finish()).bytes(20, &general.finish());
        let mut unit_m = Writer::default();
        unit_m.string(1, "month");
        let mut month = Writer::default();
        month.bytes(1, &unit_m.finish()).bytes(21, &[]);
        let mut resp = Writer::default();
        resp.bytes(10, &hour.finish())
            .bytes(10, &month.finish())
            .string(20, "usd");
        assert_eq!(
            estimate_batch_response(&resp.finish()).unwrap(),
            [
                TotalCost {
                    unit: "hour".into(),
                    cost: CostKind::General(Some("2.95".into()))
                },
                TotalCost {
                    unit: "month".into(),
                    cost: CostKind::Range
                }
            ]
        );
    }

    #[test]
    fn token_exchange_round_trip() {
        let req = exchange_token_request("a.b.c");
        assert_eq!(string_field(&req, 3).unwrap(), "a.b.c");
        let mut resp = Writer::default();
        resp.string(1, "v1.token").string(3, "Bearer").int(4, 3600);
        assert_eq!(exchange_token_response(&resp.finish()).unwrap(), "v1.token");
        assert!(exchange_token_response(&[]).is_err());
    }
}
