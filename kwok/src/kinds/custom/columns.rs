//! A custom resource's Table: the `Name` column, then the version's `additionalPrinterColumns`
//! (or `Age` when it has none), each cell read by a simple JSONPath
//! (apiextensions-apiserver `pkg/registry/customresource/tableconvertor`).

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::leak;
use crate::printers::{docs, human_duration, Column};

/// One printer column's JSONPath and type.
#[derive(Debug)]
pub(super) struct CellPath {
    /// `None` when [`parse`] cannot follow the path: its cells are empty.
    steps: Option<Vec<Step>>,
    type_: String,
}

#[derive(Debug)]
enum Step {
    Key(String),
    Index(usize),
}

/// The JSONPath's steps: `.a.b[0].c`; `None` for anything richer, which upstream's validation
/// would not let a definition use for a column anyway.
fn parse(path: &str) -> Option<Vec<Step>> {
    let mut steps = Vec::new();
    for part in path.strip_prefix('.')?.split('.') {
        let (key, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !key.is_empty() {
            steps.push(Step::Key(key.to_owned()));
        }
        while let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']')?;
            steps.push(Step::Index(r[..end].parse().ok()?));
            rest = &r[end + 1..];
        }
        if !rest.is_empty() {
            return None;
        }
    }
    Some(steps)
}

/// `serveDefaultColumnsIfEmpty` and `tableconvertor.New`: the columns and how to fill them.
pub(super) fn of_version(version: &Value) -> (Vec<Column>, Vec<CellPath>) {
    let mut columns = vec![Column::name()];
    let mut paths = Vec::new();
    let defined = version["additionalPrinterColumns"]
        .as_array()
        .filter(|c| !c.is_empty());
    let Some(defined) = defined else {
        columns.push(Column::new("Age", "date", docs::CREATION_TIMESTAMP));
        paths.push(CellPath {
            steps: Some(vec![
                Step::Key("metadata".into()),
                Step::Key("creationTimestamp".into()),
            ]),
            type_: "date".into(),
        });
        return (columns, paths);
    };
    for col in defined {
        let s = |k: &str| col[k].as_str().unwrap_or("");
        let description = match s("description") {
            "" => format!(
                "Custom resource definition column (in JSONPath format): {}",
                s("jsonPath")
            ),
            d => d.to_owned(),
        };
        columns.push(Column {
            name: leak(s("name")),
            type_: leak(s("type")),
            format: leak(s("format")),
            description: leak(&description),
            priority: col["priority"]
                .as_i64()
                .and_then(|p| i32::try_from(p).ok())
                .unwrap_or(0),
        });
        paths.push(CellPath {
            steps: parse(s("jsonPath")),
            type_: s("type").to_owned(),
        });
    }
    (columns, paths)
}

fn find<'a>(obj: &'a Value, steps: &[Step]) -> Option<&'a Value> {
    steps.iter().try_fold(obj, |cur, step| match step {
        Step::Key(k) => cur.get(k),
        Step::Index(i) => cur.get(*i),
    })
}

/// `cellForJSONValue`, and the JSONPath printer for string columns. A missing value is `nil`.
fn cell(path: &CellPath, obj: &Value, now: DateTime<Utc>) -> Value {
    let found = path.steps.as_deref().and_then(|steps| find(obj, steps));
    let Some(value) = found.filter(|v| !v.is_null()) else {
        return Value::Null;
    };
    match path.type_.as_str() {
        "string" => Value::String(match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        }),
        "integer" => match value {
            Value::Number(n) => n
                .as_i64()
                .or_else(|| n.as_f64().map(|f| f as i64))
                .map_or(Value::Null, Value::from),
            _ => Value::Null,
        },
        "number" => value.as_f64().map_or(Value::Null, Value::from),
        "boolean" => value.as_bool().map_or(Value::Null, Value::from),
        "date" => match value.as_str() {
            Some(s) => match DateTime::parse_from_rfc3339(s) {
                Ok(t) => Value::String(human_duration(now - t.with_timezone(&Utc))),
                Err(_) => Value::String("<invalid>".into()),
            },
            None => Value::Null,
        },
        _ => Value::Null,
    }
}

/// One object's row: its name, then each column's cell.
pub(super) fn cells(paths: &[CellPath], obj: &Value, now: DateTime<Utc>) -> Vec<Value> {
    let mut out = vec![obj["metadata"]["name"].clone()];
    out.extend(paths.iter().map(|p| cell(p, obj, now)));
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn columns_follow_the_definition_and_default_to_age() {
        let (cols, paths) = of_version(&json!({"additionalPrinterColumns": [
            {"name": "Status", "type": "string", "jsonPath": ".status.state"},
            {"name": "First", "type": "string", "jsonPath": ".spec.list[0].name", "priority": 1},
            {"name": "On", "type": "boolean", "jsonPath": ".spec.driver.enabled"}]}));
        assert_eq!(cols.len(), 4);
        assert_eq!(
            cols[1].description,
            "Custom resource definition column (in JSONPath format): .status.state"
        );
        assert_eq!(cols[2].priority, 1);
        let obj = json!({"metadata": {"name": "p"},
            "spec": {"list": [{"name": "a"}], "driver": {"enabled": false}}});
        assert_eq!(
            cells(&paths, &obj, Utc::now()),
            vec![json!("p"), Value::Null, json!("a"), json!(false)]
        );
        let (_, paths) = of_version(&json!({"additionalPrinterColumns": [
            {"name": "Any", "type": "string", "jsonPath": ".spec.list[*].name"}]}));
        assert_eq!(
            cells(&paths, &obj, Utc::now()),
            vec![json!("p"), Value::Null],
            "a path the parser cannot follow is an empty cell, not the object"
        );
        let (cols, _) = of_version(&json!({}));
        assert_eq!(
            cols.iter().map(|c| (c.name, c.type_)).collect::<Vec<_>>(),
            [("Name", "string"), ("Age", "date")]
        );
    }
}
