//! Imports point down: the file-level import graph of each crate, and its
//! circles (docs/architecture.md, "Layers").
//!
//! A file imports another when one of its paths (`use` trees, and paths in
//! types and expressions) names an item of a module the other file holds:
//! `crate::a::B`, `super::B`, `self::a::B` or `a::B` with `a` a child module.
//! A name the target re-exports with `pub use` is followed to the file that
//! defines it, so a crate root that only declares and re-exports modules is
//! not a hub every circle runs through. Declaring a module (`mod a;`) is not
//! an import of it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

#[derive(Debug, thiserror::Error)]
pub enum ImportsError {
    #[error("{0}: {1}")]
    Read(PathBuf, std::io::Error),
    #[error("{0}: not Rust that syn parses: {1}")]
    Parse(PathBuf, syn::Error),
}

/// One module of a crate: the file that holds it, the modules it declares
/// and the names it re-exports (`pub use path::Name`).
#[derive(Debug, Default)]
struct Module {
    file: PathBuf,
    children: BTreeSet<String>,
    reexports: BTreeMap<String, Vec<String>>,
}

/// A crate's modules by path (`[]` is the crate root), and each file's paths.
#[derive(Debug, Default)]
struct Crate {
    modules: BTreeMap<Vec<String>, Module>,
    /// (file, the module the path is written in, the path's segments)
    references: Vec<(PathBuf, Vec<String>, Vec<String>)>,
}

/// The import circles of the crate whose root file is `root_file` (its
/// `src/lib.rs` or `src/main.rs`): each one the files of a strongly
/// connected component of two or more files, sorted.
pub fn circles(root_file: &Path) -> Result<Vec<Vec<PathBuf>>, ImportsError> {
    let mut krate = Crate::default();
    load(&mut krate, root_file, Vec::new())?;
    Ok(strongly_connected(&edges(&krate)))
}

/// Every crate root of the workspace at `root`: `src/lib.rs` and
/// `src/main.rs` of each folder with a `Cargo.toml` (outside `target/`).
pub fn crate_roots(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    find_crates(root, &mut found)?;
    found.sort();
    Ok(found)
}

fn find_crates(dir: &Path, found: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if dir.join("Cargo.toml").is_file() {
        for root in ["src/lib.rs", "src/main.rs"] {
            if dir.join(root).is_file() {
                found.push(dir.join(root));
            }
        }
    }
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let skipped = name.starts_with('.') || matches!(name, "target" | "node_modules" | "src");
        if path.is_dir() && !skipped {
            find_crates(&path, found)?;
        }
    }
    Ok(())
}

/// Reads the module held by `file` and, recursively, the ones it declares.
fn load(krate: &mut Crate, file: &Path, module: Vec<String>) -> Result<(), ImportsError> {
    let text = std::fs::read_to_string(file).map_err(|e| ImportsError::Read(file.into(), e))?;
    let parsed = syn::parse_file(&text).map_err(|e| ImportsError::Parse(file.into(), e))?;
    let mut reader = FileReader {
        file: file.to_path_buf(),
        children_dir: children_dir(file),
        module: module.clone(),
        modules: BTreeMap::new(),
        declared_files: Vec::new(),
        references: Vec::new(),
    };
    reader.modules.insert(
        module,
        Module {
            file: file.into(),
            ..Module::default()
        },
    );
    reader.visit_file(&parsed);
    let FileReader {
        modules,
        declared_files,
        references,
        ..
    } = reader;
    krate.modules.extend(modules);
    krate.references.extend(references);
    for (child_file, child_module) in declared_files {
        load(krate, &child_file, child_module)?;
    }
    Ok(())
}

/// Where the files of the modules `file` declares are: beside a crate root
/// or `mod.rs`, in a folder of the file's name otherwise.
fn children_dir(file: &Path) -> PathBuf {
    let parent = file.parent().unwrap_or(Path::new("")).to_path_buf();
    match file.file_name().and_then(|n| n.to_str()) {
        Some("lib.rs" | "main.rs" | "mod.rs") => parent,
        _ => parent.join(file.file_stem().unwrap_or_default()),
    }
}

struct FileReader {
    file: PathBuf,
    children_dir: PathBuf,
    module: Vec<String>,
    modules: BTreeMap<Vec<String>, Module>,
    declared_files: Vec<(PathBuf, Vec<String>)>,
    references: Vec<(PathBuf, Vec<String>, Vec<String>)>,
}

