//! Several login-node commands in one SSH invocation, as SkyPilot 0.14.1's
//! `SlurmClient._run_slurm_cmds` runs them: each command in the background
//! with its output in a temporary folder, then every result framed as
//! `<returncode> <stdout bytes> <stderr bytes>` followed by both outputs in
//! base64, after a `SKYPILOT_SLURM_BATCH` header (so a login banner printed
//! before the script cannot corrupt the frames).

use base64::Engine;
use planner::catalog::slurm::CommandOutput;

const HEADER: &str = "SKYPILOT_SLURM_BATCH";

/// The shell script that runs `commands` concurrently on the login node.
pub(super) fn script(commands: &[&str]) -> String {
    let mut lines = vec![
        "snapshot_dir=$(mktemp -d) || exit $?".to_string(),
        "cleanup_snapshot() { rm -rf -- \"${snapshot_dir:?}\"; }".to_string(),
        "trap cleanup_snapshot EXIT".to_string(),
    ];
    let path = |i: usize, ext: &str| format!("\"${{snapshot_dir}}/{i}.{ext}\"");
    for (i, command) in commands.iter().enumerate() {
        lines.push(format!(
            "( ( {command} ) > {} 2> {}; printf '%s\\n' \"$?\" > {} ) &",
            path(i, "stdout"),
            path(i, "stderr"),
            path(i, "returncode")
        ));
    }
    lines.push("wait".into());
    lines.push(format!("printf '%s\\n' {HEADER}"));
    for i in 0..commands.len() {
        lines.extend([
            format!("returncode=$(cat {}) || exit $?", path(i, "returncode")),
            format!(
                "base64 < {} > {} || exit $?",
                path(i, "stdout"),
                path(i, "stdout.b64")
            ),
            format!(
                "base64 < {} > {} || exit $?",
                path(i, "stderr"),
                path(i, "stderr.b64")
            ),
            format!(
                "stdout_size=$(wc -c < {}) || exit $?",
                path(i, "stdout.b64")
            ),
            format!(
                "stderr_size=$(wc -c < {}) || exit $?",
                path(i, "stderr.b64")
            ),
            "printf '%s %s %s\\n' \"$returncode\" \"$stdout_size\" \"$stderr_size\"".into(),
            format!("cat {} || exit $?", path(i, "stdout.b64")),
            format!("cat {} || exit $?", path(i, "stderr.b64")),
        ]);
    }
    lines.join("\n")
}

/// SkyPilot's `RuntimeError` for output that is not the frames it expects.
fn unexpected(what: &str) -> String {
    format!("RuntimeError: Unexpected output from concurrent Slurm inventory commands: {what}.")
}

/// Reads the frames of `n` commands from the script's standard output
/// (text before the header is skipped, as SkyPilot skips login banners).
pub(super) fn parse(stdout: &str, n: usize) -> Result<Vec<CommandOutput>, String> {
    let header = format!("{HEADER}\n");
    let start = stdout
        .find(&header)
        .ok_or_else(|| unexpected("missing header"))?;
    let bytes = &stdout.as_bytes()[start..];
    if !bytes.is_ascii() {
        return Err(unexpected("non-ASCII transport output"));
    }
    let mut offset = header.len();
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let end = bytes[offset..]
            .iter()
            .position(|b| *b == b'\n')
            .map(|p| offset + p)
            .ok_or_else(|| unexpected("missing frame header"))?;
        let frame = std::str::from_utf8(&bytes[offset..end]).unwrap_or_default();
        let invalid = || unexpected(&format!("invalid frame header b'{frame}'"));
        let fields: Vec<&str> = frame.split_whitespace().collect();
        let [rc, out_len, err_len] = fields[..] else {
            return Err(invalid());
        };
        let returncode: i32 = rc.parse().map_err(|_| invalid())?;
        let out_len: usize = out_len.parse().map_err(|_| invalid())?;
        let err_len: usize = err_len.parse().map_err(|_| invalid())?;
        offset = end + 1;
        let frame_end = offset
            .checked_add(out_len)
            .and_then(|x| x.checked_add(err_len))
            .filter(|e| *e <= bytes.len())
            .ok_or_else(|| unexpected("truncated frame"))?;
        let decode = |b: &[u8]| -> Result<String, String> {
            let compact: Vec<u8> = b
                .iter()
                .copied()
                .filter(|c| !c.is_ascii_whitespace())
                .collect();
            base64::engine::general_purpose::STANDARD
                .decode(compact)
                .map(|d| String::from_utf8_lossy(&d).into_owned())
                .map_err(|_| unexpected("invalid encoded output"))
        };
        out.push(CommandOutput {
            returncode,
            stdout: decode(&bytes[offset..offset + out_len])?,
            stderr: decode(&bytes[offset + out_len..frame_end])?,
        });
        offset = frame_end;
    }
    if offset != bytes.len() {
        return Err(unexpected("trailing data"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(s: &str) -> String {
        base64::engine::general_purpose::STANDARD.encode(s) + "\n"
    }

    #[test]
    fn frames_round_trip_through_a_shell() {
        let script = script(&["printf 'a\\nb'", "echo oops >&2; exit 3"]);
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!("echo 'Welcome to the login node'; {script}"))
            .output()
            .expect("bash runs");
        let got = parse(&String::from_utf8_lossy(&out.stdout), 2).expect("frames");
        assert_eq!(got[0], CommandOutput::ok("a\nb"));
        assert_eq!(
            got[1],
            CommandOutput {
                returncode: 3,
                stdout: String::new(),
                stderr: "oops\n".into()
            }
        );
    }

    #[test]
    fn malformed_frames_are_refused() {
        let good = format!(
            "0 {} {}\n{}{}",
            b64("x").len(),
            b64("").len(),
            b64("x"),
            b64("")
        );
        assert_eq!(
            parse(&format!("banner\n{HEADER}\n{good}"), 1),
            Ok(vec![CommandOutput::ok("x")])
        );
        let cases = [
            ("no header".to_string(), "missing header"),
            (format!("{HEADER}\n"), "missing frame header"),
            (format!("{HEADER}\nx y\n"), "invalid frame header b'x y'"),
            (format!("{HEADER}\n0 99 0\nAA==\n"), "truncated frame"),
            (format!("{HEADER}\n0 3 0\n!!!"), "invalid encoded output"),
            (format!("{HEADER}\n{good}extra"), "trailing data"),
            (format!("{HEADER}\n0 1 0\né"), "non-ASCII transport output"),
        ];
        for (text, what) in cases {
            assert_eq!(
                parse(&text, 1),
                Err(format!(
                    "RuntimeError: Unexpected output from concurrent Slurm inventory commands: {what}."
                )),
                "{text:?}"
            );
        }
    }
}
