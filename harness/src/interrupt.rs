//! Ctrl-C and SIGTERM, caught once for the whole run: a command waits on [`interrupted`] to stop
//! and clean up (leave a cluster as it found it, stop the scripts it started) rather than die
//! with a kwokctl cluster still running.

/// Set once SIGINT or SIGTERM has arrived (see [`listen_for_interrupts`]).
static INTERRUPTED: std::sync::OnceLock<tokio::sync::watch::Receiver<bool>> =
    std::sync::OnceLock::new();

/// Catches SIGINT and SIGTERM for the rest of the run and remembers them: a signal that arrives
/// while no command is waiting for one (a cluster still starting) is not lost to the default
/// action, which would leave a kwokctl cluster running. `dispatch` calls it first; later calls
/// (from [`interrupted`]) find it done. Must run inside the runtime.
pub fn listen_for_interrupts() -> tokio::sync::watch::Receiver<bool> {
    INTERRUPTED
        .get_or_init(|| {
            let (tx, rx) = tokio::sync::watch::channel(false);
            // Registered here, not in the task: from this call on the default action is gone.
            let signals = register_signals();
            tokio::spawn(async move {
                match signals {
                    Some((mut int, mut term)) => {
                        tokio::select! {
                            _ = int.recv() => {}
                            _ = term.recv() => {}
                        }
                    }
                    None => {
                        let _ = tokio::signal::ctrl_c().await;
                    }
                }
                let _ = tx.send(true);
            });
            rx
        })
        .clone()
}

/// Resolves once SIGINT or SIGTERM has arrived, at once if one already has.
pub async fn interrupted() {
    if listen_for_interrupts()
        .wait_for(|seen| *seen)
        .await
        .is_err()
    {
        std::future::pending::<()>().await;
    }
}

#[cfg(unix)]
type Signals = (tokio::signal::unix::Signal, tokio::signal::unix::Signal);

/// SIGINT and SIGTERM streams; `None` where they cannot be had (then Ctrl-C alone counts).
#[cfg(unix)]
fn register_signals() -> Option<Signals> {
    use tokio::signal::unix::{signal, SignalKind};
    Some((
        signal(SignalKind::interrupt()).ok()?,
        signal(SignalKind::terminate()).ok()?,
    ))
}
