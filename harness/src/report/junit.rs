//! `--format junit`: JUnit XML as CI systems read it — one `<testsuite>` per step, one
//! `<testcase>` per check, `<failure message=...>` holding the diff and hints.

use std::fmt::Write;

use super::model::Report;

/// Escapes text for XML attribute and element content.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // XML 1.0 forbids most control characters even when escaped.
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 => {}
            c => out.push(c),
        }
    }
    out
}

pub fn render(report: &Report) -> String {
    let (passed, failed) = report.counts();
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        xml,
        "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" time=\"{:.3}\">",
        escape(&report.lab),
        passed + failed,
        failed,
        report.duration.as_secs_f64()
    );
    for step in &report.steps {
        let failures = step.checks.iter().filter(|check| !check.passed).count();
        let time: f64 = step
            .checks
            .iter()
            .map(|check| check.duration.as_secs_f64())
            .sum();
        let _ = writeln!(
            xml,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\" time=\"{:.3}\">",
            escape(&format!("{}. {}", step.id, step.title)),
            step.checks.len(),
            failures,
            time
        );
        if let Some(isolation) = &report.isolation {
            let _ = writeln!(
                xml,
                "    <properties><property name=\"isolation\" value=\"{}\"/></properties>",
                escape(isolation)
            );
        }
        for check in &step.checks {
            let _ = write!(
                xml,
                "    <testcase name=\"{}\" classname=\"{}\" time=\"{:.3}\"",
                escape(&format!("{} {}", check.number(), check.title)),
                escape(&format!("{}.step{}.{}", report.lab, check.step, check.id)),
                check.duration.as_secs_f64()
            );
            if check.passed {
                xml.push_str("/>\n");
            } else {
                let _ = writeln!(
                    xml,
                    ">\n      <failure message=\"{}\" type=\"CheckFailed\">{}</failure>\n    </testcase>",
                    escape(&check.message),
                    escape(&check.details())
                );
            }
        }
        xml.push_str("  </testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    xml
}
