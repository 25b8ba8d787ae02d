//! The OCI configuration SkyPilot uses: the file (`sky/adaptors/oci.py::
//! get_config_file`: `$OCI_CONFIG`, else `~/.oci/config`), the profile
//! (`oci_utils.OCIConfig.get_profile`: `oci.region_configs.default.
//! oci_config_profile`, else `oci.oci_config_profile`, else `DEFAULT`), and
//! the profile's keys as the OCI SDK reads them (`oci.config.from_file`: a
//! `configparser` file whose `[DEFAULT]` section is inherited by every
//! profile; `validate_config`: `user`, `tenancy`, `fingerprint`, `key_file`
//! and `region` are required, OCIDs and the fingerprint must look right).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use planner::check::CloudError;
use planner::config::SkyConfig;

use super::super::CheckContext;
use crate::config::expand_home;

/// SkyPilot's `OCI_CONFIG_PATH`.
pub(crate) const DEFAULT_CONFIG_PATH: &str = "~/.oci/config";
/// SkyPilot's `ENV_VAR_OCI_CONFIG`.
pub(crate) const CONFIG_ENV: &str = "OCI_CONFIG";
/// The OCI SDK's `DEFAULT_PROFILE`.
pub(crate) const DEFAULT_PROFILE: &str = "DEFAULT";

/// `OCI._check_credentials`'s short help.
const SHORT_HELP: &str = "For more details, refer to: https://docs.skypilot.co/en/latest/getting-started/installation.html#oracle-cloud-infrastructure-oci";

/// Where the config file is, as SkyPilot names it (unexpanded) and as a path.
#[derive(Debug, Clone)]
pub(crate) struct ConfigLocation {
    /// What SkyPilot prints: `$OCI_CONFIG` verbatim, or `~/.oci/config`.
    pub shown: String,
    /// The file.
    pub path: PathBuf,
}

impl ConfigLocation {
    /// `get_config_file()` on the injected environment and home.
    pub(crate) fn of(ctx: &CheckContext) -> ConfigLocation {
        let shown = ctx
            .env
            .get(CONFIG_ENV)
            .cloned()
            .unwrap_or_else(|| DEFAULT_CONFIG_PATH.to_string());
        let path = expand_home(&shown, &ctx.home);
        ConfigLocation { shown, path }
    }

    /// The hint `sky check` shows when the file is missing.
    pub(crate) fn missing_hint(&self) -> String {
        format!("Missing credential file at {}. {SHORT_HELP}", self.shown)
    }
}

/// `oci_utils.OCIConfig.get_profile()` from `~/.sky/config.yaml`.
pub(crate) fn profile(config: &SkyConfig) -> String {
    let oci = config.raw.get("oci");
    let text = |v: Option<&serde_yaml_ng::Value>| v.and_then(|v| v.as_str()).map(str::to_string);
    text(
        oci.and_then(|o| o.get("region_configs"))
            .and_then(|r| r.get("default"))
            .and_then(|d| d.get("oci_config_profile")),
    )
    .or_else(|| text(oci.and_then(|o| o.get("oci_config_profile"))))
    .unwrap_or_else(|| DEFAULT_PROFILE.to_string())
}

/// The keys of one profile the adapter needs: identifiers and a path, no
/// secret (the key's contents are read separately and never kept here).
#[derive(Debug, Clone)]
pub(crate) struct Profile {
    /// The profile name.
    pub name: String,
    /// `user` OCID.
    pub user: String,
    /// `tenancy` OCID.
    pub tenancy: String,
    /// `fingerprint` of the API key.
    pub fingerprint: String,
    /// `region` (a name or a short code, as written).
    pub region: String,
    /// `key_file`, expanded.
    pub key_file: PathBuf,
    /// Whether `pass_phrase` is set (an encrypted key, which we cannot use).
    pub has_pass_phrase: bool,
}

/// The config file, read once per check: its bytes go into the cache key.
pub(crate) struct ConfigFile {
    /// Where it is.
    pub location: ConfigLocation,
    /// Its contents.
    pub contents: Vec<u8>,
}

