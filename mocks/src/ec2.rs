//! AWS EC2 `DescribeRegions` and `DescribeAvailabilityZones` (Query
//! protocol, `POST /`), answering per region: the region is read from the
//! request's SigV4 credential scope, as every region's endpoint is this one
//! server.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use wiremock::{MockServer, ResponseTemplate};

use crate::endpoint::{EndpointState, OkFn, exact};
use crate::flavor::{Flavor, ec2_error_xml};
use crate::served::{Route, Served};
use crate::{EndpointOptions, Fault, MockError, Recorder, Recording, fixtures};

/// The mocked account's zones: `fixtures/catalogs/aws/az_mappings-fbffe8df.csv`
/// (the mapping of the mocked STS identity), as `(zone name, zone id)`.
const DEFAULT_MAPPING_CSV: &str =
    include_str!("../../fixtures/catalogs/aws/az_mappings-fbffe8df.csv");

/// Options of an [`Ec2Mock`]; also its builder.
///
/// ```toml
/// [ec2]
/// describe_availability_zones = { latency = { kind = "fixed", ms = 30 } }
/// auth_failure_regions = ["ap-east-1"]
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Ec2Options {
    /// `Action=DescribeRegions`.
    pub describe_regions: EndpointOptions,
    /// `Action=DescribeAvailabilityZones`.
    pub describe_availability_zones: EndpointOptions,
    /// Region → `(zone name, zone id)` in the order they are listed. Default:
    /// the fixture mapping of the mocked identity, grouped by region.
    pub zones: BTreeMap<String, Vec<(String, String)>>,
    /// Regions whose zone listing answers `AuthFailure` (a region the
    /// account has not opted in to).
    pub auth_failure_regions: Vec<String>,
}

impl Default for Ec2Options {
    fn default() -> Self {
        let mut zones: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
        for line in DEFAULT_MAPPING_CSV.lines().skip(1) {
            if let Some((id, name)) = line.trim().split_once(',') {
                let region = name[..name.len().saturating_sub(1)].to_string();
                zones
                    .entry(region)
                    .or_default()
                    .push((name.to_string(), id.to_string()));
            }
        }
        Ec2Options {
            describe_regions: EndpointOptions::default(),
            describe_availability_zones: EndpointOptions::default(),
            zones,
            auth_failure_regions: Vec::new(),
        }
    }
}

impl Ec2Options {
    /// Sets the fault of both calls.
    pub fn fault(mut self, fault: Fault) -> Self {
        self.describe_regions.fault = fault;
        self.describe_availability_zones.fault = fault;
        self
    }

    /// Sets the regions whose zone listing answers `AuthFailure`.
    pub fn auth_failure_regions(mut self, regions: Vec<String>) -> Self {
        self.auth_failure_regions = regions;
        self
    }

    /// Starts the mock.
    pub async fn start(self) -> Result<Ec2Mock, MockError> {
        Ec2Mock::start_with(self, Instant::now(), 0, "ec2").await
    }
}

/// The region of a SigV4-signed request: `Credential=<key>/<date>/<region>/ec2/aws4_request`.
fn signed_region(request: &wiremock::Request) -> Option<String> {
    let auth = request.headers.get("authorization")?.to_str().ok()?;
    let scope = auth.split("Credential=").nth(1)?;
    scope.split('/').nth(2).map(str::to_string)
}

fn xml(body: String) -> (u16, ResponseTemplate) {
    (
        200,
        ResponseTemplate::new(200).set_body_raw(body, "text/xml"),
    )
}

/// AWS EC2 on 127.0.0.1; point `AWS_ENDPOINT_URL_EC2` at [`Ec2Mock::uri`].
pub struct Ec2Mock {
    served: Served,
    regions: Recorder,
    zones: Recorder,
}

impl Ec2Mock {
    /// Default options, to be adjusted and then `.start()`ed.
    pub fn builder() -> Ec2Options {
        Ec2Options::default()
    }

