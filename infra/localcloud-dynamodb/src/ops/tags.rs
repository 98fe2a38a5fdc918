//! TagResource, UntagResource and ListTagsOfResource: a table's tags, named
//! by its ARN. https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TagResource.html

use std::collections::BTreeMap;
use std::sync::Arc;

use localcloud_core::RequestContext;
use serde::Deserialize;
use serde_json::json;

use crate::codec::{decode, encode};
use crate::error::{validation, DdbError, DdbResult};
use crate::registry::DynamoDb;
use crate::schema::{check_name, Tag};
use crate::table::Table;

/// At most 50 tags on a resource.
/// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Tagging.html
const MAX_TAGS: usize = 50;

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct TagInput {
    resource_arn: Option<String>,
    tags: Option<Vec<Tag>>,
    tag_keys: Option<Vec<String>>,
}

pub fn tag_resource(db: &DynamoDb, ctx: &RequestContext, body: &[u8]) -> DdbResult<Vec<u8>> {
    let input: TagInput = decode(body)?;
    let arn = input.resource_arn.as_deref();
    let name = table_name_of(arn, ctx, "TagResource")?;
    let tags = input.tags.unwrap_or_default();
    if tags.is_empty() {
        return Err(validation("Atleast one Tag needs to be provided as Input."));
    }
    check_tags(&tags)?;
    let table = table_of(db, arn, name)?;
    let mut meta = table.meta.lock();
    let mut merged = meta.tags.clone();
    merged.extend(tags.into_iter().map(|t| (t.key, t.value)));
    if merged.len() > MAX_TAGS {
        return Err(DdbError::Validation(
            "One or more parameter values were invalid: The number of tags exceeds the limit of 50"
                .into(),
        ));
    }
    meta.tags = merged;
    encode(&json!({}))
}

pub fn untag_resource(db: &DynamoDb, ctx: &RequestContext, body: &[u8]) -> DdbResult<Vec<u8>> {
    let input: TagInput = decode(body)?;
    let arn = input.resource_arn.as_deref();
    let name = table_name_of(arn, ctx, "UntagResource")?;
    let keys = input.tag_keys.unwrap_or_default();
    if keys.is_empty() {
        return Err(validation(
            "Atleast one Tag Key needs to be provided as Input.",
        ));
    }
    let table = table_of(db, arn, name)?;
    let mut meta = table.meta.lock();
    for key in &keys {
        meta.tags.remove(key);
    }
    encode(&json!({}))
}

pub fn list_tags(db: &DynamoDb, ctx: &RequestContext, body: &[u8]) -> DdbResult<Vec<u8>> {
    let input: TagInput = decode(body)?;
    let arn = input.resource_arn.as_deref();
    let name = table_name_of(arn, ctx, "ListTagsOfResource")?;
    let table = table_of(db, arn, name)?;
    let tags: Vec<Tag> = table
        .meta
        .lock()
        .tags
        .iter()
        .map(|(k, v)| Tag {
            key: k.clone(),
            value: v.clone(),
        })
        .collect();
    encode(&json!({ "Tags": tags }))
}

/// The tags of a CreateTable request, checked as TagResource checks them.
pub fn initial_tags(tags: Option<Vec<Tag>>) -> DdbResult<BTreeMap<String, String>> {
    let tags = tags.unwrap_or_default();
    check_tags(&tags)?;
    let map: BTreeMap<String, String> = tags.into_iter().map(|t| (t.key, t.value)).collect();
    if map.len() > MAX_TAGS {
        return Err(validation(
            "One or more parameter values were invalid: The number of tags exceeds the limit of 50",
        ));
    }
    Ok(map)
}

