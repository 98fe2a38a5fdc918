//! Inline SVG charts: no script, no external file, so the report renders offline.

use std::fmt::Write;

pub const COLORS: [&str; 6] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
];

const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 260.0;
const LEFT: f64 = 60.0;
const RIGHT: f64 = 130.0;
const TOP: f64 = 28.0;
const BOTTOM: f64 = 36.0;

pub struct Series<'a> {
    pub label: &'a str,
    pub color: &'a str,
    pub points: Vec<(f64, f64)>,
}

/// Lines over a shared x axis (time), y from zero.
pub fn line_chart(title: &str, x_label: &str, y_label: &str, series: &[Series<'_>]) -> String {
    let all = series.iter().flat_map(|s| s.points.iter());
    let x_max = all.clone().map(|p| p.0).fold(0.0, f64::max).max(1.0);
    let y_max = nice_max(all.map(|p| p.1).fold(0.0, f64::max));
    let (w, h) = (WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
    let x = |v: f64| LEFT + v / x_max * w;
    let y = |v: f64| TOP + h - v / y_max * h;
    let mut svg = frame(title);
    axes(&mut svg, x_label, y_label, x_max, y_max);
    for (i, s) in series.iter().enumerate() {
        let path: Vec<String> = s
            .points
            .iter()
            .map(|p| format!("{:.1},{:.1}", x(p.0), y(p.1)))
            .collect();
        if !path.is_empty() {
            let _ = write!(
                svg,
                r#"<polyline fill="none" stroke="{}" stroke-width="1.8" points="{}"/>"#,
                s.color,
                path.join(" ")
            );
        }
        legend(&mut svg, i, s.label, s.color);
    }
    svg.push_str("</svg>");
    svg
}

fn frame(title: &str) -> String {
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img"><title>{t}</title><text x="{LEFT}" y="18" font-size="14" font-weight="bold">{t}</text>"#,
        t = escape(title)
    )
}

fn axes(svg: &mut String, x_label: &str, y_label: &str, x_max: f64, y_max: f64) {
    let (w, h) = (WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
    for i in 0..=4 {
        let v = y_max * i as f64 / 4.0;
        let py = TOP + h - h * i as f64 / 4.0;
        let _ = write!(
            svg,
            r##"<line x1="{LEFT}" x2="{x2}" y1="{py:.1}" y2="{py:.1}" stroke="#ddd"/><text x="{tx}" y="{ty:.1}" font-size="11" text-anchor="end">{v}</text>"##,
            x2 = LEFT + w,
            tx = LEFT - 4.0,
            ty = py + 4.0,
            v = format_value(v)
        );
        let vx = x_max * i as f64 / 4.0;
        let px = LEFT + w * i as f64 / 4.0;
        let _ = write!(
            svg,
            r#"<text x="{px:.1}" y="{ty}" font-size="11" text-anchor="middle">{v}</text>"#,
            ty = TOP + h + 14.0,
            v = format_value(vx)
        );
    }
    let _ = write!(
        svg,
        r##"<line x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{yb}" stroke="#333"/><line x1="{LEFT}" x2="{xr}" y1="{yb}" y2="{yb}" stroke="#333"/><text x="{xm}" y="{xl}" font-size="11" text-anchor="middle">{xt}</text><text x="12" y="{ym}" font-size="11" text-anchor="middle" transform="rotate(-90 12 {ym})">{yt}</text>"##,
        yb = TOP + h,
        xr = LEFT + w,
        xm = LEFT + w / 2.0,
        xl = HEIGHT - 6.0,
        ym = TOP + h / 2.0,
        xt = escape(x_label),
        yt = escape(y_label)
    );
}

fn legend(svg: &mut String, index: usize, label: &str, color: &str) {
    let lx = WIDTH - RIGHT + 10.0;
    let ly = TOP + 10.0 + 18.0 * index as f64;
    let _ = write!(
        svg,
        r#"<rect x="{lx}" y="{ry}" width="12" height="4" fill="{color}"/><text x="{tx}" y="{ty}" font-size="12">{l}</text>"#,
        ry = ly - 4.0,
        tx = lx + 16.0,
        ty = ly + 1.0,
        l = escape(label)
    );
}

/// 1, 2 or 5 times a power of ten, at least `v` (1 when `v` is 0).
pub fn nice_max(v: f64) -> f64 {
    if !(v.is_finite() && v > 0.0) {
        return 1.0;
    }
    let magnitude = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|m| *m >= v)
        .unwrap_or(10.0 * magnitude)
}

/// A log axis: the whole decades `10^lo..=10^hi` onto the pixels `from..to`
/// (`to` under `from` for a y axis, pixels growing downwards).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogScale {
    lo: i32,
    hi: i32,
    from: f64,
    to: f64,
}

