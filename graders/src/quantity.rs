//! Numbers and resource quantities compared by value: `1Gi` is `1024Mi`, `500m` is `0.5`, `2e3` is
//! `2k`, and the JSON number `4` is the quantity `"4"`.
//!
//! The grammar is apimachinery's (`pkg/api/resource/quantity.go`, `ParseQuantity`): a signed
//! decimal number, then either a binary suffix (`Ki`..`Ei`), a decimal suffix (`n u m k M G T P E`)
//! or a decimal exponent (`e3`, `E-2`). Values are kept exact — digits × 10^p × 2^q, as the Go type
//! keeps an exact decimal — so equality never depends on floating-point rounding.

use std::cmp::Ordering;

use num_bigint::BigUint;
use serde_json::Value;

/// An exact amount: `sign × digits × 10^ten × 2^two`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Amount {
    negative: bool,
    digits: u128,
    ten: i32,
    two: u32,
}

/// Mantissas longer than this are refused (no Kubernetes field holds one).
const MAX_DIGITS: usize = 38;

/// Decimal exponents beyond this are refused: far past any real amount, and it keeps the exact
/// comparison's numbers small.
const MAX_EXPONENT: i32 = 1000;

impl Amount {
    /// A quantity string (`"1.5Gi"`, `"100m"`, `"4"`), as `ParseQuantity` reads it.
    pub fn parse(text: &str) -> Result<Amount, String> {
        let wrong = || format!("{text:?} is not a number or a quantity (like 4, 500m or 1.5Gi)");
        let (negative, rest) = match text.as_bytes().first() {
            Some(b'-') => (true, &text[1..]),
            Some(b'+') => (false, &text[1..]),
            _ => (false, text),
        };
        let number_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let (number, suffix) = rest.split_at(number_end);
        let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
        if whole.is_empty() && fraction.is_empty() || fraction.contains('.') {
            return Err(wrong());
        }
        let all = format!("{whole}{fraction}");
        let significant = all.trim_start_matches('0');
        if significant.len() > MAX_DIGITS {
            return Err(format!("{text:?} has too many digits to compare"));
        }
        let digits = if significant.is_empty() {
            0
        } else {
            significant.parse::<u128>().map_err(|_| wrong())?
        };
        let (ten, two) = suffix_scale(suffix).ok_or_else(wrong)?;
        let fraction_len = i32::try_from(fraction.len())
            .ok()
            .filter(|len| *len <= MAX_EXPONENT)
            .ok_or_else(|| format!("{text:?} has too many digits to compare"))?;
        Ok(Amount {
            negative: negative && digits != 0,
            digits,
            ten: ten - fraction_len,
            two,
        })
    }

    /// Below zero.
    pub fn is_negative(&self) -> bool {
        self.negative
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

/// (power of ten, power of two) of a suffix; `None` when it is not one.
fn suffix_scale(suffix: &str) -> Option<(i32, u32)> {
    let binary = ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
    if let Some(k) = binary.iter().position(|s| *s == suffix) {
        return Some((0, 10 * (k as u32 + 1)));
    }
    let decimal = match suffix {
        "" => 0,
        "n" => -9,
        "u" => -6,
        "m" => -3,
        "k" => 3,
        "M" => 6,
        "G" => 9,
        "T" => 12,
        "P" => 15,
        "E" => 18,
        _ => {
            let exponent = suffix.strip_prefix(['e', 'E'])?;
            let digits = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            return exponent
                .parse::<i32>()
                .ok()
                .filter(|e| e.unsigned_abs() <= MAX_EXPONENT.unsigned_abs())
                .map(|e| (e, 0));
        }
    };
    Some((decimal, 0))
}

impl Ord for Amount {
    fn cmp(&self, other: &Amount) -> Ordering {
        match (self.negative, other.negative) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => magnitude(self, other),
            (true, true) => magnitude(other, self),
        }
    }
}

impl PartialOrd for Amount {
    fn partial_cmp(&self, other: &Amount) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Compares |a| and |b| exactly: both are scaled to the smaller powers of ten and two, which only
/// multiplies (exponents are bounded, so the numbers stay a few thousand bits at most).
fn magnitude(a: &Amount, b: &Amount) -> Ordering {
    let ten = a.ten.min(b.ten);
    let two = a.two.min(b.two);
    let scaled = |x: &Amount| -> BigUint {
        let by_ten = BigUint::from(10u32).pow(x.ten.abs_diff(ten));
        (BigUint::from(x.digits) * by_ten) << (x.two - two)
    };
    scaled(a).cmp(&scaled(b))
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
        assert!(q("931322574615478515625Ei") < q("107374182400000000000000000001e10"));
        assert_eq!(
            q("931322574615478515625Ei").cmp(&q("107374182400000000000000000000e10")),
            Ordering::Equal
        );
    }

    #[test]
    fn what_is_not_a_quantity_is_refused_by_name() {
        for bad in [
            "",
            "abc",
            "1.2.3",
            "50%",
            "1Gb",
            "1e",
            "1e+",
            "Gi",
            ".",
            "1 Gi",
            "- 1",
            "0.5e-2147483648",
            "1e2147483647",
            "1e1001",
        ] {
            let error = Amount::parse(bad).expect_err(bad);
            assert!(error.contains(&format!("{bad:?}")), "{error}");
        }
        assert!(Amount::from_json(&json!(true)).is_err());
        assert!(Amount::from_json(&json!(null)).is_err());
    }
}
