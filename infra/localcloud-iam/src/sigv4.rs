//! Signature Version 4, verified for the credentials the local cloud minted.
//! https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html

use chrono::{DateTime, NaiveDateTime, Utc};
use sha2::{Digest, Sha256};

/// The parts of `Authorization: AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=...`.
#[derive(Debug, Clone, PartialEq)]
pub struct Authorization {
    pub access_key_id: String,
    /// `20250101`, the scope's date.
    pub date: String,
    pub region: String,
    pub service: String,
    pub signed_headers: Vec<String>,
    pub signature: String,
}

impl Authorization {
    pub fn parse(header: &str) -> Option<Self> {
        let rest = header.strip_prefix("AWS4-HMAC-SHA256")?.trim();
        let (mut credential, mut signed, mut signature) = (None, None, None);
        for part in rest.split(',') {
            let (k, v) = part.trim().split_once('=')?;
            match k {
                "Credential" => credential = Some(v),
                "SignedHeaders" => signed = Some(v),
                "Signature" => signature = Some(v),
                _ => {}
            }
        }
        let mut scope = credential?.split('/');
        let access_key_id = scope.next()?.to_string();
        let date = scope.next()?.to_string();
        let region = scope.next()?.to_string();
        let service = scope.next()?.to_string();
        Some(Self {
            access_key_id,
            date,
            region,
            service,
            signed_headers: signed?.split(';').map(str::to_string).collect(),
            signature: signature?.to_string(),
        })
    }
}

/// Why a signature is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignatureError {
    /// No `X-Amz-Date` (or `Date`) header, or one that does not parse.
    MissingDate,
    /// The request's time is more than 15 minutes from the local cloud's.
    Expired {
        signed: String,
        now: String,
        earlier: bool,
    },
    Mismatch,
}

/// AWS accepts requests signed up to 15 minutes before or after its clock.
const SKEW_MINUTES: i64 = 15;

