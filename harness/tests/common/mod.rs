//! A small lab written on the fly (scenario, reference files) and submissions for it.
#![allow(dead_code)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

pub const SCENARIO: &str = r#"
apiVersion: proctor/v1
kind: Scenario
name: mini
title: Tiers and settings
labDir: /root/mini
cluster:
  nodes:
    - name: lab-node-0
    - name: lab-node-1
perturbations:
  silver:
    namePrefix: tier-node-
    labels: {tier: silver}
steps:
  - id: 1
    title: Tier tool
    reference: |
      kubectl label node lab-node-0 tier=gold
      install -m 0755 "$SCENARIO_DIR/reference/tier.sh" tier.sh
      mkdir -p out
      ./tier.sh lab-node-0 > out/tier.txt
    artifacts: [tier.sh, out/tier.txt]
    checks:
      - id: label
        title: lab-node-0 is gold
        modes: [check]
        object: {resource: nodes, name: lab-node-0, expect: {metadata: {labels: {tier: gold}}}}
      - id: tier-file
        title: out/tier.txt
        points: 2
        hint: "Write the tier of lab-node-0."
        file: {path: out/tier.txt, normalise: [trailingWhitespace, finalNewline]}
      - id: tier-script
        title: tier.sh reads the label
        points: 3
        visibility: hidden
        hint: "Read the label with kubectl."
        hints:
          - match: '(?m)^\+gold$'
            say: "Never hard-code the tier."
        script:
          path: tier.sh
          args: ["{node}"]
          nodes: {selector: tier}
          inject: [silver]
  - id: 2
    title: Settings
    reference: |
      mkdir -p k8s
      cp "$SCENARIO_DIR/reference/k8s/settings.yaml" k8s/settings.yaml
      kubectl apply -f k8s/settings.yaml
    artifacts: [k8s/settings.yaml]
    replay: |
      kubectl apply -f k8s/settings.yaml
    checks:
      - id: manifest
        title: k8s/settings.yaml declares ConfigMap settings
        manifest:
          path: k8s/settings.yaml
          objects:
            - kind: ConfigMap
              name: settings
              namespace: default
              expect: {data: {mode: fast}}
      - id: live
        title: ConfigMap settings exists
        object: {resource: configmaps, namespace: default, name: settings, expect: {data: {mode: fast}}, timeout: 5s}
"#;

pub const TIER_SH: &str =
    "#!/bin/bash\nkubectl get node \"$1\" -o jsonpath='{.metadata.labels.tier}'\necho\n";
pub const SETTINGS: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: default\ndata:\n  mode: fast\n";

pub fn write(path: &Path, text: &str, mode: u32) {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("mkdir");
    }
    fs::write(path, text).expect("write");
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).expect("chmod");
}

/// scenarios/mini/{scenario.yaml, reference/...}
pub fn lab() -> tempfile::TempDir {
    let root = tempfile::tempdir().expect("tempdir");
    let dir = root.path().join("mini");
    write(&dir.join("scenario.yaml"), SCENARIO, 0o644);
    write(&dir.join("reference/tier.sh"), TIER_SH, 0o755);
    write(&dir.join("reference/k8s/settings.yaml"), SETTINGS, 0o644);
    root
}

pub fn submission(
    tier_sh: Option<(&str, u32)>,
    tier_txt: Option<&str>,
    settings: Option<&str>,
) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    if let Some((text, mode)) = tier_sh {
        write(&dir.path().join("tier.sh"), text, mode);
    }
    if let Some(text) = tier_txt {
        write(&dir.path().join("out/tier.txt"), text, 0o644);
    }
    if let Some(text) = settings {
        write(&dir.path().join("k8s/settings.yaml"), text, 0o644);
    }
    dir
}

/// The JSON report a `proctor ... --format json` run printed, or a panic showing what it printed
/// instead.
pub fn report_json(output: &std::process::Output) -> serde_json::Value {
    let stdout = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(&stdout).unwrap_or_else(|error| {
        panic!(
            "invalid JSON ({error}): {stdout}\nstderr: {}",
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// The repository's root.
pub fn repo() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// Every lab shipped in scenarios/: (folder name, its scenario.yaml); never empty.
pub fn real_labs() -> Vec<(String, std::path::PathBuf)> {
    let root = repo().join("scenarios");
    let labs = proctor::scenario::lookup::list_labs(Some(&root));
    assert!(
        !labs.is_empty(),
        "no <lab>/scenario.yaml under {}",
        root.display()
    );
    labs
}

/// A lab's bundled submissions with their expect.yaml; never empty.
pub fn bundled(lab: &str, file: &Path) -> Vec<proctor::scenario::lab::BundledSubmission> {
    let found = proctor::scenario::Lab::load(file)
        .and_then(|lab| lab.bundled_submissions())
        .unwrap_or_else(|error| panic!("{lab}: {error:#}"));
    assert!(
        !found.is_empty(),
        "{lab}: no submissions/<case>/expect.yaml"
    );
    found
}

/// The exit status `proctor grade` gives a submission expected to score `expect`.
pub fn exit_for(expect: &proctor::scenario::Expectation) -> i32 {
    match expect {
        proctor::scenario::Expectation::FullScore => 0,
        _ => 1,
    }
}

/// `proctor` with its own reference cache and nothing inherited that would change what it does
/// (a cluster kind, a scenarios dir, a kubeconfig, a log level).
pub fn proctor(cache: &Path) -> assert_cmd::Command {
    assert_cmd::Command::from_std(proctor_process(cache))
}

/// The same as a std Command, for processes that are spawned and signalled.
pub fn proctor_process(cache: &Path) -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_proctor"));
    command.env("PROCTOR_CACHE", cache);
    for variable in [
        "PROCTOR_CLUSTER",
        "PROCTOR_SCENARIOS",
        "KUBECONFIG",
        "RUST_LOG",
    ] {
        command.env_remove(variable);
    }
    command
}

/// The reference cache of a test whose scenarios dir is `root` (a temporary one of its own):
/// beside its labs, so it is the test's alone and goes with it.
pub fn cache_in(root: &Path) -> std::path::PathBuf {
    root.join(".proctor-cache")
}
