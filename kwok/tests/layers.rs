//! kwok's modules run one way: each imports only the modules listed before it in [`LAYERS`].
//! The bottom two layers are a crate of their own (`kwok/machinery`, re-exported by kwok), so
//! the compiler refuses an edge from them up into kwok; inside each crate a cycle compiles
//! silently, so this test reads every module's `crate::` paths and refuses one that reaches a
//! module above its own. Test code (`tests.rs`, `tests/`, a trailing `#[cfg(test)] mod tests`)
//! may reach anywhere.

use std::path::{Path, PathBuf};

/// The top-level modules of `kwok/machinery/src` (the first two layers) and `kwok/src`, bottom
/// to top, by layer (ARCHITECTURE.md describes them). A module may import those before it in
/// this order, its layer's earlier ones included.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "values",
        &[
            "resource_names",
            "error",
            "meta",
            "names",
            "quantity",
            "intstr",
            "go_json",
            "gofmt",
            "user",
            "certificate_request",
            "cron",
            "definitions",
            "defaults",
            "tls",
            "podresources",
        ],
    ),
    (
        "machinery",
        &[
            "fieldmanager",
            "selectors",
            "patch",
            "protobuf",
            "printers",
            "validation",
            "warnings",
            "volumes",
            "podutil",
            "scheduler",
            "decode",
            "options",
        ],
    ),
    ("resources", &["resource", "convert", "store"]),
    (
        "kinds",
        &[
            "kinds",
            "registry",
            "quota",
            "saved_snapshot",
            "clock_shift",
        ],
    ),
    ("admission", &["admission"]),
    ("API semantics", &["api"]),
    ("who may, and kwok's streams", &["auth", "debugging"]),
    ("HTTP", &["http"]),
    ("behaviour", &["controllers"]),
    ("assembly", &["cluster"]),
];

fn rank(module: &str) -> Option<usize> {
    LAYERS
        .iter()
        .flat_map(|(_, modules)| modules.iter())
        .position(|m| *m == module)
}

fn layer_of(module: &str) -> &'static str {
    LAYERS
        .iter()
        .find(|(_, modules)| modules.contains(&module))
        .map_or("none", |(name, _)| name)
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if name != "tests" {
                sources(&path, out);
            }
        } else if name.ends_with(".rs") && name != "tests.rs" {
            out.push(path);
        }
    }
}

/// The code of a file without its comments and its trailing test module, line for line (a
/// removed line is left empty, so that offsets still give line numbers).
fn code_of(text: &str) -> String {
    let mut code = String::new();
    let mut test_attribute = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if test_attribute && trimmed.starts_with("mod ") && trimmed.ends_with('{') {
            break;
        }
        test_attribute = trimmed == "#[cfg(test)]";
        if !trimmed.starts_with("//") {
            code.push_str(line);
        }
        code.push('\n');
    }
    code
}

