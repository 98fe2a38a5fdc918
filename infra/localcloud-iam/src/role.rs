//! A role as the local cloud knows it: its name, its ARN and its policies,
//! each with where it came from (for reports and error messages).

use crate::document::PolicyDocument;

#[derive(Debug, Clone, PartialEq)]
pub struct NamedPolicy {
    /// `DynamoDBReadPolicy (TableName: Users)`, `AWSLambdaBasicExecutionRole`,
    /// `inline policy 2`, `added by SAM for the SQS event Jobs`, ...
    pub source: String,
    pub document: PolicyDocument,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Role {
    pub name: String,
    pub account: String,
    pub policies: Vec<NamedPolicy>,
}

impl Role {
    /// `arn:aws:iam::{account}:role/{name}`.
    pub fn arn(&self) -> String {
        format!("arn:aws:iam::{}:role/{}", self.account, self.name)
    }

    pub fn documents(&self) -> Vec<PolicyDocument> {
        self.policies.iter().map(|p| p.document.clone()).collect()
    }
}
