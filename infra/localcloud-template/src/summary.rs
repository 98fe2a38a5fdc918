//! What a template declares, before anything is resolved: its parameters
//! (with defaults and `NoEcho`), resource types and transforms. This is what
//! CloudFormation's `GetTemplateSummary` returns, and what a deploy needs to
//! check parameter values against.

use crate::diag::TemplateError;
use crate::yaml::Node;

#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub description: Option<String>,
    pub transforms: Vec<String>,
    pub parameters: Vec<DeclaredParameter>,
    /// (logical id, type), in template order.
    pub resources: Vec<(String, String)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct DeclaredParameter {
    pub name: String,
    pub ty: String,
    /// `Default`, as text (a list default is comma-joined).
    pub default: Option<String>,
    pub no_echo: bool,
    pub description: Option<String>,
}

/// Reads the declarations of a template (YAML or JSON).
pub fn summary(text: &str) -> Result<Summary, TemplateError> {
    let root = crate::template::parse(text)?;
    let text_of = |node: &Node, key: &str| {
        node.get(key).and_then(|e| match e.value.seq() {
            Some(items) => Some(
                items
                    .iter()
                    .filter_map(Node::text)
                    .collect::<Vec<_>>()
                    .join(","),
            ),
            None => e.value.text().map(str::to_string),
        })
    };
    let transforms = match root.get("Transform") {
        Some(t) => match t.value.seq() {
            Some(items) => items
                .iter()
                .filter_map(|n| n.text().map(str::to_string))
                .collect(),
            None => t.value.text().map(str::to_string).into_iter().collect(),
        },
        None => Vec::new(),
    };
    let parameters = root
        .get("Parameters")
        .and_then(|p| p.value.map())
        .unwrap_or_default()
        .iter()
        .map(|e| DeclaredParameter {
            name: e.key.clone(),
            ty: text_of(&e.value, "Type").unwrap_or_default(),
            default: text_of(&e.value, "Default"),
            no_echo: text_of(&e.value, "NoEcho").is_some_and(|v| v.eq_ignore_ascii_case("true")),
            description: text_of(&e.value, "Description"),
        })
        .collect();
    let resources = root
        .get("Resources")
        .and_then(|r| r.value.map())
        .unwrap_or_default()
        .iter()
        .map(|e| (e.key.clone(), text_of(&e.value, "Type").unwrap_or_default()))
        .collect();
    Ok(Summary {
        description: text_of(&root, "Description"),
        transforms,
        parameters,
        resources,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_are_read_from_yaml_and_json() {
        let yaml = "Transform: AWS::Serverless-2016-10-31\nDescription: demo\nParameters:\n  Secret: {Type: String, NoEcho: true}\n  Delay: {Type: Number, Default: 5}\nResources:\n  Q: {Type: AWS::SQS::Queue}\n";
        let s = summary(yaml).unwrap();
        assert_eq!(s.transforms, vec!["AWS::Serverless-2016-10-31"]);
        assert_eq!(s.description.as_deref(), Some("demo"));
        assert!(s.parameters[0].no_echo && s.parameters[0].default.is_none());
        assert_eq!(s.parameters[1].default.as_deref(), Some("5"));
        assert_eq!(
            s.resources,
            vec![("Q".to_string(), "AWS::SQS::Queue".to_string())]
        );
        let json = r#"{"Resources": {"B": {"Type": "AWS::S3::Bucket"}}}"#;
        assert_eq!(summary(json).unwrap().resources[0].1, "AWS::S3::Bucket");
    }
}