pub fn hmac(key: &[u8], data: &[u8]) -> [u8; 32] {
    const BLOCK: usize = 64;
    let mut k = [0u8; BLOCK];
    if key.len() > BLOCK {
        k[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        k[..key.len()].copy_from_slice(key);
    }
    let mut inner = Sha256::new();
    inner.update(k.map(|b| b ^ 0x36));
    inner.update(data);
    let mut outer = Sha256::new();
    outer.update(k.map(|b| b ^ 0x5c));
    outer.update(inner.finalize());
    outer.finalize().into()
}

/// Percent-encodes all but RFC 3986's unreserved characters (and `/` when
/// `keep_slash`), as SigV4's canonical forms do.
fn encode(text: &str, keep_slash: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            b'/' if keep_slash => out.push('/'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn canonical_query(query: Option<&str>) -> String {
    let mut pairs: Vec<(String, String)> = query
        .unwrap_or_default()
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            let decode = localcloud_core::url::percent_decode;
            (encode(&decode(k), false), encode(&decode(v), false))
        })
        .filter(|(k, _)| k != "X-Amz-Signature")
        .collect();
    pairs.sort();
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&")
}

fn request_time(request: &http::Request<bytes::Bytes>) -> Option<(String, DateTime<Utc>)> {
    let text = request
        .headers()
        .get("x-amz-date")
        .and_then(|v| v.to_str().ok())?
        .to_string();
    let time = NaiveDateTime::parse_from_str(&text, "%Y%m%dT%H%M%SZ")
        .ok()?
        .and_utc();
    Some((text, time))
}

/// Checks the request's date and signature against `secret`.
pub fn verify(
    request: &http::Request<bytes::Bytes>,
    auth: &Authorization,
    secret: &str,
    now: DateTime<Utc>,
) -> Result<(), SignatureError> {
    let (amz_date, time) = request_time(request).ok_or(SignatureError::MissingDate)?;
    let skew = chrono::Duration::minutes(SKEW_MINUTES);
    let stamp = |t: DateTime<Utc>| t.format("%Y%m%dT%H%M%SZ").to_string();
    if time < now - skew || time > now + skew {
        return Err(SignatureError::Expired {
            signed: amz_date,
            now: stamp(now),
            earlier: time < now - skew,
        });
    }
    let expected = signature(request, auth, secret, &amz_date);
    if expected.eq_ignore_ascii_case(&auth.signature) {
        Ok(())
    } else {
        Err(SignatureError::Mismatch)
    }
}

/// The signature of `request` for the scope and signed headers of `auth`
/// (its own `signature` is not used), at `amz_date`.
fn signature(
    request: &http::Request<bytes::Bytes>,
    auth: &Authorization,
    secret: &str,
    amz_date: &str,
) -> String {
    let path = request.uri().path();
    // Every service but S3 signs the path encoded once more.
    let canonical_uri = if auth.service == "s3" {
        path.to_string()
    } else {
        encode(path, true)
    };
    let mut headers = String::new();
    for name in &auth.signed_headers {
        let values: Vec<String> = request
            .headers()
            .get_all(name.as_str())
            .iter()
            .map(|v| {
                String::from_utf8_lossy(v.as_bytes())
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        headers.push_str(&format!("{name}:{}\n", values.join(",")));
    }
    let payload = match request.headers().get("x-amz-content-sha256") {
        Some(v) => String::from_utf8_lossy(v.as_bytes()).into_owned(),
        None => hex::encode(Sha256::digest(request.body())),
    };
    let canonical = format!(
        "{}\n{canonical_uri}\n{}\n{headers}\n{}\n{payload}",
        request.method(),
        canonical_query(request.uri().query()),
        auth.signed_headers.join(";"),
    );
    let scope = format!(
        "{}/{}/{}/aws4_request",
        auth.date, auth.region, auth.service
    );
    let to_sign = format!(
        "AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{}",
        hex::encode(Sha256::digest(canonical.as_bytes()))
    );
    let key = signing_key(secret, &auth.date, &auth.region, &auth.service);
    hex::encode(hmac(&key, to_sign.as_bytes()))
}

/// Signs `request` as an SDK would at `time` (for tests and tools): sets
/// `x-amz-date`, and `authorization` over `host`, `x-amz-date` and every
/// `x-amz-*` header already present.
pub fn sign(
    request: &mut http::Request<bytes::Bytes>,
    access_key_id: &str,
    secret: &str,
    region: &str,
    service: &str,
    time: DateTime<Utc>,
) {
    let amz_date = time.format("%Y%m%dT%H%M%SZ").to_string();
    request.headers_mut().insert(
        "x-amz-date",
        amz_date.parse().expect("a valid header value"),
    );
    let mut signed: Vec<String> = request
        .headers()
        .keys()
        .map(|k| k.as_str().to_string())
        .filter(|k| k == "host" || k.starts_with("x-amz-") || k == "content-type")
        .collect();
    signed.sort();
    signed.dedup();
    let mut auth = Authorization {
        access_key_id: access_key_id.to_string(),
        date: amz_date[..8].to_string(),
        region: region.to_string(),
        service: service.to_string(),
        signed_headers: signed,
        signature: String::new(),
    };
    auth.signature = signature(request, &auth, secret, &amz_date);
    let header = format!(
        "AWS4-HMAC-SHA256 Credential={}/{}/{}/{}/aws4_request, SignedHeaders={}, Signature={}",
        auth.access_key_id,
        auth.date,
        auth.region,
        auth.service,
        auth.signed_headers.join(";"),
        auth.signature
    );
    request.headers_mut().insert(
        http::header::AUTHORIZATION,
        header.parse().expect("a valid header value"),
    );
}

pub fn signing_key(secret: &str, date: &str, region: &str, service: &str) -> [u8; 32] {
    let k = hmac(format!("AWS4{secret}").as_bytes(), date.as_bytes());
    let k = hmac(&k, region.as_bytes());
    let k = hmac(&k, service.as_bytes());
    hmac(&k, b"aws4_request")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 4231 test case 2.
    #[test]
    fn hmac_sha256_matches_the_rfc() {
        assert_eq!(
            hex::encode(hmac(b"Jefe", b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    /// AWS's documented example: `GET /?Action=ListUsers&Version=2010-05-08`
    /// to IAM, signed with the example secret.
    /// https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html
    fn example() -> (http::Request<bytes::Bytes>, Authorization) {
        let header = "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7";
        let request = http::Request::get("/?Action=ListUsers&Version=2010-05-08")
            .header("host", "iam.amazonaws.com")
            .header(
                "content-type",
                "application/x-www-form-urlencoded; charset=utf-8",
            )
            .header("x-amz-date", "20150830T123600Z")
            .header("authorization", header)
            .body(bytes::Bytes::new())
            .unwrap();
        (request, Authorization::parse(header).unwrap())
    }

    fn at(stamp: &str) -> DateTime<Utc> {
        NaiveDateTime::parse_from_str(stamp, "%Y%m%dT%H%M%SZ")
            .unwrap()
            .and_utc()
    }

    #[test]
    fn the_documented_example_verifies() {
        let (request, auth) = example();
        assert_eq!(auth.access_key_id, "AKIDEXAMPLE");
        assert_eq!(auth.service, "iam");
        let secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
        assert_eq!(
            verify(&request, &auth, secret, at("20150830T123600Z")),
            Ok(())
        );
        assert_eq!(
            verify(&request, &auth, "wrong", at("20150830T123600Z")),
            Err(SignatureError::Mismatch)
        );
    }

    #[test]
    fn what_sign_signs_verifies_and_a_changed_body_does_not() {
        let mut request = http::Request::post("/2015-03-31/functions/arn%3Aaws%3Alambda%3Aus-east-1%3A1%3Afunction%3Af/invocations?Qualifier=live")
            .header("host", "127.0.0.1:4566")
            .header("x-amz-security-token", "tok")
            .body(bytes::Bytes::from_static(b"{}"))
            .unwrap();
        let now = at("20261206T120000Z");
        sign(
            &mut request,
            "ASIAEXAMPLE",
            "s3cret",
            "us-east-1",
            "lambda",
            now,
        );
        let header = request.headers()["authorization"]
            .to_str()
            .unwrap()
            .to_string();
        let auth = Authorization::parse(&header).unwrap();
        assert_eq!(verify(&request, &auth, "s3cret", now), Ok(()));
        let (parts, _) = request.into_parts();
        let changed = http::Request::from_parts(parts, bytes::Bytes::from_static(b"{\"x\":1}"));
        assert_eq!(
            verify(&changed, &auth, "s3cret", now),
            Err(SignatureError::Mismatch)
        );
    }

    #[test]
    fn a_request_older_than_fifteen_minutes_is_expired() {
        let (request, auth) = example();
        let secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
        assert_eq!(
            verify(&request, &auth, secret, at("20150830T125000Z")),
            Ok(())
        );
        assert_eq!(
            verify(&request, &auth, secret, at("20150830T125200Z")),
            Err(SignatureError::Expired {
                signed: "20150830T123600Z".into(),
                now: "20150830T125200Z".into(),
                earlier: true
            })
        );
    }
}
