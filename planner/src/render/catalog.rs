//! What `sky catalog refresh` prints: one line per catalog file.

use crate::launch::Refreshed;

/// The lines of `sky catalog refresh`, one per file, in the order given.
pub fn refresh(results: &[(String, Refreshed)]) -> Vec<String> {
    results
        .iter()
        .map(|(file, r)| match r {
            Refreshed::Downloaded { bytes, url } => format!(
                "{file}: downloaded ({:.1} MB) from {url}",
                *bytes as f64 / 1e6
            ),
            Refreshed::NotModified => format!("{file}: not modified (the copy on disk is current)"),
            Refreshed::Edited => format!(
                "{file}: kept: edited by hand (no md5 record, or one that no longer matches); delete it to get SkyPilot's"
            ),
            Refreshed::NotHosted => format!(
                "{file}: not hosted: SkyPilot builds this catalog locally"
            ),
            Refreshed::Failed(e) => format!("{file}: failed: {e}"),
        })
        .collect()
}
