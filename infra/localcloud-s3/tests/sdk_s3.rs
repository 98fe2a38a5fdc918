//! S3 through the real Rust SDK: buckets, settings, objects, listings,
//! multipart uploads and AWS's error codes, path style and virtual-host style.

use aws_sdk_s3::error::ProvideErrorMetadata;
use aws_sdk_s3::primitives::ByteStream;
use aws_sdk_s3::types::{
    BucketLocationConstraint, BucketVersioningStatus, CompletedMultipartUpload, CompletedPart,
    CreateBucketConfiguration, VersioningConfiguration,
};
use aws_sdk_s3::Client;

mod common;
use common::{client, start, with_buckets};

fn in_eu_west_1() -> CreateBucketConfiguration {
    CreateBucketConfiguration::builder()
        .location_constraint(BucketLocationConstraint::EuWest1)
        .build()
}

#[tokio::test]
async fn buckets_are_created_listed_headed_and_deleted_with_aws_error_codes() {
    // GIVEN a local S3 and a path-style client in eu-west-1
    let (server, _) = start().await;
    let s3 = client(&format!("http://{}", server.addr), "eu-west-1", true);
    // WHEN a bucket is created with its location constraint
    s3.create_bucket()
        .bucket("deploy-artifacts")
        .create_bucket_configuration(in_eu_west_1())
        .send()
        .await
        .unwrap();
    // THEN it is listed, heads with its region, and a second create is BucketAlreadyOwnedByYou
    let names: Vec<_> = s3
        .list_buckets()
        .send()
        .await
        .unwrap()
        .buckets()
        .iter()
        .filter_map(|b| b.name().map(str::to_string))
        .collect();
    assert_eq!(names, vec!["deploy-artifacts"]);
    let head = s3
        .head_bucket()
        .bucket("deploy-artifacts")
        .send()
        .await
        .unwrap();
    assert_eq!(head.bucket_region(), Some("eu-west-1"));
    let again = s3
        .create_bucket()
        .bucket("deploy-artifacts")
        .create_bucket_configuration(in_eu_west_1())
        .send()
        .await
        .unwrap_err();
    assert_eq!(again.code(), Some("BucketAlreadyOwnedByYou"));
    let location = s3
        .get_bucket_location()
        .bucket("deploy-artifacts")
        .send()
        .await
        .unwrap();
    assert_eq!(
        location.location_constraint(),
        Some(&BucketLocationConstraint::EuWest1)
    );
    // AND an invalid name and a missing bucket give their codes
    let bad = s3
        .create_bucket()
        .bucket("Bad_Name")
        .send()
        .await
        .unwrap_err();
    assert_eq!(bad.code(), Some("InvalidBucketName"));
    let missing = s3
        .head_bucket()
        .bucket("nope-bucket")
        .send()
        .await
        .unwrap_err();
    assert!(missing.into_service_error().is_not_found());
    // AND a bucket with an object cannot be deleted until it is empty
    s3.put_object()
        .bucket("deploy-artifacts")
        .key("k")
        .body(ByteStream::from_static(b"v"))
        .send()
        .await
        .unwrap();
    let full = s3
        .delete_bucket()
        .bucket("deploy-artifacts")
        .send()
        .await
        .unwrap_err();
    assert_eq!(full.code(), Some("BucketNotEmpty"));
    s3.delete_object()
        .bucket("deploy-artifacts")
        .key("k")
        .send()
        .await
        .unwrap();
    s3.delete_bucket()
        .bucket("deploy-artifacts")
        .send()
        .await
        .unwrap();
    let gone = s3
        .delete_bucket()
        .bucket("deploy-artifacts")
        .send()
        .await
        .unwrap_err();
    assert_eq!(gone.code(), Some("NoSuchBucket"));
    server.shutdown().await;
}

