//! py-spy's raw output (folded stacks, one line per stack with its count)
//! made into the harness's [`Folded`] stacks, so SkyPilot's profile is drawn
//! with the same inferno options as `sky`'s.
//!
//! py-spy runs with `--subprocesses`: the stacks of the driver process start
//! with a `process <pid>:"<command>"` frame, and those of its children (`aws
//! configure list`, the shell around it) continue below the frame of the
//! process that started them. Process frames become `subprocess: <command>`
//! (paths shortened to file names, no pid); the driver's own frame is
//! replaced by `root`. Samples without a Python frame (the interpreter
//! starting or exiting) keep a frame saying so.

use crate::flame::Folded;
use crate::flame::folded::frame;

/// The frame of samples that had no Python frame.
pub const NO_PYTHON_FRAME: &str = "(no Python frame: interpreter start-up, exit or native code)";

/// Frames of Python's import system (`_find_and_load (<frozen
/// importlib._bootstrap>)`, ...): left out, so an import reads as the chain
/// of modules being imported (`<module> (sky/__init__.py);<module>
/// (sky/clouds/aws.py)`), not five frames of machinery per module.
fn is_import_machinery(f: &str) -> bool {
    f.contains("(<frozen importlib._bootstrap") || f.starts_with("_call_with_frames_removed ")
}

/// `process 123:"/x/bin/python3 /x/bin/aws configure list"` → `subprocess: python3 aws configure list`.
fn process_frame(f: &str) -> Option<String> {
    let rest = f.strip_prefix("process ")?;
    let (_, cmd) = rest.split_once(':')?;
    let cmd = cmd.trim().trim_matches('"');
    let words: Vec<&str> = cmd
        .split_whitespace()
        .map(|w| w.rsplit('/').next().unwrap_or(w))
        .collect();
    Some(format!("subprocess: {}", words.join(" ")))
}

/// The driver's stacks of a py-spy raw profile under `root`; returns them
/// and the number of samples.
pub fn from_raw(text: &str, root: &str) -> (Folded, u64) {
    let mut out = Folded::new();
    let mut total = 0;
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let Some((stack, count)) = line.rsplit_once(' ') else {
            continue;
        };
        let Ok(count) = count.parse::<u64>() else {
            continue;
        };
        let mut frames: Vec<String> = vec![frame(root)];
        for (i, f) in stack.split(';').enumerate() {
            if (i == 0 && f.starts_with("process ")) || is_import_machinery(f) {
                continue;
            }
            match process_frame(f) {
                Some(p) => frames.push(frame(&p)),
                None => frames.push(frame(f)),
            }
        }
        if frames.len() == 1 {
            frames.push(NO_PYTHON_FRAME.to_string());
        }
        *out.entry(frames.join(";")).or_default() += count;
        total += count;
    }
    (out, total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn process_frames_become_subprocesses_and_the_root_is_ours() {
        let raw = "process 1:\"/v/bin/python /h/driver.py launch --result r -- --gpus H100:8\";<module> (driver.py);main (driver.py) 7\n\
                   process 1:\"/v/bin/python /h/driver.py launch\";f (x.py);process 2:\"/bin/sh -c aws configure list\";process 3:\"/v/bin/python3 /v/bin/aws configure list\";main (aws) 3\n\
                   process 1:\"/v/bin/python /h/driver.py launch\" 2\n";
        let (f, n) = from_raw(raw, "SkyPilot 0.14.1, warm");
        assert_eq!(n, 12);
        assert_eq!(
            f["SkyPilot 0.14.1, warm;<module> (driver.py);main (driver.py)"],
            7
        );
        assert_eq!(
            f["SkyPilot 0.14.1, warm;f (x.py);subprocess: sh -c aws configure list;subprocess: python3 aws configure list;main (aws)"],
            3
        );
        assert_eq!(f[&format!("SkyPilot 0.14.1, warm;{NO_PYTHON_FRAME}")], 2);
        let import = "process 1:\"p driver.py\";<module> (driver.py);_find_and_load (<frozen importlib._bootstrap>);_call_with_frames_removed (<frozen importlib._bootstrap>);<module> (sky/__init__.py) 4\n";
        let (f, _) = from_raw(import, "r");
        assert_eq!(f["r;<module> (driver.py);<module> (sky/__init__.py)"], 4);
    }
}