impl ConfigFile {
    /// Reads the file; a missing file is the "no credentials" hint.
    pub(crate) fn read(location: ConfigLocation) -> Result<ConfigFile, CloudError> {
        match std::fs::read(&location.path) {
            Ok(contents) => Ok(ConfigFile { location, contents }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(CloudError::Config(location.missing_hint()))
            }
            Err(e) => Err(CloudError::Config(format!(
                "OCI credential is not correctly set. Cannot read the credential file at {}: {e}",
                location.shown
            ))),
        }
    }

    /// The profile's keys, validated as `oci.config.validate_config` does.
    pub(crate) fn profile(&self, name: &str, home: &Path) -> Result<Profile, CloudError> {
        let invalid = |why: String| {
            CloudError::Config(format!(
                "OCI credential is not correctly set. Check the credential file at {}: {why}",
                self.location.shown
            ))
        };
        let text = String::from_utf8_lossy(&self.contents);
        let sections = parse_ini(&text);
        let defaults = sections.get(DEFAULT_PROFILE).cloned().unwrap_or_default();
        let mut keys = defaults;
        if name != DEFAULT_PROFILE {
            let Some(own) = sections.get(name) else {
                return Err(invalid(format!(
                    "profile {name:?} not found (set oci.region_configs.default.oci_config_profile in ~/.sky/config.yaml to one of its profiles)"
                )));
            };
            keys.extend(own.clone());
        }
        // `[DEFAULT]` always exists for `configparser`, empty when absent:
        // its missing keys are reported below.
        if keys.contains_key("key_content") {
            return Err(invalid(
                "'key_content' cannot be specified in a config file for security reasons".into(),
            ));
        }
        let mut errors: Vec<String> = Vec::new();
        for required in ["user", "tenancy", "fingerprint", "key_file", "region"] {
            if keys.get(required).is_none_or(|v| v.is_empty()) {
                errors.push(format!("{required}: missing"));
            }
        }
        for (key, check) in [
            ("tenancy", is_ocid as fn(&str) -> bool),
            ("user", is_ocid),
            ("fingerprint", is_fingerprint),
        ] {
            if let Some(v) = keys.get(key).filter(|v| !v.is_empty())
                && !check(v)
            {
                errors.push(format!("{key}: malformed"));
            }
        }
        if !errors.is_empty() {
            return Err(invalid(format!(
                "profile {name:?} is invalid ({})",
                errors.join(", ")
            )));
        }
        let get = |k: &str| keys.get(k).cloned().unwrap_or_default();
        Ok(Profile {
            name: name.to_string(),
            user: get("user"),
            tenancy: get("tenancy"),
            fingerprint: get("fingerprint"),
            region: get("region"),
            key_file: expand_home(&get("key_file"), home),
            has_pass_phrase: keys.get("pass_phrase").is_some_and(|p| !p.is_empty()),
        })
    }
}

/// A `configparser` document (no interpolation, `=` or `:` separators,
/// full-line `#`/`;` comments, indented continuation lines, lower-cased
/// keys): section → key → value. Later duplicates win, as the SDK's
/// non-strict reading would not allow, but no real file has them.
pub(crate) fn parse_ini(text: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut out: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut section: Option<String> = None;
    let mut last_key: Option<String> = None;
    for raw in text.lines() {
        let line = raw.trim_end();
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with(['#', ';']) {
            continue;
        }
        let indented = line.len() != trimmed.len();
        if indented
            && let (Some(s), Some(k)) = (&section, &last_key)
            && let Some(value) = out.get_mut(s).and_then(|m| m.get_mut(k))
        {
            value.push('\n');
            value.push_str(trimmed);
            continue;
        }
        if let Some(name) = trimmed
            .strip_prefix('[')
            .and_then(|rest| rest.strip_suffix(']'))
        {
            section = Some(name.to_string());
            out.entry(name.to_string()).or_default();
            last_key = None;
            continue;
        }
        let Some(s) = &section else {
            continue;
        };
        let split = trimmed.find(['=', ':']);
        let Some(at) = split else {
            continue;
        };
        let key = trimmed[..at].trim().to_lowercase();
        let value = trimmed[at + 1..].trim().to_string();
        out.entry(s.clone()).or_default().insert(key.clone(), value);
        last_key = Some(key);
    }
    out
}

