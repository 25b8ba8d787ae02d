//! Accelerator names on Kubernetes: the GPU label conventions SkyPilot
//! recognises, canonical GPU names, GKE TPU names and name matching.
//!
//! Follows SkyPilot 0.14.1's `sky/provision/kubernetes/utils.py` (the
//! `GPULabelFormatter` classes, `LABEL_FORMATTER_REGISTRY`,
//! `detect_gpu_label_formatter`, `_accelerator_name_matches`,
//! `normalize_tpu_accelerator_name`, `is_tpu_on_gke`)
//! and `sky/utils/gpu_names.py` (`CANONICAL_GPU_NAMES`,
//! `get_gpu_device_memory_gib`).

use std::sync::LazyLock;

use regex::Regex;

use crate::pytext::py_str_repr;

/// GKE's GPU label.
pub(super) const GKE_GPU_LABEL: &str = "cloud.google.com/gke-accelerator";
/// GKE's TPU label (`tpu-v5-lite-podslice`, ...).
pub(super) const GKE_TPU_LABEL: &str = "cloud.google.com/gke-tpu-accelerator";
/// Chips (or GPUs) on a GKE node.
pub(super) const GKE_ACCELERATOR_COUNT_LABEL: &str = "cloud.google.com/gke-accelerator-count";
/// A GKE TPU slice's topology (`2x2`).
pub(super) const GKE_TPU_TOPOLOGY_LABEL: &str = "cloud.google.com/gke-tpu-topology";

/// SkyPilot's canonical GPU names, most specific first (`gpu_names.CANONICAL_GPU_NAMES`).
pub const CANONICAL_GPU_NAMES: [&str; 34] = [
    "GB300",
    "GB200",
    "B300",
    "B200",
    "B100",
    "GH200",
    "H200",
    "H100-80GB",
    "H100-MEGA",
    "H100",
    "A100-80GB",
    "A100",
    "A10G",
    "A10",
    "A16",
    "A30",
    "A40",
    "RTX6000-Ada",
    "L40S",
    "L40",
    "L4",
    "A6000",
    "A5000",
    "A4000",
    "V100-32GB",
    "V100",
    "P100",
    "P40",
    "P4000",
    "P4",
    "T4g",
    "T4",
    "K80",
    "M60",
];

/// The canonical spelling of a GPU name, case-insensitively (`t4g` → `T4g`).
pub fn canonical_gpu_name(name: &str) -> Option<&'static str> {
    CANONICAL_GPU_NAMES
        .iter()
        .find(|c| c.eq_ignore_ascii_case(name))
        .copied()
}

static MEMORY_SUFFIX_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)-(\d+)\s*gb?(?:-|$)").expect("static regex"));

/// The GPU label conventions SkyPilot recognises, in its priority order
/// (`LABEL_FORMATTER_REGISTRY`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LabelFormatter {
    /// `skypilot.co/accelerator` (lower-case SkyPilot names).
    SkyPilot,
    /// GKE: `cloud.google.com/gke-accelerator` and `cloud.google.com/gke-tpu-accelerator`.
    Gke,
    /// Karpenter: `karpenter.k8s.aws/instance-gpu-name` (+ Neuron accelerator name).
    Karpenter,
    /// NVIDIA GPU feature discovery: `nvidia.com/gpu.product`.
    Gfd,
    /// CoreWeave: `gpu.nvidia.com/class`.
    CoreWeave,
    /// Nebius: `nebius.com/gpu-name`.
    Nebius,
}

impl LabelFormatter {
    /// All formatters, highest priority first.
    pub const REGISTRY: [LabelFormatter; 6] = [
        LabelFormatter::SkyPilot,
        LabelFormatter::Gke,
        LabelFormatter::Karpenter,
        LabelFormatter::Gfd,
        LabelFormatter::CoreWeave,
        LabelFormatter::Nebius,
    ];

    /// Its place in [`REGISTRY`](Self::REGISTRY) (0 first).
    pub fn priority(self) -> usize {
        self as usize
    }

