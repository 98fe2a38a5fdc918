//! A run's files: `results.json` and the reports made from it.

use std::path::Path;

use crate::report;
use crate::results::Results;

/// `results.json`, `report.html` and `summary.md` into `out`.
pub fn write_reports(results: &Results, out: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(out)?;
    std::fs::write(out.join("results.json"), results.to_json()?)?;
    std::fs::write(out.join("report.html"), report::html::render(results))?;
    std::fs::write(out.join("summary.md"), report::markdown::summary(results))?;
    Ok(())
}
