//! The run's reports: a self-contained HTML page with inline SVG charts and a
//! Markdown summary, both from `results.json` alone (`bench report` redoes them).

pub mod html;
pub mod markdown;
pub mod svg;

use crate::results::RunRecord;

/// `ms` with no decimals, or a dash when there is no value.
pub fn ms(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.0}"))
}

/// The row title of a record: scenario, variant and setting.
pub fn title(r: &RunRecord) -> String {
    if r.setting.is_empty() || r.setting == "template defaults" {
        format!("{} / {}", r.scenario, r.variant)
    } else {
        format!("{} / {} [{}]", r.scenario, r.variant, r.setting)
    }
}
