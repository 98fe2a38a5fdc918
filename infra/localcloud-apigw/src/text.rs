//! Small text rules API Gateway applies to requests: URL decoding, query
//! strings, cookies, and which bodies travel as text.

use std::collections::BTreeMap;

/// Decodes `%XX` escapes; invalid escapes stay as written, invalid UTF-8 is
/// replaced. `+` is left alone: it only means a space in form bodies.
pub fn percent_decode(input: &str) -> String {
    let bytes = input.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push(h * 16 + l);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// `queryStringParameters`: decoded keys and values, repeated keys joined
/// with commas in the order received; a key without `=` has an empty value.
pub fn query_parameters(raw: &str) -> BTreeMap<String, String> {
    let mut params: BTreeMap<String, String> = BTreeMap::new();
    for pair in raw.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let (key, value) = (percent_decode(key), percent_decode(value));
        params
            .entry(key)
            .and_modify(|v| {
                v.push(',');
                v.push_str(&value);
            })
            .or_insert(value);
    }
    params
}

/// The `cookies` array: every `Cookie` header split at `;`, trimmed.
pub fn split_cookies<'a>(headers: impl Iterator<Item = &'a str>) -> Vec<String> {
    headers
        .flat_map(|h| h.split(';'))
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .collect()
}

/// Whether API Gateway passes a request body as text. HTTP APIs have no
/// binary media types setting: text, JSON, XML and JavaScript content types
/// travel as text, everything else (and a body without a content type) is
/// base64-encoded.
pub fn is_text_content_type(content_type: Option<&str>) -> bool {
    let Some(content_type) = content_type else {
        return false;
    };
    let essence = media_essence(content_type);
    essence.starts_with("text/")
        || matches!(
            essence.as_str(),
            "application/json" | "application/xml" | "application/javascript"
        )
        || essence.ends_with("+json")
        || essence.ends_with("+xml")
}

/// `type/subtype` of a content type, lower case, parameters dropped.
pub fn media_essence(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_escapes_decode_and_bad_ones_survive() {
        assert_eq!(percent_decode("a%20b%2Fc"), "a b/c");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz%4"), "%zz%4");
        assert_eq!(percent_decode("a+b"), "a+b");
        assert_eq!(percent_decode("caf%C3%A9"), "café");
    }

    #[test]
    fn repeated_query_keys_are_joined_with_commas() {
        let params = query_parameters("tag=a&limit=10&tag=b%20c&flag");
        assert_eq!(params["tag"], "a,b c");
        assert_eq!(params["limit"], "10");
        assert_eq!(params["flag"], "");
        assert!(query_parameters("").is_empty());
    }

    #[test]
    fn cookie_headers_split_into_cookies() {
        let cookies = split_cookies(["a=1; b=2", "c=3"].into_iter());
        assert_eq!(cookies, ["a=1", "b=2", "c=3"]);
    }

    #[test]
    fn json_and_text_are_text_but_octets_and_forms_are_binary() {
        assert!(is_text_content_type(Some(
            "application/json; charset=utf-8"
        )));
        assert!(is_text_content_type(Some("text/html")));
        assert!(is_text_content_type(Some("application/problem+json")));
        assert!(!is_text_content_type(Some("application/octet-stream")));
        assert!(!is_text_content_type(Some("image/png")));
        assert!(!is_text_content_type(Some(
            "application/x-www-form-urlencoded"
        )));
        assert!(!is_text_content_type(None));
    }
}
