//! `Parameters` (with caller overrides) and `Conditions`.

use std::collections::BTreeMap;

use rand::distr::{Alphanumeric, SampleString};
use serde_json::Value;

use crate::context::ResolveContext;
use crate::diag::{At, Diags};
use crate::model::Parameter;
use crate::scope::{ResolveError, Scope, Symbols};
use crate::yaml::{Entry, Node};

const KNOWN_KEYS: &[&str] = &[
    "Type",
    "Default",
    "AllowedValues",
    "AllowedPattern",
    "NoEcho",
    "Description",
    "ConstraintDescription",
    "MinLength",
    "MaxLength",
    "MinValue",
    "MaxValue",
];

/// Reads every parameter; problems are reported and the parameter skipped.
pub(crate) fn parameters(
    section: Option<&Entry>,
    ctx: &ResolveContext,
    diags: &mut Diags,
) -> Vec<Parameter> {
    let entries = section.and_then(|e| e.value.map()).unwrap_or_default();
    if let Some(e) = section.filter(|e| e.value.map().is_none()) {
        diags.error(&At::section("Parameters"), e.key_line, "must be a map");
    }
    for name in ctx.parameter_overrides.keys() {
        if !entries.iter().any(|e| &e.key == name) {
            diags.error(
                &At::section("Parameters"),
                0,
                format!("override for `{name}`, which the template does not declare"),
            );
        }
    }
    entries
        .iter()
        .filter_map(|e| parameter(e, ctx, diags))
        .collect()
}

fn parameter(entry: &Entry, ctx: &ResolveContext, diags: &mut Diags) -> Option<Parameter> {
    let at = At::resource(&entry.key);
    let decl = &entry.value;
    let Some(keys) = decl.map() else {
        diags.error(&at, entry.key_line, "a parameter must be a map");
        return None;
    };
    for k in keys
        .iter()
        .filter(|k| !KNOWN_KEYS.contains(&k.key.as_str()))
    {
        diags.error(&at.child(&k.key), k.key_line, "unknown parameter attribute");
    }
    let text = |key: &str| {
        decl.get(key)
            .and_then(|e| e.value.text().map(str::to_string))
    };
    let ty = text("Type").unwrap_or_default();
    if !matches!(
        ty.as_str(),
        "String" | "Number" | "CommaDelimitedList" | "List<Number>"
    ) {
        let line = decl.get("Type").map_or(entry.key_line, |e| e.key_line);
        diags.error(&at.child("Type"), line, format!("parameter type `{ty}` is not supported locally (String, Number, CommaDelimitedList, List<Number>)"));
        return None;
    }
    let no_echo = text("NoEcho").is_some_and(|v| v.eq_ignore_ascii_case("true"));
    let (raw, generated) = match ctx
        .parameter_overrides
        .get(&entry.key)
        .cloned()
        .or(text("Default"))
    {
        Some(v) => (v, false),
        None if no_echo && ctx.generate_no_echo => {
            (Alphanumeric.sample_string(&mut rand::rng(), 32), true)
        }
        None => {
            diags.error(
                &at,
                entry.key_line,
                format!(
                    "parameter `{}` has no default and no value was given",
                    entry.key
                ),
            );
            return None;
        }
    };
    if !check_constraints(decl, &ty, &raw, &at, diags) {
        return None;
    }
    let value = match ty.as_str() {
        "CommaDelimitedList" | "List<Number>" => {
            Value::Array(raw.split(',').map(Value::from).collect())
        }
        _ => Value::String(raw),
    };
    Some(Parameter {
        name: entry.key.clone(),
        value,
        no_echo,
        generated,
    })
}

/// AllowedValues, numeric type and bounds, lengths. Reports and returns false
/// when the value breaks one.
fn check_constraints(decl: &Node, ty: &str, raw: &str, at: &At, diags: &mut Diags) -> bool {
    let before = diags.items.len();
    let items: Vec<&str> = if ty.contains("List") {
        raw.split(',').collect()
    } else {
        vec![raw]
    };
    let num = |k: &str| {
        decl.get(k)
            .and_then(|e| e.value.text()?.parse::<f64>().ok())
    };
    let line = |k: &str| decl.get(k).map_or(0, |e| e.key_line);
    for item in &items {
        if let Some(allowed) = decl.get("AllowedValues") {
            let ok = allowed
                .value
                .seq()
                .unwrap_or_default()
                .iter()
                .any(|v| v.text() == Some(item));
            if !ok {
                diags.error(
                    &at.child("AllowedValues"),
                    allowed.key_line,
                    format!("value `{item}` is not allowed"),
                );
            }
        }
        if ty == "Number" || ty == "List<Number>" {
            match item.trim().parse::<f64>() {
                Err(_) => diags.error(at, line("Type"), format!("value `{item}` is not a number")),
                Ok(n) => {
                    if num("MinValue").is_some_and(|min| n < min) {
                        diags.error(
                            &at.child("MinValue"),
                            line("MinValue"),
                            format!("value {n} is too small"),
                        );
                    }
                    if num("MaxValue").is_some_and(|max| n > max) {
                        diags.error(
                            &at.child("MaxValue"),
                            line("MaxValue"),
                            format!("value {n} is too large"),
                        );
                    }
                }
            }
        }
        let len = item.chars().count() as f64;
        if num("MinLength").is_some_and(|min| len < min) {
            diags.error(
                &at.child("MinLength"),
                line("MinLength"),
                "value is too short",
            );
        }
        if num("MaxLength").is_some_and(|max| len > max) {
            diags.error(
                &at.child("MaxLength"),
                line("MaxLength"),
                "value is too long",
            );
        }
    }
    if decl.get("AllowedPattern").is_some() {
        diags.warn(
            &at.child("AllowedPattern"),
            line("AllowedPattern"),
            "AllowedPattern is not checked locally",
        );
    }
    diags.items[before..]
        .iter()
        .all(|d| d.severity != crate::diag::Severity::Error)
}

/// Evaluates every condition; a condition may use parameters, mappings and
/// other conditions. Failed ones are reported and taken as false.
pub(crate) fn conditions(
    section: Option<&Entry>,
    ctx: &ResolveContext,
    params: &BTreeMap<String, Value>,
    mappings: Option<&Node>,
    diags: &mut Diags,
) -> BTreeMap<String, Option<bool>> {
    let entries = section.and_then(|e| e.value.map()).unwrap_or_default();
    let mut values: BTreeMap<String, Option<bool>> =
        entries.iter().map(|e| (e.key.clone(), None)).collect();
    let symbols = Symbols::new();
    loop {
        let mut progress = false;
        for e in entries {
            if values[&e.key].is_some() {
                continue;
            }
            let scope = Scope {
                ctx,
                params,
                conditions: &values,
                symbols: &symbols,
                mappings,
            };
            let result = match scope.eval_condition(&e.value) {
                Ok(b) => Some(b),
                Err(ResolveError::Pending(_)) => None,
                Err(ResolveError::Invalid { line, message, .. }) => {
                    diags.error(&At::resource(&e.key), line, message);
                    Some(false)
                }
            };
            if result.is_some() {
                values.insert(e.key.clone(), result);
                progress = true;
            }
        }
        if !progress {
            break;
        }
    }
    for e in entries {
        if values[&e.key].is_none() {
            diags.error(
                &At::resource(&e.key),
                e.key_line,
                "condition depends on itself",
            );
            values.insert(e.key.clone(), Some(false));
        }
    }
    values
}
