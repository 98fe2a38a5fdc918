//! The template's parameter defaults: the settings a run did not override.

use std::collections::BTreeMap;

/// `Parameters:` defaults of a SAM template (two-space names, four-space `Default:`).
pub fn template_defaults(template: &str) -> BTreeMap<String, String> {
    let mut defaults = BTreeMap::new();
    let mut in_parameters = false;
    let mut current: Option<String> = None;
    for line in template.lines() {
        if !line.starts_with(' ') && !line.trim().is_empty() {
            in_parameters = line.trim_end() == "Parameters:";
            continue;
        }
        if !in_parameters {
            continue;
        }
        if let Some(name) = line.strip_prefix("  ").filter(|l| !l.starts_with(' ')) {
            current = name.trim_end().strip_suffix(':').map(String::from);
        } else if let (Some(name), Some(value)) = (&current, line.trim().strip_prefix("Default:")) {
            defaults.insert(name.clone(), value.trim().trim_matches('"').to_string());
        }
    }
    defaults
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_defaults_are_read_from_parameters_only() {
        let template = "Parameters:\n  OrdersDelayMs:\n    Type: Number\n    Default: 500\n  Name:\n    Default: \"x\"\nResources:\n  T:\n    Default: 9\n";
        let defaults = template_defaults(template);
        assert_eq!(defaults.len(), 2);
        assert_eq!(defaults["OrdersDelayMs"], "500");
        assert_eq!(defaults["Name"], "x");
    }
}
