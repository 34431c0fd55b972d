//! Where a forwarded connection goes on a fake node, as kwok's `PortForward` does it: a command
//! (`forwards[].command`) run for the connection, or an address dialled (`forwards[].target`).
//!
//! A command runs through the embedder's [`super::ExecRunner`], as an exec's does, and so whole:
//! it starts when the connection opens, its output is sent as it ends, and the connection ends
//! when the client has closed its side, as kwok's does (kwok waits on the copy into the
//! command's stdin). kwok also gives the command what the client sends; here it reads nothing,
//! so a command that answers whatever is asked (a declared reply) behaves alike, one that reads
//! its request does not (listed in the differential suite's accepted differences).

use super::config::{ExecTargetLocal, Forward};
use super::exec::ExecCall;

/// Where one connection goes.
#[derive(Debug)]
pub enum Upstream {
    Dialed(tokio::net::TcpStream),
    /// The command, still to be given the client's bytes.
    Command(Vec<String>),
}

/// Go's `net.OpError` text for a failed dial.
fn dial_error(address: &str, e: &std::io::Error) -> String {
    let why = match e.kind() {
        std::io::ErrorKind::ConnectionRefused => "connection refused".to_string(),
        std::io::ErrorKind::TimedOut => "i/o timeout".to_string(),
        _ => e.to_string(),
    };
    format!("failed to dial {address}: dial tcp {address}: connect: {why}")
}

/// `PortForward` on kwok's server: the command if the forward names one, else the target.
pub async fn open(forward: &Forward) -> Result<Upstream, String> {
    if !forward.command.is_empty() {
        return Ok(Upstream::Command(forward.command.clone()));
    }
    let Some(target) = &forward.target else {
        return Err("no target or command".into());
    };
    let address = format!("{}:{}", target.address, target.port);
    // Go dials an empty host as the local system.
    let host = if target.address.is_empty() {
        "127.0.0.1"
    } else {
        target.address.as_str()
    };
    let port = u16::try_from(target.port).map_err(|_| {
        format!(
            "failed to dial {address}: dial tcp: address {}: invalid port",
            target.port
        )
    })?;
    tokio::net::TcpStream::connect((host, port))
        .await
        .map(Upstream::Dialed)
        .map_err(|e| dial_error(&address, &e))
}

/// A command's call: the server's directory and environment, nothing on stdin.
pub fn command_call(command: Vec<String>) -> ExecCall {
    ExecCall::new(command, &ExecTargetLocal::default(), None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::debugging::config::ForwardTarget;

    #[tokio::test]
    async fn a_command_wins_over_a_target_and_neither_is_kwoks_error() {
        let both = Forward {
            ports: vec![80],
            target: Some(ForwardTarget {
                port: 1,
                address: "127.0.0.1".into(),
            }),
            command: vec!["cat".into()],
        };
        assert!(matches!(open(&both).await, Ok(Upstream::Command(c)) if c == ["cat"]));
        let neither = Forward::default();
        assert_eq!(open(&neither).await.unwrap_err(), "no target or command");
    }

    #[tokio::test]
    async fn a_target_is_dialled_and_a_refusal_worded_as_go_words_it() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = i32::from(listener.local_addr().unwrap().port());
        let open_one = |address: &str, port: i32| Forward {
            ports: Vec::new(),
            target: Some(ForwardTarget {
                port,
                address: address.into(),
            }),
            command: Vec::new(),
        };
        assert!(matches!(
            open(&open_one("127.0.0.1", port)).await,
            Ok(Upstream::Dialed(_))
        ));
        drop(listener);
        let refused = open(&open_one("127.0.0.1", port)).await.unwrap_err();
        assert_eq!(
            refused,
            format!(
                "failed to dial 127.0.0.1:{port}: dial tcp 127.0.0.1:{port}: connect: connection refused"
            )
        );
    }
}
