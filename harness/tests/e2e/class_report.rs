//! The class report a batch writes, opened in a real browser (headless Chromium): the page loads
//! with no console message (no script error, no Content-Security-Policy refusal), its numbers
//! are the gradebook's and the learners' reports', a learner's markup shows as text, and a
//! screenshot is kept as an artifact (target/test-artifacts/class-report.png).
//!
//! The browser is `$PROCTOR_BROWSER`, else chromium on PATH (`apt-get install chromium`).
//! Without one the test says so and passes, unless `PROCTOR_REQUIRE_BROWSER=1` (CI sets it).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{lab, repo, write, SETTINGS, TIER_SH};
use assert_cmd::cargo::cargo_bin_cmd;
use regex::Regex;
use serde_json::Value;

/// A learner whose folder name and saved output are markup.
const MARKUP_NAME: &str = "<img src=x onerror=alert(1)>";
const MARKUP_TXT: &str = "<script>alert(1)</script>\n";

fn browser() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("PROCTOR_BROWSER") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

/// Runs the browser headless on `page` with `args`; returns (stdout, stderr).
fn headless(browser: &Path, page: &Path, args: &[&str]) -> (String, String) {
    let profile = tempfile::tempdir().expect("tmp");
    let output = Command::new(browser)
        .args([
            "--headless",
            // As root the browser's own sandbox cannot start; the page is ours.
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("the browser runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn unescape(text: &str) -> String {
    text.replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

fn number(text: &str) -> f64 {
    text.parse()
        .unwrap_or_else(|_| panic!("{text:?} is not a number"))
}

#[test]
fn the_class_report_opens_in_a_browser_with_the_gradebooks_numbers() {
    let Some(browser) = browser() else {
        assert!(
            std::env::var_os("PROCTOR_REQUIRE_BROWSER").is_none(),
            "PROCTOR_REQUIRE_BROWSER is set and no browser was found (apt-get install chromium)"
        );
        eprintln!("skipped: no chromium on PATH and no $PROCTOR_BROWSER");
        return;
    };
    let scenarios = lab();
    let cache = tempfile::tempdir().expect("tmp");
    let work = tempfile::tempdir().expect("tmp");
    let class = work.path().join("class");
    let learner = |name: &str, tier_sh: &str, tier_txt: &str| {
        let dir = class.join(name);
        write(&dir.join("tier.sh"), tier_sh, 0o755);
        write(&dir.join("out/tier.txt"), tier_txt, 0o644);
        write(&dir.join("k8s/settings.yaml"), SETTINGS, 0o644);
    };
    learner("ada", TIER_SH, "gold\n");
    learner("cy", "#!/bin/bash\necho gold\n", "gold\n");
    learner(MARKUP_NAME, TIER_SH, MARKUP_TXT);
    fs::create_dir_all(class.join("nobody")).expect("mkdir");
    let reports = work.path().join("reports");
    let csv = work.path().join("grades.csv");
    let output = cargo_bin_cmd!("proctor")
        .env("PROCTOR_CACHE", cache.path())
        .args(["--color", "never", "--scenarios"])
        .arg(scenarios.path())
        .args(["grade", "mini", "--format", "report-json", "--submissions"])
        .arg(&class)
        .arg("--reports")
        .arg(&reports)
        .arg("--gradebook")
        .arg(&csv)
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let page = reports.join("index.html");
    assert!(stdout.contains("class report: "), "{stdout}");

    let (dom, log) = headless(&browser, &page, &["--dump-dom"]);
    let console: Vec<&str> = log.lines().filter(|l| l.contains(":CONSOLE")).collect();
    assert!(
        console.is_empty(),
        "the page logged:\n{}",
        console.join("\n")
    );

    // Each learner's row against the gradebook's.
    let mut gradebook = csv::Reader::from_path(&csv).expect("gradebook");
    let headers = gradebook.headers().expect("header").clone();
    let column = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name}"))
    };
    let rows: Vec<csv::StringRecord> = gradebook
        .records()
        .map(|r| r.expect("row"))
        .filter(|r| &r[0] != "Points Possible")
        .collect();
    let learner_row = Regex::new(
        r#"<tr class="learner" data-name="([^"]*)" data-score="([^"]*)" data-max="([^"]*)" data-status="([^"]*)">"#,
    )
    .expect("regex");
    let shown: BTreeMap<String, (f64, f64, String)> = learner_row
        .captures_iter(&dom)
        .map(|c| {
            (
                unescape(&c[1]),
                (number(&c[2]), number(&c[3]), c[4].to_string()),
            )
        })
        .collect();
    assert_eq!(shown.len(), rows.len(), "{dom}");
    assert_eq!(rows.len(), 4);
    for row in &rows {
        let name = &row[column("name")];
        let (score, max, status) = shown
            .get(name)
            .unwrap_or_else(|| panic!("no row for {name} in the page"));
        assert_eq!(*score, number(&row[column("score")]), "{name}");
        assert_eq!(*max, number(&row[column("max")]), "{name}");
        assert_eq!(status, &row[column("status")], "{name}");
    }
    // Each step's cells: one per learner and step, equal to the gradebook's.
    let step_cell = Regex::new(r#"data-step="(\d+)" data-score="([^"]*)""#).expect("regex");
    let mut cells: Vec<(String, f64)> = step_cell
        .captures_iter(&dom)
        .map(|c| (c[1].to_string(), number(&c[2])))
        .collect();
    let mut expected: Vec<(String, f64)> = Vec::new();
    for row in &rows {
        for (index, header) in headers.iter().enumerate() {
            if let Some(step) = header.strip_prefix("step ") {
                let step = step.split(' ').next().unwrap_or_default().to_string();
                if !row[index].is_empty() {
                    expected.push((step, number(&row[index])));
                }
            }
        }
    }
    let order = |a: &(String, f64), b: &(String, f64)| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1));
    cells.sort_by(order);
    expected.sort_by(order);
    assert_eq!(cells, expected);

    // Each check's failures against the learners' own reports.
    let mut failed: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for entry in fs::read_dir(&reports).expect("reports") {
        let path = entry.expect("entry").path();
        if !path.to_string_lossy().ends_with(".report.json") {
            continue;
        }
        let report: Value =
            serde_json::from_str(&fs::read_to_string(&path).expect("read")).expect("a report");
        for step in report["steps"].as_array().expect("steps") {
            for check in step["checks"].as_array().expect("checks") {
                let number = format!("{}.{}", check["step"], check["position"]);
                let counts = failed.entry(number).or_default();
                counts.1 += 1;
                if check["passed"] == false {
                    counts.0 += 1;
                }
            }
        }
    }
    let check_row = Regex::new(r#"data-check="([^"]*)" data-failed="(\d+)" data-graded="(\d+)""#)
        .expect("regex");
    let shown: BTreeMap<String, (u64, u64)> = check_row
        .captures_iter(&dom)
        .map(|c| {
            (
                c[1].to_string(),
                (c[2].parse().unwrap_or(0), c[3].parse().unwrap_or(0)),
            )
        })
        .collect();
    assert_eq!(shown, failed);
    assert!(failed.values().any(|(failed, _)| *failed > 0), "{failed:?}");

    // Markup a learner wrote is text on the page, never an element.
    assert!(dom.contains("&lt;img src=x onerror=alert(1)&gt;"), "{dom}");
    assert!(
        dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{dom}"
    );
    assert!(!dom.contains("<img"), "{dom}");
    assert_eq!(
        dom.matches("<script>").count(),
        1,
        "only the page's own script"
    );

    // The screenshot, kept for a person to look at.
    let artifacts = repo().join("target/test-artifacts");
    fs::create_dir_all(&artifacts).expect("mkdir");
    let shot = artifacts.join("class-report.png");
    let _ = fs::remove_file(&shot);
    headless(
        &browser,
        &page,
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1280,1400",
            "--hide-scrollbars",
        ],
    );
    let png = fs::read(&shot).expect("the screenshot was written");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000);
}
