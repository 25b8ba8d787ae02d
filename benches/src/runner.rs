//! Running things: the criterion suite, callgrind instruction counts and the
//! whole-process `sky launch` measurement. Each returns data; printing and
//! exit codes belong to `bench-gate`.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, bail};
use harness::stats;
use harness::timing::{passes, timed};

use crate::gate::{Environment, Results, SCHEMA, collect_criterion, subdirs};
use crate::meta::{BenchMeta, FLOORS_ENV, RUN_KEY};
use crate::progress;

/// The cargo target directory of `workspace` (`CARGO_TARGET_DIR` if set).
pub fn target_dir(workspace: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(d) if Path::new(&d).is_absolute() => PathBuf::from(d),
        Some(d) => workspace.join(d),
        None => workspace.join("target"),
    }
}

/// What to run.
#[derive(Debug, Clone)]
pub struct SuiteOptions {
    /// The workspace root whose benches run.
    pub workspace: PathBuf,
    /// Its cargo target directory (see [`target_dir`]).
    pub target_dir: PathBuf,
    /// criterion filter (a regex over benchmark ids); `None` = everything.
    pub filter: Option<String>,
    /// Also count instructions under callgrind (skipped if valgrind is missing).
    pub instructions: bool,
    /// Prebuilt binaries to run instead of building: `(criterion bench
    /// executable, bench-ops executable)`. For measuring a frozen build while
    /// the tree keeps changing (A/A runs, CI with a separate build step).
    pub prebuilt: Option<(PathBuf, PathBuf)>,
    /// Name stored in the results.
    pub name: String,
    /// Shorten the benchmarks whose time cannot fail
    /// ([`crate::budget::QUICK_ADVISORY_ENV`]).
    pub quick_advisory: bool,
}

/// Deletes every `change/` folder under `target/criterion`: criterion leaves
/// them behind, and a stale one must never be read as this run's change.
pub fn delete_stale_changes(criterion_dir: &Path) -> usize {
    let stale: Vec<PathBuf> = subdirs(criterion_dir)
        .into_iter()
        .filter(|d| d.file_name().is_some_and(|n| n == "change"))
        .collect();
    stale
        .iter()
        .filter(|d| std::fs::remove_dir_all(d).is_ok())
        .count()
}

