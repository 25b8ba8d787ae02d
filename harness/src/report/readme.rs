//! A report's `README.md`: what the numbers say first, then the pictures,
//! the tables, how every number is made, the machine, and how to open each
//! file (all of them offline).

use std::fmt::Write as _;

use super::{Drawn, MIN_DRAWN_SAMPLES, ReportInput, TARGET_SAMPLES, drawn, short_rev, tables};
use crate::engine::Mode;
use crate::flame::CPU_SAMPLE_HZ;
use crate::skypilot::launcher::PY_SPY_RATE;
use crate::summary::comparison_markdown;

fn profile_line(samples: u64, what: &str, file: &str) -> String {
    match drawn(samples) {
        Drawn::Drawn if samples >= TARGET_SAMPLES => {
            format!("[{file}]({file}): {what}, **{samples} samples**.")
        }
        Drawn::Drawn => format!(
            "[{file}]({file}): {what}, **{samples} samples** (below the {TARGET_SAMPLES} aimed for: read the wide frames only)."
        ),
        Drawn::TooThin => format!(
            "{what}: **too thin to draw — {samples} samples** (fewer than {MIN_DRAWN_SAMPLES}); the stacks are in `{}` all the same.",
            file.replace("-flamegraph.svg", ".folded")
        ),
    }
}

/// `README.md`.
pub fn readme(r: &ReportInput<'_>) -> String {
    let i = r.instrumented;
    let with_skypilot = r.skypilot.is_some();
    let mut s = format!(
        "# `{}`: where `sky launch` spends its time{}\n\n{}\n\n",
        r.scenario.name,
        if with_skypilot {
            ", and SkyPilot 0.14.1's"
        } else {
            ""
        },
        r.scenario.file.description
    );
    let _ = writeln!(
        s,
        "Measured {} at git `{}`, load average {} (1, 5, 15 min) on {} ({} cores). Reproduce from the workspace root:\n\n```sh\n{}\n```\n",
        r.sys.timestamp,
        short_rev(&r.sys.git),
        r.sys.load,
        r.sys.cpu,
        r.sys.cores,
        r.command
    );
    s.push_str("## What the numbers say\n\n");
    for line in r.story {
        let _ = writeln!(s, "- {line}");
    }
    s.push('\n');
    s.push_str(&comparison_markdown(r.summaries));
    let _ = write!(
        s,
        "\nTimes in ms, medians over the measured launches of each mode ({}). **floor**: the mocked latency on the launch's critical path — the heaviest chain of mocked requests it made one after another; **overhead** = wall − floor, per launch: the launcher's own time on the critical path. **vs serial**: how many times faster than `sky` checking one cloud after another.\n\n",
        if r.engine.starts_with("in-process") {
            "`sky`'s timed around the call into `optimizer::launch::run`; SkyPilot's, if any, from spawn to exit"
        } else {
            "every launch timed from spawn to exit"
        }
    );

    s.push_str("## Where each launch spends its time\n\n![Timeline: one traced launch per mode on a shared time axis](timeline.svg)\n\n");
    if !r.timelines.is_empty() {
        let zoomed: Vec<String> = r
            .timelines
            .iter()
            .map(|t| format!("[{}](timeline-{}.svg)", t.mode.label(), t.mode.name()))
            .collect();
        let _ = writeln!(
            s,
            "Each mode on its own time axis: {}. Light bars: the launcher at work (spans of its own trace); dark bars: a mocked request outstanding. Every figure below is from the same traced launches.\n",
            zoomed.join(" · ")
        );
        s.push_str(&tables::where_time_goes(r.timelines));
        s.push('\n');
        s.push_str(rows_explained(with_skypilot));
    }

    s.push_str("\n## Every launch\n\n![Distribution: wall time of every measured launch, per mode, log scale](distribution.svg)\n\n");
    s.push_str("Each point is one measured launch; the tall tick is the median, the short one p90, the triangle the median floor. The axis is logarithmic so a 5 ms and a 5 s launch share it.\n\n");

    s.push_str("## Requests per launch (mean), by endpoint\n\nWhat the mocks received, averaged over each mode's measured launches: an endpoint absent here was never called, so its latency is on no path.\n\n");
    s.push_str(&tables::requests_table(r.summaries));

    if let Some((dir, b)) = r.baseline {
        let _ = write!(
            s,
            "\n## Against the baseline\n\nBaseline: `{}`. A mode is faster or slower only when the 95 % bootstrap interval of the difference of medians (2,000 resamples of each side's measured launches) excludes zero; its half-width is the noise of the two runs. A span stack (inclusive time, median of {} traced in-process launches per mode) is changed only when its change exceeds its own spread over those launches.\n\n",
            dir.display(),
            i.spans_rounds.len()
        );
        s.push_str(&tables::baseline_tables(b));
        s.push_str("\nDifferential flamegraphs: [diff-spans-forward.svg](diff-spans-forward.svg), [diff-spans-reverse.svg](diff-spans-reverse.svg)");
        if b.base_cpu.is_some() {
            s.push_str(", [diff-cpu-forward.svg](diff-cpu-forward.svg), [diff-cpu-reverse.svg](diff-cpu-reverse.svg)");
        }
        s.push_str(". Legend (also in each SVG's subtitle): **red** = a larger share of the time now than in the baseline, **blue** = a smaller share; the deeper the colour, the larger the change; both profiles are scaled to the same total first, so a uniformly slower machine paints nothing. *Forward* draws the current profile's shape, *reverse* the baseline's (what disappeared). Absolute changes and their noise are in the tables above.\n");
    }

    s.push_str("\n## Profiles\n\n");
    let _ = writeln!(
        s,
        "- [spans-flamegraph.svg](spans-flamegraph.svg): wall-clock time by span of one in-process `sky` launch per mode (µs of self time; concurrent children add up to more than their parent). This is where `sky` waits.",
    );
    let _ = writeln!(
        s,
        "- {}",
        profile_line(
            i.cpu_samples_kept,
            &format!(
                "`sky`'s on-CPU profile (pprof at {CPU_SAMPLE_HZ} Hz, the launch threads of {} in-process launches: the traced ones and {} untraced warm ones; {} samples in all, the rest were the mocks)",
                i.traced.len() + i.cpu_only.len(),
                i.cpu_only.len(),
                i.cpu_samples_total
            ),
            "cpu-flamegraph.svg"
        )
    );
    if with_skypilot {
        let _ = writeln!(
            s,
            "- {}",
            profile_line(
                r.traced.skypilot_samples,
                &format!(
                    "SkyPilot 0.14.1's on-CPU profile (py-spy at {PY_SPY_RATE} Hz per thread, `--nonblocking --subprocesses`, {} launches made for it, one root frame per mode; its `aws configure list` subprocess included)",
                    r.traced.skypilot_profiled
                ),
                "skypilot-cpu-flamegraph.svg"
            )
        );
    }
    s.push_str("\nOn-CPU sampling cannot see a launch waiting for the network: a launch that waits 1 s for STS looks cheap there. The timeline and the span flamegraph show the waiting.\n");

    s.push_str("\n## Mocked latency models and faults\n\nEvery mode gets a fresh set of mocks with the same seeds, so each mode sees the same latency sequence.\n\n");
    s.push_str(&tables::latency_table(&r.scenario.file.mocks));
    if !r.scenario.file.notes.is_empty() {
        s.push_str("\n## Scenario notes\n\n");
        for n in &r.scenario.file.notes {
            let _ = writeln!(s, "- {n}");
        }
    }
    s.push_str(&how_computed(r));
    s.push_str(&this_run(r));
    s.push_str(&files(r));
    s
}

