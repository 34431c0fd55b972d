//! Message tables: for every protobuf message a client may send, its fields by number with the JSON
//! name, value kind and JSON presence rule of the Go struct field it was generated from.
//!
//! The tables follow the Go API types (`k8s.io/api/*/types.go`, `k8s.io/apimachinery/pkg/apis/meta/v1/types.go`):
//! field numbers are those of the `protobuf:"…"` struct tags (the same as in each package's
//! `generated.proto`), JSON names and `omitempty` those of the `json:"…"` tags, and a field is
//! `keep` when the Go field is a pointer or has no `omitempty` (encoding/json writes it even when
//! zero). Fields are listed in Go declaration order, which is the order encoding/json writes them.
//! The `<group>_<version>` modules are written by `upstream/protobuf-tables.sh` from the Go types
//! of the release pinned in `upstream/kubernetes/go.mod`, and checked against them in CI; fields
//! newer than that release are skipped as unknown, as its own decoder skips them.

pub mod apiextensions_v1;
pub mod apiregistration_v1;
pub mod apps_v1;
pub mod authentication_v1;
pub mod authorization_v1;
pub mod autoscaling_v1;
pub mod autoscaling_v2;
pub mod batch_v1;
pub mod certificates_v1;
pub mod coordination_v1;
pub mod core_v1;
pub mod discovery_v1;
pub mod events_v1;
pub mod meta_v1;
pub mod networking_v1;
pub mod node_v1;
pub mod policy_v1;
pub mod rbac_v1;
pub mod scheduling_v1;
pub mod storage_v1;

/// The value carried by one field (or by each element of a list, or each value of a map).
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    Str,
    I32,
    I64,
    /// `float64`: a protobuf double.
    F64,
    Bool,
    /// `[]byte`: base64 in JSON.
    Bytes,
    /// `resource.Quantity`: a message whose string field 1 is the canonical quantity text.
    Quantity,
    /// `intstr.IntOrString`: type=1 (0 int, 1 string), intVal=2, strVal=3.
    IntOrString,
    /// `metav1.Time`: a `Timestamp` (seconds=1, nanos=2) shown with second precision.
    Time,
    /// `metav1.MicroTime`: a `Timestamp` shown with microsecond precision.
    MicroTime,
    /// `metav1.FieldsV1`: raw JSON bytes in field 1, embedded as-is.
    FieldsV1,
    /// `runtime.RawExtension`: raw JSON bytes in field 1, embedded as-is.
    RawExtension,
    Msg(&'static Message),
    /// A named slice as a map value (`ExtraValue`): a message whose one repeated field holds the
    /// elements, written as the plain array (null when the message is empty, a nil slice).
    Items(&'static Message),
    /// `JSONSchemaPropsOrArray` (schema=1, jSONSchemas=2): the schemas' array if any, else the
    /// schema (or null). The message is JSONSchemaProps'.
    SchemaOrArray(&'static Message),
    /// `JSONSchemaPropsOrBool` (allows=1, schema=2): the schema if any, else the boolean.
    SchemaOrBool(&'static Message),
    /// `JSONSchemaPropsOrStringArray` (schema=1, property=2): the strings if any, else the
    /// schema (or null).
    SchemaOrStringArray(&'static Message),
}

/// How a field's value sits in the JSON object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A scalar Go field with `omitempty`: a zero value is left out, as encoding/json does.
    Opt,
    /// A pointer, a field without `omitempty`, or a struct: written whenever it was sent.
    Keep,
    /// A repeated field (Go slice): a JSON array, left out when empty.
    List,
    /// A Go map (protobuf entries with key=1, value=2): a JSON object, left out when empty.
    Map,
    /// An embedded struct with `json:",inline"`: its fields are merged into the parent object.
    Inline,
}

#[derive(Debug)]
pub struct Field {
    pub number: u32,
    /// The JSON name; empty for `Shape::Inline`.
    pub json: &'static str,
    pub kind: Kind,
    pub shape: Shape,
}

#[derive(Debug)]
pub struct Message {
    /// The Go type name, used in error messages the way gogo-protobuf names it.
    pub name: &'static str,
    pub fields: &'static [Field],
}

/// A scalar field with `omitempty`.
const fn opt(number: u32, json: &'static str, kind: Kind) -> Field {
    Field {
        number,
        json,
        kind,
        shape: Shape::Opt,
    }
}

/// A field written even when zero (pointer, no `omitempty`, or struct-valued).
const fn keep(number: u32, json: &'static str, kind: Kind) -> Field {
    Field {
        number,
        json,
        kind,
        shape: Shape::Keep,
    }
}

const fn list(number: u32, json: &'static str, kind: Kind) -> Field {
    Field {
        number,
        json,
        kind,
        shape: Shape::List,
    }
}

const fn map(number: u32, json: &'static str, kind: Kind) -> Field {
    Field {
        number,
        json,
        kind,
        shape: Shape::Map,
    }
}

const fn inline(number: u32, message: &'static Message) -> Field {
    Field {
        number,
        json: "",
        kind: Kind::Msg(message),
        shape: Shape::Inline,
    }
}

const fn message(name: &'static str, fields: &'static [Field]) -> Message {
    Message { name, fields }
}

/// The message for an object of `apiVersion` and `kind`: the kind's own (`kwok::kinds`).
///
/// `DeleteOptions` is found under any apiVersion: `metav1.AddToGroupVersion` registers it in
/// every group version, so typed clients send it with their own (`v1`, `apps/v1`, `policy/v1` …).
pub fn root(api_version: &str, kind: &str, scheme: super::Scheme) -> Option<&'static Message> {
    if kind == "DeleteOptions" {
        return Some(&meta_v1::DELETE_OPTIONS);
    }
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    (scheme.0)(group, version, kind)
}
