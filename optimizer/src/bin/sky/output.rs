//! The two subcommands: call the library, print, choose the exit code.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use optimizer::launch::{self, LaunchOptions, Prepared};
use planner::check::{CacheUse, FanOut, Outcome};
use planner::cloud::CloudId;
use planner::optimize::Optimized;
use planner::render::{ansi, strip_ansi};
use planner::task::{Dag, Overrides};

use crate::cli::{CheckArgs, CommonArgs, LaunchArgs, OutputFormat};
use crate::exit;

/// Writes to stdout, stripping colours when they are off.
struct Out {
    color: bool,
    stdout: std::io::StdoutLock<'static>,
}

impl Out {
    fn new(color: bool) -> Self {
        Out {
            color,
            stdout: std::io::stdout().lock(),
        }
    }

    fn line(&mut self, text: &str) {
        let text = if self.color {
            text.to_string()
        } else {
            strip_ansi(text)
        };
        // A closed pipe (`sky ... | head`) is not an error worth reporting.
        let _ = writeln!(self.stdout, "{text}");
    }

    fn flush(&mut self) {
        let _ = self.stdout.flush();
    }
}

fn process_env() -> BTreeMap<String, String> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect()
}

fn options(common: &CommonArgs) -> anyhow::Result<LaunchOptions> {
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
    opts.cloud_timeout = Duration::from_secs_f64(common.cloud_timeout);
    opts.fanout.global_deadline = opts.cloud_timeout + Duration::from_secs(1);
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

fn is_yaml(entry: &str) -> bool {
    (entry.ends_with(".yaml") || entry.ends_with(".yml")) && !entry.contains(' ')
}

fn default_cluster_name() -> String {
    let user = std::env::var("USER").unwrap_or_else(|_| "user".into());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let hash = (std::process::id() ^ nanos) & 0xffff;
    format!("sky-{hash:04x}-{user}")
}

fn print_excluded(prepared: &Prepared) {
    for w in &prepared.warnings {
        eprintln!("sky: warning: {w}");
    }
    for e in &prepared.excluded {
        eprintln!(
            "sky: warning: {} left out of the table: {}",
            e.cloud.repr(),
            e.reason
        );
    }
}

fn print_timings(out: &mut Out, fanout: &FanOut, prepared: &Prepared) {
    out.line("");
    out.line(&format!(
        "{}Timings{} (catalog load {:.1} ms, overlapping the checks):",
        ansi::BRIGHT,
        ansi::RESET,
        ms(prepared.catalog_load)
    ));
    for r in &fanout.reports {
        let cache = match r.cache() {
            CacheUse::None => "-".to_string(),
            CacheUse::Hit { age } => format!("hit ({}s old)", age.as_secs()),
            CacheUse::Miss => "miss".to_string(),
        };
        let outcome = match &r.outcome {
            Outcome::Ready(_) => "ok".to_string(),
            Outcome::NoCredentials(_) => "no credentials".to_string(),
            Outcome::Failed(e) => format!("failed: {e}"),
        };
        out.line(&format!(
            "  {:<11} {:>9.1} ms  cache {:<14} {outcome}",
            r.cloud.repr(),
            ms(r.elapsed),
            cache
        ));
    }
    if let Some(c) = fanout.critical_path() {
        out.line(&format!(
            "  critical path: {} ({:.1} ms); fan-out wall time {:.1} ms",
            c.cloud.repr(),
            ms(c.started + c.elapsed),
            ms(fanout.wall)
        ));
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn read_dag(entry: &[String], prepared: &Prepared) -> anyhow::Result<(Dag, Option<String>)> {
    let joined = entry.join(" ");
    if entry.len() == 1 && is_yaml(&entry[0]) {
        let path = Path::new(&entry[0]);
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read task YAML {}; check the path", path.display()))?;
        let dag = planner::task::parse_task_yaml(
            &text,
            &path.display().to_string(),
            &prepared.world.catalog.gpu_metadata,
        )
        .map_err(|e| anyhow::anyhow!("{}: {}", e.kind.python_name(), e.message))?;
        return Ok((
            dag,
            Some(format!(
                "{}YAML to run: {}{}",
                ansi::CYAN,
                ansi::RESET,
                entry[0]
            )),
        ));
    }
    // SkyPilot's CLI names a task built from flags or a command `sky-cmd`.
    let mut dag = Dag {
        tasks: vec![planner::task::Task {
            name: Some("sky-cmd".into()),
            ..Default::default()
        }],
    };
    if joined.is_empty() {
        return Ok((dag, None));
    }
    dag.tasks[0].run = Some(joined.clone());
    Ok((
        dag,
        Some(format!(
            "{}Command to run: {}{}",
            ansi::CYAN,
            ansi::RESET,
            joined
        )),
    ))
}

pub async fn launch(args: LaunchArgs, color: bool) -> anyhow::Result<u8> {
    let opts = options(&args.common)?;
    let overrides = overrides(&args)?;
    if args.cloud.is_some() || args.region.is_some() || args.zone.is_some() {
        eprintln!(
            "{}",
            paint(
                color,
                &format!(
                    "{}The --cloud, --region, and --zone options are deprecated. Use --infra instead.{}",
                    ansi::YELLOW,
                    ansi::RESET
                )
            )
        );
    }
    let prepared = match launch::prepare(&opts).await {
        Ok(p) => p,
        Err(launch::LaunchError::NoCloud(msg)) => {
            eprintln!("sky: {msg}");
            return Ok(exit::NO_CLOUD);
        }
        Err(e) => return Err(e.into()),
    };
    // The process exits right after printing: freeing tens of thousands of
    // catalog rows would cost more than the whole table. Leak them on purpose.
    let prepared: &'static Prepared = Box::leak(Box::new(prepared));
    print_excluded(prepared);
    let mut out = Out::new(color);
    let json = args.output == OutputFormat::Json;
    let (mut dag, header) = match read_dag(&args.entrypoint, prepared) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("{}", paint(color, &format!("{e:#}")));
            return Ok(exit::REQUEST);
        }
    };
    if let Err(e) =
        planner::task::apply_overrides(&mut dag, &overrides, &prepared.world.catalog.gpu_metadata)
    {
        out.flush();
        eprintln!(
            "{}",
            paint(color, &format!("{}: {}", e.kind.python_name(), e.message))
        );
        return Ok(exit::REQUEST);
    }
    let cluster = args.cluster.clone().unwrap_or_else(default_cluster_name);
    if !json && let Some(h) = &header {
        out.line(h);
    }
    // SkyPilot validates (POST /validate) before naming the cluster.
    if let Err(e) = planner::validate::validate_dag(&prepared.world, &mut dag) {
        out.flush();
        eprintln!(
            "{}",
            paint(color, &format!("{}: {}", e.kind.python_name(), e.message))
        );
        return Ok(exit::REQUEST);
    }
    if !json {
        if args.yes {
            out.line(&format!(
                "{}Running on cluster: {}{cluster}",
                ansi::CYAN,
                ansi::RESET
            ));
        }
        let any_spot = dag
            .tasks
            .iter()
            .any(|t| t.resources.all().iter().any(|r| r.use_spot));
        if any_spot {
            out.line(&format!(
                "{}{}Launching a spot job that does not automatically recover from preemptions. To get automatic recovery, use managed job instead: sky jobs launch or sky.jobs.launch().{}",
                ansi::YELLOW,
                ansi::BRIGHT,
                ansi::RESET
            ));
        }
    }
    // Already validated above; optimise directly (validation is not repeated).
    let optimized: Optimized = planner::optimize::optimize(&prepared.world, &dag);
    if json {
        let doc = launch::plan_json(prepared, &cluster, &optimized);
        out.line(&serde_json::to_string_pretty(&doc)?);
    } else {
        for entry in &optimized.log {
            out.line(entry);
        }
    }
    let plan = match &optimized.result {
        Ok(p) => p,
        Err(e) => {
            out.flush();
            eprintln!(
                "{}",
                paint(color, &format!("{}: {}", e.kind.python_name(), e.message))
            );
            if args.common.timings {
                print_timings(&mut out, &prepared.fanout, prepared);
            }
            return Ok(exit::REQUEST);
        }
    };
    let code = if prepared.excluded.is_empty() {
        exit::OK
    } else {
        exit::PARTIAL
    };
    if args.common.timings {
        print_timings(&mut out, &prepared.fanout, prepared);
    }
    if args.dryrun {
        if !json {
            out.line("Dryrun finished.");
            out.line("");
        }
        return Ok(code);
    }
    if !args.yes {
        out.flush();
        let mut stdout = std::io::stdout();
        let _ = write!(
            stdout,
            "Launching a new cluster {}. Proceed? [Y/n]: ",
            planner::pytext::py_str_repr(&cluster)
        );
        let _ = stdout.flush();
        let mut answer = String::new();
        let read = std::io::stdin().lock().read_line(&mut answer).unwrap_or(0);
        if !std::io::IsTerminal::is_terminal(&std::io::stdin()) {
            // A terminal echoes the user's Enter; piped input does not.
            println!();
        }
        let answer = answer.trim().to_ascii_lowercase();
        if read == 0 || !(answer.is_empty() || answer == "y" || answer == "yes") {
            println!("Aborted!");
            return Ok(exit::REQUEST);
        }
    }
    let doc = launch::plan_json(prepared, &cluster, &optimized);
    match &args.plan_out {
        Some(path) => {
            launch::write_file_atomic(path, serde_json::to_string_pretty(&doc)?.as_bytes())
                .with_context(|| format!("cannot write the plan to {}", path.display()))?;
            out.line(&format!(
                "Provisioning is outside this tool: the chosen plan ({} on {}) was written to {}.",
                plan.tasks[0].chosen.instance_type,
                plan.tasks[0].chosen.cells[0],
                path.display()
            ));
        }
        None => out.line(&format!(
            "Provisioning is outside this tool: {} on {} was chosen. Use --plan-out FILE to save the plan.",
            plan.tasks[0].chosen.instance_type, plan.tasks[0].chosen.cells[0]
        )),
    }
    Ok(code)
}

fn paint(color: bool, s: &str) -> String {
    if color && std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        s.to_string()
    } else {
        strip_ansi(s)
    }
}

pub async fn check(args: CheckArgs, color: bool) -> anyhow::Result<u8> {
    let mut opts = options(&args.common)?;
    let mut wanted = Vec::new();
    for c in &args.clouds {
        let id: CloudId = c
            .parse()
            .map_err(|e: planner::cloud::UnknownCloud| anyhow::anyhow!("{e}"))?;
        wanted.push(id);
    }
    if !wanted.is_empty() {
        opts.declared_clouds = Some(wanted.clone());
    } else {
        opts.declared_clouds = None;
    }
    let report = launch::check(&opts).await?;
    let mut out = Out::new(color);
    out.line("Checking credentials to enable clouds for SkyPilot.");
    for line in report.lines() {
        out.line(&line);
    }
    if args.common.timings {
        out.line("");
        for r in &report.fanout.reports {
            out.line(&format!(
                "  {:<11} {:>9.1} ms",
                r.cloud.repr(),
                ms(r.elapsed)
            ));
        }
    }
    Ok(if report.enabled().is_empty() {
        exit::NO_CLOUD
    } else {
        exit::OK
    })
}
