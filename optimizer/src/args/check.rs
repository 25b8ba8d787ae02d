//! `sky check`'s flags → [`Check`]: what its arguments name, resolved as
//! 0.14.1 resolves them — each `InfraInfo.from_str` on the client
//! (`cloud[/region[/zone]]`, the region and zone ignored with a warning),
//! then `check.get_cloud_tuple` on the server (a storage-only provider by
//! prefix, else a cloud name or alias, else an error raised after the
//! header).

use planner::cloud::{CloudId, Provider, StorageOnly};

use super::error::ArgsError;
use super::flags::{CheckArgs, OutputFormat};
use super::invocation::{Check, Notice};
use super::options::{Environment, options};

/// What `sky check`'s arguments name.
#[derive(Debug, Default)]
pub(super) struct Targets {
    /// The clouds, each once, in the order named.
    pub(super) clouds: Vec<CloudId>,
    /// The storage-only providers, each once, in the order named.
    pub(super) storage_only: Vec<StorageOnly>,
    /// Every name resolved, in the order given, repeats kept (0.14.1
    /// checks and reports a name given twice twice).
    pub(super) named: Vec<Provider>,
    /// The first name that is neither (lower-cased).
    pub(super) unknown: Option<String>,
    /// The client's warnings (a region or zone ignored).
    pub(super) warnings: Vec<String>,
}

/// Converts `sky check`'s flags; the client's warnings become notices.
pub(super) fn convert(
    args: CheckArgs,
    env: Environment,
    notices: &mut Vec<Notice>,
) -> Result<Check, ArgsError> {
    let mut options = options(&args.common, env)?;
    // `SKY_ENABLED_CLOUDS`, before the names on the command line take its place.
    let declared_by_env = options.declared_clouds.take();
    let targets = targets(&args.clouds)?;
    options.declared_clouds = (!args.clouds.is_empty()).then_some(targets.clouds);
    options.declared_storage_only = targets.storage_only;
    options.declared_order = Some(targets.named);
    options.declared_unknown = targets.unknown;
    options.config_args = args.config;
    options.workspace = args.workspace;
    notices.extend(
        targets
            .warnings
            .into_iter()
            .map(Notice::CheckLocationIgnored),
    );
    Ok(Check {
        options,
        declared_by_env,
        json: args.output == OutputFormat::Json,
        verbose: args.verbose.unwrap_or(false),
        timings: args.common.timings.unwrap_or(false),
    })
}

/// Resolves the names; an infra in a form 0.14.1's client refuses is its
/// `ValueError`.
pub(super) fn targets(names: &[String]) -> Result<Targets, ArgsError> {
    let mut out = Targets::default();
    for raw in names {
        let infra = raw.trim().trim_matches('/');
        let parts: Vec<&str> = infra.split('/').map(str::trim).collect();
        if infra.is_empty() || parts.contains(&"") {
            return Err(ArgsError::CheckInfraEmptyPart(infra.to_string()));
        }
        let cloud = parts[0].to_ascii_lowercase();
        // Kubernetes contexts and SSH pools may contain slashes.
        if !matches!(cloud.as_str(), "k8s" | "kubernetes" | "ssh") && parts.len() > 3 {
            return Err(ArgsError::CheckInfraTooLong(infra.to_string()));
        }
        if cloud == "*" {
            return Err(ArgsError::CheckAnyCloud(raw.clone()));
        }
        let cloud = if cloud == "k8s" {
            "kubernetes".to_string()
        } else {
            cloud
        };
        if parts.len() > 1 {
            let region_zone = raw.split_once('/').map(|(_, rest)| rest).unwrap_or("");
            out.warnings.push(format!(
                "Infra {raw} is specified, but `check` only supports checking {cloud}, ignoring {region_zone}"
            ));
        }
        if let Some(provider) = StorageOnly::from_name(&cloud) {
            out.named.push(provider.into());
            if !out.storage_only.contains(&provider) {
                out.storage_only.push(provider);
            }
        } else if let Ok(id) = cloud.parse::<CloudId>() {
            out.named.push(id.into());
            if !out.clouds.contains(&id) {
                out.clouds.push(id);
            }
        } else if out.unknown.is_none() {
            out.unknown = Some(cloud);
        }
    }
    Ok(out)
}
