//! Function references as the Invoke API accepts them: a name, a full ARN or a
//! partial ARN (`123456789012:function:name`), each with an optional qualifier.

/// The unpublished version: the function's current code and configuration.
pub const LATEST: &str = "$LATEST";

/// Lambda Managed Instances' version that an unqualified invoke runs
/// ("$LATEST.PUBLISHED version in Lambda Managed Instances",
/// https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-version-publishing.html).
pub const LATEST_PUBLISHED: &str = "$LATEST.PUBLISHED";

/// What a qualifier names: AWS's version numbers are digits only and its
/// alias names may not be (the alias name pattern excludes all digits).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Qualifier<'a> {
    Latest,
    LatestPublished,
    Number(u64),
    Alias(&'a str),
}

impl<'a> Qualifier<'a> {
    pub fn parse(qualifier: &'a str) -> Self {
        match qualifier {
            LATEST => Self::Latest,
            LATEST_PUBLISHED => Self::LatestPublished,
            q => match q.parse() {
                Ok(n) if q.bytes().all(|b| b.is_ascii_digit()) => Self::Number(n),
                _ => Self::Alias(q),
            },
        }
    }
}

/// CreateAlias's pattern for `Name`, `(?!^[0-9]+$)([a-zA-Z0-9-_]+)`, 1 to
/// 128 characters (https://docs.aws.amazon.com/lambda/latest/api/API_CreateAlias.html).
pub fn is_valid_alias_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        && !name.bytes().all(|b| b.is_ascii_digit())
}

/// `function_arn` with `:{qualifier}`, the ARN of a version or an alias.
pub fn qualified_arn(function_arn: &str, qualifier: &str) -> String {
    format!("{function_arn}:{qualifier}")
}

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
    fn qualifiers_are_versions_when_all_digits_and_aliases_otherwise() {
        assert_eq!(Qualifier::parse("$LATEST"), Qualifier::Latest);
        assert_eq!(
            Qualifier::parse("$LATEST.PUBLISHED"),
            Qualifier::LatestPublished
        );
        assert_eq!(Qualifier::parse("12"), Qualifier::Number(12));
        assert_eq!(Qualifier::parse("live"), Qualifier::Alias("live"));
        assert_eq!(Qualifier::parse("+1"), Qualifier::Alias("+1"));
    }

    #[test]
    fn alias_names_follow_the_aws_pattern() {
        assert!(is_valid_alias_name("live"));
        assert!(is_valid_alias_name("v2-blue_green"));
        assert!(!is_valid_alias_name("1"));
        assert!(!is_valid_alias_name("$LATEST"));
        assert!(!is_valid_alias_name(""));
        assert!(!is_valid_alias_name(&"a".repeat(129)));
    }

    #[test]
    fn other_services_arns_and_empty_parts_are_rejected() {
        assert_eq!(parse("arn:aws:sqs:us-east-1:123456789012:queue"), None);
        assert_eq!(parse(""), None);
        assert_eq!(parse("orders:"), None);
    }
}
