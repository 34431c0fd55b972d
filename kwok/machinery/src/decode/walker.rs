//! Decoding a body the way the apiserver's Go decoder does (sigs.k8s.io/json, a fork of
//! encoding/json), with the schema taken from the k8s-openapi types.
//!
//! The k8s-openapi `Deserialize` impls are driven through [`Node`], a serde `Deserializer` over the
//! parsed body. Each `deserialize_*` call tells what Go type the field has, so the walk can
//! - report unknown and duplicate fields with sigs.k8s.io/json's dotted paths (`spec.foo`,
//!   `spec.containers[0].foo`),
//! - report the first type mismatch with encoding/json's text
//!   (`json: cannot unmarshal bool into Go struct field PodSpec.spec.nodeSelector of type string`:
//!   innermost struct, then the JSON field names from the root, map keys and indices left out),
//! - and build the object the server would store: unknown fields and nulls dropped, empty optional
//!   maps/lists dropped (`omitempty`), quantities and times in canonical form.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::fmt;

use serde::de::value::{StrDeserializer, StringDeserializer};
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor,
};
use serde_json::{Map, Value};

use super::json::Val;
use super::{gobase64, gotime, gotypes};
use crate::error::go_quote;
use crate::quantity;

/// Why the walk stopped.
#[derive(Debug)]
pub enum WalkError {
    /// A decode error was recorded in [`Walk::fatal`]; unwind.
    Abort,
    /// A type description found by [`Probe`].
    Probe(String),
    /// A k8s-openapi visitor refused what it was fed (never expected).
    Other(String),
}

impl fmt::Display for WalkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WalkError::Abort => f.write_str("decode aborted"),
            WalkError::Probe(t) => write!(f, "type {t}"),
            WalkError::Other(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for WalkError {}

impl de::Error for WalkError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        WalkError::Other(msg.to_string())
    }
}

/// Shape of the value a node last emitted, to apply `omitempty` to optional maps and lists.
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    Scalar,
    Map,
    Seq,
    Struct,
}

/// Shared state of one decode.
pub struct Walk {
    check_strict: bool,
    /// Type errors as `runtime.DefaultUnstructuredConverter` words them ([`Decoding`]).
    unstructured: bool,
    strict: RefCell<Vec<String>>,
    fatal: RefCell<Option<String>>,
    out: RefCell<Vec<Value>>,
    last_shape: Cell<Shape>,
}

/// The result of a decode that found no type error.
pub struct Outcome {
    pub object: Value,
    /// `unknown field "..."` / `duplicate field "..."`, in document order.
    pub strict: Vec<String>,
}

impl Walk {
    fn fail(&self, msg: String) -> WalkError {
        let mut fatal = self.fatal.borrow_mut();
        if fatal.is_none() {
            *fatal = Some(msg);
        }
        WalkError::Abort
    }

    fn strict_error(&self, kind: &str, path: &str) {
        if self.check_strict {
            self.strict
                .borrow_mut()
                .push(format!("{kind} field {}", go_quote(path)));
        }
    }

    fn emit(&self, shape: Shape, v: Value) {
        self.last_shape.set(shape);
        self.out.borrow_mut().push(v);
    }

    fn pop(&self) -> Value {
        self.out.borrow_mut().pop().unwrap_or(Value::Null)
    }

    /// `omitempty` on an optional map or list: an empty one is not written back.
    fn drop_if_empty(&self) {
        if !matches!(self.last_shape.get(), Shape::Map | Shape::Seq) {
            return;
        }
        let mut out = self.out.borrow_mut();
        if let Some(top) = out.last_mut() {
            let empty = match top {
                Value::Object(m) => m.is_empty(),
                Value::Array(a) => a.is_empty(),
                _ => false,
            };
            if empty {
                *top = Value::Null;
            }
        }
    }
}

/// Decode `val` as the k8s-openapi type `T`. `root` is the (apiVersion, kind) the top-level
/// k8s-openapi visitor insists on; the body's own values are kept in the output.
pub fn walk<T: DeserializeOwned>(
    val: &Val,
    how: Decoding,
    root: (&str, &str),
) -> Result<Outcome, String> {
    let walk = Walk {
        check_strict: how.strict,
        unstructured: how.unstructured,
        strict: RefCell::new(Vec::new()),
        fatal: RefCell::new(None),
        out: RefCell::new(Vec::new()),
        last_shape: Cell::new(Shape::Scalar),
    };
    let node = Node {
        val,
        walk: &walk,
        pos: Pos::default(),
        root: Some(root),
    };
    let result = T::deserialize(node);
    if let Some(msg) = walk.fatal.borrow_mut().take() {
        return Err(msg);
    }
    match result {
        Ok(_) => Ok(Outcome {
            object: walk.pop(),
            strict: walk.strict.take(),
        }),
        Err(e) => Err(e.to_string()),
    }
}

