//! Files of a learner's lab dir as the grader itself reads them (outside the sandbox). A symbolic
//! link that leads out of the lab dir (`out/tags.txt -> /etc/shadow`, or to the reference
//! solution's own file) is never followed: its target would be shown in a diff, or graded as the
//! learner's work.

use std::path::{Component, Path, PathBuf};

use super::outcome::Outcome;

#[derive(Debug, PartialEq, Eq)]
pub enum LabFile {
    /// A regular file inside the lab dir (possibly reached through links that stay inside).
    Inside(PathBuf),
    /// Absent, a directory, a dangling link, or something that is not a regular file.
    Missing,
    /// Leads out of the lab dir; `link` is the learner's link text (what `ls -l` shows).
    Outside { link: PathBuf },
}

/// Where `dir/relative` leads.
pub fn locate(dir: &Path, relative: &Path) -> LabFile {
    let path = dir.join(relative);
    let Ok(real) = std::fs::canonicalize(&path) else {
        return LabFile::Missing;
    };
    let root = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    if !real.starts_with(&root) {
        return LabFile::Outside {
            link: last_link(dir, relative).unwrap_or(real),
        };
    }
    if real.is_file() {
        LabFile::Inside(path)
    } else {
        LabFile::Missing
    }
}

/// The text of the last symbolic link on the way from `dir` to `dir/relative`.
fn last_link(dir: &Path, relative: &Path) -> Option<PathBuf> {
    let mut path = dir.to_path_buf();
    let mut link = None;
    for component in relative.components() {
        match component {
            Component::Normal(name) => path.push(name),
            Component::ParentDir => {
                path.pop();
            }
            _ => continue,
        }
        if let Ok(text) = std::fs::read_link(&path) {
            link = Some(text);
        }
    }
    link
}

/// The failure for a file that leads outside the lab dir, in the learner's words.
pub fn outside(relative: &Path, link: &Path) -> Outcome {
    Outcome::fail(format!(
        "{} is a symbolic link to {}, outside your lab directory: it was not read; submit the file itself",
        relative.display(),
        link.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::symlink;

    #[test]
    fn links_inside_are_followed_and_links_outside_are_not() {
        let lab = tempfile::tempdir().expect("tempdir");
        let elsewhere = tempfile::tempdir().expect("tempdir");
        let secret = elsewhere.path().join("secret.txt");
        fs::write(&secret, "secret\n").expect("write");
        fs::create_dir_all(lab.path().join("out")).expect("mkdir");
        fs::write(lab.path().join("data.txt"), "mine\n").expect("write");
        symlink("../data.txt", lab.path().join("out/inside.txt")).expect("link");
        symlink(&secret, lab.path().join("out/outside.txt")).expect("link");
        symlink(elsewhere.path(), lab.path().join("linked-dir")).expect("link");
        symlink("/nonexistent/x", lab.path().join("out/dangling.txt")).expect("link");

        assert_eq!(
            locate(lab.path(), Path::new("out/inside.txt")),
            LabFile::Inside(lab.path().join("out/inside.txt"))
        );
        assert_eq!(
            locate(lab.path(), Path::new("out/outside.txt")),
            LabFile::Outside {
                link: secret.clone()
            }
        );
        assert_eq!(
            locate(lab.path(), Path::new("linked-dir/secret.txt")),
            LabFile::Outside {
                link: elsewhere.path().to_path_buf()
            }
        );
        assert_eq!(
            locate(lab.path(), Path::new("out/dangling.txt")),
            LabFile::Missing
        );
        assert_eq!(locate(lab.path(), Path::new("out")), LabFile::Missing);
        assert_eq!(locate(lab.path(), Path::new("nope.txt")), LabFile::Missing);
        let outcome = outside(Path::new("out/outside.txt"), &secret);
        assert!(!outcome.passed);
        assert_eq!(
            outcome.message,
            format!(
                "out/outside.txt is a symbolic link to {}, outside your lab directory: it was not read; submit the file itself",
                secret.display()
            )
        );
    }
}
