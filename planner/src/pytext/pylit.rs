//! Python literals as `ast.literal_eval` reads them, as far as a catalog's
//! `GpuInfo` cell needs: dicts, lists, tuples, strings, numbers and
//! `True`/`False`/`None`. Anything else (e.g. GCP's bare `tpu-v4-8`) is not
//! a literal, as for Python (`literal_eval` raises).

/// A Python literal value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A dict, in order.
    Dict(Vec<(Value, Value)>),
    /// A list or tuple.
    List(Vec<Value>),
    /// A string.
    Str(String),
    /// A number.
    Num(f64),
    /// `True`, `False`, `None`.
    Const,
}

impl Value {
    /// `value[key]` of a dict with a string key (`None`: not a dict, or no
    /// such key).
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Dict(items) => items
                .iter()
                .find(|(k, _)| matches!(k, Value::Str(s) if s == key))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// `value[i]` of a list or tuple (`None`: not one, or too short).
    pub fn index(&self, i: usize) -> Option<&Value> {
        match self {
            Value::List(items) => items.get(i),
            _ => None,
        }
    }

    /// The number, if this is one.
    pub fn as_num(&self) -> Option<f64> {
        match self {
            Value::Num(n) => Some(*n),
            _ => None,
        }
    }
}

/// Parses `text` as one literal (`None`: not a literal).
pub fn parse(text: &str) -> Option<Value> {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
    };
    let v = p.value()?;
    p.ws();
    (p.i == p.s.len()).then_some(v)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Option<Value> {
        self.ws();
        match *self.s.get(self.i)? {
            b'{' => {
                self.i += 1;
                let mut items = Vec::new();
                loop {
                    if self.eat(b'}') {
                        return Some(Value::Dict(items));
                    }
                    let k = self.value()?;
                    if !self.eat(b':') {
                        return None;
                    }
                    let v = self.value()?;
                    items.push((k, v));
                    if !self.eat(b',') {
                        return self.eat(b'}').then_some(Value::Dict(items));
                    }
                }
            }
            open @ (b'[' | b'(') => {
                let close = if open == b'[' { b']' } else { b')' };
                self.i += 1;
                let mut items = Vec::new();
                loop {
                    if self.eat(close) {
                        return Some(Value::List(items));
                    }
                    items.push(self.value()?);
                    if !self.eat(b',') {
                        return self.eat(close).then_some(Value::List(items));
                    }
                }
            }
            q @ (b'\'' | b'"') => {
                self.i += 1;
                let start = self.i;
                while *self.s.get(self.i)? != q {
                    if self.s[self.i] == b'\\' {
                        self.i += 1;
                    }
                    self.i += 1;
                }
                let text = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
                self.i += 1;
                Some(Value::Str(text))
            }
            _ => {
                let start = self.i;
                while self.i < self.s.len()
                    && (self.s[self.i].is_ascii_alphanumeric()
                        || matches!(self.s[self.i], b'.' | b'-' | b'+' | b'_'))
                {
                    self.i += 1;
                }
                let word = std::str::from_utf8(&self.s[start..self.i]).ok()?;
                match word {
                    "True" | "False" | "None" => Some(Value::Const),
                    _ => {
                        let t = word.replace('_', "");
                        // Python numbers only: no `inf`/`nan` words, no `1-2`.
                        let numeric = t
                            .trim_start_matches(['-', '+'])
                            .starts_with(|c: char| c.is_ascii_digit() || c == '.');
                        if !numeric {
                            return None;
                        }
                        t.parse::<f64>().ok().map(Value::Num)
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_and_not_literals() {
        assert!(parse("tpu-v4-8").is_none());
        assert!(parse("A100").is_none());
        assert!(parse("{'a': 1").is_none());
        assert!(parse("{'a': [1, 2.5, -3e2], 'b': (None,)}").is_some());
        assert_eq!(parse(" 1_000 "), Some(Value::Num(1000.0)));
        assert!(parse("inf").is_none());
    }

    #[test]
    fn paths_into_a_value() {
        let v = parse("{'Gpus': [{'MemoryInfo': {'SizeInMiB': 81920}}]}").unwrap();
        let mib = v
            .get("Gpus")
            .and_then(|g| g.index(0))
            .and_then(|g| g.get("MemoryInfo"))
            .and_then(|m| m.get("SizeInMiB"))
            .and_then(Value::as_num);
        assert_eq!(mib, Some(81920.0));
        assert_eq!(v.get("Other"), None);
        assert_eq!(v.index(0), None);
    }
}
