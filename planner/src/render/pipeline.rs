//! What the launch pipeline says about its clouds, catalogs and config,
//! from the assembly's data ([`crate::assemble`]): the warning lines of its
//! [`Note`]s, the one-line reason a cloud is left out ([`absence`]), the
//! "No cloud is enabled" error ([`NoCloud`]'s `Display`), the server's
//! ignored config keys; and [`LaunchResult::text`].

use std::fmt;

use crate::assemble::{Absence, CatalogKind, CatalogOrigin, NoCatalog, NoCloud, Note, Unreachable};
use crate::catalog::CatalogWarning;
use crate::cloud::CloudId;
use crate::text::ago;

/// At most this many skipped rows are listed per catalog file; the rest are counted.
const MAX_SKIPPED_ROWS_PER_FILE: usize = 10;

/// At most this many characters of a Kubernetes API error are quoted.
const MAX_CONTEXT_ERROR_CHARS: usize = 400;

/// The warning lines of a launch's notes, in order (without the
/// `sky: warning: ` prefix [`launch::warning`] adds).
pub fn warnings(notes: &[Note]) -> Vec<String> {
    let mut out = Vec::new();
    for note in notes {
        match note {
            Note::Options(line) | Note::AzMapping(line) | Note::CloudFacts(line) => {
                out.push(line.clone());
            }
            Note::IgnoredCloud(ignored) => out.push(ignored.to_string()),
            Note::Check { message, .. } => out.push(message.clone()),
            Note::DownloadsFailed(failed) => out.extend(downloads_failed(failed)),
            Note::ExampleCatalogs { dir, files } => {
                let names: Vec<String> = files.iter().map(catalog_name).collect();
                out.push(format!(
                    "no catalog in {} for {}: using the example catalogs built into sky; their prices are examples, not real",
                    dir.display(),
                    names.join(", ")
                ));
            }
            Note::SkippedRows(rows) => out.extend(skipped_rows(rows)),
            Note::MissingLocalCatalog { cloud, path } => {
                let built_by = cloud.local_catalog().map_or("", |l| l.built_by);
                out.push(format!(
                    "{} offers nothing: its catalog {} does not exist. {built_by}.",
                    cloud.repr(),
                    path.display()
                ));
            }
            Note::OciRegionsUnavailable(why) => out.push(format!(
                "{why}; OCI plans on every catalog region, as SkyPilot does"
            )),
        }
    }
    out
}

/// A catalog file as warnings name it: its cloud, or its path in the folder.
fn catalog_name(origin: &CatalogOrigin) -> String {
    match origin.cloud {
        Some(c) => c.repr().to_string(),
        None => origin.file.clone(),
    }
}

/// At most this many characters of the first download error are quoted.
const MAX_DOWNLOAD_ERROR_CHARS: usize = 160;

/// Every failed download in one line: which catalogs, the first error
/// (shortened), the copies used instead, and what to do.
fn downloads_failed(failed: &[crate::assemble::FailedDownload]) -> Vec<String> {
    let Some(first) = failed.first() else {
        return Vec::new();
    };
    let clouds: Vec<CloudId> = failed.iter().filter_map(|f| f.origin.cloud).collect();
    let origins: Vec<&CatalogOrigin> = failed.iter().map(|f| &f.origin).collect();
    let what = match failed {
        [one] if one.origin.cloud.is_some() => {
            format!(
                "the {} catalog ({})",
                catalog_name(&one.origin),
                one.origin.file
            )
        }
        _ => format!("the catalogs of {}", catalog_names(&origins)),
    };
    let error = shortened(&first.problem, MAX_DOWNLOAD_ERROR_CHARS);
    let of_kind = |kind| -> Vec<&CatalogOrigin> {
        origins.iter().copied().filter(|o| o.kind == kind).collect()
    };
    let (examples, stale) = (of_kind(CatalogKind::Bundled), of_kind(CatalogKind::Stale));
    let mut using = Vec::new();
    if !examples.is_empty() {
        using.push(format!(
            "the example catalogs built into sky for {} (their prices are examples, not real)",
            catalog_names(&examples)
        ));
    }
    if let Some(oldest) = stale.iter().filter_map(|o| o.age).max() {
        using.push(format!(
            "the copy from {} for {}",
            ago(oldest),
            catalog_names(&stale)
        ));
    }
    let refresh = clouds
        .iter()
        .fold(String::from("sky catalog refresh"), |mut cmd, c| {
            cmd.push(' ');
            cmd.push_str(c.name());
            cmd
        });
    let todo = if examples.is_empty() {
        format!("Once online, `{refresh}` retries now")
    } else {
        format!(
            "Once online, run `{refresh}`; or pass --catalog-dir DIR; or set SKY_BUNDLED_CATALOGS=1 to use the examples without this warning"
        )
    };
    let using = if using.is_empty() {
        String::new()
    } else {
        format!("; using {}", using.join(" and "))
    };
    vec![format!("cannot download {what}: {error}{using}. {todo}")]
}

