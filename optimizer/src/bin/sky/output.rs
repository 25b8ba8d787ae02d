//! The two subcommands: turn flags into a request, call the pipeline, print
//! what the renderer made of the result, prompt, and pick the exit code.

use std::collections::BTreeMap;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use optimizer::launch::{self, LaunchError, LaunchOptions, Request};
use optimizer::state::{FileMode, write_atomic};
use planner::cloud::{CloudId, Provider, StorageOnly, UnknownCloud};
use planner::launch::Exit;
use planner::render;
use planner::render::launch::{LaunchView, Line, LogPrefix, Stream};
use planner::task::{Overrides, ProvisionFlags};
use planner::text::strip_ansi;

use crate::cli::{CatalogArgs, CatalogCommand, CheckArgs, CommonArgs, LaunchArgs, OutputFormat};
use crate::status::PendingStatus;

/// Prints rendered lines, each stream coloured only where it should be.
pub(crate) struct Printer {
    /// Colours on stdout (a terminal, `NO_COLOR` unset).
    pub(crate) color: bool,
}

impl Printer {
    pub(crate) fn print(&self, lines: &[Line]) {
        let mut stdout = std::io::stdout().lock();
        for line in lines {
            match line.stream {
                Stream::Stdout => {
                    let text = self.paint(self.color, &line.text);
                    // A closed pipe (`sky ... | head`) is not an error worth reporting.
                    let _ = writeln!(stdout, "{text}");
                }
                Stream::Stderr => {
                    let _ = stdout.flush();
                    let color = self.color && std::io::stderr().is_terminal();
                    eprintln!("{}", self.paint(color, &line.text));
                }
            }
        }
        let _ = stdout.flush();
    }

    fn stdout(&self, text: &str) {
        self.print(&[Line {
            stream: Stream::Stdout,
            text: text.to_string(),
        }]);
    }

    pub(crate) fn paint(&self, color: bool, text: &str) -> String {
        if color {
            text.to_string()
        } else {
            strip_ansi(text)
        }
    }
}

/// `SKYPILOT_MINIMIZE_LOGGING` (`env_options.Options.MINIMIZE_LOGGING`,
/// default true): only `true`/`1` (any case) keep it on.
fn minimize_logging() -> bool {
    std::env::var("SKYPILOT_MINIMIZE_LOGGING")
        .map(|v| matches!(v.to_lowercase().as_str(), "true" | "1"))
        .unwrap_or(true)
}

/// The logger prefix's clock and process id, now.
fn log_prefix() -> LogPrefix {
    let now = jiff::Zoned::now();
    LogPrefix {
        time: format!(
            "{}.{:03}",
            now.strftime("%m-%d %H:%M:%S"),
            now.millisecond()
        ),
        pid: std::process::id(),
    }
}

fn process_env() -> BTreeMap<String, String> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect()
}

/// The longest `--cloud-timeout` in force (ten years: a deadline no run reaches).
const MAX_CLOUD_TIMEOUT: Duration = Duration::from_secs(10 * 365 * 86_400);

pub(crate) fn options(common: &CommonArgs) -> anyhow::Result<LaunchOptions> {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .or_else(dirs::home_dir)
        .unwrap_or_else(|| PathBuf::from("/"));
    let mut opts = LaunchOptions::from_env(process_env(), home)?;
    opts.catalog_dir = common.catalog_dir.clone();
    opts.refresh = common.refresh;
    if !(common.cloud_timeout.is_finite() && common.cloud_timeout > 0.0) {
        anyhow::bail!(
            "--cloud-timeout must be a positive number of seconds, got {}",
            common.cloud_timeout
        );
    }
    // Checked, then capped: `1e300` seconds is "no deadline", not a panic
    // in `Duration::from_secs_f64` or in the additions made with it.
    let timeout = Duration::try_from_secs_f64(common.cloud_timeout)
        .unwrap_or(MAX_CLOUD_TIMEOUT)
        .min(MAX_CLOUD_TIMEOUT);
    opts.set_cloud_timeout(timeout);
    opts.fanout.observer = PendingStatus::on_stderr().map(|s| s as _);
    Ok(opts)
}

