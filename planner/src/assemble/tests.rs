//! The assembly on plain data: which clouds a launch uses, which it leaves
//! out and why, the notes it makes, in order.

use std::path::PathBuf;
use std::time::Duration;

use super::*;
use crate::catalog::kubernetes::KubeContext;
use crate::catalog::{AzMapping, Catalog, CatalogWarning, CloudCatalog};
use crate::check::{
    AwsFacts, AwsIdentity, CacheUse, CheckOutcome, CloudError, CloudFacts, CloudReport, FanOut,
    OciFacts, Outcome,
};
use crate::cloud::CloudId::{self, Aws, Gcp, Kubernetes, Lambda, Oci};
use crate::config::{IgnoredCloud, parse_sky_config};

const AWS_VMS: &str = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone,Arch,LocalDiskType,NVMeSupported,LocalDiskSize,LocalDiskCount,MaximumEfaInterfaces\n\
c5.large,,,2.0,4.0,,0.085,0.03,us-east-1,use1-az1,x86_64,,False,,,\n";

fn ready(facts: CloudFacts) -> Outcome {
    Outcome::Ready(CheckOutcome {
        facts,
        cache: CacheUse::None,
    })
}

fn fanout(reports: Vec<(CloudId, Outcome)>) -> FanOut {
    FanOut {
        reports: reports
            .into_iter()
            .map(|(cloud, outcome)| CloudReport {
                cloud,
                outcome,
                started: Duration::ZERO,
                elapsed: Duration::ZERO,
            })
            .collect(),
        storage: Vec::new(),
        wall: Duration::ZERO,
    }
}

fn settings(clouds: &[CloudId], declared: bool) -> Settings {
    let config = crate::config::SkyConfig::default();
    let enabled = if declared {
        Enabled::Declared(clouds.to_vec())
    } else {
        Enabled::Checked(clouds.to_vec())
    };
    Settings {
        candidates: candidates(&enabled, &config),
        config,
        declared,
        option_warnings: Vec::new(),
        ssh_pools_file: "~/.sky/ssh_node_pools.yaml".into(),
    }
}

fn catalogs() -> FoundCatalogs {
    FoundCatalogs {
        source: CatalogSource::Bundled,
        catalog: Catalog::new(),
        skipped_rows: Vec::new(),
        origins: Vec::new(),
        problems: Vec::new(),
        unusable: Vec::new(),
        missing_local: Vec::new(),
        az_mappings: Vec::new(),
        az_mapping_error: None,
        elapsed: Duration::from_millis(3),
    }
}

fn found(reports: Vec<(CloudId, Outcome)>, catalogs: FoundCatalogs) -> Found {
    Found {
        fanout: fanout(reports),
        offline_kube: None,
        catalogs,
        aws_identity_hash: None,
    }
}

fn assembled(settings: Settings, found: Found) -> Assembled {
    match assemble(settings, found) {
        Ok(a) => a,
        Err(e) => panic!("no world: {e:?}"),
    }
}

fn why(list: &[Absent], cloud: CloudId) -> Option<&Absence> {
    list.iter().find(|a| a.cloud == cloud).map(|a| &a.why)
}

fn no_credentials() -> Outcome {
    Outcome::NoCredentials("set AWS_ACCESS_KEY_ID".into())
}

fn timeout() -> Outcome {
    Outcome::Failed(CloudError::Timeout(Duration::from_secs(5)))
}

fn origin(file: &str, cloud: Option<CloudId>, kind: CatalogKind) -> CatalogOrigin {
    CatalogOrigin {
        file: file.into(),
        cloud,
        kind,
        path: None,
        age: None,
        pull_hours: None,
    }
}

#[test]
fn a_ready_cloud_is_used_a_failed_one_left_out_and_one_without_credentials_absent() {
    let a = assembled(
        settings(&[Aws, Gcp, Lambda], false),
        found(
            vec![
                (Aws, no_credentials()),
                (Gcp, timeout()),
                (Lambda, ready(CloudFacts::Catalog)),
            ],
            catalogs(),
        ),
    );
    assert_eq!(a.world.enabled, [Lambda]);
    assert_eq!(a.excluded.len(), 1, "{:?}", a.excluded);
    assert_eq!(
        why(&a.excluded, Gcp),
        Some(&Absence::CheckFailed(CloudError::Timeout(
            Duration::from_secs(5)
        )))
    );
    assert_eq!(
        why(&a.absent, Aws),
        Some(&Absence::NoCredentials("set AWS_ACCESS_KEY_ID".into()))
    );
    // Clouds the last `sky check` did not enable, in `CloudId::ALL` order.
    assert_eq!(why(&a.absent, Oci), Some(&Absence::NotEnabled));
    assert!(a.absent.windows(2).all(|w| w[0].cloud < w[1].cloud));
    assert!(a.notes.is_empty(), "{:?}", a.notes);
}

