//! README.md and the docs name only what a user's clone has: no link or
//! quoted path above the repository (`../shared/...`), none to a file that
//! is not there.

use template_checks::docs::{broken_references, documents};
use template_checks::workspace_root;

#[test]
fn every_document_names_only_files_of_the_repository() {
    // GIVEN the repository's README files and docs
    let root = workspace_root();
    let docs = documents(&root).expect("the repository is readable");
    assert!(docs.len() >= 10, "found only {docs:?}");
    // WHEN each one's links and quoted paths are followed
    let mut broken = Vec::new();
    for doc in &docs {
        let text = std::fs::read_to_string(doc).expect("a document is UTF-8");
        let relative = doc.strip_prefix(&root).expect("inside the root");
        broken.extend(broken_references(&root, relative, &text));
    }
    // THEN every one resolves inside the repository
    let lines: Vec<String> = broken
        .iter()
        .map(|b| {
            format!(
                "{}:{}: `{}` ({:?})",
                b.document.display(),
                b.line,
                b.target,
                b.problem
            )
        })
        .collect();
    assert!(
        lines.is_empty(),
        "references a clone cannot follow:\n{}",
        lines.join("\n")
    );
}
