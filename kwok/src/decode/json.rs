//! A JSON reader that keeps what Go's decoder sees and the serde_json tree loses: duplicate keys,
//! the literal text of numbers, and Go's syntax error texts (`encoding/json` scanner.go), so a bad
//! body fails with the message the apiserver gives.

use serde_json::{Map, Number, Value};

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

/// Parse a whole document. The error is Go's `SyntaxError` text, e.g.
/// `invalid character 'x' looking for beginning of value` or `unexpected end of JSON input`.
pub fn parse(data: &[u8]) -> Result<Val, String> {
    let mut p = Parser { data, pos: 0 };
    p.skip_space();
    let v = p.value(0)?;
    p.skip_space();
    if let Some(&c) = data.get(p.pos) {
        return Err(invalid(c, "after top-level value"));
    }
    Ok(v)
}

struct Parser<'a> {
    data: &'a [u8],
    pos: usize,
}

/// Go's `quoteChar`: the offending byte as it appears in the message.
fn quote_char(c: u8) -> String {
    match c {
        b'\'' => "'\\''".to_string(),
        b'"' => "'\"'".to_string(),
        b'\n' => "'\\n'".to_string(),
        b'\r' => "'\\r'".to_string(),
        b'\t' => "'\\t'".to_string(),
        0x07 => "'\\a'".to_string(),
        0x08 => "'\\b'".to_string(),
        0x0c => "'\\f'".to_string(),
        0x0b => "'\\v'".to_string(),
        b'\\' => "'\\\\'".to_string(),
        c if c < 0x20 || c == 0x7f => format!("'\\x{c:02x}'"),
        // A lone byte >= 0x80 is converted to the rune of the same value by Go's string(c).
        c if c >= 0x80 => {
            let ch = char::from(c);
            if (0x80..0xa0).contains(&c) {
                format!("'\\u{:04x}'", c)
            } else {
                format!("'{ch}'")
            }
        }
        c => format!("'{}'", c as char),
    }
}

fn invalid(c: u8, context: &str) -> String {
    format!("invalid character {} {}", quote_char(c), context)
}

