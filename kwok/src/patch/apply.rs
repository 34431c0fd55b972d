//! Server-side apply (`application/apply-patch+yaml`).

use serde_json::Value;

use crate::error::ApiError;
use crate::registry::ResourceDef;

/// Not served: answer as the server does for a patch type the route does not accept.
pub(crate) fn apply(_res: &'static ResourceDef, _original: &Value, _body: &[u8]) -> Result<Value, ApiError> {
    Err(super::unsupported_patch_type())
}
