//! The shape field ownership walks objects by: structured-merge-diff's types, read from OpenAPI
//! schemas as kube-openapi `schemaconv` (`ToSchemaFromOpenAPI`) converts them — `$ref`s to
//! named definitions, `x-kubernetes-list-type` (or a patch merge key) making a list associative,
//! `x-kubernetes-map-type: atomic` making a map or struct one value, and the untyped and deduced
//! types for schemaless parts.

use serde_json::{Map, Value};

const REF_PREFIX: &str = "#/components/schemas/";
const QUANTITY: &str = "io.k8s.apimachinery.pkg.api.resource.Quantity";
const RAW_EXTENSION: &str = "io.k8s.apimachinery.pkg.runtime.RawExtension";

/// Named definitions, by name (`io.k8s.api.core.v1.Pod`).
pub type Definitions = Map<String, Value>;

/// A reference to a type (`schema.TypeRef`).
#[derive(Clone, Copy, Debug)]
pub enum Ty<'a> {
    /// An inline schema; `preserve` is `x-kubernetes-preserve-unknown-fields` inherited from
    /// above.
    Inline { schema: &'a Value, preserve: bool },
    /// A named definition, its maps made atomic (or granular) by the referring schema.
    Named {
        name: &'a str,
        map_atomic: Option<bool>,
    },
    /// `__untyped_atomic_`: a scalar, or a list or map taken as a whole.
    Untyped,
    /// `__untyped_deduced_`: a scalar, an atomic list, or a map whose fields are deduced.
    Deduced,
    /// No type (an undeclared field of a struct).
    Missing,
}

/// What a value of a type may be (`schema.Atom`): any of a scalar, a list and a map.
#[derive(Clone, Debug, Default)]
pub struct Atom<'a> {
    pub scalar: bool,
    pub list: Option<ListType<'a>>,
    pub map: Option<MapType<'a>>,
}

#[derive(Clone, Debug)]
pub struct ListType<'a> {
    pub elem: Ty<'a>,
    pub kind: ListKind<'a>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ListKind<'a> {
    Atomic,
    /// A set of scalars, each item its own path element by value.
    Set,
    /// An associative list, items keyed by these fields.
    Map(Vec<&'a str>),
}

#[derive(Clone, Debug)]
pub struct MapType<'a> {
    /// Declared fields (a struct); `None` for a plain map.
    pub fields: Option<&'a Map<String, Value>>,
    /// The type of undeclared keys.
    pub elem: Ty<'a>,
    pub atomic: bool,
    preserve: bool,
    /// The fields without `omitempty`.
    required: Option<&'a Vec<Value>>,
}

impl<'a> MapType<'a> {
    /// A declared field's type (`FindField`).
    pub fn field(&self, name: &str) -> Option<Ty<'a>> {
        self.fields?
            .get(name)
            .map(|schema| reference(schema, self.preserve))
    }

    /// A field's type, or the type of undeclared keys.
    pub fn field_or_elem(&self, name: &str) -> Ty<'a> {
        self.field(name).unwrap_or(self.elem)
    }

    /// A declared field's `default`, for a list key an item leaves out.
    pub fn field_default(&self, name: &str) -> Option<&'a Value> {
        self.fields?.get(name)?.get("default")
    }

    /// Whether Go always encodes the field (OpenAPI `required`: no `omitempty`).
    pub fn required(&self, name: &str) -> bool {
        self.required
            .is_some_and(|r| r.iter().any(|n| n.as_str() == Some(name)))
    }

    pub fn declares(&self, name: &str) -> bool {
        self.fields.is_some_and(|f| f.contains_key(name))
    }
}

/// The shape one value takes: the atom narrowed by the value (`deduceAtom`), then the first of
/// map, scalar, list it allows (`handleAtom`).
#[derive(Clone, Debug)]
pub enum Shape<'a> {
    Scalar,
    List(ListType<'a>),
    Map(MapType<'a>),
    Invalid,
}

impl Shape<'_> {
    pub fn same_kind(&self, other: &Shape<'_>) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other)
    }
}

/// `makeOpenAPIRef`: a `$ref` (alone or as the only `allOf`) names a definition; anything else
/// is an inline type.
fn reference(schema: &Value, preserve: bool) -> Ty<'_> {
    let named = schema.get("$ref").and_then(Value::as_str).or_else(|| {
        match schema.get("allOf").and_then(Value::as_array) {
            Some(all) if all.len() == 1 => all[0].get("$ref").and_then(Value::as_str),
            _ => None,
        }
    });
    match named.and_then(|r| r.strip_prefix(REF_PREFIX)) {
        Some(name) => Ty::Named {
            name,
            map_atomic: map_atomic(schema),
        },
        None => Ty::Inline { schema, preserve },
    }
}

fn map_atomic(schema: &Value) -> Option<bool> {
    match schema.get("x-kubernetes-map-type").and_then(Value::as_str) {
        Some("atomic") => Some(true),
        Some("granular") => Some(false),
        _ => None,
    }
}

/// The types of one object kind: the definitions its schema refers to.
pub struct Types<'a> {
    defs: &'a Definitions,
}

impl<'a> Types<'a> {
    pub fn new(defs: &'a Definitions) -> Self {
        Types { defs }
    }

