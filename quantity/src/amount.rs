//! Quantities as the scheduler and the QoS class read them.
//!
//! The scheduler only ever asks a `resource.Quantity` for `MilliValue()` (cpu) or `Value()`
//! (everything else), both rounded up. Sums are taken over exact quantities first
//! (`addResourceList`) and rounded afterwards, so amounts are kept in nano-units (the smallest unit
//! a Quantity can express) and rounded only when read.

const NANO_PER_UNIT: i128 = 1_000_000_000;
const NANO_PER_MILLI: i128 = 1_000_000;

/// An exact amount in nano-units (1 = 10^-9 of the base unit). Saturates instead of overflowing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Amount(pub(super) i128);

impl Amount {
    pub const ZERO: Amount = Amount(0);

    pub fn from_units(units: i64) -> Amount {
        Amount(i128::from(units).saturating_mul(NANO_PER_UNIT))
    }

    pub fn from_millis(millis: i64) -> Amount {
        Amount(i128::from(millis).saturating_mul(NANO_PER_MILLI))
    }

    /// `Quantity.Value()`: whole units, rounded up.
    pub fn value(self) -> i64 {
        clamp_i64(ceil_div(self.0, NANO_PER_UNIT))
    }

    /// `Quantity.MilliValue()`: thousandths, rounded up.
    pub fn milli_value(self) -> i64 {
        clamp_i64(ceil_div(self.0, NANO_PER_MILLI))
    }

    pub fn saturating_add(self, other: Amount) -> Amount {
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

/// The amount of a quantity's text (`100m`, `1.5Gi`, `2e3`); `None` when `ParseQuantity` refuses
/// it. The API server rejects those on create, so readers treat them as zero.
pub fn parse_text(s: &str) -> Option<Amount> {
    super::Quantity::parse(s.trim())
        .ok()
        .map(|q| Amount(q.nano_units()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Amount {
        parse_text(s).expect(s)
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

    /// What `ParseQuantity` refuses (a lone `.` it reads as zero, as upstream does).
    #[test]
    fn garbage_is_not_a_quantity() {
        assert_eq!(parse_text("."), Some(Amount::ZERO));
        for bad in ["", "abc", "1Qi", "1.2.3", "1 Gi"] {
            assert_eq!(parse_text(bad), None, "{bad}");
        }
    }
}
