//! Values in messages as a person writes them, not as JSON: YAML's flow style (`{nvidia.com/gpu:
//! 1}`, `[a, b]`), strings unquoted unless YAML would read them as something else (`"1"`,
//! `"true"` keep their quotes), and the operators of an expected value in words (`{$quantity:
//! 1}` is `1`, `{$gte: 2}` is `at least 2`).

use serde_json::Value;

/// How long a shown value may be before it is cut.
const MAX_CHARS: usize = 120;

/// `v` in YAML's flow style, operators in words, cut at [`MAX_CHARS`].
pub fn value(v: &Value) -> String {
    cut(render(v))
}

/// `v` with its type, for a type mismatch: `a string "true"`, `a number 1`, `a map {a: 1}`,
/// `nothing (null)`. Strings always keep their quotes here: the quotes are the point.
pub fn typed(v: &Value) -> String {
    match v {
        Value::Null => "nothing (null)".to_string(),
        Value::String(text) => format!("a string {}", quoted(text)),
        Value::Bool(_) => format!("a boolean {}", render(v)),
        Value::Number(_) => format!("a number {}", render(v)),
        Value::Array(_) => format!("a list {}", value(v)),
        Value::Object(_) => format!("a map {}", value(v)),
    }
}

fn cut(text: String) -> String {
    if text.chars().count() <= MAX_CHARS {
        text
    } else {
        let cut: String = text.chars().take(MAX_CHARS).collect();
        format!("{cut}…")
    }
}

fn quoted(text: &str) -> String {
    Value::String(text.to_string()).to_string()
}

/// Whether YAML reads `text` unquoted as that same string.
fn plain(text: &str) -> bool {
    let risky_start = text.starts_with([
        '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@',
        '`', ' ',
    ]);
    !text.is_empty()
        && !risky_start
        && !text.ends_with(' ')
        && !text.contains(": ")
        && !text.contains(" #")
        && !text.contains([',', '[', ']', '{', '}', '\n', '\t', '\r'])
        && matches!(serde_yaml::from_str::<Value>(text), Ok(Value::String(read)) if read == text)
}

fn render(v: &Value) -> String {
    match v {
        Value::Null => "null".to_string(),
        Value::Bool(_) | Value::Number(_) => v.to_string(),
        Value::String(text) if plain(text) => text.clone(),
        Value::String(text) => quoted(text),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(render).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(map) if !map.is_empty() && map.keys().all(|key| key.starts_with('$')) => {
            let words: Vec<String> = map
                .iter()
                .map(|(op, operand)| operator(op, operand))
                .collect();
            words.join(" and ")
        }
        Value::Object(map) => {
            let fields: Vec<String> = map
                .iter()
                .map(|(key, field)| {
                    let key = if plain(key) { key.clone() } else { quoted(key) };
                    format!("{key}: {}", render(field))
                })
                .collect();
            format!("{{{}}}", fields.join(", "))
        }
    }
}

/// A quantity or number as written (`500m`, `1Gi`, `4`), never quoted: it is compared by value.
pub fn amount(operand: &Value) -> String {
    operand
        .as_str()
        .map_or_else(|| operand.to_string(), str::to_string)
}

/// One operator of an expected value in words (see `partial::OPERATORS`).
fn operator(op: &str, operand: &Value) -> String {
    match op {
        "$quantity" => amount(operand),
        "$gt" => format!("more than {}", amount(operand)),
        "$gte" => format!("at least {}", amount(operand)),
        "$lt" => format!("less than {}", amount(operand)),
        "$lte" => format!("at most {}", amount(operand)),
        "$exists" if operand == &Value::Bool(true) => "any value".to_string(),
        "$exists" => "nothing (not set)".to_string(),
        "$regex" => format!("text matching /{}/", operand.as_str().unwrap_or_default()),
        "$anyOf" => operand
            .as_array()
            .map(|items| items.iter().map(render).collect::<Vec<_>>().join(" or "))
            .unwrap_or_default(),
        "$not" => format!("anything but {}", render(operand)),
        "$len" => match operand {
            Value::Number(n) => format!("{n} item(s)"),
            other => format!("{} item(s)", render(other)),
        },
        "$yaml" => format!("YAML holding {}", render(operand)),
        "$json" => format!("JSON holding {}", render(operand)),
        other => format!("{other}: {}", render(operand)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_read_as_yaml() {
        for (v, shown) in [
            (
                json!({"nvidia.com/gpu": {"$quantity": 1}}),
                "{nvidia.com/gpu: 1}",
            ),
            (
                json!({"tier": "gold", "zone": "a b"}),
                "{tier: gold, zone: a b}",
            ),
            (
                json!(["550", "true", 1, true, null]),
                r#"["550", "true", 1, true, null]"#,
            ),
            (json!("upgrade-done"), "upgrade-done"),
            (json!("key: value"), r#""key: value""#),
            (json!(""), r#""""#),
            (
                json!({"$gte": "2Gi", "$lt": 4}),
                "at least 2Gi and less than 4",
            ),
            (json!({"$exists": true}), "any value"),
            (json!({"$anyOf": ["a", "b"]}), "a or b"),
            (json!({"$len": {"$gte": 1}}), "at least 1 item(s)"),
            (json!({"$regex": "^550"}), "text matching /^550/"),
            (json!([{"ip": "10.0.0.1"}]), "[{ip: 10.0.0.1}]"),
        ] {
            assert_eq!(value(&v), shown, "{v}");
        }
        assert_eq!(typed(&json!("true")), r#"a string "true""#);
        assert_eq!(typed(&json!(true)), "a boolean true");
        assert_eq!(typed(&Value::Null), "nothing (null)");
        assert!(value(&json!("x".repeat(300))).ends_with('…'));
    }
}
