//! Checks and readings of `CreateChangeSet`'s input: names, parameter
//! values, capabilities, tags.

use std::collections::{BTreeMap, BTreeSet};

use localcloud_template::Summary;

use crate::backend::Deployment;
use crate::query::{Params, QueryError};

/// Stack and change set names: `[a-zA-Z][-a-zA-Z0-9]*`, at most 128.
pub(crate) fn check_name(name: &str, member: &str) -> Result<(), QueryError> {
    let valid = name.len() <= 128
        && name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    if valid || name.starts_with("arn:") {
        return Ok(());
    }
    Err(QueryError::validation(format!(
        "1 validation error detected: Value '{name}' at '{member}' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z][-a-zA-Z0-9]*"
    )))
}

/// A value for every declared parameter: given, previous (`UsePreviousValue`)
/// or default; unknown and missing ones are `ValidationError`s worded as AWS
/// words them.
pub(crate) fn resolve_parameters(
    summary: &Summary,
    params: &Params,
    previous: Option<&Deployment>,
) -> Result<BTreeMap<String, String>, QueryError> {
    let declared: BTreeSet<&str> = summary.parameters.iter().map(|p| p.name.as_str()).collect();
    let given = params.structs("Parameters");
    let unknown: Vec<&str> = given
        .iter()
        .filter_map(|p| p.get("ParameterKey").map(String::as_str))
        .filter(|k| !declared.contains(k))
        .collect();
    if !unknown.is_empty() {
        return Err(QueryError::validation(format!(
            "Parameters: [{}] do not exist in the template",
            unknown.join(", ")
        )));
    }
    let mut values = BTreeMap::new();
    let mut missing = Vec::new();
    for p in &summary.parameters {
        let entry = given
            .iter()
            .find(|g| g.get("ParameterKey") == Some(&p.name));
        let use_previous = entry
            .and_then(|e| e.get("UsePreviousValue"))
            .is_some_and(|v| v == "true");
        let value = if use_previous {
            let old = previous.and_then(|d| d.parameters.get(&p.name)).ok_or_else(|| {
                QueryError::validation(format!(
                    "Invalid input for parameter key {}. Cannot specify usePreviousValue as true for a parameter key not in the previous template",
                    p.name
                ))
            })?;
            Some(old.clone())
        } else {
            entry
                .and_then(|e| e.get("ParameterValue"))
                .cloned()
                .or_else(|| p.default.clone())
        };
        match value {
            Some(v) => {
                values.insert(p.name.clone(), v);
            }
            None => missing.push(p.name.clone()),
        }
    }
    if !missing.is_empty() {
        return Err(QueryError::validation(format!(
            "Parameters: [{}] must have values",
            missing.join(", ")
        )));
    }
    Ok(values)
}

/// IAM resources (and SAM functions, which create their roles) need
/// `CAPABILITY_IAM` or `CAPABILITY_NAMED_IAM`.
/// https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/control-access-with-iam.html#using-iam-capabilities
pub(crate) fn check_capabilities(summary: &Summary, given: &[String]) -> Result<(), QueryError> {
    let needs_iam = summary
        .resources
        .iter()
        .any(|(_, ty)| ty.starts_with("AWS::IAM::") || ty == "AWS::Serverless::Function");
    let has_iam = given
        .iter()
        .any(|c| c == "CAPABILITY_IAM" || c == "CAPABILITY_NAMED_IAM");
    if needs_iam && !has_iam {
        return Err(QueryError::new(
            400,
            "InsufficientCapabilitiesException",
            "Requires capabilities : [CAPABILITY_IAM]",
        ));
    }
    Ok(())
}

pub(crate) fn tags(params: &Params) -> Vec<(String, String)> {
    params
        .structs("Tags")
        .into_iter()
        .filter_map(|t| {
            Some((
                t.get("Key")?.clone(),
                t.get("Value").cloned().unwrap_or_default(),
            ))
        })
        .collect()
}

pub(crate) fn no_echo(summary: &Summary) -> BTreeSet<String> {
    summary
        .parameters
        .iter()
        .filter(|p| p.no_echo)
        .map(|p| p.name.clone())
        .collect()
}
