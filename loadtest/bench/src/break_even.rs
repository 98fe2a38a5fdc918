//! Where two monthly bills cross: the request rate above which one
//! architecture becomes the cheaper one.
//!
//! A bill priced purely per request is proportional to the rate, so two of
//! them never cross; a fixed monthly part (a fleet that runs whatever the
//! traffic) or the volume tiers bend the line, and then they can. The bills
//! are functions of the rate, searched on a log scale from
//! [`LOWEST_RATE`] to [`HIGHEST_RATE`], each crossing refined by bisection.

use serde::{Deserialize, Serialize};

/// The search's range of successful requests per second.
pub const LOWEST_RATE: f64 = 0.001;
pub const HIGHEST_RATE: f64 = 100_000.0;
const STEPS_PER_DECADE: u32 = 25;
const BISECTIONS: u32 = 60;
/// Bills this close (relative) are the same: summing lines in another order
/// must not make a crossing.
const SAME: f64 = 1e-9;

/// Two architectures' monthly bills compared over every rate searched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BreakEven {
    pub a: String,
    pub b: String,
    pub crossing: Crossing,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Crossing {
    /// One is cheaper at every rate; by how much of the dearer one's bill
    /// at each rate asked (the volume tiers move it a little).
    Never {
        cheaper: String,
        dearer: String,
        percent_at: Vec<Margin>,
    },
    /// The bills cross at each of `rates` (ascending); `cheaper_below` is
    /// the cheaper one below the first.
    At {
        rates: Vec<f64>,
        cheaper_below: String,
        cheaper_above: String,
    },
    /// The same bill at every rate.
    Same,
}

/// The cheaper one's margin at a rate, in percent of the dearer one's bill.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Margin {
    pub requests_per_second: f64,
    pub percent: f64,
}

/// A bill: dollars a month at a rate, or why it cannot be priced.
pub type Bill<'a, E> = &'a dyn Fn(f64) -> Result<f64, E>;

