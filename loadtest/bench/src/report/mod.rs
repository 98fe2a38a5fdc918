//! The run's reports: a self-contained HTML page with inline SVG charts and a
//! Markdown summary, both from `results.json` alone (`bench report` redoes them).

pub mod answers;
pub mod compute_table;
pub mod cpu_share;
pub mod html;
pub mod iam;
pub mod ledger;
pub mod markdown;
pub mod monthly;
pub mod monthly_chart;
pub mod readme;
pub mod run_row;
pub mod stacked;
pub mod svg;
pub mod verdict;

use crate::results::{RecordKind, RunRecord};

/// `ms` with no decimals, or a dash when there is no value.
pub fn ms(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.0}"))
}

/// A CPU figure per request, to the hundredth of a millisecond, or a dash.
pub fn per_request(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.2}"))
}

/// The run tables' CPU headers: the functions' CPU per request, then the
/// same without Argon2id's (password hashing, which depends on the logins).
pub const CPU_HEADERS: [&str; 3] = [
    "fn CPU ms/req",
    "fn CPU ms/req excl. Argon2id",
    "local cloud CPU ms/req",
];

/// The cells under [`CPU_HEADERS`].
pub fn cpu_cells(r: &RunRecord) -> [String; 3] {
    [
        per_request(r.cpu.functions_ms_per_request),
        per_request(r.cpu.functions_ms_per_request_excluding_argon2),
        per_request(r.cpu.localcloud_ms_per_request),
    ]
}

/// The row title of a record: scenario, variant (and its front door when not
/// an HTTP API) and setting; capacity steps also name their number of users,
/// the one thing that tells them apart.
pub fn title(r: &RunRecord) -> String {
    let mut title = format!("{} / {}", r.scenario, r.pass().label(&r.variant));
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