fn rows_explained(with_skypilot: bool) -> &'static str {
    if with_skypilot {
        "\nRows: **start-up** — `sky`: process start to `configure` (parse flags, start the runtime); SkyPilot: Python start-up, `import sky`, the task built from the flags by its click command, `dag.validate()`. **one row per cloud** — `sky`: its `cloud_check` span; SkyPilot: that cloud's `get_feasible_launchable_resources` (which loads its catalog and, for AWS, asks STS and EC2), and for GCP the `gcloud compute reservations list` subprocesses it runs after every cloud's check. **catalogs** — `sky`: `gather_catalogs` (beside the checks); SkyPilot: each catalog CSV pandas reads. **plan & print** — `sky`: `build_world`, `plan`, `render`, `output`; SkyPilot: `Optimizer.optimize` outside the checks, reservations and catalog reads it contains. **exit** — `sky`: `shutdown` to the process's exit; SkyPilot: from the driver's last word to the interpreter's exit (atexit handlers, SkyPilot's timeline written). **other clouds** — clouds whose checks read credential files only (no mocked endpoint). Rows overlap where work runs side by side. In brackets: the part of a row's time spent waiting on mocked requests.\n"
    } else {
        "\nRows: **start-up** — process start to `configure` (parse flags, start the runtime); **one row per cloud** — its `cloud_check` span; **catalogs** — `gather_catalogs` (beside the checks); **plan & print** — `build_world`, `plan`, `render`, `output`; **exit** — `shutdown` to the process's exit; **other clouds** — clouds whose checks read credential files only. Rows overlap where work runs side by side. In brackets: the part of a row's time spent waiting on mocked requests.\n"
    }
}

