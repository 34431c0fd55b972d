//! A JSON reader that keeps what Go's decoder sees and the serde_json tree loses: duplicate keys,
//! the literal text of numbers, and Go's syntax error texts (`encoding/json` scanner.go), so a bad
//! body fails with the message the apiserver gives.

use serde_json::{Map, Number, Value};

use crate::go_json;

/// Parsed JSON with object entries in document order (duplicates kept) and numbers as written.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    Null,
    Bool(bool),
    /// The number literal exactly as it appears in the body.
    Num(String),
    Str(String),
    Arr(Vec<Val>),
    Obj(Vec<(String, Val)>),
}

/// Go refuses nesting beyond 10000 levels (`maxNestingDepth` in scanner.go); this reader stops
/// earlier so the recursive walk cannot exhaust a thread's stack. No Kubernetes object nests this far.
const SAFE_DEPTH: usize = 512;

impl Val {
    /// The noun Go's `UnmarshalTypeError` uses for this JSON value.
    pub fn go_kind(&self) -> &'static str {
        match self {
            Val::Null => "null",
            Val::Bool(_) => "bool",
            Val::Num(_) => "number",
            Val::Str(_) => "string",
            Val::Arr(_) => "array",
            Val::Obj(_) => "object",
        }
    }

    /// The serde_json form; for duplicate keys the last one wins, as in Go.
    pub fn to_json(&self) -> Value {
        match self {
            Val::Null => Value::Null,
            Val::Bool(b) => Value::Bool(*b),
            Val::Num(lit) => number_value(lit),
            Val::Str(s) => Value::String(s.clone()),
            Val::Arr(items) => Value::Array(items.iter().map(Val::to_json).collect()),
            Val::Obj(entries) => {
                let mut m = Map::new();
                for (k, v) in entries {
                    m.insert(k.clone(), v.to_json());
                }
                Value::Object(m)
            }
        }
    }

    /// The raw JSON text of this value (what a Go `UnmarshalJSON` method receives).
    pub fn raw_text(&self) -> String {
        match self {
            Val::Num(lit) => lit.clone(),
            other => other.to_json().to_string(),
        }
    }
}

/// A number literal as serde_json stores it: integers exactly, everything else as f64.
pub fn number_value(lit: &str) -> Value {
    if let Ok(i) = lit.parse::<i64>() {
        return Value::Number(i.into());
    }
    if let Ok(u) = lit.parse::<u64>() {
        return Value::Number(u.into());
    }
    lit.parse::<f64>()
        .ok()
        .and_then(Number::from_f64)
        .map(Value::Number)
        .unwrap_or(Value::Null)
}

/// Parse a whole document. The error is Go's `SyntaxError` text (see [`go_json`]), e.g.
/// `invalid character 'x' looking for beginning of value` or `unexpected end of JSON input`.
pub fn parse(data: &[u8]) -> Result<Val, String> {
    go_json::check_valid_depth(data, SAFE_DEPTH)?;
    Ok(Parser { data, pos: 0 }.value())
}