    /// The label keys this formatter reads.
    pub fn label_keys(self) -> &'static [&'static str] {
        match self {
            LabelFormatter::SkyPilot => &["skypilot.co/accelerator"],
            LabelFormatter::Gke => &[GKE_GPU_LABEL, GKE_TPU_LABEL],
            LabelFormatter::Karpenter => &[
                "karpenter.k8s.aws/instance-gpu-name",
                "karpenter.k8s.aws/instance-accelerator-name",
            ],
            LabelFormatter::Gfd => &["nvidia.com/gpu.product"],
            LabelFormatter::CoreWeave => &["gpu.nvidia.com/class"],
            LabelFormatter::Nebius => &["nebius.com/gpu-name"],
        }
    }

    /// The formatter reading label `key`, if any (each key belongs to one).
    pub fn of_key(key: &str) -> Option<LabelFormatter> {
        Some(match key {
            "skypilot.co/accelerator" => LabelFormatter::SkyPilot,
            GKE_GPU_LABEL | GKE_TPU_LABEL => LabelFormatter::Gke,
            "karpenter.k8s.aws/instance-gpu-name"
            | "karpenter.k8s.aws/instance-accelerator-name" => LabelFormatter::Karpenter,
            "nvidia.com/gpu.product" => LabelFormatter::Gfd,
            "gpu.nvidia.com/class" => LabelFormatter::CoreWeave,
            "nebius.com/gpu-name" => LabelFormatter::Nebius,
            _ => return None,
        })
    }

    /// Whether `key` is one of this formatter's label keys.
    pub fn matches_key(self, key: &str) -> bool {
        self.label_keys().contains(&key)
    }

    /// SkyPilot's `validate_label_value` (SkyPilot/Karpenter: lower-case;
    /// Nebius: upper-case; GKE: a known name pattern).
    pub fn validate(self, value: &str) -> Result<(), String> {
        let key = self.label_keys()[0];
        match self {
            LabelFormatter::SkyPilot | LabelFormatter::Karpenter
                if value != value.to_lowercase() =>
            {
                Err(format!(
                    "Label value {} must be lowercase if using the {key} label.",
                    py_str_repr(value)
                ))
            }
            LabelFormatter::Nebius if value != value.to_uppercase() => Err(format!(
                "Label value {} must be uppercase if using the {key} label.",
                py_str_repr(value)
            )),
            LabelFormatter::Gke => self.accelerator_from_value(value).map(|_| ()),
            _ => Ok(()),
        }
    }

    /// SkyPilot's `get_accelerator_from_label_value`.
    pub fn accelerator_from_value(self, value: &str) -> Result<String, String> {
        Ok(match self {
            LabelFormatter::SkyPilot | LabelFormatter::Nebius => value.to_uppercase(),
            LabelFormatter::Karpenter => match value.to_lowercase().as_str() {
                "inferentia" => "Inferentia".into(),
                "inferentia2" => "Inferentia2".into(),
                "trainium" => "Trainium".into(),
                "trainium2" => "Trainium2".into(),
                _ => value.to_uppercase(),
            },
            LabelFormatter::CoreWeave => match value {
                "H100_NVLINK_80GB" => "H100".into(),
                _ => value.to_string(),
            },
            LabelFormatter::Gke => {
                if let Some(rest) = value.strip_prefix("nvidia-tesla-") {
                    rest.to_uppercase()
                } else if let Some(rest) = value.strip_prefix("nvidia-") {
                    match rest.to_uppercase().as_str() {
                        "H100-80GB" => "H100".into(),
                        "H200-141GB" => "H200".into(),
                        acc => acc.to_string(),
                    }
                } else if is_tpu_on_gke(value) || value.is_empty() {
                    value.to_string()
                } else {
                    return Err(format!("Invalid accelerator name in GKE cluster: {value}"));
                }
            }
            LabelFormatter::Gfd => gfd_accelerator(value),
        })
    }
}

fn gfd_accelerator(value: &str) -> String {
    // `A100-80GB`/`H100-80GB` also match `A100-SXM4-80GB`-style products
    // (SkyPilot's `A100.*-80GB`); every name matches on word boundaries
    // (`\bNAME\b`), most specific name first. Searched by hand: compiling
    // SkyPilot's 34 regexes cost every Kubernetes launch ~3 ms.
    for name in CANONICAL_GPU_NAMES {
        let hit = match name {
            "A100-80GB" => followed_on_line(value, "A100", "-80GB"),
            "H100-80GB" => followed_on_line(value, "H100", "-80GB"),
            _ => false,
        } || contains_word(value, name);
        if hit {
            return name.to_string();
        }
    }
    value
        .to_uppercase()
        .replace("NVIDIA-", "")
        .replace("GEFORCE-", "")
        .replace("RTX-", "RTX")
}

