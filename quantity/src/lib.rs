//! `resource.Quantity` (k8s.io/apimachinery pkg/api/resource/quantity.go): parsing with the
//! upstream error texts, and the canonical form the server writes back (`"0.5"` is stored as
//! `"500m"`, `"1024Mi"` as `"1Gi"`).
//!
//! Values are exact decimals (digits × 10^exp): no floating point, like the Go type. The
//! scheduler's sums read them as nano-unit [`Amount`]s.
//!
//! One crate below both the embedded cluster and the graders, so that an expectation such as
//! `{$gte: 1Gi}` reads a learner's value exactly as the server parsed and stored it.

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

    /// `big.Int.Int64()` of the unscaled value: its magnitude's low 64 bits, negated when the
    /// value is negative.
    fn low_64_bits(&self) -> i64 {
        let value = low_64_bits_of(&self.digits);
        if self.negative {
            value.wrapping_neg()
        } else {
            value
        }
    }

    /// The magnitude's digits divided by 10^`places` (`big.Int.DivMod` of the unscaled value):
    /// the quotient's low 64 bits, and whether nothing was left over.
    fn divided_by_power_of_ten(&self, places: i64) -> (i64, bool) {
        let keep = usize::try_from(places)
            .ok()
            .and_then(|p| self.digits.len().checked_sub(p))
            .unwrap_or(0);
        let (quotient, rest) = self.digits.split_at(keep);
        (low_64_bits_of(quotient), rest.bytes().all(|d| d == b'0'))
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

    /// Compare magnitudes: by the place of the leading digit, then digit by digit, the shorter
    /// read on with zeros. Nothing is scaled: an exponent may be anywhere in i32 (a learner's
    /// `1e2147483647`), and padding to a common exponent would write billions of zeros.
    fn cmp_abs(&self, other: &Dec) -> Ordering {
        match (self.is_zero(), other.is_zero()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            _ => {}
        }
        // Digits carry no leading zeros, so the leading digit stands at 10^(len + exp - 1).
        let place = |d: &Dec| d.digits.len() as i64 + i64::from(d.exp);
        place(self).cmp(&place(other)).then_with(|| {
            let (a, b) = (self.digits.as_bytes(), other.digits.as_bytes());
            let common = a.len().min(b.len());
            a[..common].cmp(&b[..common]).then_with(|| {
                let nonzero = |rest: &[u8]| rest.iter().any(|&d| d != b'0');
                match (nonzero(&a[common..]), nonzero(&b[common..])) {
                    (true, false) => Ordering::Greater,
                    (false, true) => Ordering::Less,
                    _ => Ordering::Equal,
                }
            })
        })
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
        // int32 as in Go, wrapping alike.
        let mut exp = self
            .exp
            .wrapping_add((self.digits.len() - trimmed.len()) as i32);
        let mut digits = trimmed.to_string();
        while exp % 3 != 0 {
            digits.push('0');
            exp = exp.wrapping_sub(1);
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
    /// Held as Go holds it on `ParseQuantity`'s fast path, an `int64Amount` (else an `inf.Dec`):
    /// the two overflow differently when scaled ([`Quantity::milli_value`]).
    int64_amount: bool,
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
                int64_amount: true,
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
            // Go's int32 arithmetic wraps, here as there (`1e-2147483648` scales past it).
            scale = scale.wrapping_sub(denom.len() as i32);
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
                        int64_amount: true,
                    });
                }
            }
        }

        // Slow path: exact decimal arithmetic, rounded up to nano, binary values capped at 2^63-1.
        let mut amount = Dec::new(!positive, &format!("{num}{denom}"), -(denom.len() as i32));
        if base == 10 {
            // `amount.Scale() - inf.Scale(exponent)`: int32, wrapping as Go's does.
            amount.exp = amount.exp.wrapping_add(exponent);
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
            int64_amount: false,
        })
    }

    pub fn is_zero(&self) -> bool {
        self.value.is_zero()
    }

    /// A whole number of units (`resource.NewQuantity(n, DecimalSI)`).
    pub fn from_units(units: i64) -> Quantity {
        Quantity::from_nano(i128::from(units) * 1_000_000_000, Format::DecimalSI)
    }

    /// `resource.NewScaledQuantity(nanos, -9)`: an amount in nano-units, printed canonically.
    pub fn from_nano_units(nanos: i128) -> Quantity {
        Quantity::from_nano(nanos, Format::DecimalSI)
    }

    /// `resource.NewQuantity(n, BinarySI)`: whole units printed with binary suffixes.
    pub fn binary_units(units: i64) -> Quantity {
        Quantity::from_nano(i128::from(units) * 1_000_000_000, Format::BinarySI)
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
            int64_amount: false,
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

    /// `Quantity.MilliValue()`, rounded up, and past int64 what Go's answers: an
    /// `int64Amount` scaled by 10, 100, 1000, 10^6 or 10^9 wraps and by other powers gives 0
    /// (`positiveScaleInt64`); an `inf.Dec` (`scaledValue`) gives the low 64 bits of the
    /// result. So `8Ei` (capped at 2^63 - 1) reads as -1000 milli and `1e18` as 0, and the
    /// fractional-bytes warning, which asks `MilliValue() % 1000`, passes them in silence.
    pub fn milli_value(&self) -> i64 {
        let unscaled = self.value.low_64_bits();
        if self.int64_amount {
            // `int64Amount{value, scale}.AsScaledInt64(Milli)`.
            let scale = i64::from(self.value.exp);
            if scale < -3 {
                negative_scale_int64(unscaled, -3 - scale)
            } else {
                positive_scale_int64(unscaled, scale + 3)
            }
        } else {
            // `scaledValue(unscaled, scale, 3)` with the `inf.Dec` scale, -exp.
            let dif = -i64::from(self.value.exp) - 3;
            if dif <= 0 {
                // `int64(math.Pow10(-dif))`: past 10^18 the float does not fit, and amd64
                // converts it to the minimum int64.
                let factor = u32::try_from(-dif)
                    .ok()
                    .and_then(|e| 10i64.checked_pow(e))
                    .unwrap_or(i64::MIN);
                unscaled.wrapping_mul(factor)
            } else {
                let (quotient, exact) = self.value.divided_by_power_of_ten(dif);
                let quotient = if self.value.negative {
                    quotient.wrapping_neg()
                } else {
                    quotient
                };
                if exact {
                    quotient
                } else {
                    quotient.wrapping_add(1)
                }
            }
        }
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
        let magnitude = u32::try_from(i64::from(self.value.exp) + 9)
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

    /// `Quantity.RoundUp`: the value rounded away from zero to at most `-scale` decimals; true
    /// when it already had no more (and keeps its text). A rounded quantity forgets its text.
    pub fn round_up(&mut self, scale: i32) -> bool {
        if self.value.exp >= scale {
            return true;
        }
        self.original = None;
        self.value.round_up_to(scale.wrapping_neg())
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

/// The low 64 bits of the whole number a string of decimal digits writes, as an int64 (what
/// `big.Int.Int64()` keeps of a magnitude past it).
fn low_64_bits_of(digits: &str) -> i64 {
    digits.bytes().fold(0u64, |acc, d| {
        acc.wrapping_mul(10).wrapping_add(u64::from(d - b'0'))
    }) as i64
}

/// `positiveScaleInt64`: `base` × 10^`scale`; by 10, 100, 1000, 10^6 and 10^9 the product
/// wraps as `int64Multiply`'s does (its overflow flag is not read), by any other power an
/// overflow gives 0.
fn positive_scale_int64(base: i64, scale: i64) -> i64 {
    let multiply = |a: i64, b: i64| -> (i64, bool) {
        if a == 0 || b == 0 || a == 1 || b == 1 {
            return (a.wrapping_mul(b), true);
        }
        if a == i64::MIN || b == i64::MIN {
            return (0, false);
        }
        let c = a.wrapping_mul(b);
        (c, c.wrapping_div(b) == a)
    };
    match scale {
        0 => base,
        1 => multiply(base, 10).0,
        2 => multiply(base, 100).0,
        3 => multiply(base, 1000).0,
        6 => multiply(base, 1_000_000).0,
        9 => multiply(base, 1_000_000_000).0,
        _ => {
            let mut value = base;
            for _ in 0..scale {
                let (next, ok) = multiply(value, 10);
                if !ok {
                    return 0;
                }
                value = next;
            }
            value
        }
    }
}

/// `negativeScaleInt64`: `base` / 10^`scale`, a remainder rounding away from zero.
fn negative_scale_int64(base: i64, scale: i64) -> i64 {
    let mut value = base;
    let mut fraction = false;
    for _ in 0..scale {
        if !fraction && value % 10 != 0 {
            fraction = true;
        }
        value /= 10;
        if value == 0 {
            return match (fraction, base > 0) {
                (false, _) => 0,
                (true, true) => 1,
                (true, false) => -1,
            };
        }
    }
    match (fraction, base > 0) {
        (false, _) => value,
        (true, true) => value + 1,
        (true, false) => value - 1,
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

    /// metrics-server builds its usages with `NewScaledQuantity(nanocores, -9)` and
    /// `NewQuantity(bytes, BinarySI)`; `String()` prints them canonically.
    #[test]
    fn constructed_quantities_print_canonically() {
        assert_eq!(Quantity::from_nano_units(100_000_000).canonical(), "100m");
        assert_eq!(
            Quantity::from_nano_units(100_010_000).canonical(),
            "100010u"
        );
        assert_eq!(Quantity::from_nano_units(2_000_000_000).canonical(), "2");
        assert_eq!(Quantity::from_nano_units(1).canonical(), "1n");
        assert_eq!(Quantity::binary_units(104_857_600).canonical(), "100Mi");
        // `CanonicalizeBytes` prints a binary amount under 1024 in DecimalSI.
        assert_eq!(Quantity::binary_units(1_000).canonical(), "1k");
        assert_eq!(Quantity::binary_units(1_536).canonical(), "1536");
        assert_eq!(Quantity::binary_units(3 << 30).canonical(), "3Gi");
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

    /// Exponents that wrap Go's int32 wrap here too (in every build, never a panic), and
    /// values far apart compare without being scaled to each other.
    #[test]
    fn exponents_at_the_ends_of_int32_neither_panic_nor_allocate() {
        let q = |s: &str| Quantity::parse(s).expect(s);
        // `0.5e-2147483648`: the scale, 1 - (-2^31), wraps to -(2^31 - 1) as Go's does.
        assert_eq!(
            q("0.5e-2147483648").compare(&q("5e2147483647")),
            Ordering::Equal
        );
        assert_eq!(q("1e2147483647").compare(&q("1")), Ordering::Greater);
        assert_eq!(q("1").compare(&q("1e2147483647")), Ordering::Less);
        assert_eq!(q("1e-2147483648").compare(&q("1n")), Ordering::Equal);
        assert_eq!(q("-1e2147483647").compare(&q("1n")), Ordering::Less);
        assert!(q("1e2147483647").canonical().ends_with("e2147483646"));
        assert_eq!(q("1e2147483647").nano_units(), i128::MAX);
    }

    /// `MilliValue()` as Go answers it, overflow included (what kube-apiserver v1.32.13's
    /// fractional-bytes warning shows: tests/differential/sessions/quantities.yaml).
    #[test]
    fn milli_values_overflow_as_gos_do() {
        let q = |s: &str| Quantity::parse(s).expect(s);
        assert_eq!(q("1").milli_value(), 1000);
        assert_eq!(q("1.5").milli_value(), 1500);
        assert_eq!(q("100m").milli_value(), 100);
        assert_eq!(q("1n").milli_value(), 1);
        assert_eq!(q("-1n").milli_value(), -1);
        assert_eq!(q("0.0001").milli_value(), 1);
        assert_eq!(
            q("1Ei").milli_value(),
            1_152_921_504_606_846_976i64.wrapping_mul(1000)
        );
        // `8Ei` is capped at 2^63 - 1 as an inf.Dec: times 1000, wrapped.
        assert_eq!(q("8Ei").milli_value(), -1000);
        assert_eq!(q("9223372036854775807").milli_value(), -1000);
        // `1e18` is int64Amount{1, 18}: scaled by 10^21, which overflows to 0.
        assert_eq!(q("1e18").milli_value(), 0);
        assert_ne!(q("99999999999999999999").milli_value() % 1000, 0);
        assert_eq!(q("1200e-6").milli_value(), 2);
    }

    #[test]
    fn magnitudes_compare_digit_by_digit() {
        let q = |s: &str| Quantity::parse(s).expect(s);
        assert_eq!(q("1200m").compare(&q("1.2")), Ordering::Equal);
        assert_eq!(q("1201m").compare(&q("1.2")), Ordering::Greater);
        assert_eq!(q("1.19").compare(&q("1200m")), Ordering::Less);
        assert_eq!(q("100").compare(&q("1e2")), Ordering::Equal);
        assert_eq!(q("99").compare(&q("1e2")), Ordering::Less);
        assert_eq!(q("1Ki").compare(&q("1k")), Ordering::Greater);
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