#[test]
fn a_declared_cloud_without_credentials_is_used_offline() {
    let a = assembled(
        settings(&[Aws, Gcp], true),
        found(
            vec![(Aws, no_credentials()), (Gcp, ready(CloudFacts::Catalog))],
            catalogs(),
        ),
    );
    assert_eq!(a.world.enabled, [Aws, Gcp]);
    assert!(a.excluded.is_empty());
    assert_eq!(why(&a.absent, Lambda), Some(&Absence::NotDeclared));
    assert_eq!(why(&a.absent, Aws), None);
}

#[test]
fn no_usable_cloud_lists_each_check_in_order() {
    let e = assemble(
        settings(&[Gcp, Aws], false),
        found(vec![(Gcp, timeout()), (Aws, no_credentials())], catalogs()),
    );
    let Err(AssembleError::NoCloud(no_cloud)) = e else {
        panic!("a world without clouds: {e:?}");
    };
    let clouds: Vec<CloudId> = no_cloud.checks.iter().map(|a| a.cloud).collect();
    assert_eq!(clouds, [Gcp, Aws]);
    assert!(matches!(no_cloud.checks[0].why, Absence::CheckFailed(_)));
    assert!(matches!(no_cloud.checks[1].why, Absence::NoCredentials(_)));
}

#[test]
fn a_usable_cloud_without_a_catalog_is_left_out_and_its_catalogs_not_listed() {
    let mut c = catalogs();
    c.unusable
        .push((Lambda, NoCatalog::DownloadFailed("HTTP 404".into())));
    c.origins = vec![
        origin("gcp/vms.csv", Some(Gcp), CatalogKind::Cached),
        origin("lambda/vms.csv", Some(Lambda), CatalogKind::Bundled),
        origin("common/metadata.csv", None, CatalogKind::Cached),
    ];
    c.problems = vec![("lambda/vms.csv".into(), "HTTP 404".into())];
    let a = assembled(
        settings(&[Gcp, Lambda], true),
        found(
            vec![
                (Gcp, ready(CloudFacts::Catalog)),
                (Lambda, ready(CloudFacts::Catalog)),
            ],
            c,
        ),
    );
    assert_eq!(a.world.enabled, [Gcp]);
    assert_eq!(
        why(&a.excluded, Lambda),
        Some(&Absence::NoCatalog(NoCatalog::DownloadFailed(
            "HTTP 404".into()
        )))
    );
    let files: Vec<&str> = a.catalogs.iter().map(|o| o.file.as_str()).collect();
    assert_eq!(files, ["gcp/vms.csv", "common/metadata.csv"]);
    assert!(a.notes.is_empty(), "{:?}", a.notes);
}

#[test]
fn every_context_unreachable_keeps_kubernetes_in_the_world_but_out_of_the_table() {
    let contexts = vec![
        KubeContext {
            name: "a".into(),
            nodes: Err("connection refused".into()),
        },
        KubeContext {
            name: "b".into(),
            nodes: Err("timeout".into()),
        },
    ];
    let a = assembled(
        settings(&[Kubernetes], false),
        found(
            vec![(Kubernetes, ready(CloudFacts::Kubernetes(contexts)))],
            catalogs(),
        ),
    );
    assert_eq!(a.world.enabled, [Kubernetes]);
    assert_eq!(a.world.kube_contexts.len(), 2);
    assert_eq!(
        why(&a.excluded, Kubernetes),
        Some(&Absence::Unreachable(Unreachable {
            contexts: 2,
            first: "a".into(),
            error: "connection refused".into(),
        }))
    );
}

#[test]
fn offline_kubernetes_contexts_stand_in_for_its_check() {
    let mut f = found(vec![], catalogs());
    f.offline_kube = Some(vec![KubeContext {
        name: "kind".into(),
        nodes: Ok(Vec::new()),
    }]);
    let a = assembled(settings(&[Kubernetes], false), f);
    assert_eq!(a.world.enabled, [Kubernetes]);
    assert_eq!(a.world.kube_contexts[0].name, "kind");
    assert!(a.excluded.is_empty());
}

