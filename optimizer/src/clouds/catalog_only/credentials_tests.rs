//! Credential detection of DO, Fluidstack, Hyperbolic, Mithril and
//! PrimeIntellect as their `_check_compute_credentials` does it offline:
//! which files and variables count, and what `sky check` is told.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use planner::cloud::CloudId;

use super::CatalogOnlyCloud;
use crate::clouds::{CheckContext, Cloud, Credentials};

/// One machine: files below home (or below an absolute folder named by
/// `$XDG`), with their contents, and environment variables.
struct Case {
    cloud: CloudId,
    name: &'static str,
    files: &'static [(&'static str, &'static str)],
    /// Files below a folder outside home; `XDG_CONFIG_HOME` points at it
    /// when `xdg` is set.
    xdg_files: &'static [&'static str],
    xdg: bool,
    env: &'static [(&'static str, &'static str)],
    /// `Some(relative path or $VAR text)` when present; `None` when missing.
    found: Option<&'static str>,
}

const CASES: &[Case] = &[
    // DO: doctl's config in ~/.config, $XDG_CONFIG_HOME or the macOS folder.
    Case {
        cloud: CloudId::Do,
        name: "no doctl config",
        files: &[],
        xdg_files: &[],
        xdg: false,
        env: &[],
        found: None,
    },
    Case {
        cloud: CloudId::Do,
        name: "~/.config/doctl/config.yaml",
        files: &[(".config/doctl/config.yaml", "access-token: x\n")],
        xdg_files: &[],
        xdg: false,
        env: &[],
        found: Some("~/.config/doctl/config.yaml"),
    },
    Case {
        cloud: CloudId::Do,
        name: "macOS Application Support",
        files: &[("Library/Application Support/doctl/config.yaml", "x")],
        xdg_files: &[],
        xdg: false,
        env: &[],
        found: Some("~/Library/Application Support/doctl/config.yaml"),
    },
    Case {
        cloud: CloudId::Do,
        name: "$XDG_CONFIG_HOME replaces ~/.config",
        files: &[(".config/doctl/config.yaml", "x")],
        xdg_files: &[],
        xdg: true,
        env: &[],
        found: None,
    },
    Case {
        cloud: CloudId::Do,
        name: "$XDG_CONFIG_HOME/doctl/config.yaml",
        files: &[],
        xdg_files: &["doctl/config.yaml"],
        xdg: true,
        env: &[],
        found: Some("$XDG/doctl/config.yaml"),
    },
    Case {
        cloud: CloudId::Do,
        name: "an empty $XDG_CONFIG_HOME falls back to ~/.config",
        files: &[(".config/doctl/config.yaml", "x")],
        xdg_files: &[],
        xdg: false,
        env: &[("XDG_CONFIG_HOME", "")],
        found: Some("~/.config/doctl/config.yaml"),
    },
    // Fluidstack: ~/.fluidstack/api_key, whose content starts with `api_key`.
    Case {
        cloud: CloudId::Fluidstack,
        name: "no api_key file",
        files: &[],
        xdg_files: &[],
        xdg: false,
        env: &[],
        found: None,
    },
    Case {
        cloud: CloudId::Fluidstack,
        name: "api_key file in SkyPilot's format",
        files: &[(".fluidstack/api_key", "  api_key = abc\n")],
        xdg_files: &[],
        xdg: false,
        env: &[],
        found: Some("~/.fluidstack/api_key"),
    },
    Case {
        cloud: CloudId::Fluidstack,
        name: "api_key file with a bare key",
        files: &[(".fluidstack/api_key", "abc123\n")],
        xdg_files: &[],
        xdg: false,
        env: &[],
        found: None,
    },
    // Hyperbolic: ~/.hyperbolic/api_key exists.
    Case {
        cloud: CloudId::Hyperbolic,
        name: "no api_key file",
        files: &[(".hyperbolic/other", "x")],
        xdg_files: &[],
        xdg: false,
        env: &[],
        found: None,
    },
    Case {
        cloud: CloudId::Hyperbolic,
        name: "api_key file",
        files: &[(".hyperbolic/api_key", "k")],
        xdg_files: &[],
        xdg: false,
        env: &[],
        found: Some("~/.hyperbolic/api_key"),
    },
    // Mithril: both variables, else the config file ($XDG_CONFIG_HOME aware).
    Case {
        cloud: CloudId::Mithril,
        name: "nothing",
        files: &[],
        xdg_files: &[],
        xdg: false,
        env: &[],
        found: None,
    },
    Case {
        cloud: CloudId::Mithril,
        name: "both variables",
        files: &[],
        xdg_files: &[],
        xdg: false,
        env: &[
            ("MITHRIL_API_KEY", "secret-key"),
            ("MITHRIL_PROJECT", "proj"),
        ],
        found: Some("$MITHRIL_API_KEY + $MITHRIL_PROJECT"),
    },
    Case {
        cloud: CloudId::Mithril,
        name: "the key without a project",
        files: &[],
        xdg_files: &[],
        xdg: false,
        env: &[("MITHRIL_API_KEY", "secret-key"), ("MITHRIL_PROJECT", "")],
        found: None,
    },
    Case {
        cloud: CloudId::Mithril,
        name: "~/.config/mithril/config.yaml",
        files: &[(".config/mithril/config.yaml", "x")],
        xdg_files: &[],
        xdg: false,
        env: &[("MITHRIL_API_KEY", "secret-key")],
        found: Some("~/.config/mithril/config.yaml"),
    },
    Case {
        cloud: CloudId::Mithril,
        name: "$XDG_CONFIG_HOME/mithril/config.yaml",
        files: &[(".config/mithril/config.yaml", "x")],
        xdg_files: &["mithril/config.yaml"],
        xdg: true,
        env: &[],
        found: Some("$XDG/mithril/config.yaml"),
    },
    // PrimeIntellect: ~/.prime/config.json is a file.
    Case {
        cloud: CloudId::PrimeIntellect,
        name: "no config.json",
        files: &[(".prime/other.json", "{}")],
        xdg_files: &[],
        xdg: false,
        env: &[],
        found: None,
    },
    Case {
        cloud: CloudId::PrimeIntellect,
        name: "config.json",
        files: &[(".prime/config.json", "{\"api_key\": \"k\"}")],
        xdg_files: &[],
        xdg: false,
        env: &[],
        found: Some("~/.prime/config.json"),
    },
];

