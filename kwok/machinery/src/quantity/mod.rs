//! `resource.Quantity` (k8s.io/apimachinery pkg/api/resource/quantity.go): parsing with the
//! upstream error texts, and the canonical form the server writes back (`"0.5"` is stored as
//! `"500m"`, `"1024Mi"` as `"1Gi"`).
//!
//! Values are exact decimals (digits × 10^exp): no floating point, like the Go type. The
//! scheduler's sums read them as nano-unit [`Amount`]s.

mod amount;
mod list;

pub use amount::{parse_text, Amount};
pub use list::{list_value, parse_list, ResourceList};

use std::cmp::Ordering;

/// `ErrFormatWrong`.
pub const ERR_FORMAT_WRONG: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
/// `ErrNumeric`.
pub const ERR_NUMERIC: &str = "unable to parse numeric part of quantity";
/// `ErrSuffix`.
pub const ERR_SUFFIX: &str = "unable to parse quantity's suffix";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    DecimalExponent,
    BinarySI,
    DecimalSI,
}

/// An exact non-negative decimal `digits × 10^exp` with a sign.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Dec {
    negative: bool,
    /// Decimal digits without leading zeros; empty means zero.
    digits: String,
    exp: i32,
}

impl Dec {
    fn zero() -> Self {
        Dec {
            negative: false,
            digits: String::new(),
            exp: 0,
        }
    }

    fn new(negative: bool, digits: &str, exp: i32) -> Self {
        let digits = digits.trim_start_matches('0').to_string();
        let negative = negative && !digits.is_empty();
        Dec {
            negative,
            digits,
            exp,
        }
    }

    fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    /// Multiply the magnitude by a small factor.
    fn mul_small(&mut self, f: u32) {
        let mut carry = 0u64;
        let mut out: Vec<u8> = Vec::with_capacity(self.digits.len() + 4);
        for b in self.digits.bytes().rev() {
            let v = u64::from(b - b'0') * u64::from(f) + carry;
            out.push(b'0' + (v % 10) as u8);
            carry = v / 10;
        }
        while carry > 0 {
            out.push(b'0' + (carry % 10) as u8);
            carry /= 10;
        }
        out.reverse();
        self.digits = String::from_utf8(out).unwrap_or_default();
        self.digits = self.digits.trim_start_matches('0').to_string();
    }

    /// Add one to the magnitude.
    fn increment(&mut self) {
        let mut bytes: Vec<u8> = self.digits.bytes().collect();
        let mut i = bytes.len();
        loop {
            if i == 0 {
                bytes.insert(0, b'1');
                break;
            }
            i -= 1;
            if bytes[i] == b'9' {
                bytes[i] = b'0';
            } else {
                bytes[i] += 1;
                break;
            }
        }
        self.digits = String::from_utf8(bytes).unwrap_or_default();
    }

    /// Round away from zero to at most `places` decimals (`inf.RoundUp`); true when exact.
    fn round_up_to(&mut self, places: i32) -> bool {
        if self.exp >= -places || self.is_zero() {
            return true;
        }
        let drop = (-places - self.exp) as usize;
        let exact;
        if drop >= self.digits.len() {
            exact = false;
            self.digits = "1".into();
        } else {
            let (keep, dropped) = self.digits.split_at(self.digits.len() - drop);
            exact = dropped.bytes().all(|b| b == b'0');
            self.digits = keep.trim_start_matches('0').to_string();
            if !exact {
                self.increment();
            }
        }
        self.exp = -places;
        exact
    }

    /// Magnitude as an integer when it has no fractional part and fits.
    fn to_u128(&self) -> Option<u128> {
        if self.is_zero() {
            return Some(0);
        }
        let mut v: u128 = self.digits.parse().ok()?;
        if self.exp < 0 {
            let div = 10u128.checked_pow((-self.exp) as u32)?;
            if !v.is_multiple_of(div) {
                return None;
            }
            v /= div;
        } else {
            v = v.checked_mul(10u128.checked_pow(self.exp as u32)?)?;
        }
        Some(v)
    }

    /// Compare magnitudes.
    fn cmp_abs(&self, other: &Dec) -> Ordering {
        match (self.is_zero(), other.is_zero()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            _ => {}
        }
        let e = self.exp.min(other.exp);
        let a = format!("{}{}", self.digits, "0".repeat((self.exp - e) as usize));
        let b = format!("{}{}", other.digits, "0".repeat((other.exp - e) as usize));
        a.len().cmp(&b.len()).then_with(|| a.cmp(&b))
    }