#[test]
fn the_aws_identity_picks_its_zone_mapping() {
    let mut c = catalogs();
    let (aws, _) = CloudCatalog::from_bytes(Aws, AWS_VMS.as_bytes(), "aws.csv").unwrap();
    c.catalog.insert(aws);
    let mapping = |name: &str| {
        let csv = format!("AvailabilityZone,AvailabilityZoneName\nuse1-az1,{name}\n");
        AzMapping::from_reader(csv.as_bytes(), "m.csv").unwrap()
    };
    c.az_mappings = vec![
        ("first".into(), mapping("us-east-1x")),
        ("mine".into(), mapping("us-east-1b")),
    ];
    c.az_mapping_error = Some("bad mapping".into());
    let mut f = found(
        vec![(
            Aws,
            ready(CloudFacts::Aws(AwsFacts {
                identity: Some(AwsIdentity {
                    user_id: "AIDA".into(),
                    account: "1".into(),
                    arn: "arn".into(),
                }),
                warnings: vec!["zone names unavailable".into()],
            })),
        )],
        c,
    );
    f.aws_identity_hash = Some("mine".into());
    let a = assembled(settings(&[Aws], false), f);
    assert_eq!(a.az_mapping.as_deref(), Some("mine"));
    let zone = a.world.catalog.cloud(Aws).unwrap().rows[0].zone.clone();
    assert_eq!(zone.as_deref(), Some("us-east-1b"));
    assert_eq!(
        a.notes,
        [
            Note::Check {
                cloud: Aws,
                message: "zone names unavailable".into()
            },
            Note::AzMapping("bad mapping".into()),
        ]
    );
}

#[test]
fn notes_come_in_print_order_and_only_for_the_clouds_used() {
    let mut s = settings(&[Gcp, Oci], true);
    s.option_warnings = vec!["SKY_ENABLED_CLOUDS: awz".into()];
    s.config = parse_sky_config("allowed_clouds: [gcp, oci, nocloud]\n", "cfg.yaml").unwrap();
    let mut c = catalogs();
    c.source = CatalogSource::Dir(PathBuf::from("/cat"));
    let stale = CatalogOrigin {
        age: Some(Duration::from_secs(90)),
        ..origin("gcp/vms.csv", Some(Gcp), CatalogKind::Stale)
    };
    c.origins = vec![
        stale.clone(),
        origin("oci/vms.csv", Some(Oci), CatalogKind::Bundled),
        origin("aws/vms.csv", Some(Aws), CatalogKind::Bundled),
    ];
    c.problems = vec![
        ("gcp/vms.csv".into(), "HTTP 503".into()),
        ("aws/vms.csv".into(), "HTTP 503".into()),
    ];
    let row = CatalogWarning {
        source_name: "oci/vms.csv".into(),
        line: 3,
        message: "bad price".into(),
    };
    c.skipped_rows = vec![row.clone()];
    c.missing_local = vec![(CloudId::Vsphere, PathBuf::from("/cat/vsphere/vms.csv"))];
    let unavailable = OciFacts {
        subscribed_regions: Vec::new(),
        unavailable: Some("no answer".into()),
    };
    let a = assembled(
        s,
        found(
            vec![
                (Gcp, ready(CloudFacts::Catalog)),
                (Oci, ready(CloudFacts::Oci(unavailable))),
            ],
            c,
        ),
    );
    let ignored = match &a.notes[1] {
        Note::IgnoredCloud(IgnoredCloud { unknown, .. }) => unknown.to_string(),
        other => panic!("{other:?}"),
    };
    assert!(ignored.contains("nocloud"), "{ignored}");
    assert_eq!(a.notes[0], Note::Options("SKY_ENABLED_CLOUDS: awz".into()));
    assert_eq!(
        a.notes[2..],
        [
            Note::DownloadsFailed(vec![FailedDownload {
                origin: stale,
                problem: "HTTP 503".into(),
            }]),
            Note::ExampleCatalogs {
                dir: PathBuf::from("/cat"),
                files: vec![origin("oci/vms.csv", Some(Oci), CatalogKind::Bundled)],
            },
            Note::SkippedRows(vec![row]),
            Note::OciRegionsUnavailable("no answer".into()),
        ]
    );
}