/// Reads a document the scanner found valid, so it meets no syntax error; whatever it is given,
/// it never reads past the end.
struct Parser<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    fn skip_space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    /// Steps over `c` if it comes next.
    fn eat(&mut self, c: u8) -> bool {
        let next = self.peek() == Some(c);
        if next {
            self.pos += 1;
        }
        next
    }

    fn value(&mut self) -> Val {
        self.skip_space();
        let Some(c) = self.peek() else {
            return Val::Null;
        };
        match c {
            b'{' => {
                self.pos += 1;
                self.object()
            }
            b'[' => {
                self.pos += 1;
                self.array()
            }
            b'"' => {
                self.pos += 1;
                Val::Str(self.string())
            }
            b't' => self.literal("true", Val::Bool(true)),
            b'f' => self.literal("false", Val::Bool(false)),
            b'n' => self.literal("null", Val::Null),
            _ => Val::Num(self.number()),
        }
    }

    fn literal(&mut self, word: &str, v: Val) -> Val {
        self.pos += word.len();
        v
    }

    fn object(&mut self) -> Val {
        let mut entries = Vec::new();
        self.skip_space();
        if self.eat(b'}') {
            return Val::Obj(entries);
        }
        loop {
            self.skip_space();
            self.eat(b'"');
            let key = self.string();
            self.skip_space();
            self.eat(b':');
            entries.push((key, self.value()));
            self.skip_space();
            if !self.eat(b',') {
                self.eat(b'}');
                return Val::Obj(entries);
            }
        }
    }

    fn array(&mut self) -> Val {
        let mut items = Vec::new();
        self.skip_space();
        if self.eat(b']') {
            return Val::Arr(items);
        }
        loop {
            items.push(self.value());
            self.skip_space();
            if !self.eat(b',') {
                self.eat(b']');
                return Val::Arr(items);
            }
        }
    }

    /// A string body after its opening quote. Invalid UTF-8 becomes U+FFFD, byte by byte as in Go.
    fn string(&mut self) -> String {
        let mut out: Vec<u8> = Vec::new();
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let Some(e) = self.peek() else { break };
                    self.pos += 1;
                    match e {
                        b'b' => out.push(0x08),
                        b'f' => out.push(0x0c),
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'u' => {
                            let ch = self.unicode_escape();
                            let mut buf = [0u8; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                        }
                        // `\"`, `\\` and `\/` stand for themselves.
                        e => out.push(e),
                    }
                }
                c => out.push(c),
            }
        }
        go_json::lossy_utf8(&out)
    }

    fn hex4(&mut self) -> u32 {
        let mut v = 0u32;
        for _ in 0..4 {
            let Some(d) = self.peek().and_then(|c| char::from(c).to_digit(16)) else {
                break;
            };
            self.pos += 1;
            v = v * 16 + d;
        }
        v
    }

    /// `\uXXXX`, joining surrogate pairs; lone surrogates become U+FFFD like Go's unquote.
    fn unicode_escape(&mut self) -> char {
        let first = self.hex4();
        if (0xd800..0xdc00).contains(&first)
            && self.data.get(self.pos) == Some(&b'\\')
            && self.data.get(self.pos + 1) == Some(&b'u')
        {
            let save = self.pos;
            self.pos += 2;
            let second = self.hex4();
            if (0xdc00..0xe000).contains(&second) {
                let c = 0x10000 + ((first - 0xd800) << 10) + (second - 0xdc00);
                return char::from_u32(c).unwrap_or('\u{fffd}');
            }
            self.pos = save;
        }
        char::from_u32(first).unwrap_or('\u{fffd}')
    }

    /// The literal text of a number.
    fn number(&mut self) -> String {
        let start = self.pos;
        while let Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        String::from_utf8_lossy(&self.data[start..self.pos]).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_duplicates_and_literals() {
        let v = parse(br#"{"a": 1.50, "a": [true, null], "b": "x\u00e9"}"#).unwrap();
        let Val::Obj(entries) = &v else {
            panic!("not an object")
        };
        assert_eq!(entries.len(), 3);
        assert_eq!(entries[0].1, Val::Num("1.50".into()));
        assert_eq!(entries[1].1, Val::Arr(vec![Val::Bool(true), Val::Null]));
        assert_eq!(entries[2].1, Val::Str("xé".into()));
        assert_eq!(v.to_json()["a"], serde_json::json!([true, null]));
    }

    #[test]
    fn syntax_errors_are_the_scanners() {
        // Go feeds a space at the end: a cut literal names it.
        assert_eq!(
            parse(b"nul").unwrap_err(),
            "invalid character ' ' in literal null (expecting 'l')"
        );
        assert_eq!(parse(b"{").unwrap_err(), "unexpected end of JSON input");
        let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert!(parse(nested(SAFE_DEPTH).as_bytes()).is_ok());
        assert_eq!(
            parse(nested(SAFE_DEPTH + 1).as_bytes()).unwrap_err(),
            "invalid character '[' exceeded max depth"
        );
    }

    #[test]
    fn escapes_and_numbers_are_read_as_written() {
        let v = parse(br#"[-1.5e+3, "a\"\\\/\b\f\n\r\t\ud83d\ude00\ud800x", 0]"#).unwrap();
        assert_eq!(
            v,
            Val::Arr(vec![
                Val::Num("-1.5e+3".into()),
                Val::Str("a\"\\/\u{8}\u{c}\n\r\t\u{1f600}\u{fffd}x".into()),
                Val::Num("0".into()),
            ])
        );
    }
}