const EOF: &str = "unexpected end of JSON input";

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    fn skip_space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Result<Val, String> {
        let Some(c) = self.peek() else {
            return Err(EOF.to_string());
        };
        match c {
            b'{' => {
                if depth >= SAFE_DEPTH {
                    return Err(invalid(c, "exceeded max depth"));
                }
                self.pos += 1;
                self.object(depth + 1)
            }
            b'[' => {
                if depth >= SAFE_DEPTH {
                    return Err(invalid(c, "exceeded max depth"));
                }
                self.pos += 1;
                self.array(depth + 1)
            }
            b'"' => {
                self.pos += 1;
                self.string().map(Val::Str)
            }
            b'-' | b'0'..=b'9' => self.number().map(Val::Num),
            b't' => self.literal("true", Val::Bool(true)),
            b'f' => self.literal("false", Val::Bool(false)),
            b'n' => self.literal("null", Val::Null),
            c => Err(invalid(c, "looking for beginning of value")),
        }
    }

    fn literal(&mut self, word: &'static str, v: Val) -> Result<Val, String> {
        // The first byte is known to match.
        self.pos += 1;
        for expected in word.bytes().skip(1) {
            match self.peek() {
                None => return Err(EOF.to_string()),
                Some(c) if c == expected => self.pos += 1,
                Some(c) => {
                    return Err(invalid(
                        c,
                        &format!("in literal {word} (expecting {})", quote_char(expected)),
                    ))
                }
            }
        }
        Ok(v)
    }

    fn object(&mut self, depth: usize) -> Result<Val, String> {
        let mut entries = Vec::new();
        self.skip_space();
        match self.peek() {
            None => return Err(EOF.to_string()),
            Some(b'}') => {
                self.pos += 1;
                return Ok(Val::Obj(entries));
            }
            _ => {}
        }
        loop {
            match self.peek() {
                None => return Err(EOF.to_string()),
                Some(b'"') => self.pos += 1,
                Some(c) => return Err(invalid(c, "looking for beginning of object key string")),
            }
            let key = self.string()?;
            self.skip_space();
            match self.peek() {
                None => return Err(EOF.to_string()),
                Some(b':') => self.pos += 1,
                Some(c) => return Err(invalid(c, "after object key")),
            }
            self.skip_space();
            let v = self.value(depth)?;
            entries.push((key, v));
            self.skip_space();
            match self.peek() {
                None => return Err(EOF.to_string()),
                Some(b',') => {
                    self.pos += 1;
                    self.skip_space();
                }
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Val::Obj(entries));
                }
                Some(c) => return Err(invalid(c, "after object key:value pair")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Val, String> {
        let mut items = Vec::new();
        self.skip_space();
        match self.peek() {
            None => return Err(EOF.to_string()),
            Some(b']') => {
                self.pos += 1;
                return Ok(Val::Arr(items));
            }
            _ => {}
        }
        loop {
            items.push(self.value(depth)?);
            self.skip_space();
            match self.peek() {
                None => return Err(EOF.to_string()),
                Some(b',') => {
                    self.pos += 1;
                    self.skip_space();
                }
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Val::Arr(items));
                }
                Some(c) => return Err(invalid(c, "after array element")),
            }
        }
    }

    /// A string body after its opening quote. Invalid UTF-8 becomes U+FFFD, as in Go.
    fn string(&mut self) -> Result<String, String> {
        let mut out: Vec<u8> = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(EOF.to_string());
            };
            self.pos += 1;
            match c {
                b'"' => return Ok(String::from_utf8_lossy(&out).into_owned()),
                b'\\' => {
                    let Some(e) = self.peek() else {
                        return Err(EOF.to_string());
                    };
                    self.pos += 1;
                    match e {
                        b'"' => out.push(b'"'),
                        b'\\' => out.push(b'\\'),
                        b'/' => out.push(b'/'),
                        b'b' => out.push(0x08),
                        b'f' => out.push(0x0c),
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'u' => {
                            let ch = self.unicode_escape()?;
                            let mut buf = [0u8; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                        }
                        e => return Err(invalid(e, "in string escape code")),
                    }
                }
                c if c < 0x20 => return Err(invalid(c, "in string literal")),
                c => out.push(c),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let mut v = 0u32;
        for _ in 0..4 {
            let Some(c) = self.peek() else {
                return Err(EOF.to_string());
            };
            let d = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                b'A'..=b'F' => c - b'A' + 10,
                c => return Err(invalid(c, "in \\u hexadecimal character escape")),
            };
            self.pos += 1;
            v = v * 16 + u32::from(d);
        }
        Ok(v)
    }

    /// `\uXXXX`, joining surrogate pairs; lone surrogates become U+FFFD like Go's unquote.
    fn unicode_escape(&mut self) -> Result<char, String> {
        let first = self.hex4()?;
        if (0xd800..0xdc00).contains(&first)
            && self.data.get(self.pos) == Some(&b'\\')
            && self.data.get(self.pos + 1) == Some(&b'u')
        {
            let save = self.pos;
            self.pos += 2;
            let second = self.hex4()?;
            if (0xdc00..0xe000).contains(&second) {
                let c = 0x10000 + ((first - 0xd800) << 10) + (second - 0xdc00);
                return Ok(char::from_u32(c).unwrap_or('\u{fffd}'));
            }
            self.pos = save;
        }
        Ok(char::from_u32(first).unwrap_or('\u{fffd}'))
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<String, String> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
            match self.peek() {
                None => return Err(EOF.to_string()),
                Some(b'0'..=b'9') => {}
                Some(c) => return Err(invalid(c, "in numeric literal")),
            }
        }
        if self.peek() == Some(b'0') {
            self.pos += 1;
        } else {
            self.digits();
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            match self.peek() {
                None => return Err(EOF.to_string()),
                Some(b'0'..=b'9') => {
                    self.digits();
                }
                Some(c) => return Err(invalid(c, "after decimal point in numeric literal")),
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            match self.peek() {
                None => return Err(EOF.to_string()),
                Some(b'0'..=b'9') => {
                    self.digits();
                }
                Some(c) => return Err(invalid(c, "in exponent of numeric literal")),
            }
        }
        Ok(String::from_utf8_lossy(&self.data[start..self.pos]).into_owned())
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
    fn go_syntax_errors() {
        // Texts of Go's encoding/json scanner.
        assert_eq!(parse(b"").unwrap_err(), "unexpected end of JSON input");
        assert_eq!(parse(b"{").unwrap_err(), "unexpected end of JSON input");
        assert_eq!(
            parse(b"x").unwrap_err(),
            "invalid character 'x' looking for beginning of value"
        );
        assert_eq!(
            parse(b"{]").unwrap_err(),
            "invalid character ']' looking for beginning of object key string"
        );
        assert_eq!(
            parse(br#"{"a" 1}"#).unwrap_err(),
            "invalid character '1' after object key"
        );
        assert_eq!(
            parse(br#"{"a":1 "b":2}"#).unwrap_err(),
            "invalid character '\"' after object key:value pair"
        );
        assert_eq!(
            parse(b"[1 2]").unwrap_err(),
            "invalid character '2' after array element"
        );
        assert_eq!(
            parse(b"{} x").unwrap_err(),
            "invalid character 'x' after top-level value"
        );
        assert_eq!(
            parse(b"tru ").unwrap_err(),
            "invalid character ' ' in literal true (expecting 'e')"
        );
        assert_eq!(
            parse(b"[1.]").unwrap_err(),
            "invalid character ']' after decimal point in numeric literal"
        );
        assert_eq!(
            parse(b"\"a\nb\"").unwrap_err(),
            "invalid character '\\n' in string literal"
        );
    }
}
