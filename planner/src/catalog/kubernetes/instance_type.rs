//! SkyPilot's virtual Kubernetes instance type (`4CPU--16GB--H100:1`): its
//! name, and the type a request asks for.
//!
//! Kubernetes has no instance catalog: SkyPilot 0.14.1 names the requested
//! shape instead (`sky/provision/kubernetes/utils.py::KubernetesInstanceType`)
//! and passes that name between choosing, checking and pricing a candidate.
//! The shape for a request is chosen as in `sky/clouds/kubernetes.py`
//! (`Kubernetes.get_default_instance_type`,
//! `Kubernetes._get_feasible_launchable_resources`).

use std::fmt;
use std::str::FromStr;

use crate::pytext::format_float;

/// SkyPilot's virtual Kubernetes instance type, `<cpus>CPU--<mem>GB[--<ACC>:<n>]`.
#[derive(Debug, Clone, PartialEq)]
pub struct KubeInstanceType {
    /// Requested CPU cores.
    pub cpus: f64,
    /// Requested memory in GB (GiB, as SkyPilot means it).
    pub memory_gib: f64,
    /// Accelerator name and integer count, if any.
    pub accelerator: Option<(String, u32)>,
}

/// A string that is not a valid virtual instance type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Invalid instance name: {0}")]
pub struct InvalidInstanceType(pub String);

/// SkyPilot's `KubernetesInstanceType._parse_instance_type` pattern, which
/// [`KubeInstanceType::from_str`] reads by hand (compiling it cost each
/// Kubernetes launch ~0.5 ms); the tests hold the two equal.
#[cfg(test)]
const INSTANCE_TYPE_PATTERN: &str =
    r"^(?P<cpus>\d+(\.\d+)?)CPU--(?P<memory>\d+(\.\d+)?)GB(?:--(?P<acc>[\w\d-]+):(?P<count>\d+))?$";

/// SkyPilot's `_DEFAULT_NUM_VCPUS`.
const DEFAULT_CPUS: f64 = 2.0;
/// SkyPilot's `_DEFAULT_MEMORY_CPU_RATIO`.
const DEFAULT_MEMORY_CPU_RATIO: f64 = 1.0;
/// SkyPilot's `_DEFAULT_NUM_VCPUS_WITH_GPU`.
const DEFAULT_CPUS_PER_GPU: f64 = 4.0;
/// SkyPilot's `_DEFAULT_MEMORY_CPU_RATIO_WITH_GPU`.
const DEFAULT_MEMORY_CPU_RATIO_WITH_GPU: f64 = 4.0;

/// Python's `float(str)` for the forms the request fields use.
fn py_parse_float(s: &str) -> Option<f64> {
    let v: f64 = s.trim().parse().ok()?;
    (v.is_finite() && v >= 0.0).then_some(v)
}

