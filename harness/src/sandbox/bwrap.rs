//! Turns a [`View`] into `bwrap` arguments.
//!
//! bwrap resolves every bind source on the host side, so binding the run dir (usually under `/tmp`)
//! after `/tmp` has been replaced by a private tmpfs works, and so does re-exposing a kubeconfig.
//! Operations run in argument order, which is the view's layer order.

use super::view::{ChildKind, Layer, View};
use std::ffi::OsString;
use std::path::Path;

pub(crate) fn args(view: &View) -> Vec<OsString> {
    let mut a = Args::default();
    // New PID namespace: `kill -9 -1` reaches only the sandbox, and when the script (or bwrap,
    // killed by us) ends, the kernel kills everything left in it. The network is shared: kubectl
    // must reach the API server on 127.0.0.1.
    a.flag("--die-with-parent");
    a.flag("--unshare-pid");
    a.flag("--unshare-ipc");

    let root_expansion = view.expansion().filter(|e| e.at == Path::new("/"));
    match root_expansion {
        Some(expansion) => {
            for child in &expansion.children {
                let name = child.name.to_string_lossy();
                if name == "proc" || name == "dev" {
                    continue;
                }
                let path = Path::new("/").join(&child.name);
                a.child(&path, &child.kind);
            }
        }
        None => a.pair("--ro-bind", Path::new("/"), Path::new("/")),
    }
    a.one("--dev", Path::new("/dev"));
    a.one("--proc", Path::new("/proc"));
    for layer in &view.layers {
        match layer {
            Layer::Mask(mask) if mask.is_dir => a.one("--tmpfs", &mask.path),
            Layer::Mask(mask) => a.pair("--ro-bind", Path::new("/dev/null"), &mask.path),
            Layer::Expose(expose) => a.pair("--ro-bind", &expose.path, &expose.path),
            Layer::Expand(expansion) if expansion.at == Path::new("/") => {}
            Layer::Expand(expansion) => {
                a.one("--tmpfs", &expansion.at);
                for child in &expansion.children {
                    a.child(&expansion.at.join(&child.name), &child.kind);
                }
            }
            Layer::Lab => a.pair("--bind", &view.run_dir, &view.map_at),
        }
    }
    if let Some(expansion) = view.expansion() {
        if expansion.at != Path::new("/") {
            a.one("--remount-ro", &expansion.at);
        }
    }
    a.one("--chdir", &view.map_at);
    a.0
}

#[derive(Default)]
struct Args(Vec<OsString>);

impl Args {
    fn flag(&mut self, flag: &str) {
        self.0.push(flag.into());
    }

    fn one(&mut self, flag: &str, path: &Path) {
        self.0.push(flag.into());
        self.0.push(path.into());
    }

    fn pair(&mut self, flag: &str, src: &Path, dest: &Path) {
        self.0.push(flag.into());
        self.0.push(src.into());
        self.0.push(dest.into());
    }

    /// Re-creates one entry of an expanded directory: symlinks as symlinks, the rest bound read-only
    /// (`-try`: an entry that vanished since it was listed is skipped).
    fn child(&mut self, path: &Path, kind: &ChildKind) {
        match kind {
            ChildKind::Symlink(target) => self.pair("--symlink", target, path),
            ChildKind::Dir | ChildKind::File => self.pair("--ro-bind-try", path, path),
        }
    }
}