impl FileReader {
    fn current(&mut self) -> &mut Module {
        self.modules.entry(self.module.clone()).or_default()
    }

    fn refer(&mut self, segments: Vec<String>) {
        self.references
            .push((self.file.clone(), self.module.clone(), segments));
    }
}

impl<'ast> Visit<'ast> for FileReader {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        let name = item.ident.to_string();
        self.current().children.insert(name.clone());
        let mut child = self.module.clone();
        child.push(name.clone());
        match &item.content {
            Some(_) => {
                // An inline module: same file, its own scope for `super`.
                let outer = std::mem::replace(&mut self.module, child.clone());
                let file = self.file.clone();
                self.current().file = file;
                let outer_dir = self.children_dir.clone();
                self.children_dir = outer_dir.join(&name);
                syn::visit::visit_item_mod(self, item);
                self.children_dir = outer_dir;
                self.module = outer;
            }
            None => {
                let file = path_attribute(&item.attrs)
                    .map(|p| self.file.parent().unwrap_or(Path::new("")).join(p))
                    .unwrap_or_else(|| {
                        let flat = self.children_dir.join(format!("{name}.rs"));
                        if flat.is_file() {
                            flat
                        } else {
                            self.children_dir.join(&name).join("mod.rs")
                        }
                    });
                self.declared_files.push((file, child));
            }
        }
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let mut flattened = Vec::new();
        flatten(&item.tree, Vec::new(), &mut flattened);
        let public = !matches!(item.vis, syn::Visibility::Inherited);
        for (name, segments) in flattened {
            if public {
                if let Some(name) = name {
                    self.current().reexports.insert(name, segments.clone());
                }
            }
            self.refer(segments);
        }
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        // A macro's arguments are tokens to syn: paths in `format!(...)` or
        // `json!(...)` are found by their `::` separators.
        for segments in token_paths(mac.tokens.clone()) {
            self.refer(segments);
        }
        syn::visit::visit_macro(self, mac);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.segments.len() > 1 {
            self.refer(path.segments.iter().map(|s| s.ident.to_string()).collect());
        }
        syn::visit::visit_path(self, path);
    }
}

/// The `a::b::c` sequences of a token stream, in groups too.
fn token_paths(tokens: proc_macro2::TokenStream) -> Vec<Vec<String>> {
    use proc_macro2::TokenTree;
    fn finish(current: &mut Vec<String>, found: &mut Vec<Vec<String>>) {
        let path = std::mem::take(current);
        if path.len() > 1 {
            found.push(path);
        }
    }
    let mut found = Vec::new();
    let mut current: Vec<String> = Vec::new();
    let mut colons = 0;
    for token in tokens {
        match token {
            TokenTree::Ident(ident) if colons == 2 => {
                current.push(ident.to_string());
                colons = 0;
            }
            TokenTree::Punct(p) if p.as_char() == ':' && !current.is_empty() && colons < 2 => {
                colons += 1
            }
            TokenTree::Ident(ident) => {
                finish(&mut current, &mut found);
                current.push(ident.to_string());
                colons = 0;
            }
            TokenTree::Group(group) => {
                finish(&mut current, &mut found);
                found.extend(token_paths(group.stream()));
                colons = 0;
            }
            TokenTree::Punct(_) | TokenTree::Literal(_) => {
                finish(&mut current, &mut found);
                colons = 0;
            }
        }
    }
    finish(&mut current, &mut found);
    found
}

/// `#[path = "x.rs"]`
fn path_attribute(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|attr| match &attr.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// A use tree as (the name it binds, the full path) pairs; a glob binds none.
fn flatten(tree: &syn::UseTree, prefix: Vec<String>, out: &mut Vec<(Option<String>, Vec<String>)>) {
    let with = |ident: &syn::Ident| {
        let mut p = prefix.clone();
        p.push(ident.to_string());
        p
    };
    match tree {
        syn::UseTree::Path(p) => flatten(&p.tree, with(&p.ident), out),
        syn::UseTree::Name(n) if n.ident == "self" => {
            out.push((prefix.last().cloned(), prefix.clone()));
        }
        syn::UseTree::Name(n) => out.push((Some(n.ident.to_string()), with(&n.ident))),
        syn::UseTree::Rename(r) => out.push((Some(r.rename.to_string()), with(&r.ident))),
        syn::UseTree::Glob(_) => out.push((None, prefix)),
        syn::UseTree::Group(g) => {
            for tree in &g.items {
                flatten(tree, prefix.clone(), out);
            }
        }
    }
}

/// File -> the files it imports from.
fn edges(krate: &Crate) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let mut edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for (file, module, segments) in &krate.references {
        if let Some(target) = resolve(krate, module, segments, 0) {
            if &target != file {
                edges.entry(file.clone()).or_default().insert(target);
            }
        }
    }
    edges
}