#[tokio::test]
async fn bucket_settings_are_stored_and_read_back() {
    // GIVEN a bucket
    let (server, _) = start().await;
    let s3 = client(&format!("http://{}", server.addr), "us-east-1", true);
    s3.create_bucket().bucket("settings").send().await.unwrap();
    // THEN before anything is set: no policy, not versioned, SSE-S3 by default
    let no_policy = s3
        .get_bucket_policy()
        .bucket("settings")
        .send()
        .await
        .unwrap_err();
    assert_eq!(no_policy.code(), Some("NoSuchBucketPolicy"));
    let versioning = s3
        .get_bucket_versioning()
        .bucket("settings")
        .send()
        .await
        .unwrap();
    assert_eq!(versioning.status(), None);
    let encryption = s3
        .get_bucket_encryption()
        .bucket("settings")
        .send()
        .await
        .unwrap();
    let rules = encryption
        .server_side_encryption_configuration()
        .unwrap()
        .rules();
    assert_eq!(
        rules[0]
            .apply_server_side_encryption_by_default()
            .unwrap()
            .sse_algorithm()
            .as_str(),
        "AES256"
    );
    // WHEN a policy and versioning are put
    let policy = r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"serverlessrepo.amazonaws.com"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::settings/*"}]}"#;
    s3.put_bucket_policy()
        .bucket("settings")
        .policy(policy)
        .send()
        .await
        .unwrap();
    s3.put_bucket_versioning()
        .bucket("settings")
        .versioning_configuration(
            VersioningConfiguration::builder()
                .status(BucketVersioningStatus::Enabled)
                .build(),
        )
        .send()
        .await
        .unwrap();
    // THEN they read back as put
    let got = s3
        .get_bucket_policy()
        .bucket("settings")
        .send()
        .await
        .unwrap();
    assert_eq!(got.policy(), Some(policy));
    let versioning = s3
        .get_bucket_versioning()
        .bucket("settings")
        .send()
        .await
        .unwrap();
    assert_eq!(versioning.status(), Some(&BucketVersioningStatus::Enabled));
    server.shutdown().await;
}

#[tokio::test]
async fn objects_round_trip_with_metadata_ranges_and_listings() {
    // GIVEN a bucket
    let (server, _) = start().await;
    let s3 = client(&format!("http://{}", server.addr), "us-east-1", true);
    s3.create_bucket().bucket("objects").send().await.unwrap();
    // WHEN objects are put
    for key in ["app/a.zip", "app/b.zip", "templates/t.yaml", "root.txt"] {
        s3.put_object()
            .bucket("objects")
            .key(key)
            .content_type("text/plain")
            .metadata("origin", "test")
            .body(ByteStream::from(format!("body of {key}").into_bytes()))
            .send()
            .await
            .unwrap();
    }
    // THEN get returns body, type, metadata and the MD5 ETag
    let got = s3
        .get_object()
        .bucket("objects")
        .key("app/a.zip")
        .send()
        .await
        .unwrap();
    assert_eq!(got.content_type(), Some("text/plain"));
    assert_eq!(got.metadata().unwrap()["origin"], "test");
    let etag = got.e_tag().unwrap().to_string();
    assert_eq!(
        &got.body.collect().await.unwrap().into_bytes()[..],
        b"body of app/a.zip"
    );
    assert!(
        etag.len() == 34 && etag.starts_with('"') && etag.ends_with('"'),
        "{etag}"
    );
    // AND a range is served as 206
    let part = s3
        .get_object()
        .bucket("objects")
        .key("root.txt")
        .range("bytes=0-3")
        .send()
        .await
        .unwrap();
    assert_eq!(part.content_range(), Some("bytes 0-3/16"));
    assert_eq!(
        &part.body.collect().await.unwrap().into_bytes()[..],
        b"body"
    );
    // AND head and list v2 (with delimiter and pages) see the objects
    let head = s3
        .head_object()
        .bucket("objects")
        .key("templates/t.yaml")
        .send()
        .await
        .unwrap();
    assert_eq!(
        head.content_length(),
        Some("body of templates/t.yaml".len() as i64)
    );
    let top = s3
        .list_objects_v2()
        .bucket("objects")
        .delimiter("/")
        .send()
        .await
        .unwrap();
    let prefixes: Vec<_> = top
        .common_prefixes()
        .iter()
        .filter_map(|p| p.prefix())
        .collect();
    assert_eq!(prefixes, vec!["app/", "templates/"]);
    assert_eq!(top.contents().len(), 1);
    let page = s3
        .list_objects_v2()
        .bucket("objects")
        .prefix("app/")
        .max_keys(1)
        .send()
        .await
        .unwrap();
    assert_eq!(page.is_truncated(), Some(true));
    let next = s3
        .list_objects_v2()
        .bucket("objects")
        .prefix("app/")
        .continuation_token(page.next_continuation_token().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(next.contents()[0].key(), Some("app/b.zip"));
    assert_eq!(next.is_truncated(), Some(false));
    // AND missing keys and buckets give NoSuchKey / NoSuchBucket
    let missing = s3
        .get_object()
        .bucket("objects")
        .key("nope")
        .send()
        .await
        .unwrap_err();
    assert_eq!(missing.code(), Some("NoSuchKey"));
    let head_missing = s3
        .head_object()
        .bucket("objects")
        .key("nope")
        .send()
        .await
        .unwrap_err();
    assert!(head_missing.into_service_error().is_not_found());
    let no_bucket = s3
        .get_object()
        .bucket("nobucket")
        .key("k")
        .send()
        .await
        .unwrap_err();
    assert_eq!(no_bucket.code(), Some("NoSuchBucket"));
    server.shutdown().await;
}

#[tokio::test]
async fn a_multipart_upload_joins_its_parts() {
    // GIVEN a bucket and an upload of a 5 MiB part and a small one
    let (server, service) = start().await;
    let s3 = client(&format!("http://{}", server.addr), "us-east-1", true);
    s3.create_bucket().bucket("multi").send().await.unwrap();
    let upload = s3
        .create_multipart_upload()
        .bucket("multi")
        .key("big.zip")
        .send()
        .await
        .unwrap();
    let id = upload.upload_id().unwrap();
    let first = vec![7u8; 5 * 1024 * 1024];
    let mut parts = Vec::new();
    for (n, body) in [(1, first.clone()), (2, b"tail".to_vec())] {
        let sent = s3
            .upload_part()
            .bucket("multi")
            .key("big.zip")
            .upload_id(id)
            .part_number(n)
            .body(ByteStream::from(body))
            .send()
            .await
            .unwrap();
        parts.push(
            CompletedPart::builder()
                .part_number(n)
                .e_tag(sent.e_tag().unwrap())
                .build(),
        );
    }
    // WHEN it is completed
    let done = s3
        .complete_multipart_upload()
        .bucket("multi")
        .key("big.zip")
        .upload_id(id)
        .multipart_upload(
            CompletedMultipartUpload::builder()
                .set_parts(Some(parts))
                .build(),
        )
        .send()
        .await
        .unwrap();
    // THEN the object is the parts joined, with a multipart ETag
    assert!(done.e_tag().unwrap().ends_with("-2\""));
    let object = service.get_object("multi", "big.zip").unwrap();
    assert_eq!(object.body.len(), first.len() + 4);
    assert_eq!(&object.body[first.len()..], b"tail");
    // AND the upload id is gone
    let again = s3
        .abort_multipart_upload()
        .bucket("multi")
        .key("big.zip")
        .upload_id(id)
        .send()
        .await
        .unwrap_err();
    assert_eq!(again.code(), Some("NoSuchUpload"));
    server.shutdown().await;
}

/// One raw HTTP/1.1 request; status and body.
async fn raw(addr: std::net::SocketAddr, request: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let status = response[9..12].parse().unwrap();
    (
        status,
        response
            .split_once("\r\n\r\n")
            .map(|(_, b)| b.to_string())
            .unwrap_or_default(),
    )
}

#[tokio::test]
async fn virtual_host_style_requests_name_the_bucket_in_the_host() {
    // GIVEN a bucket
    let (server, service) = start().await;
    service.create_bucket("site", "us-east-1").unwrap();
    // WHEN an unsigned object is put and read with the bucket in the Host header
    let put = "PUT /dir/page.txt HTTP/1.1\r\nhost: site.s3.localhost.localstack.cloud:4566\r\ncontent-length: 5\r\nconnection: close\r\n\r\nhello";
    assert_eq!(raw(server.addr, put).await.0, 200);
    let get =
        "GET /dir/page.txt HTTP/1.1\r\nhost: site.localhost:4566\r\nconnection: close\r\n\r\n";
    // THEN it is stored under that bucket and key
    assert_eq!(raw(server.addr, get).await, (200, "hello".to_string()));
    assert_eq!(
        &service.get_object("site", "dir/page.txt").unwrap().body[..],
        b"hello"
    );
    // AND a missing key is AWS's XML error
    let missing = "GET /nope HTTP/1.1\r\nhost: site.localhost\r\nconnection: close\r\n\r\n";
    let (status, body) = raw(server.addr, missing).await;
    assert_eq!(status, 404);
    assert!(
        body.contains("<Code>NoSuchKey</Code>") && body.contains("<Key>nope</Key>"),
        "{body}"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn an_aws_chunked_upload_is_stored_decoded() {
    // GIVEN a bucket and a streaming-signed (aws-chunked) PUT
    let (server, service) = start().await;
    service.create_bucket("chunks", "us-east-1").unwrap();
    let body = "5;chunk-signature=aa\r\nhello\r\n0;chunk-signature=bb\r\n\r\n";
    let put = format!(
        "PUT /chunks/k HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: AWS4-HMAC-SHA256 Credential=x/20250101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=0\r\nx-amz-content-sha256: STREAMING-AWS4-HMAC-SHA256-PAYLOAD\r\ncontent-encoding: aws-chunked\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    assert_eq!(raw(server.addr, &put).await.0, 200);
    // THEN the object is the payload without the framing
    assert_eq!(
        &service.get_object("chunks", "k").unwrap().body[..],
        b"hello"
    );
    server.shutdown().await;
}

/// A local S3 with a path-style us-east-1 client and the named buckets.
async fn body_of(s3: &Client, bucket: &str, key: &str) -> Vec<u8> {
    s3.get_object()
        .bucket(bucket)
        .key(key)
        .send()
        .await
        .unwrap()
        .body
        .collect()
        .await
        .unwrap()
        .to_vec()
}

#[tokio::test]
async fn copy_object_copies_within_and_across_buckets_with_non_ascii_keys() {
    // GIVEN an object with metadata, a content type and a tag, under a non-ASCII key
    let (_server, s3) = with_buckets(&["copy-src", "copy-dst"]).await;
    let source = "dossier/été 2026+ünï.txt";
    s3.put_object()
        .bucket("copy-src")
        .key(source)
        .body(ByteStream::from_static(b"contents"))
        .content_type("text/plain")
        .metadata("owner", "ana")
        .tagging("stage=raw")
        .send()
        .await
        .unwrap();
    // WHEN it is copied to the same bucket and to another one
    let copy_source = format!("copy-src/{}", urlencode(source));
    let same = s3
        .copy_object()
        .bucket("copy-src")
        .key("copie/ça.txt")
        .copy_source(&copy_source)
        .send()
        .await
        .unwrap();
    s3.copy_object()
        .bucket("copy-dst")
        .key(source)
        .copy_source(&copy_source)
        .send()
        .await
        .unwrap();
    // THEN both copies hold the bytes, metadata, type and tags of the source
    let etag = same.copy_object_result.unwrap().e_tag.unwrap();
    assert_eq!(etag, format!("\"{}\"", md5_hex(b"contents")));
    for (bucket, key) in [("copy-src", "copie/ça.txt"), ("copy-dst", source)] {
        assert_eq!(body_of(&s3, bucket, key).await, b"contents");
        let head = s3
            .head_object()
            .bucket(bucket)
            .key(key)
            .send()
            .await
            .unwrap();
        assert_eq!(head.content_type(), Some("text/plain"));
        assert_eq!(head.metadata().unwrap()["owner"], "ana");
        let tags = s3
            .get_object_tagging()
            .bucket(bucket)
            .key(key)
            .send()
            .await
            .unwrap();
        assert_eq!(tags.tag_set()[0].key(), "stage");
    }
}

fn urlencode(key: &str) -> String {
    key.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~/".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn md5_hex(bytes: &[u8]) -> String {
    use md5::{Digest, Md5};
    hex::encode(Md5::digest(bytes))
}

#[tokio::test]
async fn copy_object_replaces_metadata_on_request_and_refuses_a_plain_self_copy() {
    let (_server, s3) = with_buckets(&["copy-meta"]).await;
    s3.put_object()
        .bucket("copy-meta")
        .key("k")
        .body(ByteStream::from_static(b"x"))
        .metadata("a", "1")
        .send()
        .await
        .unwrap();
    // WHEN copied onto itself without REPLACE THEN InvalidRequest
    let err = s3
        .copy_object()
        .bucket("copy-meta")
        .key("k")
        .copy_source("copy-meta/k")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidRequest"));
    // WHEN copied onto itself with REPLACE THEN the metadata is the request's
    s3.copy_object()
        .bucket("copy-meta")
        .key("k")
        .copy_source("copy-meta/k")
        .metadata_directive(aws_sdk_s3::types::MetadataDirective::Replace)
        .metadata("b", "2")
        .send()
        .await
        .unwrap();
    let head = s3
        .head_object()
        .bucket("copy-meta")
        .key("k")
        .send()
        .await
        .unwrap();
    let metadata = head.metadata().unwrap();
    assert_eq!(
        (metadata.get("a"), metadata.get("b").map(String::as_str)),
        (None, Some("2"))
    );
    // AND a missing source is NoSuchKey, a missing source bucket NoSuchBucket
    let err = s3
        .copy_object()
        .bucket("copy-meta")
        .key("k2")
        .copy_source("copy-meta/absent")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("NoSuchKey"));
    let err = s3
        .copy_object()
        .bucket("copy-meta")
        .key("k2")
        .copy_source("no-such-bucket-x/k")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("NoSuchBucket"));
}

#[tokio::test]
async fn upload_part_copy_builds_a_multipart_object_from_ranges() {
    // GIVEN a 6 MiB source object
    let (_server, s3) = with_buckets(&["part-copy"]).await;
    let source: Vec<u8> = (0..6 * 1024 * 1024).map(|i| (i % 251) as u8).collect();
    s3.put_object()
        .bucket("part-copy")
        .key("big")
        .body(ByteStream::from(source.clone()))
        .send()
        .await
        .unwrap();
    let upload = s3
        .create_multipart_upload()
        .bucket("part-copy")
        .key("joined")
        .send()
        .await
        .unwrap();
    let id = upload.upload_id().unwrap();
    // WHEN its first 5 MiB and then the rest are copied as two parts
    let split = 5 * 1024 * 1024;
    let mut parts = Vec::new();
    for (number, range) in [
        (1, format!("bytes=0-{}", split - 1)),
        (2, format!("bytes={split}-{}", source.len() - 1)),
    ] {
        let out = s3
            .upload_part_copy()
            .bucket("part-copy")
            .key("joined")
            .upload_id(id)
            .part_number(number)
            .copy_source("part-copy/big")
            .copy_source_range(range)
            .send()
            .await
            .unwrap();
        parts.push(
            CompletedPart::builder()
                .part_number(number)
                .e_tag(out.copy_part_result.unwrap().e_tag.unwrap())
                .build(),
        );
    }
    s3.complete_multipart_upload()
        .bucket("part-copy")
        .key("joined")
        .upload_id(id)
        .multipart_upload(
            CompletedMultipartUpload::builder()
                .set_parts(Some(parts))
                .build(),
        )
        .send()
        .await
        .unwrap();
    // THEN the joined object is the source
    assert_eq!(body_of(&s3, "part-copy", "joined").await, source);
    // AND a range past the end is refused
    let err = s3
        .upload_part_copy()
        .bucket("part-copy")
        .key("joined2")
        .upload_id(id)
        .part_number(1)
        .copy_source("part-copy/big")
        .copy_source_range("bytes=0-99999999")
        .send()
        .await
        .unwrap_err();
    assert!(err.code().is_some());
}

#[tokio::test]
async fn object_tags_are_put_read_and_deleted() {
    let (_server, s3) = with_buckets(&["tagging"]).await;
    s3.put_object()
        .bucket("tagging")
        .key("k")
        .body(ByteStream::from_static(b"x"))
        .send()
        .await
        .unwrap();
    let tag = |k: &str, v: &str| {
        aws_sdk_s3::types::Tag::builder()
            .key(k)
            .value(v)
            .build()
            .unwrap()
    };
    // WHEN two tags are put
    s3.put_object_tagging()
        .bucket("tagging")
        .key("k")
        .tagging(
            aws_sdk_s3::types::Tagging::builder()
                .tag_set(tag("env", "prod"))
                .tag_set(tag("team", "a&b <c>"))
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    // THEN they are read back, counted on GetObject
    let got = s3
        .get_object_tagging()
        .bucket("tagging")
        .key("k")
        .send()
        .await
        .unwrap();
    let pairs: Vec<(&str, &str)> = got.tag_set().iter().map(|t| (t.key(), t.value())).collect();
    assert_eq!(pairs, vec![("env", "prod"), ("team", "a&b <c>")]);
    let object = s3
        .get_object()
        .bucket("tagging")
        .key("k")
        .send()
        .await
        .unwrap();
    assert_eq!(object.tag_count(), Some(2));
    // WHEN deleted THEN the set is empty
    s3.delete_object_tagging()
        .bucket("tagging")
        .key("k")
        .send()
        .await
        .unwrap();
    let got = s3
        .get_object_tagging()
        .bucket("tagging")
        .key("k")
        .send()
        .await
        .unwrap();
    assert!(got.tag_set().is_empty());
    // AND tagging a missing object is NoSuchKey; eleven tags are InvalidTag
    let err = s3
        .get_object_tagging()
        .bucket("tagging")
        .key("absent")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("NoSuchKey"));
    let mut eleven = aws_sdk_s3::types::Tagging::builder();
    for i in 0..11 {
        eleven = eleven.tag_set(tag(&format!("k{i}"), "v"));
    }
    let err = s3
        .put_object_tagging()
        .bucket("tagging")
        .key("k")
        .tagging(eleven.build().unwrap())
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("InvalidTag"));
}

#[tokio::test]
async fn delete_bucket_removes_an_empty_bucket_only() {
    let (_server, s3) = with_buckets(&["to-delete", "not-empty"]).await;
    s3.put_object()
        .bucket("not-empty")
        .key("k")
        .body(ByteStream::from_static(b"x"))
        .send()
        .await
        .unwrap();
    // WHEN each is deleted
    s3.delete_bucket().bucket("to-delete").send().await.unwrap();
    let err = s3
        .delete_bucket()
        .bucket("not-empty")
        .send()
        .await
        .unwrap_err();
    // THEN the empty one is gone, the other refused, and a missing one NoSuchBucket
    assert_eq!(err.code(), Some("BucketNotEmpty"));
    let err = s3
        .head_bucket()
        .bucket("to-delete")
        .send()
        .await
        .unwrap_err();
    assert!(err.as_service_error().is_some_and(|e| e.is_not_found()));
    let err = s3
        .delete_bucket()
        .bucket("to-delete")
        .send()
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("NoSuchBucket"));
}

#[tokio::test]
async fn us_east_1_is_named_by_no_location_constraint() {
    let (_server, s3) = with_buckets(&[]).await;
    // WHEN a bucket is created in us-east-1 naming us-east-1
    let err = s3
        .create_bucket()
        .bucket("explicit-east")
        .create_bucket_configuration(
            CreateBucketConfiguration::builder()
                .location_constraint(BucketLocationConstraint::from("us-east-1"))
                .build(),
        )
        .send()
        .await
        .unwrap_err();
    // THEN AWS's InvalidLocationConstraint
    assert_eq!(err.code(), Some("InvalidLocationConstraint"));
    // AND without a constraint its location reads back empty (us-east-1)
    s3.create_bucket()
        .bucket("implicit-east")
        .send()
        .await
        .unwrap();
    let location = s3
        .get_bucket_location()
        .bucket("implicit-east")
        .send()
        .await
        .unwrap();
    assert_eq!(
        location
            .location_constraint()
            .map(|c| c.as_str())
            .unwrap_or(""),
        ""
    );
}

#[tokio::test]
async fn uploads_in_progress_and_their_parts_are_listed_by_key_and_page() {
    // GIVEN three uploads under two keys, the first with three parts
    let (server, _service) = start().await;
    let s3 = client(&format!("http://{}", server.addr), "us-east-1", true);
    s3.create_bucket().bucket("inflight").send().await.unwrap();
    let mut ids = Vec::new();
    for key in ["logs/b.gz", "logs/a.gz", "other"] {
        let upload = s3
            .create_multipart_upload()
            .bucket("inflight")
            .key(key)
            .send()
            .await
            .unwrap();
        ids.push((key, upload.upload_id().unwrap().to_string()));
    }
    let (key, id) = ids[0].clone();
    for n in 1..=3 {
        s3.upload_part()
            .bucket("inflight")
            .key(key)
            .upload_id(&id)
            .part_number(n)
            .body(ByteStream::from(vec![n as u8; 10 * n as usize]))
            .send()
            .await
            .unwrap();
    }
    // WHEN the uploads are listed under a prefix
    let listed = s3
        .list_multipart_uploads()
        .bucket("inflight")
        .prefix("logs/")
        .send()
        .await
        .unwrap();
    // THEN they come sorted by key, the other key left out
    let keys: Vec<_> = listed.uploads().iter().map(|u| u.key().unwrap()).collect();
    assert_eq!(keys, ["logs/a.gz", "logs/b.gz"]);
    assert_eq!(listed.is_truncated(), Some(false));
    // AND a page of one names where the next starts, and the next page holds the rest
    let page = s3
        .list_multipart_uploads()
        .bucket("inflight")
        .max_uploads(1)
        .send()
        .await
        .unwrap();
    assert_eq!(page.uploads().len(), 1);
    assert_eq!(page.is_truncated(), Some(true));
    let rest = s3
        .list_multipart_uploads()
        .bucket("inflight")
        .key_marker(page.next_key_marker().unwrap())
        .upload_id_marker(page.next_upload_id_marker().unwrap())
        .send()
        .await
        .unwrap();
    let rest_keys: Vec<_> = rest.uploads().iter().map(|u| u.key().unwrap()).collect();
    assert_eq!(rest_keys, ["logs/b.gz", "other"]);
    // WHEN the first upload's parts are listed two at a time
    let parts = s3
        .list_parts()
        .bucket("inflight")
        .key(key)
        .upload_id(&id)
        .max_parts(2)
        .send()
        .await
        .unwrap();
    // THEN parts 1 and 2 come with their sizes, and the marker leads to part 3
    let numbers: Vec<_> = parts
        .parts()
        .iter()
        .map(|p| p.part_number().unwrap())
        .collect();
    let sizes: Vec<_> = parts.parts().iter().map(|p| p.size().unwrap()).collect();
    assert_eq!((numbers, sizes), (vec![1, 2], vec![10, 20]));
    assert_eq!(parts.is_truncated(), Some(true));
    let last = s3
        .list_parts()
        .bucket("inflight")
        .key(key)
        .upload_id(&id)
        .part_number_marker(parts.next_part_number_marker().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(last.parts().len(), 1);
    assert_eq!(last.parts()[0].part_number(), Some(3));
    // AND an unknown upload id is S3's NoSuchUpload
    let unknown = s3
        .list_parts()
        .bucket("inflight")
        .key(key)
        .upload_id("nosuchupload")
        .send()
        .await
        .unwrap_err();
    assert_eq!(unknown.code(), Some("NoSuchUpload"));
    server.shutdown().await;
}
