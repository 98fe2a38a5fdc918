//! The monthly bill as a picture: per question, at one scenario (the one
//! its cost answer reads, chosen by `report::monthly`), each architecture's
//! bill a month (y) against the rate of successful requests (x), both on
//! log scales; on-demand solid, on Lambda Managed Instances dashed in its
//! on-demand self's colour; a dot and its rate where two compared bills
//! cross. Lines are named as the verdict names the architectures. Drawn
//! from the bills `report::monthly` computed for its tables.

use std::fmt::Write;

use costmodel::quantity;

use super::svg::{escape, LogScale, COLORS};
use super::verdict::names::{DIRECT, MICRO_INVOKE, MICRO_QUEUE, MONOLITH, QUEUE};
use crate::break_even::Crossing;
use crate::monthly::{ArchitectureBills, ScenarioBills};

/// One question's bills at one scenario, as lines.
#[derive(Debug, Default)]
pub struct BillChart {
    /// Which scenario is drawn, and why: under the title.
    pub subtitle: String,
    pub lines: Vec<BillLine>,
    pub crossings: Vec<CrossingMark>,
}

/// One architecture's bill at each rate.
#[derive(Debug)]
pub struct BillLine {
    /// The architecture as the verdict names it, and its compute unless
    /// on-demand: "direct Invoke on LMI (c7i.xlarge, modelled)".
    pub label: String,
    /// On Lambda Managed Instances: drawn dashed.
    pub on_lmi: bool,
    /// Its colour, shared by an architecture on-demand and on LMI.
    pub family: usize,
    /// (successful requests per second, USD a month), rates ascending.
    pub points: Vec<(f64, f64)>,
}

/// A rate where the bills of two lines (by label) cross.
#[derive(Debug)]
pub struct CrossingMark {
    pub a: String,
    pub b: String,
    pub rate: f64,
}

/// What the chart shows, over it.
pub const TITLE: &str = "USD a month against successful requests per second, both on log scales";
/// How to read it, under the title.
const KEY: &str = "solid: on-demand; dashed: on Lambda Managed Instances, in its on-demand colour; a dot: where two bills compared cross";
/// The rates shown whatever the crossings: the table's, a decade either side.
const FOCUS: (f64, f64) = (0.1, 10_000.0);
const WIDTH: f64 = 960.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 24.0;
const TOP: f64 = 64.0;
const PLOT_HEIGHT: f64 = 380.0;
/// Under the plot: the tick labels and the x axis's title.
const AXIS_HEIGHT: f64 = 44.0;
const LEGEND_ROW: f64 = 18.0;
/// A tick or crossing label's character, roughly, at 11 px.
const CHAR_WIDTH: f64 = 6.2;
/// Dots nearer each other than this many pixels read as one place: a label
/// by one is by all of them.
const SAME_PLACE: f64 = 10.0;
/// How much nearer its own dot than any other a label must be, in pixels.
const CLEARLY: f64 = 4.0;

impl BillChart {
    /// A scenario's architectures, named as the verdict names them, and
    /// the crossings of the pairs compared; `subtitle` says which scenario.
    pub fn of(scenario: &ScenarioBills, subtitle: String) -> Self {
        let mut chart = Self {
            subtitle,
            ..Self::default()
        };
        chart.add(scenario);
        chart
    }

    fn add(&mut self, scenario: &ScenarioBills) {
        let families = self.families(scenario);
        for (run, family) in scenario.architectures.iter().zip(families) {
            self.lines.push(BillLine {
                label: named(&run.architecture),
                on_lmi: on_lmi(run),
                family,
                points: run
                    .bills
                    .iter()
                    .map(|b| (b.requests_per_second, b.total_usd))
                    .collect(),
            });
        }
        for pair in &scenario.break_even {
            if let Crossing::At { rates, .. } = &pair.crossing {
                self.crossings.extend(rates.iter().map(|rate| CrossingMark {
                    a: named(&pair.a),
                    b: named(&pair.b),
                    rate: *rate,
                }));
            }
        }
    }

    /// A new colour per on-demand architecture; on LMI, the colour of the
    /// on-demand self it was compared with (else a new one).
    fn families(&self, scenario: &ScenarioBills) -> Vec<usize> {
        let runs = &scenario.architectures;
        let first = self.lines.iter().map(|l| l.family + 1).max().unwrap_or(0);
        let on_demand: Vec<&str> = runs
            .iter()
            .filter(|r| !on_lmi(r))
            .map(|r| r.architecture.as_str())
            .collect();
        let mut unpaired = first + on_demand.len();
        let own = |run: &ArchitectureBills| on_demand.iter().position(|a| *a == run.architecture);
        let mut family = |run: &ArchitectureBills| match own(run)
            .or_else(|| other_self(scenario, run, &on_demand))
        {
            Some(index) => first + index,
            None => {
                unpaired += 1;
                unpaired - 1
            }
        };
        runs.iter().map(&mut family).collect()
    }