fn write(root: &Path, relative: &str, content: &str) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().expect("a file has a parent")).unwrap();
    std::fs::write(path, content).unwrap();
}

#[test]
fn credentials_are_found_where_skypilot_looks_and_described_without_secrets() {
    for case in CASES {
        let home = tempfile::tempdir().unwrap();
        let xdg = tempfile::tempdir().unwrap();
        for (relative, content) in case.files {
            write(home.path(), relative, content);
        }
        for relative in case.xdg_files {
            write(xdg.path(), relative, "x");
        }
        let mut env: BTreeMap<String, String> = case
            .env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        if case.xdg {
            env.insert("XDG_CONFIG_HOME".into(), xdg.path().display().to_string());
        }
        let ctx = CheckContext {
            env,
            home: home.path().to_path_buf(),
            state_dir: home.path().join(".sky"),
            refresh: false,
            cloud_timeout: Duration::from_secs(5),
            kubernetes_allowed_contexts: None,
            reservation_clouds: Vec::new(),
            gcp_project_id: None,
            sky_config: Default::default(),
        };
        let adapter = CatalogOnlyCloud::new(case.cloud).expect("a file-detected cloud");
        let got = adapter.credentials(&ctx);
        let label = format!("{:?}: {}", case.cloud, case.name);
        match (case.found, &got) {
            (Some(want), Credentials::Present(text)) => {
                let want = want
                    .replace('~', &home.path().display().to_string())
                    .replace("$XDG", &xdg.path().display().to_string());
                assert_eq!(text, &want, "{label}");
                assert!(!text.contains("secret-key"), "{label}: {text}");
            }
            (None, Credentials::Missing(hint)) => {
                assert!(
                    hint.starts_with(case.cloud.repr()) && hint.contains("not found"),
                    "{label}: {hint}"
                );
            }
            _ => panic!("{label}: {got:?}"),
        }
    }
}