    fn cmp(&self, other: &Dec) -> Ordering {
        match (self.negative, other.negative) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => self.cmp_abs(other),
            (true, true) => other.cmp_abs(self),
        }
    }

    /// `AsCanonicalBytes`: move factors of ten into the exponent, then make the exponent a
    /// multiple of three (moving down, as Go's truncating `%` does).
    fn canonical_base10(&self) -> (String, i32) {
        let trimmed = self.digits.trim_end_matches('0');
        let mut exp = self.exp + (self.digits.len() - trimmed.len()) as i32;
        let mut digits = trimmed.to_string();
        while exp % 3 != 0 {
            digits.push('0');
            exp -= 1;
        }
        let sign = if self.negative { "-" } else { "" };
        (format!("{sign}{digits}"), exp)
    }
}

/// A parsed quantity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quantity {
    value: Dec,
    format: Format,
    /// The input string when it was already canonical (`q.s` in Go), reused on output.
    original: Option<String>,
}

/// `parseQuantityString`: (positive, value, num, denom, suffix).
fn split(s: &str) -> Result<(bool, String, String, String, String), &'static str> {
    let b = s.as_bytes();
    let end = b.len();
    let mut positive = true;
    let mut pos = 0;
    if pos < end {
        match b[0] {
            b'-' => {
                positive = false;
                pos += 1;
            }
            b'+' => pos += 1,
            _ => {}
        }
    }
    // Strip leading zeros; an all-zero string is zero.
    loop {
        if pos >= end {
            return Ok((
                positive,
                "0".into(),
                "0".into(),
                String::new(),
                String::new(),
            ));
        }
        if b[pos] == b'0' {
            pos += 1;
        } else {
            break;
        }
    }
    let num_start = pos;
    while pos < end && b[pos].is_ascii_digit() {
        pos += 1;
    }
    let mut num = s[num_start..pos].to_string();
    if pos >= end {
        return Ok((positive, s.to_string(), num, String::new(), String::new()));
    }
    if num.is_empty() {
        num = "0".into();
    }
    let mut denom = String::new();
    if b[pos] == b'.' {
        pos += 1;
        let d_start = pos;
        while pos < end && b[pos].is_ascii_digit() {
            pos += 1;
        }
        denom = s[d_start..pos].to_string();
        if pos >= end {
            return Ok((positive, s.to_string(), num, denom, String::new()));
        }
    }
    let value = s[..pos].to_string();
    let suffix_start = pos;
    while pos < end && b"eEinumkKMGTP".contains(&b[pos]) {
        pos += 1;
    }
    if pos >= end {
        return Ok((positive, value, num, denom, s[suffix_start..].to_string()));
    }
    if b[pos] == b'-' || b[pos] == b'+' {
        pos += 1;
    }
    while pos < end {
        if !b[pos].is_ascii_digit() {
            return Err(ERR_FORMAT_WRONG);
        }
        pos += 1;
    }
    Ok((positive, value, num, denom, s[suffix_start..].to_string()))
}

/// `quantitySuffixer.interpret`: (base, exponent, format).
fn interpret(suffix: &str) -> Option<(u32, i32, Format)> {
    let dec = match suffix {
        "n" => Some(-9),
        "u" => Some(-6),
        "m" => Some(-3),
        "" => Some(0),
        "k" => Some(3),
        "M" => Some(6),
        "G" => Some(9),
        "T" => Some(12),
        "P" => Some(15),
        "E" => Some(18),
        _ => None,
    };
    if let Some(e) = dec {
        return Some((10, e, Format::DecimalSI));
    }
    let bin = match suffix {
        "Ki" => Some(10),
        "Mi" => Some(20),
        "Gi" => Some(30),
        "Ti" => Some(40),
        "Pi" => Some(50),
        "Ei" => Some(60),
        _ => None,
    };
    if let Some(e) = bin {
        return Some((2, e, Format::BinarySI));
    }
    if suffix.len() > 1 && (suffix.starts_with('e') || suffix.starts_with('E')) {
        let parsed: i64 = suffix[1..].parse().ok()?;
        return Some((10, parsed as i32, Format::DecimalExponent));
    }
    None
}

