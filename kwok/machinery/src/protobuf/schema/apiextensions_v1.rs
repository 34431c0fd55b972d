//! `apiextensions/v1` messages, written by `upstream/protobuf-tables.sh` from the pinned release's Go API
//! types (field numbers from their `protobuf` tags, JSON names and presence from their `json`
//! tags and Go types): not edited by hand.

use super::Kind::{
    Bool, Bytes, Msg, RawExtension, SchemaOrArray, SchemaOrBool, SchemaOrStringArray, Str, Time,
    F64, I32, I64,
};
use super::{keep, list, map, message, meta_v1, opt, Message};

pub static CUSTOM_RESOURCE_COLUMN_DEFINITION: Message = message(
    "CustomResourceColumnDefinition",
    &[
        keep(1, "name", Str),
        keep(2, "type", Str),
        opt(3, "format", Str),
        opt(4, "description", Str),
        opt(5, "priority", I32),
        keep(6, "jsonPath", Str),
    ],
);

pub static CUSTOM_RESOURCE_CONVERSION: Message = message(
    "CustomResourceConversion",
    &[
        keep(1, "strategy", Str),
        keep(2, "webhook", Msg(&WEBHOOK_CONVERSION)),
    ],
);

pub static CUSTOM_RESOURCE_DEFINITION: Message = message(
    "CustomResourceDefinition",
    &[
        keep(1, "metadata", Msg(&meta_v1::OBJECT_META)),
        keep(2, "spec", Msg(&CUSTOM_RESOURCE_DEFINITION_SPEC)),
        keep(3, "status", Msg(&CUSTOM_RESOURCE_DEFINITION_STATUS)),
    ],
);

pub static CUSTOM_RESOURCE_DEFINITION_CONDITION: Message = message(
    "CustomResourceDefinitionCondition",
    &[
        keep(1, "type", Str),
        keep(2, "status", Str),
        keep(3, "lastTransitionTime", Time),
        opt(4, "reason", Str),
        opt(5, "message", Str),
    ],
);

pub static CUSTOM_RESOURCE_DEFINITION_NAMES: Message = message(
    "CustomResourceDefinitionNames",
    &[
        keep(1, "plural", Str),
        opt(2, "singular", Str),
        list(3, "shortNames", Str),
        keep(4, "kind", Str),
        opt(5, "listKind", Str),
        list(6, "categories", Str),
    ],
);

pub static CUSTOM_RESOURCE_DEFINITION_SPEC: Message = message(
    "CustomResourceDefinitionSpec",
    &[
        keep(1, "group", Str),
        keep(3, "names", Msg(&CUSTOM_RESOURCE_DEFINITION_NAMES)),
        keep(4, "scope", Str),
        list(7, "versions", Msg(&CUSTOM_RESOURCE_DEFINITION_VERSION)),
        keep(9, "conversion", Msg(&CUSTOM_RESOURCE_CONVERSION)),
        opt(10, "preserveUnknownFields", Bool),
    ],
);

pub static CUSTOM_RESOURCE_DEFINITION_STATUS: Message = message(
    "CustomResourceDefinitionStatus",
    &[
        list(1, "conditions", Msg(&CUSTOM_RESOURCE_DEFINITION_CONDITION)),
        keep(2, "acceptedNames", Msg(&CUSTOM_RESOURCE_DEFINITION_NAMES)),
        list(3, "storedVersions", Str),
    ],
);

pub static CUSTOM_RESOURCE_DEFINITION_VERSION: Message = message(
    "CustomResourceDefinitionVersion",
    &[
        keep(1, "name", Str),
        keep(2, "served", Bool),
        keep(3, "storage", Bool),
        opt(7, "deprecated", Bool),
        keep(8, "deprecationWarning", Str),
        keep(4, "schema", Msg(&CUSTOM_RESOURCE_VALIDATION)),
        keep(5, "subresources", Msg(&CUSTOM_RESOURCE_SUBRESOURCES)),
        list(
            6,
            "additionalPrinterColumns",
            Msg(&CUSTOM_RESOURCE_COLUMN_DEFINITION),
        ),
        list(9, "selectableFields", Msg(&SELECTABLE_FIELD)),
    ],
);

pub static CUSTOM_RESOURCE_SUBRESOURCES: Message = message(
    "CustomResourceSubresources",
    &[
        keep(1, "status", Msg(&CUSTOM_RESOURCE_SUBRESOURCE_STATUS)),
        keep(2, "scale", Msg(&CUSTOM_RESOURCE_SUBRESOURCE_SCALE)),
    ],
);

