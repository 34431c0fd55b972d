//! Go's `encoding/json` as the API server reads a body: its syntax errors and its type errors.
//!
//! The server decodes request bodies (objects, delete options, patches) with `sigs.k8s.io/json`
//! (a fork of Go's `encoding/json`), which first runs the byte-level syntax scanner of
//! `encoding/json/scanner.go` and then decodes. kubectl shows the resulting messages verbatim
//! (`invalid character 'x' looking for beginning of value`), so the scanner below is a
//! state-for-state port of the Go one: it reports the same first error. Objects, delete options
//! and patches are checked here first (the bodies of the binding, eviction, token, finalize and
//! scale subresources are not yet).

use serde_json::Value;

/// What the scanner is in the middle of (Go `parseObjectKey`, `parseObjectValue`, `parseArrayValue`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Parse {
    ObjectKey,
    ObjectValue,
    ArrayValue,
}

/// The next transition of the scanner (Go's `scanner.step` function pointer).
#[derive(Clone, Copy)]
enum Step {
    BeginValue,
    BeginValueOrEmpty,
    BeginStringOrEmpty,
    BeginString,
    EndValue,
    EndTop,
    InString,
    InStringEsc,
    /// Inside `\u`, with this many hex digits read so far.
    InStringEscU(u8),
    Neg,
    One,
    Zero,
    Dot,
    Dot0,
    E,
    ESign,
    E0,
    /// Inside the literal `word`, `pos` bytes read.
    Literal(&'static str, usize),
    Error,
}

/// Go's `maxNestingDepth`.
const MAX_NESTING_DEPTH: usize = 10000;

struct Scanner {
    step: Step,
    stack: Vec<Parse>,
    max_depth: usize,
    end_top: bool,
    err: Option<String>,
}

#[derive(PartialEq, Eq)]
enum Op {
    Continue,
    End,
    Error,
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_hex(c: u8) -> bool {
    c.is_ascii_hexdigit()
}

/// Go `quoteChar`: the byte as a single-quoted Go character literal (a byte is taken as a Latin-1 rune).
fn quote_char(c: u8) -> String {
    match c {
        b'\'' => r"'\''".to_string(),
        b'"' => "'\"'".to_string(),
        _ => format!("'{}'", go_quote_rune(c)),
    }
}

/// The inside of `strconv.Quote(string(rune(c)))` for a Latin-1 rune.
fn go_quote_rune(c: u8) -> String {
    match c {
        b'\\' => r"\\".to_string(),
        0x07 => r"\a".to_string(),
        0x08 => r"\b".to_string(),
        0x0c => r"\f".to_string(),
        b'\n' => r"\n".to_string(),
        b'\r' => r"\r".to_string(),
        b'\t' => r"\t".to_string(),
        0x0b => r"\v".to_string(),
        0x20..=0x7e => (c as char).to_string(),
        // strconv.IsPrint: Latin-1 letters and symbols print, NBSP and the soft hyphen do not.
        0xa1..=0xff if c != 0xad => (c as char).to_string(),
        c if c < 0x20 || c == 0x7f => format!(r"\x{c:02x}"),
        c => format!(r"\u{:04x}", c as u32),
    }
}

impl Scanner {
    fn new(max_depth: usize) -> Self {
        Self {
            step: Step::BeginValue,
            stack: Vec::new(),
            max_depth,
            end_top: false,
            err: None,
        }
    }

    fn error(&mut self, c: u8, context: &str) -> Op {
        self.step = Step::Error;
        self.err = Some(format!("invalid character {} {}", quote_char(c), context));
        Op::Error
    }

    fn push(&mut self, c: u8, state: Parse) -> Op {
        self.stack.push(state);
        if self.stack.len() <= self.max_depth {
            Op::Continue
        } else {
            self.error(c, "exceeded max depth")
        }
    }