const MAX_INT64: u128 = i64::MAX as u128;

impl Quantity {
    /// `ParseQuantity`.
    pub fn parse(s: &str) -> Result<Quantity, &'static str> {
        if s.is_empty() {
            return Err(ERR_FORMAT_WRONG);
        }
        if s == "0" {
            return Ok(Quantity {
                value: Dec::zero(),
                format: Format::DecimalSI,
                original: Some("0".into()),
            });
        }
        let (positive, _value, num, denom, suffix) = split(s)?;
        let (base, exponent, mut format) = interpret(&suffix).ok_or(ERR_SUFFIX)?;

        // The fast path of ParseQuantity decides whether the input string is kept verbatim.
        let mut precision: i32 = -1;
        let mut scale: i32 = 0;
        let mut shift: i32 = 0;
        match format {
            Format::DecimalExponent | Format::DecimalSI => {
                scale = exponent;
                precision = 18 - (num.len() + denom.len()) as i32;
            }
            Format::BinarySI => {
                if exponent >= 0 && denom.is_empty() {
                    shift = exponent;
                    precision = 15 - num.len() as i32 - ((exponent as f32) * 3.0 / 10.0) as i32 - 1;
                }
            }
        }
        if precision >= 0 {
            scale -= denom.len() as i32;
            if scale >= -9 {
                let shifted = format!("{num}{denom}");
                let value: i64 = shifted.parse().map_err(|_| ERR_NUMERIC)?;
                if let Some(result) = value
                    .checked_mul(1i64 << shift.clamp(0, 62))
                    .filter(|_| shift < 63)
                {
                    let keep = match format {
                        Format::BinarySI => exponent % 10 == 0 && (value & 0x07) != 0,
                        _ => {
                            scale % 3 == 0 && !shifted.ends_with("000") && !shifted.starts_with('0')
                        }
                    };
                    let value = Dec::new(!positive, &result.unsigned_abs().to_string(), scale);
                    let original = keep.then(|| s.to_string());
                    return Ok(Quantity {
                        value,
                        format,
                        original,
                    });
                }
            }
        }

