//! The one-line status `sky` shows on a terminal while slow cloud checks
//! run: "Checking infra choices..." and the clouds still pending, as
//! SkyPilot's status spinner does (`sky.check.check_capabilities`). It
//! appears only when the checks take longer than [`SHOW_AFTER`] and is erased
//! before anything else is printed, so a fast launch looks exactly like a
//! piped one. It shows the time since the checks started against the
//! per-cloud deadline (`2.4s / 5s`), is plain with `NO_COLOR`, and is
//! replaced by "Interrupted" when a signal ends the run.

use std::io::IsTerminal;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use optimizer::clouds::FanOutObserver;
use planner::cloud::CloudId;

/// How long the checks may take before the status line appears.
pub const SHOW_AFTER: Duration = Duration::from_millis(300);

/// SkyPilot's spinner (rich's `dots`).
const TICKS: &[&str] = &["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏", "⠋"];

/// The status line for one fan-out; erased when the fan-out ends or when this
/// is dropped (an interrupted launch), whichever comes first.
#[derive(Debug)]
pub struct PendingStatus {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    /// The per-cloud deadline shown beside the elapsed time.
    deadline: Duration,
    /// ANSI colours (`NO_COLOR` unset or empty).
    color: bool,
    state: Mutex<State>,
    /// Wakes the thread that waits [`SHOW_AFTER`] when the fan-out ends first.
    ended: Condvar,
}

#[derive(Debug, Default)]
struct State {
    pending: Vec<CloudId>,
    bar: Option<ProgressBar>,
    done: bool,
}

impl PendingStatus {
    /// A status line on stderr for checks with this per-cloud `deadline`,
    /// or `None` when stderr is not a terminal (a pipe, a CI log) or
    /// `TERM=dumb`: nothing is ever drawn there.
    pub fn on_stderr(deadline: Duration) -> Option<Arc<PendingStatus>> {
        let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
        let color = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
        (std::io::stderr().is_terminal() && !dumb).then(|| {
            Arc::new(PendingStatus {
                shared: Arc::new(Shared {
                    deadline,
                    color,
                    state: Mutex::default(),
                    ended: Condvar::new(),
                }),
            })
        })
    }

    /// A signal ends the run: a status line on screen becomes
    /// "Interrupted"; none drawn yet, none will be.
    pub fn interrupted(&self) {
        let mut state = self.shared.lock();
        state.done = true;
        if let Some(bar) = state.bar.take() {
            if let Ok(plain) = ProgressStyle::with_template("{msg}") {
                bar.set_style(plain);
            }
            // Left on screen, its line ended (indicatif leaves the cursor
            // on it; the shell's prompt would follow on the same line).
            bar.finish_with_message("Interrupted");
            eprintln!();
        }
        self.shared.ended.notify_all();
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves plain data behind: keep going.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn end(&self) {
        let mut state = self.lock();
        state.done = true;
        if let Some(bar) = state.bar.take() {
            bar.finish_and_clear();
        }
        self.ended.notify_all();
    }
}

fn message(pending: &[CloudId], color: bool) -> String {
    let names: Vec<&str> = pending.iter().map(|c| c.repr()).collect();
    let (bold, reset) = if color {
        ("\x1b[1;36m", "\x1b[0m")
    } else {
        ("", "")
    };
    format!(
        "{bold}Checking infra choices...{reset} ({} pending: {})",
        names.len(),
        names.join(", ")
    )
}

/// The spinner, the message, and the time since `started` against the
/// deadline (`1.2s / 5s`).
fn spinner(started: Instant, deadline: Duration, color: bool) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    let template = if color {
        "{spinner:.green} {msg} {clock:.dim}"
    } else {
        "{spinner} {msg} {clock}"
    };
    let style = ProgressStyle::with_template(template)
        .unwrap_or_else(|_| ProgressStyle::default_spinner())
        .with_key(
            "clock",
            move |_: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(
                    w,
                    "{:.1}s / {}s",
                    started.elapsed().as_secs_f64(),
                    deadline.as_secs_f64()
                );
            },
        )
        .tick_strings(TICKS);
    bar.set_style(style);
    bar
}

impl FanOutObserver for PendingStatus {
    fn started(&self, clouds: &[CloudId]) {
        let started = Instant::now();
        self.shared.lock().pending = clouds.to_vec();
        let shared = Arc::clone(&self.shared);
        // A plain thread, not a tokio task: the runtime's one thread is busy
        // with the checks, and the line must appear on time.
        let spawned = std::thread::Builder::new()
            .name("sky-status".into())
            .spawn(move || {
                let state = shared.lock();
                let (mut state, _) = shared
                    .ended
                    .wait_timeout_while(state, SHOW_AFTER, |s| !s.done)
                    .unwrap_or_else(|e| e.into_inner());
                if state.done || state.pending.is_empty() {
                    return;
                }
                let bar = spinner(started, shared.deadline, shared.color);
                bar.set_message(message(&state.pending, shared.color));
                bar.enable_steady_tick(Duration::from_millis(100));
                state.bar = Some(bar);
            });
        // Without a thread there is no status line; the launch goes on.
        drop(spawned);
    }

    fn finished(&self, cloud: CloudId) {
        let mut state = self.shared.lock();
        state.pending.retain(|c| *c != cloud);
        let text = message(&state.pending, self.shared.color);
        if let Some(bar) = &state.bar {
            bar.set_message(text);
        }
    }

    fn done(&self) {
        self.shared.end();
    }
}

impl Drop for PendingStatus {
    fn drop(&mut self) {
        self.shared.end();
    }
}