    fn pop(&mut self) {
        self.stack.pop();
        if self.stack.is_empty() {
            self.step = Step::EndTop;
            self.end_top = true;
        } else {
            self.step = Step::EndValue;
        }
    }

    fn eof(&mut self) -> Op {
        if self.err.is_some() {
            return Op::Error;
        }
        if self.end_top {
            return Op::End;
        }
        self.feed(b' ');
        if self.end_top {
            return Op::End;
        }
        if self.err.is_none() {
            self.err = Some("unexpected end of JSON input".to_string());
        }
        Op::Error
    }

    fn feed(&mut self, c: u8) -> Op {
        match self.step {
            Step::BeginValueOrEmpty => {
                if is_space(c) {
                    Op::Continue
                } else if c == b']' {
                    self.end_value(c)
                } else {
                    self.begin_value(c)
                }
            }
            Step::BeginValue => self.begin_value(c),
            Step::BeginStringOrEmpty => {
                if is_space(c) {
                    return Op::Continue;
                }
                if c == b'}' {
                    if let Some(top) = self.stack.last_mut() {
                        *top = Parse::ObjectValue;
                    }
                    return self.end_value(c);
                }
                self.begin_string(c)
            }
            Step::BeginString => self.begin_string(c),
            Step::EndValue => self.end_value(c),
            Step::EndTop => self.end_top(c),
            Step::InString => {
                if c == b'"' {
                    self.step = Step::EndValue;
                    Op::Continue
                } else if c == b'\\' {
                    self.step = Step::InStringEsc;
                    Op::Continue
                } else if c < 0x20 {
                    self.error(c, "in string literal")
                } else {
                    Op::Continue
                }
            }
            Step::InStringEsc => match c {
                b'b' | b'f' | b'n' | b'r' | b't' | b'\\' | b'/' | b'"' => {
                    self.step = Step::InString;
                    Op::Continue
                }
                b'u' => {
                    self.step = Step::InStringEscU(0);
                    Op::Continue
                }
                _ => self.error(c, "in string escape code"),
            },
            Step::InStringEscU(n) => {
                if is_hex(c) {
                    self.step = if n == 3 {
                        Step::InString
                    } else {
                        Step::InStringEscU(n + 1)
                    };
                    Op::Continue
                } else {
                    self.error(c, "in \\u hexadecimal character escape")
                }
            }
            Step::Neg => {
                if c == b'0' {
                    self.step = Step::Zero;
                    Op::Continue
                } else if (b'1'..=b'9').contains(&c) {
                    self.step = Step::One;
                    Op::Continue
                } else {
                    self.error(c, "in numeric literal")
                }
            }
            Step::One => {
                if c.is_ascii_digit() {
                    Op::Continue
                } else {
                    self.zero(c)
                }
            }
            Step::Zero => self.zero(c),
            Step::Dot => {
                if c.is_ascii_digit() {
                    self.step = Step::Dot0;
                    Op::Continue
                } else {
                    self.error(c, "after decimal point in numeric literal")
                }
            }
            Step::Dot0 => {
                if c.is_ascii_digit() {
                    Op::Continue
                } else if c == b'e' || c == b'E' {
                    self.step = Step::E;
                    Op::Continue
                } else {
                    self.end_value(c)
                }
            }
            Step::E => {
                if c == b'+' || c == b'-' {
                    self.step = Step::ESign;
                    Op::Continue
                } else {
                    self.e_sign(c)
                }
            }
            Step::ESign => self.e_sign(c),
            Step::E0 => {
                if c.is_ascii_digit() {
                    Op::Continue
                } else {
                    self.end_value(c)
                }
            }
            Step::Literal(word, pos) => {
                let want = word.as_bytes()[pos];
                if c == want {
                    self.step = if pos + 1 == word.len() {
                        Step::EndValue
                    } else {
                        Step::Literal(word, pos + 1)
                    };
                    Op::Continue
                } else {
                    let context = format!("in literal {word} (expecting '{}')", want as char);
                    self.error(c, &context)
                }
            }
            Step::Error => Op::Error,
        }
    }

