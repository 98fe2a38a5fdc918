//! Which bucket and key a request names: virtual-host style
//! (`bucket.s3.localhost.localstack.cloud:4566/key`, `bucket.localhost:4566/key`,
//! `bucket.s3.us-east-1.amazonaws.com/key`) or path style (`127.0.0.1:4566/bucket/key`).
//! https://docs.aws.amazon.com/AmazonS3/latest/userguide/VirtualHosting.html

use std::collections::BTreeMap;

use localcloud_core::url::percent_decode;

/// Bucket and key of one request; `bucket` is `None` for the service
/// itself (`ListBuckets`), `key` is `None` for bucket operations.
#[derive(Debug, Clone, PartialEq)]
pub struct Address {
    pub bucket: Option<String>,
    pub key: Option<String>,
}

/// The bucket a `Host` header names, when it is virtual-host style.
pub fn host_bucket(host: &str) -> Option<String> {
    let host = strip_port(host);
    if host.parse::<std::net::IpAddr>().is_ok() || host == "localhost" {
        return None;
    }
    for marker in [".s3.", ".s3-"] {
        if let Some(i) = host.find(marker) {
            return Some(host[..i].to_string()).filter(|b| !b.is_empty());
        }
    }
    host.strip_suffix(".localhost")
        .map(|b| b.strip_suffix(".s3").unwrap_or(b).to_string())
        .filter(|b| !b.is_empty() && b != "s3")
}

fn strip_port(host: &str) -> &str {
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) && !name.ends_with(']') => {
            name
        }
        _ => host,
    }
}

/// Bucket and key from the `Host` header and the (still encoded) path.
pub fn address(host: Option<&str>, path: &str) -> Address {
    let path = path.strip_prefix('/').unwrap_or(path);
    if let Some(bucket) = host.and_then(host_bucket) {
        let key = (!path.is_empty()).then(|| percent_decode(path));
        return Address {
            bucket: Some(bucket),
            key,
        };
    }
    match path.split_once('/') {
        None if path.is_empty() => Address {
            bucket: None,
            key: None,
        },
        None => Address {
            bucket: Some(percent_decode(path)),
            key: None,
        },
        Some((bucket, key)) => Address {
            bucket: Some(percent_decode(bucket)),
            key: (!key.is_empty()).then(|| percent_decode(key)),
        },
    }
}

/// Bucket and key of an object URL in any of S3's shapes
/// (`https://s3.amazonaws.com/b/k`, `https://b.s3.us-east-1.amazonaws.com/k`,
/// `http://127.0.0.1:4566/b/k`, `s3://b/k`); `None` when it names no object.
pub fn parse_url(url: &str) -> Option<(String, String)> {
    if let Some(rest) = url.strip_prefix("s3://") {
        let (bucket, key) = rest.split_once('/')?;
        return (!bucket.is_empty() && !key.is_empty())
            .then(|| (bucket.to_string(), key.to_string()));
    }
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))?;
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let at = address(Some(host), &format!("/{path}"));
    Some((at.bucket?, at.key?))
}

/// The query string as a map; `?uploads` becomes `uploads -> ""`.
pub fn query(query: Option<&str>) -> BTreeMap<String, String> {
    query
        .unwrap_or_default()
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(k), percent_decode(&v.replace('+', "%20")))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(bucket: Option<&str>, key: Option<&str>) -> Address {
        Address {
            bucket: bucket.map(str::to_string),
            key: key.map(str::to_string),
        }
    }

    #[test]
    fn path_style_on_an_ip_or_localhost() {
        assert_eq!(address(Some("127.0.0.1:4566"), "/"), at(None, None));
        assert_eq!(address(Some("127.0.0.1:4566"), "/b"), at(Some("b"), None));
        assert_eq!(address(Some("localhost:4566"), "/b/"), at(Some("b"), None));
        assert_eq!(
            address(Some("localhost"), "/b/a%20dir/k%2B1"),
            at(Some("b"), Some("a dir/k+1"))
        );
    }

    #[test]
    fn virtual_host_style_takes_the_bucket_from_the_host() {
        assert_eq!(
            address(Some("my.bucket.s3.localhost.localstack.cloud:4566"), "/k"),
            at(Some("my.bucket"), Some("k"))
        );
        assert_eq!(address(Some("b.localhost:4566"), "/"), at(Some("b"), None));
        assert_eq!(
            address(Some("b.s3.localhost"), "/x/y"),
            at(Some("b"), Some("x/y"))
        );
        assert_eq!(
            address(Some("b.s3.us-east-1.amazonaws.com"), "/k"),
            at(Some("b"), Some("k"))
        );
        assert_eq!(
            address(Some("s3.localhost:4566"), "/b"),
            at(Some("b"), None)
        );
    }

    #[test]
    fn object_urls_of_every_shape_name_bucket_and_key() {
        let both = |b: &str, k: &str| Some((b.to_string(), k.to_string()));
        assert_eq!(parse_url("s3://b/app/code.zip"), both("b", "app/code.zip"));
        assert_eq!(
            parse_url("http://127.0.0.1:4566/b/t.template"),
            both("b", "t.template")
        );
        assert_eq!(
            parse_url("https://s3.us-east-1.amazonaws.com/b/k"),
            both("b", "k")
        );
        assert_eq!(
            parse_url("https://b.s3.amazonaws.com/dir/k?versionId=1"),
            both("b", "dir/k")
        );
        assert_eq!(parse_url("https://s3.amazonaws.com/b"), None);
        assert_eq!(parse_url("ftp://x/y"), None);
    }

    #[test]
    fn query_flags_and_values_are_decoded() {
        let q = query(Some("uploads&prefix=a%2Fb&list-type=2"));
        assert_eq!(q["uploads"], "");
        assert_eq!(q["prefix"], "a/b");
        assert_eq!(q["list-type"], "2");
    }
}
