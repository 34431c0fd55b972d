//! Best-effort line numbers for semantic errors. serde_yaml drops spans once a value is parsed,
//! so steps and checks are found again by scanning for list items (checks by their `- id:`
//! lines); when the file is written in another style the error simply carries no line.

/// 1-based line and column of step `step` (0-based index) and, if given, of its check `check`.
pub fn locate_item(text: &str, step: usize, check: Option<usize>) -> Option<(usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let steps_line = lines.iter().position(|line| line.trim_end() == "steps:")?;
    // (line number, indent, whether the item starts with `id:`) of every list item after `steps:`,
    // up to the next top-level key.
    let items: Vec<(usize, usize, bool)> = lines
        .iter()
        .enumerate()
        .skip(steps_line + 1)
        .take_while(|(_, line)| {
            let top_level_key = !line.starts_with([' ', '-', '#']) && !line.trim().is_empty();
            !top_level_key
        })
        .filter_map(|(number, line)| {
            let indent = line.len() - line.trim_start().len();
            let rest = line.trim_start().strip_prefix('-')?;
            Some((number, indent, rest.trim_start().starts_with("id:")))
        })
        .collect();
    // Steps are the shallowest items (their `id:` is optional); checks are the `- id:` items
    // below a step.
    let step_indent = items.iter().map(|(_, indent, _)| *indent).min()?;
    let step_starts: Vec<usize> = items
        .iter()
        .filter(|(_, indent, _)| *indent == step_indent)
        .map(|(number, _, _)| *number)
        .collect();
    let start = *step_starts.get(step)?;
    match check {
        None => Some((start + 1, step_indent + 1)),
        Some(check) => {
            let end = step_starts.get(step + 1).copied().unwrap_or(usize::MAX);
            items
                .iter()
                .filter(|(number, indent, id)| {
                    *id && *number > start && *number < end && *indent > step_indent
                })
                .nth(check)
                .map(|(number, indent, _)| (number + 1, indent + 1))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "\
name: x
steps:
  - id: 1
    title: a
    checks:
      - id: one
        title: t
      - id: two
  - title: b
    checks:
      - id: three
        hints:
          - match: x
perturbations: {}
  - not a step
";

    #[test]
    fn finds_steps_and_checks() {
        assert_eq!(locate_item(TEXT, 0, None), Some((3, 3)));
        assert_eq!(locate_item(TEXT, 1, None), Some((9, 3)));
        assert_eq!(locate_item(TEXT, 0, Some(1)), Some((8, 7)));
        assert_eq!(locate_item(TEXT, 1, Some(0)), Some((11, 7)));
        assert_eq!(locate_item(TEXT, 1, Some(1)), None);
        assert_eq!(locate_item(TEXT, 2, None), None);
    }
}