/// The file that defines what `segments`, written in `module`, names; None
/// when it is not of this crate (another crate, a local, a std item).
fn resolve(krate: &Crate, module: &[String], segments: &[String], depth: usize) -> Option<PathBuf> {
    let mut start: Vec<String> = module.to_vec();
    let mut rest = segments;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            start.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        Some("super") => {
            while rest.first().map(String::as_str) == Some("super") {
                start.pop()?;
                rest = &rest[1..];
            }
        }
        Some(first)
            if krate
                .modules
                .get(&start)
                .is_some_and(|m| m.children.contains(first)) => {}
        _ => return None,
    }
    // The longest module prefix, then the item named in it.
    let mut target = start;
    let mut used = 0;
    for segment in rest {
        let mut next = target.clone();
        next.push(segment.clone());
        if !krate.modules.contains_key(&next) {
            break;
        }
        target = next;
        used += 1;
    }
    let holder = krate.modules.get(&target)?;
    let reexport = rest.get(used).and_then(|name| holder.reexports.get(name));
    if let Some(reexport) = reexport.filter(|_| depth < 8) {
        if let Some(file) = resolve(krate, &target, reexport, depth + 1) {
            return Some(file);
        }
    }
    Some(holder.file.clone())
}

/// Tarjan's strongly connected components with two or more files.
fn strongly_connected(edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    let nodes: BTreeSet<&PathBuf> = edges.keys().chain(edges.values().flatten()).collect();
    let index_of: BTreeMap<&PathBuf, usize> =
        nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let nodes: Vec<&PathBuf> = nodes.into_iter().collect();
    let successors: Vec<Vec<usize>> = nodes
        .iter()
        .map(|n| {
            edges
                .get(*n)
                .map(|s| s.iter().map(|t| index_of[t]).collect())
                .unwrap_or_default()
        })
        .collect();
    let mut tarjan = Tarjan {
        successors: &successors,
        index: vec![None; nodes.len()],
        low: vec![0; nodes.len()],
        on_stack: vec![false; nodes.len()],
        stack: Vec::new(),
        next: 0,
        components: Vec::new(),
    };
    for node in 0..nodes.len() {
        if tarjan.index[node].is_none() {
            tarjan.connect(node);
        }
    }
    let mut circles: Vec<Vec<PathBuf>> = tarjan
        .components
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            let mut files: Vec<PathBuf> = c.into_iter().map(|i| nodes[i].clone()).collect();
            files.sort();
            files
        })
        .collect();
    circles.sort();
    circles
}

struct Tarjan<'a> {
    successors: &'a [Vec<usize>],
    index: Vec<Option<usize>>,
    low: Vec<usize>,
    on_stack: Vec<bool>,
    stack: Vec<usize>,
    next: usize,
    components: Vec<Vec<usize>>,
}

