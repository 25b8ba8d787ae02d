//! Thresholds (`benches/thresholds.toml`): how much slower a benchmark may
//! get before it regresses, with per-benchmark overrides by glob.

use std::path::Path;

use serde::Deserialize;

use super::GateError;

/// Thresholds (`benches/thresholds.toml`): defaults plus per-benchmark
/// overrides selected by glob patterns (`*` matches anything, `/` included;
/// later overrides win).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Thresholds {
    /// Wall-clock threshold in percent (default 10).
    #[serde(default = "default_time_pct")]
    pub time_pct: f64,
    /// Instruction-count threshold in percent (default 2).
    #[serde(default = "default_instructions_pct")]
    pub instructions_pct: f64,
    /// Threshold in percent for the change of a ratio of medians (a
    /// benchmark against its reference, e.g. the process floor; default 10).
    #[serde(default = "default_ratio_pct")]
    pub ratio_pct: f64,
    /// Peak-RSS threshold in percent (whole-process benchmarks; default 10).
    #[serde(default = "default_rss_pct")]
    pub rss_pct: f64,
    /// Minimum absolute slowdown (ms) a wall-clock regression must also show (default 0).
    #[serde(default)]
    pub min_abs_ms: f64,
    /// Above this many cores of other processes' load (average, in either
    /// run) wall-clock regressions are reported as inconclusive instead of
    /// failing; instruction counts still gate (default 0.25).
    #[serde(default = "default_max_foreign_cores")]
    pub max_foreign_cores: f64,
    /// Per-benchmark overrides.
    #[serde(default, rename = "override")]
    pub overrides: Vec<Override>,
}

fn default_time_pct() -> f64 {
    10.0
}

fn default_instructions_pct() -> f64 {
    2.0
}

fn default_ratio_pct() -> f64 {
    10.0
}

fn default_rss_pct() -> f64 {
    10.0
}

fn default_max_foreign_cores() -> f64 {
    0.25
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            time_pct: 10.0,
            instructions_pct: 2.0,
            ratio_pct: default_ratio_pct(),
            rss_pct: default_rss_pct(),
            min_abs_ms: 0.0,
            max_foreign_cores: default_max_foreign_cores(),
            overrides: Vec::new(),
        }
    }
}

/// One `[[override]]` table.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Override {
    /// Glob over benchmark ids, e.g. `launch/*/seed-7-clouds`.
    pub pattern: String,
    /// Replaces [`Thresholds::time_pct`].
    pub time_pct: Option<f64>,
    /// Replaces [`Thresholds::instructions_pct`].
    pub instructions_pct: Option<f64>,
    /// Replaces [`Thresholds::ratio_pct`].
    pub ratio_pct: Option<f64>,
    /// Replaces [`Thresholds::rss_pct`].
    pub rss_pct: Option<f64>,
    /// Replaces [`Thresholds::min_abs_ms`].
    pub min_abs_ms: Option<f64>,
    /// Time (wall or CPU) only informs, never fails: for benchmarks whose
    /// time varies between processes beyond any useful threshold; their
    /// instruction counts still gate.
    pub time_advisory: Option<bool>,
    /// Why (shown nowhere; for reviewers of the file).
    pub reason: Option<String>,
}

/// The limits that apply to one benchmark.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// Wall-clock threshold (fraction).
    pub time: f64,
    /// Instruction threshold (fraction).
    pub instructions: f64,
    /// Ratio threshold (fraction).
    pub ratio: f64,
    /// Peak-RSS threshold (fraction).
    pub rss: f64,
    /// Minimum absolute slowdown (ns).
    pub min_abs_ns: f64,
    /// Time slowdowns are reported, not failed.
    pub time_advisory: bool,
}

impl Thresholds {
    /// Reads the file; a missing file gives the defaults.
    pub fn load(path: &Path) -> Result<Thresholds, GateError> {
        match std::fs::read_to_string(path) {
            Ok(text) => toml::from_str(&text).map_err(|e| GateError::Parse {
                path: path.to_path_buf(),
                message: e.to_string(),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Thresholds::default()),
            Err(source) => Err(GateError::Io {
                path: path.to_path_buf(),
                source,
            }),
        }
    }

    /// The limits for `id`.
    pub fn limits(&self, id: &str) -> Limits {
        let mut l = Limits {
            time: self.time_pct / 100.0,
            instructions: self.instructions_pct / 100.0,
            ratio: self.ratio_pct / 100.0,
            rss: self.rss_pct / 100.0,
            min_abs_ns: self.min_abs_ms * 1e6,
            time_advisory: false,
        };
        for o in self.overrides.iter().filter(|o| glob_match(&o.pattern, id)) {
            if let Some(v) = o.time_pct {
                l.time = v / 100.0;
            }
            if let Some(v) = o.instructions_pct {
                l.instructions = v / 100.0;
            }
            if let Some(v) = o.ratio_pct {
                l.ratio = v / 100.0;
            }
            if let Some(v) = o.rss_pct {
                l.rss = v / 100.0;
            }
            if let Some(v) = o.min_abs_ms {
                l.min_abs_ns = v * 1e6;
            }
            if let Some(v) = o.time_advisory {
                l.time_advisory = v;
            }
        }
        l
    }
}

/// `*`-glob match over the whole string.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || text.len() < first.len() + last.len() || !text.ends_with(last) {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob() {
        assert!(glob_match(
            "launch/*/seed-7-clouds",
            "launch/cold-serial/seed-7-clouds"
        ));
        assert!(glob_match("feasibility/*", "feasibility/aws/t4"));
        assert!(glob_match("*", "x"));
        assert!(!glob_match(
            "launch/*/latency-0",
            "launch/cold-serial/seed-7-clouds"
        ));
        assert!(glob_match("catalog/load-aws", "catalog/load-aws"));
        assert!(!glob_match("a*b*c", "abx"));
    }

    #[test]
    fn thresholds_parse_and_override() {
        let t: Thresholds = toml::from_str(
            "time_pct = 10\n[[override]]\npattern = \"launch/*\"\ntime_pct = 25\nmin_abs_ms = 5\n",
        )
        .unwrap();
        let l = t.limits("launch/cold-serial/seed-7-clouds");
        assert_eq!((l.time, l.min_abs_ns), (0.25, 5e6));
        assert_eq!(t.limits("catalog/load-aws").time, 0.10);
        assert!(toml::from_str::<Thresholds>("tim_pct = 3").is_err());
    }

    #[test]
    fn the_committed_file_parses() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("thresholds.toml");
        let t = Thresholds::load(&path).unwrap_or_else(|e| panic!("{e}"));
        assert!(t.limits("catalog/load-aws").time_advisory);
        assert!(!t.limits("launch/cold-serial/latency-0").time_advisory);
    }
}
