//! A horizontal stacked bar chart as inline SVG: one bar per run, one colour
//! per bill heading, a legend, values in the bar's total. No script.

use std::fmt::Write;

use super::svg::{escape, format_value, nice_max};

/// Colours of the bill headings, in `BILL_HEADINGS` order (then repeated).
const PALETTE: [&str; 8] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#9c755f",
];

const WIDTH: f64 = 1000.0;
const LABEL_W: f64 = 330.0;
const ROW: f64 = 26.0;
const TOP: f64 = 34.0;

/// `bars`: (label, [(segment name, value)]); segment names are the legend,
/// in the order of the first bar.
pub fn stacked_bar_chart(title: &str, unit: &str, bars: &[(String, Vec<(String, f64)>)]) -> String {
    let names: Vec<&str> = bars
        .first()
        .map(|(_, s)| s.iter().map(|(n, _)| n.as_str()).collect())
        .unwrap_or_default();
    let total = |segments: &[(String, f64)]| segments.iter().map(|(_, v)| v.max(0.0)).sum::<f64>();
    let max = nice_max(bars.iter().map(|(_, s)| total(s)).fold(0.0, f64::max));
    let plot_w = WIDTH - LABEL_W - 90.0;
    let legend_top = TOP + ROW * bars.len().max(1) as f64 + 44.0;
    let height = legend_top + 20.0 * names.len().div_ceil(4) as f64 + 10.0;
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" role="img"><title>{t}</title><text x="10" y="18" font-size="14" font-weight="bold">{t}</text>"#,
        t = escape(title)
    );
    axis(&mut svg, max, plot_w, TOP + ROW * bars.len() as f64, unit);
    for (i, (label, segments)) in bars.iter().enumerate() {
        let top = TOP + ROW * i as f64;
        let mut x = LABEL_W;
        let _ = write!(
            svg,
            r#"<text x="{lx}" y="{ty}" font-size="12" text-anchor="end">{l}</text>"#,
            lx = LABEL_W - 6.0,
            ty = top + 13.0,
            l = escape(label)
        );
        for (name, value) in segments.iter().filter(|(_, v)| *v > 0.0) {
            let w = value / max * plot_w;
            let color = color_of(&names, name);
            let _ = write!(
                svg,
                r#"<rect x="{x:.2}" y="{top}" width="{w:.2}" height="18" fill="{color}"><title>{n}: {v} {u}</title></rect>"#,
                n = escape(name),
                v = format_value(*value),
                u = escape(unit)
            );
            x += w;
        }
        let _ = write!(
            svg,
            r#"<text x="{vx:.1}" y="{ty}" font-size="12">{v} {u}</text>"#,
            vx = x + 4.0,
            ty = top + 13.0,
            v = format_value(total(segments)),
            u = escape(unit)
        );
    }
    for (i, name) in names.iter().enumerate() {
        let lx = 10.0 + 240.0 * (i % 4) as f64;
        let ly = legend_top + 20.0 * (i / 4) as f64;
        let _ = write!(
            svg,
            r#"<rect x="{lx}" y="{ry}" width="12" height="12" fill="{c}"/><text x="{tx}" y="{ly}" font-size="12">{n}</text>"#,
            ry = ly - 10.0,
            c = color_of(&names, name),
            tx = lx + 16.0,
            n = escape(name)
        );
    }
    svg.push_str("</svg>");
    svg
}

fn color_of(names: &[&str], name: &str) -> &'static str {
    let i = names.iter().position(|n| *n == name).unwrap_or(0);
    PALETTE[i % PALETTE.len()]
}

/// Ticks at 0, 1/4 ... of `max` under the bars.
fn axis(svg: &mut String, max: f64, plot_w: f64, bottom: f64, unit: &str) {
    for i in 0..=4 {
        let x = LABEL_W + plot_w * f64::from(i) / 4.0;
        let _ = write!(
            svg,
            r##"<line x1="{x:.1}" y1="{TOP}" x2="{x:.1}" y2="{bottom}" stroke="#ddd"/><text x="{x:.1}" y="{ty}" font-size="11" text-anchor="middle">{v}</text>"##,
            ty = bottom + 14.0,
            v = format_value(max * f64::from(i) / 4.0)
        );
    }
    let _ = write!(
        svg,
        r#"<text x="{x:.1}" y="{y}" font-size="11" text-anchor="end">{u}</text>"#,
        x = LABEL_W + plot_w,
        y = bottom + 28.0,
        u = escape(unit)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_non_zero_segment_is_a_rect_and_the_legend_names_every_heading() {
        let bars = vec![
            (
                "direct".to_string(),
                vec![("API".to_string(), 1.0), ("SQS".to_string(), 0.0)],
            ),
            (
                "queue".to_string(),
                vec![("API".to_string(), 1.0), ("SQS".to_string(), 2.4)],
            ),
        ];
        let svg = stacked_bar_chart("cost <by line>", "$", &bars);
        // 3 segments + 2 legend swatches
        assert_eq!(svg.matches("<rect").count(), 5);
        assert!(svg.contains("cost &lt;by line&gt;"));
        assert!(svg.contains(">3.4 $<"), "the queue bar's total");
        assert!(svg.contains("<title>SQS: 2.4 $</title>"));
    }
}