pub static CUSTOM_RESOURCE_SUBRESOURCE_SCALE: Message = message(
    "CustomResourceSubresourceScale",
    &[
        keep(1, "specReplicasPath", Str),
        keep(2, "statusReplicasPath", Str),
        keep(3, "labelSelectorPath", Str),
    ],
);

pub static CUSTOM_RESOURCE_SUBRESOURCE_STATUS: Message =
    message("CustomResourceSubresourceStatus", &[]);

pub static CUSTOM_RESOURCE_VALIDATION: Message = message(
    "CustomResourceValidation",
    &[keep(1, "openAPIV3Schema", Msg(&JSON_SCHEMA_PROPS))],
);

pub static EXTERNAL_DOCUMENTATION: Message = message(
    "ExternalDocumentation",
    &[opt(1, "description", Str), opt(2, "url", Str)],
);

pub static JSON_SCHEMA_PROPS: Message = message(
    "JSONSchemaProps",
    &[
        opt(1, "id", Str),
        opt(2, "$schema", Str),
        keep(3, "$ref", Str),
        opt(4, "description", Str),
        opt(5, "type", Str),
        opt(6, "format", Str),
        opt(7, "title", Str),
        keep(8, "default", RawExtension),
        keep(9, "maximum", F64),
        opt(10, "exclusiveMaximum", Bool),
        keep(11, "minimum", F64),
        opt(12, "exclusiveMinimum", Bool),
        keep(13, "maxLength", I64),
        keep(14, "minLength", I64),
        opt(15, "pattern", Str),
        keep(16, "maxItems", I64),
        keep(17, "minItems", I64),
        opt(18, "uniqueItems", Bool),
        keep(19, "multipleOf", F64),
        list(20, "enum", RawExtension),
        keep(21, "maxProperties", I64),
        keep(22, "minProperties", I64),
        list(23, "required", Str),
        keep(24, "items", SchemaOrArray(&JSON_SCHEMA_PROPS)),
        list(25, "allOf", Msg(&JSON_SCHEMA_PROPS)),
        list(26, "oneOf", Msg(&JSON_SCHEMA_PROPS)),
        list(27, "anyOf", Msg(&JSON_SCHEMA_PROPS)),
        keep(28, "not", Msg(&JSON_SCHEMA_PROPS)),
        map(29, "properties", Msg(&JSON_SCHEMA_PROPS)),
        keep(30, "additionalProperties", SchemaOrBool(&JSON_SCHEMA_PROPS)),
        map(31, "patternProperties", Msg(&JSON_SCHEMA_PROPS)),
        map(32, "dependencies", SchemaOrStringArray(&JSON_SCHEMA_PROPS)),
        keep(33, "additionalItems", SchemaOrBool(&JSON_SCHEMA_PROPS)),
        map(34, "definitions", Msg(&JSON_SCHEMA_PROPS)),
        keep(35, "externalDocs", Msg(&EXTERNAL_DOCUMENTATION)),
        keep(36, "example", RawExtension),
        opt(37, "nullable", Bool),
        keep(38, "x-kubernetes-preserve-unknown-fields", Bool),
        opt(39, "x-kubernetes-embedded-resource", Bool),
        opt(40, "x-kubernetes-int-or-string", Bool),
        list(41, "x-kubernetes-list-map-keys", Str),
        keep(42, "x-kubernetes-list-type", Str),
        keep(43, "x-kubernetes-map-type", Str),
        list(44, "x-kubernetes-validations", Msg(&VALIDATION_RULE)),
    ],
);

pub static SELECTABLE_FIELD: Message = message("SelectableField", &[keep(1, "jsonPath", Str)]);

pub static SERVICE_REFERENCE: Message = message(
    "ServiceReference",
    &[
        keep(1, "namespace", Str),
        keep(2, "name", Str),
        keep(3, "path", Str),
        keep(4, "port", I32),
    ],
);

pub static VALIDATION_RULE: Message = message(
    "ValidationRule",
    &[
        keep(1, "rule", Str),
        opt(2, "message", Str),
        opt(3, "messageExpression", Str),
        keep(4, "reason", Str),
        opt(5, "fieldPath", Str),
        keep(6, "optionalOldSelf", Bool),
    ],
);

pub static WEBHOOK_CLIENT_CONFIG: Message = message(
    "WebhookClientConfig",
    &[
        keep(3, "url", Str),
        keep(1, "service", Msg(&SERVICE_REFERENCE)),
        opt(2, "caBundle", Bytes),
    ],
);

pub static WEBHOOK_CONVERSION: Message = message(
    "WebhookConversion",
    &[
        keep(2, "clientConfig", Msg(&WEBHOOK_CLIENT_CONFIG)),
        list(3, "conversionReviewVersions", Str),
    ],
);