/// SkyPilot's `normalize_tpu_accelerator_name`: `tpu-v6e-8` → (`tpu-v6e-slice`, 8).
pub fn normalize_tpu_accelerator_name(accelerator: &str) -> (String, u32) {
    const PATTERNS: [(&str, &str); 5] = [
        ("tpu-v6e-", "tpu-v6e-slice"),
        ("tpu-v5p-", "tpu-v5p-slice"),
        ("tpu-v5litepod-", "tpu-v5-lite-podslice"),
        ("tpu-v5lite-", "tpu-v5-lite-device"),
        ("tpu-v4-", "tpu-v4-podslice"),
    ];
    for (prefix, replacement) in PATTERNS {
        if let Some(n) = accelerator.strip_prefix(prefix)
            && !n.is_empty()
            && n.bytes().all(|b| b.is_ascii_digit())
            && let Ok(count) = n.parse()
        {
            return (replacement.to_string(), count);
        }
    }
    (accelerator.to_string(), 1)
}

/// Whether the accelerator (after normalisation) is a GKE TPU type.
pub fn is_tpu_on_gke(accelerator: &str) -> bool {
    matches!(
        normalize_tpu_accelerator_name(accelerator).0.as_str(),
        "tpu-v4-podslice"
            | "tpu-v5-lite-device"
            | "tpu-v5-lite-podslice"
            | "tpu-v5p-slice"
            | "tpu-v6e-slice"
    )
}

fn gpu_device_memory_gib(name: &str) -> Option<u32> {
    let lower = name.to_lowercase();
    let bare = |n: &str| match n {
        "a100" => Some(40),
        "v100" => Some(16),
        _ => None,
    };
    if let Some(m) = bare(&lower) {
        return Some(m);
    }
    let (start, digits) = if lower.is_ascii() {
        memory_suffix_ascii(&lower)?
    } else {
        let caps = MEMORY_SUFFIX_RE.captures(&lower)?;
        (caps.get(0)?.start(), caps.get(1)?.as_str())
    };
    bare(&lower[..start])?;
    digits.parse().ok()
}

/// [`MEMORY_SUFFIX_RE`]'s leftmost match in an ASCII `name` (already lower
/// case), by hand: where it starts and its digits. Compiling the regex cost
/// a Kubernetes launch more than every match it made; other names still
/// go through it (`\d` and `\s` are Unicode classes there).
fn memory_suffix_ascii(name: &str) -> Option<(usize, &str)> {
    let bytes = name.as_bytes();
    // ASCII `\s` in the regex crate's Unicode mode: `\t \n \v \f \r` and space.
    let space = |b: u8| matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ');
    (0..bytes.len())
        .filter(|&i| bytes[i] == b'-')
        .find_map(|start| {
            let digits_end = (start + 1..=bytes.len())
                .find(|&j| j == bytes.len() || !bytes[j].is_ascii_digit())
                .unwrap_or(bytes.len());
            if digits_end == start + 1 {
                return None;
            }
            let mut at = digits_end;
            while at < bytes.len() && space(bytes[at]) {
                at += 1;
            }
            if bytes.get(at) != Some(&b'g') {
                return None;
            }
            at += 1;
            // `b?` then `-` or the end: with a `b` that is not followed by
            // either, the regex backs off the `b`, which then fails too.
            if bytes.get(at) == Some(&b'b') {
                at += 1;
            }
            matches!(bytes.get(at), None | Some(b'-'))
                .then(|| (start, &name[start + 1..digits_end]))
        })
}