impl KubeInstanceType {
    /// The instance type SkyPilot picks for a request
    /// (`get_default_instance_type` + `get_feasible_launchable_resources`).
    ///
    /// * `cpus`: the request's cpus string (`"4"`, `"4+"`); default 2, `+` stripped.
    /// * `memory`: GB string as normalised by the request parser (`"16"`,
    ///   `"16+"`, `"2x"`); CPU-only: `N`/`N+` → N, `Nx` → N×cpus, unset → 1×cpus;
    ///   with accelerators: `N`/`N+` → N, unset → 4×cpus (`Nx` → `None`, as
    ///   SkyPilot fails on it).
    /// * `accelerator`: `(name, count)`; cpus default to 4×count, the count is
    ///   rounded up. Names containing a space give `None` (no candidate).
    ///
    /// The result is normalised through its name, as SkyPilot passes the name
    /// around (`cpus=0.25` → `0.2CPU`). `None` when the request cannot be
    /// expressed (unparsable numbers, invalid name characters).
    pub fn for_request(
        cpus: Option<&str>,
        memory: Option<&str>,
        accelerator: Option<(&str, f64)>,
    ) -> Option<KubeInstanceType> {
        let instance_cpus = match cpus {
            Some(c) => py_parse_float(c.trim_matches('+'))?,
            None => DEFAULT_CPUS,
        };
        let instance_mem = match memory {
            Some(m) => {
                if let Some(n) = m.strip_suffix('+') {
                    py_parse_float(n)?
                } else if let Some(n) = m.strip_suffix('x') {
                    py_parse_float(n)? * instance_cpus
                } else {
                    py_parse_float(m)?
                }
            }
            None => instance_cpus * DEFAULT_MEMORY_CPU_RATIO,
        };
        let default = KubeInstanceType {
            cpus: instance_cpus,
            memory_gib: instance_mem,
            accelerator: None,
        }
        .normalised()?;
        let Some((acc, count)) = accelerator else {
            return Some(default);
        };
        if acc.contains(' ') || !count.is_finite() || count < 0.0 {
            return None;
        }
        let gpu_cpus = if cpus.is_none() {
            DEFAULT_CPUS_PER_GPU * count
        } else {
            default.cpus
        };
        let gpu_mem = match memory {
            Some(m) => py_parse_float(m.trim_matches('+'))?,
            None => gpu_cpus * DEFAULT_MEMORY_CPU_RATIO_WITH_GPU,
        };
        let rounded = count.ceil();
        if rounded > f64::from(u32::MAX) {
            return None;
        }
        KubeInstanceType {
            cpus: gpu_cpus,
            memory_gib: gpu_mem,
            accelerator: Some((acc.to_string(), rounded as u32)),
        }
        .normalised()
    }

    /// Round-trips through the name, as SkyPilot does between choosing a type
    /// and checking/pricing it.
    fn normalised(&self) -> Option<KubeInstanceType> {
        // Whole, non-negative numbers print without decimals and parse back
        // to themselves, and an ASCII word name prints as itself: such a type
        // is its own round trip (a zero count is dropped, as the name drops
        // it). Anything else takes the round trip through the name.
        let whole = |x: f64| x.is_finite() && x.is_sign_positive() && x.fract() == 0.0;
        let plain_name = |name: &str| {
            !name.is_empty()
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        };
        if whole(self.cpus)
            && whole(self.memory_gib)
            && self.accelerator.as_ref().is_none_or(|(n, _)| plain_name(n))
        {
            let mut same = self.clone();
            if matches!(same.accelerator, Some((_, 0))) {
                same.accelerator = None;
            }
            return Some(same);
        }
        self.to_string().parse().ok()
    }

    /// Accelerator name and count when the count is positive.
    pub fn gpu(&self) -> Option<(&str, u32)> {
        match &self.accelerator {
            Some((name, n)) if *n > 0 => Some((name.as_str(), *n)),
            _ => None,
        }
    }
}

impl fmt::Display for KubeInstanceType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}CPU--{}GB",
            format_float(self.cpus),
            format_float(self.memory_gib)
        )?;
        if let Some((name, count)) = &self.accelerator
            && *count > 0
        {
            write!(f, "--{}:{count}", name.replace(' ', "_"))?;
        }
        Ok(())
    }
}

impl FromStr for KubeInstanceType {
    type Err = InvalidInstanceType;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let invalid = || InvalidInstanceType(s.to_string());
        // `<cpus>CPU--<memory>GB[--<accelerator>:<count>]`: the numbers hold
        // no letters, so the first `CPU--` and `GB` are the separators.
        let (cpus, rest) = s.split_once("CPU--").ok_or_else(invalid)?;
        let (memory, rest) = rest.split_once("GB").ok_or_else(invalid)?;
        if !is_decimal(cpus) || !is_decimal(memory) {
            return Err(invalid());
        }
        let accelerator = if rest.is_empty() {
            None
        } else {
            let (name, count) = rest
                .strip_prefix("--")
                .and_then(|r| r.split_once(':'))
                .ok_or_else(invalid)?;
            let word = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
            if name.is_empty() || !name.chars().all(word) || !is_digits(count) {
                return Err(invalid());
            }
            Some((name.to_string(), count.parse().map_err(|_| invalid())?))
        };
        Ok(KubeInstanceType {
            cpus: cpus.parse().map_err(|_| invalid())?,
            memory_gib: memory.parse().map_err(|_| invalid())?,
            accelerator,
        })
    }
}