        // Slow path: exact decimal arithmetic, rounded up to nano, binary values capped at 2^63-1.
        let mut amount = Dec::new(!positive, &format!("{num}{denom}"), -(denom.len() as i32));
        if base == 10 {
            amount.exp += exponent;
        } else {
            for _ in 0..exponent.max(0) {
                amount.mul_small(2);
            }
        }
        amount.round_up_to(9);
        if format == Format::BinarySI {
            let max = Dec::new(false, &MAX_INT64.to_string(), 0);
            if amount.cmp_abs(&max) == Ordering::Greater {
                amount = Dec {
                    negative: amount.negative,
                    ..max
                };
            }
            let one = Dec::new(false, "1", 0);
            if !amount.is_zero() && amount.cmp_abs(&one) == Ordering::Less {
                format = Format::DecimalSI;
            }
        }
        Ok(Quantity {
            value: amount,
            format,
            original: None,
        })
    }

    pub fn is_zero(&self) -> bool {
        self.value.is_zero()
    }

    /// A whole number of units (`resource.NewQuantity(n, DecimalSI)`).
    pub fn from_units(units: i64) -> Quantity {
        Quantity::from_nano(i128::from(units) * 1_000_000_000, Format::DecimalSI)
    }

    /// The zero value `resource.Quantity{Format: DecimalSI}`, which prints as `0`.
    pub fn zero() -> Quantity {
        Quantity::from_units(0)
    }

    /// An exact nano-unit amount in `format`.
    fn from_nano(nano: i128, format: Format) -> Quantity {
        let digits = nano.unsigned_abs().to_string();
        Quantity {
            value: Dec::new(nano < 0, &digits, -9),
            format,
            original: None,
        }
    }

    /// `Quantity.Add`: exact; a zero receiver takes the other's format, as Go's does.
    pub fn add(&self, other: &Quantity) -> Quantity {
        let format = if self.is_zero() {
            other.format
        } else {
            self.format
        };
        Quantity::from_nano(self.nano_units().saturating_add(other.nano_units()), format)
    }

    /// `Quantity.Sub`, with the same rule for the format.
    pub fn sub(&self, other: &Quantity) -> Quantity {
        let format = if self.is_zero() {
            other.format
        } else {
            self.format
        };
        Quantity::from_nano(self.nano_units().saturating_sub(other.nano_units()), format)
    }

    /// `fmt.Sprintf("%#v", q)`: how a validation error shows a Quantity value (its `String` has
    /// a pointer receiver, so `field.Error` prints the struct). Values too large or too fine for
    /// an `int64Amount` are held as an `inf.Dec`, whose pointer Go prints as an address.
    pub fn go_sharp_v(&self) -> String {
        let format = match self.format {
            Format::DecimalExponent => "DecimalExponent",
            Format::BinarySI => "BinarySI",
            Format::DecimalSI => "DecimalSI",
        };
        let cached = self.original.as_deref().unwrap_or("");
        let amount = format!(
            "{}{}",
            if self.value.negative { "-" } else { "" },
            self.value.digits
        );
        let small = self.value.digits.len() <= 18;
        let (i, d) = if self.value.is_zero() {
            (
                "resource.int64Amount{value:0, scale:0}".to_string(),
                "(*inf.Dec)(nil)",
            )
        } else if small {
            (
                format!(
                    "resource.int64Amount{{value:{amount}, scale:{}}}",
                    self.value.exp
                ),
                "(*inf.Dec)(nil)",
            )
        } else {
            (
                "resource.int64Amount{value:0, scale:0}".to_string(),
                "(*inf.Dec)(0xc000010000)",
            )
        };
        format!(
            "resource.Quantity{{i:{i}, d:resource.infDecAmount{{Dec:{d}}}, s:{cached:?}, Format:{format:?}}}"
        )
    }

    /// `Quantity.MilliValue()`, rounded up.
    pub fn milli_value(&self) -> i64 {
        Amount(self.nano_units()).milli_value()
    }

    /// The value in nano-units, the smallest a Quantity holds (parsing rounds up to it);
    /// saturating beyond i128.
    pub fn nano_units(&self) -> i128 {
        if self.value.is_zero() {
            return 0;
        }
        // ParseQuantity rounds every value up to a nano-unit, so the exponent is at least -9.
        debug_assert!(self.value.exp >= -9, "{:?} finer than nano", self.value);
        let digits = self.value.digits.parse::<i128>().unwrap_or(i128::MAX);
        let magnitude = u32::try_from(self.value.exp + 9)
            .ok()
            .and_then(|e| 10i128.checked_pow(e))
            .map_or(i128::MAX, |scale| digits.saturating_mul(scale));
        if self.value.negative {
            -magnitude
        } else {
            magnitude
        }
    }

    pub fn is_negative(&self) -> bool {
        self.value.negative
    }

    /// `Quantity.Cmp`: compare the values.
    pub fn compare(&self, other: &Quantity) -> Ordering {
        self.value.cmp(&other.value)
    }

    /// Whole units (`MilliValue() % 1000 == 0`).
    pub fn is_integer(&self) -> bool {
        let mut v = self.value.clone();
        v.round_up_to(0)
    }

    /// The serialized form (`String()` / `MarshalJSON`).
    pub fn canonical(&self) -> String {
        if let Some(s) = &self.original {
            return s.clone();
        }
        if self.is_zero() {
            return "0".into();
        }
        match self.format {
            Format::DecimalSI | Format::DecimalExponent => self.base10(self.format),
            Format::BinarySI => {
                let small = Dec::new(false, "1024", 0);
                if self.value.cmp_abs(&small) == Ordering::Less {
                    return self.base10(Format::DecimalSI);
                }
                let mut rounded = self.value.clone();
                if !rounded.round_up_to(0) {
                    return self.base10(Format::DecimalSI);
                }
                let Some(mut n) = rounded.to_u128() else {
                    return self.base10(Format::DecimalSI);
                };
                let mut exp = 0;
                while n % 1024 == 0 && exp < 6 {
                    n /= 1024;
                    exp += 1;
                }
                let suffix = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"][exp];
                let sign = if self.value.negative { "-" } else { "" };
                format!("{sign}{n}{suffix}")
            }
        }
    }

    fn base10(&self, format: Format) -> String {
        let (number, exp) = self.value.canonical_base10();
        let suffix = match format {
            Format::DecimalExponent => None,
            _ => match exp {
                -9 => Some("n"),
                -6 => Some("u"),
                -3 => Some("m"),
                0 => Some(""),
                3 => Some("k"),
                6 => Some("M"),
                9 => Some("G"),
                12 => Some("T"),
                15 => Some("P"),
                18 => Some("E"),
                _ => None,
            },
        };
        match suffix {
            Some(s) => format!("{number}{s}"),
            None if exp == 0 => number,
            None => format!("{number}e{exp}"),
        }
    }
}

