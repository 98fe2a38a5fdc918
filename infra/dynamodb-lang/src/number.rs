//! DynamoDB's exact decimal number: up to 38 significant digits, magnitude between
//! 1E-130 and 9.99..E+125 (or zero). Kept as decimal digits, never as `f64`, so that
//! `0.1 + 0.2 = 0.3` and 38-digit counters stay exact.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

const MAX_DIGITS: usize = 38;
const MAX_EXPONENT: i64 = 125;
const MIN_EXPONENT: i64 = -130;

/// Why a number was rejected; `Display` gives AWS's ValidationException message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NumberError {
    /// Not a decimal literal; holds the offending text.
    Invalid(String),
    Overflow,
    Underflow,
    Precision,
}

impl fmt::Display for NumberError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NumberError::Invalid(text) if text.is_empty() => {
                f.write_str("The parameter cannot be converted to a numeric value")
            }
            NumberError::Invalid(text) => {
                write!(f, "The parameter cannot be converted to a numeric value: {text}")
            }
            NumberError::Overflow => f.write_str(
                "Number overflow. Attempting to store a number with magnitude larger than supported range",
            ),
            NumberError::Underflow => f.write_str(
                "Number underflow. Attempting to store a number with magnitude smaller than supported range",
            ),
            NumberError::Precision => {
                f.write_str("Attempting to store more than 38 significant digits in a Number")
            }
        }
    }
}

impl std::error::Error for NumberError {}

/// Normalised so that equal values have equal fields (derived `Eq`/`Hash` are numeric):
/// `digits` are the significant digits without leading or trailing zeros (empty for
/// zero), the value is `d1.d2d3... x 10^exponent`, and zero is never negative.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Number {
    negative: bool,
    digits: Vec<u8>,
    exponent: i32,
}

impl Number {
    pub fn zero() -> Number {
        Number {
            negative: false,
            digits: Vec::new(),
            exponent: 0,
        }
    }

    pub fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    pub fn is_negative(&self) -> bool {
        self.negative
    }

    /// Count of significant digits (0 for zero); drives the item-size estimate.
    pub fn significant_digits(&self) -> usize {
        self.digits.len()
    }

    pub fn checked_add(&self, o: &Number) -> Result<Number, NumberError> {
        let (a, b) = (self.scaled(), o.scaled());
        let scale = a.1.min(b.1);
        let x = shift(&a.0, a.1 - scale);
        let y = shift(&b.0, b.1 - scale);
        let (negative, magnitude) = if self.negative == o.negative {
            (self.negative, add_magnitudes(&x, &y))
        } else {
            match cmp_magnitudes(&x, &y) {
                Ordering::Less => (o.negative, sub_magnitudes(&y, &x)),
                _ => (self.negative, sub_magnitudes(&x, &y)),
            }
        };
        Number::from_parts(negative, magnitude, scale)
    }

    pub fn checked_sub(&self, o: &Number) -> Result<Number, NumberError> {
        self.checked_add(&o.negated())
    }

    pub fn negated(&self) -> Number {
        Number {
            negative: !self.negative && !self.is_zero(),
            ..self.clone()
        }
    }

    /// Integer digits (most significant first) and power of ten: value = int x 10^scale.
    fn scaled(&self) -> (Vec<u8>, i64) {
        let n = self.digits.len() as i64;
        (self.digits.clone(), self.exponent as i64 - (n - 1).max(0))
    }

    /// Builds a normalised number from `int(digits) x 10^scale`, checking AWS's limits.
    fn from_parts(negative: bool, digits: Vec<u8>, scale: i64) -> Result<Number, NumberError> {
        let start = digits.iter().position(|&d| d != 0);
        let Some(start) = start else {
            return Ok(Number::zero());
        };
        let end = digits
            .iter()
            .rposition(|&d| d != 0)
            .map_or(start, |e| e + 1);
        let trailing = (digits.len() - end) as i64;
        let significant = digits[start..end].to_vec();
        let exponent = scale + trailing + significant.len() as i64 - 1;
        if exponent > MAX_EXPONENT {
            return Err(NumberError::Overflow);
        }
        if exponent < MIN_EXPONENT {
            return Err(NumberError::Underflow);
        }
        if significant.len() > MAX_DIGITS {
            return Err(NumberError::Precision);
        }
        Ok(Number {
            negative,
            digits: significant,
            exponent: exponent as i32,
        })
    }