/// How a body is read.
#[derive(Clone, Copy, Debug, Default)]
pub struct Decoding {
    /// Report unknown and duplicate fields (`fieldValidation` Warn or Strict).
    pub strict: bool,
    /// Read as `runtime.DefaultUnstructuredConverter.FromUnstructured` reads the result of a
    /// strategic merge patch, not as encoding/json reads a body: a value of the wrong type is
    /// named by Go kinds, without a field (`cannot convert int64 to string`), and a whole float
    /// fills an integer.
    pub unstructured: bool,
}

impl Decoding {
    /// A request body, read by encoding/json.
    pub fn json(strict: bool) -> Self {
        Decoding {
            strict,
            unstructured: false,
        }
    }
}

/// What a value of the wrong type was to fill, as the unstructured converter tells them apart.
#[derive(Clone, Copy)]
enum Dest {
    /// A bool, number or string of this Go kind (`int32`, `string` for `v1.PodPhase`).
    Scalar(&'static str),
    Map,
    Slice,
    Struct,
    /// A type with its own `UnmarshalJSON` (Time, IntOrString), handed the value's JSON.
    Custom,
}

/// Where a value sits: the sigs.k8s.io/json path, Go's error context, and its Go type when known.
#[derive(Clone, Default)]
struct Pos {
    /// `spec.template.spec.containers[0].name`
    spath: String,
    /// JSON names of the struct fields from the root (Go's `errorContext.FieldStack`).
    fields: Vec<String>,
    /// Innermost struct (Go's `errorContext.Struct`).
    owner: &'static str,
    /// The Go type, when the field's Go type is a named type or it is a slice/map element of one.
    go_type: Option<String>,
}

impl Pos {
    fn key_path(&self, key: &str) -> String {
        if self.spath.is_empty() {
            key.to_string()
        } else {
            format!("{}.{}", self.spath, key)
        }
    }

    fn field(&self, owner: &'static str, key: &str) -> Pos {
        let mut fields = self.fields.clone();
        fields.push(key.to_string());
        Pos {
            spath: self.key_path(key),
            fields,
            owner,
            go_type: gotypes::named_field(owner, key).map(str::to_string),
        }
    }

    fn element(&self, spath: String) -> Pos {
        Pos {
            spath,
            fields: self.fields.clone(),
            owner: self.owner,
            go_type: self.go_type.as_deref().and_then(gotypes::element_of),
        }
    }
}

fn expecting<'de, V: Visitor<'de>>(v: &V) -> String {
    format!("{}", v as &dyn de::Expected)
}

const BYTE_STRING: &str = "a base64-encoded string";
const INT_OR_STRING: &str = "IntOrString";
/// A stand-in value for required time fields k8s-openapi cannot default (Go leaves them zero).
const EPOCH: &str = "1970-01-01T00:00:00Z";
const EPOCH_MICRO: &str = "1970-01-01T00:00:00.000000Z";

/// Required fields without a default in k8s-openapi, which Go accepts missing.
fn required_without_default(owner: &str) -> &'static [&'static str] {
    match owner {
        "Condition" => &["lastTransitionTime"],
        "EventSeries" => &["lastObservedTime"],
        _ => &[],
    }
}

const NO_VALS: &[Val] = &[];
const NO_ENTRIES: &[(String, Val)] = &[];

/// A value in the body, deserialized with Go's semantics.
struct Node<'a> {
    val: &'a Val,
    walk: &'a Walk,
    pos: Pos,
    /// Expected (apiVersion, kind) at the top level.
    root: Option<(&'a str, &'a str)>,
}

fn is_integer_kind(kind: &str) -> bool {
    kind.starts_with("int") || kind.starts_with("uint")
}

/// Parse a JSON integer literal as Go's strconv.ParseInt/ParseUint do (no fraction, no exponent).
fn go_int(lit: &str) -> Option<i128> {
    let digits = lit.strip_prefix('-').unwrap_or(lit);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    lit.parse::<i128>().ok()
}