/// Catalog files as a warning lists them: the clouds, then `common/` for
/// the shared tables (`AWS, GCP and common/`).
fn catalog_names(origins: &[&CatalogOrigin]) -> String {
    let clouds: Vec<&str> = origins
        .iter()
        .filter_map(|o| o.cloud.map(CloudId::repr))
        .collect();
    let common = origins.iter().any(|o| o.cloud.is_none());
    match (clouds.is_empty(), common) {
        (_, false) => clouds.join(", "),
        (true, true) => "common/".to_string(),
        (false, true) => format!("{} and common/", clouds.join(", ")),
    }
}

/// `text` on one line, cut to `max` characters (with `…`).
fn shortened(text: &str, max: usize) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut shown: String = one_line.chars().take(max).collect();
    if shown.len() < one_line.len() {
        shown.push('…');
    }
    shown
}

/// The stdout line under a table some of whose prices are examples (a
/// stderr warning alone passes unseen in a script or `2>/dev/null`).
pub fn example_prices(clouds: &[CloudId]) -> Option<String> {
    (!clouds.is_empty()).then(|| {
        let names: Vec<&str> = clouds.iter().map(|c| c.repr()).collect();
        format!(
            "Note: the {} prices above are examples built into sky, not real prices: their catalogs could not be downloaded (exit code 5).",
            names.join(", ")
        )
    })
}

/// One line per skipped catalog row, at most [`MAX_SKIPPED_ROWS_PER_FILE`]
/// per file and then one line counting the rest: a catalog whose every row
/// is bad must not print tens of thousands of lines.
fn skipped_rows(rows: &[CatalogWarning]) -> Vec<String> {
    let mut out = Vec::new();
    for file in rows.chunk_by(|a, b| a.source_name == b.source_name) {
        out.extend(
            file.iter()
                .take(MAX_SKIPPED_ROWS_PER_FILE)
                .map(ToString::to_string),
        );
        if file.len() > MAX_SKIPPED_ROWS_PER_FILE {
            out.push(format!(
                "{}: skipped {} more malformed rows",
                file[0].source_name,
                file.len() - MAX_SKIPPED_ROWS_PER_FILE
            ));
        }
    }
    out
}

/// Why a cloud offers nothing, in one line.
pub fn absence(why: &Absence) -> String {
    match why {
        Absence::NotDeclared => "not in SKY_ENABLED_CLOUDS".to_string(),
        Absence::NotEnabled => "not enabled by the last `sky check`".to_string(),
        Absence::NotInAllowedClouds => "not in allowed_clouds".to_string(),
        Absence::DisabledInWorkspace(ws) => format!("disabled in workspace {ws}"),
        Absence::NoCredentials(hint) => hint.clone(),
        Absence::CheckFailed(e) => e.to_string(),
        Absence::Unreachable(u) => unreachable(u),
        Absence::NoCatalog(NoCatalog::DownloadFailed(problem)) => {
            format!("no catalog: the download failed ({problem}) and sky has no bundled copy")
        }
        Absence::NoCatalog(NoCatalog::NotInFolder(path)) => format!(
            "no catalog: {} does not exist and sky has no bundled copy",
            path.display()
        ),
        Absence::NoCatalog(NoCatalog::NoBundledCopy) => {
            "no catalog: sky has no bundled copy".to_string()
        }
    }
}

/// Every context unreachable: the first one's error on one line (the
/// API's text spans lines: `Reason:`, `HTTP response body:`), shortened.
fn unreachable(u: &Unreachable) -> String {
    let shown = shortened(&u.error, MAX_CONTEXT_ERROR_CHARS);
    match u.contexts {
        1 => format!("context {} is unreachable: {shown}", u.first),
        n => format!("all {n} contexts are unreachable; {}: {shown}", u.first),
    }
}

impl fmt::Display for NoCloud {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "No cloud is enabled. Set up credentials for one of these clouds, or declare the clouds to use offline with SKY_ENABLED_CLOUDS=aws,gcp,...:\n",
        )?;
        let hints: Vec<String> = self
            .checks
            .iter()
            .map(|a| format!("  {}: {}", a.cloud.repr(), absence(&a.why)))
            .collect();
        f.write_str(&hints.join("\n"))
    }
}

