//! How many requests the server is answering. A client waiting for an answer uses no CPU; on a
//! loaded machine the answer may take seconds, and whoever judges a client idle by its CPU time
//! (the grader's hang cutoff) asks here whether it may be waiting on the server instead.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use axum_server::accept::Accept;

/// Connections in their TLS handshake and requests being handled, of one server.
#[derive(Debug, Clone, Default)]
pub struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    pub fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }

    /// Counted until the returned guard drops.
    pub(crate) fn enter(&self) -> Entered {
        self.0.fetch_add(1, Ordering::SeqCst);
        Entered(self.0.clone())
    }
}

pub(crate) struct Entered(Arc<AtomicUsize>);

impl Drop for Entered {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// An acceptor that counts a connection from its accept until `inner` (the TLS handshake) is
/// done: the first wait of a client on a starved server, before any request is read.
#[derive(Clone)]
pub(crate) struct Handshakes<A> {
    pub inner: A,
    pub in_flight: InFlight,
}

type Accepted<I, S> = Pin<Box<dyn Future<Output = std::io::Result<(I, S)>> + Send>>;

impl<A, I, S> Accept<I, S> for Handshakes<A>
where
    A: Accept<I, S>,
    A::Future: Send + 'static,
{
    type Stream = A::Stream;
    type Service = A::Service;
    type Future = Accepted<A::Stream, A::Service>;

    fn accept(&self, stream: I, service: S) -> Self::Future {
        let entered = self.in_flight.enter();
        let accepted = self.inner.accept(stream, service);
        Box::pin(async move {
            let accepted = accepted.await;
            drop(entered);
            accepted
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_counted_while_its_guard_lives() {
        let in_flight = InFlight::default();
        let first = in_flight.enter();
        let second = in_flight.clone().enter();
        assert_eq!(in_flight.count(), 2);
        drop(first);
        assert_eq!(in_flight.count(), 1);
        drop(second);
        assert_eq!(in_flight.count(), 0);
    }

    /// A client that connected and has not finished its handshake is waiting on the server.
    #[tokio::test]
    async fn a_connection_is_counted_until_its_handshake_ends() {
        let cluster = crate::Cluster::start(crate::ClusterConfig::default())
            .await
            .expect("cluster");
        let in_flight = cluster.in_flight();
        let until = |want: usize| {
            let in_flight = in_flight.clone();
            async move {
                // However slowly a loaded machine gets there; a hang fails the test's own timeout.
                while in_flight.count() != want {
                    tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                }
            }
        };
        until(0).await;
        let silent = tokio::net::TcpStream::connect(cluster.addr())
            .await
            .expect("connect");
        until(1).await;
        drop(silent);
        until(0).await;
        cluster.shutdown().await;
    }
}