    fn cmp_magnitude(&self, o: &Number) -> Ordering {
        match (self.is_zero(), o.is_zero()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            // Digits compare lexicographically: a shorter prefix is the smaller value.
            (false, false) => self
                .exponent
                .cmp(&o.exponent)
                .then_with(|| self.digits.cmp(&o.digits)),
        }
    }
}

fn shift(digits: &[u8], zeros: i64) -> Vec<u8> {
    let mut out = digits.to_vec();
    out.extend(std::iter::repeat_n(0, zeros as usize));
    out
}

fn cmp_magnitudes(a: &[u8], b: &[u8]) -> Ordering {
    let strip = |d: &[u8]| -> Vec<u8> { d.iter().copied().skip_while(|&x| x == 0).collect() };
    let (a, b) = (strip(a), strip(b));
    a.len().cmp(&b.len()).then_with(|| a.cmp(&b))
}

fn add_magnitudes(a: &[u8], b: &[u8]) -> Vec<u8> {
    let len = a.len().max(b.len()) + 1;
    let mut out = vec![0u8; len];
    let mut carry = 0u8;
    for i in 0..len {
        let da = if i < a.len() { a[a.len() - 1 - i] } else { 0 };
        let db = if i < b.len() { b[b.len() - 1 - i] } else { 0 };
        let sum = da + db + carry;
        out[len - 1 - i] = sum % 10;
        carry = sum / 10;
    }
    out
}

/// `a - b` for `a >= b`.
fn sub_magnitudes(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; a.len()];
    let mut borrow = 0i8;
    for i in 0..a.len() {
        let da = a[a.len() - 1 - i] as i8;
        let db = if i < b.len() {
            b[b.len() - 1 - i] as i8
        } else {
            0
        };
        let mut diff = da - db - borrow;
        borrow = 0;
        if diff < 0 {
            diff += 10;
            borrow = 1;
        }
        out[a.len() - 1 - i] = diff as u8;
    }
    out
}

impl FromStr for Number {
    type Err = NumberError;

    /// Accepts `[+-]digits[.digits][(e|E)[+-]digits]` (also `.5` and `5.`), like Java's
    /// BigDecimal that DynamoDB uses.
    fn from_str(s: &str) -> Result<Number, NumberError> {
        let invalid = || NumberError::Invalid(s.to_string());
        let (negative, rest) = match s.as_bytes().first() {
            Some(b'-') => (true, &s[1..]),
            Some(b'+') => (false, &s[1..]),
            _ => (false, s),
        };
        let (mantissa, exp_text) = match rest.find(['e', 'E']) {
            Some(i) => (&rest[..i], Some(&rest[i + 1..])),
            None => (rest, None),
        };
        let (int_part, frac_part) = match mantissa.find('.') {
            Some(i) => (&mantissa[..i], &mantissa[i + 1..]),
            None => (mantissa, ""),
        };
        let all_digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
        if int_part.len() + frac_part.len() == 0 || !all_digits(int_part) || !all_digits(frac_part)
        {
            return Err(invalid());
        }
        let exp = match exp_text {
            Some(t) => parse_exponent(t).ok_or_else(invalid)?,
            None => 0,
        };
        let digits: Vec<u8> = int_part
            .bytes()
            .chain(frac_part.bytes())
            .map(|b| b - b'0')
            .collect();
        let n = Number::from_parts(negative, digits, exp - frac_part.len() as i64)?;
        Ok(n)
    }
}

/// Parses an exponent, saturating far beyond any representable range.
fn parse_exponent(t: &str) -> Option<i64> {
    let (negative, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let magnitude = digits.bytes().fold(0i64, |acc, b| {
        (acc * 10 + (b - b'0') as i64).min(1_000_000_000)
    });
    Some(if negative { -magnitude } else { magnitude })
}

impl fmt::Display for Number {
    /// Plain notation without exponent, as DynamoDB returns numbers.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_zero() {
            return f.write_str("0");
        }
        let mut out = String::with_capacity(self.digits.len() + 8);
        if self.negative {
            out.push('-');
        }
        let digit = |d: &u8| char::from(b'0' + d);
        let n = self.digits.len() as i64;
        let e = self.exponent as i64;
        if e < 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-e - 1) as usize));
            out.extend(self.digits.iter().map(digit));
        } else if e + 1 >= n {
            out.extend(self.digits.iter().map(digit));
            out.extend(std::iter::repeat_n('0', (e + 1 - n) as usize));
        } else {
            let split = (e + 1) as usize;
            out.extend(self.digits[..split].iter().map(digit));
            out.push('.');
            out.extend(self.digits[split..].iter().map(digit));
        }
        f.write_str(&out)
    }
}