/// The SDK's OCID pattern: `^([0-9a-zA-Z-_]+[.:])([0-9a-zA-Z-_]*[.:]){3,}([0-9a-zA-Z-_]+)$`.
fn is_ocid(v: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    let parts: Vec<&str> = v.split(['.', ':']).collect();
    parts.len() >= 5
        && !parts[0].is_empty()
        && !parts[parts.len() - 1].is_empty()
        && parts.iter().all(|p| p.chars().all(word))
}

/// The SDK's fingerprint pattern: 16 lower-case hex pairs joined by `:`.
fn is_fingerprint(v: &str) -> bool {
    let pairs: Vec<&str> = v.split(':').collect();
    pairs.len() == 16
        && pairs.iter().all(|p| {
            p.len() == 2
                && p.chars()
                    .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
        })
}

/// `oci.regions`: a short code (`iad`) names its region; names stay.
pub(crate) fn region_name(region: &str) -> String {
    let lower = region.trim().to_lowercase();
    REGION_SHORT_NAMES
        .iter()
        .find(|(code, _)| *code == lower)
        .map(|(_, name)| (*name).to_string())
        .unwrap_or(lower)
}

/// The identity endpoint of a region: `https://identity.<region>.oci.<realm
/// domain>` (the SDK's `identity` endpoint template; regions it does not
/// know are in the commercial realm, `oc1`).
pub(crate) fn identity_endpoint(region: &str) -> String {
    let realm = REGION_REALMS
        .iter()
        .find(|(r, _)| *r == region)
        .map(|(_, realm)| *realm)
        .unwrap_or("oc1");
    let domain = REALM_DOMAINS
        .iter()
        .find(|(r, _)| *r == realm)
        .map(|(_, d)| *d)
        .unwrap_or("oraclecloud.com");
    format!("https://identity.{region}.oci.{domain}")
}