fn how_computed(r: &ReportInput<'_>) -> String {
    let mut s = String::from("\n## How the numbers are computed\n\n");
    s.push_str("- **Modes of `sky`.** *serial, no cache*: `SKY_FANOUT=serial sky launch --refresh` (one cloud after another: SkyPilot before its thread pool). *concurrent, no cache*: `sky launch --refresh`. *concurrent, warm cache*: `sky launch` with the state directory its warm-up launch filled (the AWS identity, Kubernetes node lists and GCP reservations are cached there; the request counts above show what each mode still asks). The catalog images `sky` builds from the CSVs are kept in every mode (they never change an answer).\n");
    if r.skypilot.is_some() {
        s.push_str("- **Modes of SkyPilot 0.14.1.** One fresh Python process per launch (`harness/skypilot/driver.py`) doing what `sky launch --dryrun -y <flags>` does up to the table: `import sky`, the click command building the task, `dag.validate()`, `Optimizer.optimize` (its thread pool over the enabled clouds, then the reservations). 0.14.1's API server is not started: the request runs in the process, as SkyPilot ran it before the server and as a server worker runs it. *no cache*: a first launch on the machine. *warm*: what SkyPilot keeps between launches, filled by its warm-up launch — the zone-name file and the identity file `aws configure list` keys; it caches nothing else across processes (the request counts above show it).\n");
        s.push_str("- **SkyPilot's machine.** A sandbox HOME: `~/.sky/catalogs/v8` holds the same catalog files `sky` reads (without md5 records, so it never downloads them), `~/.sky/config.yaml` the scenario's config, `~/.sky/state.db` the enabled clouds as `sky check` records them. Its environment points it at the same mocks: fake AWS keys with `AWS_DEFAULT_REGION`, `AWS_ENDPOINT_URL_STS` and `_EC2` (boto3 and the AWS CLI honour them), a kubeconfig of the kube mocks, and first on `PATH` a `gcloud` that answers `gcloud compute reservations list` from the GCP mock (the harness binary, `harness gcloud`). The driver refuses every connection and name lookup that is not loopback; a launch that tried one fails the run.\n");
    }
    s.push_str("- **Wall time**: from spawning the process to its exit (`sky`'s process engine and SkyPilot alike), or around `optimizer::launch::run` (in-process engine).\n");
    s.push_str("- **Floor** (per launch, from the mocks' recordings of that launch): the mocked latency on the launch's critical path — of every sequence of recorded requests in which each one arrived after the one before it was answered, the one whose delays add up to the most (a hung request counting up to the client's per-attempt timeout, nothing past the launch's exit). Requests that overlapped cannot both count, so it needs no model of the launcher: concurrent checks give the slowest chain, serial ones the sum, SkyPilot's thread pool of `os.cpu_count()` threads over the AWS regions gives its rounds, and its reservations after the checks add to them. Endpoints never called add nothing. That chain is the **critical path** in summary.md.\n");
    s.push_str("- **Overhead** = wall − floor, per launch; the table shows its median and p90: process start-up, imports, catalog parsing not hidden behind the network, client set-up, retry backoff, starting a request late, and the optimizer itself.\n");
    s.push_str("- **p90** is nearest-rank; with 10 runs it is the 9th value.\n");
    let _ = writeln!(
        s,
        "- **Traced and profiled launches** are made after the timed ones with the same mocks and state, and are not part of the statistics (their timings are in raw.json: `instrumented`, `traced_processes`): one in-process launch per `sky` mode{} (trace.json, span flamegraph), {} untraced warm in-process launches (`sky`'s CPU profile), one process launch per mode made like its timed ones (the timelines), and per SkyPilot mode one more under py-spy (its CPU profile; more warm ones while it has fewer than {TARGET_SAMPLES} samples).",
        if r.instrumented.spans_rounds.len() > 1 {
            format!(" × {} rounds", r.instrumented.spans_rounds.len())
        } else {
            String::new()
        },
        r.instrumented.cpu_only.len()
    );
    s
}

