//! A whole `sky launch`, as SkyPilot 0.14.1's CLI prints it
//! (`sky/client/cli/command.py::launch` and `_launch_with_confirm`): what
//! goes to stdout and what to stderr, in order.

use super::{explain, json, optimizer, overrides, pipeline, timings};
use crate::cloud::CloudId;
use crate::launch::{LaunchResult, Stage, TaskSource};
use crate::pytext::py_str_repr;
use crate::resources::{ErrorKind, RequestError};
use crate::task::{ClientNotice, ServiceKind};
use crate::text::{ansi, strip_ansi};

/// Where a line goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Standard output: the plan.
    Stdout,
    /// Standard error: warnings and errors.
    Stderr,
}

/// One line (or block) of output, with SkyPilot's ANSI colours.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// Where it goes.
    pub stream: Stream,
    /// The text, without a trailing newline.
    pub text: String,
}

impl Line {
    fn out(text: impl Into<String>) -> Line {
        Line {
            stream: Stream::Stdout,
            text: text.into(),
        }
    }

    fn err(text: impl Into<String>) -> Line {
        Line {
            stream: Stream::Stderr,
            text: text.into(),
        }
    }
}

/// The prefix SkyPilot's logger puts before every line when
/// `SKYPILOT_MINIMIZE_LOGGING` is off (`sky_logging._FORMAT`:
/// `I 12-01 09:30:00.123 PID=42 optimizer.py:758] `): the edge passes the
/// clock and the process id in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogPrefix {
    /// `%m-%d %H:%M:%S.mmm`, local time.
    pub time: String,
    /// The process id.
    pub pid: u32,
}

/// How the launch was asked for, as far as its output depends on it.
#[derive(Debug, Clone, Default)]
pub struct LaunchView<'a> {
    /// The cluster name.
    pub cluster: &'a str,
    /// `-o json`: the plan document instead of the text.
    pub json: bool,
    /// `-y`: no prompt, so SkyPilot names the cluster up front.
    pub yes: bool,
    /// `--dryrun`: stop after the plan.
    pub dryrun: bool,
    /// `--timings`: per-cloud check times after the plan.
    pub timings: bool,
    /// `SKYPILOT_MINIMIZE_LOGGING` is off (it is on by default): the
    /// optimizer also logs its target and the estimated cost, and every log
    /// line carries SkyPilot's prefix.
    pub full_logging: Option<LogPrefix>,
}

/// An error as SkyPilot's CLI prints an exception: `<kind>: <message>`.
pub fn error(e: &RequestError) -> String {
    match e.kind {
        ErrorKind::Unreadable => e.message.clone(),
        kind => format!("{}: {}", kind.python_name(), e.message),
    }
}

/// One warning line on stderr: `sky: warning: <text>`.
pub fn warning(text: &str) -> Line {
    Line::err(format!("sky: warning: {text}"))
}

/// `_warn_if_name_looks_like_file_path` for `sky launch -c`.
pub fn cluster_name_looks_like_path(name: &str) -> String {
    format!(
        "{}Cluster name {} looks like a file path. Did you mean: sky launch -c <cluster-name> {name}{}",
        ansi::YELLOW,
        py_str_repr(name),
        ansi::RESET
    )
}

/// The warning `--cloud`, `--region` and `--zone` print before anything
/// else (`click.secho`, so on stdout like SkyPilot's).
pub fn deprecated_location_flags() -> Line {
    Line::out(format!(
        "{}The --cloud, --region, and --zone options are deprecated. Use --infra instead.{}",
        ansi::YELLOW,
        ansi::RESET
    ))
}

/// Everything `sky launch` prints for `result` up to (not including) the
/// confirmation prompt.
pub fn launch(result: &LaunchResult, view: &LaunchView<'_>) -> Vec<Line> {
    let prepared = &result.prepared;
    let mut out: Vec<Line> = prepared.warnings.iter().map(|w| warning(w)).collect();
    out.extend(prepared.excluded.iter().map(|e| {
        Line::err(format!(
            "sky: warning: {} left out of the table: {}",
            e.cloud.repr(),
            e.reason
        ))
    }));
    if result.stage <= Stage::Overrides {
        out.extend(result.error().map(|e| Line::err(error(e))));
        return out;
    }
    if !view.json
        && let Some(header) = header(&result.source)
    {
        out.push(Line::out(header));
    }
    if !view.json {
        out.extend(
            result
                .client_notices
                .iter()
                .map(|n| Line::out(client_notice(n))),
        );
    }
    if result.stage == Stage::Validation {
        out.extend(result.error().map(|e| Line::err(error(e))));
        return out;
    }
    if !view.json {
        if view.yes {
            out.push(Line::out(format!(
                "{}Running on cluster: {}{}",
                ansi::CYAN,
                ansi::RESET,
                view.cluster
            )));
        }
        if result.ignores_job_recovery() {
            out.push(Line::out(format!(
                "{}The task has `job_recovery` specified, but is launched as an unmanaged job. It will be ignored.To enable job recovery, use managed jobs: sky jobs launch.{}",
                ansi::DIM,
                ansi::RESET
            )));
        }
        if result.uses_spot() {
            out.push(Line::out(format!(
                "{}{}Launching a spot job that does not automatically recover from preemptions. To get automatic recovery, use managed job instead: sky jobs launch or sky.jobs.launch().{}",
                ansi::YELLOW,
                ansi::BRIGHT,
                ansi::RESET
            )));
        }
    }
    if view.json {
        let doc = json::plan(result, view.cluster);
        out.push(Line::out(
            serde_json::to_string_pretty(&doc).unwrap_or_default(),
        ));
    } else {
        out.extend(optimizer::log(&result.optimized).into_iter().map(Line::out));
        if result.error().is_none() {
            out.extend(pipeline::example_prices(&prepared.example_prices).map(Line::out));
        }
    }
    if let Some(e) = result.error() {
        out.push(Line::err(error(e)));
    }
    if !view.json
        && let Some(explanation) = &result.explanation
    {
        out.extend(explain::text(explanation).into_iter().map(Line::out));
    }
    if view.timings {
        out.extend(timings::launch(prepared).into_iter().map(Line::out));
    }
    if result.error().is_none() && view.dryrun && !view.json {
        out.push(Line::out("Dryrun finished."));
        out.push(Line::out(""));
    }
    out
}