    pub(crate) async fn start_with(
        opts: Ec2Options,
        origin: Instant,
        base_seed: u64,
        name: &str,
    ) -> Result<Ec2Mock, MockError> {
        let regions_state = EndpointState::new(
            &format!("{name}.describe_regions"),
            &opts.describe_regions,
            base_seed,
            origin,
            Flavor::Ec2,
        )?;
        let zones_state = EndpointState::new(
            &format!("{name}.describe_availability_zones"),
            &opts.describe_availability_zones,
            base_seed,
            origin,
            Flavor::Ec2,
        )?;
        let region_names: Vec<String> = opts.zones.keys().cloned().collect();
        let regions_ok: OkFn = Arc::new(move |_| {
            let items: String = region_names
                .iter()
                .map(|r| {
                    format!(
                        "<item><regionName>{r}</regionName><regionEndpoint>ec2.{r}.amazonaws.com</regionEndpoint><optInStatus>opt-in-not-required</optInStatus></item>"
                    )
                })
                .collect();
            xml(format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<DescribeRegionsResponse xmlns=\"http://ec2.amazonaws.com/doc/2016-11-15/\"><requestId>{}</requestId><regionInfo>{items}</regionInfo></DescribeRegionsResponse>",
                fixtures::REQUEST_ID
            ))
        });
        let zones = opts.zones.clone();
        let refused = opts.auth_failure_regions.clone();
        let zones_ok: OkFn = Arc::new(move |request| {
            let region = signed_region(request).unwrap_or_default();
            if refused.contains(&region) {
                return (
                    401,
                    ResponseTemplate::new(401).set_body_raw(
                        ec2_error_xml(
                            "AuthFailure",
                            "AWS was not able to validate the provided access credentials",
                        ),
                        "text/xml",
                    ),
                );
            }
            let items: String = zones
                .get(&region)
                .into_iter()
                .flatten()
                .map(|(zone, id)| {
                    format!(
                        "<item><zoneName>{zone}</zoneName><zoneState>available</zoneState><regionName>{region}</regionName><zoneId>{id}</zoneId><zoneType>availability-zone</zoneType></item>"
                    )
                })
                .collect();
            xml(format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<DescribeAvailabilityZonesResponse xmlns=\"http://ec2.amazonaws.com/doc/2016-11-15/\"><requestId>{}</requestId><availabilityZoneInfo>{items}</availabilityZoneInfo></DescribeAvailabilityZonesResponse>",
                fixtures::REQUEST_ID
            ))
        });
        let regions = regions_state.recorder.clone();
        let zones_rec = zones_state.recorder.clone();
        let served = Served::start(vec![
            Route {
                method: "POST",
                path: exact("/"),
                body_contains: Some("Action=DescribeRegions"),
                state: regions_state,
                ok: regions_ok,
                expect: opts.describe_regions.expect,
            },
            Route {
                method: "POST",
                path: exact("/"),
                body_contains: Some("Action=DescribeAvailabilityZones"),
                state: zones_state,
                ok: zones_ok,
                expect: opts.describe_availability_zones.expect,
            },
        ])
        .await?;
        Ok(Ec2Mock {
            served,
            regions,
            zones: zones_rec,
        })
    }

    /// Base URL, `http://127.0.0.1:PORT`.
    pub fn uri(&self) -> String {
        self.served.uri()
    }

    /// The `DescribeRegions` log.
    pub fn describe_regions(&self) -> &Recorder {
        &self.regions
    }

    /// The `DescribeAvailabilityZones` log.
    pub fn describe_availability_zones(&self) -> &Recorder {
        &self.zones
    }

    /// Snapshots of every endpoint's log.
    pub fn recordings(&self) -> Vec<Recording> {
        vec![self.regions.recording(), self.zones.recording()]
    }

    /// The underlying wiremock server.
    pub fn server(&self) -> &MockServer {
        self.served.server()
    }
}
