//! Dotted paths into JSON values: `spec.template.spec.containers[0].image`.
//!
//! Kubernetes label and annotation keys contain dots (`nvidia.com/gpu.present`), so a key segment may
//! escape a dot as `\.` (`metadata.labels.nvidia\.com/gpu\.present`) or be written in brackets with
//! quotes (`metadata.labels["nvidia.com/gpu.present"]`). `\\` is a literal backslash.

use serde_json::Value;

/// One step of a parsed path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// A map key.
    Key(String),
    /// A list index.
    Index(usize),
}

/// The value at `dotted` inside `v`, or `None` when any step is missing, has the wrong type, or the
/// path does not parse. The empty path is `v` itself.
pub fn get<'a>(v: &'a Value, dotted: &str) -> Option<&'a Value> {
    let segments = parse(dotted).ok()?;
    let mut current = v;
    for segment in &segments {
        current = match segment {
            Segment::Key(key) => current.as_object()?.get(key)?,
            Segment::Index(i) => current.as_array()?.get(*i)?,
        };
    }
    Some(current)
}

/// Parses a dotted path into segments. Errors name the byte offset of the problem.
pub fn parse(dotted: &str) -> Result<Vec<Segment>, String> {
    let mut segments = Vec::new();
    let chars: Vec<char> = dotted.chars().collect();
    let mut i = 0;
    // True right after a `]`, where a key may only follow a `.`.
    let mut after_bracket = false;
    while i < chars.len() {
        match chars[i] {
            '.' => {
                if i == 0 || i + 1 == chars.len() || chars[i + 1] == '.' {
                    return Err(format!("empty key in path {dotted:?} at {i}"));
                }
                after_bracket = false;
                i += 1;
            }
            '[' => {
                let (segment, next) = parse_bracket(&chars, i, dotted)?;
                segments.push(segment);
                after_bracket = true;
                i = next;
            }
            _ => {
                if after_bracket {
                    return Err(format!(
                        "expected '.' or '[' after ']' in path {dotted:?} at {i}"
                    ));
                }
                let mut key = String::new();
                while i < chars.len() && chars[i] != '.' && chars[i] != '[' {
                    if chars[i] == '\\' {
                        match chars.get(i + 1) {
                            Some(&c) if c == '.' || c == '\\' || c == '[' => {
                                key.push(c);
                                i += 2;
                            }
                            _ => {
                                key.push('\\');
                                i += 1;
                            }
                        }
                    } else {
                        key.push(chars[i]);
                        i += 1;
                    }
                }
                segments.push(Segment::Key(key));
            }
        }
    }
    Ok(segments)
}

