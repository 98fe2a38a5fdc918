//! Condition operators, with `IfExists` and the `ForAnyValue:` /
//! `ForAllValues:` set qualifiers.
//! https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html
//! https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-single-vs-multi-valued-context-keys.html

use std::collections::BTreeMap;

use crate::glob;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Base {
    StringEquals,
    StringNotEquals,
    StringEqualsIgnoreCase,
    StringNotEqualsIgnoreCase,
    StringLike,
    StringNotLike,
    NumericEquals,
    NumericNotEquals,
    NumericLessThan,
    NumericLessThanEquals,
    NumericGreaterThan,
    NumericGreaterThanEquals,
    DateEquals,
    DateNotEquals,
    DateLessThan,
    DateLessThanEquals,
    DateGreaterThan,
    DateGreaterThanEquals,
    Bool,
    ArnEquals,
    ArnLike,
    ArnNotEquals,
    ArnNotLike,
    Null,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetQualifier {
    /// A single-valued key.
    None,
    ForAnyValue,
    ForAllValues,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operator {
    pub base: Base,
    pub if_exists: bool,
    pub set: SetQualifier,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    pub operator: Operator,
    /// The condition key as written (`aws:SourceArn`); keys match without case.
    pub key: String,
    pub values: Vec<String>,
}

/// The request's condition keys (lower-cased names) and their values.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Context(BTreeMap<String, Vec<String>>);

impl Context {
    pub fn with(mut self, key: &str, value: impl Into<String>) -> Self {
        self.0
            .entry(key.to_ascii_lowercase())
            .or_default()
            .push(value.into());
        self
    }

    pub fn get(&self, key: &str) -> Option<&[String]> {
        self.0.get(&key.to_ascii_lowercase()).map(Vec::as_slice)
    }
}

const BASES: &[(&str, Base)] = &[
    ("StringEquals", Base::StringEquals),
    ("StringNotEquals", Base::StringNotEquals),
    ("StringEqualsIgnoreCase", Base::StringEqualsIgnoreCase),
    ("StringNotEqualsIgnoreCase", Base::StringNotEqualsIgnoreCase),
    ("StringLike", Base::StringLike),
    ("StringNotLike", Base::StringNotLike),
    ("NumericEquals", Base::NumericEquals),
    ("NumericNotEquals", Base::NumericNotEquals),
    ("NumericLessThan", Base::NumericLessThan),
    ("NumericLessThanEquals", Base::NumericLessThanEquals),
    ("NumericGreaterThan", Base::NumericGreaterThan),
    ("NumericGreaterThanEquals", Base::NumericGreaterThanEquals),
    ("DateEquals", Base::DateEquals),
    ("DateNotEquals", Base::DateNotEquals),
    ("DateLessThan", Base::DateLessThan),
    ("DateLessThanEquals", Base::DateLessThanEquals),
    ("DateGreaterThan", Base::DateGreaterThan),
    ("DateGreaterThanEquals", Base::DateGreaterThanEquals),
    ("Bool", Base::Bool),
    ("ArnEquals", Base::ArnEquals),
    ("ArnLike", Base::ArnLike),
    ("ArnNotEquals", Base::ArnNotEquals),
    ("ArnNotLike", Base::ArnNotLike),
    ("Null", Base::Null),
];

impl Operator {
    pub fn parse(text: &str) -> Result<Self, String> {
        let (set, rest) = if let Some(r) = text.strip_prefix("ForAnyValue:") {
            (SetQualifier::ForAnyValue, r)
        } else if let Some(r) = text.strip_prefix("ForAllValues:") {
            (SetQualifier::ForAllValues, r)
        } else {
            (SetQualifier::None, text)
        };
        let (if_exists, name) = match rest.strip_suffix("IfExists") {
            Some(n) => (true, n),
            None => (false, rest),
        };
        let base = BASES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, b)| *b)
            .ok_or_else(|| {
                format!("condition operator {text} is not one IAM knows (or the local cloud evaluates: IpAddress is not)")
            })?;
        if base == Base::Null && (if_exists || set != SetQualifier::None) {
            return Err(format!(
                "condition operator {text}: Null takes no qualifier"
            ));
        }
        Ok(Self {
            base,
            if_exists,
            set,
        })
    }
}