/// An error SkyPilot's CLI raises before any request: a usage error, as
/// click reports it (`Error: <message>`, exit 2), or a Python exception
/// (`ValueError: <message>`, exit 1).
#[derive(Debug)]
pub enum CliError {
    /// click's `UsageError` / `BadParameter`.
    Usage(String),
    /// A `ValueError` raised by the CLI itself.
    Value(String),
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CliError::Usage(m) => write!(f, "Error: {m}"),
            CliError::Value(m) => write!(f, "ValueError: {m}"),
        }
    }
}

impl std::error::Error for CliError {}

fn usage(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(CliError::Usage(message.into()))
}

/// `flags._parse_dotenv_file`: `KEY=VALUE` lines (`export ` allowed, `#`
/// comments, single or double quotes around the value).
fn parse_dotenv(path: &Path) -> anyhow::Result<Vec<(String, String)>> {
    if !path.is_file() {
        return Err(usage(format!(
            "Dotenv file does not exist: {}. Provide a path to an existing file, or remove the flag.",
            path.display()
        )));
    }
    // Through the capped reader, like every other input file: a FIFO or a
    // huge file is an error naming the file, never a hang.
    let text = optimizer::input::read_regular_text(path, optimizer::input::MAX_CONFIG_FILE_BYTES)
        .map_err(|e| usage(e.to_string()))?;
    let mut out: Vec<(String, String)> = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").unwrap_or(line).trim_start();
        let Some((k, v)) = line.split_once('=') else {
            return Err(usage(format!(
                "{}:{}: {} has no value (write KEY=VALUE).",
                path.display(),
                n + 1,
                line
            )));
        };
        let v = v.trim();
        let v = if let Some(inner) = v
            .strip_prefix('"')
            .and_then(|x| x.strip_suffix('"'))
            .or_else(|| v.strip_prefix('\'').and_then(|x| x.strip_suffix('\'')))
        {
            inner.to_string()
        } else {
            // An unquoted value ends at ` #` (an inline comment).
            v.split(" #").next().unwrap_or("").trim_end().to_string()
        };
        let k = k.trim().to_string();
        match out.iter_mut().find(|(name, _)| *name == k) {
            Some((_, slot)) => *slot = v,
            None => out.push((k, v)),
        }
    }
    Ok(out)
}

/// `flags._parse_env_var`: `KEY=VALUE`, or `KEY` taken from this process.
fn parse_var(text: &str, env: &BTreeMap<String, String>) -> anyhow::Result<(String, String)> {
    match text.split_once('=') {
        Some((k, v)) => Ok((k.to_string(), v.to_string())),
        None => match env.get(text) {
            Some(v) => Ok((text.to_string(), v.clone())),
            None => Err(usage(format!("{text} is not set in local environment."))),
        },
    }
}

/// `command._merge_cli_and_file_vars`: later files win, the flags win over files.
fn merge_vars(
    files: &[Vec<(String, String)>],
    flags: Vec<(String, String)>,
) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (k, v) in files.iter().flatten().cloned().chain(flags) {
        match out.iter_mut().find(|(name, _)| *name == k) {
            Some((_, slot)) => *slot = v,
            None => out.push((k, v)),
        }
    }
    out
}

