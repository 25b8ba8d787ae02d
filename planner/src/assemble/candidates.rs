//! Which clouds a launch considers, before any check: SkyPilot's
//! `check.get_cached_enabled_clouds_or_refresh` with
//! `_get_workspace_allowed_clouds`.

use super::reasons::{Absence, Absent};
use crate::cloud::CloudId;
use crate::config::SkyConfig;

/// Where the clouds a launch starts from come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Enabled {
    /// Declared (`SKY_ENABLED_CLOUDS`), in enumeration order.
    Declared(Vec<CloudId>),
    /// Enabled by the last `sky check`, in its order.
    Checked(Vec<CloudId>),
    /// No `sky check` yet: every cloud.
    All,
}

/// The clouds a launch considers, and every other cloud with why not.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidates {
    /// Considered, in enumeration order.
    pub clouds: Vec<CloudId>,
    /// The others, in [`CloudId::ALL`] order.
    pub left_out: Vec<Absent>,
}

/// The enabled clouds less those `allowed_clouds` or the active workspace
/// rule out.
pub fn candidates(enabled: &Enabled, config: &SkyConfig) -> Candidates {
    let base: &[CloudId] = match enabled {
        Enabled::Declared(clouds) | Enabled::Checked(clouds) => clouds,
        Enabled::All => &CloudId::ALL,
    };
    let workspace = config.active_workspace();
    let clouds = base
        .iter()
        .copied()
        .filter(|&c| config.workspace_allows(&workspace, c))
        .collect();
    let left_out = CloudId::ALL
        .into_iter()
        .filter_map(|cloud| {
            let why = if !base.contains(&cloud) {
                match enabled {
                    Enabled::Declared(_) => Absence::NotDeclared,
                    _ => Absence::NotEnabled,
                }
            } else if config
                .allowed_clouds
                .as_ref()
                .is_some_and(|a| !a.contains(&cloud))
            {
                Absence::NotInAllowedClouds
            } else if config.workspace_disables(&workspace, cloud) {
                Absence::DisabledInWorkspace(workspace.clone())
            } else {
                return None;
            };
            Some(Absent { cloud, why })
        })
        .collect();
    Candidates { clouds, left_out }
}
