//! The hardware a request asks for, as SkyPilot parses it: accelerators,
//! CPUs, memory and the disk tier (`sky/resources.py::Resources._set_*`,
//! `sky/utils/resources_utils.py::parse_memory_resource`).

use std::fmt;

use super::error::RequestError;
use crate::pytext::{py_float_str, py_str_repr};

/// An accelerator count: Python keeps integral counts as `int`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AccCount(pub f64);

impl AccCount {
    /// Whether the count is integral (displayed without decimals).
    pub fn is_integral(self) -> bool {
        self.0.fract() == 0.0
    }
}

impl fmt::Display for AccCount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_integral() && self.0.abs() < 1e16 {
            write!(f, "{}", self.0 as i64)
        } else {
            f.write_str(&py_float_str(self.0))
        }
    }
}

/// One accelerator request, e.g. `V100:4`.
#[derive(Debug, Clone, PartialEq)]
pub struct Accelerator {
    /// Name (canonicalised by validation).
    pub name: String,
    /// Count.
    pub count: AccCount,
}

impl Accelerator {
    /// `NAME:COUNT` as in the GPUS column.
    pub fn short(&self) -> String {
        format!("{}:{}", self.name, self.count)
    }

    /// Python dict repr: `{'V100': 1}`.
    pub fn dict_repr(&self) -> String {
        format!("{{{}: {}}}", py_str_repr(&self.name), self.count)
    }
}

/// Parses an accelerator string `NAME` or `NAME:COUNT` (SkyPilot's `_set_accelerators`).
pub fn parse_accelerator(text: &str) -> Result<Accelerator, RequestError> {
    let parse_error = || {
        RequestError::value(format!(
            "The \"accelerators\" field as a str should be <name> or <name>:<cnt>. Found: {}",
            py_str_repr(text)
        ))
    };
    if !text.contains(':') {
        return Ok(Accelerator {
            name: text.to_string(),
            count: AccCount(1.0),
        });
    }
    let parts: Vec<&str> = text.split(':').collect();
    if parts.len() != 2 {
        return Err(parse_error());
    }
    let count = parse_py_float(parts[1]).ok_or_else(parse_error)?;
    check_acc_count(parts[0], count, &AccCount(count).to_string())?;
    Ok(Accelerator {
        name: parts[0].to_string(),
        count: AccCount(count),
    })
}

pub(crate) fn check_acc_count(name: &str, count: f64, shown: &str) -> Result<(), RequestError> {
    if count.is_nan() || count <= 0.0 {
        return Err(RequestError::value(format!(
            "Accelerator count must be a positive number. Got: {}: {shown}.",
            py_str_repr(name)
        )));
    }
    Ok(())
}

/// Python's `float(text)`: surrounding whitespace allowed, `_` digit separators not handled.
pub fn parse_py_float(text: &str) -> Option<f64> {
    let t = text.trim();
    if t.is_empty() {
        return None;
    }
    t.parse::<f64>().ok()
}

/// Validates a `cpus` value and returns SkyPilot's stored string.
pub fn parse_cpus(text: &str) -> Result<String, RequestError> {
    let num = text.strip_suffix('+').unwrap_or(text);
    let Some(n) = parse_py_float(num) else {
        return Err(RequestError::value(format!(
            "The \"cpus\" field should be either a number or a string \"<number>+\". Found: {}",
            py_str_repr(text)
        )));
    };
    if n <= 0.0 || n.is_nan() {
        return Err(RequestError::value(format!(
            "The \"cpus\" field should be positive. Found: {}",
            py_str_repr(text)
        )));
    }
    Ok(text.to_string())
}

/// Validates a numeric (YAML int/float) `cpus` value: stored as Python `str(v)`.
pub fn cpus_from_number(v: f64, is_int: bool) -> Result<String, RequestError> {
    let s = if is_int {
        format!("{}", v as i64)
    } else {
        py_float_str(v)
    };
    if v <= 0.0 {
        return Err(RequestError::value(format!(
            "The \"cpus\" field should be positive. Found: {s}"
        )));
    }
    Ok(s)
}

const MEMORY_UNITS: [(&str, f64); 10] = [
    ("kb", 1024.0),
    ("ki", 1024.0),
    ("mb", 1048576.0),
    ("mi", 1048576.0),
    ("gb", 1073741824.0),
    ("gi", 1073741824.0),
    ("tb", 1099511627776.0),
    ("ti", 1099511627776.0),
    ("pb", 1125899906842624.0),
    ("pi", 1125899906842624.0),
];

