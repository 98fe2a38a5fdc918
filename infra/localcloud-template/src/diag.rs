//! Problems found in a template, each pinned to a resource, property and line.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// The local cloud cannot run the template as written.
    Error,
    /// Ignored locally without changing what the functions can observe.
    Warning,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Logical id of the resource (or parameter, condition, output) concerned.
    pub logical_id: Option<String>,
    /// Dotted property path inside it, e.g. `Properties.Events.Api.Properties.Path`.
    pub path: String,
    /// 1-based line in the template; 0 when the problem has no place in the text.
    pub line: usize,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "line {}: {kind}: ", self.line)?;
        let place = match (&self.logical_id, self.path.is_empty()) {
            (Some(id), false) => format!("{id}.{}", self.path),
            (Some(id), true) => id.clone(),
            (None, _) => self.path.clone(),
        };
        if !place.is_empty() {
            write!(f, "{place}: ")?;
        }
        write!(f, "{}", self.message)
    }
}

/// Everything that stops a template from loading.
#[derive(Debug, thiserror::Error)]
pub enum TemplateError {
    #[error("cannot read template {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// Every problem found, in template order, not just the first.
    #[error("invalid template:\n{}", render(.problems))]
    Invalid { problems: Vec<Diagnostic> },
}

impl TemplateError {
    /// The problems of an invalid template (empty for an I/O error).
    pub fn problems(&self) -> &[Diagnostic] {
        match self {
            TemplateError::Io { .. } => &[],
            TemplateError::Invalid { problems } => problems,
        }
    }
}

fn render(problems: &[Diagnostic]) -> String {
    problems
        .iter()
        .map(|p| format!("  {p}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Where a diagnostic belongs: a logical id and a property path.
#[derive(Debug, Clone, Default)]
pub(crate) struct At {
    pub logical_id: Option<String>,
    pub path: String,
}

impl At {
    pub fn resource(id: &str) -> At {
        At {
            logical_id: Some(id.to_string()),
            path: String::new(),
        }
    }

    pub fn section(path: &str) -> At {
        At {
            logical_id: None,
            path: path.to_string(),
        }
    }

    /// The location one property further down.
    pub fn child(&self, key: &str) -> At {
        let path = if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        };
        At {
            logical_id: self.logical_id.clone(),
            path,
        }
    }
}

/// Collects diagnostics while a template is read, so that all are reported.
#[derive(Debug, Default)]
pub(crate) struct Diags {
    pub items: Vec<Diagnostic>,
}

impl Diags {
    pub fn error(&mut self, at: &At, line: usize, message: impl Into<String>) {
        self.push(Severity::Error, at, line, message.into());
    }

    pub fn warn(&mut self, at: &At, line: usize, message: impl Into<String>) {
        self.push(Severity::Warning, at, line, message.into());
    }

    fn push(&mut self, severity: Severity, at: &At, line: usize, message: String) {
        self.items.push(Diagnostic {
            severity,
            logical_id: at.logical_id.clone(),
            path: at.path.clone(),
            line,
            message,
        });
    }

    /// Splits into (errors, warnings), each sorted by line.
    pub fn split(mut self) -> (Vec<Diagnostic>, Vec<Diagnostic>) {
        self.items.sort_by_key(|d| d.line);
        self.items
            .into_iter()
            .partition(|d| d.severity == Severity::Error)
    }
}
