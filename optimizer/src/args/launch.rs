//! `sky launch`'s flags → [`Launch`]: the options, the [`Request`] (the
//! entrypoint and the [`Overrides`]) and how the result is shown. The
//! checks are SkyPilot's CLI's (`sky/client/cli/command.py::launch`,
//! `_make_task_or_dag_from_entrypoint_with_overrides`), in its order.

use std::path::Path;

use planner::task::{Overrides, ProvisionFlags};

use super::dotenv;
use super::entrypoint;
use super::error::ArgsError;
use super::flags::{LaunchArgs, LaunchMarket, OutputFormat, RequestArgs};
use super::invocation::Launch;
use super::options::{Environment, options};
use crate::clouds::EnvMap;
use crate::launch::Request;

/// Converts `sky launch`'s flags.
pub(super) fn convert(args: LaunchArgs, mut env: Environment) -> Result<Launch, ArgsError> {
    let LaunchArgs {
        entrypoint,
        config,
        cluster,
        dryrun,
        detach_run,
        docker,
        backend,
        name,
        workdir,
        request:
            RequestArgs {
                infra,
                cloud,
                region,
                zone,
                num_nodes,
                cpus,
                memory,
                disk_size,
                disk_tier,
                network_tier,
                market:
                    LaunchMarket {
                        use_spot,
                        no_use_spot,
                    },
                image_id,
                env_file,
                env: env_flags,
                secret_file,
                secret: secret_flags,
                local_disk,
                gpus,
                instance_type,
                ports,
            },
        priority,
        async_call,
        no_async: _,
        idle_minutes_to_autostop,
        wait_for,
        down,
        retry_until_up,
        yes,
        no_setup,
        clone_disk_from,
        fast,
        resize,
        git_url,
        git_ref,
        workspace,
        output,
        plan_out,
        explain,
        common,
    } = args;
    let project_dir = env.current_dir.take();
    let mut options = options(&common, env)?;
    options.config_args = config;
    options.workspace = workspace;
    options.project_dir = project_dir;
    options.explain = explain.unwrap_or(false);

    let num_nodes = match num_nodes {
        None => None,
        // click's `int` first (a usage error), then the task's check.
        Some(n) => match n.trim().parse::<i64>() {
            Ok(v) if v > 0 => Some(u32::try_from(v).map_err(|_| ArgsError::NumNodes(v))?),
            Ok(v) => return Err(ArgsError::NumNodes(v)),
            Err(_) => return Err(ArgsError::NumNodesNotInt(n)),
        },
    };
    let disk_size = match disk_size {
        None => None,
        Some(d) if d > 0 => Some(d as u64),
        Some(d) => return Err(ArgsError::DiskSize(d)),
    };
    if git_url.is_some() && workdir.is_some() {
        return Err(ArgsError::GitUrlWithWorkdir);
    }
    if let Some(dir) = &workdir
        && !Path::new(dir).is_dir()
    {
        return Err(ArgsError::Workdir(dir.clone()));
    }
    if resize.unwrap_or(false) && cluster.is_none() {
        return Err(ArgsError::ResizeWithoutCluster);
    }
    let backend = match (backend, docker) {
        (Some(b), _) => {
            let b = b.to_ascii_lowercase();
            if b != "cloudvmray" && b != "docker" {
                return Err(ArgsError::Backend(b));
            }
            Some(b)
        }
        (None, Some(true)) => Some("docker".to_string()),
        (None, _) => None,
    };
    let env_file = env_file
        .map(|p| dotenv::read_file("--env-file", &p))
        .transpose()?;
    let secret_file = secret_file
        .map(|p| dotenv::read_file("--secret-file", &p))
        .transpose()?;
    let env_flags = env_flags
        .iter()
        .map(|e| dotenv::var("--env", e, &options.env))
        .collect::<Result<Vec<_>, _>>()?;
    let secret_flags = secret_flags
        .iter()
        .map(|e| dotenv::var("--secret", e, &options.env))
        .collect::<Result<Vec<_>, _>>()?;
    let envs = dotenv::merge(env_file.as_slice(), env_flags);
    // Secrets see the env file too (`_merge_cli_and_file_vars` is given
    // both files).
    let secret_files: Vec<dotenv::Vars> = env_file.into_iter().chain(secret_file).collect();
    // Secret values stop here: only their names go on, and the values are
    // registered so that no log or trace line can carry them.
    let secret_names = dotenv::merge(&secret_files, secret_flags)
        .into_iter()
        .map(|(k, v)| {
            crate::redact::remember_secret(&v);
            k
        })
        .collect();

    let cluster_looks_like_path = cluster.as_deref().is_some_and(looks_like_file_path);
    let deprecated_location_flags = cloud.is_some() || region.is_some() || zone.is_some();
    let overrides = Overrides {
        infra,
        cloud,
        region,
        zone,
        gpus,
        cpus,
        memory,
        instance_type,
        use_spot: if use_spot.unwrap_or(false) {
            Some(true)
        } else if no_use_spot.unwrap_or(false) {
            Some(false)
        } else {
            None
        },
        disk_size,
        disk_tier,
        image_id,
        ports,
        num_nodes,
        name,
        network_tier,
        local_disk,
        priority,
        envs,
        secret_names,
        workdir,
        git_url,
        git_ref,
        config: None,
        provision: ProvisionFlags {
            detach_run: detach_run.unwrap_or(false),
            backend,
            idle_minutes_to_autostop,
            wait_for,
            down: down.unwrap_or(false),
            retry_until_up: retry_until_up.unwrap_or(false),
            no_setup: no_setup.unwrap_or(false),
            clone_disk_from,
            fast: fast.unwrap_or(false),
            resize: resize.unwrap_or(false),
            async_call: async_call.unwrap_or(false),
        },
    };
    let full_logging = !minimize_logging(&options.env);
    // After every flag check, as `_make_task_or_dag_from_entrypoint_with_overrides`
    // calls `_check_yaml`.
    let yaml_doubt = entrypoint::yaml_doubt(&entrypoint);
    Ok(Launch {
        options,
        request: Request {
            entrypoint,
            overrides,
        },
        cluster,
        cluster_looks_like_path,
        deprecated_location_flags,
        dryrun: dryrun.unwrap_or(false),
        yes: yes.unwrap_or(false),
        json: output == OutputFormat::Json,
        timings: common.timings.unwrap_or(false),
        full_logging,
        plan_out,
        yaml_doubt,
    })
}

/// `SKYPILOT_MINIMIZE_LOGGING` (`env_options.Options.MINIMIZE_LOGGING`,
/// default true): only `true`/`1` (any case) keep it on.
fn minimize_logging(env: &EnvMap) -> bool {
    env.get("SKYPILOT_MINIMIZE_LOGGING")
        .is_none_or(|v| matches!(v.to_lowercase().as_str(), "true" | "1"))
}

/// `common_utils.cluster_name_looks_like_file_path`.
fn looks_like_file_path(name: &str) -> bool {
    let lower = name.to_lowercase();
    [".yaml", ".yml", ".json"]
        .iter()
        .any(|e| lower.ends_with(e))
        || Path::new(name).is_file()
}