impl<'a> Node<'a> {
    fn go_type(&self, default: &str) -> String {
        self.pos
            .go_type
            .clone()
            .unwrap_or_else(|| default.to_string())
    }

    /// encoding/json's `UnmarshalTypeError` with the decoder's error context, or in an
    /// unstructured decode the converter's error for `dest`.
    fn type_error(&self, value: &str, go_type: &str, dest: Dest) -> WalkError {
        if self.walk.unstructured {
            return self.walk.fail(self.converter_error(go_type, dest));
        }
        let msg = if self.pos.owner.is_empty() && self.pos.fields.is_empty() {
            format!("json: cannot unmarshal {value} into Go value of type {go_type}")
        } else {
            format!(
                "json: cannot unmarshal {value} into Go struct field {}.{} of type {go_type}",
                self.pos.owner,
                self.pos.fields.join(".")
            )
        };
        self.walk.fail(msg)
    }

    /// `fromUnstructured`'s refusal of this value for `dest` (apimachinery
    /// `pkg/runtime/converter.go`). The value is what a patch map holds: an integer that fits
    /// is an `int64`, any other number a `float64`.
    fn converter_error(&self, go_type: &str, dest: Dest) -> String {
        let source = match self.val {
            Val::Str(_) => "string",
            Val::Bool(_) => "bool",
            Val::Num(lit) if go_int(lit).is_some_and(|n| i64::try_from(n).is_ok()) => "int64",
            Val::Num(_) => "float64",
            Val::Obj(_) => "map",
            Val::Arr(_) => "slice",
            Val::Null => "invalid",
        };
        match dest {
            // reflect's ConvertibleTo lets an integer become a string, and a float an integer;
            // the converter then refuses both but a whole float.
            Dest::Scalar("string") if source == "int64" => {
                format!("cannot convert int64 to {go_type}")
            }
            Dest::Scalar(kind) if source == "float64" && is_integer_kind(kind) => {
                format!("cannot convert float64 to {go_type}")
            }
            Dest::Scalar(kind) => format!("unrecognized type: {kind}"),
            Dest::Map => format!("cannot restore map from {source}"),
            Dest::Slice => format!("cannot restore slice from {source}"),
            Dest::Struct => format!("cannot restore struct from: {source}"),
            Dest::Custom => {
                let value = self.val.go_kind();
                format!("json: cannot unmarshal {value} into Go value of type {go_type}")
            }
        }
    }

    /// An integer as the unstructured converter fills one (`reflect.Value.Convert`): an int64
    /// wraps to the field's width, a whole float64 is taken. `None` outside an unstructured
    /// decode, or when the converter would refuse the number.
    fn unstructured_integer(&self, lit: &str, min: i128, max: i128) -> Option<i128> {
        if !self.walk.unstructured {
            return None;
        }
        let n = go_int(lit)
            .filter(|n| i64::try_from(*n).is_ok())
            .or_else(|| {
                let f = lit.parse::<f64>().ok()?;
                (f.fract() == 0.0 && f.abs() < 9.2e18).then_some(f as i128)
            })?;
        // Two's complement truncation to the field's width, as Go's conversion does.
        Some((n - min).rem_euclid(max - min + 1) + min)
    }

    fn integer<'de, V: Visitor<'de>>(
        self,
        visitor: V,
        go: &'static str,
        min: i128,
        max: i128,
    ) -> Result<V::Value, WalkError> {
        match self.val {
            Val::Num(lit) => match self
                .unstructured_integer(lit, min, max)
                .or_else(|| go_int(lit).filter(|n| (min..=max).contains(n)))
            {
                Some(n) => {
                    if n < 0 {
                        let n = n as i64;
                        self.walk.emit(Shape::Scalar, Value::from(n));
                        visitor.visit_i64(n)
                    } else {
                        let n = n as u64;
                        self.walk.emit(Shape::Scalar, Value::from(n));
                        visitor.visit_u64(n)
                    }
                }
                None => Err(self.type_error(
                    &format!("number {lit}"),
                    &self.go_type(go),
                    Dest::Scalar(go),
                )),
            },
            Val::Null => {
                self.walk.emit(Shape::Scalar, Value::from(0));
                visitor.visit_u64(0)
            }
            other => Err(self.type_error(other.go_kind(), &self.go_type(go), Dest::Scalar(go))),
        }
    }

