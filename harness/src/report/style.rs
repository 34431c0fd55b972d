//! Terminal styling: colour only on a terminal, and never when `NO_COLOR` is set
//! (https://no-color.org: "present and not an empty string").

use std::io::IsTerminal;

use clap::ValueEnum;
use owo_colors::OwoColorize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    pub color: bool,
}

/// Which stream a style is for; `auto` colours only when that stream is a terminal.
#[derive(Debug, Clone, Copy)]
pub enum Stream {
    Stdout,
    Stderr,
}

impl Style {
    pub fn plain() -> Style {
        Style { color: false }
    }

    pub fn resolve(choice: ColorChoice, stream: Stream) -> Style {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
        let color = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                !no_color
                    && match stream {
                        Stream::Stdout => std::io::stdout().is_terminal(),
                        Stream::Stderr => std::io::stderr().is_terminal(),
                    }
            }
        };
        Style { color }
    }

    pub fn pass_mark(&self) -> String {
        if self.color {
            "✓".green().bold().to_string()
        } else {
            "✓".to_string()
        }
    }

    pub fn fail_mark(&self) -> String {
        if self.color {
            "✗".red().bold().to_string()
        } else {
            "✗".to_string()
        }
    }

    pub fn bold(&self, text: &str) -> String {
        if self.color {
            text.bold().to_string()
        } else {
            text.to_string()
        }
    }

    pub fn dim(&self, text: &str) -> String {
        if self.color {
            text.dimmed().to_string()
        } else {
            text.to_string()
        }
    }

    pub fn hint(&self, text: &str) -> String {
        if self.color {
            text.yellow().to_string()
        } else {
            text.to_string()
        }
    }

    /// Colours one line of a unified diff by its first character.
    pub fn diff_line(&self, line: &str) -> String {
        if !self.color {
            return line.to_string();
        }
        if line.starts_with("+++") || line.starts_with("---") {
            line.bold().to_string()
        } else if line.starts_with('+') {
            line.green().to_string()
        } else if line.starts_with('-') {
            line.red().to_string()
        } else if line.starts_with("@@") {
            line.cyan().to_string()
        } else {
            line.to_string()
        }
    }
}
