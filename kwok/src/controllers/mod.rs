//! Control loops of the embedded cluster. Each controller is a task fed by the store's change
//! stream; they share the [`Api`] so their writes are validated and watched like any client's.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::task::JoinHandle;

use crate::api::Api;

/// Running controllers.
pub struct Handle {
    tasks: Vec<JoinHandle<()>>,
    busy: Arc<AtomicUsize>,
}

impl Handle {
    /// Is any controller in the middle of work?
    pub fn busy(&self) -> bool {
        self.busy.load(Ordering::SeqCst) > 0
    }

    pub async fn stop(self) {
        for t in &self.tasks {
            t.abort();
        }
        for t in self.tasks {
            let _ = t.await;
        }
    }
}

pub fn start(api: Api, shutdown: tokio::sync::watch::Receiver<bool>) -> Handle {
    let _ = (api, shutdown);
    Handle {
        tasks: Vec::new(),
        busy: Arc::new(AtomicUsize::new(0)),
    }
}