impl Base {
    /// Operators that hold when no policy value matches.
    fn negated(self) -> bool {
        matches!(
            self,
            Base::StringNotEquals
                | Base::StringNotEqualsIgnoreCase
                | Base::StringNotLike
                | Base::NumericNotEquals
                | Base::DateNotEquals
                | Base::ArnNotEquals
                | Base::ArnNotLike
        )
    }

    /// Whether one request value equals (or is like, below, ...) one policy value.
    fn positive_match(self, policy: &str, request: &str) -> bool {
        use std::cmp::Ordering::*;
        let numeric = || {
            request
                .parse::<f64>()
                .ok()?
                .partial_cmp(&policy.parse::<f64>().ok()?)
        };
        let date = || Some(date(request)?.cmp(&date(policy)?));
        match self {
            Base::StringEquals | Base::StringNotEquals | Base::ArnEquals | Base::ArnNotEquals => {
                policy == request
            }
            Base::StringEqualsIgnoreCase | Base::StringNotEqualsIgnoreCase => {
                policy.eq_ignore_ascii_case(request)
            }
            Base::StringLike | Base::StringNotLike | Base::ArnLike | Base::ArnNotLike => {
                glob::matches(policy, request)
            }
            Base::Bool => policy.eq_ignore_ascii_case(request),
            Base::NumericEquals | Base::NumericNotEquals => numeric() == Some(Equal),
            Base::NumericLessThan => numeric() == Some(Less),
            Base::NumericLessThanEquals => matches!(numeric(), Some(Less | Equal)),
            Base::NumericGreaterThan => numeric() == Some(Greater),
            Base::NumericGreaterThanEquals => matches!(numeric(), Some(Greater | Equal)),
            Base::DateEquals | Base::DateNotEquals => date() == Some(Equal),
            Base::DateLessThan => date() == Some(Less),
            Base::DateLessThanEquals => matches!(date(), Some(Less | Equal)),
            Base::DateGreaterThan => date() == Some(Greater),
            Base::DateGreaterThanEquals => matches!(date(), Some(Greater | Equal)),
            Base::Null => false,
        }
    }

    /// One request value against the condition's policy values: any of them
    /// matches (or, negated, none does).
    fn holds_for(self, policy: &[String], request: &str) -> bool {
        let any = policy.iter().any(|p| self.positive_match(p, request));
        if self.negated() {
            !any
        } else {
            any
        }
    }
}

/// ISO 8601 dates or epoch seconds, as milliseconds since the epoch.
fn date(text: &str) -> Option<i64> {
    if let Ok(seconds) = text.parse::<i64>() {
        return Some(seconds * 1000);
    }
    chrono::DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|d| d.timestamp_millis())
        .or_else(|| {
            chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
                .ok()
                .and_then(|d| d.and_hms_opt(0, 0, 0))
                .map(|d| d.and_utc().timestamp_millis())
        })
}

