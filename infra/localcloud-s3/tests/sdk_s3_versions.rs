//! S3 object versioning through the real Rust SDK: versions written by
//! puts, copies and multipart uploads, delete markers, reads and tags of a
//! version, ListObjectVersions pages, a suspended bucket's `null` version;
//! and one scenario compared with moto (`MOTO_ENDPOINT`, see
//! scripts/oracles/moto.sh).

use aws_sdk_s3::error::ProvideErrorMetadata;
use aws_sdk_s3::operation::list_object_versions::ListObjectVersionsOutput;
use aws_sdk_s3::primitives::ByteStream;
use aws_sdk_s3::types::{
    BucketVersioningStatus, Delete, ObjectIdentifier, Tag, Tagging, VersioningConfiguration,
};
use aws_sdk_s3::Client;

mod common;
use common::{client, moto_endpoint, with_buckets};

async fn set_versioning(s3: &Client, bucket: &str, status: BucketVersioningStatus) {
    s3.put_bucket_versioning()
        .bucket(bucket)
        .versioning_configuration(VersioningConfiguration::builder().status(status).build())
        .send()
        .await
        .unwrap();
}

/// Puts `body` under `key`; the version id the answer names.
async fn put(s3: &Client, bucket: &str, key: &str, body: &str) -> Option<String> {
    s3.put_object()
        .bucket(bucket)
        .key(key)
        .body(ByteStream::from(body.as_bytes().to_vec()))
        .send()
        .await
        .unwrap()
        .version_id()
        .map(str::to_string)
}