    /// The chart as inline SVG; nothing when there is no bill to draw.
    pub fn svg(&self, title: &str) -> String {
        let Some(plot) = Plot::of(self) else {
            return String::new();
        };
        let legend_rows = self.lines.len().div_ceil(2) as f64;
        let height = TOP + PLOT_HEIGHT + AXIS_HEIGHT + legend_rows * LEGEND_ROW + 12.0;
        let mut svg = format!(
            r##"<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" role="img"><title>{t}, {s}</title><text x="{LEFT}" y="18" font-size="14" font-weight="bold">{t}</text><text x="{LEFT}" y="35" font-size="12">{s}</text><text x="{LEFT}" y="52" font-size="12" fill="#555">{KEY}</text>"##,
            t = escape(title),
            s = escape(&self.subtitle)
        );
        plot.grid(&mut svg);
        for line in &self.lines {
            plot.line(&mut svg, line);
        }
        plot.crossings(&mut svg, self);
        plot.legend(&mut svg, &self.lines);
        svg.push_str("</svg>");
        svg
    }

    fn line(&self, label: &str) -> Option<&BillLine> {
        self.lines.iter().find(|l| l.label == label)
    }
}

/// Of `on_demand`, the one `run` was compared with: its other self (on the
/// other compute, only the same architecture is compared).
fn other_self(
    scenario: &ScenarioBills,
    run: &ArchitectureBills,
    on_demand: &[&str],
) -> Option<usize> {
    scenario.break_even.iter().find_map(|pair| {
        let other = if pair.a == run.architecture {
            &pair.b
        } else if pair.b == run.architecture {
            &pair.a
        } else {
            return None;
        };
        on_demand.iter().position(|a| a == other)
    })
}

/// `architecture` as the verdict names it: "orders-direct on LMI
/// (c7i.xlarge, modelled)" is "direct Invoke on LMI (c7i.xlarge, modelled)";
/// a variant the verdict does not name keeps its own name.
fn named(architecture: &str) -> String {
    let names = [DIRECT, QUEUE, MONOLITH, MICRO_INVOKE, MICRO_QUEUE];
    names
        .into_iter()
        .find_map(|(variant, name)| {
            let rest = architecture.strip_prefix(variant)?;
            (rest.is_empty() || rest.starts_with(' ')).then(|| format!("{name}{rest}"))
        })
        .unwrap_or_else(|| architecture.to_string())
}

fn on_lmi(run: &ArchitectureBills) -> bool {
    run.bills.first().is_some_and(|b| b.fleet.is_some())
}

/// The chart's two log axes.
struct Plot {
    x: LogScale,
    y: LogScale,
}

impl Plot {
    /// The focus rates, widened to every crossing the lines reach; the
    /// dollars of the lines there. `None` without a positive bill.
    fn of(chart: &BillChart) -> Option<Self> {
        let rates = chart
            .lines
            .iter()
            .flat_map(|l| l.points.iter().map(|p| p.0));
        let (first, last) = (
            rates.clone().fold(f64::MAX, f64::min),
            rates.fold(0.0, f64::max),
        );
        let crossings = chart.crossings.iter().map(|c| c.rate);
        let low = crossings.clone().fold(FOCUS.0, f64::min).max(first);
        let high = crossings.fold(FOCUS.1, f64::max).min(last);
        let x = LogScale::around(low, high, LEFT, WIDTH - RIGHT);
        let dollars = chart
            .lines
            .iter()
            .flat_map(|l| &l.points)
            .filter(|(rate, usd)| x.holds(*rate) && *usd > 0.0)
            .map(|p| p.1);
        let (min, max) = (
            dollars.clone().fold(f64::MAX, f64::min),
            dollars.fold(0.0, f64::max),
        );
        if max <= 0.0 {
            return None;
        }
        let y = LogScale::around(min, max, TOP + PLOT_HEIGHT, TOP);
        Some(Self { x, y })
    }

