//! Who is calling and where: region and account as AWS would derive them.

use http::HeaderMap;

pub const DEFAULT_REGION: &str = "us-east-1";
pub const DEFAULT_ACCOUNT: &str = "000000000000";

/// Region and account of one request, taken from its SigV4 `Authorization`
/// header (signatures are not verified). Like LocalStack, an access key id of
/// twelve digits is taken as the account id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestContext {
    pub region: String,
    pub account_id: String,
    pub request_id: String,
}

impl RequestContext {
    pub fn new(region: &str, account_id: &str) -> Self {
        Self {
            region: region.to_string(),
            account_id: account_id.to_string(),
            request_id: new_request_id(),
        }
    }

    pub fn from_headers(headers: &HeaderMap) -> Self {
        let credential = headers
            .get(http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(credential_scope);
        let (access_key, region) = match credential {
            Some((key, region)) => (Some(key), Some(region)),
            None => (None, None),
        };
        let account = access_key
            .filter(|k| k.len() == 12 && k.bytes().all(|b| b.is_ascii_digit()))
            .unwrap_or(DEFAULT_ACCOUNT);
        Self::new(region.unwrap_or(DEFAULT_REGION), account)
    }
}

/// The service a request was signed for (`s3`, `cloudformation`, `sts`, ...):
/// the fourth part of the SigV4 credential scope, from the `Authorization`
/// header or a presigned URL's `X-Amz-Credential`. Services that share the
/// query protocol or bare paths are told apart by it.
pub fn signing_service(request: &http::Request<bytes::Bytes>) -> Option<String> {
    let scope = match request
        .headers()
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
    {
        Some(auth) => {
            let start = auth.find("Credential=")? + "Credential=".len();
            auth[start..].split([',', ' ']).next()?.to_string()
        }
        None => request.uri().query()?.split('&').find_map(|pair| {
            let value = pair.strip_prefix("X-Amz-Credential=")?;
            Some(value.replace("%2F", "/").replace("%2f", "/"))
        })?,
    };
    scope.split('/').nth(3).map(str::to_string)
}

/// `Credential=AKID/20250101/us-east-1/dynamodb/aws4_request` -> (AKID, us-east-1)
fn credential_scope(authorization: &str) -> Option<(&str, &str)> {
    let start = authorization.find("Credential=")? + "Credential=".len();
    let scope = authorization[start..].split([',', ' ']).next()?;
    let mut parts = scope.split('/');
    let key = parts.next().filter(|k| !k.is_empty())?;
    let _date = parts.next()?;
    let region = parts.next().filter(|r| !r.is_empty())?;
    Some((key, region))
}

/// A request id in the shape AWS uses (a random UUID).
pub fn new_request_id() -> String {
    let n: u128 = random_u128();
    format!(
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        (n >> 96) as u32,
        (n >> 80) as u16,
        ((n >> 68) as u16) & 0x0fff,
        (((n >> 52) as u16) & 0x3fff) | 0x8000,
        (n as u64) & 0xffff_ffff_ffff
    )
}

fn random_u128() -> u128 {
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut high = RandomState::new().build_hasher();
    high.write_u64(count);
    let mut low = RandomState::new().build_hasher();
    low.write_u64(count.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    ((high.finish() as u128) << 64) | low.finish() as u128
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(auth: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(http::header::AUTHORIZATION, auth.parse().unwrap());
        h
    }

    #[test]
    fn region_comes_from_the_credential_scope() {
        let ctx = RequestContext::from_headers(&headers(
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20250101/eu-west-1/dynamodb/aws4_request, SignedHeaders=host, Signature=abc",
        ));
        assert_eq!(ctx.region, "eu-west-1");
        assert_eq!(ctx.account_id, DEFAULT_ACCOUNT);
    }

    #[test]
    fn twelve_digit_access_key_is_the_account() {
        let ctx = RequestContext::from_headers(&headers(
            "AWS4-HMAC-SHA256 Credential=123456789012/20250101/us-west-2/sqs/aws4_request, SignedHeaders=host, Signature=abc",
        ));
        assert_eq!(ctx.account_id, "123456789012");
        assert_eq!(ctx.region, "us-west-2");
    }

    #[test]
    fn unsigned_requests_get_the_defaults() {
        let ctx = RequestContext::from_headers(&HeaderMap::new());
        assert_eq!(ctx.region, DEFAULT_REGION);
        assert_eq!(ctx.account_id, DEFAULT_ACCOUNT);
    }

    #[test]
    fn the_signing_service_comes_from_the_header_or_a_presigned_url() {
        let signed = http::Request::get("/b/k")
            .header(
                "authorization",
                "AWS4-HMAC-SHA256 Credential=AKID/20250101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=abc",
            )
            .body(bytes::Bytes::new())
            .unwrap();
        assert_eq!(signing_service(&signed).as_deref(), Some("s3"));
        let presigned = http::Request::get(
            "/b/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKID%2F20250101%2Fus-east-1%2Fs3%2Faws4_request",
        )
        .body(bytes::Bytes::new())
        .unwrap();
        assert_eq!(signing_service(&presigned).as_deref(), Some("s3"));
        let unsigned = http::Request::get("/").body(bytes::Bytes::new()).unwrap();
        assert_eq!(signing_service(&unsigned), None);
    }

    #[test]
    fn request_ids_are_uuid_shaped_and_distinct() {
        let a = new_request_id();
        let b = new_request_id();
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        assert_eq!(a.as_bytes()[14], b'4');
    }
}
