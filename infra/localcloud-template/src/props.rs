//! Reading one resource's properties: checking which are known, resolving
//! intrinsics and converting to typed values, with every problem reported at
//! the property's line.

use serde_json::Value;

use crate::diag::{At, Diags};
use crate::scope::{as_text, describe, ResolveError, Scope};
use crate::yaml::{Entry, Node};

/// Reports properties the local cloud ignores (warnings) and the ones it does
/// not know (errors). `used` are read by the caller.
pub(crate) fn check_keys(map: &Node, used: &[&str], ignored: &[&str], at: &At, diags: &mut Diags) {
    // An intrinsic (`Fn::If`, ...) is checked once resolved, by the caller.
    if map.intrinsic().is_some() {
        return;
    }
    for e in map.map().unwrap_or_default() {
        let key = e.key.as_str();
        if ignored.contains(&key) {
            diags.warn(&at.child(key), e.key_line, "ignored by the local cloud");
        } else if !used.contains(&key) {
            diags.error(
                &at.child(key),
                e.key_line,
                "property is not supported locally",
            );
        }
    }
}

pub(crate) struct Reader<'s, 'd> {
    pub scope: &'s Scope<'s>,
    pub diags: &'d mut Diags,
}

impl Reader<'_, '_> {
    /// Records a resolution failure at its place.
    pub fn report(&mut self, at: &At, fallback_line: usize, err: ResolveError) {
        match err {
            ResolveError::Invalid {
                line,
                message,
                path,
                ..
            } if path.is_empty() => self.diags.error(at, line, message),
            ResolveError::Invalid {
                line,
                message,
                path,
                ..
            } => self.diags.error(&at.child(&path), line, message),
            ResolveError::Pending(what) => self.diags.error(
                at,
                fallback_line,
                format!("depends on `{what}`, which could not be resolved"),
            ),
        }
    }

    /// The resolved value of `map[key]`; `None` when absent, `AWS::NoValue`
    /// or invalid (reported).
    pub fn value(&mut self, map: &Node, key: &str, at: &At) -> Option<(Value, usize)> {
        let entry = map.get(key)?;
        self.entry_value(entry, at)
    }

    pub fn entry_value(&mut self, entry: &Entry, at: &At) -> Option<(Value, usize)> {
        let at = at.child(&entry.key);
        match self.scope.resolve(&entry.value) {
            Ok(v) => v.map(|v| (v, entry.key_line)),
            Err(e) => {
                self.report(&at, entry.key_line, e);
                None
            }
        }
    }

    pub fn string(&mut self, map: &Node, key: &str, at: &At) -> Option<String> {
        let (v, line) = self.value(map, key, at)?;
        self.as_string(v, line, &at.child(key))
    }

    pub fn as_string(&mut self, v: Value, line: usize, at: &At) -> Option<String> {
        let s = as_text(&v);
        if s.is_none() {
            self.diags
                .error(at, line, format!("expected a string, got {}", describe(&v)));
        }
        s
    }

    pub fn u32(&mut self, map: &Node, key: &str, at: &At) -> Option<u32> {
        let (v, line) = self.value(map, key, at)?;
        self.as_u32(&v, line, &at.child(key))
    }

    pub fn as_u32(&mut self, v: &Value, line: usize, at: &At) -> Option<u32> {
        let n = as_text(v).and_then(|s| s.trim().parse::<u32>().ok());
        if n.is_none() {
            self.diags.error(
                at,
                line,
                format!("expected a whole number, got {}", render(v)),
            );
        }
        n
    }

    /// A map of strings (`StageVariables`, `Variables`); values are
    /// rendered as CloudFormation renders them.
    pub fn string_map(
        &mut self,
        map: &Node,
        key: &str,
        at: &At,
    ) -> std::collections::BTreeMap<String, String> {
        let mut out = std::collections::BTreeMap::new();
        let Some((v, line)) = self.value(map, key, at) else {
            return out;
        };
        let at = at.child(key);
        let Value::Object(vars) = v else {
            self.diags.error(&at, line, "expected a map");
            return out;
        };
        for (k, v) in vars {
            if let Some(s) = self.as_string(v, line, &at.child(&k)) {
                out.insert(k, s);
            }
        }
        out
    }

    pub fn bool(&mut self, map: &Node, key: &str, at: &At) -> Option<bool> {
        let (v, line) = self.value(map, key, at)?;
        let b = match as_text(&v).as_deref() {
            Some("true" | "True" | "TRUE") => Some(true),
            Some("false" | "False" | "FALSE") => Some(false),
            _ => None,
        };
        if b.is_none() {
            self.diags.error(
                &at.child(key),
                line,
                format!("expected true or false, got {}", render(&v)),
            );
        }
        b
    }
}

/// A short rendering of a value for messages.
pub(crate) fn render(v: &Value) -> String {
    match v {
        Value::String(s) => format!("`{s}`"),
        Value::Number(_) | Value::Bool(_) | Value::Null => v.to_string(),
        _ => describe(v).to_string(),
    }
}
