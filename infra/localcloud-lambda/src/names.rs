//! Function references as the Invoke API accepts them: a name, a full ARN or a
//! partial ARN (`123456789012:function:name`), each with an optional qualifier.

/// The only version the local cloud publishes.
pub const LATEST: &str = "$LATEST";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionRef {
    pub name: String,
    pub qualifier: Option<String>,
    /// Account and region named by an ARN, if any, to check against ours.
    pub account: Option<String>,
    pub region: Option<String>,
}

/// Splits `reference` into its parts; `None` when it is not a function
/// reference at all (e.g. `arn:aws:sqs:...`).
pub fn parse(reference: &str) -> Option<FunctionRef> {
    let parts: Vec<&str> = reference.split(':').collect();
    let (account, region, rest) = match parts.as_slice() {
        ["arn", _partition, "lambda", region, account, "function", rest @ ..] => {
            (Some(*account), Some(*region), rest)
        }
        [account, "function", rest @ ..] => (Some(*account), None, rest),
        rest => (None, None, rest),
    };
    let (name, qualifier) = match rest {
        [name] => (*name, None),
        [name, qualifier] => (*name, Some(qualifier.to_string())),
        _ => return None,
    };
    if name.is_empty() || qualifier.as_deref() == Some("") {
        return None;
    }
    Some(FunctionRef {
        name: name.to_string(),
        qualifier,
        account: account.map(str::to_string),
        region: region.map(str::to_string),
    })
}

/// AWS's rule for function names; it also keeps names safe in paths and headers.
pub fn is_valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

pub fn function_arn(region: &str, account: &str, name: &str) -> String {
    format!("arn:aws:lambda:{region}:{account}:function:{name}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_name_has_no_qualifier() {
        let r = parse("orders").unwrap();
        assert_eq!(r.name, "orders");
        assert_eq!(r.qualifier, None);
        assert_eq!(r.account, None);
    }

    #[test]
    fn name_may_carry_a_qualifier() {
        let r = parse("orders:$LATEST").unwrap();
        assert_eq!(r.name, "orders");
        assert_eq!(r.qualifier.as_deref(), Some(LATEST));
    }

    #[test]
    fn full_arn_names_region_account_and_qualifier() {
        let r = parse("arn:aws:lambda:eu-west-1:123456789012:function:orders:live").unwrap();
        assert_eq!(r.name, "orders");
        assert_eq!(r.region.as_deref(), Some("eu-west-1"));
        assert_eq!(r.account.as_deref(), Some("123456789012"));
        assert_eq!(r.qualifier.as_deref(), Some("live"));
    }

    #[test]
    fn partial_arn_names_the_account() {
        let r = parse("123456789012:function:orders").unwrap();
        assert_eq!(r.name, "orders");
        assert_eq!(r.account.as_deref(), Some("123456789012"));
        assert_eq!(r.region, None);
    }

    #[test]
    fn names_follow_the_aws_pattern() {
        assert!(is_valid_name("Conduit-Articles_2"));
        assert!(!is_valid_name(""));
        assert!(!is_valid_name("bad name"));
        assert!(!is_valid_name("new\nline"));
        assert!(!is_valid_name(&"x".repeat(65)));
    }

    #[test]
    fn other_services_arns_and_empty_parts_are_rejected() {
        assert_eq!(parse("arn:aws:sqs:us-east-1:123456789012:queue"), None);
        assert_eq!(parse(""), None);
        assert_eq!(parse("orders:"), None);
    }
}