fn overrides(args: &LaunchArgs) -> anyhow::Result<Overrides> {
    let num_nodes = match &args.num_nodes {
        None => None,
        Some(n) => match n.trim().parse::<u32>() {
            Ok(v) if v > 0 => Some(v),
            _ => {
                return Err(anyhow::anyhow!(
                    "num_nodes should be a positive int. Got: {n}"
                ))
                .context("invalid --num-nodes");
            }
        },
    };
    let disk_size = match args.disk_size {
        None => None,
        Some(d) if d > 0 => Some(d as u64),
        Some(d) => {
            // `Resources._set_disk_size` raises it while the CLI builds the task.
            return Err(anyhow::Error::new(CliError::Value(format!(
                "\"disk_size\" must be a positive integer (in GB). Got: {d}."
            ))));
        }
    };
    if args.git_url.is_some() && args.workdir.is_some() {
        return Err(usage("Cannot specify both --git-url and --workdir"));
    }
    if let Some(dir) = &args.workdir
        && !Path::new(dir).is_dir()
    {
        return Err(usage(format!(
            "Invalid value for '--workdir': Directory '{dir}' does not exist."
        )));
    }
    if args.resize && args.cluster.is_none() {
        return Err(usage(
            "--resize requires -c/--cluster to specify an existing cluster.",
        ));
    }
    let backend = match (&args.backend, args.docker) {
        (Some(b), _) => {
            let b = b.to_ascii_lowercase();
            if b != "cloudvmray" && b != "docker" {
                return Err(anyhow::Error::new(CliError::Value(format!(
                    "{b} backend is not supported."
                ))));
            }
            Some(b)
        }
        (None, true) => Some("docker".to_string()),
        (None, false) => None,
    };
    let env = process_env();
    let env_file = args.env_file.as_deref().map(parse_dotenv).transpose()?;
    let secret_file = args.secret_file.as_deref().map(parse_dotenv).transpose()?;
    let env_flags = args
        .env
        .iter()
        .map(|e| parse_var(e, &env))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let secret_flags = args
        .secret
        .iter()
        .map(|e| parse_var(e, &env))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let envs = merge_vars(env_file.as_slice(), env_flags);
    let secret_files: Vec<Vec<(String, String)>> =
        env_file.into_iter().chain(secret_file).collect();
    // Secret values stop here: only their names go on, and the values are
    // registered so that no log or trace line can carry them.
    let secret_names = merge_vars(&secret_files, secret_flags)
        .into_iter()
        .map(|(k, v)| {
            optimizer::redact::remember_secret(&v);
            k
        })
        .collect();
    Ok(Overrides {
        infra: args.infra.clone(),
        cloud: args.cloud.clone(),
        region: args.region.clone(),
        zone: args.zone.clone(),
        gpus: args.gpus.clone(),
        cpus: args.cpus.clone(),
        memory: args.memory.clone(),
        instance_type: args.instance_type.clone(),
        use_spot: if args.use_spot {
            Some(true)
        } else if args.no_use_spot {
            Some(false)
        } else {
            None
        },
        disk_size,
        disk_tier: args.disk_tier.clone(),
        image_id: args.image_id.clone(),
        ports: args.ports.clone(),
        num_nodes,
        name: args.name.clone(),
        network_tier: args.network_tier.clone(),
        local_disk: args.local_disk.clone(),
        priority: args.priority.clone(),
        envs,
        secret_names,
        workdir: args.workdir.clone(),
        git_url: args.git_url.clone(),
        git_ref: args.git_ref.clone(),
        config: None,
        provision: ProvisionFlags {
            detach_run: args.detach_run,
            backend,
            idle_minutes_to_autostop: args.idle_minutes_to_autostop,
            wait_for: args.wait_for.clone(),
            down: args.down,
            retry_until_up: args.retry_until_up,
            no_setup: args.no_setup,
            clone_disk_from: args.clone_disk_from.clone(),
            fast: args.fast,
            resize: args.resize,
            async_call: args.async_call,
        },
    })
}

fn default_cluster_name() -> String {
    let user = std::env::var("USER").unwrap_or_else(|_| "user".into());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let hash = (std::process::id() ^ nanos) & 0xffff;
    format!("sky-{hash:04x}-{user}")
}

/// Asks the confirmation question; `true` to go ahead.
fn confirm(printer: &Printer, cluster: &str) -> bool {
    confirm_text(printer, &render::launch::prompt(cluster), true)
}

/// Asks `question`; an empty answer is `default`.
fn confirm_text(printer: &Printer, question: &str, default: bool) -> bool {
    let mut stdout = std::io::stdout();
    let _ = write!(stdout, "{}", printer.paint(printer.color, question));
    let _ = stdout.flush();
    let mut answer = String::new();
    let read = std::io::stdin().lock().read_line(&mut answer).unwrap_or(0);
    if !std::io::stdin().is_terminal() {
        // A terminal echoes the user's Enter; piped input does not.
        println!();
    }
    let answer = answer.trim().to_ascii_lowercase();
    read > 0 && ((answer.is_empty() && default) || answer == "y" || answer == "yes")
}