impl Tarjan<'_> {
    fn connect(&mut self, node: usize) {
        self.index[node] = Some(self.next);
        self.low[node] = self.next;
        self.next += 1;
        self.stack.push(node);
        self.on_stack[node] = true;
        for &next in &self.successors[node] {
            match self.index[next] {
                None => {
                    self.connect(next);
                    self.low[node] = self.low[node].min(self.low[next]);
                }
                Some(index) if self.on_stack[next] => self.low[node] = self.low[node].min(index),
                Some(_) => {}
            }
        }
        if Some(self.low[node]) == self.index[node] {
            let mut component = Vec::new();
            while let Some(top) = self.stack.pop() {
                self.on_stack[top] = false;
                component.push(top);
                if top == node {
                    break;
                }
            }
            self.components.push(component);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A crate in a temporary folder: (path under src/, contents).
    fn krate(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = dir.path().join("src").join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    fn names(dir: &tempfile::TempDir) -> Vec<Vec<String>> {
        circles(&dir.path().join("src/lib.rs"))
            .unwrap()
            .into_iter()
            .map(|c| {
                c.iter()
                    .map(|f| {
                        f.strip_prefix(dir.path().join("src"))
                            .unwrap()
                            .display()
                            .to_string()
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn two_files_that_import_each_other_are_a_circle() {
        // GIVEN a service that calls an op, and the op that takes the service
        let dir = krate(&[
            ("lib.rs", "mod ops; mod service;"),
            (
                "service.rs",
                "use crate::ops::items; pub struct Db; fn f() { items::put(); }",
            ),
            ("ops/mod.rs", "pub mod items;"),
            (
                "ops/items.rs",
                "use super::super::service::Db; pub fn put() {}",
            ),
        ]);
        // WHEN the circles are found
        let found = names(&dir);
        // THEN the two files are one
        assert_eq!(
            found,
            vec![vec!["ops/items.rs".to_string(), "service.rs".to_string()]]
        );
    }

    #[test]
    fn a_parent_that_uses_its_childs_items_and_a_child_using_the_parents_is_a_circle() {
        // GIVEN driver.rs calling driver/sweep.rs, which takes driver's Bench
        // through `super::` and a path in an expression
        let dir = krate(&[
            ("lib.rs", "pub mod driver;"),
            (
                "driver.rs",
                "mod sweep; pub struct Bench; fn run() { sweep::run(); }",
            ),
            ("driver/sweep.rs", "pub fn run() { let _ = super::Bench; }"),
        ]);
        // WHEN the circles are found
        // THEN the two files are one
        assert_eq!(
            names(&dir),
            vec![vec!["driver/sweep.rs".to_string(), "driver.rs".to_string()]]
        );
    }

    #[test]
    fn imports_that_point_down_and_a_facade_root_are_no_circle() {
        // GIVEN a root that declares and re-exports, a service over a codec,
        // an op that takes the codec and the re-exported error through the
        // root, and inline tests that import their own file
        let dir = krate(&[
            ("lib.rs", "mod codec; mod error; mod ops; mod service; pub use error::Error; pub use service::Db;"),
            ("codec.rs", "pub fn decode() {}"),
            ("error.rs", "pub struct Error;"),
            ("service.rs", "use crate::{codec, ops}; pub struct Db; fn f() { ops::put(); codec::decode(); }"),
            ("ops.rs", "use crate::codec::decode; use crate::Error; pub fn put() { decode(); }\n\
                        #[cfg(test)] mod tests { use super::*; #[test] fn t() { put(); } }"),
        ]);
        // WHEN the circles are found
        // THEN there are none
        assert_eq!(names(&dir), Vec::<Vec<String>>::new());
    }

    #[test]
    fn a_name_taken_through_the_roots_reexport_is_followed_to_its_file() {
        // GIVEN an op that takes `crate::Db`, which the root re-exports from
        // service.rs, which calls the op
        let dir = krate(&[
            ("lib.rs", "mod ops; mod service; pub use service::Db;"),
            ("service.rs", "pub struct Db; fn f() { crate::ops::put(); }"),
            ("ops.rs", "use crate::Db; pub fn put() {}"),
        ]);
        // WHEN the circles are found
        // THEN the op and the service are one, not the root
        assert_eq!(
            names(&dir),
            vec![vec!["ops.rs".to_string(), "service.rs".to_string()]]
        );
    }

    #[test]
    fn a_path_in_a_macros_arguments_is_an_import() {
        // GIVEN scope.rs formatting a constant of outputs.rs, which takes
        // scope's error type
        let dir = krate(&[
            ("lib.rs", "mod outputs; mod scope;"),
            ("scope.rs", "pub struct ResolveError; fn f(n: &str) -> String { format!(\"{} {n}\", crate::outputs::NO_EXPORT) }"),
            ("outputs.rs", "use crate::scope::ResolveError; pub const NO_EXPORT: &str = \"no export\";"),
        ]);
        // THEN the two files are one
        assert_eq!(
            names(&dir),
            vec![vec!["outputs.rs".to_string(), "scope.rs".to_string()]]
        );
    }

    #[test]
    fn a_module_at_a_path_attribute_is_read_from_there() {
        // GIVEN tests in a file of their own, declared with #[path], which the
        // parent calls (a circle only if the file is found)
        let dir = krate(&[
            ("lib.rs", "mod metering;"),
            ("metering.rs", "#[cfg(test)] #[path = \"metering_tests.rs\"] mod tests; pub fn f() { tests::g(); }"),
            ("metering_tests.rs", "use super::f; pub fn g() {}"),
        ]);
        // THEN the file is read
        assert_eq!(
            names(&dir),
            vec![vec![
                "metering.rs".to_string(),
                "metering_tests.rs".to_string()
            ]]
        );
    }
}