/// Whether `value` holds `word` between word boundaries: regex
/// `\bWORD\b` for a `word` that begins and ends with a word character, as
/// every canonical GPU name does. Word characters are Python's `\w`
/// (alphanumeric or `_`).
fn contains_word(value: &str, word: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(at) = find(&value[from..], word) {
        let start = from + at;
        let end = start + word.len();
        let open = value[..start]
            .chars()
            .next_back()
            .is_none_or(|c| !is_word(c));
        let closed = value[end..].chars().next().is_none_or(|c| !is_word(c));
        if open && closed {
            return true;
        }
        // Matches may overlap: go on one character later.
        from = start + value[start..].chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// Whether `then` follows an occurrence of `first` on one line: regex
/// `FIRST.*THEN` (`.` stops at `\n`).
fn followed_on_line(value: &str, first: &str, then: &str) -> bool {
    value.split('\n').any(|line| {
        find(line, first).is_some_and(|at| find(&line[at + first.len()..], then).is_some())
    })
}

/// `str::find` for the short label values and GPU names searched here: a
/// plain scan, without the setup of a general substring searcher (which
/// cost more than the search on every node label read).
fn find(haystack: &str, needle: &str) -> Option<usize> {
    let (hay, needle) = (haystack.as_bytes(), needle.as_bytes());
    let Some((&first, _)) = needle.split_first() else {
        return Some(0);
    };
    let last_start = hay.len().checked_sub(needle.len())?;
    (0..=last_start).find(|&at| hay[at] == first && hay[at..].starts_with(needle))
}

/// SkyPilot's `_accelerator_name_matches`: case-insensitive equality, or one
/// name a `-`-separated prefix of the other, unless the request implies more
/// device memory than the node's name (`A100-80GB` never matches `A100`).
pub fn accelerator_name_matches(requested: &str, viable: &[&str]) -> bool {
    viable.iter().any(|v| name_matches(requested, v))
}

/// [`accelerator_name_matches`] for one name. ASCII names (every GPU name
/// and label value in practice) compare in place; others are lower-cased
/// first, as Python's `str.lower()` does.
fn name_matches(requested: &str, viable: &str) -> bool {
    if !(requested.is_ascii() && viable.is_ascii()) {
        return lowered_name_matches(&requested.to_lowercase(), &viable.to_lowercase());
    }
    if requested.eq_ignore_ascii_case(viable) {
        return true;
    }
    let (shorter, longer) = if requested.len() <= viable.len() {
        (requested, viable)
    } else {
        (viable, requested)
    };
    let longer = longer.as_bytes();
    if !longer[..shorter.len()].eq_ignore_ascii_case(shorter.as_bytes())
        || longer.get(shorter.len()) != Some(&b'-')
    {
        return false;
    }
    // `gpu_device_memory_gib` lower-cases its argument itself.
    !matches!(
        (gpu_device_memory_gib(requested), gpu_device_memory_gib(viable)),
        (Some(r), Some(n)) if r > n
    )
}

/// [`name_matches`] of two names already lower-cased.
fn lowered_name_matches(req: &str, v: &str) -> bool {
    if req == v {
        return true;
    }
    let (shorter, longer) = if req.len() <= v.len() {
        (req, v)
    } else {
        (v, req)
    };
    if !longer.starts_with(shorter) || longer.as_bytes().get(shorter.len()) != Some(&b'-') {
        return false;
    }
    !matches!(
        (gpu_device_memory_gib(req), gpu_device_memory_gib(v)),
        (Some(r), Some(n)) if r > n
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_suffix_by_hand_agrees_with_the_regex() {
        let names = [
            "a100-80gb",
            "a100-80g",
            "a100-80gb-x",
            "a100-80g-x",
            "a100-80gbx",
            "a100-80gx",
            "a100-80 gb",
            "a100-80\t\x0b\x0c\r\n g",
            "a100-80b",
            "a100--80gb",
            "a100-x-80gb",
            "a100-80gb-40gb",
            "a100-gb-80gb",
            "v100-16gb",
            "h100-80gb",
            "a100-",
            "-",
            "-1g",
            "a100-99999999999gb",
            "a100-80gbb",
            "a100-80gb-",
            "",
            "a100",
        ];
        // Every name of up to 6 characters over the ones the pattern reads.
        let alphabet = ['-', '8', 'g', 'b', ' ', 'a'];
        let mut every = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..6 {
            last = last
                .iter()
                .flat_map(|n| alphabet.iter().map(move |c| format!("{n}{c}")))
                .collect();
            every.extend(last.iter().cloned());
        }
        for name in names
            .iter()
            .copied()
            .chain(every.iter().map(String::as_str))
        {
            let by_regex = MEMORY_SUFFIX_RE
                .captures(name)
                .map(|c| (c.get(0).expect("whole").start(), c[1].to_string()));
            let by_hand = memory_suffix_ascii(name).map(|(at, d)| (at, d.to_string()));
            assert_eq!(by_hand, by_regex, "{name:?}");
        }
        assert_eq!(gpu_device_memory_gib("A100-80GB"), Some(80));
        assert_eq!(gpu_device_memory_gib("A100"), Some(40));
        assert_eq!(gpu_device_memory_gib("H100-80GB"), None);
        assert_eq!(gpu_device_memory_gib("a100-\u{0668}0gb"), None);
    }

    #[test]
    fn word_search_agrees_with_the_regexes_it_replaces() {
        let values = [
            "NVIDIA-H100-80GB-HBM3",
            "NVIDIA-A100-SXM4-80GB",
            "NVIDIA-A100-SXM4-40GB",
            "A100\n-80GB",
            "A100-80GB\nx",
            "Tesla-T4",
            "T4g",
            "NVIDIA-T4G",
            "xT4",
            "T4_",
            "T4.T4",
            "L40S-48GB",
            "L4",
            "L40",
            "GeForce-RTX-4090",
            "RTX6000-Ada-Generation",
            "H100H100",
            "éH100",
            "H100é",
            "H100·",
            "",
        ];
        for value in values {
            for name in CANONICAL_GPU_NAMES {
                let word = Regex::new(&format!(r"\b{}\b", regex::escape(name))).unwrap();
                assert_eq!(
                    contains_word(value, name),
                    word.is_match(value),
                    "{name} in {value:?}"
                );
            }
            for first in ["A100", "H100"] {
                let re = Regex::new(&format!("{first}.*-80GB")).unwrap();
                assert_eq!(
                    followed_on_line(value, first, "-80GB"),
                    re.is_match(value),
                    "{first}.*-80GB in {value:?}"
                );
            }
        }
    }

    #[test]
    fn name_matching() {
        for (req, viable, want) in [
            ("H100", "h100-80gb", true),
            ("h100-80gb", "H100", true),
            ("A100", "a100-80gb", true),
            ("A100-80GB", "a100", false),
            ("A100-80G", "a100", false),
            ("H200", "h200-sxm-80gb", true),
            ("H10", "h100", false),
            ("T4", "t4", true),
            ("L4", "l40s", false),
        ] {
            assert_eq!(
                accelerator_name_matches(req, &[viable]),
                want,
                "{req} vs {viable}"
            );
        }
    }

    #[test]
    fn in_place_matching_agrees_with_lower_casing() {
        let names = [
            "H100",
            "h100",
            "H100-80GB",
            "h100-80gb",
            "A100",
            "A100-80GB",
            "a100-80g",
            "A100-40GB",
            "V100",
            "V100-32GB",
            "H200",
            "H200-SXM-80GB",
            "T4",
            "t4g",
            "L4",
            "L40S",
            "H10",
            "",
            "-",
            "A100-",
            "tpu-v5-lite-podslice",
            "NVIDIA-H100-80GB-HBM3",
        ];
        for req in names {
            for viable in names {
                assert_eq!(
                    name_matches(req, viable),
                    lowered_name_matches(&req.to_lowercase(), &viable.to_lowercase()),
                    "{req:?} vs {viable:?}"
                );
            }
        }
        // Non-ASCII names are lower-cased first (`İ` lower-cases to two chars).
        assert!(accelerator_name_matches("Ä100", &["ä100"]));
        assert!(!accelerator_name_matches("İ100", &["i100"]));
    }

    #[test]
    fn plain_find_agrees_with_str_find() {
        let hays = [
            "NVIDIA-H100-80GB-HBM3",
            "H100H100",
            "éH100é",
            "",
            "H",
            "A100\n-80GB",
        ];
        let needles = ["H100", "-80GB", "H", "é", "100H", "HBM3", "HBM34", ""];
        for hay in hays {
            for needle in needles {
                assert_eq!(find(hay, needle), hay.find(needle), "{needle:?} in {hay:?}");
            }
        }
    }

    #[test]
    fn each_label_key_names_its_formatter() {
        for lf in LabelFormatter::REGISTRY {
            for key in lf.label_keys() {
                assert_eq!(LabelFormatter::of_key(key), Some(lf), "{key}");
            }
        }
        assert_eq!(LabelFormatter::of_key("kubernetes.io/hostname"), None);
        for (i, lf) in LabelFormatter::REGISTRY.into_iter().enumerate() {
            assert_eq!(lf.priority(), i, "{lf:?}");
        }
    }

    #[test]
    fn tpu_names() {
        assert_eq!(
            normalize_tpu_accelerator_name("tpu-v6e-8"),
            ("tpu-v6e-slice".to_string(), 8)
        );
        assert_eq!(
            normalize_tpu_accelerator_name("tpu-v5litepod-4"),
            ("tpu-v5-lite-podslice".to_string(), 4)
        );
    }
}
