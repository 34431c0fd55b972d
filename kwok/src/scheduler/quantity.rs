//! Resource quantities as the scheduler reads them.
//!
//! `resource.Quantity` (apimachinery `pkg/api/resource/quantity.go`) is an exact decimal; the scheduler
//! only ever asks it for `MilliValue()` (cpu) or `Value()` (everything else), both rounded up. Sums are
//! taken over exact quantities first (`addResourceList`) and rounded afterwards, so quantities are kept
//! here in nano-units (the smallest unit a Quantity can express) and rounded only when read.

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

const NANO_PER_UNIT: i128 = 1_000_000_000;
const NANO_PER_MILLI: i128 = 1_000_000;

/// An exact amount in nano-units (1 = 10^-9 of the base unit). Saturates instead of overflowing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Amount(i128);

impl Amount {
    pub(crate) const ZERO: Amount = Amount(0);

    pub(crate) fn from_units(units: i64) -> Amount {
        Amount(i128::from(units).saturating_mul(NANO_PER_UNIT))
    }

    pub(crate) fn from_millis(millis: i64) -> Amount {
        Amount(i128::from(millis).saturating_mul(NANO_PER_MILLI))
    }

    /// `Quantity.Value()`: whole units, rounded up.
    pub(crate) fn value(self) -> i64 {
        clamp_i64(ceil_div(self.0, NANO_PER_UNIT))
    }

    /// `Quantity.MilliValue()`: thousandths, rounded up.
    pub(crate) fn milli_value(self) -> i64 {
        clamp_i64(ceil_div(self.0, NANO_PER_MILLI))
    }

    pub(crate) fn saturating_add(self, other: Amount) -> Amount {
        Amount(self.0.saturating_add(other.0))
    }
}

fn clamp_i64(v: i128) -> i64 {
    i64::try_from(v).unwrap_or(if v < 0 { i64::MIN } else { i64::MAX })
}

/// Division rounding towards positive infinity (what `Value()`/`MilliValue()` do for positive amounts).
fn ceil_div(a: i128, b: i128) -> i128 {
    let q = a / b;
    if a % b > 0 {
        q + 1
    } else {
        q
    }
}

/// Parses a quantity string (`100m`, `1.5Gi`, `2e3`, `512Mi`, `1`). `None` when it is not a quantity;
/// the API server rejects those on create, so the scheduler treats them as zero.
pub(crate) fn parse(q: &Quantity) -> Option<Amount> {
    parse_str(q.0.trim())
}

/// [`parse`] of a quantity's text.
pub(crate) fn parse_text(s: &str) -> Option<Amount> {
    parse_str(s.trim())
}

/// The amount of a quantity, zero when unparseable.
pub(crate) fn amount(q: &Quantity) -> Amount {
    parse(q).unwrap_or(Amount::ZERO)
}

fn parse_str(s: &str) -> Option<Amount> {
    let (negative, rest) = match s.as_bytes().first()? {
        b'+' => (false, &s[1..]),
        b'-' => (true, &s[1..]),
        _ => (false, s),
    };
    let number_end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let (number, suffix) = rest.split_at(number_end);
    if number.is_empty() || number == "." || number.matches('.').count() > 1 {
        return None;
    }
    let (int_part, frac_part) = number.split_once('.').unwrap_or((number, ""));
    let mut mantissa: i128 = 0;
    for d in int_part.bytes().chain(frac_part.bytes()) {
        mantissa = mantissa
            .saturating_mul(10)
            .saturating_add(i128::from(d - b'0'));
    }
    let frac_digits = i32::try_from(frac_part.len()).ok()?;

    // The value is mantissa * 10^-frac_digits * multiplier; in nano-units multiply by 10^9 more.
    let nano = match suffix {
        "Ki" | "Mi" | "Gi" | "Ti" | "Pi" | "Ei" => {
            let power = match suffix {
                "Ki" => 10,
                "Mi" => 20,
                "Gi" => 30,
                "Ti" => 40,
                "Pi" => 50,
                _ => 60,
            };
            let scaled = mantissa
                .saturating_mul(1i128 << power)
                .saturating_mul(NANO_PER_UNIT);
            ceil_div(scaled, pow10(frac_digits)?)
        }
        _ => {
            let exp10: i32 = match suffix {
                "n" => -9,
                "u" => -6,
                "m" => -3,
                "" => 0,
                "k" => 3,
                "M" => 6,
                "G" => 9,
                "T" => 12,
                "P" => 15,
                "E" => 18,
                _ => {
                    let digits = suffix.strip_prefix(['e', 'E'])?;
                    digits.parse::<i32>().ok()?
                }
            };
            let shift = exp10.checked_add(9)?.checked_sub(frac_digits)?;
            if shift >= 0 {
                mantissa.saturating_mul(pow10(shift).unwrap_or(i128::MAX))
            } else {
                // Finer than a nano-unit: Quantity rounds such values up to its smallest unit.
                match pow10(-shift) {
                    Some(div) => ceil_div(mantissa, div),
                    None => i128::from(mantissa > 0),
                }
            }
        }
    };
    Some(Amount(if negative { -nano } else { nano }))
}

fn pow10(exp: i32) -> Option<i128> {
    let exp = u32::try_from(exp).ok()?;
    10i128.checked_pow(exp)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Amount {
        parse(&Quantity(s.to_string())).expect(s)
    }

    #[test]
    fn cpu_millis_round_up_like_milli_value() {
        assert_eq!(q("100m").milli_value(), 100);
        assert_eq!(q("1").milli_value(), 1000);
        assert_eq!(q("1.5").milli_value(), 1500);
        assert_eq!(q("0.0001").milli_value(), 1);
        assert_eq!(q("2e3").milli_value(), 2_000_000);
    }

    #[test]
    fn memory_values_handle_binary_and_decimal_suffixes() {
        assert_eq!(q("512Mi").value(), 512 * 1024 * 1024);
        assert_eq!(q("1Gi").value(), 1 << 30);
        assert_eq!(q("1.5Gi").value(), 3 << 29);
        assert_eq!(q("1G").value(), 1_000_000_000);
        assert_eq!(q("128974848").value(), 128_974_848);
        assert_eq!(q("129e6").value(), 129_000_000);
        assert_eq!(q("123Mi").value(), 128_974_848);
        // Value() rounds up: 500m of a byte is one byte.
        assert_eq!(q("500m").value(), 1);
    }

    #[test]
    fn garbage_is_not_a_quantity() {
        for bad in ["", "abc", "1Qi", "1.2.3", ".", "1 Gi"] {
            assert_eq!(parse(&Quantity(bad.to_string())), None, "{bad}");
        }
    }
}