    /// Light lines at 2 to 9 times each decade, darker at the decades
    /// with their labels, the axes and their titles.
    fn grid(&self, svg: &mut String) {
        let (right, bottom) = (WIDTH - RIGHT, TOP + PLOT_HEIGHT);
        for (px, strong) in self.ticks(&self.x) {
            let stroke = if strong { "#ccc" } else { "#eee" };
            let _ = write!(
                svg,
                r#"<line x1="{px:.1}" x2="{px:.1}" y1="{TOP}" y2="{bottom}" stroke="{stroke}"/>"#
            );
        }
        for (py, strong) in self.ticks(&self.y) {
            let stroke = if strong { "#ccc" } else { "#eee" };
            let _ = write!(
                svg,
                r#"<line x1="{LEFT}" x2="{right}" y1="{py:.1}" y2="{py:.1}" stroke="{stroke}"/>"#
            );
        }
        for rate in self.x.decades() {
            let _ = write!(
                svg,
                r#"<text x="{:.1}" y="{}" font-size="11" text-anchor="middle">{}</text>"#,
                self.x.at(rate),
                bottom + 15.0,
                quantity(rate)
            );
        }
        for usd in self.y.decades() {
            let _ = write!(
                svg,
                r#"<text x="{}" y="{:.1}" font-size="11" text-anchor="end">${}</text>"#,
                LEFT - 5.0,
                self.y.at(usd) + 4.0,
                quantity(usd)
            );
        }
        let (middle_x, middle_y) = ((LEFT + right) / 2.0, TOP + PLOT_HEIGHT / 2.0);
        let _ = write!(
            svg,
            r##"<line x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{bottom}" stroke="#333"/><line x1="{LEFT}" x2="{right}" y1="{bottom}" y2="{bottom}" stroke="#333"/><text x="{middle_x}" y="{}" font-size="12" text-anchor="middle">successful requests per second (log scale)</text><text x="16" y="{middle_y}" font-size="12" text-anchor="middle" transform="rotate(-90 16 {middle_y})">USD a month, without the free tier (log scale)</text>"##,
            bottom + 34.0
        );
    }

    /// Each grid line's pixel, and whether it is a decade's.
    fn ticks(&self, scale: &LogScale) -> Vec<(f64, bool)> {
        let minor = scale.minor().into_iter().map(|v| (scale.at(v), false));
        minor
            .chain(scale.decades().into_iter().map(|v| (scale.at(v), true)))
            .collect()
    }

    fn line(&self, svg: &mut String, line: &BillLine) {
        let points: Vec<String> = line
            .points
            .iter()
            .filter(|(rate, usd)| self.x.holds(*rate) && *usd > 0.0)
            .map(|(rate, usd)| format!("{:.1},{:.1}", self.x.at(*rate), self.y.at(*usd)))
            .collect();
        let dash = if line.on_lmi {
            r#" stroke-dasharray="7 4""#
        } else {
            ""
        };
        let _ = write!(
            svg,
            r#"<polyline fill="none" stroke="{}" stroke-width="2"{dash} points="{}"><title>{}</title></polyline>"#,
            color(line.family),
            points.join(" "),
            escape(&line.label)
        );
    }

    /// A dot at each crossing the lines reach, labelled with its rate where
    /// the label neither covers another nor sits by another dot (the list
    /// under the chart has all), once where two pairs' bills cross at the
    /// same point.
    fn crossings(&self, svg: &mut String, chart: &BillChart) {
        let marks = chart.crossings.iter();
        let dots: Vec<(&CrossingMark, f64, f64)> = marks
            .filter_map(|mark| self.dot(chart, mark).map(|(px, py)| (mark, px, py)))
            .collect();
        let places: Vec<(f64, f64)> = dots.iter().map(|(_, px, py)| (*px, *py)).collect();
        let mut taken: Vec<Label> = Vec::new();
        let mut labelled: Vec<(f64, f64, String)> = Vec::new();
        for (mark, px, py) in dots {
            let text = format!("{} req/s", rate_label(mark.rate));
            let _ = write!(
                svg,
                r##"<circle cx="{px:.1}" cy="{py:.1}" r="4" fill="#222" stroke="#fff" stroke-width="1.5"><title>{} and {} cross at {text}</title></circle>"##,
                escape(&mark.a),
                escape(&mark.b),
            );
            let same = |(x, y, t): &(f64, f64, String)| (x - px).hypot(y - py) < 3.0 && *t == text;
            if labelled.iter().any(same) {
                continue;
            }
            if let Some(label) = Label::free((px, py), &text, &taken, &places) {
                let _ = write!(
                    svg,
                    r##"<text x="{:.1}" y="{:.1}" font-size="11" text-anchor="{}" stroke="#fff" stroke-width="3" paint-order="stroke">{text}</text>"##,
                    label.x, label.y, label.anchor
                );
                taken.push(label);
                labelled.push((px, py, text));
            }
        }
    }

    /// Where `mark` is drawn: at its rate, between its two lines as drawn
    /// (they meet there within a pixel); `None` off the chart.
    fn dot(&self, chart: &BillChart, mark: &CrossingMark) -> Option<(f64, f64)> {
        let (a, b) = (chart.line(&mark.a)?, chart.line(&mark.b)?);
        let usd = (usd_at(a, mark.rate)? * usd_at(b, mark.rate)?).sqrt();
        self.x
            .holds(mark.rate)
            .then(|| (self.x.at(mark.rate), self.y.at(usd)))
    }