/// What SkyPilot's CLI says while it builds the task.
pub fn client_notice(notice: &ClientNotice) -> String {
    match notice {
        ClientNotice::OverridesIgnored(params) => format!(
            "{}WARNING: override params {} are ignored, since the yaml file contains multiple tasks.{}",
            ansi::YELLOW,
            overrides::override_params(params),
            ansi::RESET
        ),
        ClientNotice::ServiceIgnored(kind) => {
            let (noun, capnoun, sysname, cmd) = match kind {
                ServiceKind::Service => ("service", "Service", "SkyServe", "sky serve up"),
                ServiceKind::Pool => ("pool", "Pool", "Pool", "sky jobs pool apply"),
            };
            format!(
                "{y}{capnoun} section will be ignored when using `sky launch`. {r}\n{y}To spin up a {noun}, use {sysname} CLI: {r}{b}{cmd}{r}",
                y = ansi::YELLOW,
                r = ansi::RESET,
                b = ansi::BRIGHT
            )
        }
    }
}

/// `YAML to run: …` or `Command to run: …`.
fn header(source: &TaskSource) -> Option<String> {
    let (what, text) = match source {
        TaskSource::Yaml { path, .. } => ("YAML to run: ", path.as_str()),
        TaskSource::Command(command) => ("Command to run: ", command.as_str()),
        TaskSource::Flags | TaskSource::Unreadable { .. } => return None,
    };
    Some(format!("{}{what}{}{text}", ansi::CYAN, ansi::RESET))
}

/// The confirmation prompt (no newline: the answer follows on the line).
pub fn prompt(cluster: &str) -> String {
    format!(
        "Launching a new cluster {}. Proceed? [Y/n]: ",
        py_str_repr(cluster)
    )
}

/// Said on stderr when `-o json` without `-y` ends a launch that would
/// otherwise go to SkyPilot: no question was asked, so nothing is launched.
pub const JSON_NOT_HANDED_OFF: &str = "sky: not launched: -o json asks no question, so the plan was not handed to SkyPilot; add -y to launch it.";

/// What a declined prompt prints.
pub const ABORTED: &str = "Aborted!";

/// SkyPilot's question about an entrypoint that looks like a task YAML
/// path but is not a readable one (`sky/client/cli/command.py::_check_yaml`,
/// asked even with `-y`); `reason` is `_check_yaml_only`'s. No newline: the
/// answer follows on the line.
pub fn yaml_doubt_question(entrypoint: &str, reason: &str) -> String {
    format!(
        "{}{} looks like a yaml path but {reason}{}\nIt will be treated as a command to be run remotely. Continue? [y/N]: ",
        ansi::YELLOW,
        py_str_repr(entrypoint),
        ansi::RESET
    )
}

/// Ours, for a person at a terminal: the clouds the task names that
/// `SKY_ENABLED_CLOUDS` (`declared`) leaves out. SkyPilot's hint beside
/// them ("run: sky check gcp") cannot help there (the variable, not a
/// check, decides what is enabled), so this says what does. `None`: no
/// such cloud.
pub fn undeclared_hint(result: &LaunchResult, declared: &[CloudId]) -> Option<Line> {
    let dag = result.dag.as_ref()?;
    let mut clouds: Vec<&str> = Vec::new();
    for task in &dag.tasks {
        for cloud in task.resources.all().iter().filter_map(|r| r.cloud) {
            if !declared.contains(&cloud) && !clouds.contains(&cloud.name()) {
                clouds.push(cloud.name());
            }
        }
    }
    if clouds.is_empty() {
        return None;
    }
    let them = if clouds.len() > 1 { "them" } else { "it" };
    Some(Line::err(format!(
        "sky: hint: SKY_ENABLED_CLOUDS decides the enabled clouds here and does not name {}: `sky check` cannot enable {them}; add {them} to SKY_ENABLED_CLOUDS instead.",
        clouds.join(", "),
    )))
}

/// The optimizer's output as `sky launch --dryrun` prints it, ANSI stripped:
/// its log, then the error that ended it (what the harness and the tests
/// compare).
pub fn text(result: &LaunchResult) -> String {
    let mut out = String::new();
    for l in optimizer::log(&result.optimized) {
        out.push_str(&strip_ansi(&l));
        out.push('\n');
    }
    if let Some(e) = result.error() {
        out.push_str(&strip_ansi(&error(e)));
        out.push('\n');
    }
    out
}
