//! The `authorization.k8s.io` and `authentication.k8s.io` review kinds
//! (`pkg/registry/authorization/*`, `pkg/registry/authentication/*`): created, answered, never
//! stored. Their answers are [`crate::auth::reviews`]'.

use serde_json::Value;

use crate::decode::walker::walk;
use crate::error::FieldError;
use crate::protobuf::schema::Message;
use crate::protobuf::schema::{authentication_v1, authorization_v1};
use crate::resource::ResourceDef;
use crate::resource::Strategy;

use crate::decode::Decode;

/// A review kind: only its body's type.
pub struct Review {
    decode: Decode,
    protobuf: &'static Message,
}

impl std::fmt::Debug for Review {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Review")
    }
}

crate::kinds::decodes_as!(Review, |this| this.decode);

impl Strategy for Review {
    fn protobuf(&self) -> Option<&'static Message> {
        Some(self.protobuf)
    }

    fn validate(&self, _obj: &Value) -> Vec<FieldError> {
        Vec::new()
    }

    fn validate_update(&self, _new: &Value, _old: &Value) -> Vec<FieldError> {
        Vec::new()
    }
}

const CREATE: &[&str] = &["create"];

macro_rules! review {
    ($name:ident, $strategy:ident, $group:literal, $module:ident :: $ty:ident, $proto:ident, $plural:literal, $singular:literal, $namespaced:literal) => {
        static $strategy: Review = Review {
            decode: walk::<k8s_openapi::api::$module::v1::$ty>,
            protobuf: &$proto::$strategy,
        };
        pub static $name: ResourceDef = ResourceDef {
            group: $group,
            version: "v1",
            kind: stringify!($ty),
            plural: $plural,
            singular: $singular,
            namespaced: $namespaced,
            short_names: &[],
            categories: &[],
            verbs: CREATE,
            subresources: &[],
            strategy: &$strategy,
        };
    };
}

review!(
    LOCAL_SUBJECT_ACCESS_REVIEWS,
    LOCAL_SUBJECT_ACCESS_REVIEW,
    "authorization.k8s.io",
    authorization::LocalSubjectAccessReview,
    authorization_v1,
    "localsubjectaccessreviews",
    "localsubjectaccessreview",
    true
);
review!(
    SELF_SUBJECT_ACCESS_REVIEWS,
    SELF_SUBJECT_ACCESS_REVIEW,
    "authorization.k8s.io",
    authorization::SelfSubjectAccessReview,
    authorization_v1,
    "selfsubjectaccessreviews",
    "selfsubjectaccessreview",
    false
);
review!(
    SELF_SUBJECT_RULES_REVIEWS,
    SELF_SUBJECT_RULES_REVIEW,
    "authorization.k8s.io",
    authorization::SelfSubjectRulesReview,
    authorization_v1,
    "selfsubjectrulesreviews",
    "selfsubjectrulesreview",
    false
);
review!(
    SUBJECT_ACCESS_REVIEWS,
    SUBJECT_ACCESS_REVIEW,
    "authorization.k8s.io",
    authorization::SubjectAccessReview,
    authorization_v1,
    "subjectaccessreviews",
    "subjectaccessreview",
    false
);
review!(
    TOKEN_REVIEWS,
    TOKEN_REVIEW,
    "authentication.k8s.io",
    authentication::TokenReview,
    authentication_v1,
    "tokenreviews",
    "tokenreview",
    false
);
review!(
    SELF_SUBJECT_REVIEWS,
    SELF_SUBJECT_REVIEW,
    "authentication.k8s.io",
    authentication::SelfSubjectReview,
    authentication_v1,
    "selfsubjectreviews",
    "selfsubjectreview",
    false
);

/// The `authentication.k8s.io/v1` TokenRequest body of `serviceaccounts/<name>/token`.
pub static TOKEN_REQUEST: Review = Review {
    decode: walk::<k8s_openapi::api::authentication::v1::TokenRequest>,
    protobuf: &authentication_v1::TOKEN_REQUEST,
};