/// Parses a `memory` value as SkyPilot's `parse_memory_resource` (float, `+` and `x` allowed).
pub fn parse_memory(text: &str) -> Result<String, RequestError> {
    let error = || {
        RequestError::value(format!(
            "\"memory\" field should be a number (e.g. \"16\") or \"<number><unit>\" where unit is one of KB/MB/GB/TB/PB (e.g. \"16GB\") or \"<number>+\" for \"at least\". Got: {}",
            py_str_repr(text)
        ))
    };
    let mut rest = text;
    let mut plus = "";
    if let Some(r) = rest.strip_suffix('+') {
        rest = r;
        plus = "+";
    }
    let mut x = "";
    if let Some(r) = rest.strip_suffix('x') {
        rest = r;
        x = "x";
    }
    let stored = if parse_py_float(rest).is_some() {
        format!("{rest}{plus}{x}")
    } else {
        let lower = rest.to_ascii_lowercase();
        let mut found = None;
        for (unit, mult) in MEMORY_UNITS {
            if let Some(num) = lower.strip_suffix(unit)
                && let Some(v) = parse_py_float(num)
            {
                found = Some(format!(
                    "{}{plus}{x}",
                    py_float_str(v * mult / 1073741824.0)
                ));
                break;
            }
        }
        found.ok_or_else(error)?
    };
    let number = stored.trim_end_matches(['+', 'x']);
    let gb = parse_py_float(number).ok_or_else(error)?;
    if gb <= 0.0 {
        return Err(RequestError::value(format!(
            "The \"memory\" field should be positive. Found: {}",
            py_str_repr(&stored)
        )));
    }
    Ok(stored)
}

/// Disk tiers (`--disk-tier`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DiskTier {
    /// `low`.
    Low,
    /// `medium`.
    Medium,
    /// `high`.
    High,
    /// `ultra`.
    Ultra,
    /// `best`.
    Best,
}

impl DiskTier {
    /// Parses a tier name (case-insensitive).
    pub fn parse(text: &str) -> Result<DiskTier, RequestError> {
        Ok(match text.to_ascii_lowercase().as_str() {
            "low" => DiskTier::Low,
            "medium" => DiskTier::Medium,
            "high" => DiskTier::High,
            "ultra" => DiskTier::Ultra,
            "best" => DiskTier::Best,
            _ => {
                return Err(RequestError::value(format!(
                    "Invalid disk_tier {}. Please use one of ['low', 'medium', 'high', 'ultra', 'best'].",
                    py_str_repr(text)
                )));
            }
        })
    }

    /// Lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            DiskTier::Low => "low",
            DiskTier::Medium => "medium",
            DiskTier::High => "high",
            DiskTier::Ultra => "ultra",
            DiskTier::Best => "best",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_float_strings() {
        for (x, want) in [
            (32.0, "32.0"),
            (0.5, "0.5"),
            (1e-5, "1e-05"),
            (16.0, "16.0"),
            (1.5, "1.5"),
        ] {
            assert_eq!(py_float_str(x), want, "{x}");
        }
    }

    #[test]
    fn memory_forms() {
        for (input, want) in [
            ("32", Ok("32")),
            ("32+", Ok("32+")),
            ("32GB", Ok("32.0")),
            ("16384MB", Ok("16.0")),
            ("1TB", Ok("1024.0")),
            ("4x", Ok("4x")),
            ("abc", Err(())),
            ("0", Err(())),
        ] {
            let got = parse_memory(input).map_err(|_| ());
            assert_eq!(got.as_deref().map_err(|_| ()), want, "{input}");
        }
    }

    #[test]
    fn accelerator_forms() {
        let a = parse_accelerator("V100:0.5").unwrap();
        assert_eq!(a.short(), "V100:0.5");
        assert_eq!(parse_accelerator("V100: 0.5").unwrap().count, AccCount(0.5));
        assert_eq!(
            parse_accelerator("H100:8").unwrap().dict_repr(),
            "{'H100': 8}"
        );
        assert!(parse_accelerator("H100:abc").is_err());
        assert!(parse_accelerator("a:b:c").is_err());
        assert!(parse_accelerator("H100:0").is_err());
    }
}
