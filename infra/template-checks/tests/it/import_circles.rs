//! Imports point down (docs/architecture.md): no crate of the workspace has
//! two files that import from each other, directly or round a loop.

use template_checks::imports::{circles, crate_roots};
use template_checks::workspace_root;

#[test]
fn no_crate_has_a_file_level_import_circle() {
    // GIVEN every crate root of the workspace
    let root = workspace_root();
    let crates = crate_roots(&root).expect("the workspace is readable");
    assert!(crates.len() >= 29, "found only {crates:?}");
    // WHEN each crate's file-level import graph is drawn
    let mut found = Vec::new();
    for krate in &crates {
        for circle in circles(krate).expect("every file parses") {
            let files: Vec<String> = circle
                .iter()
                .map(|f| f.strip_prefix(&root).unwrap_or(f).display().to_string())
                .collect();
            found.push(files.join(" -> "));
        }
    }
    // THEN it has no circle
    assert!(
        found.is_empty(),
        "{} import circles:\n{}",
        found.len(),
        found.join("\n")
    );
}