    /// The type of a named definition.
    pub fn named(name: &'a str) -> Ty<'a> {
        Ty::Named {
            name,
            map_atomic: None,
        }
    }

    /// `Schema.Resolve`.
    pub fn atom(&self, ty: Ty<'a>) -> Atom<'a> {
        match ty {
            Ty::Missing => Atom::default(),
            Ty::Untyped => schemaless(Ty::Untyped, true),
            Ty::Deduced => schemaless(Ty::Deduced, false),
            Ty::Named { name, map_atomic } => {
                let mut atom = match name {
                    QUANTITY => Atom {
                        scalar: true,
                        ..Atom::default()
                    },
                    RAW_EXTENSION => self.atom(Ty::Untyped),
                    _ => match self.defs.get(name) {
                        Some(schema) => parse(schema, false),
                        None => Atom::default(),
                    },
                };
                if let (Some(atomic), Some(map)) = (map_atomic, atom.map.as_mut()) {
                    map.atomic = atomic;
                }
                atom
            }
            Ty::Inline { schema, preserve } => match reference(schema, preserve) {
                named @ Ty::Named { .. } => self.atom(named),
                _ => parse(schema, preserve),
            },
        }
    }

    /// The shape `value` takes in `ty` (`None`: the value is absent).
    pub fn shape(&self, ty: Ty<'a>, value: Option<&Value>) -> Shape<'a> {
        let atom = self.atom(ty);
        let narrowed = match value {
            Some(Value::Number(_) | Value::String(_) | Value::Bool(_)) if atom.scalar => {
                return Shape::Scalar
            }
            Some(Value::Array(_)) => atom.list.clone().map(Shape::List),
            Some(Value::Object(_)) => atom.map.clone().map(Shape::Map),
            _ => None,
        };
        if let Some(shape) = narrowed {
            return shape;
        }
        if let Some(map) = atom.map {
            Shape::Map(map)
        } else if atom.scalar {
            Shape::Scalar
        } else if let Some(list) = atom.list {
            Shape::List(list)
        } else {
            Shape::Invalid
        }
    }
}

/// `untypedDef` and `deducedDef`: any scalar, an atomic list, and a map of `elem`.
fn schemaless(elem: Ty<'_>, atomic: bool) -> Atom<'_> {
    Atom {
        scalar: true,
        list: Some(ListType {
            elem: Ty::Untyped,
            kind: ListKind::Atomic,
        }),
        map: Some(MapType {
            fields: None,
            elem,
            atomic,
            preserve: false,
            required: None,
        }),
    }
}

/// `parseSchema`: a type from an OpenAPI schema.
fn parse(schema: &Value, inherited_preserve: bool) -> Atom<'_> {
    let preserve = inherited_preserve
        || schema
            .get("x-kubernetes-preserve-unknown-fields")
            .and_then(Value::as_bool)
            .unwrap_or(false);
    let ty = match schema.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts.first().and_then(Value::as_str).unwrap_or(""),
        _ => "",
    };
    match ty {
        "" => Atom {
            scalar: true,
            list: Some(parse_list(schema, preserve)),
            map: Some(parse_object(schema, preserve)),
        },
        "object" => Atom {
            map: Some(parse_object(schema, preserve)),
            ..Atom::default()
        },
        "array" => Atom {
            list: Some(parse_list(schema, preserve)),
            ..Atom::default()
        },
        _ => Atom {
            scalar: true,
            ..Atom::default()
        },
    }
}

fn parse_object(schema: &Value, preserve: bool) -> MapType<'_> {
    let fields = schema.get("properties").and_then(Value::as_object);
    let elem = match schema.get("additionalProperties") {
        None | Some(Value::Null) => {
            if preserve || fields.is_none_or(Map::is_empty) {
                Ty::Deduced
            } else {
                Ty::Missing
            }
        }
        Some(Value::Bool(true)) => Ty::Deduced,
        Some(Value::Bool(false)) => Ty::Missing,
        Some(s) => reference(s, preserve),
    };
    MapType {
        fields,
        elem,
        atomic: map_atomic(schema) == Some(true),
        preserve,
        required: schema.get("required").and_then(Value::as_array),
    }
}

/// `parseList` with `getListElementRelationship`: a list type, else a merge patch strategy
/// (with its key: a map; without: a set), else atomic.
fn parse_list(schema: &Value, preserve: bool) -> ListType<'_> {
    let kind = match schema.get("x-kubernetes-list-type").and_then(Value::as_str) {
        Some("set") => ListKind::Set,
        Some("map") => ListKind::Map(
            schema
                .get("x-kubernetes-list-map-keys")
                .and_then(Value::as_array)
                .map(|keys| keys.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default(),
        ),
        Some(_) => ListKind::Atomic,
        None => match schema
            .get("x-kubernetes-patch-strategy")
            .and_then(Value::as_str)
        {
            Some("merge" | "merge,retainKeys") => {
                match schema
                    .get("x-kubernetes-patch-merge-key")
                    .and_then(Value::as_str)
                {
                    Some(key) => ListKind::Map(vec![key]),
                    None => ListKind::Set,
                }
            }
            _ => ListKind::Atomic,
        },
    };
    let elem = match schema.get("items") {
        Some(items) if items.is_object() => reference(items, preserve),
        Some(_) => Ty::Deduced,
        None => Ty::Untyped,
    };
    ListType { elem, kind }
}