    fn begin_value(&mut self, c: u8) -> Op {
        if is_space(c) {
            return Op::Continue;
        }
        match c {
            b'{' => {
                self.step = Step::BeginStringOrEmpty;
                self.push(c, Parse::ObjectKey)
            }
            b'[' => {
                self.step = Step::BeginValueOrEmpty;
                self.push(c, Parse::ArrayValue)
            }
            b'"' => {
                self.step = Step::InString;
                Op::Continue
            }
            b'-' => {
                self.step = Step::Neg;
                Op::Continue
            }
            b'0' => {
                self.step = Step::Zero;
                Op::Continue
            }
            b't' => {
                self.step = Step::Literal("true", 1);
                Op::Continue
            }
            b'f' => {
                self.step = Step::Literal("false", 1);
                Op::Continue
            }
            b'n' => {
                self.step = Step::Literal("null", 1);
                Op::Continue
            }
            b'1'..=b'9' => {
                self.step = Step::One;
                Op::Continue
            }
            _ => self.error(c, "looking for beginning of value"),
        }
    }

    fn begin_string(&mut self, c: u8) -> Op {
        if is_space(c) {
            return Op::Continue;
        }
        if c == b'"' {
            self.step = Step::InString;
            return Op::Continue;
        }
        self.error(c, "looking for beginning of object key string")
    }

    fn zero(&mut self, c: u8) -> Op {
        if c == b'.' {
            self.step = Step::Dot;
            Op::Continue
        } else if c == b'e' || c == b'E' {
            self.step = Step::E;
            Op::Continue
        } else {
            self.end_value(c)
        }
    }

    fn e_sign(&mut self, c: u8) -> Op {
        if c.is_ascii_digit() {
            self.step = Step::E0;
            Op::Continue
        } else {
            self.error(c, "in exponent of numeric literal")
        }
    }

    fn end_value(&mut self, c: u8) -> Op {
        let Some(&state) = self.stack.last() else {
            self.step = Step::EndTop;
            self.end_top = true;
            return self.end_top(c);
        };
        if is_space(c) {
            self.step = Step::EndValue;
            return Op::Continue;
        }
        match state {
            Parse::ObjectKey => {
                if c == b':' {
                    if let Some(top) = self.stack.last_mut() {
                        *top = Parse::ObjectValue;
                    }
                    self.step = Step::BeginValue;
                    return Op::Continue;
                }
                self.error(c, "after object key")
            }
            Parse::ObjectValue => {
                if c == b',' {
                    if let Some(top) = self.stack.last_mut() {
                        *top = Parse::ObjectKey;
                    }
                    self.step = Step::BeginString;
                    return Op::Continue;
                }
                if c == b'}' {
                    self.pop();
                    return Op::Continue;
                }
                self.error(c, "after object key:value pair")
            }
            Parse::ArrayValue => {
                if c == b',' {
                    self.step = Step::BeginValue;
                    return Op::Continue;
                }
                if c == b']' {
                    self.pop();
                    return Op::Continue;
                }
                self.error(c, "after array element")
            }
        }
    }

