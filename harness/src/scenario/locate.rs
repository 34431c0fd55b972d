//! Best-effort line numbers for semantic errors. serde_yaml drops spans once a value is parsed,
//! so steps and checks are found again by scanning for list items (a step's checks are the items
//! of its `checks:` key); when the file is written in another style the error carries no line.

/// 1-based line and column of step `step` (0-based index) and, if given, of its check `check`.
pub fn locate_item(text: &str, step: usize, check: Option<usize>) -> Option<(usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let steps_line = lines.iter().position(|line| line.trim_end() == "steps:")?;
    // (line number, indent) of every list item after `steps:`, up to the next top-level key.
    let items: Vec<(usize, usize)> = lines
        .iter()
        .enumerate()
        .skip(steps_line + 1)
        .take_while(|(_, line)| {
            let top_level_key = !line.starts_with([' ', '-', '#']) && !line.trim().is_empty();
            !top_level_key
        })
        .filter_map(|(number, line)| {
            let indent = line.len() - line.trim_start().len();
            line.trim_start()
                .starts_with('-')
                .then_some((number, indent))
        })
        .collect();
    // Steps are the shallowest items (their `id:` is optional).
    let step_indent = items.iter().map(|(_, indent)| *indent).min()?;
    let step_starts: Vec<usize> = items
        .iter()
        .filter(|(_, indent)| *indent == step_indent)
        .map(|(number, _)| *number)
        .collect();
    let start = *step_starts.get(step)?;
    match check {
        None => Some((start + 1, step_indent + 1)),
        Some(check) => {
            let end = step_starts
                .get(step + 1)
                .copied()
                .unwrap_or(lines.len())
                .min(lines.len());
            locate_check(&lines[start..end], check).map(|(line, column)| (start + line, column))
        }
    }
}

/// The check `check` among the items of the `checks:` key in `step` (a step's lines): the list
/// items one level below that key, whatever key each item starts with.
fn locate_check(step: &[&str], check: usize) -> Option<(usize, usize)> {
    let indent = |line: &str| line.len() - line.trim_start().len();
    let key = step
        .iter()
        .position(|line| line.trim_start().starts_with("checks:"))?;
    let key_indent = indent(step[key]);
    let body = step[key + 1..]
        .iter()
        .enumerate()
        .take_while(|(_, line)| {
            let text = line.trim_start();
            text.is_empty()
                || text.starts_with('#')
                || indent(line) > key_indent
                || (indent(line) == key_indent && text.starts_with('-'))
        })
        .filter(|(_, line)| line.trim_start().starts_with('-'));
    let items: Vec<(usize, usize)> = body.map(|(k, line)| (key + 1 + k, indent(line))).collect();
    let item_indent = items.iter().map(|(_, indent)| *indent).min()?;
    items
        .iter()
        .filter(|(_, indent)| *indent == item_indent)
        .nth(check)
        .map(|(line, indent)| (line + 1, indent + 1))
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
      - title: first key not the id
        id: three
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