/// Compares `a`'s and `b`'s bills, with the margin at each of `rates` when
/// they never cross; a bill that cannot be computed stops the search.
pub fn break_even<E>(
    a: (&str, Bill<'_, E>),
    b: (&str, Bill<'_, E>),
    rates: &[f64],
) -> Result<BreakEven, E> {
    let (name_a, bill_a) = a;
    let (name_b, bill_b) = b;
    let difference = |rate: f64| -> Result<(f64, f64, f64), E> {
        let (x, y) = (bill_a(rate)?, bill_b(rate)?);
        Ok((x, y, sign(x, y)))
    };
    let mut crossings = Vec::new();
    let mut previous: Option<(f64, f64)> = None;
    let mut first_sign = 0.0;
    for rate in grid() {
        let (_, _, s) = difference(rate)?;
        if s == 0.0 {
            continue;
        }
        if first_sign == 0.0 {
            first_sign = s;
        }
        if let Some((low, low_sign)) = previous.filter(|(_, low_sign)| *low_sign != s) {
            crossings.push(bisect(low, rate, low_sign, &|r| Ok(difference(r)?.2))?);
        }
        previous = Some((rate, s));
    }
    let (cheaper, dearer) = if first_sign < 0.0 {
        (name_a, name_b)
    } else {
        (name_b, name_a)
    };
    let crossing = if first_sign == 0.0 {
        Crossing::Same
    } else if crossings.is_empty() {
        let mut percent_at = Vec::new();
        for rate in rates {
            let (x, y, _) = difference(*rate)?;
            percent_at.push(Margin {
                requests_per_second: *rate,
                percent: (x - y).abs() / x.max(y) * 100.0,
            });
        }
        Crossing::Never {
            cheaper: cheaper.to_string(),
            dearer: dearer.to_string(),
            percent_at,
        }
    } else {
        let cheaper_above = if crossings.len() % 2 == 1 {
            dearer
        } else {
            cheaper
        };
        Crossing::At {
            rates: crossings,
            cheaper_below: cheaper.to_string(),
            cheaper_above: cheaper_above.to_string(),
        }
    };
    Ok(BreakEven {
        a: name_a.to_string(),
        b: name_b.to_string(),
        crossing,
    })
}

/// -1 when `x` is cheaper, 1 when `y` is, 0 when they are the same.
fn sign(x: f64, y: f64) -> f64 {
    if (x - y).abs() <= SAME * x.abs().max(y.abs()) {
        0.0
    } else if x < y {
        -1.0
    } else {
        1.0
    }
}

/// Log-spaced rates from [`LOWEST_RATE`] to [`HIGHEST_RATE`].
fn grid() -> impl Iterator<Item = f64> {
    let (low, high) = (LOWEST_RATE.log10(), HIGHEST_RATE.log10());
    let steps = ((high - low) * f64::from(STEPS_PER_DECADE)).round() as u32;
    (0..=steps).map(move |i| 10f64.powf(low + (high - low) * f64::from(i) / f64::from(steps)))
}

/// The rate between `low` and `high` where the sign leaves `low_sign`.
fn bisect<E>(
    mut low: f64,
    mut high: f64,
    low_sign: f64,
    sign_at: &dyn Fn(f64) -> Result<f64, E>,
) -> Result<f64, E> {
    for _ in 0..BISECTIONS {
        let middle = (low * high).sqrt();
        if sign_at(middle)? == low_sign {
            low = middle;
        } else {
            high = middle;
        }
    }
    Ok((low * high).sqrt())
}

impl BreakEven {
    /// The comparison in one sentence.
    pub fn sentence(&self) -> String {
        let rate = |r: f64| format!("{} req/s", costmodel::quantity(r));
        match &self.crossing {
            Crossing::Never {
                cheaper,
                dearer,
                percent_at,
            } => format!(
                "{cheaper} against {dearer}: never crosses (from {} to {}): {cheaper} is cheaper at every rate{}.",
                rate(LOWEST_RATE),
                rate(HIGHEST_RATE),
                margins(percent_at)
            ),
            Crossing::At {
                rates,
                cheaper_below,
                cheaper_above,
            } => {
                let (first, last) = (rate(rates[0]), rate(rates[rates.len() - 1]));
                let (a, b) = (&self.a, &self.b);
                if rates.len() == 1 {
                    return format!(
                        "{a} against {b}: the bills cross at {first}: {cheaper_below} is cheaper below {first}, {cheaper_above} above {last}."
                    );
                }
                // A fleet that grows an instance at a time bends its bill
                // into steps, which a steady slope can cross several times.
                let other = if cheaper_below == a { b } else { a };
                let outside = if cheaper_below == cheaper_above {
                    format!("{cheaper_below} is cheaper below {first} and above {last}, {other} in places between")
                } else {
                    format!("{cheaper_below} is cheaper below {first}, {cheaper_above} above {last}, either in places between")
                };
                format!(
                    "{a} against {b}: the bills cross {} times between {first} and {last}: {outside}.",
                    rates.len()
                )
            }
            Crossing::Same => format!("{} and {}: the same bill at every rate.", self.a, self.b),
        }
    }
}

/// `, by 12.3 %` when the margin is the same at every rate asked, else
/// `, by 12.3 % at 1 req/s, 14.0 % at 1,000 req/s`.
fn margins(percent_at: &[Margin]) -> String {
    let shown: Vec<String> = percent_at
        .iter()
        .map(|m| format!("{:.1} %", m.percent))
        .collect();
    if shown.is_empty() {
        return String::new();
    }
    if shown.iter().all(|p| *p == shown[0]) {
        return format!(", by {}", shown[0]);
    }
    let at: Vec<String> = percent_at
        .iter()
        .zip(&shown)
        .map(|(m, p)| {
            format!(
                "{p} at {} req/s",
                costmodel::quantity(m.requests_per_second)
            )
        })
        .collect();
    format!(", by {}", at.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 30-day month: 30 x 86,400 s.
    const SECONDS: f64 = 2_592_000.0;

    fn compare(a: impl Fn(f64) -> f64, b: impl Fn(f64) -> f64) -> BreakEven {
        let a = move |r: f64| Ok::<f64, ()>(a(r));
        let b = move |r: f64| Ok::<f64, ()>(b(r));
        break_even(("a", &a), ("b", &b), &[1.0, 1000.0]).unwrap()
    }

    #[test]
    fn bills_priced_per_request_never_cross() {
        // GIVEN $2 and $3 per million requests, nothing fixed
        let found = compare(|r| r * SECONDS * 2e-6, |r| r * SECONDS * 3e-6);
        // THEN a is cheaper everywhere, by (3 - 2) / 3 = 33.3 % at every rate
        let Crossing::Never {
            cheaper,
            dearer,
            percent_at,
        } = &found.crossing
        else {
            panic!("{found:?}");
        };
        assert_eq!((cheaper.as_str(), dearer.as_str()), ("a", "b"));
        assert_eq!(percent_at.len(), 2);
        for margin in percent_at {
            assert!((margin.percent - 100.0 / 3.0).abs() < 1e-9, "{found:?}");
        }
        assert!(
            found
                .sentence()
                .contains("a is cheaper at every rate, by 33.3 %."),
            "{}",
            found.sentence()
        );
    }

    #[test]
    fn a_fixed_monthly_part_makes_the_bills_cross_where_hand_calculated() {
        // GIVEN a: a $100 fleet a month plus $1 per million requests; b: $5
        // per million requests, nothing fixed
        let a = |r: f64| 100.0 + r * SECONDS * 1e-6;
        let b = |r: f64| r * SECONDS * 5e-6;
        // WHEN compared
        let found = compare(a, b);
        // THEN they cross where 100 = r x 2,592,000 x 4e-6, r = 100 / 10.368
        // = 9.645 req/s: b is cheaper below, a above
        let Crossing::At {
            rates,
            cheaper_below,
            cheaper_above,
        } = &found.crossing
        else {
            panic!("{found:?}");
        };
        assert_eq!(rates.len(), 1);
        assert!((rates[0] - 100.0 / 10.368).abs() < 1e-6, "{rates:?}");
        assert_eq!((cheaper_below.as_str(), cheaper_above.as_str()), ("b", "a"));
        assert!(
            found
                .sentence()
                .contains("b is cheaper below 9.645 req/s, a above"),
            "{}",
            found.sentence()
        );
    }

    #[test]
    fn a_fleet_that_grows_in_steps_crosses_several_times_and_says_so() {
        // GIVEN a: $100 an instance, one per 10 req/s; b: $11 a month per
        // req/s, nothing fixed
        let a = |r: f64| 100.0 * (r / 10.0).ceil().max(1.0);
        let b = |r: f64| r * 11.0;
        // WHEN compared
        let found = compare(a, b);
        // THEN b is cheaper below 100 / 11 = 9.09 req/s; above, each new
        // instance ($100 a step) lifts a over b again for a while, until
        // b's $110 per 10 req/s outruns the steps (at 100 req/s)
        let Crossing::At {
            rates,
            cheaper_below,
            cheaper_above,
        } = &found.crossing
        else {
            panic!("{found:?}");
        };
        assert!(rates.len() >= 3, "{rates:?}");
        assert!((rates[0] - 100.0 / 11.0).abs() < 1e-6, "{rates:?}");
        assert!(rates[rates.len() - 1] <= 100.0 + 1e-6, "{rates:?}");
        assert_eq!((cheaper_below.as_str(), cheaper_above.as_str()), ("b", "a"));
        let sentence = found.sentence();
        let expected = format!(
            "a against b: the bills cross {} times between 9.091 req/s and",
            rates.len()
        );
        assert!(sentence.starts_with(&expected), "{sentence}");
        assert!(
            sentence.contains("b is cheaper below 9.091 req/s, a above"),
            "{sentence}"
        );
    }

    #[test]
    fn equal_bills_are_the_same_and_errors_stop_the_search() {
        assert_eq!(compare(|r| r, |r| r).crossing, Crossing::Same);
        let fails = |_: f64| Err::<f64, &str>("no price");
        let fine = |r: f64| Ok::<f64, &str>(r);
        assert_eq!(
            break_even(("a", &fine), ("b", &fails), &[]),
            Err("no price")
        );
    }
}