    fn float<'de, V: Visitor<'de>>(
        self,
        visitor: V,
        go: &'static str,
    ) -> Result<V::Value, WalkError> {
        match self.val {
            Val::Num(lit) => match lit.parse::<f64>().ok().filter(|f| f.is_finite()) {
                Some(f) => {
                    self.walk
                        .emit(Shape::Scalar, super::json::number_value(lit));
                    visitor.visit_f64(f)
                }
                None => Err(self.type_error(
                    &format!("number {lit}"),
                    &self.go_type(go),
                    Dest::Scalar(go),
                )),
            },
            Val::Null => {
                self.walk.emit(Shape::Scalar, Value::from(0));
                visitor.visit_f64(0.0)
            }
            other => Err(self.type_error(other.go_kind(), &self.go_type(go), Dest::Scalar(go))),
        }
    }

    fn string<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        match self.val {
            Val::Str(s) => {
                self.walk.emit(Shape::Scalar, Value::String(s.clone()));
                visitor.visit_string(s.clone())
            }
            Val::Null => {
                self.walk.emit(Shape::Scalar, Value::String(String::new()));
                visitor.visit_str("")
            }
            other => Err(self.type_error(
                other.go_kind(),
                &self.go_type("string"),
                Dest::Scalar("string"),
            )),
        }
    }

    /// `[]byte`: base64 text (or, as Go also takes, an array of byte values).
    fn byte_string<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        let bytes = match self.val {
            Val::Null => {
                self.walk.emit(Shape::Scalar, Value::Null);
                return visitor.visit_none();
            }
            // The converter hands the string to json.Unmarshal, whose error it wraps.
            Val::Str(s) => {
                gobase64::decode(s.as_bytes()).map_err(|m| match self.walk.unstructured {
                    true => self.walk.fail(format!("error decoding from json: {m}")),
                    false => self.walk.fail(m),
                })?
            }
            Val::Arr(items) => {
                let mut bytes = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    let elem = Node {
                        val: item,
                        walk: self.walk,
                        pos: self.pos.element(format!("{}[{i}]", self.pos.spath)),
                        root: None,
                    };
                    match item {
                        Val::Num(lit) => match go_int(lit).filter(|n| (0..=255).contains(n)) {
                            Some(n) => bytes.push(n as u8),
                            None => {
                                return Err(elem.type_error(
                                    &format!("number {lit}"),
                                    "uint8",
                                    Dest::Scalar("uint8"),
                                ))
                            }
                        },
                        Val::Null => bytes.push(0),
                        other => {
                            return Err(elem.type_error(
                                other.go_kind(),
                                "uint8",
                                Dest::Scalar("uint8"),
                            ))
                        }
                    }
                }
                bytes
            }
            other => return Err(self.type_error(other.go_kind(), "[]uint8", Dest::Slice)),
        };
        let encoded = gobase64::encode(&bytes);
        self.walk
            .emit(Shape::Scalar, Value::String(encoded.clone()));
        visitor.visit_some(StringDeserializer::<WalkError>::new(encoded))
    }

    /// `resource.Quantity.UnmarshalJSON`: the raw text (quotes stripped) must parse; its errors
    /// are returned as they are, without field context.
    fn quantity<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        let text = match self.val {
            Val::Str(s) => s.clone(),
            // A null non-pointer Quantity is the zero quantity.
            Val::Null => "0".to_string(),
            other => other.raw_text(),
        };
        let canonical = quantity::canonicalize(&text).map_err(|e| self.walk.fail(e.to_string()))?;
        self.walk
            .emit(Shape::Scalar, Value::String(canonical.clone()));
        visitor.visit_newtype_struct(StringDeserializer::<WalkError>::new(canonical))
    }

    /// `metav1.Time` / `metav1.MicroTime`: `json.Unmarshal` into a string, then `time.Parse`.
    fn time<'de, V: Visitor<'de>>(self, visitor: V, micro: bool) -> Result<V::Value, WalkError> {
        match self.val {
            Val::Str(s) => {
                let normalized =
                    gotime::parse_and_normalize(s, micro).map_err(|m| self.walk.fail(m))?;
                self.walk.emit(Shape::Scalar, Value::String(normalized));
                // Only the emitted JSON is kept; the typed value is thrown away. Its time type
                // stops at 9999-12-30T22:00Z, Go's at the end of year 9999, so it gets a stand-in.
                visitor.visit_newtype_struct(StrDeserializer::<WalkError>::new(if micro {
                    EPOCH_MICRO
                } else {
                    EPOCH
                }))
            }
            Val::Null => {
                self.walk.emit(Shape::Scalar, Value::Null);
                let stand_in = if micro { EPOCH_MICRO } else { EPOCH };
                visitor.visit_newtype_struct(StrDeserializer::<WalkError>::new(stand_in))
            }
            other => Err(self.type_error(other.go_kind(), "string", Dest::Custom)),
        }
    }

    /// `intstr.IntOrString.UnmarshalJSON`: a string, else `json.Unmarshal` into an int32 (whose
    /// error gets the outer field context).
    fn int_or_string<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        match self.val {
            Val::Str(s) => {
                self.walk.emit(Shape::Scalar, Value::String(s.clone()));
                visitor.visit_string(s.clone())
            }
            Val::Num(lit) => match go_int(lit)
                .filter(|n| (i128::from(i32::MIN)..=i128::from(i32::MAX)).contains(n))
            {
                Some(n) => {
                    self.walk.emit(Shape::Scalar, Value::from(n as i64));
                    visitor.visit_i32(n as i32)
                }
                None => Err(self.type_error(&format!("number {lit}"), "int32", Dest::Custom)),
            },
            Val::Null => {
                self.walk.emit(Shape::Scalar, Value::from(0));
                visitor.visit_i32(0)
            }
            other => Err(self.type_error(other.go_kind(), "int32", Dest::Custom)),
        }
    }

    /// Anything without a schema (RawExtension, FieldsV1, free-form values): kept as sent.
    fn free<'de, V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        let v = self.val.to_json();
        self.walk.emit(Shape::Scalar, v.clone());
        v.deserialize_any(visitor)
            .map_err(|e| WalkError::Other(e.to_string()))
    }
}