/// `common_utils.cluster_name_looks_like_file_path`.
fn looks_like_file_path(name: &str) -> bool {
    let lower = name.to_lowercase();
    [".yaml", ".yml", ".json"]
        .iter()
        .any(|e| lower.ends_with(e))
        || Path::new(name).is_file()
}

pub async fn launch(args: LaunchArgs, color: bool) -> anyhow::Result<Exit> {
    let printer = Printer { color };
    let (opts, request) = tracing::info_span!("options").in_scope(|| {
        let mut opts = options(&args.common)?;
        opts.config_args = args.config.clone();
        opts.workspace = args.workspace.clone();
        opts.project_dir = std::env::current_dir().ok();
        let request = Request {
            entrypoint: args.entrypoint.clone(),
            overrides: overrides(&args)?,
        };
        anyhow::Ok((opts, request))
    })?;
    if let Some(cluster) = args.cluster.as_deref().filter(|c| looks_like_file_path(c)) {
        let warning = render::launch::cluster_name_looks_like_path(cluster);
        if args.yes {
            printer.stdout(&warning);
        } else if !confirm_text(
            &printer,
            &format!("{warning}\nProceed anyway? [y/N]: "),
            false,
        ) {
            printer.stdout(render::launch::ABORTED);
            return Ok(Exit::Request);
        }
    }
    if args.cloud.is_some() || args.region.is_some() || args.zone.is_some() {
        printer.print(&[render::launch::deprecated_location_flags()]);
    }
    let result = match launch::run(&opts, &request).await {
        Ok(result) => result,
        Err(LaunchError::NoCloud(msg)) => {
            eprintln!("sky: {msg}");
            return Ok(Exit::NoCloud);
        }
        Err(e) => return Err(e.into()),
    };
    // The process exits right after printing: freeing tens of thousands of
    // catalog rows would cost more than the whole table. Leak them on purpose.
    let result: &'static _ = Box::leak(Box::new(result));
    let cluster = args.cluster.clone().unwrap_or_else(default_cluster_name);
    let view = LaunchView {
        cluster: &cluster,
        json: args.output == OutputFormat::Json,
        yes: args.yes,
        full_logging: (!minimize_logging()).then(log_prefix),
        dryrun: args.dryrun,
        timings: args.common.timings,
    };
    let lines = tracing::info_span!("render").in_scope(|| render::launch::launch(result, &view));
    tracing::info_span!("output").in_scope(|| printer.print(&lines));
    let exit = result.exit();
    if exit == Exit::Request || args.dryrun {
        return Ok(exit);
    }
    if !args.yes && !confirm(&printer, &cluster) {
        printer.stdout(render::launch::ABORTED);
        return Ok(Exit::Request);
    }
    if let Some(path) = &args.plan_out {
        let doc = render::json::plan(result, &cluster);
        write_atomic(
            path,
            serde_json::to_string_pretty(&doc)?.as_bytes(),
            FileMode::User,
        )
        .with_context(|| format!("cannot write the plan to {}", path.display()))?;
    }
    if let Some(line) = render::launch::confirmed(result, args.plan_out.as_deref()) {
        printer.stdout(&line);
    }
    Ok(exit)
}

/// The warnings about the options themselves (unknown cloud names), first.
fn print_option_warnings(printer: &Printer, opts: &LaunchOptions) {
    let lines: Vec<Line> = opts
        .warnings
        .iter()
        .map(|w| render::launch::warning(w))
        .collect();
    printer.print(&lines);
}

fn parse_clouds(names: &[String]) -> anyhow::Result<Vec<CloudId>> {
    names
        .iter()
        .map(|c| c.parse().map_err(|e: UnknownCloud| anyhow::anyhow!("{e}")))
        .collect()
}

pub async fn catalog(args: CatalogArgs) -> anyhow::Result<Exit> {
    let opts = options(&args.common)?;
    let printer = Printer { color: false };
    print_option_warnings(&printer, &opts);
    match args.command {
        CatalogCommand::Refresh(refresh) => {
            if !(refresh.timeout.is_finite() && refresh.timeout > 0.0) {
                anyhow::bail!(
                    "--timeout must be a positive number of seconds, got {}",
                    refresh.timeout
                );
            }
            let clouds = parse_clouds(&refresh.clouds)?;
            let results =
                launch::refresh_catalogs(&opts, &clouds, Duration::from_secs_f64(refresh.timeout))
                    .await?;
            for line in render::catalog::refresh(&results) {
                printer.stdout(&line);
            }
            Ok(if results.iter().all(|(_, r)| r.ok()) {
                Exit::Ok
            } else {
                Exit::Partial
            })
        }
    }
}

