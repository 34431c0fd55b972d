//! Turns a [`View`] into `bwrap` arguments.
//!
//! bwrap starts from an empty root and resolves every bind source on the host side, so the view's
//! mounts map one to one onto its options, in the view's order. When bwrap runs as an
//! unprivileged user (a learner's run under a root grader runs bwrap as the run's own uid; a
//! grader that is not root runs it as itself) it makes a user namespace of its own and drops
//! every capability before the script starts; `--disable-userns` keeps the script from making
//! another one.

use super::view::{Mount, View};
use std::ffi::OsString;
use std::path::Path;

pub(crate) fn args(view: &View, unprivileged: bool) -> Vec<OsString> {
    let mut a = Args::default();
    // New PID namespace: `kill -9 -1` reaches only the sandbox, and when the script (or bwrap,
    // killed by us) ends, the kernel kills everything left in it. The network is shared: kubectl
    // must reach the API server on 127.0.0.1.
    a.flag("--die-with-parent");
    a.flag("--unshare-pid");
    a.flag("--unshare-ipc");
    a.flag("--unshare-uts");
    a.flag("--unshare-cgroup-try");
    if unprivileged {
        a.flag("--unshare-user");
        a.flag("--disable-userns");
    }
    for mount in &view.mounts {
        match mount {
            Mount::ReadOnly { path, .. } => a.pair("--ro-bind", path, path),
            Mount::Symlink { path, target } => a.pair("--symlink", target, path),
            Mount::Tmpfs { path, shared } => {
                a.perms(if *shared { "1777" } else { "0700" });
                a.one("--tmpfs", path);
            }
            Mount::Mask { path, is_dir: true } => {
                a.one("--tmpfs", path);
                a.one("--remount-ro", path);
            }
            Mount::Mask {
                path,
                is_dir: false,
            } => a.pair("--ro-bind", Path::new("/dev/null"), path),
            Mount::Lab => a.pair("--bind", &view.run_dir, &view.map_at),
        }
    }
    a.one("--dev", Path::new("/dev"));
    a.one("--proc", Path::new("/proc"));
    a.one("--chdir", &view.map_at);
    a.0
}

#[derive(Default)]
struct Args(Vec<OsString>);

impl Args {
    fn flag(&mut self, flag: &str) {
        self.0.push(flag.into());
    }

    fn perms(&mut self, mode: &str) {
        self.0.push("--perms".into());
        self.0.push(mode.into());
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
}