/// Parses `[3]`, `["a.b"]` or `['a.b']` starting at `chars[start] == '['`; returns the segment and the
/// index just past `]`.
fn parse_bracket(chars: &[char], start: usize, dotted: &str) -> Result<(Segment, usize), String> {
    let mut i = start + 1;
    match chars.get(i) {
        Some(&quote) if quote == '"' || quote == '\'' => {
            i += 1;
            let mut key = String::new();
            loop {
                match chars.get(i) {
                    None => return Err(format!("unterminated quoted key in path {dotted:?}")),
                    Some('\\') if chars.get(i + 1).is_some() => {
                        key.push(chars[i + 1]);
                        i += 2;
                    }
                    Some(&c) if c == quote => {
                        i += 1;
                        break;
                    }
                    Some(&c) => {
                        key.push(c);
                        i += 1;
                    }
                }
            }
            if chars.get(i) != Some(&']') {
                return Err(format!("expected ']' in path {dotted:?} at {i}"));
            }
            Ok((Segment::Key(key), i + 1))
        }
        _ => {
            let digits: String = chars[i..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            i += digits.chars().count();
            if digits.is_empty() || chars.get(i) != Some(&']') {
                return Err(format!(
                    "expected a list index like [0] in path {dotted:?} at {start}"
                ));
            }
            let index = digits
                .parse::<usize>()
                .map_err(|e| format!("bad list index in path {dotted:?}: {e}"))?;
            Ok((Segment::Index(index), i + 1))
        }
    }
}

/// Appends a map key to a dotted path, escaping the characters `parse` treats specially, so the
/// result can be fed back to [`get`].
pub fn push_key(path: &str, key: &str) -> String {
    let mut escaped = String::with_capacity(key.len());
    for c in key.chars() {
        if c == '.' || c == '\\' || c == '[' {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    if path.is_empty() {
        escaped
    } else {
        format!("{path}.{escaped}")
    }
}

/// Appends a list index to a dotted path.
pub fn push_index(path: &str, index: usize) -> String {
    format!("{path}[{index}]")
}

/// `dotted` as a person reads it: a key that holds a dot (a label key such as
/// `nvidia.com/gpu.present`) in quotes and brackets instead of with escaped dots, which is also
/// a form [`parse`] reads. A path that does not parse is shown as it is.
pub fn readable(dotted: &str) -> String {
    let Ok(segments) = parse(dotted) else {
        return dotted.to_string();
    };
    let mut text = String::new();
    for segment in segments {
        match segment {
            Segment::Index(index) => text.push_str(&format!("[{index}]")),
            Segment::Key(key) if key.contains(['.', '[', '\\', '"']) || key.is_empty() => {
                let quoted = key.replace('\\', "\\\\").replace('"', "\\\"");
                text.push_str(&format!("[\"{quoted}\"]"));
            }
            Segment::Key(key) => {
                if !text.is_empty() {
                    text.push('.');
                }
                text.push_str(&key);
            }
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn readable_paths_quote_dotted_keys_and_parse_back() {
        for (escaped, shown) in [
            (
                r"metadata.labels.nvidia\.com/gpu\.present",
                r#"metadata.labels["nvidia.com/gpu.present"]"#,
            ),
            (
                r"status.capacity.nvidia\.com/gpu",
                r#"status.capacity["nvidia.com/gpu"]"#,
            ),
            (
                "spec.containers[0].resources.limits.memory",
                "spec.containers[0].resources.limits.memory",
            ),
            ("metadata.labels.tier", "metadata.labels.tier"),
        ] {
            assert_eq!(readable(escaped), shown);
            assert_eq!(parse(shown), parse(escaped), "{shown} reads back");
        }
        let odd = push_key("data", r#"a"b.c\d"#);
        assert_eq!(parse(&readable(&odd)), parse(&odd));
    }

    fn node() -> Value {
        json!({
            "metadata": {
                "name": "lab-node-0",
                "labels": {
                    "nvidia.com/gpu.present": "true",
                    "feature.node.kubernetes.io/kernel-version.full": "5.15.0-119-generic",
                    "kubernetes.io/hostname": "lab-node-0"
                }
            },
            "spec": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [
                    {"key": "nvidia.com/cuda.driver.major", "operator": "In", "values": ["550"]},
                    {"key": "feature.node.kubernetes.io/system-os_release.VERSION_ID", "operator": "In", "values": ["22.04"]}
                ]}]
            }}}}
        })
    }

    #[test]
    fn plain_keys_and_indices() {
        let v = node();
        assert_eq!(get(&v, "metadata.name"), Some(&json!("lab-node-0")));
        let terms = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";
        assert_eq!(
            get(&v, terms).and_then(Value::as_array).map(Vec::len),
            Some(1)
        );
        assert_eq!(
            get(&v, &format!("{terms}[0].matchExpressions[1].values[0]")),
            Some(&json!("22.04"))
        );
        assert_eq!(get(&v, ""), Some(&v));
    }

    #[test]
    fn escaped_dots_in_label_keys() {
        let v = node();
        assert_eq!(
            get(&v, r"metadata.labels.nvidia\.com/gpu\.present"),
            Some(&json!("true"))
        );
        assert_eq!(
            get(
                &v,
                r"metadata.labels.feature\.node\.kubernetes\.io/kernel-version\.full"
            ),
            Some(&json!("5.15.0-119-generic"))
        );
        // Unescaped, the dots split the key and nothing is found.
        assert_eq!(get(&v, "metadata.labels.nvidia.com/gpu.present"), None);
    }

    #[test]
    fn bracket_quoted_keys() {
        let v = node();
        assert_eq!(
            get(&v, r#"metadata.labels["nvidia.com/gpu.present"]"#),
            Some(&json!("true"))
        );
        assert_eq!(
            get(&v, "metadata.labels['kubernetes.io/hostname']"),
            Some(&json!("lab-node-0"))
        );
    }

    #[test]
    fn missing_and_wrong_type() {
        let v = node();
        assert_eq!(get(&v, "metadata.namespace"), None);
        assert_eq!(get(&v, "metadata.name[0]"), None);
        assert_eq!(get(&v, "metadata[0]"), None);
        assert_eq!(get(&v, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[5]"), None);
    }

    #[test]
    fn malformed_paths_are_errors_not_panics() {
        for bad in ["a..b", ".a", "a.", "a[", "a[x]", "a[0", "a[\"b]", "a[0]b"] {
            assert!(parse(bad).is_err(), "{bad} should not parse");
            assert_eq!(get(&node(), bad), None);
        }
    }

    #[test]
    fn push_key_round_trips() {
        let v = node();
        let path = push_key(&push_key("metadata", "labels"), "nvidia.com/gpu.present");
        assert_eq!(path, r"metadata.labels.nvidia\.com/gpu\.present");
        assert_eq!(get(&v, &path), Some(&json!("true")));
        assert_eq!(push_index("a", 2), "a[2]");
    }
}