/// Runs `cargo bench -p benches --bench main` (criterion output streams to
/// the terminal), then collects this run's samples, floors and, if asked,
/// instruction counts.
pub fn run_suite(opts: &SuiteOptions) -> anyhow::Result<Results> {
    let target = opts.target_dir.clone();
    let criterion_dir = target.join("criterion");
    let removed = delete_stale_changes(&criterion_dir);
    if removed > 0 {
        eprintln!("bench-gate: removed {removed} stale criterion change/ folder(s)");
    }
    let floors_path = target.join("bench/meta.json");
    let _ = std::fs::remove_file(&floors_path);
    // criterion's mtimes are compared with this: allow for coarse file-system clocks.
    let since = SystemTime::now() - Duration::from_secs(1);
    let suite = |extra: &[&str]| {
        let mut c = match &opts.prebuilt {
            Some((exe, _)) => {
                let mut c = Command::new(exe);
                c.arg("--bench").current_dir(opts.workspace.join("benches"));
                c
            }
            None => {
                let mut c = Command::new("cargo");
                c.args(["bench", "-p", "benches", "--bench", "main", "--"])
                    .current_dir(&opts.workspace)
                    .env(BENCH_PANIC_ENV.0, BENCH_PANIC_ENV.1);
                c
            }
        };
        c.env("CARGO_TARGET_DIR", &target)
            .env(FLOORS_ENV, &floors_path)
            .args(extra);
        if opts.quick_advisory {
            c.env(crate::budget::QUICK_ADVISORY_ENV, "1");
        }
        if let Some(f) = &opts.filter {
            c.arg(f);
        }
        c
    };
    // The `process` group runs the release `sky` next to the bench
    // executable; cargo bench does not build it (it is another package's
    // binary), so a fresh clone would fail there. Prebuilt runs bring their own.
    if opts.prebuilt.is_none() && selects_process(opts.filter.as_deref()) {
        build_sky(&opts.workspace, &target)?;
    }
    let started = Instant::now();
    let status = if progress::on_terminal() {
        let total = progress::count_benchmarks(suite(&["--list"]))?;
        progress::run_with_progress(suite(&[]), total)?
    } else {
        suite(&[]).status().context("running cargo bench")?
    };
    if !status.success() {
        bail!("`cargo bench -p benches --bench main` failed ({status}); see its output above");
    }
    eprintln!(
        "bench-gate: criterion suite took {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let meta: BTreeMap<String, BenchMeta> = match std::fs::read(&floors_path) {
        Ok(b) => serde_json::from_slice(&b)
            .with_context(|| format!("parsing {}", floors_path.display()))?,
        Err(_) => BTreeMap::new(),
    };
    let benchmarks = collect_criterion(&criterion_dir, since, &meta)?;
    if benchmarks.is_empty() {
        bail!(
            "no benchmark results were written under {} by this run (does the filter {:?} match any benchmark? \
             `cargo bench -p benches --bench main -- --list` lists them)",
            criterion_dir.display(),
            opts.filter.as_deref().unwrap_or("")
        );
    }
    let (instructions, instructions_note) = if opts.instructions {
        count_instructions(
            &opts.workspace,
            &target,
            opts.prebuilt.as_ref().map(|(_, ops)| ops.as_path()),
            opts.filter.as_deref(),
        )?
    } else {
        (
            BTreeMap::new(),
            Some("instruction counts not measured in this run (--no-instructions)".into()),
        )
    };
    Ok(Results {
        schema: SCHEMA.into(),
        name: opts.name.clone(),
        environment: Environment::capture(&opts.workspace),
        benchmarks,
        instructions,
        instructions_note,
        foreign_cores: meta.get(RUN_KEY).and_then(|m| m.foreign_cores),
    })
}

/// Whether the criterion `filter` (a regex over ids, as criterion reads it)
/// selects any `process/*` benchmark. An invalid regex counts as selecting:
/// criterion will report it, and building `sky` costs nothing when it is current.
fn selects_process(filter: Option<&str>) -> bool {
    let Some(filter) = filter else {
        return true;
    };
    regex::Regex::new(filter).map_or(true, |re| {
        crate::process::ProcessConfig::ALL
            .iter()
            .any(|c| re.is_match(&c.id()))
    })
}

/// Builds the release `sky` ([`crate::process::BUILD_SKY`]) into `target`
/// and returns its path.
pub fn build_sky(workspace: &Path, target: &Path) -> anyhow::Result<PathBuf> {
    eprintln!("bench-gate: {}", crate::process::BUILD_SKY);
    let status = Command::new("cargo")
        .args(["build", "--release", "-p", "optimizer", "--bin", "sky"])
        .current_dir(workspace)
        .env("CARGO_TARGET_DIR", target)
        .status()
        .context("building sky")?;
    if !status.success() {
        bail!("`{}` failed ({status})", crate::process::BUILD_SKY);
    }
    Ok(target.join(format!("release/sky{}", std::env::consts::EXE_SUFFIX)))
}

/// Whether valgrind is installed (instruction counts need it).
pub fn have_valgrind() -> bool {
    have("valgrind")
}

fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Builds `bench-ops` (bench profile) unless `prebuilt`, and runs it once under callgrind. It
/// performs every selected CPU-bound operation twice (warm-up, then a
/// measured call between `bench_ops_start()` and `bench_ops_stop()`);
/// callgrind dumps its counters on entering either marker, so each
/// `bench_ops_stop` dump holds exactly one operation's instructions, all
/// threads included. Returns the counts and
/// a note when valgrind is missing (counts then skipped, not failed).
pub fn count_instructions(
    workspace: &Path,
    target: &Path,
    prebuilt: Option<&Path>,
    filter: Option<&str>,
) -> anyhow::Result<(BTreeMap<String, u64>, Option<String>)> {
    if !have("valgrind") {
        let note = "valgrind is not installed: instruction counts skipped (install it with `apt-get install valgrind`)";
        eprintln!("bench-gate: {note}");
        return Ok((BTreeMap::new(), Some(note.into())));
    }
    let exe = match prebuilt {
        Some(p) => p.to_path_buf(),
        None => build_bench_ops(workspace, target)?,
    };
    let out_dir = target.join("bench/callgrind");
    let _ = std::fs::remove_dir_all(&out_dir);
    std::fs::create_dir_all(&out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    let started = Instant::now();
    eprintln!(
        "bench-gate: counting instructions under callgrind ({}, {INSTRUCTION_RUNS} runs, median per operation)",
        exe.display()
    );
    let mut per_op: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for run in 0..INSTRUCTION_RUNS {
        let dir = out_dir.join(format!("run{run}"));
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        for (id, n) in callgrind_once(&exe, &dir, filter, 0)? {
            per_op.entry(id).or_default().push(n);
        }
    }
    eprintln!(
        "bench-gate: {} instruction counts in {:.1} s",
        per_op.len(),
        started.elapsed().as_secs_f64()
    );
    // The middle run, not an average: an instruction count stays a count one run measured.
    let medians = per_op
        .into_iter()
        .filter_map(|(id, mut v)| stats::middle(&mut v).map(|m| (id, m)))
        .collect();
    Ok((medians, None))
}

/// Runs under callgrind for each [`count_instructions`] pass.
const INSTRUCTION_RUNS: usize = 3;

/// One callgrind run of the `bench-ops` executable `exe` into `out_dir`
/// (emptied first): `(id, instructions)` of each operation `filter` selects,
/// in run order. `slot` picks the one CPU it runs on ([`OneCpu`]): runs made
/// at the same time take different slots.
pub fn callgrind_pass(
    exe: &Path,
    out_dir: &Path,
    filter: Option<&str>,
    slot: usize,
) -> anyhow::Result<Vec<(String, u64)>> {
    let _ = std::fs::remove_dir_all(out_dir);
    std::fs::create_dir_all(out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    callgrind_once(exe, out_dir, filter, slot)
}

/// The calling thread kept to one of the CPUs it may use, until dropped
/// (the previous set restored); a process it starts meanwhile inherits it.
///
/// `bench-ops` runs on one CPU. valgrind runs one thread at a time whatever
/// the cores, but code that sizes its work by the cores it may use (the
/// catalog parse pool: one worker per core) still starts one worker per
/// core, and with two workers the order valgrind ran them in decided how
/// the pieces were shared: `catalog/load-aws` read 62.1 M or 63.5 M
/// instructions from one run to the next of one binary, across the gate's
/// 2 % threshold. On one CPU the pool parses with one worker: 59.59 M,
/// within a few thousand from run to run. Set here rather than in
/// `bench-ops`, so that both sides of a report count the same way.
struct OneCpu {
    before: Option<rustix::thread::CpuSet>,
}

impl OneCpu {
    /// Keeps this thread to the `slot`-th CPU it may use (modulo their
    /// number); nothing changes when the affinity cannot be read or set.
    fn keep(slot: usize) -> OneCpu {
        use rustix::thread::{CpuSet, sched_getaffinity, sched_setaffinity};
        let Ok(allowed) = sched_getaffinity(None) else {
            return OneCpu { before: None };
        };
        let cpus: Vec<usize> = (0..CpuSet::MAX_CPU)
            .filter(|&cpu| allowed.is_set(cpu))
            .collect();
        let Some(&cpu) = cpus.get(slot % cpus.len().max(1)) else {
            return OneCpu { before: None };
        };
        let mut one = CpuSet::new();
        one.set(cpu);
        match sched_setaffinity(None, &one) {
            Ok(()) => OneCpu {
                before: Some(allowed),
            },
            Err(e) => {
                eprintln!(
                    "bench-gate: cannot keep bench-ops to one CPU ({e}): counts of threaded operations may vary"
                );
                OneCpu { before: None }
            }
        }
    }
}

impl Drop for OneCpu {
    fn drop(&mut self) {
        if let Some(before) = &self.before {
            let _ = rustix::thread::sched_setaffinity(None, before);
        }
    }
}

/// One callgrind run of bench-ops, on one CPU: `(id, instructions)` in run order.
fn callgrind_once(
    exe: &Path,
    out_dir: &Path,
    filter: Option<&str>,
    slot: usize,
) -> anyhow::Result<Vec<(String, u64)>> {
    let mut cmd = Command::new("valgrind");
    cmd.args([
        "--tool=callgrind",
        "--dump-instr=no",
        "--collect-jumps=no",
        "--dump-before=*bench_ops_start*",
        "--dump-before=*bench_ops_stop*",
    ])
    .arg(format!(
        "--callgrind-out-file={}",
        out_dir.join("callgrind.out").display()
    ))
    .arg(exe)
    .args(filter);
    let output = {
        let _one_cpu = OneCpu::keep(slot);
        cmd.stderr(Stdio::piped())
            .output()
            .context("running valgrind")?
    };
    if !output.status.success() {
        bail!(
            "callgrind run of bench-ops failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
                .lines()
                .rev()
                .take(15)
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
    let order: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("measured ").map(str::to_string))
        .collect();
    let counts = read_stop_dumps(out_dir)?;
    if counts.len() != order.len() {
        bail!(
            "callgrind wrote {} per-operation dumps for {} operations in {}; were the bench_ops_start/stop markers inlined away?",
            counts.len(),
            order.len(),
            out_dir.display()
        );
    }
    Ok(order.into_iter().zip(counts).collect())
}

/// Instruction totals of the dumps triggered by `bench_ops_stop`, in part order.
fn read_stop_dumps(dir: &Path) -> anyhow::Result<Vec<u64>> {
    let mut parts: Vec<(u64, u64)> = Vec::new();
    for e in std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .flatten()
    {
        let text = std::fs::read_to_string(e.path())
            .with_context(|| format!("reading {}", e.path().display()))?;
        let field = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(key).map(str::trim).map(str::to_string))
        };
        if !field("desc: Trigger:").is_some_and(|t| t.contains("bench_ops_stop")) {
            continue;
        }
        let part = field("part:").and_then(|p| p.parse().ok()).unwrap_or(0);
        let total = field("summary:")
            .or_else(|| field("totals:"))
            .and_then(|t| t.split_whitespace().next().and_then(|n| n.parse().ok()))
            .with_context(|| format!("no summary line in {}", e.path().display()))?;
        parts.push((part, total));
    }
    parts.sort();
    Ok(parts.into_iter().map(|(_, t)| t).collect())
}

/// Which `sky` command [`measure_process`] times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ProcessCommand {
    /// `sky launch --dryrun -y --gpus H100:8`, every catalog cloud declared.
    Launch,
    /// `sky gpus list --all` on the bundled catalogs (`SKY_BUNDLED_CATALOGS=1`):
    /// every catalog cloud's `vms.csv` read and listed, no network.
    GpusListAll,
}