/// `oci.regions_definitions.REGIONS_SHORT_NAMES`.
const REGION_SHORT_NAMES: &[(&str, &str)] = &[
    ("yny", "ap-chuncheon-1"),
    ("hyd", "ap-hyderabad-1"),
    ("mel", "ap-melbourne-1"),
    ("bom", "ap-mumbai-1"),
    ("kix", "ap-osaka-1"),
    ("icn", "ap-seoul-1"),
    ("syd", "ap-sydney-1"),
    ("nrt", "ap-tokyo-1"),
    ("yul", "ca-montreal-1"),
    ("yyz", "ca-toronto-1"),
    ("ams", "eu-amsterdam-1"),
    ("fra", "eu-frankfurt-1"),
    ("zrh", "eu-zurich-1"),
    ("jed", "me-jeddah-1"),
    ("dxb", "me-dubai-1"),
    ("gru", "sa-saopaulo-1"),
    ("cwl", "uk-cardiff-1"),
    ("lhr", "uk-london-1"),
    ("iad", "us-ashburn-1"),
    ("phx", "us-phoenix-1"),
    ("sjc", "us-sanjose-1"),
    ("vcp", "sa-vinhedo-1"),
    ("scl", "sa-santiago-1"),
    ("mtz", "il-jerusalem-1"),
    ("mrs", "eu-marseille-1"),
    ("sin", "ap-singapore-1"),
    ("auh", "me-abudhabi-1"),
    ("lin", "eu-milan-1"),
    ("arn", "eu-stockholm-1"),
    ("jnb", "af-johannesburg-1"),
    ("cdg", "eu-paris-1"),
    ("qro", "mx-queretaro-1"),
    ("mad", "eu-madrid-1"),
    ("ord", "us-chicago-1"),
    ("mty", "mx-monterrey-1"),
    ("aga", "us-saltlake-2"),
    ("bog", "sa-bogota-1"),
    ("vap", "sa-valparaiso-1"),
    ("xsp", "ap-singapore-2"),
    ("ruh", "me-riyadh-1"),
    ("lfi", "us-langley-1"),
    ("luf", "us-luke-1"),
    ("ric", "us-gov-ashburn-1"),
    ("pia", "us-gov-chicago-1"),
    ("tus", "us-gov-phoenix-1"),
    ("ltn", "uk-gov-london-1"),
    ("brs", "uk-gov-cardiff-1"),
    ("nja", "ap-chiyoda-1"),
    ("ukb", "ap-ibaraki-1"),
    ("mct", "me-dcc-muscat-1"),
    ("wga", "ap-dcc-canberra-1"),
    ("bgy", "eu-dcc-milan-1"),
    ("mxp", "eu-dcc-milan-2"),
    ("snn", "eu-dcc-dublin-2"),
    ("dtm", "eu-dcc-rating-2"),
    ("dus", "eu-dcc-rating-1"),
    ("ork", "eu-dcc-dublin-1"),
    ("dac", "ap-dcc-gazipur-1"),
    ("vll", "eu-madrid-2"),
    ("str", "eu-frankfurt-2"),
    ("beg", "eu-jovanovac-1"),
    ("doh", "me-dcc-doha-1"),
    ("ebb", "us-somerset-1"),
    ("ebl", "us-thames-1"),
    ("avz", "eu-dcc-zurich-1"),
    ("avf", "eu-crissier-1"),
    ("ahu", "me-abudhabi-3"),
    ("rkt", "me-abudhabi-2"),
    ("shj", "me-abudhabi-4"),
    ("dtz", "ap-seoul-2"),
    ("dln", "ap-suwon-1"),
    ("bno", "ap-chuncheon-2"),
];

/// `oci.regions_definitions.REGION_REALMS`, the regions outside `oc1`.
const REGION_REALMS: &[(&str, &str)] = &[
    ("us-langley-1", "oc2"),
    ("us-luke-1", "oc2"),
    ("us-gov-ashburn-1", "oc3"),
    ("us-gov-chicago-1", "oc3"),
    ("us-gov-phoenix-1", "oc3"),
    ("uk-gov-london-1", "oc4"),
    ("uk-gov-cardiff-1", "oc4"),
    ("ap-chiyoda-1", "oc8"),
    ("ap-ibaraki-1", "oc8"),
    ("me-dcc-muscat-1", "oc9"),
    ("ap-dcc-canberra-1", "oc10"),
    ("eu-dcc-milan-1", "oc14"),
    ("eu-dcc-milan-2", "oc14"),
    ("eu-dcc-dublin-2", "oc14"),
    ("eu-dcc-rating-2", "oc14"),
    ("eu-dcc-rating-1", "oc14"),
    ("eu-dcc-dublin-1", "oc14"),
    ("ap-dcc-gazipur-1", "oc15"),
    ("eu-madrid-2", "oc19"),
    ("eu-frankfurt-2", "oc19"),
    ("eu-jovanovac-1", "oc20"),
    ("me-dcc-doha-1", "oc21"),
    ("us-somerset-1", "oc23"),
    ("us-thames-1", "oc23"),
    ("eu-dcc-zurich-1", "oc24"),
    ("eu-crissier-1", "oc24"),
    ("me-abudhabi-3", "oc26"),
    ("me-abudhabi-2", "oc29"),
    ("me-abudhabi-4", "oc29"),
    ("ap-seoul-2", "oc35"),
    ("ap-suwon-1", "oc35"),
    ("ap-chuncheon-2", "oc35"),
];

