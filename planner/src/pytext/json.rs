//! Python's `json.dumps` with its defaults (`ensure_ascii=True`), for the
//! documents SkyPilot's CLI prints with `json.dumps(..., indent=2)`.

/// A JSON string literal as `json.dumps` writes one
/// (`json.encoder.py_encode_basestring_ascii`): `"` and `\` escaped, the
/// short escapes `\b \f \n \r \t`, and every other character outside
/// printable ASCII (`[^\ -~]`: controls, DEL, all non-ASCII) as `\uxxxx`
/// in lower-case hex, characters beyond the BMP as a surrogate pair.
pub fn py_json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            ' '..='~' => out.push(ch),
            _ => {
                let mut units = [0u16; 2];
                for unit in ch.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each expected value is what CPython 3.12's `json.dumps(s)` prints.
    #[test]
    fn strings_are_escaped_as_json_dumps_escapes_them() {
        let cases = [
            ("default", r#""default""#),
            ("", r#""""#),
            ("say \"hi\"", r#""say \"hi\"""#),
            ("a\\b", r#""a\\b""#),
            ("\u{8}\u{c}\n\r\t", r#""\b\f\n\r\t""#),
            ("\u{0}\u{1f}", r#""\u0000\u001f""#),
            ("\u{7f}", r#""\u007f""#),
            ("équipe", r#""\u00e9quipe""#),
            ("团队", r#""\u56e2\u961f""#),
            ("\u{1F389}", r#""\ud83c\udf89""#),
            ("/<>'~", r#""/<>'~""#),
        ];
        for (input, want) in cases {
            assert_eq!(py_json_str(input), want, "{input:?}");
        }
    }
}