impl ProcessCommand {
    /// The arguments after `sky`.
    pub fn args(self) -> &'static [&'static str] {
        match self {
            ProcessCommand::Launch => &["launch", "--dryrun", "-y", "--gpus", "H100:8"],
            ProcessCommand::GpusListAll => &["gpus", "list", "--all"],
        }
    }
}

/// Whole-process `sky` figures (one [`ProcessCommand`]).
#[derive(Debug, Clone)]
pub struct ProcessFigures {
    /// How the times were taken.
    pub tool: String,
    /// Wall times of the runs, sorted.
    pub times: Vec<Duration>,
    /// Peak RSS (KiB) of each `/usr/bin/time -v` run.
    pub max_rss_kib: Vec<u64>,
    /// The exact command lines, for the notes.
    pub commands: Vec<String>,
}

impl ProcessFigures {
    /// Median wall time (the middle run: a time that was measured).
    pub fn median(&self) -> Duration {
        stats::middle(&mut self.times.clone()).unwrap_or_default()
    }

    /// Median peak RSS (KiB) of the `/usr/bin/time -v` runs, if any.
    pub fn median_rss_kib(&self) -> Option<u64> {
        stats::middle(&mut self.max_rss_kib.clone())
    }
}

/// Measures the release `sky` binary running `command` with every catalog
/// cloud declared: hyperfine when installed (else a timing loop here), and
/// peak RSS with `/usr/bin/time -v`. Home and state directory are fresh
/// temp folders.
pub fn measure_process(
    workspace: &Path,
    runs: usize,
    command: ProcessCommand,
) -> anyhow::Result<ProcessFigures> {
    let sky = build_sky(workspace, &target_dir(workspace))?;
    let dir = tempfile::Builder::new()
        .prefix("sky-process-")
        .tempdir()
        .context("creating a temp dir")?;
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home)?;
    let env: Vec<(&str, String)> = vec![
        ("SKY_ENABLED_CLOUDS", crate::all_catalog_clouds()),
        ("HOME", home.display().to_string()),
        (
            "SKY_STATE_DIR",
            dir.path().join("state").display().to_string(),
        ),
        // The bundled catalogs: a fresh home has none, and without them each
        // launch would try to download them (a DNS failure, or the download
        // deadline where no resolver answers) and time that instead.
        ("SKY_BUNDLED_CATALOGS", "1".into()),
    ];
    let args = command.args();
    let env_text = env
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ");
    let sky_cmd = format!("{} {}", sky.display(), args.join(" "));
    let mut commands = Vec::new();
    let check = Command::new(&sky)
        .args(args)
        .envs(env.iter().cloned())
        .output()
        .context("running sky")?;
    if !check.status.success() {
        bail!(
            "`{env_text} {sky_cmd}` failed ({}): {}",
            check.status,
            String::from_utf8_lossy(&check.stderr)
        );
    }
    let (tool, mut times) = if have("hyperfine") {
        let json = dir.path().join("hyperfine.json");
        let mut cmd = Command::new("hyperfine");
        cmd.args([
            "-N",
            "--warmup",
            "3",
            "--runs",
            &runs.to_string(),
            "--export-json",
        ])
        .arg(&json)
        .arg(&sky_cmd)
        .envs(env.iter().cloned());
        commands.push(format!(
            "env {env_text} hyperfine -N --warmup 3 --runs {runs} '{sky_cmd}'"
        ));
        let status = cmd.status().context("running hyperfine")?;
        if !status.success() {
            bail!("hyperfine failed ({status})");
        }
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json)?)?;
        let times: Vec<Duration> = v["results"][0]["times"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|t| t.as_f64())
                    .map(Duration::from_secs_f64)
                    .collect()
            })
            .unwrap_or_default();
        ("hyperfine".to_string(), times)
    } else {
        commands.push(format!(
            "env {env_text} {sky_cmd}   # x{runs}, timed by bench-gate (hyperfine not installed)"
        ));
        let mut times = Vec::new();
        for pass in passes(3, runs) {
            let (status, wall) = timed(|| {
                Command::new(&sky)
                    .args(args)
                    .envs(env.iter().cloned())
                    .stdout(Stdio::null())
                    .status()
            });
            let status = status?;
            if !status.success() {
                bail!("sky failed ({status})");
            }
            if !pass.warmup {
                times.push(wall);
            }
        }
        ("bench-gate timing loop".to_string(), times)
    };
    times.sort();
    let mut max_rss_kib = Vec::new();
    if Path::new("/usr/bin/time").exists() {
        commands.push(format!(
            "env {env_text} /usr/bin/time -v {sky_cmd}   # x5, \"Maximum resident set size\""
        ));
        for _ in 0..5 {
            let out = Command::new("/usr/bin/time")
                .arg("-v")
                .arg(&sky)
                .args(args)
                .envs(env.iter().cloned())
                .output()?;
            let text = String::from_utf8_lossy(&out.stderr);
            if let Some(kib) = text
                .lines()
                .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes):"))
                .and_then(|v| v.trim().parse().ok())
            {
                max_rss_kib.push(kib);
            }
        }
        max_rss_kib.sort();
    }
    Ok(ProcessFigures {
        tool,
        times,
        max_rss_kib,
        commands,
    })
}

