//! What a learner's script printed, made safe to show on a terminal or in a page: control
//! characters (an escape sequence that clears the screen, retitles the window or recolours the
//! rest of the report, a carriage return that overwrites a line) are shown, not obeyed.

use std::borrow::Cow;

/// `text` with every control character but tab and newline written out: C0 controls and DEL in
/// caret notation (`^[` for ESC, `^M` for CR, `^@` for NUL), C1 controls as `<U+009B>`.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            c if !needs_escape(c) => out.push(c),
            '\u{7f}' => out.push_str("^?"),
            c if (c as u32) < 0x20 => {
                out.push('^');
                out.push(char::from(b'@' + c as u8));
            }
            c => out.push_str(&format!("<U+{:04X}>", c as u32)),
        }
    }
    Cow::Owned(out)
}

fn needs_escape(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_not_obeyed() {
        assert_eq!(
            visible("+\u{0}binary\u{1b}[2J\u{1b}]0;pwned\u{7}\r\u{7f}\u{9b}31m\tok\n"),
            "+^@binary^[[2J^[]0;pwned^G^M^?<U+009B>31m\tok\n"
        );
    }

    #[test]
    fn ordinary_text_is_borrowed() {
        let text = "lab-node-0 550 ✓ é\n\tindented";
        assert!(matches!(visible(text), Cow::Borrowed(t) if t == text));
    }
}
