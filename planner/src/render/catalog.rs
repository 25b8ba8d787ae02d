//! What `sky catalog refresh` prints: what it refreshes and why, then one
//! line per catalog file.

use crate::cloud::CloudId;
use crate::launch::{RefreshReport, RefreshScope, Refreshed};

/// The lines of `sky catalog refresh`: a line saying which catalogs it
/// refreshed, where and why those, then one per file, in the order given.
pub fn refresh(report: &RefreshReport) -> Vec<String> {
    let mut out = vec![header(report)];
    out.extend(report.files.iter().map(|(file, r)| match r {
        Refreshed::Downloaded { bytes, url } => format!(
            "{file}: downloaded ({:.1} MB) from {url}",
            *bytes as f64 / 1e6
        ),
        Refreshed::NotModified => format!("{file}: not modified (the copy on disk is current)"),
        Refreshed::Edited => format!(
            "{file}: kept: edited by hand (no md5 record, or one that no longer matches); delete it to get SkyPilot's"
        ),
        Refreshed::NotHosted => format!("{file}: not hosted: SkyPilot builds this catalog locally"),
        Refreshed::Failed(e) => format!("{file}: failed: {e}"),
    }));
    out
}

/// `Refreshing the catalogs of AWS, GCP (declared: SKY_ENABLED_CLOUDS) and common/ in DIR:`
fn header(report: &RefreshReport) -> String {
    let folder = report.folder.display();
    if report.clouds.is_empty() {
        let why = match report.scope {
            RefreshScope::Named => "no cloud named",
            RefreshScope::Declared => "SKY_ENABLED_CLOUDS declares no cloud with a hosted catalog",
            RefreshScope::LastCheck => {
                "the last `sky check` enabled no cloud with a hosted catalog"
            }
            RefreshScope::Credentials => "no cloud with a hosted catalog has credentials here",
        };
        return format!(
            "Refreshing only common/ in {folder}: {why}. Name the clouds (`sky catalog refresh aws gcp`) or declare them (SKY_ENABLED_CLOUDS=aws,gcp)."
        );
    }
    let names: Vec<&str> = report.clouds.iter().map(|c| CloudId::repr(*c)).collect();
    let why = match report.scope {
        RefreshScope::Named => String::new(),
        RefreshScope::Declared => " (what a launch uses: declared in SKY_ENABLED_CLOUDS)".into(),
        RefreshScope::LastCheck => " (what a launch uses: enabled by the last `sky check`)".into(),
        RefreshScope::Credentials => {
            " (what a launch uses: the clouds with credentials here)".into()
        }
    };
    format!(
        "Refreshing the catalogs of {}{why} and common/ in {folder}:",
        names.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(clouds: Vec<CloudId>, scope: RefreshScope) -> RefreshReport {
        RefreshReport {
            folder: "/f".into(),
            clouds,
            scope,
            files: vec![("common/metadata.csv".into(), Refreshed::NotModified)],
        }
    }

    #[test]
    fn the_first_line_says_what_is_refreshed_and_why() {
        let lines = refresh(&report(
            vec![CloudId::Aws, CloudId::Gcp],
            RefreshScope::Declared,
        ));
        assert_eq!(
            lines,
            [
                "Refreshing the catalogs of AWS, GCP (what a launch uses: declared in SKY_ENABLED_CLOUDS) and common/ in /f:",
                "common/metadata.csv: not modified (the copy on disk is current)",
            ]
        );
        let named = refresh(&report(vec![CloudId::Lambda], RefreshScope::Named));
        assert_eq!(
            named[0],
            "Refreshing the catalogs of Lambda and common/ in /f:"
        );
        let none = refresh(&report(Vec::new(), RefreshScope::Credentials));
        assert!(
            none[0].starts_with("Refreshing only common/ in /f: no cloud with a hosted catalog has credentials here."),
            "{}",
            none[0]
        );
    }
}
