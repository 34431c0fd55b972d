//! Unified diffs labelled `expected` / `actual`.

use similar::TextDiff;

/// A unified diff (3 lines of context) from `expected` to `actual`; empty when they are equal.
pub fn unified_diff(expected: &str, actual: &str) -> String {
    if expected == actual {
        return String::new();
    }
    TextDiff::from_lines(expected, actual)
        .unified_diff()
        .context_radius(3)
        .header("expected", "actual")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_hunks() {
        let expected = "lab-node-0 550-5.15.0-119-generic-ubuntu22.04\nlab-node-1 535-5.15.0-107-generic-ubuntu22.04\n";
        let actual = "lab-node-0 550.90.07-5.15.0-119-generic-ubuntu22.04\nlab-node-1 535-5.15.0-107-generic-ubuntu22.04\n";
        let diff = unified_diff(expected, actual);
        assert!(
            diff.starts_with("--- expected\n+++ actual\n@@ -1,2 +1,2 @@\n"),
            "{diff}"
        );
        assert!(
            diff.contains("\n-lab-node-0 550-5.15.0-119-generic-ubuntu22.04\n"),
            "{diff}"
        );
        assert!(
            diff.contains("\n+lab-node-0 550.90.07-5.15.0-119-generic-ubuntu22.04\n"),
            "{diff}"
        );
        assert!(
            diff.contains("\n lab-node-1 535-5.15.0-107-generic-ubuntu22.04\n"),
            "{diff}"
        );
    }

    #[test]
    fn equal_texts_have_no_diff() {
        assert_eq!(unified_diff("OK\n", "OK\n"), "");
    }

    #[test]
    fn missing_final_newline_is_visible() {
        let diff = unified_diff("OK\n", "OK");
        assert!(diff.contains("No newline at end of file"), "{diff}");
    }
}