/// Profiles the benchmarks matching `filter` for `seconds` each
/// (`-- --profile-time`), returning their `profile/` folders (holding
/// `flamegraph.svg` and `folded.txt`). Runs the `prebuilt` criterion
/// executable when given, else `cargo bench`.
pub fn profile(
    workspace: &Path,
    target: &Path,
    filter: &str,
    seconds: u32,
    prebuilt: Option<&Path>,
) -> anyhow::Result<Vec<PathBuf>> {
    let since = SystemTime::now() - Duration::from_secs(1);
    let seconds_arg = seconds.to_string();
    let criterion_args = ["--profile-time", seconds_arg.as_str(), filter];
    let mut cmd = match prebuilt {
        Some(exe) => {
            let mut c = Command::new(exe);
            c.arg("--bench").current_dir(workspace.join("benches"));
            c
        }
        None => {
            let mut c = Command::new("cargo");
            c.args(["bench", "-p", "benches", "--bench", "main", "--"])
                .current_dir(workspace)
                .env(BENCH_PANIC_ENV.0, BENCH_PANIC_ENV.1);
            c
        }
    };
    let status = cmd
        .args(criterion_args)
        .env("CARGO_TARGET_DIR", target)
        .status()
        .context("running the benchmarks with --profile-time")?;
    if !status.success() {
        bail!(
            "`cargo bench -p benches --bench main -- --profile-time {seconds} {filter}` failed ({status})"
        );
    }
    let mut dirs: Vec<PathBuf> = subdirs(&target.join("criterion"))
        .into_iter()
        .filter(|d| d.file_name().is_some_and(|n| n == "profile"))
        .filter(|d| {
            std::fs::metadata(d.join("folded.txt"))
                .and_then(|m| m.modified())
                .is_ok_and(|t| t >= since)
        })
        .collect();
    dirs.sort();
    Ok(dirs)
}

