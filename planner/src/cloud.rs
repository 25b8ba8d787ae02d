//! Cloud identities: the closed set of clouds the planner knows, their names
//! as users write them, and "did you mean" for the rest.

use std::fmt;
use std::str::FromStr;

/// Every cloud this optimizer knows about.
///
/// The declaration order is the default enumeration order (see
/// `ARCHITECTURE.md`, "Determinism"): SkyPilot keeps the enabled set in a
/// Python set whose order is arbitrary but fixed, we pin it to this order
/// unless the user lists the clouds explicitly.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum CloudId {
    /// Amazon Web Services.
    Aws,
    /// Google Cloud Platform.
    Gcp,
    /// Microsoft Azure.
    Azure,
    /// Lambda Cloud.
    Lambda,
    /// RunPod.
    Runpod,
    /// Paperspace.
    Paperspace,
    /// Cudo Compute.
    Cudo,
    /// Kubernetes (a virtual catalog: one region per kubeconfig context).
    Kubernetes,
}

impl CloudId {
    /// All clouds, in default enumeration order.
    pub const ALL: [CloudId; 8] = [
        CloudId::Aws,
        CloudId::Gcp,
        CloudId::Azure,
        CloudId::Lambda,
        CloudId::Runpod,
        CloudId::Paperspace,
        CloudId::Cudo,
        CloudId::Kubernetes,
    ];

    /// Lower-case name, as used in `--infra`, catalog folders and `SKY_ENABLED_CLOUDS`.
    pub fn name(self) -> &'static str {
        match self {
            CloudId::Aws => "aws",
            CloudId::Gcp => "gcp",
            CloudId::Azure => "azure",
            CloudId::Lambda => "lambda",
            CloudId::Runpod => "runpod",
            CloudId::Paperspace => "paperspace",
            CloudId::Cudo => "cudo",
            CloudId::Kubernetes => "kubernetes",
        }
    }

    /// Display form used by SkyPilot in tables and messages (the class `_REPR`).
    pub fn repr(self) -> &'static str {
        match self {
            CloudId::Aws => "AWS",
            CloudId::Gcp => "GCP",
            CloudId::Azure => "Azure",
            CloudId::Lambda => "Lambda",
            CloudId::Runpod => "RunPod",
            CloudId::Paperspace => "Paperspace",
            CloudId::Cudo => "Cudo",
            CloudId::Kubernetes => "Kubernetes",
        }
    }

    /// Whether this cloud has a CSV catalog (`<dir>/<name>/vms.csv`).
    pub fn has_csv_catalog(self) -> bool {
        self != CloudId::Kubernetes
    }
}

impl fmt::Display for CloudId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.repr())
    }
}

/// An unknown cloud name, with the closest known names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Unknown cloud {name:?}.{}", did_you_mean_suffix(.suggestions))]
pub struct UnknownCloud {
    /// The name as the user wrote it.
    pub name: String,
    /// Close matches among the known cloud names.
    pub suggestions: Vec<String>,
}

fn did_you_mean_suffix(suggestions: &[String]) -> String {
    if suggestions.is_empty() {
        format!(
            " Known clouds: {}.",
            CloudId::ALL.map(|c| c.name()).join(", ")
        )
    } else {
        format!(" Did you mean: {}?", suggestions.join(", "))
    }
}

impl FromStr for CloudId {
    type Err = UnknownCloud;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        if lower == "k8s" {
            return Ok(CloudId::Kubernetes);
        }
        if let Some(id) = CloudId::ALL.into_iter().find(|c| c.name() == lower) {
            return Ok(id);
        }
        let suggestions =
            crate::pytext::close_matches(&lower, CloudId::ALL.iter().map(|c| c.name()), 3, 0.6);
        Err(UnknownCloud {
            name: s.to_string(),
            suggestions,
        })
    }
}
