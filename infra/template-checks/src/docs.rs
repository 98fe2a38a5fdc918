//! The repository's documents name only what a user's clone has: every
//! relative link and every quoted repository path resolves inside the
//! repository, and none points above it (`../shared/...` is on the
//! developers' machines, not in a clone).

use std::path::{Component, Path, PathBuf};

/// Files a document may name that exist only after a command has run.
const GENERATED: &[&str] = &["localstack/outputs.json", "localstack/resources.json"];

/// A reference a document makes that a clone cannot follow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokenReference {
    pub document: PathBuf,
    pub line: usize,
    pub target: String,
    pub problem: Problem,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problem {
    /// Above the repository's root, or an absolute path of one machine.
    OutsideTheRepository,
    /// Inside it, but no such file or folder.
    Missing,
}

/// README.md, every `docs/*.md` and every other README of the repository
/// (outside `target/` and `node_modules/`).
pub fn documents(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    collect(root, root, &mut found)?;
    found.sort();
    Ok(found)
}

fn collect(root: &Path, dir: &Path, found: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            let skipped = name.starts_with('.') && name != ".ci"
                || matches!(name, "target" | "node_modules" | "reports");
            if !skipped {
                collect(root, &path, found)?;
            }
        } else if name == "README.md"
            || (name.ends_with(".md") && path.parent() == Some(&root.join("docs")))
        {
            found.push(path);
        }
    }
    Ok(())
}

/// The references of one document that a clone at `root` cannot follow;
/// `document` is the document's path relative to `root`.
pub fn broken_references(root: &Path, document: &Path, text: &str) -> Vec<BrokenReference> {
    let top_folders = top_folders(root);
    let base = document.parent().unwrap_or(Path::new(""));
    let mut broken = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let mut check = |target: &str, relative_to: &Path| {
            let problem = if points_outside(target, relative_to) {
                Some(Problem::OutsideTheRepository)
            } else if !GENERATED.contains(&target) && !root.join(relative_to).join(target).exists()
            {
                Some(Problem::Missing)
            } else {
                None
            };
            if let Some(problem) = problem {
                broken.push(BrokenReference {
                    document: document.to_path_buf(),
                    line: index + 1,
                    target: target.to_string(),
                    problem,
                });
            }
        };
        for target in link_targets(line) {
            check(&target, base);
        }
        for path in quoted_paths(line, &top_folders) {
            check(&path, Path::new(""));
        }
    }
    broken
}

/// Relative targets of `[text](target)` links, without their `#anchor`;
/// URLs and in-page anchors are not files.
fn link_targets(line: &str) -> Vec<String> {
    line.match_indices("](")
        .filter_map(|(at, _)| {
            let rest = &line[at + 2..];
            let target = &rest[..rest.find(')')?];
            let target = target.split('#').next().unwrap_or("");
            let is_file =
                !target.is_empty() && !target.contains("://") && !target.starts_with("mailto:");
            is_file.then(|| target.to_string())
        })
        .collect()
}

/// Paths in `code spans` that name a place of the repository (they start
/// with one of its top folders) or a place outside it (`../`, `/work`,
/// `/home`), without a `:line` suffix; templates (`<x>`, `{a,b}`, `*`, `$X`)
/// and names without a slash are not paths.
fn quoted_paths(line: &str, top_folders: &[String]) -> Vec<String> {
    line.split('`')
        .skip(1)
        .step_by(2)
        .filter(|span| !span.contains(char::is_whitespace) && span.contains('/'))
        .filter(|span| !span.contains(['<', '>', '{', '}', '*', '$', '|']))
        .map(|span| {
            span.split(':')
                .next()
                .unwrap_or(span)
                .trim_end_matches([',', '.'])
        })
        .filter(|path| {
            let first = path.split('/').next().unwrap_or("");
            let names_a_file = path
                .rsplit('/')
                .next()
                .is_some_and(|last| last.contains('.'))
                || path.ends_with('/');
            path.starts_with("../")
                || path.starts_with("/work")
                || path.starts_with("/home")
                || (names_a_file && top_folders.iter().any(|top| top == first))
        })
        .map(str::to_string)
        .collect()
}