/// Parse and canonicalize in one step, as decoding a quantity field does.
pub fn canonicalize(s: &str) -> Result<String, &'static str> {
    Quantity::parse(s.trim()).map(|q| q.canonical())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> String {
        canonicalize(s).unwrap_or_else(|e| format!("ERR {e}"))
    }

    #[test]
    fn canonical_forms_match_apimachinery() {
        // Examples from the Quantity doc comment and quantity_test.go.
        assert_eq!(c("1.5"), "1500m");
        assert_eq!(c("1.5Gi"), "1536Mi");
        assert_eq!(c("0.5"), "500m");
        assert_eq!(c("1000m"), "1");
        assert_eq!(c("1024Mi"), "1Gi");
        assert_eq!(c("100m"), "100m");
        assert_eq!(c("2"), "2");
        assert_eq!(c("1Gi"), "1Gi");
        assert_eq!(c("128974848"), "128974848");
        assert_eq!(c("129e6"), "129e6");
        assert_eq!(c("123Mi"), "123Mi");
        assert_eq!(c("1.2345"), "1234500u");
        assert_eq!(c("0.9n"), "1n");
        assert_eq!(c("1e3"), "1e3");
        assert_eq!(c("1000"), "1k");
        assert_eq!(c("0"), "0");
        assert_eq!(c("-1"), "-1");
        assert_eq!(c("0.5Ki"), "512");
        assert_eq!(c("1.1Ki"), "1126400m");
    }

    #[test]
    fn parse_errors_are_upstream_texts() {
        assert_eq!(Quantity::parse("").unwrap_err(), ERR_FORMAT_WRONG);
        assert_eq!(Quantity::parse("abc").unwrap_err(), ERR_FORMAT_WRONG);
        assert_eq!(Quantity::parse("true").unwrap_err(), ERR_FORMAT_WRONG);
        assert_eq!(Quantity::parse("1Qi").unwrap_err(), ERR_FORMAT_WRONG);
        assert_eq!(Quantity::parse("1ki").unwrap_err(), ERR_SUFFIX);
        assert_eq!(Quantity::parse("1mi").unwrap_err(), ERR_SUFFIX);
    }

    #[test]
    fn compares_exactly() {
        let a = Quantity::parse("500m").unwrap();
        let b = Quantity::parse("0.5").unwrap();
        let one = Quantity::parse("1").unwrap();
        assert_eq!(a.compare(&b), Ordering::Equal);
        assert_eq!(a.compare(&one), Ordering::Less);
        assert!(one.is_integer());
        assert!(!a.is_integer());
        assert!(Quantity::parse("-1").unwrap().is_negative());
    }

    #[test]
    fn sums_keep_the_receivers_format_unless_it_is_zero() {
        let q = |s: &str| Quantity::parse(s).expect(s);
        // quota.Add over a zero DecimalSI used value: the first addend's format is taken.
        assert_eq!(Quantity::zero().add(&q("64Mi")).canonical(), "64Mi");
        assert_eq!(q("64Mi").add(&q("64Mi")).canonical(), "128Mi");
        assert_eq!(q("500m").add(&q("500m")).canonical(), "1");
        assert_eq!(q("1Gi").add(&q("512Mi")).canonical(), "1536Mi");
        assert_eq!(q("1").add(&q("100m")).canonical(), "1100m");
        assert_eq!(q("2").sub(&q("2")).canonical(), "0");
        assert_eq!(q("1").sub(&q("1500m")).canonical(), "-500m");
        assert_eq!(Quantity::from_units(3).canonical(), "3");
    }

    #[test]
    fn go_sharp_v_shows_the_int64_amount_and_the_cached_string() {
        let q = |s: &str| Quantity::parse(s).expect(s);
        assert_eq!(
            q("1500m").go_sharp_v(),
            r#"resource.Quantity{i:resource.int64Amount{value:1500, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"1500m", Format:"DecimalSI"}"#
        );
        assert_eq!(
            q("1.5").go_sharp_v(),
            r#"resource.Quantity{i:resource.int64Amount{value:15, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}"#
        );
    }
}
