//! The two subcommands: turn flags into a request, call the pipeline, print
//! what the renderer made of the result, prompt, and pick the exit code.

use std::collections::BTreeMap;
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use optimizer::launch::{self, LaunchError, LaunchOptions, Request};
use optimizer::state::{FileMode, write_atomic};
use planner::cloud::{CloudId, UnknownCloud};
use planner::launch::Exit;
use planner::render::launch::{LaunchView, Line, Stream};
use planner::render::{self, strip_ansi};
use planner::task::Overrides;

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
        disk_size: args.disk_size,
        disk_tier: args.disk_tier.clone(),
        image_id: args.image_id.clone(),
        ports: args.ports.clone(),
        num_nodes,
        name: args.name.clone(),
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
    let mut stdout = std::io::stdout();
    let _ = write!(
        stdout,
        "{}",
        printer.paint(printer.color, &render::launch::prompt(cluster))
    );
    let _ = stdout.flush();
    let mut answer = String::new();
    let read = std::io::stdin().lock().read_line(&mut answer).unwrap_or(0);
    if !std::io::stdin().is_terminal() {
        // A terminal echoes the user's Enter; piped input does not.
        println!();
    }
    let answer = answer.trim().to_ascii_lowercase();
    read > 0 && (answer.is_empty() || answer == "y" || answer == "yes")
}

pub async fn launch(args: LaunchArgs, color: bool) -> anyhow::Result<Exit> {
    let printer = Printer { color };
    let opts = options(&args.common)?;
    let request = Request {
        entrypoint: args.entrypoint.clone(),
        overrides: overrides(&args)?,
    };
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
        dryrun: args.dryrun,
        timings: args.common.timings,
    };
    {
        let _span = tracing::info_span!("render").entered();
        printer.print(&render::launch::launch(result, &view));
    }
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
            for line in render::catalog_refresh(&results) {
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

pub async fn check(args: CheckArgs, color: bool) -> anyhow::Result<Exit> {
    let printer = Printer { color };
    let mut opts = options(&args.common)?;
    let wanted = parse_clouds(&args.clouds)?;
    opts.declared_clouds = (!wanted.is_empty()).then_some(wanted);
    let report = launch::check(&opts).await?;
    let warnings: Vec<Line> = report
        .warnings
        .iter()
        .map(|w| render::launch::warning(w))
        .collect();
    printer.print(&warnings);
    let mut lines = render::check::report(&report);
    if args.common.timings {
        lines.extend(render::timings::check(&report.fanout));
    }
    for line in &lines {
        printer.stdout(line);
    }
    Ok(if report.enabled().is_empty() {
        Exit::NoCloud
    } else {
        Exit::Ok
    })
}
