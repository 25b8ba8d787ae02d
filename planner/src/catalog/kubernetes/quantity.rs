//! Kubernetes resource quantities (`3500m` CPUs, `16Gi` memory) read the way
//! SkyPilot 0.14.1 reads them in `sky/provision/kubernetes/utils.py`
//! (`parse_cpu_or_gpu_resource_to_float`, `parse_memory_resource`).

/// Parses a Kubernetes CPU quantity into cores: `3500m` → 3.5, `4` → 4.
///
/// `None` for anything that is not a non-negative finite number.
pub fn parse_cpu_quantity(q: &str) -> Option<f64> {
    let q = q.trim();
    let v = match q.strip_suffix('m') {
        Some(milli) => milli.parse::<f64>().ok()? / 1000.0,
        None => q.parse::<f64>().ok()?,
    };
    (v.is_finite() && v >= 0.0).then_some(v)
}

/// Parses a Kubernetes memory/storage quantity into GiB the way SkyPilot's
/// `parse_memory_resource(unit='G')` does: a bare integer is bytes; otherwise
/// the first letter of the suffix picks a binary multiplier, so `16Gi`, `16G`
/// and `16384Mi` are all 16 GiB (SkyPilot treats SI suffixes as binary).
/// `m` is milli-bytes. `None` for malformed input.
pub fn parse_memory_gib(q: &str) -> Option<f64> {
    const GIB: f64 = (1u64 << 30) as f64;
    let q = q.trim();
    if let Ok(bytes) = q.parse::<u64>() {
        return Some(bytes as f64 / GIB);
    }
    // SkyPilot splits at the first unit letter (`[KMGTPBm]`); `k`/`E` are tolerated too.
    // By byte: the unit letters are ASCII, which never occurs inside a
    // multi-byte character, so the index is the one `str::find` gives.
    let split = q.bytes().position(|b| {
        matches!(
            b,
            b'K' | b'k' | b'M' | b'G' | b'T' | b'P' | b'E' | b'B' | b'm'
        )
    });
    let (number, unit) = match split {
        Some(i) => (&q[..i], &q[i..]),
        None => (q, ""),
    };
    let number: f64 = number.trim().parse().ok()?;
    let multiplier = match unit.chars().next() {
        None | Some('B') => 1.0,
        Some('m') => 0.001,
        Some('K' | 'k') => (1u64 << 10) as f64,
        Some('M') => (1u64 << 20) as f64,
        Some('G') => GIB,
        Some('T') => (1u64 << 40) as f64,
        Some('P') => (1u64 << 50) as f64,
        Some('E') => (1u64 << 60) as f64,
        Some(_) => return None,
    };
    let v = number * multiplier / GIB;
    (v.is_finite() && v >= 0.0).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_quantities() {
        for (q, want) in [
            ("3500m", Some(3.5)),
            ("4", Some(4.0)),
            ("0.5", Some(0.5)),
            (" 8 ", Some(8.0)),
            ("250m", Some(0.25)),
            ("", None),
            ("abc", None),
            ("-1", None),
            ("m", None),
        ] {
            assert_eq!(parse_cpu_quantity(q), want, "{q:?}");
        }
    }

    #[test]
    fn memory_quantities() {
        for (q, want) in [
            ("16Gi", Some(16.0)),
            ("16384Mi", Some(16.0)),
            ("17179869184", Some(16.0)),
            ("16G", Some(16.0)),
            ("16777216Ki", Some(16.0)),
            ("1Ti", Some(1024.0)),
            ("512Mi", Some(0.5)),
            ("1073741824000m", Some(1.0)),
            ("1.5Gi", Some(1.5)),
            ("", None),
            ("lots", None),
            ("16Xi", None),
        ] {
            assert_eq!(parse_memory_gib(q), want, "{q:?}");
        }
    }
}