/// The bench profile's panic strategy, set on every cargo command that builds
/// in it (`bench-gate`'s and the `bench*` recipes'). The bench profile
/// inherits `panic = "abort"` from `[profile.release]`; cargo builds a
/// benchmark and its dependencies with `unwind` regardless, but the
/// package's binaries (`bench-ops`, `bench-gate`) with the profile's
/// `abort`, so every workspace crate and 287 dependency units were compiled
/// twice (cargo's unit graph: 697 units, 412 with this). Cargo warns that
/// "`panic` setting is ignored for `bench` profile": it is ignored for the
/// benchmark target only, which unwinds either way. Not in `Cargo.toml`:
/// there cargo would print that warning on every command of the workspace.
pub const BENCH_PANIC_ENV: (&str, &str) = ("CARGO_PROFILE_BENCH_PANIC", "unwind");

/// The bench-profile build: the criterion executable, and with it (cargo
/// builds a package's binaries for its benchmarks) `bench-ops` and
/// `bench-gate`, so one command builds all three in one profile and one
/// feature set (with [`BENCH_PANIC_ENV`]). Their paths come from cargo's
/// JSON messages.
pub const BENCH_BUILD: [&str; 8] = [
    "bench",
    "-p",
    "benches",
    "--bench",
    "main",
    "--no-run",
    "--message-format",
    "json-render-diagnostics",
];

/// What a bench-profile build produced.
#[derive(Debug, Clone)]
pub struct BenchExecutables {
    /// The criterion executable (`target/release/deps/main-<hash>`).
    pub bench_exe: PathBuf,
    /// `bench-ops` (bench profile), for callgrind.
    pub ops_exe: PathBuf,
    /// The harness binary, when the build included it.
    pub harness_exe: Option<PathBuf>,
    /// What cargo compiled.
    pub work: BuildWork,
}

/// What one cargo command compiled: a count that does not depend on how
/// busy the machine is, for reasoning about the build's time elsewhere.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BuildWork {
    /// Units (crate targets) the build needed, fresh or not.
    pub units: usize,
    /// Units compiled by this command (not fresh).
    pub compiled: usize,
    /// Of those, workspace crates (the rest are third-party).
    pub compiled_workspace: usize,
}

