//! Checks every target makes of what the server would send back.

use kwok::ApiError;

/// A rejection must be a Status the client can show: an error code and a message.
pub fn assert_status(e: &ApiError) {
    assert!(
        (400..=599).contains(&e.code),
        "error code outside 400..=599: {e}"
    );
    assert!(!e.message.is_empty(), "empty error message: {e:?}");
}