/// What the server logs when it ignores client config keys it owns
/// (`override_skypilot_config`).
pub fn server_warnings(ignored_keys: &[String]) -> Vec<String> {
    if ignored_keys.is_empty() {
        return Vec::new();
    }
    vec![format!(
        "The following keys ([{}]) have different values in the client SkyPilot config with the server and will be ignored. Remove these keys to disable this warning. If you want to specify it, please modify it on server side or contact your administrator.",
        ignored_keys.join(", ")
    )]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assemble::{Absent, FailedDownload};
    use crate::check::CloudError;
    use crate::cloud::CloudId;
    use std::time::Duration;

    fn origin(file: &str, cloud: Option<CloudId>, kind: CatalogKind) -> CatalogOrigin {
        CatalogOrigin {
            file: file.into(),
            cloud,
            kind,
            path: None,
            age: Some(Duration::from_secs(7200)),
            pull_hours: Some(7),
        }
    }

    #[test]
    fn failed_downloads_are_one_line_with_the_first_error_and_what_to_do() {
        let failed = |o: CatalogOrigin, problem: &str| FailedDownload {
            origin: o,
            problem: problem.into(),
        };
        let lines = warnings(&[Note::DownloadsFailed(vec![
            failed(
                origin("aws/vms.csv", Some(CloudId::Aws), CatalogKind::Stale),
                "HTTP 503",
            ),
            failed(
                origin("common/accelerators.csv", None, CatalogKind::Bundled),
                "no answer",
            ),
            failed(
                origin("common/metadata.csv", None, CatalogKind::Bundled),
                "later",
            ),
        ])]);
        assert_eq!(
            lines,
            [
                "cannot download the catalogs of AWS and common/: HTTP 503; \
                 using the example catalogs built into sky for common/ \
                 (their prices are examples, not real) and the copy from 2 hours ago for AWS. \
                 Once online, run `sky catalog refresh aws`; or pass --catalog-dir DIR; \
                 or set SKY_BUNDLED_CATALOGS=1 to use the examples without this warning",
            ]
        );
        let one = warnings(&[Note::DownloadsFailed(vec![failed(
            origin("gcp/vms.csv", Some(CloudId::Gcp), CatalogKind::Stale),
            &format!("no answer\n{}", "x".repeat(300)),
        )])]);
        assert_eq!(one.len(), 1);
        assert!(
            one[0].starts_with("cannot download the GCP catalog (gcp/vms.csv): no answer xxx"),
            "{}",
            one[0]
        );
        assert!(
            one[0].ends_with("x…; using the copy from 2 hours ago for GCP. Once online, `sky catalog refresh gcp` retries now"),
            "{}",
            one[0]
        );
    }

    #[test]
    fn skipped_rows_are_capped_per_file() {
        let row = |file: &str, line: u64| CatalogWarning {
            source_name: file.into(),
            line,
            message: "bad".into(),
        };
        let mut rows: Vec<CatalogWarning> = (1..=12).map(|l| row("a.csv", l)).collect();
        rows.push(row("b.csv", 1));
        let lines = warnings(&[Note::SkippedRows(rows)]);
        assert_eq!(lines.len(), 12, "{lines:?}");
        assert_eq!(lines[10], "a.csv: skipped 2 more malformed rows");
        assert!(lines[11].starts_with("b.csv"), "{}", lines[11]);
    }

    #[test]
    fn an_unreachable_context_is_one_shortened_line() {
        let u = |contexts, error: &str| {
            absence(&Absence::Unreachable(Unreachable {
                contexts,
                first: "kind".into(),
                error: error.into(),
            }))
        };
        assert_eq!(
            u(1, "Reason:\n  refused"),
            "context kind is unreachable: Reason: refused"
        );
        let long = u(3, &"x".repeat(500));
        assert!(
            long.starts_with("all 3 contexts are unreachable; kind: xxx"),
            "{long}"
        );
        assert!(long.ends_with("x…"), "{long}");
    }

    #[test]
    fn no_cloud_lists_each_check() {
        let text = NoCloud {
            checks: vec![
                Absent {
                    cloud: CloudId::Aws,
                    why: Absence::NoCredentials("run aws configure".into()),
                },
                Absent {
                    cloud: CloudId::Gcp,
                    why: Absence::CheckFailed(CloudError::Timeout(Duration::from_secs(5))),
                },
            ],
        }
        .to_string();
        assert!(text.starts_with("No cloud is enabled."), "{text}");
        assert!(
            text.ends_with(":\n  AWS: run aws configure\n  GCP: timed out after 5s"),
            "{text}"
        );
    }
}