/// The top-level modules `code` names through `crate::`, each with its line: `crate::a::b`, and
/// each of `crate::{a, b::c}`.
fn crate_paths(code: &str) -> Vec<(usize, String)> {
    let identifier = |text: &str| -> String {
        text.trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut found = Vec::new();
    for (at, m) in code.match_indices("crate::") {
        // `kwok_crate::` is another name; `$crate::` in a macro names this crate too.
        if code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let line = code[..at].matches('\n').count() + 1;
        let rest = &code[at + m.len()..];
        match rest.strip_prefix('{') {
            None => found.push((line, identifier(rest))),
            Some(group) => {
                let mut depth = 0;
                let mut start = 0;
                for (i, c) in group.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => {
                            found.push((line, identifier(&group[start..i])));
                            break;
                        }
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            found.push((line, identifier(&group[start..i])));
                            start = i + 1;
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    found.retain(|(_, name)| !name.is_empty());
    found
}

/// The top-level modules `code` names through `super::` paths that climb to the crate root
/// from a module `depth` levels below it (`super::super::http::x` in `auth/token.rs`).
fn root_relative_paths(code: &str, depth: usize) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    if depth == 0 {
        return found;
    }
    let climb = "super::".repeat(depth);
    for (at, m) in code.match_indices(&climb) {
        let before = &code[..at];
        if before.ends_with("super::")
            || before.ends_with(|c: char| c.is_alphanumeric() || c == '_')
        {
            continue;
        }
        let line = before.matches('\n').count() + 1;
        let name: String = code[at + m.len()..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            found.push((line, name));
        }
    }
    found
}

/// How many modules `relative` (a file under `src/`) stands below the crate root.
fn depth_of(relative: &Path) -> usize {
    let parts = relative.components().count();
    match relative.file_name().and_then(|n| n.to_str()) {
        Some("mod.rs") => parts - 1,
        _ => parts,
    }
}

#[test]
fn kwok_modules_import_only_the_layers_beneath() {
    let kwok = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut problems = Vec::new();
    for (crate_dir, shown) in [
        (kwok.join("machinery"), "kwok/machinery"),
        (kwok.to_path_buf(), "kwok"),
    ] {
        check_crate(&crate_dir.join("src"), shown, &mut problems);
    }
    assert!(
        problems.is_empty(),
        "kwok's layers run back up:\n{}",
        problems.join("\n")
    );
}

/// Adds to `problems` each import in the crate whose sources are `src` (shown as `shown`) that
/// reaches a module above the importing one.
fn check_crate(src: &Path, shown: &str, problems: &mut Vec<String>) {
    let mut files = Vec::new();
    sources(src, &mut files);
    files.sort();
    assert!(
        files.len() > 40,
        "{shown}/src not found at {}",
        src.display()
    );

    for file in &files {
        let relative = file.strip_prefix(src).unwrap_or(file);
        let module = relative
            .components()
            .next()
            .map(|c| {
                c.as_os_str()
                    .to_string_lossy()
                    .trim_end_matches(".rs")
                    .to_string()
            })
            .unwrap_or_default();
        if module == "lib" {
            continue;
        }
        let Some(own) = rank(&module) else {
            problems.push(format!(
                "{shown}/src/{}: module `{module}` is in no layer: add it to LAYERS in {}",
                relative.display(),
                file!()
            ));
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let code = code_of(&text);
        let mut paths = crate_paths(&code);
        paths.extend(root_relative_paths(&code, depth_of(relative)));
        for (line_no, target) in paths {
            {
                let Some(theirs) = rank(&target) else {
                    continue;
                };
                if theirs <= own {
                    continue;
                }
                problems.push(format!(
                    "{shown}/src/{}:{line_no}: `{module}` ({}) imports `{target}` ({}), which stands above it",
                    relative.display(),
                    layer_of(&module),
                    layer_of(&target)
                ));
            }
        }
    }
}

#[test]
fn a_path_into_a_higher_module_is_seen() {
    let names = |code: &str| -> Vec<String> {
        crate_paths(code)
            .into_iter()
            .map(|(_, name)| name)
            .collect()
    };
    assert_eq!(
        names("use crate::api::Api; let x = crate::kinds::default(a);"),
        ["api", "kinds"]
    );
    assert_eq!(
        names("use crate::{\n    api::{Api, WriteOptions},\n    store,\n};"),
        ["api", "store"]
    );
    assert!(names("use kwok_crate::x;").is_empty());
    let code = code_of("use a;\n// crate::api\n#[cfg(test)]\nmod tests {\n use crate::api;\n}\n");
    assert_eq!(code, "use a;\n\n#[cfg(test)]\n");
    assert_eq!(
        crate_paths("\n\nx(crate::http::y)"),
        [(3, "http".to_string())]
    );
    assert_eq!(
        root_relative_paths("if super::super::http::eq(a) {}", 2),
        [(1, "http".to_string())]
    );
    assert!(root_relative_paths("use super::token::Keys;", 2).is_empty());
    assert_eq!(depth_of(Path::new("auth/token.rs")), 2);
    assert_eq!(depth_of(Path::new("auth/mod.rs")), 1);
    assert_eq!(depth_of(Path::new("store.rs")), 1);
}