fn this_run(r: &ReportInput<'_>) -> String {
    let mut s = String::from("\n## This run\n\n| | |\n|---|---|\n");
    let _ = writeln!(s, "| started | {} |", r.sys.timestamp);
    let _ = writeln!(s, "| git revision | `{}` |", r.sys.git);
    let _ = writeln!(s, "| rustc | `{}` |", r.sys.rustc);
    let _ = writeln!(
        s,
        "| CPU | {} ({} cores available) |",
        r.sys.cpu, r.sys.cores
    );
    let _ = writeln!(
        s,
        "| load average at start | {} (1, 5, 15 min; other work on the machine competes with the launches) |",
        r.sys.load
    );
    let _ = writeln!(
        s,
        "| build profile | {} (harness and `sky` come from the same `target/<profile>/`) |",
        r.sys.profile
    );
    let _ = writeln!(s, "| `sky` engine | {} |", r.engine);
    let _ = writeln!(
        s,
        "| `sky` arguments | `{}` |",
        crate::engine::ProcessLauncher::args(r.scenario, Mode::Concurrent).join(" ")
    );
    if let Some(sp) = r.skypilot {
        let _ = writeln!(
            s,
            "| SkyPilot | 0.14.1 from `{}`, `sky launch --dryrun -y {}`, {} measured + {} warm-up launches per mode |",
            sp.venv.root.display(),
            r.scenario.file.request.skypilot_args().join(" "),
            sp.runs,
            sp.warmup
        );
    }
    let _ = writeln!(
        s,
        "| runs | {} measured + {} warm-up per `sky` mode (the warm modes always get at least one warm-up, which fills their caches) |",
        r.runs, r.warmup
    );
    let _ = writeln!(
        s,
        "| deadlines | cloud {:?}, global {:?}, STS attempt {:?}, kube attempt {:?}, kube context {:?} |",
        r.deadlines.cloud,
        r.deadlines.global,
        r.deadlines.sts_attempt,
        r.deadlines.kube_attempt,
        r.deadlines.kube_context
    );
    let _ = writeln!(s, "| harness wall time | {:.1} s |", r.elapsed_s);
    s
}

fn files(r: &ReportInput<'_>) -> String {
    let mut s = String::from(
        "\n## Files, and how to open them\n\nEverything opens offline: SVGs in any browser (GitHub shows them inline; the flamegraphs are interactive — click to zoom, Ctrl-F to search), Markdown and text anywhere.\n\n| file | what it is | open with |\n|---|---|---|\n",
    );
    s.push_str("| README.md, summary.md | this page; the comparison with critical paths, exit codes and requests per launch | any Markdown viewer |\n");
    s.push_str("| timeline.svg, timeline-&lt;mode&gt;.svg | where each traced launch spent its time, every mode on one axis, then each on its own | a browser |\n");
    s.push_str(
        "| distribution.svg | every measured launch's wall time per mode, log axis | a browser |\n",
    );
    s.push_str("| spans-flamegraph.svg, spans.folded | wall-clock span time of `sky`'s in-process launches | a browser; `.folded` with inferno or speedscope |\n");
    s.push_str("| cpu-flamegraph.svg, cpu.folded | `sky`'s on-CPU samples (the SVG only when thick enough, see Profiles) | a browser |\n");
    if r.skypilot.is_some() {
        s.push_str("| skypilot-cpu-flamegraph.svg, skypilot-cpu.folded | SkyPilot's py-spy samples (the SVG only when thick enough) | a browser |\n");
        s.push_str("| skypilot-output.txt | SkyPilot's table of its first measured launch | a text editor |\n");
    }
    s.push_str("| trace.json | Chrome trace of `sky`'s in-process launches (`TraceStyle::Async`: a root span `launch <mode>` per launch, one async track per `cloud_check <cloud>`) | ui.perfetto.dev or chrome://tracing (they load the file locally); the timeline SVG shows the same launches offline |\n");
    s.push_str("| traces/sky-&lt;mode&gt;.json, traces/skypilot-&lt;mode&gt;.json | the traced process launches behind the timelines: `sky`'s Chrome trace (`SKYPILOT_TIMELINE_FILE_PATH`), SkyPilot's own timeline (the same variable; `harness: ...` events added by the driver) | as trace.json |\n");
    s.push_str("| raw.json | every launch (`samples`, warm-ups flagged; per request its arrival, delay and status), summaries, the timelines' bars, instrumented and traced launches, scenario, deadlines, machine facts (schema `harness-raw/v2`) | any JSON viewer |\n");
    s.push_str("| scenario.toml, optimizer-output.txt | the scenario as run; `sky`'s table of the first measured concurrent launch | a text editor |\n");
    if r.baseline.is_some() {
        s.push_str("| diff-*-forward.svg, diff-*-reverse.svg | differential flamegraphs against the baseline (legend in Against the baseline) | a browser |\n");
    }
    s
}
