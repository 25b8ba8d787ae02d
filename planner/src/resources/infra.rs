//! Where a request runs: `infra` strings (`cloud[/region[/zone]]`) as
//! SkyPilot's `sky/utils/infra_utils.py::InfraInfo` reads and shows them.

use super::error::RequestError;
use crate::cloud::CloudId;

/// Parsed `infra` (`cloud[/region[/zone]]`, `*` = unset).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Infra {
    /// Cloud.
    pub cloud: Option<CloudId>,
    /// Region or Kubernetes context.
    pub region: Option<String>,
    /// Zone.
    pub zone: Option<String>,
}

/// Parses an `infra` string as SkyPilot's `InfraInfo.from_str`.
pub fn parse_infra(text: &str) -> Result<Infra, RequestError> {
    let trimmed = text.trim().trim_matches('/');
    if trimmed.is_empty() {
        return Ok(Infra::default());
    }
    if trimmed.contains("//") {
        return Err(RequestError::value(format!(
            "Invalid infra format: {text}. Format should not contain empty parts (e.g., double slashes \"//\")."
        )));
    }
    let parts: Vec<&str> = trimmed.split('/').map(str::trim).collect();
    let unset = |s: &str| if s == "*" { None } else { Some(s.to_string()) };
    let cloud_text = parts[0].to_ascii_lowercase();
    let cloud = if cloud_text == "*" {
        None
    } else {
        Some(
            cloud_text
                .parse::<CloudId>()
                .map_err(|e| RequestError::value(e.to_string()))?,
        )
    };
    if cloud == Some(CloudId::Kubernetes) {
        let region = if parts.len() > 1 {
            unset(&parts[1..].join("/"))
        } else {
            None
        };
        return Ok(Infra {
            cloud,
            region,
            zone: None,
        });
    }
    if cloud == Some(CloudId::Ssh) {
        // The rest is the pool, whose context is `ssh-<pool>`; SkyPilot adds
        // the prefix before it looks for `*`, so `ssh/*` names pool `*`.
        let pool = parts[1..].join("/");
        return Ok(Infra {
            cloud,
            region: (!pool.is_empty()).then(|| format!("ssh-{pool}")),
            zone: None,
        });
    }
    if parts.len() > 3 {
        return Err(RequestError::value(format!(
            "Invalid infra format: {text}. Expected format is \"cloud\", \"cloud/region\", or \"cloud/region/zone\"."
        )));
    }
    Ok(Infra {
        cloud,
        region: parts.get(1).and_then(|s| unset(s)),
        zone: parts.get(2).and_then(|s| unset(s)),
    })
}

/// `infra.formatted_str()`: `AWS (us-east-1)`, `-` without a cloud; long names middle-truncated.
pub fn infra_display(cloud: Option<CloudId>, region: Option<&str>, zone: Option<&str>) -> String {
    let Some(cloud) = cloud else {
        return "-".into();
    };
    let loc = match (zone, region) {
        // A Slurm zone is a partition: the cluster is shown instead.
        (Some(z), _) if cloud != CloudId::Slurm => z,
        (_, None) => return cloud.repr().to_string(),
        (_, Some(r)) => r.strip_prefix("ssh-").unwrap_or(r),
    };
    // One allocation per cell: a table formats one for every row.
    let repr = cloud.repr();
    let mut out = String::with_capacity(repr.len() + 3 + loc.len().min(4 * INFRA_WIDTH));
    out.push_str(repr);
    out.push_str(" (");
    push_truncated_middle(&mut out, loc, INFRA_WIDTH);
    out.push(')');
    out
}

/// The characters of a location `infra_display` shows whole.
const INFRA_WIDTH: usize = 25;

/// `common_utils.truncate_long_string(s, max, truncate_middle=True)`: `s`,
/// or its first and last `(max - 3) / 2` characters around `...`.
fn push_truncated_middle(out: &mut String, s: &str, max: usize) {
    // No more bytes than `max`: no more characters either.
    if s.len() <= max {
        out.push_str(s);
        return;
    }
    let count = s.chars().count();
    if count <= max {
        out.push_str(s);
        return;
    }
    let keep = (max - 3) / 2;
    let at = |n: usize| s.char_indices().nth(n).map_or(s.len(), |(i, _)| i);
    out.push_str(&s[..at(keep)]);
    out.push_str("...");
    out.push_str(&s[at(count - keep)..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn infra_forms() {
        let i = parse_infra("aws/us-east-1/us-east-1a").unwrap();
        assert_eq!(
            (i.cloud, i.region.as_deref(), i.zone.as_deref()),
            (Some(CloudId::Aws), Some("us-east-1"), Some("us-east-1a"))
        );
        let k = parse_infra("k8s/my/ctx").unwrap();
        assert_eq!(k.region.as_deref(), Some("my/ctx"));
        // SSH: the rest is the pool, as the context `ssh-<pool>`.
        for (text, want) in [
            ("ssh", None),
            ("ssh/lab", Some("ssh-lab")),
            ("SSH/a/b", Some("ssh-a/b")),
            ("ssh/*", Some("ssh-*")),
        ] {
            let s = parse_infra(text).unwrap();
            assert_eq!(
                (s.cloud, s.region.as_deref(), s.zone),
                (Some(CloudId::Ssh), want, None),
                "{text}"
            );
        }
        // Slurm shows the cluster, never the partition; SSH the pool.
        assert_eq!(
            infra_display(Some(CloudId::Slurm), Some("campus"), Some("a100")),
            "Slurm (campus)"
        );
        assert_eq!(infra_display(Some(CloudId::Slurm), None, None), "Slurm");
        assert_eq!(
            infra_display(Some(CloudId::Ssh), Some("ssh-lab"), None),
            "SSH (lab)"
        );
        assert!(parse_infra("aws//x").is_err());
        assert!(parse_infra("aws/a/b/c").is_err());
        assert!(parse_infra("awz").unwrap_err().message.contains("aws"));
        assert_eq!(
            infra_display(
                Some(CloudId::Kubernetes),
                Some("gke-prod-cluster-with-a-long-name"),
                None
            ),
            "Kubernetes (gke-prod-cl...a-long-name)"
        );
        // Characters, not bytes, as Python's `len` and slices count them:
        // 24 characters in 32 bytes stay whole, 37 are cut to 11 + 11.
        assert_eq!(
            infra_display(
                Some(CloudId::Ssh),
                Some("ssh-ünïcødé-名前-abcdefghijklm"),
                None
            ),
            "SSH (ünïcødé-名前-abcdefghijklm)"
        );
        assert_eq!(
            infra_display(
                Some(CloudId::Kubernetes),
                Some("ctx-ünïcødé-名前-very-long-context-name"),
                None
            ),
            "Kubernetes (ctx-ünïcødé...ontext-name)"
        );
    }
}