/// `oci.regions_definitions.REALMS`: realm → second-level domain.
const REALM_DOMAINS: &[(&str, &str)] = &[
    ("oc1", "oraclecloud.com"),
    ("oc2", "oraclegovcloud.com"),
    ("oc3", "oraclegovcloud.com"),
    ("oc4", "oraclegovcloud.uk"),
    ("oc8", "oraclecloud8.com"),
    ("oc9", "oraclecloud9.com"),
    ("oc10", "oraclecloud10.com"),
    ("oc14", "oraclecloud14.com"),
    ("oc15", "oraclecloud15.com"),
    ("oc19", "oraclecloud.eu"),
    ("oc20", "oraclecloud20.com"),
    ("oc21", "oraclecloud21.com"),
    ("oc23", "oraclecloud23.com"),
    ("oc24", "oraclecloud24.com"),
    ("oc26", "oraclecloud26.com"),
    ("oc29", "oraclecloud29.com"),
    ("oc35", "oraclecloud35.com"),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> ConfigFile {
        ConfigFile {
            location: ConfigLocation {
                shown: "~/.oci/config".into(),
                path: PathBuf::from("/nonexistent/.oci/config"),
            },
            contents: text.as_bytes().to_vec(),
        }
    }

    const GOOD: &str = "[DEFAULT]\n\
        user=ocid1.user.oc1..aaaaaaaauser\n\
        fingerprint=2b:5d:4b:56:ba:c5:4c:5e:75:68:73:01:8e:d5:19:8e\n\
        tenancy = ocid1.tenancy.oc1..aaaaaaaatenancy\n\
        region=us-chicago-1\n\
        key_file=~/.oci/key.pem\n\
        # a comment\n\
        [OTHER]\n\
        region: iad\n";

    #[test]
    fn profiles_inherit_default_and_are_validated() {
        let home = Path::new("/home/u");
        let p = file(GOOD).profile("DEFAULT", home).unwrap();
        assert_eq!(p.tenancy, "ocid1.tenancy.oc1..aaaaaaaatenancy");
        assert_eq!(p.key_file, PathBuf::from("/home/u/.oci/key.pem"));
        let other = file(GOOD).profile("OTHER", home).unwrap();
        assert_eq!(other.region, "iad");
        assert_eq!(region_name(&other.region), "us-ashburn-1");
        assert_eq!(other.user, p.user);

        let err = file(GOOD).profile("NOPE", home).unwrap_err().to_string();
        assert!(err.contains("profile \"NOPE\" not found"), "{err}");
        let err = file("[DEFAULT]\nuser=nope\nregion=x\n")
            .profile("DEFAULT", home)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("tenancy: missing")
                && err.contains("fingerprint: missing")
                && err.contains("user: malformed"),
            "{err}"
        );
        assert!(!err.contains('\n'), "{err}");
    }

    #[test]
    fn ini_continuations_and_separators() {
        let doc = parse_ini("[A]\nKey = one\n  two\nb: 3\n; c\n[B]\nx=1\n");
        assert_eq!(doc["A"]["key"], "one\ntwo");
        assert_eq!(doc["A"]["b"], "3");
        assert_eq!(doc["B"]["x"], "1");
    }

    #[test]
    fn endpoints_follow_the_realm_of_the_region() {
        assert_eq!(
            identity_endpoint("us-chicago-1"),
            "https://identity.us-chicago-1.oci.oraclecloud.com"
        );
        assert_eq!(
            identity_endpoint("uk-gov-london-1"),
            "https://identity.uk-gov-london-1.oci.oraclegovcloud.uk"
        );
        assert_eq!(
            identity_endpoint("eu-madrid-2"),
            "https://identity.eu-madrid-2.oci.oraclecloud.eu"
        );
    }

    #[test]
    fn the_profile_comes_from_the_sky_config() {
        let cfg = |text: &str| planner::config::parse_sky_config(text, "c").unwrap();
        assert_eq!(profile(&cfg("")), "DEFAULT");
        assert_eq!(profile(&cfg("oci:\n  oci_config_profile: A\n")), "A");
        assert_eq!(
            profile(&cfg(
                "oci:\n  oci_config_profile: A\n  region_configs:\n    default:\n      oci_config_profile: B\n"
            )),
            "B"
        );
    }
}
