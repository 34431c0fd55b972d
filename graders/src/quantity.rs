//! Numbers and resource quantities compared by value: `1Gi` is `1024Mi`, `500m` is `0.5`, `2e3` is
//! `2k`, and the JSON number `4` is the quantity `"4"`.
//!
//! A value is read as the cluster reads it: by the `quantity` crate, the port of apimachinery's
//! `ParseQuantity` that the embedded cluster stores with. So an expectation compares what the
//! server kept — exact decimals, rounded up to nano-units, a binary amount capped at 2^63-1 — and
//! never rounds through floating point.

use std::cmp::Ordering;

use quantity::Quantity;
use serde_json::Value;

/// A quantity ordered by value (`Quantity.Cmp`), whatever its format or spelling.
#[derive(Debug, Clone)]
pub struct Amount(Quantity);

impl Amount {
    /// A quantity string (`"1.5Gi"`, `"100m"`, `"4"`), as `ParseQuantity` reads it.
    pub fn parse(text: &str) -> Result<Amount, String> {
        Quantity::parse(text)
            .map(Amount)
            .map_err(|_| format!("{text:?} is not a number or a quantity (like 4, 500m or 1.5Gi)"))
    }

    /// Below zero.
    pub fn is_negative(&self) -> bool {
        self.0.is_negative()
    }

    /// A JSON number, or a string holding a quantity; anything else is not an amount.
    pub fn from_json(value: &Value) -> Result<Amount, String> {
        match value {
            Value::Number(number) => Amount::parse(&number.to_string()),
            Value::String(text) => Amount::parse(text),
            other => Err(format!("{other} is not a number or a quantity")),
        }
    }
}

impl PartialEq for Amount {
    fn eq(&self, other: &Amount) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Amount {}

impl Ord for Amount {
    fn cmp(&self, other: &Amount) -> Ordering {
        self.0.compare(&other.0)
    }
}

impl PartialOrd for Amount {
    fn partial_cmp(&self, other: &Amount) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn q(text: &str) -> Amount {
        Amount::parse(text).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn the_same_amount_written_differently_is_equal() {
        assert_eq!(q("1Gi").cmp(&q("1024Mi")), Ordering::Equal);
        assert_eq!(q("500m").cmp(&q("0.5")), Ordering::Equal);
        assert_eq!(q("100m").cmp(&q("0.1")), Ordering::Equal);
        assert_eq!(q("2e3").cmp(&q("2k")), Ordering::Equal);
        assert_eq!(q("1E-3").cmp(&q("1m")), Ordering::Equal);
        assert_eq!(q("1Ki").cmp(&q("1024")), Ordering::Equal);
        assert_eq!(q("0").cmp(&q("-0")), Ordering::Equal);
        assert_eq!(q("0Gi").cmp(&q("0m")), Ordering::Equal);
        assert_eq!(q("+4").cmp(&q("4.000")), Ordering::Equal);
        assert_eq!(
            Amount::from_json(&json!(4)).expect("4").cmp(&q("4")),
            Ordering::Equal
        );
        assert_eq!(
            Amount::from_json(&json!(4.5))
                .expect("4.5")
                .cmp(&q("4500m")),
            Ordering::Equal
        );
    }

    #[test]
    fn amounts_order_by_value() {
        assert!(q("1Gi") > q("1G"), "binary giga is more than decimal giga");
        assert!(q("999Mi") < q("1Gi"));
        assert!(q("1n") > q("0"));
        assert!(q("-1") < q("0"));
        assert!(q("-2Gi") < q("-1Gi"));
        assert!(q("1Ei") > q("1E"));
        assert!(q("1.5") > q("1499m"));
        assert!(q("99999999999999999999999999999999999999E") > q("1Ei"));
        assert!(q("1e300") > q("99999999999999999999999999999999999999E"));
        // Both far beyond 128 bits and a hair apart: still told apart, exactly.
        assert!(q("107374182400000000000000000000e10") < q("107374182400000000000000000001e10"));
        assert!(q("1e1001") > q("99e999"));
        assert!(
            q("1e-12") > q("0"),
            "rounded up to 1n, as ParseQuantity does"
        );
    }

    /// `ParseQuantity`'s own readings (apimachinery v0.32.13): sub-nano amounts round up to 1n, a
    /// binary amount is capped at 2^63-1, and a bare suffix, sign or point is zero.
    #[test]
    fn values_are_what_the_cluster_keeps() {
        assert_eq!(q("1e-12"), q("1n"));
        assert_eq!(q("931322574615478515625Ei"), q("9223372036854775807"));
        for zero in ["Gi", ".", "-", "k", "e3"] {
            assert_eq!(q(zero), q("0"), "{zero}");
        }
        assert_eq!(q("+.5Mi"), q("512Ki"));
    }

    #[test]
    fn what_is_not_a_quantity_is_refused_by_name() {
        for bad in ["", "abc", "1.2.3", "50%", "1Gb", "1e", "1e+", "1 Gi", "- 1"] {
            let error = Amount::parse(bad).expect_err(bad);
            assert!(error.contains(&format!("{bad:?}")), "{error}");
        }
        assert!(Amount::from_json(&json!(true)).is_err());
        assert!(Amount::from_json(&json!(null)).is_err());
    }
}