impl LogScale {
    /// The whole decades around `min..=max`, at least one; 1 to 10 when
    /// there is no positive value to show.
    pub fn around(min: f64, max: f64, from: f64, to: f64) -> Self {
        let (min, max) = if min > 0.0 && max >= min && max.is_finite() {
            (min, max)
        } else {
            (1.0, 10.0)
        };
        let lo = min.log10().floor() as i32;
        let hi = (max.log10().ceil() as i32).max(lo + 1);
        Self { lo, hi, from, to }
    }

    /// The pixel of `v` (positive).
    pub fn at(&self, v: f64) -> f64 {
        let t = (v.log10() - f64::from(self.lo)) / f64::from(self.hi - self.lo);
        self.from + t * (self.to - self.from)
    }

    /// Whether `v` lies on the axis (a hair's breadth outside counts).
    pub fn holds(&self, v: f64) -> bool {
        let (low, high) = (10f64.powi(self.lo), 10f64.powi(self.hi));
        v >= low * (1.0 - 1e-9) && v <= high * (1.0 + 1e-9)
    }

    /// Each power of ten from the first to the last: the ticks.
    pub fn decades(&self) -> Vec<f64> {
        (self.lo..=self.hi).map(|e| 10f64.powi(e)).collect()
    }

    /// 2 to 9 times each decade but the last: the light grid lines that
    /// make the scale read as logarithmic.
    pub fn minor(&self) -> Vec<f64> {
        let decades = self.decades();
        let below_last = &decades[..decades.len() - 1];
        below_last
            .iter()
            .flat_map(|d| (2..10).map(move |m| d * f64::from(m)))
            .collect()
    }
}

pub fn format_value(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}

pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_max_rounds_up_to_1_2_5() {
        assert_eq!(nice_max(0.0), 1.0);
        assert_eq!(nice_max(3.2), 5.0);
        assert_eq!(nice_max(510.0), 1000.0);
        assert_eq!(nice_max(200.0), 200.0);
    }

    #[test]
    fn a_log_scale_ticks_at_whole_decades_evenly_spaced() {
        // GIVEN values from 0.3 to 4,000 over pixels 0 to 500
        let scale = LogScale::around(0.3, 4000.0, 0.0, 500.0);
        // THEN the ticks are the decades around them, 0.1 to 10,000
        assert_eq!(scale.decades(), [0.1, 1.0, 10.0, 100.0, 1000.0, 10000.0]);
        // AND each decade is a fifth of the width, whatever its value
        for (i, decade) in scale.decades().iter().enumerate() {
            assert!((scale.at(*decade) - 100.0 * i as f64).abs() < 1e-9);
        }
        // AND 2 to 9 times each decade lie between, 8 per decade
        assert_eq!(scale.minor().len(), 8 * 5);
        assert!((scale.at(20.0) - (200.0 + 100.0 * 2f64.log10())).abs() < 1e-9);
        assert!(scale.holds(10000.0) && !scale.holds(10001.0));
    }

    #[test]
    fn a_log_scale_of_one_value_or_none_still_spans_a_decade() {
        let one = LogScale::around(5.0, 5.0, 0.0, 1.0);
        assert_eq!(one.decades(), [1.0, 10.0]);
        // no positive value: 1 to 10, no panic, no NaN
        let none = LogScale::around(f64::INFINITY, 0.0, 300.0, 0.0);
        assert_eq!(none.decades(), [1.0, 10.0]);
        assert_eq!(none.at(10.0), 0.0);
    }

    #[test]
    fn line_chart_draws_one_polyline_per_series_and_escapes_labels() {
        let svg = line_chart(
            "p95 <latency>",
            "s",
            "ms",
            &[
                Series {
                    label: "p50",
                    color: COLORS[0],
                    points: vec![(1.0, 10.0), (2.0, 20.0)],
                },
                Series {
                    label: "p99",
                    color: COLORS[1],
                    points: vec![(1.0, 30.0)],
                },
            ],
        );
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert!(svg.contains("p95 &lt;latency&gt;"));
    }
}
