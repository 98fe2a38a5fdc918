//! `AWS::S3::Bucket`: its name and the settings the local S3 stores.

use crate::diag::At;
use crate::model::Bucket;
use crate::props::{check_keys, Reader};
use crate::yaml::Node;

const USED: &[&str] = &["BucketName", "VersioningConfiguration"];
const IGNORED: &[&str] = &[
    "BucketEncryption",
    "PublicAccessBlockConfiguration",
    "OwnershipControls",
    "LifecycleConfiguration",
    "CorsConfiguration",
    "Tags",
    "AccessControl",
    "LoggingConfiguration",
    "NotificationConfiguration",
];

pub(crate) fn bucket(id: &str, props: &Node, name: &str, r: &mut Reader) -> Option<Bucket> {
    let at = At::resource(id).child("Properties");
    check_keys(props, USED, IGNORED, &at, r.diags);
    let versioning = props.get("VersioningConfiguration").and_then(|v| {
        let at = at.child("VersioningConfiguration");
        r.string(&v.value, "Status", &at)
    });
    Some(Bucket {
        logical_id: id.to_string(),
        name: name.to_string(),
        arn: format!("arn:{}:s3:::{name}", r.scope.ctx.partition),
        versioning,
    })
}