impl BuildWork {
    /// `"12 of 412 units compiled (10 workspace)"`.
    pub fn text(&self) -> String {
        format!(
            "{} of {} units compiled ({} workspace)",
            self.compiled, self.units, self.compiled_workspace
        )
    }

    /// Both counts summed.
    pub fn plus(self, other: BuildWork) -> BuildWork {
        BuildWork {
            units: self.units + other.units,
            compiled: self.compiled + other.compiled,
            compiled_workspace: self.compiled_workspace + other.compiled_workspace,
        }
    }
}

/// A cargo `compiler-artifact` message.
#[derive(Debug, Clone, PartialEq)]
struct Artifact {
    /// Its target's first kind (`bin`, `bench`, `lib`, …).
    kind: String,
    /// Its target's name.
    name: String,
    /// The executable it produced, if any.
    executable: Option<PathBuf>,
    /// Whether cargo reused it (not compiled by this command).
    fresh: bool,
    /// Whether it is a workspace crate (a `path+file://` package).
    workspace: bool,
}

/// The [`Artifact`] of one line of cargo's JSON messages, if it is one.
fn artifact(line: &str) -> Option<Artifact> {
    let v: serde_json::Value = serde_json::from_str(line).ok()?;
    if v["reason"] != "compiler-artifact" {
        return None;
    }
    Some(Artifact {
        kind: v["target"]["kind"]
            .as_array()?
            .first()?
            .as_str()?
            .to_string(),
        name: v["target"]["name"].as_str()?.to_string(),
        executable: v["executable"].as_str().map(PathBuf::from),
        fresh: v["fresh"].as_bool().unwrap_or(false),
        workspace: v["package_id"]
            .as_str()
            .is_some_and(|id| id.starts_with("path+file://")),
    })
}