impl<'de> Deserializer<'de> for Node<'_> {
    type Error = WalkError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        if expecting(&visitor) == INT_OR_STRING {
            return self.int_or_string(visitor);
        }
        self.free(visitor)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        match self.val {
            Val::Bool(b) => {
                self.walk.emit(Shape::Scalar, Value::Bool(*b));
                visitor.visit_bool(*b)
            }
            Val::Null => {
                self.walk.emit(Shape::Scalar, Value::Bool(false));
                visitor.visit_bool(false)
            }
            other => {
                Err(self.type_error(other.go_kind(), &self.go_type("bool"), Dest::Scalar("bool")))
            }
        }
    }

    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        self.integer(visitor, "int8", i128::from(i8::MIN), i128::from(i8::MAX))
    }
    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        self.integer(visitor, "int16", i128::from(i16::MIN), i128::from(i16::MAX))
    }
    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        self.integer(visitor, "int32", i128::from(i32::MIN), i128::from(i32::MAX))
    }
    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        self.integer(visitor, "int64", i128::from(i64::MIN), i128::from(i64::MAX))
    }
    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        self.integer(visitor, "uint8", 0, i128::from(u8::MAX))
    }
    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        self.integer(visitor, "uint16", 0, i128::from(u16::MAX))
    }
    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        self.integer(visitor, "uint32", 0, i128::from(u32::MAX))
    }
    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        self.integer(visitor, "uint64", 0, i128::from(u64::MAX))
    }
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        self.float(visitor, "float32")
    }
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        self.float(visitor, "float64")
    }
    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        self.string(visitor)
    }
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        self.string(visitor)
    }
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        self.string(visitor)
    }
    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        self.free(visitor)
    }
    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        self.free(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        if expecting(&visitor) == BYTE_STRING {
            return self.byte_string(visitor);
        }
        if let Val::Null = self.val {
            self.walk.emit(Shape::Scalar, Value::Null);
            return visitor.visit_none();
        }
        let walk = self.walk;
        let r = visitor.visit_some(self)?;
        walk.drop_if_empty();
        Ok(r)
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        self.walk.emit(Shape::Scalar, Value::Null);
        visitor.visit_unit()
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, WalkError> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, WalkError> {
        match name {
            "Quantity" => self.quantity(visitor),
            "Time" => self.time(visitor, false),
            "MicroTime" => self.time(visitor, true),
            "RawExtension" | "FieldsV1" => {
                let v = self.val.to_json();
                self.walk.emit(Shape::Scalar, v.clone());
                visitor
                    .visit_newtype_struct(v)
                    .map_err(|e| WalkError::Other(e.to_string()))
            }
            _ => visitor.visit_newtype_struct(self),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        let items = match self.val {
            Val::Arr(items) => items.as_slice(),
            Val::Null => NO_VALS,
            other => {
                let go = match &self.pos.go_type {
                    Some(t) => t.clone(),
                    None => probe_seq(visitor),
                };
                return Err(self.type_error(other.go_kind(), &go, Dest::Slice));
            }
        };
        let collected = RefCell::new(Vec::new());
        let access = SeqNode {
            items,
            idx: 0,
            walk: self.walk,
            pos: &self.pos,
            out: &collected,
        };
        let r = visitor.visit_seq(access)?;
        let v = match self.val {
            Val::Null => Value::Null,
            _ => Value::Array(collected.into_inner()),
        };
        self.walk.emit(Shape::Seq, v);
        Ok(r)
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, WalkError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, WalkError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        let entries = match self.val {
            Val::Obj(entries) => entries.as_slice(),
            Val::Null => NO_ENTRIES,
            other => {
                let go = match &self.pos.go_type {
                    Some(t) => t.clone(),
                    None => probe_map(visitor),
                };
                return Err(self.type_error(other.go_kind(), &go, Dest::Map));
            }
        };
        let collected = RefCell::new(Map::new());
        let access = MapNode {
            entries,
            idx: 0,
            walk: self.walk,
            pos: &self.pos,
            out: &collected,
            seen: HashSet::new(),
            current: None,
        };
        let r = visitor.visit_map(access)?;
        let v = match self.val {
            Val::Null => Value::Null,
            _ => Value::Object(collected.into_inner()),
        };
        self.walk.emit(Shape::Map, v);
        Ok(r)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, WalkError> {
        let entries = match self.val {
            Val::Obj(entries) => entries.as_slice(),
            Val::Null => NO_ENTRIES,
            other => {
                let go = self.go_type(&gotypes::struct_type(name));
                return Err(self.type_error(other.go_kind(), &go, Dest::Struct));
            }
        };
        let collected = RefCell::new(Map::new());
        let access = StructNode {
            entries,
            idx: 0,
            name,
            fields,
            walk: self.walk,
            pos: &self.pos,
            root: self.root,
            out: &collected,
            seen: HashSet::new(),
            synth: required_without_default(name).to_vec(),
            current: Current::None,
        };
        let r = visitor.visit_map(access)?;
        let v = match self.val {
            Val::Null => Value::Null,
            _ => Value::Object(collected.into_inner()),
        };
        self.walk.emit(Shape::Struct, v);
        Ok(r)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, WalkError> {
        self.free(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        self.string(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        self.walk.emit(Shape::Scalar, Value::Null);
        visitor.visit_unit()
    }
}

/// Elements of an array.
struct SeqNode<'a> {
    items: &'a [Val],
    idx: usize,
    walk: &'a Walk,
    pos: &'a Pos,
    out: &'a RefCell<Vec<Value>>,
}

impl<'de> SeqAccess<'de> for SeqNode<'_> {
    type Error = WalkError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, WalkError> {
        let Some(item) = self.items.get(self.idx) else {
            return Ok(None);
        };
        let pos = self
            .pos
            .element(format!("{}[{}]", self.pos.spath, self.idx));
        self.idx += 1;
        let r = seed.deserialize(Node {
            val: item,
            walk: self.walk,
            pos,
            root: None,
        })?;
        let v = self.walk.pop();
        self.out.borrow_mut().push(v);
        Ok(Some(r))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len().saturating_sub(self.idx))
    }
}

/// Entries of a Go map.
struct MapNode<'a> {
    entries: &'a [(String, Val)],
    idx: usize,
    walk: &'a Walk,
    pos: &'a Pos,
    out: &'a RefCell<Map<String, Value>>,
    seen: HashSet<&'a str>,
    current: Option<&'a (String, Val)>,
}

impl<'de> MapAccess<'de> for MapNode<'_> {
    type Error = WalkError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, WalkError> {
        let Some(entry) = self.entries.get(self.idx) else {
            return Ok(None);
        };
        self.idx += 1;
        if !self.seen.insert(entry.0.as_str()) {
            self.walk
                .strict_error("duplicate", &self.pos.key_path(&entry.0));
        }
        self.current = Some(entry);
        seed.deserialize(StrDeserializer::<WalkError>::new(&entry.0))
            .map(Some)
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, WalkError> {
        let Some((key, val)) = self.current.take() else {
            return Err(WalkError::Other("map value without a key".into()));
        };
        let pos = self.pos.element(self.pos.key_path(key));
        let r = seed.deserialize(Node {
            val,
            walk: self.walk,
            pos,
            root: None,
        })?;
        let v = self.walk.pop();
        self.out.borrow_mut().insert(key.clone(), v);
        Ok(r)
    }
}

enum Current<'a> {
    None,
    Entry(&'a (String, Val)),
    Synthetic,
}

/// Fields of a Go struct.
struct StructNode<'a> {
    entries: &'a [(String, Val)],
    idx: usize,
    name: &'static str,
    fields: &'static [&'static str],
    walk: &'a Walk,
    pos: &'a Pos,
    root: Option<(&'a str, &'a str)>,
    out: &'a RefCell<Map<String, Value>>,
    seen: HashSet<&'a str>,
    /// Required fields k8s-openapi needs even when Go would leave them zero.
    synth: Vec<&'static str>,
    current: Current<'a>,
}