/// Keys of 1-128 characters, values of 0-256; `aws:` keys are AWS's own.
fn check_tags(tags: &[Tag]) -> DdbResult<()> {
    for tag in tags {
        let key_len = tag.key.chars().count();
        if key_len == 0 || key_len > 128 {
            return Err(validation(
                "One or more parameter values were invalid: Tag keys must be between 1 and 128 characters in length.",
            ));
        }
        if tag.value.chars().count() > 256 {
            return Err(validation(
                "One or more parameter values were invalid: Tag values must be between 0 and 256 characters in length.",
            ));
        }
        if tag.key.starts_with("aws:") {
            return Err(validation(
                "One or more parameter values were invalid: Tag keys starting with 'aws:' are reserved for system use.",
            ));
        }
    }
    Ok(())
}

/// The table an ARN names, with AWS's error for each way an ARN can be
/// wrong: absent or not an ARN (ValidationException), another service's or
/// another account's (AccessDeniedException), another region's or not a
/// table (ValidationException).
fn table_name_of<'a>(
    arn: Option<&'a str>,
    ctx: &RequestContext,
    operation: &str,
) -> DdbResult<&'a str> {
    let arn = arn.ok_or_else(|| validation("Invalid TableArn"))?;
    let invalid = || {
        validation(format!(
            "Invalid TableArn: Invalid ResourceArn provided as input {arn}"
        ))
    };
    let denied = || {
        DdbError::AccessDenied(format!(
            "User: arn:aws:iam::{}:root is not authorized to perform: dynamodb:{operation} on resource: {}",
            ctx.account_id,
            if arn.is_empty() { "*" } else { arn }
        ))
    };
    if arn.is_empty() {
        return Err(denied());
    }
    let parts: Vec<&str> = arn.splitn(6, ':').collect();
    let [prefix, _partition, service, region, account, resource] = parts[..] else {
        return Err(invalid());
    };
    if prefix != "arn" {
        return Err(invalid());
    }
    if service != "dynamodb" || account != ctx.account_id {
        return Err(denied());
    }
    let name = resource.strip_prefix("table/").ok_or_else(invalid)?;
    if region != ctx.region || name.contains('/') || check_name(name).is_err() {
        return Err(invalid());
    }
    Ok(name)
}

fn table_of(db: &DynamoDb, arn: Option<&str>, name: &str) -> DdbResult<Arc<Table>> {
    db.table(Some(name)).map_err(|e| match e {
        DdbError::ResourceNotFound(_) => DdbError::ResourceNotFound(format!(
            // AWS's own spelling.
            "Requested resource not found: ResourcArn: {} not found",
            arn.unwrap_or_default()
        )),
        other => other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> RequestContext {
        RequestContext::new("us-east-1", "000000000000")
    }

    fn code(arn: &str) -> &'static str {
        match table_name_of(Some(arn), &ctx(), "ListTagsOfResource") {
            Ok(_) => "ok",
            Err(DdbError::Validation(_)) => "ValidationException",
            Err(DdbError::AccessDenied(_)) => "AccessDeniedException",
            Err(_) => "other",
        }
    }

    #[test]
    fn arns_are_judged_as_aws_judges_them() {
        assert_eq!(
            code("arn:aws:dynamodb:us-east-1:000000000000:table/orders"),
            "ok"
        );
        assert_eq!(code("not-an-arn"), "ValidationException");
        assert_eq!(code("a:b:c:d:e:f/g"), "ValidationException");
        assert_eq!(
            code("arn:aws:dynamodb:us-east-1:000000000000:table/ab"),
            "ValidationException"
        );
        assert_eq!(
            code("arn:aws:dynamodb:eu-west-1:000000000000:table/orders"),
            "ValidationException"
        );
        assert_eq!(
            code("arn:aws:dynamodb:us-east-1:000000000000:stream/x"),
            "ValidationException"
        );
        assert_eq!(code("arn:aws:s3:::bucket"), "AccessDeniedException");
        assert_eq!(
            code("arn:aws:dynamodb:us-east-1:123456789012:table/orders"),
            "AccessDeniedException"
        );
        assert_eq!(code(""), "AccessDeniedException");
    }
}
