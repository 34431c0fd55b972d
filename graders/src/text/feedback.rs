//! How much of a diff a learner is shown. A whole unified diff holds every expected line: shown
//! after a probe submission, it is the answer key, and a resubmission rebuilt from it scores
//! without running anything of the lab. The first difference tells the learner where to look.

/// The first place each diff in `text` differs. `text` holds unified diffs (see
/// [`super::unified_diff`]), one per run for a script check, each perhaps under a line naming
/// its run; every such line and every diff's headers are kept, and of each diff its first
/// hunk's range, the first removed and first added line of its first change, and how many
/// changed lines are left out. An empty text stays empty.
pub fn first_difference(text: &str) -> String {
    let mut out = String::new();
    let mut block = Block::default();
    for line in text.lines() {
        if line.starts_with("--- ") {
            block.finish(&mut out);
            out.push_str(line);
            out.push('\n');
            block.open = true;
            continue;
        }
        if !block.open {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        if line.starts_with("+++ ") && block.hunk.is_none() && block.changed == 0 {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        if line.starts_with("@@") {
            block.hunk.get_or_insert_with(|| line.to_string());
            if block.removed.is_some() || block.added.is_some() {
                block.first_run_over = true;
            }
            continue;
        }
        match line.as_bytes().first() {
            Some(b'-') => block.change(line, true),
            Some(b'+') => block.change(line, false),
            // Context (` `) or `\ No newline at end of file`.
            Some(b' ' | b'\\') | None => {
                if block.removed.is_some() || block.added.is_some() {
                    block.first_run_over = true;
                }
            }
            // Not part of a diff: the line naming the next run.
            _ => {
                block.finish(&mut out);
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    block.finish(&mut out);
    out
}

/// One diff being cut down.
#[derive(Default)]
struct Block {
    open: bool,
    hunk: Option<String>,
    removed: Option<String>,
    added: Option<String>,
    first_run_over: bool,
    changed: usize,
}

impl Block {
    fn change(&mut self, line: &str, removed: bool) {
        self.changed += 1;
        if self.first_run_over {
            return;
        }
        let slot = if removed {
            &mut self.removed
        } else {
            &mut self.added
        };
        slot.get_or_insert_with(|| line.to_string());
    }

    fn finish(&mut self, out: &mut String) {
        if !self.open {
            return;
        }
        if let Some(hunk) = &self.hunk {
            out.push_str(hunk);
            out.push('\n');
        }
        let shown = [&self.removed, &self.added]
            .iter()
            .filter(|l| l.is_some())
            .count();
        for line in [&self.removed, &self.added].into_iter().flatten() {
            out.push_str(line);
            out.push('\n');
        }
        if self.changed > shown {
            let left = self.changed - shown;
            out.push_str(&format!(
                "… {left} more changed line{} not shown\n",
                if left == 1 { "" } else { "s" }
            ));
        }
        *self = Block::default();
    }
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

    /// A script check's diffs, one per run under a line naming it: each is cut on its own.
    #[test]
    fn each_runs_diff_keeps_its_name_and_first_change() {
        let text = format!(
            "# ./tier.sh node-a\n{}# ./tier.sh node-b\n{}",
            unified_diff("silver\n", "gold\n"),
            unified_diff("a\nb\nc\n", "a\nB\nC\n")
        );
        let shown = first_difference(&text);
        assert!(
            shown.contains("# ./tier.sh node-a\n--- expected\n+++ actual\n"),
            "{shown}"
        );
        assert!(
            shown.contains("-silver\n+gold\n# ./tier.sh node-b\n"),
            "{shown}"
        );
        assert!(
            shown.contains("-b\n+B\n… 2 more changed lines not shown"),
            "{shown}"
        );
        assert!(!shown.contains("-c"), "{shown}");
    }

    #[test]
    fn no_diff_stays_empty() {
        assert_eq!(first_difference(""), "");
    }
}