impl Ord for Number {
    fn cmp(&self, o: &Number) -> Ordering {
        match (self.negative, o.negative) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => self.cmp_magnitude(o),
            (true, true) => o.cmp_magnitude(self),
        }
    }
}

impl PartialOrd for Number {
    fn partial_cmp(&self, o: &Number) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl From<i64> for Number {
    fn from(v: i64) -> Number {
        v.to_string()
            .parse()
            .expect("every i64 is a valid DynamoDB number")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> Number {
        s.parse().unwrap()
    }

    #[test]
    fn display_is_canonical_like_dynamodb() {
        for (input, shown) in [
            ("1.50", "1.5"),
            ("1e3", "1000"),
            ("-0", "0"),
            ("0.000", "0"),
            ("007", "7"),
            ("-1.50", "-1.5"),
            (".5", "0.5"),
            ("5.", "5"),
            ("1E-3", "0.001"),
            ("+12.340e1", "123.4"),
            ("123.456", "123.456"),
        ] {
            assert_eq!(n(input).to_string(), shown, "for {input}");
        }
    }

    #[test]
    fn equal_values_are_equal_and_hash_alike() {
        use std::collections::HashSet;
        assert_eq!(n("1.0"), n("1"));
        assert_eq!(n("100"), n("1e2"));
        let set: HashSet<Number> = [n("1.0"), n("1"), n("10e-1")].into_iter().collect();
        assert_eq!(set.len(), 1);
    }

    #[test]
    fn ordering_is_numeric() {
        assert!(n("-10") < n("-9"));
        assert!(n("-0.1") < n("0"));
        assert!(n("0") < n("0.001"));
        assert!(n("9") < n("10"));
        assert!(n("1.2") < n("1.23"));
        assert!(n("-1.23") < n("-1.2"));
    }

    #[test]
    fn rejects_malformed_text_with_aws_message() {
        for bad in [
            "", "abc", "1..2", "1e", "e5", "--1", "1 ", "0x10", ".", "1e+", "NaN",
        ] {
            let err = bad.parse::<Number>().unwrap_err();
            assert!(matches!(err, NumberError::Invalid(_)), "for {bad:?}");
        }
        assert_eq!(
            "abc".parse::<Number>().unwrap_err().to_string(),
            "The parameter cannot be converted to a numeric value: abc"
        );
    }

    #[test]
    fn enforces_range_and_precision() {
        assert!("9.9999999999999999999999999999999999999E+125"
            .parse::<Number>()
            .is_ok());
        assert!("1E-130".parse::<Number>().is_ok());
        assert_eq!(
            "1E+126".parse::<Number>().unwrap_err(),
            NumberError::Overflow
        );
        assert_eq!(
            "1E-131".parse::<Number>().unwrap_err(),
            NumberError::Underflow
        );
        let digits39 = "1".repeat(39);
        assert_eq!(
            digits39.parse::<Number>().unwrap_err(),
            NumberError::Precision
        );
        assert_eq!(
            NumberError::Precision.to_string(),
            "Attempting to store more than 38 significant digits in a Number"
        );
        // Trailing zeros are not significant.
        assert!(format!("1{}", "0".repeat(100)).parse::<Number>().is_ok());
    }

    #[test]
    fn converts_any_i64() {
        assert_eq!(Number::from(i64::MIN).to_string(), i64::MIN.to_string());
        assert_eq!(Number::from(0), Number::zero());
        assert!(Number::from(-3).is_negative());
    }

    #[test]
    fn arithmetic_is_exact() {
        assert_eq!(n("0.1").checked_add(&n("0.2")).unwrap(), n("0.3"));
        assert_eq!(n("5").checked_sub(&n("7.5")).unwrap().to_string(), "-2.5");
        assert_eq!(n("-5").checked_add(&n("5")).unwrap().to_string(), "0");
        let big = "9".repeat(38);
        assert_eq!(
            n(&big).checked_sub(&n("1")).unwrap().to_string(),
            format!("{}8", "9".repeat(37))
        );
    }

    #[test]
    fn arithmetic_reports_lost_precision_and_overflow() {
        let big = "9".repeat(38);
        assert_eq!(
            n(&big).checked_add(&n("1")).unwrap(),
            n(&format!("1{}", "0".repeat(38)))
        );
        assert_eq!(
            n(&big).checked_add(&n("0.1")).unwrap_err(),
            NumberError::Precision
        );
        assert_eq!(
            n("9.9999999999999999999999999999999999999E+125")
                .checked_add(&n("1E+125"))
                .unwrap_err(),
            NumberError::Overflow
        );
    }
}
