//! Python's text forms of strings and numbers, as SkyPilot's messages and
//! tables print them (`repr()` of a `str` or a list, `str()` of a float,
//! f-string fixed-point, `sky.utils.common_utils.format_float`).

/// Python's `repr()` of a string: single quotes unless the text contains one and no double quote.
pub fn py_str_repr(s: &str) -> String {
    let use_double = s.contains('\'') && !s.contains('"');
    let q = if use_double { '"' } else { '\'' };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(q);
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c == q => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out.push(q);
    out
}

/// Python list-of-str repr: `['H100:8', 'A100:8']`.
pub fn py_list(items: &[String]) -> String {
    format!(
        "[{}]",
        items
            .iter()
            .map(|s| py_str_repr(s))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// Python's `str()` of a list of objects, given each one's `repr()`:
/// `[AWS, GCP]` for a list of clouds.
pub fn py_repr_list<'a>(reprs: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::from("[");
    for (i, r) in reprs.into_iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(r);
    }
    out.push(']');
    out
}

/// Python's `str(float)`: `32.0`, `0.5`, `1e-05`.
pub fn py_float_str(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x.fract() == 0.0 && x.abs() < 1e16 {
        // Below 2^53 an integral float's shortest form (`Display`) is its
        // integer digits: cheaper than the exact one-decimal formatting.
        if x.abs() < 9_007_199_254_740_992.0 {
            let mut s = x.to_string();
            s.push_str(".0");
            return s;
        }
        return format!("{x:.1}");
    }
    let abs = x.abs();
    if !(1e-4..1e16).contains(&abs) {
        // Python switches to exponent notation: 1e-05, 1.5e+16.
        let s = format!("{x:e}");
        let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{mantissa}e{sign}{:02}", exp.abs());
    }
    format!("{x}")
}

/// Python `str()` of a number that SkyPilot keeps as an int when integral
/// (disk sizes): `256`, `1.5`.
pub fn py_num(x: f64) -> String {
    if x.is_finite() && x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x}")
    }
}

/// `10^k` for the digits [`scaled_integer`] handles (each exact in an `f64`).
const POW10: [f64; 7] = [1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6];

/// `Some(n)` when `x` (non-negative) reads as exactly `n / 10^digits` at
/// `digits` decimals: when `x · 10^digits` rounds to the integer `n` below
/// 2^52, the exact product is within a quarter of `n` (half an ulp, at
/// most 1/4 there), so rounding `x` to `digits` decimals — half-to-even or
/// otherwise — gives `n / 10^digits`. Prices (`3.06`, `8.00`) mostly do.
/// A negative `x` is left to the exact path (`-0.0` prints `-0.00`).
fn scaled_integer(x: f64, digits: usize) -> Option<u64> {
    let scale = *POW10.get(digits)?;
    if !(x.is_finite() && x.is_sign_positive()) {
        return None;
    }
    let y = x * scale;
    (y.fract() == 0.0 && y < 4.0e15).then_some(y as u64)
}

/// Python's `f"{x:.{digits}f}"`: the exact binary value rounded half-to-even.
pub fn format_fixed(x: f64, digits: usize) -> String {
    if let Some(n) = scaled_integer(x, digits) {
        // `n / 10^digits` exactly: its integer part, then the decimals
        // zero-padded (integers format without the float machinery).
        let pow = POW10[digits] as u64;
        let mut digits_of = itoa::Buffer::new();
        let mut s = String::with_capacity(24);
        s.push_str(digits_of.format(n / pow));
        if digits > 0 {
            let frac = digits_of.format(n % pow);
            s.push('.');
            s.extend(std::iter::repeat_n('0', digits - frac.len()));
            s.push_str(frac);
        }
        return s;
    }
    // Most catalog numbers have a few decimals (`3.06`, `61.0`): when the
    // shortest form that reads back as `x` (`Display`, which never uses an
    // exponent) has at most `digits` decimals, it is the exact rounding,
    // padded — below 1e9 a float is within 2^-24 of that form, far less
    // than half of 10^-6, so no other multiple of 10^-digits is nearer.
    // The exact formatting below costs several times more (it falls back
    // to big-number arithmetic for many values).
    if digits <= 6 && x.is_finite() && x.abs() < 1e9 {
        let mut s = x.to_string();
        let decimals = s.find('.').map_or(0, |dot| s.len() - dot - 1);
        if decimals <= digits {
            if digits > 0 {
                if decimals == 0 {
                    s.push('.');
                }
                s.extend(std::iter::repeat_n('0', digits - decimals));
            }
            return s;
        }
    }
    // Rust formats the exact decimal expansion of the binary value and rounds
    // ties to even, which is what CPython does.
    let s = format!("{x:.digits$}");
    if s.starts_with('-')
        && s.trim_start_matches('-')
            .chars()
            .all(|c| c == '0' || c == '.')
    {
        // Python keeps the sign of negative zero results ("-0.00"); so does Rust.
        return s;
    }
    s
}

/// SkyPilot's `format_float`: integers without decimals, else one decimal.
pub fn format_float(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format_fixed(x, 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_rounding_vectors() {
        for (x, d, want) in [
            (0.125, 2, "0.12"),
            (0.375, 2, "0.38"),
            (2.675, 2, "2.67"),
            (1.005, 2, "1.00"),
            (17.15, 1, "17.1"),
            (0.384, 2, "0.38"),
            (3.06, 2, "3.06"),
        ] {
            assert_eq!(format_fixed(x, d), want, "{x}");
        }
    }

    #[test]
    fn the_shortcuts_format_as_the_exact_formatting_does() {
        // Catalog-like values (prices with a few decimals, whole memory
        // sizes, sums of two prices) and arbitrary bit patterns.
        let mut values = vec![0.0, -0.0, 0.5, 1.5, 2.5, -2.5, 1e-7, 0.0005, 999_999_999.5];
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..20_000 {
            let r = next();
            let k = (r % 2_000_000) as f64;
            let scale = [1.0, 10.0, 100.0, 1000.0, 10_000.0, 100_000.0][(r >> 32) as usize % 6];
            values.push(k / scale);
            values.push(k / scale + (next() % 50_000) as f64 / 1000.0);
            values.push(-(k / scale));
            let bits = f64::from_bits(next());
            if bits.abs() < 1e12 {
                values.push(bits);
            }
        }
        for x in values {
            for digits in 0..=7 {
                assert_eq!(
                    format_fixed(x, digits),
                    format!("{x:.digits$}"),
                    "{x:e} {digits}"
                );
            }
            if x.fract() == 0.0 && x.abs() < 1e16 {
                assert_eq!(py_float_str(x), format!("{x:.1}"), "{x:e}");
            }
        }
        for x in [8.0, -0.0, 4_503_599_627_370_497.0, 9_007_199_254_740_991.0] {
            assert_eq!(py_float_str(x), format!("{x:.1}"));
        }
    }

    #[test]
    fn lists_of_objects_print_their_reprs() {
        assert_eq!(py_repr_list(["AWS", "GCP"]), "[AWS, GCP]");
        assert_eq!(py_repr_list(["AWS"]), "[AWS]");
        assert_eq!(py_repr_list([]), "[]");
    }
}