impl<'de> MapAccess<'de> for StructNode<'_> {
    type Error = WalkError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, WalkError> {
        while let Some(entry) = self.entries.get(self.idx) {
            self.idx += 1;
            let key = entry.0.as_str();
            if !self.fields.contains(&key) {
                // sigs.k8s.io/json: unknown fields are skipped (and reported when strict).
                self.walk.strict_error("unknown", &self.pos.key_path(key));
                continue;
            }
            if !self.seen.insert(key) {
                self.walk.strict_error("duplicate", &self.pos.key_path(key));
            }
            self.current = Current::Entry(entry);
            return seed
                .deserialize(StrDeserializer::<WalkError>::new(key))
                .map(Some);
        }
        while let Some(field) = self.synth.pop() {
            if !self.seen.contains(field) {
                self.current = Current::Synthetic;
                return seed
                    .deserialize(StrDeserializer::<WalkError>::new(field))
                    .map(Some);
            }
        }
        Ok(None)
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, WalkError> {
        match std::mem::replace(&mut self.current, Current::None) {
            Current::Entry((key, val)) => {
                if let Some((api_version, kind)) = self.root {
                    let expected = match key.as_str() {
                        "apiVersion" => Some(api_version),
                        "kind" => Some(kind),
                        _ => None,
                    };
                    if let Some(expected) = expected {
                        let r = seed.deserialize(Fixed(expected))?;
                        self.out.borrow_mut().insert(key.clone(), val.to_json());
                        return Ok(r);
                    }
                }
                let pos = self.pos.field(self.name, key);
                let r = seed.deserialize(Node {
                    val,
                    walk: self.walk,
                    pos,
                    root: None,
                })?;
                let v = self.walk.pop();
                let mut out = self.out.borrow_mut();
                if v.is_null() {
                    out.shift_remove(key.as_str());
                } else {
                    out.insert(key.clone(), v);
                }
                Ok(r)
            }
            Current::Synthetic => seed.deserialize(StandIn),
            Current::None => Err(WalkError::Other("struct value without a key".into())),
        }
    }
}