/// `\d+` (ASCII digits: the names are this program's own).
fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// `\d+(\.\d+)?`.
fn is_decimal(s: &str) -> bool {
    match s.split_once('.') {
        Some((int, frac)) => is_digits(int) && is_digits(frac),
        None => is_digits(s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex::Regex;

    #[test]
    fn the_hand_parser_accepts_what_skypilots_pattern_accepts() {
        let pattern = Regex::new(INSTANCE_TYPE_PATTERN).unwrap();
        let names = [
            "4CPU--16GB",
            "0.5CPU--1.5GB",
            "8CPU--32GB--H100:8",
            "8CPU--32GB--A100-80GB:1",
            "8CPU--32GB--tpu_v5:4",
            "8CPU--32GB--Ä100:2",
            "8CPU--32GB--H100:",
            "8CPU--32GB--:8",
            "8CPU--32GB--H100",
            "8CPU--32GB--H1:00:8",
            "8CPU--32GB--H 100:8",
            "8CPU--32GBx",
            "8CPU--32GB-",
            "8CPU--32",
            "8CPU-32GB",
            "CPU--32GB",
            ".5CPU--32GB",
            "5.CPU--32GB",
            "1.2.3CPU--4GB",
            "4CPU--4GBCPU--4GB",
            "-4CPU--16GB",
            "4CPU--16GB--H100:99999999999",
            "",
        ];
        for name in names {
            let by_hand = name.parse::<KubeInstanceType>().ok();
            let by_regex = pattern.captures(name).and_then(|caps| {
                Some(KubeInstanceType {
                    cpus: caps["cpus"].parse().ok()?,
                    memory_gib: caps["memory"].parse().ok()?,
                    accelerator: match (caps.name("acc"), caps.name("count")) {
                        (Some(acc), Some(count)) => {
                            Some((acc.as_str().to_string(), count.as_str().parse().ok()?))
                        }
                        _ => None,
                    },
                })
            });
            assert_eq!(by_hand, by_regex, "{name:?}");
        }
    }

    #[test]
    fn normalising_equals_the_round_trip_through_the_name() {
        let names = [
            None,
            Some("H100"),
            Some("A100-80GB"),
            Some("tpu_v5"),
            Some("Ä100"),
            Some(""),
        ];
        let numbers = [
            0.0,
            -0.0,
            1.0,
            2.0,
            16.0,
            0.25,
            1.05,
            2.5,
            1e20,
            f64::INFINITY,
            f64::NAN,
        ];
        for cpus in numbers {
            for memory_gib in numbers {
                for name in names {
                    for count in [0, 1, 8] {
                        let t = KubeInstanceType {
                            cpus,
                            memory_gib,
                            accelerator: name.map(|n| (n.to_string(), count)),
                        };
                        let round_trip: Option<KubeInstanceType> = t.to_string().parse().ok();
                        assert_eq!(t.normalised(), round_trip, "{t:?}");
                    }
                }
            }
        }
    }

    type DisplayCase<'a> = (&'a str, f64, f64, Option<(&'a str, u32)>);
    type RequestCase<'a> = (
        Option<&'a str>,
        Option<&'a str>,
        Option<(&'a str, f64)>,
        Option<&'a str>,
    );

    // The names print their numbers with `format_float`; these are the
    // roundings they rely on (`cpus=0.25` is named `0.2CPU`).
    #[test]
    fn float_formatting() {
        for (x, want) in [
            (2.0, "2"),
            (0.5, "0.5"),
            (1.5, "1.5"),
            (0.25, "0.2"),
            (0.35, "0.3"),
            (16.0, "16"),
            (2.45, "2.5"),
        ] {
            assert_eq!(format_float(x), want, "{x}");
        }
    }

    #[test]
    fn instance_type_display_and_parse() {
        let cases: [DisplayCase; 5] = [
            ("2CPU--2GB", 2.0, 2.0, None),
            ("0.5CPU--1.5GB", 0.5, 1.5, None),
            ("4CPU--16GB--H100:1", 4.0, 16.0, Some(("H100", 1))),
            (
                "32CPU--128GB--A100-80GB:8",
                32.0,
                128.0,
                Some(("A100-80GB", 8)),
            ),
            (
                "8CPU--32GB--tpu-v5-lite-podslice:4",
                8.0,
                32.0,
                Some(("tpu-v5-lite-podslice", 4)),
            ),
        ];
        for (name, cpus, mem, acc) in cases {
            let it: KubeInstanceType = name.parse().expect(name);
            assert_eq!(it.cpus, cpus);
            assert_eq!(it.memory_gib, mem);
            assert_eq!(it.accelerator, acc.map(|(a, n)| (a.to_string(), n)));
            assert_eq!(it.to_string(), name);
        }
        for bad in [
            "",
            "2CPU",
            "2CPU--2GB--",
            "2CPU--2GB--H100",
            "2CPU--2GB--H 100:1",
            "-2CPU--2GB",
            "2CPU--2GB--A.1:1",
            "2cpu--2gb",
        ] {
            assert_eq!(
                bad.parse::<KubeInstanceType>(),
                Err(InvalidInstanceType(bad.to_string())),
                "{bad:?}"
            );
        }
        let spaced = KubeInstanceType {
            cpus: 1.0,
            memory_gib: 2.0,
            accelerator: Some(("RTX 4090".into(), 1)),
        };
        assert_eq!(spaced.to_string(), "1CPU--2GB--RTX_4090:1");
        let zero = KubeInstanceType {
            cpus: 1.0,
            memory_gib: 2.0,
            accelerator: Some(("T4".into(), 0)),
        };
        assert_eq!(zero.to_string(), "1CPU--2GB");
    }

    #[test]
    fn instance_type_for_request() {
        let cases: [RequestCase; 18] = [
            (None, None, None, Some("2CPU--2GB")),
            (Some("4"), None, None, Some("4CPU--4GB")),
            (Some("4+"), None, None, Some("4CPU--4GB")),
            (Some("4"), Some("16"), None, Some("4CPU--16GB")),
            (Some("4"), Some("16+"), None, Some("4CPU--16GB")),
            (Some("4"), Some("2x"), None, Some("4CPU--8GB")),
            (None, Some("2x"), None, Some("2CPU--4GB")),
            (Some("0.5"), None, None, Some("0.5CPU--0.5GB")),
            (Some("0.25"), None, None, Some("0.2CPU--0.2GB")),
            (None, None, Some(("H100", 1.0)), Some("4CPU--16GB--H100:1")),
            (
                None,
                None,
                Some(("H100", 8.0)),
                Some("32CPU--128GB--H100:8"),
            ),
            (
                Some("8"),
                None,
                Some(("H100", 1.0)),
                Some("8CPU--32GB--H100:1"),
            ),
            (
                Some("8+"),
                Some("64+"),
                Some(("A100", 2.0)),
                Some("8CPU--64GB--A100:2"),
            ),
            (None, None, Some(("L4", 0.5)), Some("2CPU--8GB--L4:1")),
            (None, None, Some(("RTX 4090", 1.0)), None),
            (None, Some("2x"), Some(("T4", 1.0)), None),
            (Some("many"), None, None, None),
            (None, None, Some(("A.B", 1.0)), None),
        ];
        for (cpus, mem, acc, want) in cases {
            let got = KubeInstanceType::for_request(cpus, mem, acc).map(|t| t.to_string());
            assert_eq!(got.as_deref(), want, "{cpus:?} {mem:?} {acc:?}");
        }
    }
}