    fn end_top(&mut self, c: u8) -> Op {
        if !is_space(c) {
            // Go records the error now and reports it on the next byte or at EOF.
            self.error(c, "after top-level value");
        }
        Op::End
    }
}

/// Go `checkValid`: the `SyntaxError` message of the first syntax error, if any.
pub fn check_valid(data: &[u8]) -> Result<(), String> {
    check_valid_depth(data, MAX_NESTING_DEPTH)
}

/// [`check_valid`] for a reader that recurses and so nests less deeply than Go's 10000 levels:
/// deeper nesting fails as Go's would at its own limit (`exceeded max depth`).
pub fn check_valid_depth(data: &[u8], max_depth: usize) -> Result<(), String> {
    let mut scan = Scanner::new(max_depth);
    for &c in data {
        if scan.feed(c) == Op::Error {
            return Err(scan.err.unwrap_or_default());
        }
    }
    if scan.eof() == Op::Error {
        return Err(scan.err.unwrap_or_default());
    }
    Ok(())
}

/// Decode a body as Go's `json.Unmarshal` into `interface{}` would: the same syntax errors first,
/// then the value. Invalid UTF-8 inside strings is replaced (Go substitutes U+FFFD, it does not fail).
pub fn decode(data: &[u8]) -> Result<Value, String> {
    check_valid(data)?;
    match serde_json::from_slice(data) {
        Ok(v) => Ok(v),
        Err(first) => {
            let lossy = lossy_utf8(data);
            serde_json::from_str(&lossy).map_err(|_| {
                // Only reachable for numbers Go could not represent either (e.g. 1e999), or
                // nesting deeper than the decoder supports.
                format!("json: {first}")
            })
        }
    }
}

/// Bytes as Go's JSON decoder reads a string's (`unquote`): each byte that does not start a valid
/// UTF-8 sequence becomes U+FFFD by itself (`utf8.DecodeRune` gives `RuneError` of size 1), where
/// Rust's `from_utf8_lossy` gives one U+FFFD for a whole broken sequence.
pub fn lossy_utf8(mut bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    loop {
        match std::str::from_utf8(bytes) {
            Ok(valid) => {
                out.push_str(valid);
                return out;
            }
            Err(error) => {
                let (valid, rest) = bytes.split_at(error.valid_up_to());
                out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                out.push('\u{fffd}');
                bytes = rest.get(1..).unwrap_or_default();
            }
        }
    }
}

/// The JSON kind Go names in `UnmarshalTypeError` ("object", "array", "string", "number", "bool").
pub fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Object(_) => "object",
        Value::Array(_) => "array",
        Value::String(_) => "string",
        Value::Number(_) => "number",
        Value::Bool(_) => "bool",
        Value::Null => "null",
    }
}

/// Go `UnmarshalTypeError.Error()` for a top-level value.
pub fn type_error(v: &Value, go_type: &str) -> String {
    format!(
        "json: cannot unmarshal {} into Go value of type {go_type}",
        json_kind(v)
    )
}

/// Go `UnmarshalTypeError.Error()` for a struct field.
pub fn field_type_error(v: &Value, go_struct: &str, field: &str, go_type: &str) -> String {
    format!(
        "json: cannot unmarshal {} into Go struct field {go_struct}.{field} of type {go_type}",
        json_kind(v)
    )
}

/// `v` with every object's keys sorted, as Go's `json.Marshal` writes a map; list order kept.
pub fn sorted_keys(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted_keys(&m[k])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted_keys).collect()),
        other => other.clone(),
    }
}

/// `json.NewEncoder(w).Encode` of an unstructured value: map keys sorted, `<`, `>` and `&`
/// escaped for HTML, a newline at the end.
pub fn encode_unstructured(v: &Value) -> String {
    format!("{}\n", html_escaped(&sorted_keys(v).to_string()))
}

