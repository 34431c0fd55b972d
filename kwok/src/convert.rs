//! Resources served from another resource's storage. The apiserver stores one object and converts
//! it to the version a request names; a kind that is such a view says whose storage it reads
//! (events.k8s.io/v1 Events are core Events, [`crate::kinds::events::event`]), so either API reads
//! and writes every object, each in its own shape. The store converts on the way in and out;
//! everything above it sees the shape of the resource it asked for.

use serde_json::Value;

use crate::resource::ResourceDef;
use crate::resource_names::ResourceNames;

/// The resource whose table holds `res`'s objects: itself, unless it is a view.
pub fn storage(res: &'static ResourceDef) -> &'static ResourceDef {
    res.strategy.storage().unwrap_or(res)
}

/// Is `res` served from another resource's storage? (Loops over every resource skip views, or
/// they would see each object twice.)
pub fn is_view(res: &'static ResourceDef) -> bool {
    storage(res) != res
}

/// `res`'s object in its storage's shape.
pub fn into_storage(res: &'static ResourceDef, value: Value) -> Value {
    if is_view(res) {
        res.strategy.to_storage_shape(&value)
    } else {
        value
    }
}

/// A stored object as `res` shows it, or `None` when it shows it as stored. A custom resource's
/// versions share one table; read through another version than the one it was written in, an
/// object is converted the way a definition without a conversion webhook converts
/// (`nopConverter`): its apiVersion becomes the version asked for, nothing else changes.
pub fn view_of(res: &'static ResourceDef, stored: &Value) -> Option<Value> {
    if is_view(res) {
        return Some(res.strategy.to_view_shape(stored));
    }
    if res.strategy.custom() {
        let wanted = res.api_version();
        if stored["apiVersion"].as_str() != Some(wanted.as_str()) {
            let mut value = stored.clone();
            value["apiVersion"] = Value::String(wanted);
            return Some(value);
        }
    }
    None
}
