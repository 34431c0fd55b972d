//! How much of a diff a learner is shown. A whole unified diff holds every expected line: shown
//! after a probe submission, it is the answer key, and a resubmission rebuilt from it scores
//! without running anything of the lab. The first difference tells the learner where to look.

/// The first place `diff` (a unified diff, see [`super::unified_diff`]) differs: the headers, the
/// first hunk's range, its first removed and first added line, and how many changed lines are
/// left out. An empty diff stays empty.
pub fn first_difference(diff: &str) -> String {
    let mut out = String::new();
    let mut removed: Option<&str> = None;
    let mut added: Option<&str> = None;
    let mut changed = 0usize;
    let mut in_first_run = true;
    for line in diff.lines() {
        if line.starts_with("--- ") || line.starts_with("+++ ") {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        if line.starts_with("@@") {
            if out.lines().all(|l| !l.starts_with("@@")) {
                out.push_str(line);
                out.push('\n');
            }
            continue;
        }
        match line.as_bytes().first() {
            Some(b'-') => {
                changed += 1;
                if in_first_run && removed.is_none() {
                    removed = Some(line);
                }
            }
            Some(b'+') => {
                changed += 1;
                if in_first_run && added.is_none() {
                    added = Some(line);
                }
            }
            _ => {
                if removed.is_some() || added.is_some() {
                    in_first_run = false;
                }
            }
        }
    }
    if changed == 0 {
        return String::new();
    }
    let shown = [removed, added].iter().flatten().count();
    for line in [removed, added].into_iter().flatten() {
        out.push_str(line);
        out.push('\n');
    }
    if changed > shown {
        out.push_str(&format!(
            "… {} more changed line{} not shown\n",
            changed - shown,
            if changed - shown == 1 { "" } else { "s" }
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::unified_diff;
    use super::*;

    #[test]
    fn only_the_first_change_of_a_long_answer_is_shown() {
        let expected = "node-0 550\nnode-1 550\nnode-2 535\nnode-3 550\n";
        let actual = "node-0 550\nnode-1 535\nnode-2 550\nnode-3 535\n";
        let shown = first_difference(&unified_diff(expected, actual));
        assert!(shown.contains("-node-1 550\n+node-1 535\n"), "{shown}");
        // The rest of the expected file is not there to copy.
        assert!(!shown.contains("node-2 535"), "{shown}");
        assert!(!shown.contains("-node-3 550"), "{shown}");
        assert!(shown.contains("more changed lines not shown"), "{shown}");
    }

    #[test]
    fn a_missing_line_shows_only_what_was_expected_there() {
        let shown = first_difference(&unified_diff("a\nb\n", "a\n"));
        assert!(shown.contains("-b\n"), "{shown}");
        assert!(!shown.contains("not shown"), "{shown}");
    }

    #[test]
    fn no_diff_stays_empty() {
        assert_eq!(first_difference(""), "");
    }
}