/// JSON text as Go's encoder writes it by default: `<`, `>`, `&` and the line and paragraph
/// separators escaped (`json.Marshal`'s `HTMLEscape`).
pub fn html_escaped(json: &str) -> String {
    json.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(s: &str) -> String {
        check_valid(s.as_bytes()).expect_err("expected a syntax error")
    }

    #[test]
    fn syntax_errors_match_encoding_json() {
        // Messages as produced by Go's encoding/json scanner for these inputs.
        assert_eq!(err(""), "unexpected end of JSON input");
        assert_eq!(err("{"), "unexpected end of JSON input");
        assert_eq!(
            err("x"),
            "invalid character 'x' looking for beginning of value"
        );
        assert_eq!(
            err("{foo: 1}"),
            "invalid character 'f' looking for beginning of object key string"
        );
        assert_eq!(err(r#"{"a" 1}"#), "invalid character '1' after object key");
        assert_eq!(
            err(r#"{"a":1 "b":2}"#),
            "invalid character '\"' after object key:value pair"
        );
        assert_eq!(err("[1 2]"), "invalid character '2' after array element");
        assert_eq!(
            err("{]"),
            "invalid character ']' looking for beginning of object key string"
        );
        assert_eq!(
            err("[1.]"),
            "invalid character ']' after decimal point in numeric literal"
        );
        // At EOF the scanner is fed one space, so a cut literal or number reports that space.
        assert_eq!(
            err("nul"),
            "invalid character ' ' in literal null (expecting 'l')"
        );
        assert_eq!(
            err("nulx"),
            "invalid character 'x' in literal null (expecting 'l')"
        );
        assert_eq!(
            err("tru e"),
            "invalid character ' ' in literal true (expecting 'e')"
        );
        assert_eq!(err("{} x"), "invalid character 'x' after top-level value");
        assert_eq!(err("{}x"), "invalid character 'x' after top-level value");
        assert_eq!(err("01"), "invalid character '1' after top-level value");
        assert_eq!(
            err("1."),
            "invalid character ' ' after decimal point in numeric literal"
        );
        assert_eq!(
            err("1.x"),
            "invalid character 'x' after decimal point in numeric literal"
        );
        assert_eq!(err("-x"), "invalid character 'x' in numeric literal");
        assert_eq!(
            err("1ex"),
            "invalid character 'x' in exponent of numeric literal"
        );
        assert_eq!(
            err("\"\\x\""),
            "invalid character 'x' in string escape code"
        );
        assert_eq!(
            err("\"\\u12g4\""),
            "invalid character 'g' in \\u hexadecimal character escape"
        );
        assert_eq!(err("\"a\nb\""), "invalid character '\\n' in string literal");
        assert_eq!(
            err("'a'"),
            "invalid character '\\'' looking for beginning of value"
        );
        assert_eq!(
            err("\u{1}"),
            "invalid character '\\x01' looking for beginning of value"
        );
    }

    #[test]
    fn nesting_is_bounded_where_the_reader_says() {
        let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert!(check_valid_depth(nested(3).as_bytes(), 3).is_ok());
        assert_eq!(
            check_valid_depth(nested(4).as_bytes(), 3).unwrap_err(),
            "invalid character '[' exceeded max depth"
        );
        assert!(check_valid(nested(600).as_bytes()).is_ok());
    }

    #[test]
    fn each_broken_byte_of_a_string_is_one_replacement() {
        // A 4-byte sequence cut after 3 bytes, a lone continuation byte, an overlong lead.
        assert_eq!(
            lossy_utf8(b"a\xf0\x9f\x98b\x80c\xc0\xafd\xe2\x82\xac"),
            "a\u{fffd}\u{fffd}\u{fffd}b\u{fffd}c\u{fffd}\u{fffd}d\u{20ac}"
        );
        assert_eq!(
            decode(b"{\"a\":\"x\xf0\x9f\x98\"}").unwrap(),
            serde_json::json!({"a": "x\u{fffd}\u{fffd}\u{fffd}"})
        );
    }

    #[test]
    fn valid_documents_pass() {
        for s in [
            "{}",
            " { \"a\" : [1, -2.5e+3, true, false, null, \"x\\u00e9\"] } ",
            "[]",
            "null",
            "0",
        ] {
            assert!(check_valid(s.as_bytes()).is_ok(), "{s}");
        }
        assert_eq!(decode(b"{\"a\":1}").unwrap(), serde_json::json!({"a": 1}));
    }

    #[test]
    fn type_errors_read_like_go() {
        assert_eq!(
            type_error(&serde_json::json!([]), "map[string]interface {}"),
            "json: cannot unmarshal array into Go value of type map[string]interface {}"
        );
    }
}