/// Feeds the type's own apiVersion/kind to the top-level visitor (k8s-openapi checks them; a
/// mismatch was already handled the apiserver's way).
struct Fixed<'a>(&'a str);

impl<'de> Deserializer<'de> for Fixed<'_> {
    type Error = WalkError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        visitor.visit_str(self.0)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        visitor.visit_some(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

/// Feeds a placeholder to a required k8s-openapi field the body left out.
struct StandIn;

impl<'de> Deserializer<'de> for StandIn {
    type Error = WalkError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        visitor.visit_str(EPOCH)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, WalkError> {
        visitor.visit_newtype_struct(StrDeserializer::<WalkError>::new(EPOCH))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

/// The Go type of a slice field, learned by feeding its visitor one probing element.
fn probe_seq<'de, V: Visitor<'de>>(visitor: V) -> String {
    match visitor.visit_seq(ProbeSeq) {
        Err(WalkError::Probe(elem)) => format!("[]{elem}"),
        _ => "[]interface {}".into(),
    }
}

fn probe_map<'de, V: Visitor<'de>>(visitor: V) -> String {
    match visitor.visit_map(ProbeMap { key_given: false }) {
        Err(WalkError::Probe(elem)) => format!("map[string]{elem}"),
        _ => "map[string]interface {}".into(),
    }
}

/// A deserializer that only reports the Go type it is asked for.
struct Probe;

fn found<T>(t: &str) -> Result<T, WalkError> {
    Err(WalkError::Probe(t.to_string()))
}

impl<'de> Deserializer<'de> for Probe {
    type Error = WalkError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        if expecting(&visitor) == INT_OR_STRING {
            return found("intstr.IntOrString");
        }
        found("interface {}")
    }
    fn deserialize_bool<V: Visitor<'de>>(self, _v: V) -> Result<V::Value, WalkError> {
        found("bool")
    }
    fn deserialize_i8<V: Visitor<'de>>(self, _v: V) -> Result<V::Value, WalkError> {
        found("int8")
    }
    fn deserialize_i16<V: Visitor<'de>>(self, _v: V) -> Result<V::Value, WalkError> {
        found("int16")
    }
    fn deserialize_i32<V: Visitor<'de>>(self, _v: V) -> Result<V::Value, WalkError> {
        found("int32")
    }
    fn deserialize_i64<V: Visitor<'de>>(self, _v: V) -> Result<V::Value, WalkError> {
        found("int64")
    }
    fn deserialize_u8<V: Visitor<'de>>(self, _v: V) -> Result<V::Value, WalkError> {
        found("uint8")
    }
    fn deserialize_u16<V: Visitor<'de>>(self, _v: V) -> Result<V::Value, WalkError> {
        found("uint16")
    }
    fn deserialize_u32<V: Visitor<'de>>(self, _v: V) -> Result<V::Value, WalkError> {
        found("uint32")
    }
    fn deserialize_u64<V: Visitor<'de>>(self, _v: V) -> Result<V::Value, WalkError> {
        found("uint64")
    }
    fn deserialize_f32<V: Visitor<'de>>(self, _v: V) -> Result<V::Value, WalkError> {
        found("float32")
    }
    fn deserialize_f64<V: Visitor<'de>>(self, _v: V) -> Result<V::Value, WalkError> {
        found("float64")
    }
    fn deserialize_char<V: Visitor<'de>>(self, _v: V) -> Result<V::Value, WalkError> {
        found("int32")
    }
    fn deserialize_str<V: Visitor<'de>>(self, _v: V) -> Result<V::Value, WalkError> {
        found("string")
    }
    fn deserialize_string<V: Visitor<'de>>(self, _v: V) -> Result<V::Value, WalkError> {
        found("string")
    }
    fn deserialize_bytes<V: Visitor<'de>>(self, _v: V) -> Result<V::Value, WalkError> {
        found("[]uint8")
    }
    fn deserialize_byte_buf<V: Visitor<'de>>(self, _v: V) -> Result<V::Value, WalkError> {
        found("[]uint8")
    }
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        if expecting(&visitor) == BYTE_STRING {
            return found("[]uint8");
        }
        visitor.visit_some(self)
    }
    fn deserialize_unit<V: Visitor<'de>>(self, _v: V) -> Result<V::Value, WalkError> {
        found("struct {}")
    }
    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _n: &'static str,
        _v: V,
    ) -> Result<V::Value, WalkError> {
        found("struct {}")
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, WalkError> {
        match gotypes::newtype(name) {
            Some(t) => found(t),
            None => visitor.visit_newtype_struct(self),
        }
    }
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        found(&probe_seq(visitor))
    }
    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, WalkError> {
        found(&probe_seq(visitor))
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _n: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, WalkError> {
        found(&probe_seq(visitor))
    }
    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        found(&probe_map(visitor))
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        _fields: &'static [&'static str],
        _v: V,
    ) -> Result<V::Value, WalkError> {
        found(&gotypes::struct_type(name))
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _n: &'static str,
        _variants: &'static [&'static str],
        _v: V,
    ) -> Result<V::Value, WalkError> {
        found("interface {}")
    }
    fn deserialize_identifier<V: Visitor<'de>>(self, _v: V) -> Result<V::Value, WalkError> {
        found("string")
    }
    fn deserialize_ignored_any<V: Visitor<'de>>(self, _v: V) -> Result<V::Value, WalkError> {
        found("interface {}")
    }
}

struct ProbeSeq;

impl<'de> SeqAccess<'de> for ProbeSeq {
    type Error = WalkError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, WalkError> {
        seed.deserialize(Probe).map(Some)
    }
}

struct ProbeMap {
    key_given: bool,
}

impl<'de> MapAccess<'de> for ProbeMap {
    type Error = WalkError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, WalkError> {
        if self.key_given {
            return Ok(None);
        }
        self.key_given = true;
        seed.deserialize(StrDeserializer::<WalkError>::new("key"))
            .map(Some)
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, WalkError> {
        seed.deserialize(Probe)
    }
}
