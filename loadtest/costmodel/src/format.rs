//! Numbers as the reports show them: dollars and quantities.

/// Dollars with four significant digits below $100 (per-request figures are tiny),
/// cents above.
pub fn usd(value: f64) -> String {
    let sign = if value < 0.0 { "-" } else { "" };
    let abs = value.abs();
    if abs == 0.0 {
        return "$0".to_string();
    }
    if abs >= 100.0 {
        return format!("{sign}${}", thousands(abs, 2));
    }
    let magnitude = abs.log10().floor() as i32;
    let decimals = (3 - magnitude).clamp(2, 15) as usize;
    format!("{sign}${abs:.decimals$}")
}

/// Whole numbers with thousands separators; fractions with up to four significant digits.
pub fn quantity(value: f64) -> String {
    let sign = if value < 0.0 { "-" } else { "" };
    let abs = value.abs();
    if abs.fract() == 0.0 || abs >= 1000.0 {
        let decimals = if abs.fract() == 0.0 { 0 } else { 1 };
        return format!("{sign}{}", thousands(abs, decimals));
    }
    if abs == 0.0 {
        return "0".to_string();
    }
    let magnitude = abs.log10().floor() as i32;
    let decimals = (3 - magnitude).clamp(0, 15) as usize;
    let text = format!("{abs:.decimals$}");
    let trimmed = text.trim_end_matches('0').trim_end_matches('.');
    format!("{sign}{trimmed}")
}

fn thousands(value: f64, decimals: usize) -> String {
    let text = format!("{value:.decimals$}");
    let (whole, fraction) = match text.split_once('.') {
        Some((w, f)) => (w.to_string(), format!(".{f}")),
        None => (text.clone(), String::new()),
    };
    let mut grouped = String::new();
    for (i, digit) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    grouped + &fraction
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dollars_keep_four_significant_digits_when_small() {
        assert_eq!(usd(0.0), "$0");
        assert_eq!(usd(0.208333375), "$0.2083");
        assert_eq!(usd(2.08333375e-7), "$0.0000002083");
        assert_eq!(usd(5.056), "$5.056");
        assert_eq!(usd(-0.2), "-$0.2000");
        assert_eq!(usd(12345.678), "$12,345.68");
    }

    #[test]
    fn quantities_group_thousands_and_trim_fractions() {
        assert_eq!(quantity(26_280_000.0), "26,280,000");
        assert_eq!(quantity(625.0), "625");
        assert_eq!(quantity(0.001615), "0.001615");
        assert_eq!(quantity(-16_425.0), "-16,425");
        assert_eq!(quantity(1234.5), "1,234.5");
    }
}