/// The body of `key` (or of one of its versions) as text.
async fn read(s3: &Client, bucket: &str, key: &str, version: Option<&str>) -> String {
    let got = s3
        .get_object()
        .bucket(bucket)
        .key(key)
        .set_version_id(version.map(str::to_string))
        .send()
        .await
        .unwrap();
    let bytes = got.body.collect().await.unwrap().into_bytes();
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// One page of ListObjectVersions.
async fn list_versions(s3: &Client, bucket: &str, max_keys: i32) -> ListObjectVersionsOutput {
    s3.list_object_versions()
        .bucket(bucket)
        .max_keys(max_keys)
        .send()
        .await
        .unwrap()
}

/// (key, version id, is latest, delete marker) of every version, in order.
async fn versions(s3: &Client, bucket: &str) -> Vec<(String, String, bool, bool)> {
    let listed = list_versions(s3, bucket, 1000).await;
    let mut all: Vec<_> = listed
        .versions()
        .iter()
        .map(|v| (v.key(), v.version_id(), v.is_latest(), false))
        .chain(
            listed
                .delete_markers()
                .iter()
                .map(|m| (m.key(), m.version_id(), m.is_latest(), true)),
        )
        .map(|(k, v, latest, marker)| {
            (
                k.unwrap_or_default().to_string(),
                v.unwrap_or_default().to_string(),
                latest.unwrap_or_default(),
                marker,
            )
        })
        .collect();
    // The SDK splits versions and markers into two lists; order by key,
    // then latest first, as S3 lists them.
    all.sort_by(|a, b| (&a.0, !a.2).cmp(&(&b.0, !b.2)));
    all
}

#[tokio::test]
async fn an_enabled_bucket_keeps_every_version_and_a_delete_writes_a_marker() {
    // GIVEN a bucket with versioning enabled and two puts of one key
    let (server, s3) = with_buckets(&["versioned"]).await;
    set_versioning(&s3, "versioned", BucketVersioningStatus::Enabled).await;
    let first = put(&s3, "versioned", "k", "one").await.unwrap();
    let second = put(&s3, "versioned", "k", "two").await.unwrap();
    assert_ne!(first, second);
    // THEN the key reads as the newest, and each version by its id
    assert_eq!(read(&s3, "versioned", "k", None).await, "two");
    assert_eq!(read(&s3, "versioned", "k", Some(&first)).await, "one");
    let head = s3
        .head_object()
        .bucket("versioned")
        .key("k")
        .version_id(&first)
        .send()
        .await
        .unwrap();
    assert_eq!(
        (head.version_id(), head.content_length()),
        (Some(first.as_str()), Some(3))
    );
    // AND tags belong to one version
    s3.put_object_tagging()
        .bucket("versioned")
        .key("k")
        .version_id(&first)
        .tagging(
            Tagging::builder()
                .tag_set(Tag::builder().key("old").value("yes").build().unwrap())
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    let old_tags = s3
        .get_object_tagging()
        .bucket("versioned")
        .key("k")
        .version_id(&first)
        .send()
        .await
        .unwrap();
    assert_eq!(old_tags.tag_set().len(), 1);
    assert_eq!(old_tags.version_id(), Some(first.as_str()));
    let current_tags = s3
        .get_object_tagging()
        .bucket("versioned")
        .key("k")
        .send()
        .await
        .unwrap();
    assert!(current_tags.tag_set().is_empty());

    // WHEN the key is deleted without a version id
    let deleted = s3
        .delete_object()
        .bucket("versioned")
        .key("k")
        .send()
        .await
        .unwrap();
    // THEN a delete marker is written and the key reads as missing
    assert_eq!(deleted.delete_marker(), Some(true));
    let marker = deleted.version_id().unwrap().to_string();
    let hidden = s3
        .get_object()
        .bucket("versioned")
        .key("k")
        .send()
        .await
        .unwrap_err();
    assert_eq!(hidden.code(), Some("NoSuchKey"));
    let headers = hidden.raw_response().unwrap().headers();
    assert_eq!(headers.get("x-amz-delete-marker"), Some("true"));
    assert_eq!(headers.get("x-amz-version-id"), Some(marker.as_str()));
    let named = s3
        .get_object()
        .bucket("versioned")
        .key("k")
        .version_id(&marker)
        .send()
        .await
        .unwrap_err();
    assert_eq!(named.code(), Some("MethodNotAllowed"));
    assert_eq!(named.raw_response().unwrap().status().as_u16(), 405);
    let unknown = s3
        .get_object()
        .bucket("versioned")
        .key("k")
        .version_id("no-such-version")
        .send()
        .await
        .unwrap_err();
    assert_eq!(unknown.code(), Some("NoSuchVersion"));
    let listed = s3
        .list_objects_v2()
        .bucket("versioned")
        .send()
        .await
        .unwrap();
    assert!(listed.contents().is_empty());
    // AND ListObjectVersions shows the marker as latest over both versions
    assert_eq!(
        versions(&s3, "versioned").await,
        vec![
            ("k".to_string(), marker.clone(), true, true),
            ("k".to_string(), second.clone(), false, false),
            ("k".to_string(), first.clone(), false, false),
        ]
    );
    // AND a bucket holding versions is not empty
    let full = s3
        .delete_bucket()
        .bucket("versioned")
        .send()
        .await
        .unwrap_err();
    assert_eq!(full.code(), Some("BucketNotEmpty"));

    // WHEN the marker is deleted by its version id
    let unmarked = s3
        .delete_object()
        .bucket("versioned")
        .key("k")
        .version_id(&marker)
        .send()
        .await
        .unwrap();
    // THEN the previous version is current again
    assert_eq!(unmarked.delete_marker(), Some(true));
    assert_eq!(unmarked.version_id(), Some(marker.as_str()));
    assert_eq!(read(&s3, "versioned", "k", None).await, "two");
    // AND copying the first version onto the key restores it as a new version
    let restored = s3
        .copy_object()
        .bucket("versioned")
        .key("k")
        .copy_source(format!("versioned/k?versionId={first}"))
        .send()
        .await
        .unwrap();
    assert_eq!(restored.copy_source_version_id(), Some(first.as_str()));
    let third = restored.version_id().unwrap().to_string();
    assert!(![&first, &second].contains(&&third));
    assert_eq!(read(&s3, "versioned", "k", None).await, "one");
    // AND DeleteObjects removes versions for good
    let removed = s3
        .delete_objects()
        .bucket("versioned")
        .delete(
            Delete::builder()
                .set_objects(Some(
                    [&first, &second, &third]
                        .iter()
                        .map(|v| {
                            ObjectIdentifier::builder()
                                .key("k")
                                .version_id(v.as_str())
                                .build()
                                .unwrap()
                        })
                        .collect(),
                ))
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    let ids: Vec<_> = removed
        .deleted()
        .iter()
        .filter_map(|d| d.version_id())
        .collect();
    assert_eq!(ids, vec![first.as_str(), second.as_str(), third.as_str()]);
    assert!(versions(&s3, "versioned").await.is_empty());
    s3.delete_bucket().bucket("versioned").send().await.unwrap();
    server.shutdown().await;
}

#[tokio::test]
async fn version_listings_page_by_key_and_version_id_markers() {
    // GIVEN three versions of "a", one of "b" and two keys under "dir/"
    let (server, s3) = with_buckets(&["pages"]).await;
    set_versioning(&s3, "pages", BucketVersioningStatus::Enabled).await;
    for key in ["a", "a", "a", "b", "dir/x", "dir/y"] {
        put(&s3, "pages", key, key).await;
    }
    // WHEN they are listed two entries a page, rolled up at "/"
    let mut seen = Vec::new();
    let (mut key_marker, mut version_marker) = (None::<String>, None::<String>);
    let mut pages = 0;
    loop {
        let page = s3
            .list_object_versions()
            .bucket("pages")
            .delimiter("/")
            .max_keys(2)
            .set_key_marker(key_marker.clone())
            .set_version_id_marker(version_marker.clone())
            .send()
            .await
            .unwrap();
        pages += 1;
        seen.extend(
            page.versions()
                .iter()
                .map(|v| format!("{}:{}", v.key().unwrap(), v.is_latest().unwrap())),
        );
        seen.extend(
            page.common_prefixes()
                .iter()
                .map(|p| p.prefix().unwrap().to_string()),
        );
        if page.is_truncated() != Some(true) {
            break;
        }
        key_marker = page.next_key_marker().map(str::to_string);
        version_marker = page.next_version_id_marker().map(str::to_string);
        assert!(pages < 10, "the listing does not end");
    }
    // THEN every version is listed once, newest first per key, in three pages
    assert_eq!(seen, vec!["a:true", "a:false", "a:false", "b:true", "dir/"]);
    assert_eq!(pages, 3);
    // AND a prefix narrows the listing
    let under = s3
        .list_object_versions()
        .bucket("pages")
        .prefix("dir/")
        .send()
        .await
        .unwrap();
    assert_eq!(under.versions().len(), 2);
    // AND a version-id marker needs a key marker
    let alone = s3
        .list_object_versions()
        .bucket("pages")
        .version_id_marker("x")
        .send()
        .await
        .unwrap_err();
    assert_eq!(alone.code(), Some("InvalidArgument"));
    let missing = s3
        .list_object_versions()
        .bucket("no-such-bucket")
        .send()
        .await
        .unwrap_err();
    assert_eq!(missing.code(), Some("NoSuchBucket"));
    server.shutdown().await;
}

#[tokio::test]
async fn a_suspended_bucket_writes_and_deletes_the_null_version_only() {
    // GIVEN an object written before versioning, one version while enabled
    let (server, s3) = with_buckets(&["suspended"]).await;
    assert_eq!(put(&s3, "suspended", "k", "before").await, None);
    set_versioning(&s3, "suspended", BucketVersioningStatus::Enabled).await;
    let kept = put(&s3, "suspended", "k", "enabled").await.unwrap();
    // WHEN versioning is suspended and the key is put twice
    set_versioning(&s3, "suspended", BucketVersioningStatus::Suspended).await;
    let status = s3
        .get_bucket_versioning()
        .bucket("suspended")
        .send()
        .await
        .unwrap();
    assert_eq!(status.status(), Some(&BucketVersioningStatus::Suspended));
    assert_eq!(
        put(&s3, "suspended", "k", "suspended 1").await.as_deref(),
        Some("null")
    );
    put(&s3, "suspended", "k", "suspended 2").await;
    // THEN the null version was replaced each time; the enabled one is kept
    let listed = versions(&s3, "suspended").await;
    let ids: Vec<_> = listed.iter().map(|v| v.1.as_str()).collect();
    assert_eq!(ids, vec!["null", kept.as_str()]);
    assert_eq!(
        read(&s3, "suspended", "k", Some("null")).await,
        "suspended 2"
    );
    // AND a simple delete replaces the null version with a null delete marker
    let deleted = s3
        .delete_object()
        .bucket("suspended")
        .key("k")
        .send()
        .await
        .unwrap();
    assert_eq!(
        (deleted.delete_marker(), deleted.version_id()),
        (Some(true), Some("null"))
    );
    assert_eq!(
        versions(&s3, "suspended").await,
        vec![
            ("k".to_string(), "null".to_string(), true, true),
            ("k".to_string(), kept.clone(), false, false),
        ]
    );
    assert_eq!(read(&s3, "suspended", "k", Some(&kept)).await, "enabled");
    server.shutdown().await;
}

/// One scenario of versioned writes, deletes and reads; what each step
/// answered, with version ids replaced by their order of appearance.
async fn versioning_scenario(s3: &Client, bucket: &str) -> Vec<String> {
    s3.create_bucket().bucket(bucket).send().await.unwrap();
    set_versioning(s3, bucket, BucketVersioningStatus::Enabled).await;
    let mut ids: Vec<String> = Vec::new();
    let mut name = |id: Option<&str>| -> String {
        let Some(id) = id else {
            return "-".into();
        };
        let index = ids.iter().position(|x| x == id).unwrap_or_else(|| {
            ids.push(id.to_string());
            ids.len() - 1
        });
        format!("v{index}")
    };
    let mut seen = Vec::new();
    let mut written = Vec::new();
    for (key, body) in [("a", "1"), ("a", "2"), ("b/c", "3"), ("a", "4")] {
        // moto orders a key's versions by time, to the millisecond.
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        let id = put(s3, bucket, key, body).await;
        seen.push(format!("put {key}: {}", name(id.as_deref())));
        written.push(id.unwrap_or_default());
    }
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let deleted = s3
        .delete_object()
        .bucket(bucket)
        .key("a")
        .send()
        .await
        .unwrap();
    seen.push(format!(
        "delete a: marker={:?} {}",
        deleted.delete_marker(),
        name(deleted.version_id())
    ));
    let hidden = s3
        .get_object()
        .bucket(bucket)
        .key("a")
        .send()
        .await
        .unwrap_err();
    // moto sends no `x-amz-delete-marker` here (docs/divergences-s3.md);
    // the SDK test above checks the local cloud's.
    seen.push(format!("get a: {:?}", hidden.code()));
    let old = read(s3, bucket, "a", Some(&written[0])).await;
    seen.push(format!("get a@{}: {old}", name(Some(&written[0]))));
    let unknown = s3
        .get_object()
        .bucket(bucket)
        .key("a")
        .version_id("nonexistentversion00000000000000")
        .send()
        .await
        .unwrap_err();
    seen.push(format!("get a@unknown: {:?}", unknown.code()));
    for page_size in [1000, 2] {
        let listed = list_versions(s3, bucket, page_size).await;
        let mut entries: Vec<String> = listed
            .versions()
            .iter()
            .map(|v| {
                format!(
                    "{} {} latest={:?} size={:?}",
                    v.key().unwrap_or_default(),
                    name(v.version_id()),
                    v.is_latest(),
                    v.size()
                )
            })
            .collect();
        entries.extend(listed.delete_markers().iter().map(|m| {
            format!(
                "{} {} latest={:?} marker",
                m.key().unwrap_or_default(),
                name(m.version_id()),
                m.is_latest()
            )
        }));
        seen.push(format!(
            "versions max {page_size}: {entries:?} truncated={:?} next={:?}/{}",
            listed.is_truncated(),
            listed.next_key_marker(),
            name(listed.next_version_id_marker())
        ));
    }
    let removed = s3
        .delete_object()
        .bucket(bucket)
        .key("a")
        .version_id(&written[3])
        .send()
        .await
        .unwrap();
    seen.push(format!(
        "delete a@{}: marker={:?}",
        name(removed.version_id()),
        removed.delete_marker()
    ));
    seen
}

#[tokio::test]
async fn versioning_agrees_with_moto() {
    let Some(moto) = moto_endpoint() else {
        eprintln!("skipped: MOTO_ENDPOINT is not set (scripts/oracles/moto.sh starts moto)");
        return;
    };
    let (server, local) = with_buckets(&[]).await;
    let bucket = format!("versions-{}", std::process::id());
    let ours = versioning_scenario(&local, &bucket).await;
    let theirs = versioning_scenario(&client(&moto, "us-east-1", true), &bucket).await;
    assert!(ours.contains(&"get a@v0: 1".to_string()), "{ours:#?}");
    assert_eq!(ours, theirs);
    server.shutdown().await;
}
