//! The run's reports: a self-contained HTML page with inline SVG charts and a
//! Markdown summary, both from `results.json` alone (`bench report` redoes them).

pub mod answers;
pub mod html;
pub mod ledger;
pub mod markdown;
pub mod stacked;
pub mod svg;

use crate::results::{RecordKind, RunRecord};

/// `ms` with no decimals, or a dash when there is no value.
pub fn ms(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.0}"))
}

/// A variant and, when not an HTTP API, its front door.
pub fn variant_label(variant: &str, api: crate::apis::ApiKind) -> String {
    format!("{variant}{}", crate::apis::title_note(api))
}

/// The row title of a record: scenario, variant (and its front door when not
/// an HTTP API) and setting; capacity steps also name their number of users,
/// the one thing that tells them apart.
pub fn title(r: &RunRecord) -> String {
    let mut title = format!("{} / {}", r.scenario, variant_label(&r.variant, r.api));
    if r.kind == RecordKind::Capacity {
        let users = r
            .load
            .shape
            .steps
            .iter()
            .map(|s| s.users)
            .max()
            .unwrap_or(0);
        title.push_str(&format!(" @ {users} users"));
    }
    if !r.setting.is_empty() && r.setting != "template defaults" {
        title.push_str(&format!(" [{}]", r.setting));
    }
    title
}
