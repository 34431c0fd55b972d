//! Go's `fmt` as the API server's messages use it, for JSON values: `%v` and `%s` of what
//! `sigs.k8s.io/json` decodes into `interface{}` (patch errors), and `%#v` of a typed field's value
//! (what `field.Error` prints of a bad value).

pub mod go_syntax;
mod value;

pub use value::{go_s, go_type, go_v};

/// Go's `%x` of a byte slice: two lower-case hex digits a byte.
pub fn go_x(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