impl Condition {
    pub fn holds(&self, context: &Context) -> bool {
        let op = &self.operator;
        let present = context.get(&self.key).filter(|v| !v.is_empty());
        if op.base == Base::Null {
            let wants_absent = self.values.iter().any(|v| v.eq_ignore_ascii_case("true"));
            return present.is_none() == wants_absent;
        }
        let Some(values) = present else {
            // A missing key: true with IfExists, for negated operators and
            // for ForAllValues (an empty set); false otherwise.
            return op.if_exists || op.base.negated() || op.set == SetQualifier::ForAllValues;
        };
        match op.set {
            SetQualifier::None | SetQualifier::ForAnyValue => {
                values.iter().any(|v| op.base.holds_for(&self.values, v))
            }
            SetQualifier::ForAllValues => values.iter().all(|v| op.base.holds_for(&self.values, v)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cond(op: &str, key: &str, values: &[&str]) -> Condition {
        Condition {
            operator: Operator::parse(op).unwrap(),
            key: key.into(),
            values: values.iter().map(|v| v.to_string()).collect(),
        }
    }

    #[test]
    fn operators_hold_as_iam_documents() {
        let ctx = Context::default()
            .with("aws:RequestedRegion", "us-east-1")
            .with("aws:SecureTransport", "false")
            .with("sqs:MaxNumberOfMessages", "5")
            .with("aws:SourceArn", "arn:aws:sqs:us-east-1:0:orders")
            .with("aws:CurrentTime", "2026-12-06T12:00:00Z")
            .with("dynamodb:Attributes", "id")
            .with("dynamodb:Attributes", "name");
        let cases = [
            (
                "StringEquals",
                "aws:requestedregion",
                &["us-east-1"][..],
                true,
            ),
            (
                "StringEquals",
                "aws:RequestedRegion",
                &["eu-west-1", "us-east-1"],
                true,
            ),
            ("StringEquals", "aws:RequestedRegion", &["US-EAST-1"], false),
            (
                "StringEqualsIgnoreCase",
                "aws:RequestedRegion",
                &["US-EAST-1"],
                true,
            ),
            (
                "StringNotEquals",
                "aws:RequestedRegion",
                &["us-east-1"],
                false,
            ),
            (
                "StringNotEquals",
                "aws:RequestedRegion",
                &["eu-west-1"],
                true,
            ),
            ("StringLike", "aws:RequestedRegion", &["us-*"], true),
            ("StringNotLike", "aws:RequestedRegion", &["us-*"], false),
            ("Bool", "aws:SecureTransport", &["false"], true),
            ("Bool", "aws:SecureTransport", &["true"], false),
            (
                "NumericLessThanEquals",
                "sqs:MaxNumberOfMessages",
                &["5"],
                true,
            ),
            ("NumericLessThan", "sqs:MaxNumberOfMessages", &["5"], false),
            (
                "NumericGreaterThan",
                "sqs:MaxNumberOfMessages",
                &["1"],
                true,
            ),
            ("NumericEquals", "sqs:MaxNumberOfMessages", &["five"], false),
            (
                "ArnLike",
                "aws:SourceArn",
                &["arn:aws:sqs:*:*:orders"],
                true,
            ),
            (
                "ArnNotLike",
                "aws:SourceArn",
                &["arn:aws:sqs:*:*:orders"],
                false,
            ),
            (
                "ArnEquals",
                "aws:SourceArn",
                &["arn:aws:sqs:us-east-1:0:orders"],
                true,
            ),
            (
                "DateGreaterThan",
                "aws:CurrentTime",
                &["2026-01-01T00:00:00Z"],
                true,
            ),
            ("DateLessThan", "aws:CurrentTime", &["2026-01-01"], false),
            // Missing keys: false, except with IfExists, negated and ForAllValues.
            ("StringEquals", "aws:PrincipalTag/team", &["a"], false),
            (
                "StringEqualsIfExists",
                "aws:PrincipalTag/team",
                &["a"],
                true,
            ),
            ("StringNotEquals", "aws:PrincipalTag/team", &["a"], true),
            ("Null", "aws:PrincipalTag/team", &["true"], true),
            ("Null", "aws:RequestedRegion", &["true"], false),
            ("Null", "aws:RequestedRegion", &["false"], true),
            // Multi-valued keys.
            (
                "ForAllValues:StringEquals",
                "dynamodb:Attributes",
                &["id", "name", "bio"],
                true,
            ),
            (
                "ForAllValues:StringEquals",
                "dynamodb:Attributes",
                &["id"],
                false,
            ),
            (
                "ForAnyValue:StringEquals",
                "dynamodb:Attributes",
                &["name"],
                true,
            ),
            (
                "ForAnyValue:StringEquals",
                "dynamodb:Attributes",
                &["bio"],
                false,
            ),
            (
                "ForAllValues:StringEquals",
                "dynamodb:Missing",
                &["x"],
                true,
            ),
        ];
        for (op, key, values, want) in cases {
            assert_eq!(
                cond(op, key, values).holds(&ctx),
                want,
                "{op} {key} {values:?}"
            );
        }
    }

    #[test]
    fn unknown_and_malformed_operators_are_refused() {
        for op in [
            "StringSorta",
            "IpAddress",
            "NullIfExists",
            "ForAnyValue:Null",
            "",
        ] {
            assert!(Operator::parse(op).is_err(), "{op}");
        }
    }
}
