//! Human-written quantities in scenario files: durations (`30s`, `1m30s`, `500ms`) and byte sizes
//! (`1MiB`, `512KiB`, `1GB`, or a plain integer of bytes).

use std::fmt;
use std::time::Duration;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A duration written like Go's `time.ParseDuration` accepts (`300ms`, `10s`, `2m`, `1h30m`),
/// because scenario authors know that syntax from `kubectl --timeout`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HumanDuration(pub Duration);

impl HumanDuration {
    pub const fn from_secs(secs: u64) -> Self {
        HumanDuration(Duration::from_secs(secs))
    }
}

/// Parses a Go-style duration. A bare number is taken as seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("empty duration".to_string());
    }
    if let Ok(secs) = text.parse::<f64>() {
        return seconds(secs, text);
    }
    let mut total = 0f64;
    let mut rest = text;
    while !rest.is_empty() {
        let number_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(|| format!("invalid duration {text:?}: missing unit"))?;
        if number_len == 0 {
            return Err(format!("invalid duration {text:?}"));
        }
        let number: f64 = rest[..number_len]
            .parse()
            .map_err(|_| format!("invalid duration {text:?}"))?;
        rest = &rest[number_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let factor = match &rest[..unit_len] {
            "ms" => 0.001,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            other => {
                return Err(format!(
                    "invalid duration {text:?}: unknown unit {other:?} (use ms, s, m or h)"
                ))
            }
        };
        total += number * factor;
        rest = &rest[unit_len..];
    }
    seconds(total, text)
}

fn seconds(secs: f64, text: &str) -> Result<Duration, String> {
    Duration::try_from_secs_f64(secs).map_err(|_| format!("invalid duration {text:?}"))
}

impl<'de> Deserialize<'de> for HumanDuration {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct DurationVisitor;
        impl Visitor<'_> for DurationVisitor {
            type Value = HumanDuration;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a duration such as 30s, 500ms or 1m30s")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                parse_duration(v).map(HumanDuration).map_err(E::custom)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(HumanDuration(Duration::from_secs(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                u64::try_from(v)
                    .map(|v| HumanDuration(Duration::from_secs(v)))
                    .map_err(|_| E::custom("a duration cannot be negative"))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                seconds(v, &v.to_string())
                    .map(HumanDuration)
                    .map_err(E::custom)
            }
        }
        deserializer.deserialize_any(DurationVisitor)
    }
}

impl Serialize for HumanDuration {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&format!("{}ms", self.0.as_millis()))
    }
}

/// A byte count written with binary (`KiB`, `MiB`, `GiB`) or decimal (`KB`, `MB`, `GB`)
/// suffixes, as Kubernetes quantities are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteSize(pub u64);

pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: u64 = number
        .parse()
        .map_err(|_| format!("invalid size {text:?}: expected e.g. 1MiB"))?;
    let factor: u64 = match unit.trim() {
        "" | "B" => 1,
        "K" | "KB" => 1_000,
        "M" | "MB" => 1_000_000,
        "G" | "GB" => 1_000_000_000,
        "Ki" | "KiB" => 1 << 10,
        "Mi" | "MiB" => 1 << 20,
        "Gi" | "GiB" => 1 << 30,
        other => {
            return Err(format!(
                "invalid size {text:?}: unknown unit {other:?} (use B, KiB, MiB, GiB, KB, MB or GB)"
            ))
        }
    };
    number
        .checked_mul(factor)
        .ok_or_else(|| format!("invalid size {text:?}: too large"))
}

impl<'de> Deserialize<'de> for ByteSize {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SizeVisitor;
        impl Visitor<'_> for SizeVisitor {
            type Value = ByteSize;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a size such as 1MiB or 1048576")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                parse_bytes(v).map(ByteSize).map_err(E::custom)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(ByteSize(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                u64::try_from(v)
                    .map(ByteSize)
                    .map_err(|_| E::custom("a size cannot be negative"))
            }
        }
        deserializer.deserialize_any(SizeVisitor)
    }
}

impl Serialize for ByteSize {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u64(self.0)
    }
}

impl schemars::JsonSchema for HumanDuration {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Duration".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A Go duration (300ms, 10s, 2m, 1h30m) or a number of seconds.",
            "anyOf": [
                {"type": "string", "pattern": "^\\s*([0-9]+(\\.[0-9]*)?(ns|us|µs|ms|s|m|h))+\\s*$|^\\s*[0-9.]+\\s*$"},
                {"type": "number", "minimum": 0}
            ]
        })
    }
}

impl schemars::JsonSchema for ByteSize {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ByteSize".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A size in bytes, or with a unit: B, KiB, MiB, GiB, KB, MB, GB (1MiB).",
            "anyOf": [
                {"type": "string", "pattern": "^\\s*[0-9]+\\s*(B|K|KB|M|MB|G|GB|Ki|KiB|Mi|MiB|Gi|GiB)?\\s*$"},
                {"type": "integer", "minimum": 0}
            ]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_follow_go_syntax() {
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("2"), Ok(Duration::from_secs(2)));
        assert!(parse_duration("10 parsecs").is_err());
        assert!(parse_duration("s").is_err());
        assert!(parse_duration("-1s").is_err());
    }

    #[test]
    fn sizes_accept_binary_and_decimal_units() {
        assert_eq!(parse_bytes("1MiB"), Ok(1 << 20));
        assert_eq!(parse_bytes("1GiB"), Ok(1 << 30));
        assert_eq!(parse_bytes("2KB"), Ok(2000));
        assert_eq!(parse_bytes("77"), Ok(77));
        assert!(parse_bytes("1XiB").is_err());
        assert!(parse_bytes("MiB").is_err());
    }
}

/// A Kubernetes resource quantity written in a scenario (`4`, `500m`, `80Gi`): checked as
/// `resource.ParseQuantity` reads it, kept as written, never negative.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceQuantity(pub String);

impl ResourceQuantity {
    fn checked(text: String) -> Result<Self, String> {
        let amount = graders::quantity::Amount::parse(text.trim())?;
        if amount.is_negative() {
            return Err(format!("{text:?}: a node's resources cannot be negative"));
        }
        Ok(ResourceQuantity(text.trim().to_string()))
    }
}

impl<'de> Deserialize<'de> for ResourceQuantity {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct QuantityVisitor;
        impl Visitor<'_> for QuantityVisitor {
            type Value = ResourceQuantity;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a quantity such as 4, 500m or 80Gi")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                ResourceQuantity::checked(v.to_string()).map_err(E::custom)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(ResourceQuantity(v.to_string()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                ResourceQuantity::checked(v.to_string()).map_err(E::custom)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                ResourceQuantity::checked(v.to_string()).map_err(E::custom)
            }
        }
        deserializer.deserialize_any(QuantityVisitor)
    }
}

impl Serialize for ResourceQuantity {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl schemars::JsonSchema for ResourceQuantity {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Quantity".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A Kubernetes quantity (4, 500m, 80Gi, 1.5).",
            "anyOf": [
                {"type": "string", "pattern": "^\\s*\\+?[0-9]*\\.?[0-9]+([eE][-+]?[0-9]+|[numkMGTPE]|Ki|Mi|Gi|Ti|Pi|Ei)?\\s*$"},
                {"type": "number", "minimum": 0}
            ]
        })
    }
}