fn points_outside(target: &str, relative_to: &Path) -> bool {
    if target.starts_with('/') {
        return true;
    }
    let mut depth: i32 = relative_to.components().count() as i32;
    for component in Path::new(target).components() {
        match component {
            Component::ParentDir => depth -= 1,
            Component::Normal(_) => depth += 1,
            _ => {}
        }
        if depth < 0 {
            return true;
        }
    }
    false
}

fn top_folders(root: &Path) -> Vec<String> {
    std::fs::read_dir(root)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| e.path().is_dir())
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|name| !matches!(name.as_str(), "target" | "reports" | ".git"))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repository() -> tempfile::TempDir {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("docs")).unwrap();
        std::fs::create_dir_all(root.path().join("infra/x/src")).unwrap();
        std::fs::write(root.path().join("docs/bench.md"), "").unwrap();
        std::fs::write(root.path().join("infra/x/src/lib.rs"), "").unwrap();
        root
    }

    fn targets(root: &Path, document: &str, text: &str) -> Vec<(String, Problem)> {
        broken_references(root, Path::new(document), text)
            .into_iter()
            .map(|b| (b.target, b.problem))
            .collect()
    }

    #[test]
    fn a_path_above_the_repository_is_outside_it() {
        // GIVEN a README naming the developers' shared folder, quoted and linked
        let root = repository();
        let text = "See `../shared/reference/experiments.md` and [x](../shared/a.md).";
        // WHEN its references are checked
        let found = targets(root.path(), "README.md", text);
        // THEN both are outside the repository
        assert_eq!(
            found,
            vec![
                ("../shared/a.md".to_string(), Problem::OutsideTheRepository),
                (
                    "../shared/reference/experiments.md".to_string(),
                    Problem::OutsideTheRepository
                ),
            ]
        );
    }

    #[test]
    fn a_relative_link_resolves_from_its_document() {
        // GIVEN a doc linking a sibling and a file of the repository above it
        let root = repository();
        let text = "[bench](bench.md#modes), [lib](../infra/x/src/lib.rs), [gone](gone.md)";
        // WHEN checked
        let found = targets(root.path(), "docs/results.md", text);
        // THEN only the missing file is reported
        assert_eq!(found, vec![("gone.md".to_string(), Problem::Missing)]);
    }

    #[test]
    fn quoted_repository_paths_must_exist_and_templates_and_urls_are_not_paths() {
        // GIVEN quoted paths: one that exists, with a line number, one that
        // does not, a template, a command, an image name and an absolute path
        let root = repository();
        let text = "`infra/x/src/lib.rs:12`, `infra/x/src/gone.rs`, `infra/<crate>/src/a.rs`, \
                    `cargo run -p x`, `infra/image-name`, `/work/main/docs/bench.md`, \
                    <https://example.com/a.md>";
        // WHEN checked
        let found = targets(root.path(), "docs/bench.md", text);
        // THEN the missing file and the machine's absolute path are reported
        assert_eq!(
            found,
            vec![
                ("infra/x/src/gone.rs".to_string(), Problem::Missing),
                (
                    "/work/main/docs/bench.md".to_string(),
                    Problem::OutsideTheRepository
                ),
            ]
        );
    }

    #[test]
    fn documents_are_the_readmes_and_the_docs_folder() {
        // GIVEN a repository with docs, a crate README and a build folder
        let root = repository();
        std::fs::write(root.path().join("README.md"), "").unwrap();
        std::fs::write(root.path().join("infra/x/README.md"), "").unwrap();
        std::fs::write(root.path().join("infra/x/NOTES.md"), "").unwrap();
        std::fs::create_dir_all(root.path().join("target/doc")).unwrap();
        std::fs::write(root.path().join("target/doc/README.md"), "").unwrap();
        // WHEN the documents are listed
        let found: Vec<PathBuf> = documents(root.path())
            .unwrap()
            .into_iter()
            .map(|p| p.strip_prefix(root.path()).unwrap().to_path_buf())
            .collect();
        // THEN README.md, docs/*.md and other READMEs, not the build's
        assert_eq!(
            found,
            vec![
                PathBuf::from("README.md"),
                PathBuf::from("docs/bench.md"),
                PathBuf::from("infra/x/README.md"),
            ]
        );
    }
}