    /// Under the axis: a sample of each line and its label, two a row.
    fn legend(&self, svg: &mut String, lines: &[BillLine]) {
        let top = TOP + PLOT_HEIGHT + AXIS_HEIGHT + 10.0;
        let column = (WIDTH - LEFT - RIGHT) / 2.0;
        for (i, line) in lines.iter().enumerate() {
            let lx = LEFT + column * (i % 2) as f64;
            let ly = top + LEGEND_ROW * (i / 2) as f64;
            let dash = if line.on_lmi {
                r#" stroke-dasharray="7 4""#
            } else {
                ""
            };
            let _ = write!(
                svg,
                r#"<line x1="{lx}" x2="{}" y1="{ly}" y2="{ly}" stroke="{}" stroke-width="2"{dash}/><text x="{}" y="{}" font-size="12">{}</text>"#,
                lx + 28.0,
                color(line.family),
                lx + 34.0,
                ly + 4.0,
                escape(&line.label)
            );
        }
    }
}

/// A placed crossing label, its box for the next ones to avoid.
struct Label {
    x: f64,
    y: f64,
    anchor: &'static str,
    left: f64,
    right: f64,
}

impl Label {
    /// The first of a few places around the dot clear of `taken`, and
    /// nearer its own dot than any other of `dots` it could be read as
    /// labelling (those within [`SAME_PLACE`] of it are read as one).
    fn free(
        (px, py): (f64, f64),
        text: &str,
        taken: &[Label],
        dots: &[(f64, f64)],
    ) -> Option<Label> {
        let width = text.len() as f64 * CHAR_WIDTH;
        let places = [
            (7.0, -8.0),
            (7.0, 16.0),
            (-7.0, -8.0),
            (-7.0, 16.0),
            (7.0, -22.0),
            (7.0, 30.0),
        ];
        places.into_iter().find_map(|(dx, dy)| {
            let (x, y) = (px + dx, py + dy);
            let (left, anchor) = if dx > 0.0 {
                (x, "start")
            } else {
                (x - width, "end")
            };
            let label = Label {
                x,
                y,
                anchor,
                left,
                right: left + width,
            };
            let inside = left >= LEFT
                && label.right <= WIDTH - RIGHT
                && y - 11.0 >= TOP
                && y <= TOP + PLOT_HEIGHT;
            let own = label.distance(px, py);
            let by_another = dots.iter().any(|&(qx, qy)| {
                (qx - px).hypot(qy - py) > SAME_PLACE && label.distance(qx, qy) < own + CLEARLY
            });
            let clear = !taken.iter().any(|t| label.covers(t)) && !by_another;
            (inside && clear).then_some(label)
        })
    }

    fn covers(&self, other: &Label) -> bool {
        self.left < other.right && other.left < self.right && (self.y - other.y).abs() < 13.0
    }

    /// From (`x`, `y`) to the nearest point of the label's text, 11 px high
    /// over its baseline.
    fn distance(&self, x: f64, y: f64) -> f64 {
        let dx = (self.left - x).max(x - self.right).max(0.0);
        let dy = (self.y - 11.0 - y).max(y - self.y).max(0.0);
        dx.hypot(dy)
    }
}

/// The bill of `line` at `rate`, straight between its points on the log
/// scales (as drawn); `None` outside them.
fn usd_at(line: &BillLine, rate: f64) -> Option<f64> {
    let segment = line
        .points
        .windows(2)
        .find(|w| w[0].0 <= rate && rate <= w[1].0)?;
    let ((x0, y0), (x1, y1)) = (segment[0], segment[1]);
    if y0 <= 0.0 || y1 <= 0.0 || x1 <= x0 {
        return (y0 > 0.0).then_some(y0);
    }
    let t = (rate / x0).ln() / (x1 / x0).ln();
    Some((y0.ln() + t * (y1 / y0).ln()).exp())
}

/// Three significant figures: "12.4", "0.0512", "1,240".
fn rate_label(rate: f64) -> String {
    let magnitude = rate.log10().floor() as i32;
    if magnitude >= 2 {
        let unit = 10f64.powi(magnitude - 2);
        return quantity((rate / unit).round() * unit);
    }
    let decimals = (2 - magnitude) as usize;
    format!("{rate:.decimals$}")
}

fn color(family: usize) -> &'static str {
    COLORS[family % COLORS.len()]
}

#[cfg(test)]
#[path = "monthly_chart_tests.rs"]
mod tests;