/// What `sky check`'s arguments name, resolved as 0.14.1 resolves them:
/// each `InfraInfo.from_str` on the client (`cloud[/region[/zone]]`, the
/// region and zone ignored with a warning), then `check.get_cloud_tuple` on
/// the server (a storage-only provider by prefix, else a cloud name or
/// alias, else an error raised after the header).
#[derive(Debug, Default)]
struct CheckTargets {
    clouds: Vec<CloudId>,
    storage_only: Vec<StorageOnly>,
    /// Every name resolved, in the order given, repeats kept (0.14.1
    /// checks and reports a name given twice twice).
    named: Vec<Provider>,
    unknown: Option<String>,
    warnings: Vec<String>,
}

fn parse_check_targets(names: &[String]) -> Result<CheckTargets, CliError> {
    let mut out = CheckTargets::default();
    for raw in names {
        let infra = raw.trim().trim_matches('/');
        let parts: Vec<&str> = infra.split('/').map(str::trim).collect();
        if infra.is_empty() || parts.contains(&"") {
            return Err(CliError::Value(format!(
                "Invalid infra format: {infra}. Format should not contain empty parts (e.g., double slashes \"//\")."
            )));
        }
        let cloud = parts[0].to_ascii_lowercase();
        // Kubernetes contexts and SSH pools may contain slashes.
        if !matches!(cloud.as_str(), "k8s" | "kubernetes" | "ssh") && parts.len() > 3 {
            return Err(CliError::Value(format!(
                "Invalid infra format: {infra}. Expected format is \"cloud\", \"cloud/region\", or \"cloud/region/zone\"."
            )));
        }
        if cloud == "*" {
            return Err(CliError::Value(format!("Invalid infra to check: {raw}")));
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

pub async fn check(args: CheckArgs, color: bool) -> anyhow::Result<Exit> {
    let printer = Printer { color };
    let mut opts = options(&args.common)?;
    let targets = parse_check_targets(&args.clouds).map_err(anyhow::Error::new)?;
    opts.declared_clouds = (!args.clouds.is_empty()).then_some(targets.clouds);
    opts.declared_storage_only = targets.storage_only;
    opts.declared_order = Some(targets.named);
    opts.declared_unknown = targets.unknown;
    opts.config_args = args.config.clone();
    opts.workspace = args.workspace.clone();
    // The client's logger warns on stdout, before the server's text
    // (`sdk.check`); with `-o json` too, before the document (only the
    // server's streamed text is discarded).
    for w in &targets.warnings {
        printer.stdout(w);
    }
    let report = launch::check(&opts).await?;
    let warnings: Vec<Line> = report
        .warnings
        .iter()
        .map(|w| render::launch::warning(w))
        .collect();
    printer.print(&warnings);
    if let Some(message) = &report.invalid {
        // `-o json` discards the streamed text (the header) too.
        if args.output != OutputFormat::Json {
            for line in render::check::report(&report, &render::check::CheckView::default()) {
                printer.stdout(&line);
            }
        }
        return Err(anyhow::Error::new(CliError::Value(message.clone())));
    }
    if args.output == OutputFormat::Json {
        // 0.14.1's document, and its exit code: 0, whatever is enabled
        // (`{"default": {}}` when nothing is).
        printer.stdout(&render::check::json(&report));
        return Ok(Exit::Ok);
    }
    let view = render::check::CheckView {
        verbose: args.verbose,
    };
    let mut lines = render::check::report(&report, &view);
    if args.common.timings {
        lines.extend(render::timings::check(&report.fanout));
    }
    for line in &lines {
        printer.stdout(line);
    }
    // `4` when the summary lists nothing ("No infra to check/enabled.").
    Ok(if report.enabled_anywhere() {
        Exit::Ok
    } else {
        Exit::NoCloud
    })
}