#[test]
fn candidates_say_why_each_other_cloud_is_not_considered() {
    let config = parse_sky_config(
        "allowed_clouds: [aws, gcp, lambda]\nactive_workspace: team\n\
         workspaces:\n  team:\n    gcp:\n      disabled: true\n",
        "cfg.yaml",
    )
    .unwrap();
    let c = candidates(&Enabled::Checked(vec![Lambda, Gcp, Oci, Aws]), &config);
    assert_eq!(c.clouds, [Lambda, Aws]);
    assert_eq!(
        why(&c.left_out, Gcp),
        Some(&Absence::DisabledInWorkspace("team".into()))
    );
    assert_eq!(why(&c.left_out, Oci), Some(&Absence::NotInAllowedClouds));
    assert_eq!(why(&c.left_out, Kubernetes), Some(&Absence::NotEnabled));
    let all = candidates(&Enabled::All, &crate::config::SkyConfig::default());
    assert_eq!(all.clouds, CloudId::ALL);
    assert!(all.left_out.is_empty());
}

mod sky_check {
    use super::super::check::{CheckRequest, Scope, scope};
    use super::*;
    use crate::check::Capability;
    use crate::cloud::{Provider, StorageOnly};

    fn config(text: &str) -> crate::config::SkyConfig {
        parse_sky_config(text, "cfg.yaml").unwrap()
    }

    #[test]
    fn an_unknown_workspace_or_cloud_is_answered_without_checks() {
        let request = CheckRequest {
            workspace: Some("nope".into()),
            ..CheckRequest::default()
        };
        let Ok(Scope::Answered(report)) = scope(&config(""), &request) else {
            panic!("checks for an unknown workspace");
        };
        assert!(report.invalid.unwrap().contains("'nope' not found"));
        let request = CheckRequest {
            declared_unknown: Some("r2".into()),
            ..CheckRequest::default()
        };
        let Ok(Scope::Answered(report)) = scope(&config(""), &request) else {
            panic!("checks for an unknown cloud");
        };
        assert_eq!(report.workspaces.len(), 1);
        assert!(
            report
                .invalid
                .unwrap()
                .starts_with("Cloud 'r2' is not a valid cloud")
        );
    }

    #[test]
    fn a_malformed_capability_is_a_usage_error() {
        let bad = config("aws:\n  capabilities: [gpu]\n");
        let e = scope(&bad, &CheckRequest::default()).unwrap_err();
        assert!(e.contains("aws.capabilities"), "{e}");
    }

    #[test]
    fn the_checks_follow_what_the_workspaces_allow_and_the_enabled_set_the_active_one() {
        let cfg = config(
            "allowed_clouds: [aws, gcp, cloudflare]\n\
             gcp:\n  capabilities: [storage]\n",
        );
        let Ok(Scope::Check(s)) = scope(&cfg, &CheckRequest::default()) else {
            panic!("nothing to check");
        };
        assert_eq!(s.compute, [Aws]);
        assert_eq!(
            s.storage,
            [
                Provider::Cloud(Aws),
                Provider::Cloud(Gcp),
                Provider::StorageOnly(StorageOnly::Cloudflare)
            ]
        );
        assert!(s.decides_enabled());
        let report = s.report(fanout(vec![(Aws, ready(CloudFacts::Catalog))]));
        assert!(report.not_allowed.contains(&Lambda));
        assert_eq!(s.enabled_set(&report, None), [Aws]);
        assert_eq!(
            report.workspaces[0].capabilities_of(Provider::Cloud(Gcp)),
            [Capability::Storage]
        );
    }

    #[test]
    fn named_clouds_are_reported_as_named_and_leave_the_enabled_set_alone() {
        let request = CheckRequest {
            declared_clouds: Some(vec![Gcp, Aws]),
            declared_storage_only: vec![StorageOnly::HuggingFace],
            ..CheckRequest::default()
        };
        let Ok(Scope::Check(s)) = scope(&config(""), &request) else {
            panic!("nothing to check");
        };
        assert_eq!(s.compute, [Gcp, Aws]);
        assert!(!s.decides_enabled());
        let report = s.report(FanOut::default());
        assert_eq!(
            report.explicit,
            Some(vec![
                Provider::Cloud(Gcp),
                Provider::Cloud(Aws),
                Provider::StorageOnly(StorageOnly::HuggingFace)
            ])
        );
    }
}