/// Runs `cargo ARGS` (which must ask for `--message-format
/// json-render-diagnostics`) in `workspace` into `target`, with `env`;
/// diagnostics go to the terminal. Returns every artifact it reported.
fn cargo_artifacts(
    workspace: &Path,
    target: &Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> anyhow::Result<Vec<Artifact>> {
    let mut child = Command::new("cargo")
        .args(args)
        .current_dir(workspace)
        .env("CARGO_TARGET_DIR", target)
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .spawn()
        .context("running cargo")?;
    let mut artifacts = Vec::new();
    if let Some(out) = child.stdout.take() {
        for line in BufReader::new(out).lines() {
            let line = line.context("reading cargo's messages")?;
            artifacts.extend(artifact(&line));
        }
    }
    let status = child.wait().context("waiting for cargo")?;
    if !status.success() {
        bail!("`cargo {}` failed ({status})", args.join(" "));
    }
    Ok(artifacts)
}

fn work_of(artifacts: &[Artifact]) -> BuildWork {
    let compiled: Vec<&Artifact> = artifacts.iter().filter(|a| !a.fresh).collect();
    BuildWork {
        units: artifacts.len(),
        compiled: compiled.len(),
        compiled_workspace: compiled.iter().filter(|a| a.workspace).count(),
    }
}

/// Runs the cargo build `args` (JSON messages) in `workspace` into `target`
/// and returns what it compiled.
pub fn cargo_build(
    workspace: &Path,
    target: &Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> anyhow::Result<BuildWork> {
    cargo_artifacts(workspace, target, args, env).map(|a| work_of(&a))
}

/// Runs [`BENCH_BUILD`] in `workspace` into `target` and returns the
/// executables it built.
pub fn build_bench_executables(
    workspace: &Path,
    target: &Path,
) -> anyhow::Result<BenchExecutables> {
    build_bench_with(workspace, target, &BENCH_BUILD)
}

/// Runs the bench-profile build `args` (JSON messages; building at least the
/// `main` bench and `bench-ops`) with [`BENCH_PANIC_ENV`] and returns the
/// executables it built.
pub fn build_bench_with(
    workspace: &Path,
    target: &Path,
    args: &[&str],
) -> anyhow::Result<BenchExecutables> {
    let artifacts = cargo_artifacts(workspace, target, args, &[BENCH_PANIC_ENV])?;
    let exe = |kind: &str, name: &str| {
        artifacts
            .iter()
            .find(|a| a.kind == kind && a.name == name)
            .and_then(|a| a.executable.clone())
    };
    let (bench_exe, ops_exe) = (exe("bench", "main"), exe("bin", "bench-ops"));
    let harness_exe = exe("bin", "harness");
    let work = work_of(&artifacts);
    match (bench_exe, ops_exe) {
        (Some(bench_exe), Some(ops_exe)) => Ok(BenchExecutables {
            bench_exe,
            ops_exe,
            harness_exe,
            work,
        }),
        (b, o) => bail!(
            "`cargo {}` reported no executable for {}",
            args.join(" "),
            [
                (b.is_none(), "the `main` bench"),
                (o.is_none(), "`bench-ops`")
            ]
            .iter()
            .filter(|(missing, _)| *missing)
            .map(|(_, what)| *what)
            .collect::<Vec<_>>()
            .join(" and ")
        ),
    }
}

/// The `bench-ops` executable of [`BENCH_BUILD`].
fn build_bench_ops(workspace: &Path, target: &Path) -> anyhow::Result<PathBuf> {
    build_bench_executables(workspace, target).map(|b| b.ops_exe)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sky_is_built_only_when_a_process_row_may_run() {
        assert!(selects_process(None));
        assert!(selects_process(Some("^process/")));
        assert!(selects_process(Some("64-contexts")));
        assert!(selects_process(Some("(unclosed")));
        assert!(!selects_process(Some("^launch/")));
        assert!(!selects_process(Some("feasibility/aws")));
    }

    #[test]
    fn artifacts_name_the_executables() {
        let bench = r#"{"reason":"compiler-artifact","package_id":"path+file:///w/benches#0.1.0","target":{"kind":["bench"],"name":"main"},"executable":"/t/release/deps/main-1","fresh":false}"#;
        assert_eq!(
            artifact(bench),
            Some(Artifact {
                kind: "bench".into(),
                name: "main".into(),
                executable: Some("/t/release/deps/main-1".into()),
                fresh: false,
                workspace: true,
            })
        );
        let lib = r#"{"reason":"compiler-artifact","package_id":"registry+https://github.com/rust-lang/crates.io-index#serde@1.0.0","target":{"kind":["lib"],"name":"serde"},"executable":null,"fresh":true}"#;
        let lib = artifact(lib).unwrap();
        assert_eq!(
            (lib.executable, lib.fresh, lib.workspace),
            (None, true, false)
        );
        assert_eq!(
            artifact(r#"{"reason":"build-finished","success":true}"#),
            None
        );
        assert_eq!(artifact("not json"), None);
    }

    #[test]
    fn build_work_counts_what_was_compiled() {
        let a = |fresh, workspace| Artifact {
            kind: "lib".into(),
            name: "x".into(),
            executable: None,
            fresh,
            workspace,
        };
        let w = work_of(&[
            a(true, false),
            a(false, false),
            a(false, true),
            a(true, true),
        ]);
        assert_eq!(
            w,
            BuildWork {
                units: 4,
                compiled: 2,
                compiled_workspace: 1
            }
        );
        assert_eq!(w.text(), "2 of 4 units compiled (1 workspace)");
        assert_eq!(w.plus(w).units, 8);
    }

    #[test]
    fn one_cpu_keeps_the_thread_and_what_it_starts_to_one_cpu_until_dropped() {
        use rustix::thread::sched_getaffinity;
        let before = sched_getaffinity(None).expect("affinity").count();
        {
            let _one = OneCpu::keep(1);
            assert_eq!(sched_getaffinity(None).expect("affinity").count(), 1);
            // A child started meanwhile inherits the one CPU.
            let out = Command::new("nproc").output().expect("nproc runs");
            assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "1");
        }
        assert_eq!(sched_getaffinity(None).expect("affinity").count(), before);
    }
}
