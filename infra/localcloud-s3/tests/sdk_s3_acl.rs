//! Object and bucket ACLs and GetObjectAttributes through the real Rust
//! SDK; both compared with moto where moto implements them
//! (`MOTO_ENDPOINT`, see scripts/oracles/moto.sh).

use aws_sdk_s3::error::ProvideErrorMetadata;
use aws_sdk_s3::primitives::ByteStream;
use aws_sdk_s3::types::{
    AccessControlPolicy, BucketCannedAcl, BucketVersioningStatus, ChecksumAlgorithm,
    CompletedMultipartUpload, CompletedPart, Grant, Grantee, ObjectAttributes, ObjectCannedAcl,
    ObjectOwnership, Owner, OwnershipControls, OwnershipControlsRule, Permission, StorageClass,
    Type, VersioningConfiguration,
};
use aws_sdk_s3::Client;

mod common;
use common::{client, moto_endpoint, with_buckets};

async fn set_ownership(s3: &Client, bucket: &str, ownership: ObjectOwnership) {
    s3.put_bucket_ownership_controls()
        .bucket(bucket)
        .ownership_controls(
            OwnershipControls::builder()
                .rules(
                    OwnershipControlsRule::builder()
                        .object_ownership(ownership)
                        .build()
                        .unwrap(),
                )
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
}

/// Each grant as "grantee permission", the owner's as "owner permission".
fn grants(owner: Option<&Owner>, grants: &[Grant]) -> Vec<String> {
    let owner_id = owner.and_then(|o| o.id());
    grants
        .iter()
        .map(|g| {
            let grantee = g.grantee().unwrap();
            let who = match (grantee.id(), grantee.uri()) {
                (Some(id), _) if Some(id) == owner_id => "owner".to_string(),
                (Some(id), _) => id.to_string(),
                (None, Some(uri)) => uri.rsplit('/').next().unwrap_or(uri).to_string(),
                (None, None) => "?".to_string(),
            };
            format!("{who} {}", g.permission().unwrap().as_str())
        })
        .collect()
}

async fn object_grants(s3: &Client, bucket: &str, key: &str) -> Vec<String> {
    let acl = s3
        .get_object_acl()
        .bucket(bucket)
        .key(key)
        .send()
        .await
        .unwrap();
    grants(acl.owner(), acl.grants())
}

async fn put(s3: &Client, bucket: &str, key: &str) {
    s3.put_object()
        .bucket(bucket)
        .key(key)
        .body(ByteStream::from_static(b"hello"))
        .send()
        .await
        .unwrap();
}

#[tokio::test]
async fn acls_are_disabled_by_default_and_stored_once_enabled() {
    // GIVEN a new bucket: Object Ownership BucketOwnerEnforced, as on AWS since April 2023
    let (server, s3) = with_buckets(&["acls"]).await;
    let controls = s3
        .get_bucket_ownership_controls()
        .bucket("acls")
        .send()
        .await
        .unwrap();
    assert_eq!(
        controls.ownership_controls().unwrap().rules()[0].object_ownership(),
        &ObjectOwnership::BucketOwnerEnforced
    );
    put(&s3, "acls", "k").await;
    // THEN ACLs read as the owner's FULL_CONTROL
    assert_eq!(
        object_grants(&s3, "acls", "k").await,
        vec!["owner FULL_CONTROL"]
    );
    let bucket_acl = s3.get_bucket_acl().bucket("acls").send().await.unwrap();
    assert_eq!(
        grants(bucket_acl.owner(), bucket_acl.grants()),
        vec!["owner FULL_CONTROL"]
    );
    // AND any other ACL is refused, on the object, an upload and the bucket
    let refused = s3
        .put_object_acl()
        .bucket("acls")
        .key("k")
        .acl(ObjectCannedAcl::PublicRead)
        .send()
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Some("AccessControlListNotSupported"));
    let upload = s3
        .put_object()
        .bucket("acls")
        .key("public")
        .acl(ObjectCannedAcl::PublicRead)
        .body(ByteStream::from_static(b"x"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(upload.code(), Some("AccessControlListNotSupported"));
    let not_stored = s3
        .head_object()
        .bucket("acls")
        .key("public")
        .send()
        .await
        .unwrap_err();
    assert!(not_stored.into_service_error().is_not_found());
    let bucket_refused = s3
        .put_bucket_acl()
        .bucket("acls")
        .acl(BucketCannedAcl::PublicRead)
        .send()
        .await
        .unwrap_err();
    assert_eq!(bucket_refused.code(), Some("AccessControlListNotSupported"));
    // AND the owner's full control is accepted
    s3.put_object_acl()
        .bucket("acls")
        .key("k")
        .acl(ObjectCannedAcl::BucketOwnerFullControl)
        .send()
        .await
        .unwrap();

    // WHEN ACLs are enabled (ObjectWriter)
    set_ownership(&s3, "acls", ObjectOwnership::ObjectWriter).await;
    s3.put_object_acl()
        .bucket("acls")
        .key("k")
        .acl(ObjectCannedAcl::PublicRead)
        .send()
        .await
        .unwrap();
    // THEN the canned ACL's grants are stored and read back
    assert_eq!(
        object_grants(&s3, "acls", "k").await,
        vec!["owner FULL_CONTROL", "AllUsers READ"]
    );
    // AND a bucket ACL given as a policy document reads back as given
    let owner = bucket_acl.owner().unwrap().clone();
    let reader = Grant::builder()
        .grantee(
            Grantee::builder()
                .r#type(Type::Group)
                .uri("http://acs.amazonaws.com/groups/global/AuthenticatedUsers")
                .build()
                .unwrap(),
        )
        .permission(Permission::Read)
        .build();
    s3.put_bucket_acl()
        .bucket("acls")
        .access_control_policy(
            AccessControlPolicy::builder()
                .owner(owner)
                .grants(reader)
                .build(),
        )
        .send()
        .await
        .unwrap();
    let bucket_acl = s3.get_bucket_acl().bucket("acls").send().await.unwrap();
    assert_eq!(
        grants(bucket_acl.owner(), bucket_acl.grants()),
        vec!["AuthenticatedUsers READ"]
    );
    // AND errors: an unknown key, an unknown canned ACL
    let missing = s3
        .put_object_acl()
        .bucket("acls")
        .key("nope")
        .acl(ObjectCannedAcl::Private)
        .send()
        .await
        .unwrap_err();
    assert_eq!(missing.code(), Some("NoSuchKey"));
    let unknown = s3
        .put_object_acl()
        .bucket("acls")
        .key("k")
        .acl(ObjectCannedAcl::from("everyone-everything"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(unknown.code(), Some("InvalidArgument"));

    // WHEN ACLs are disabled again
    set_ownership(&s3, "acls", ObjectOwnership::BucketOwnerEnforced).await;
    // THEN the stored ACL no longer shows
    assert_eq!(
        object_grants(&s3, "acls", "k").await,
        vec!["owner FULL_CONTROL"]
    );

    // AND CreateBucket takes an ACL with the Object Ownership that allows it
    let refused = s3
        .create_bucket()
        .bucket("public-by-default")
        .acl(BucketCannedAcl::PublicRead)
        .send()
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Some("InvalidBucketAclWithObjectOwnership"));
    s3.create_bucket()
        .bucket("public-writer")
        .object_ownership(ObjectOwnership::ObjectWriter)
        .acl(BucketCannedAcl::PublicRead)
        .send()
        .await
        .unwrap();
    let created = s3
        .get_bucket_acl()
        .bucket("public-writer")
        .send()
        .await
        .unwrap();
    assert_eq!(
        grants(created.owner(), created.grants()),
        vec!["owner FULL_CONTROL", "AllUsers READ"]
    );
    server.shutdown().await;
}

#[tokio::test]
async fn object_attributes_report_etag_size_class_checksum_and_parts() {
    // GIVEN an object uploaded whole with a CRC32 checksum
    let (server, s3) = with_buckets(&["attributes"]).await;
    let sent = s3
        .put_object()
        .bucket("attributes")
        .key("whole")
        .checksum_algorithm(ChecksumAlgorithm::Crc32)
        .body(ByteStream::from_static(b"hello"))
        .send()
        .await
        .unwrap();
    // WHEN its attributes are asked for
    let got = s3
        .get_object_attributes()
        .bucket("attributes")
        .key("whole")
        .object_attributes(ObjectAttributes::Etag)
        .object_attributes(ObjectAttributes::ObjectSize)
        .object_attributes(ObjectAttributes::StorageClass)
        .object_attributes(ObjectAttributes::Checksum)
        .object_attributes(ObjectAttributes::ObjectParts)
        .send()
        .await
        .unwrap();
    // THEN they are the upload's: the ETag unquoted, and no parts
    assert_eq!(got.e_tag(), sent.e_tag().map(|e| e.trim_matches('"')));
    assert_eq!(got.object_size(), Some(5));
    assert_eq!(got.storage_class(), Some(&StorageClass::Standard));
    assert!(sent.checksum_crc32().is_some());
    assert_eq!(
        got.checksum().and_then(|c| c.checksum_crc32()),
        sent.checksum_crc32()
    );
    assert!(got.object_parts().is_none());
    assert!(got.last_modified().is_some());

    // GIVEN an object made of two parts
    let upload = s3
        .create_multipart_upload()
        .bucket("attributes")
        .key("parts")
        .send()
        .await
        .unwrap();
    let id = upload.upload_id().unwrap();
    let mut completed = Vec::new();
    for (n, body) in [(1, vec![1u8; 5 * 1024 * 1024]), (2, b"tail".to_vec())] {
        let part = s3
            .upload_part()
            .bucket("attributes")
            .key("parts")
            .upload_id(id)
            .part_number(n)
            .body(ByteStream::from(body))
            .send()
            .await
            .unwrap();
        completed.push(
            CompletedPart::builder()
                .part_number(n)
                .e_tag(part.e_tag().unwrap())
                .build(),
        );
    }
    s3.complete_multipart_upload()
        .bucket("attributes")
        .key("parts")
        .upload_id(id)
        .multipart_upload(
            CompletedMultipartUpload::builder()
                .set_parts(Some(completed))
                .build(),
        )
        .send()
        .await
        .unwrap();
    // WHEN its parts are asked for one a page
    let first = s3
        .get_object_attributes()
        .bucket("attributes")
        .key("parts")
        .object_attributes(ObjectAttributes::ObjectParts)
        .max_parts(1)
        .send()
        .await
        .unwrap();
    // THEN the first page has part 1 and says more follow
    let parts = first.object_parts().unwrap();
    assert_eq!(parts.total_parts_count(), Some(2));
    assert_eq!(parts.is_truncated(), Some(true));
    assert_eq!(parts.parts().len(), 1);
    assert_eq!(parts.parts()[0].size(), Some(5 * 1024 * 1024));
    let second = s3
        .get_object_attributes()
        .bucket("attributes")
        .key("parts")
        .object_attributes(ObjectAttributes::ObjectParts)
        .part_number_marker(parts.next_part_number_marker().unwrap())
        .send()
        .await
        .unwrap();
    let rest = second.object_parts().unwrap();
    assert_eq!(
        (rest.parts()[0].part_number(), rest.parts()[0].size()),
        (Some(2), Some(4))
    );
    assert_eq!(rest.is_truncated(), Some(false));

    // AND an old version answers with its own attributes
    s3.put_bucket_versioning()
        .bucket("attributes")
        .versioning_configuration(
            VersioningConfiguration::builder()
                .status(BucketVersioningStatus::Enabled)
                .build(),
        )
        .send()
        .await
        .unwrap();
    let old = s3
        .put_object()
        .bucket("attributes")
        .key("v")
        .body(ByteStream::from_static(b"old"))
        .send()
        .await
        .unwrap();
    put(&s3, "attributes", "v").await;
    let old_attributes = s3
        .get_object_attributes()
        .bucket("attributes")
        .key("v")
        .version_id(old.version_id().unwrap())
        .object_attributes(ObjectAttributes::ObjectSize)
        .send()
        .await
        .unwrap();
    assert_eq!(old_attributes.object_size(), Some(3));
    assert_eq!(old_attributes.version_id(), old.version_id());
    // AND a missing key is NoSuchKey
    let missing = s3
        .get_object_attributes()
        .bucket("attributes")
        .key("nope")
        .object_attributes(ObjectAttributes::Etag)
        .send()
        .await
        .unwrap_err();
    assert_eq!(missing.code(), Some("NoSuchKey"));
    server.shutdown().await;
}

/// ACLs on a bucket with ACLs enabled, as seen through the SDK. (Not
/// GetObjectAttributes: moto answers its `Last-Modified` in a shape the SDK
/// refuses, docs/divergences-s3.md.)
async fn acl_scenario(s3: &Client, bucket: &str) -> Vec<String> {
    s3.create_bucket().bucket(bucket).send().await.unwrap();
    set_ownership(s3, bucket, ObjectOwnership::ObjectWriter).await;
    put(s3, bucket, "k").await;
    let mut seen = vec![format!(
        "default: {:?}",
        object_grants(s3, bucket, "k").await
    )];
    // Not public-read-write: moto leaves out its WRITE grant (docs/divergences-s3.md).
    for canned in [
        ObjectCannedAcl::PublicRead,
        ObjectCannedAcl::AuthenticatedRead,
        ObjectCannedAcl::Private,
    ] {
        s3.put_object_acl()
            .bucket(bucket)
            .key("k")
            .acl(canned.clone())
            .send()
            .await
            .unwrap();
        let grants = object_grants(s3, bucket, "k").await;
        seen.push(format!("{}: {grants:?}", canned.as_str()));
    }
    seen
}

#[tokio::test]
async fn acls_agree_with_moto() {
    let Some(moto) = moto_endpoint() else {
        eprintln!("skipped: MOTO_ENDPOINT is not set (scripts/oracles/moto.sh starts moto)");
        return;
    };
    let (server, local) = with_buckets(&[]).await;
    let bucket = format!("acls-{}", std::process::id());
    let ours = acl_scenario(&local, &bucket).await;
    let theirs = acl_scenario(&client(&moto, "us-east-1", true), &bucket).await;
    assert!(
        ours.contains(&r#"public-read: ["owner FULL_CONTROL", "AllUsers READ"]"#.to_string()),
        "{ours:#?}"
    );
    assert_eq!(ours, theirs);
    server.shutdown().await;
}
