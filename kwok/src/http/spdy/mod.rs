//! SPDY/3.1, the stream multiplexing kubectl (1.29 and older for exec and attach, every version
//! for port forwarding) speaks after an HTTP upgrade, and that kubectl 1.31 and later tunnels
//! through a WebSocket for port forwarding. What the embedded cluster needs of it: the framer
//! (`frame`, `header_block`) and the server's side of a connection (`session`); flow control
//! is not kept, as the Go framer both sides use keeps none.

pub mod frame;
pub mod header_block;
pub mod session;
pub mod upgrade;
