//! `--format report-json`: the report itself, every field of [`Report`] as it is, for programs
//! (Gradescope's shape is `--format json`). Its JSON Schema is generated from the model, so the
//! two cannot drift; `proctor schema report` prints it and docs/report.schema.json keeps it.

use super::model::Report;

/// Where the schema is kept in the repository, relative to the workspace root.
pub const SCHEMA_FILE: &str = "docs/report.schema.json";

pub fn render(report: &Report) -> String {
    let mut text = serde_json::to_string_pretty(report)
        .unwrap_or_else(|error| format!("{{\"error\": \"cannot serialise the report: {error}\"}}"));
    text.push('\n');
    text
}

/// The schema, pretty-printed with a final newline (the form kept in the repository).
pub fn report_schema() -> String {
    crate::scenario::schema::pretty_schema::<Report>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn the_kept_schema_is_the_generated_one() {
        let kept = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(SCHEMA_FILE);
        let kept = std::fs::read_to_string(kept).unwrap_or_default();
        assert!(
            kept == report_schema(),
            "{SCHEMA_FILE} is out of date: run `proctor schema report > {SCHEMA_FILE}`"
        );
    }

    #[test]
    fn a_report_meets_its_schema_and_reads_back() {
        let report = crate::report::tests::sample();
        let text = render(&report);
        let value: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let schema: serde_json::Value = serde_json::from_str(&report_schema()).expect("schema");
        let mut schemas = boon::Schemas::new();
        let mut compiler = boon::Compiler::new();
        compiler
            .add_resource("urn:proctor:report", schema)
            .expect("resource");
        let index = compiler
            .compile("urn:proctor:report", &mut schemas)
            .expect("the schema compiles");
        if let Err(error) = schemas.validate(&value, index) {
            panic!("{error}");
        }
        // What a program reads is what was graded, durations to the millisecond.
        assert_eq!(value["learner"], "ada");
        assert_eq!(value["duration_seconds"], 3.0);
        assert_eq!(value["steps"][0]["checks"][1]["passed"], false);
        let back: Report = serde_json::from_value(value.clone()).expect("reads back");
        assert_eq!(render(&back), text);
        // A field the schema does not know is refused by both.
        let mut extra = value;
        extra["grade"] = serde_json::json!("A");
        assert!(schemas.validate(&extra, index).is_err());
        assert!(serde_json::from_value::<Report>(extra).is_err());
    }
}
