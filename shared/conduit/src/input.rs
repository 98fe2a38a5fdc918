//! Request body and query validation producing RealWorld 422 bodies.
//! We parse the raw bytes ourselves: clients do not always send `Content-Type`.

use serde_json::{Map, Value};

use crate::error::{ApiError, FieldErrors};
use crate::model::Page;

pub const MAX_BODY_BYTES: usize = 64 * 1024;
const BLANK: &str = "can't be blank";
const NOT_STRING: &str = "must be a string";
const DEFAULT_LIMIT: usize = 20;
/// Larger pages are cut to this many items (the count still reports the total).
pub const MAX_LIMIT: usize = 100;

/// The object under `key` of a JSON body like `{"user": {...}}`.
pub fn envelope(body: &[u8], key: &str) -> Result<Map<String, Value>, ApiError> {
    if body.len() > MAX_BODY_BYTES {
        return Err(ApiError::PayloadTooLarge);
    }
    let value: Value =
        serde_json::from_slice(body).map_err(|_| ApiError::field("body", "is not valid JSON"))?;
    match value {
        Value::Object(mut outer) => match outer.remove(key) {
            Some(Value::Object(inner)) => Ok(inner),
            Some(Value::Null) | None => Err(ApiError::field(key, BLANK)),
            Some(_) => Err(ApiError::field(key, "must be an object")),
        },
        _ => Err(ApiError::field("body", "must be a JSON object")),
    }
}

/// Collects every field error of one body before failing, so clients see all at once.
pub struct Fields {
    obj: Map<String, Value>,
    errors: FieldErrors,
}

impl Fields {
    pub fn new(obj: Map<String, Value>) -> Self {
        Self {
            obj,
            errors: FieldErrors::new(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.obj.is_empty()
    }

    fn fail(&mut self, field: &str, message: &str) {
        self.errors
            .entry(field.to_owned())
            .or_default()
            .push(message.to_owned());
    }

    /// A present, non-blank string.
    pub fn required(&mut self, field: &str) -> Option<String> {
        match self.obj.remove(field) {
            None | Some(Value::Null) => {
                self.fail(field, BLANK);
                None
            }
            Some(value) => self.non_blank(field, value),
        }
    }

    /// Absent is fine; present must be a non-blank string (`null` is not allowed).
    pub fn optional(&mut self, field: &str) -> Option<String> {
        match self.obj.remove(field) {
            None => None,
            Some(Value::Null) => {
                self.fail(field, BLANK);
                None
            }
            Some(value) => self.non_blank(field, value),
        }
    }

    /// Absent -> None (keep); `null` -> Some(None) (clear); a string -> Some(Some(s)).
    pub fn nullable(&mut self, field: &str) -> Option<Option<String>> {
        match self.obj.remove(field) {
            None => None,
            Some(Value::Null) => Some(None),
            Some(Value::String(s)) => Some(Some(s)),
            Some(_) => {
                self.fail(field, NOT_STRING);
                None
            }
        }
    }

    /// Absent -> None (keep); a list of non-blank strings, trimmed and deduplicated.
    pub fn tag_list(&mut self, field: &str) -> Option<Vec<String>> {
        let items = match self.obj.remove(field) {
            None => return None,
            Some(Value::Array(items)) => items,
            Some(_) => {
                self.fail(field, "must be an array of strings");
                return None;
            }
        };
        let mut tags: Vec<String> = Vec::with_capacity(items.len());
        for item in items {
            match item {
                Value::String(s) if s.trim().chars().count() > MAX_TAG_CHARS => {
                    self.fail(field, "has a tag longer than 100 characters");
                    return None;
                }
                Value::String(s) if !s.trim().is_empty() => {
                    let tag = s.trim().to_owned();
                    if !tags.contains(&tag) {
                        tags.push(tag);
                    }
                }
                _ => {
                    self.fail(field, "must contain only non-blank strings");
                    return None;
                }
            }
        }
        if tags.len() > MAX_TAGS {
            self.fail(field, "has too many tags (at most 20)");
            return None;
        }
        Some(tags)
    }

    fn non_blank(&mut self, field: &str, value: Value) -> Option<String> {
        match value {
            Value::String(s) if s.trim().is_empty() => {
                self.fail(field, BLANK);
                None
            }
            Value::String(s) => Some(s),
            _ => {
                self.fail(field, NOT_STRING);
                None
            }
        }
    }

    /// Adds a rule failure found by the caller (e.g. an invalid email).
    pub fn reject(&mut self, field: &str, message: &str) {
        self.fail(field, message);
    }

    pub fn finish(self) -> Result<(), ApiError> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(ApiError::Unprocessable(self.errors))
        }
    }
}

/// Bounded so that one article's creation fits in one DynamoDB transaction.
pub const MAX_TAGS: usize = 20;
/// Tags become key parts (DynamoDB keys are at most 2 KB).
const MAX_TAG_CHARS: usize = 100;

/// First value of a query parameter.
pub fn query<'a>(query: &'a [(String, String)], name: &str) -> Option<&'a str> {
    query
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// `offset` (>= 0, default 0) and `limit` (>= 1, default 20, capped at `MAX_LIMIT`).
pub fn page(params: &[(String, String)]) -> Result<Page, ApiError> {
    let mut errors = FieldErrors::new();
    let mut number = |name: &str, min: usize, default: usize| match query(params, name) {
        None => default,
        Some(raw) => match raw.trim().parse::<usize>() {
            Ok(n) if n >= min => n,
            _ => {
                let message = if min == 0 {
                    "must be a non-negative integer"
                } else {
                    "must be a positive integer"
                };
                errors.insert(name.to_owned(), vec![message.to_owned()]);
                default
            }
        },
    };
    let offset = number("offset", 0, 0);
    let limit = number("limit", 1, DEFAULT_LIMIT).min(MAX_LIMIT);
    if errors.is_empty() {
        Ok(Page { offset, limit })
    } else {
        Err(ApiError::Unprocessable(errors))
    }
}

/// Good enough to reject obvious mistakes; deliverability is not our concern.
pub fn looks_like_email(email: &str) -> bool {
    // 254: the SMTP limit; emails are also key parts.
    if email.len() > 254 {
        return false;
    }
    match email.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && !domain.is_empty()
                && !domain.contains('@')
                && !email.contains(char::is_whitespace)
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_envelope_is_blank() {
        let err = envelope(br#"{"other":{}}"#, "user").unwrap_err();
        assert_eq!(err.body()["errors"]["user"][0], "can't be blank");
    }

    #[test]
    fn non_json_body_is_unprocessable() {
        let err = envelope(b"user=1", "user").unwrap_err();
        assert_eq!(err.status_code(), 422);
    }

    #[test]
    fn oversized_body_is_too_large() {
        let body = vec![b' '; MAX_BODY_BYTES + 1];
        assert!(matches!(
            envelope(&body, "user"),
            Err(ApiError::PayloadTooLarge)
        ));
    }

    #[test]
    fn every_bad_field_is_reported() {
        let obj = envelope(br#"{"user":{"email":"","password":5}}"#, "user").unwrap();
        let mut f = Fields::new(obj);
        f.required("username");
        f.required("email");
        f.required("password");
        let body = f.finish().unwrap_err().body();
        assert_eq!(body["errors"]["username"][0], "can't be blank");
        assert_eq!(body["errors"]["email"][0], "can't be blank");
        assert_eq!(body["errors"]["password"][0], "must be a string");
    }

    #[test]
    fn tag_list_is_trimmed_and_deduplicated() {
        let obj = envelope(br#"{"a":{"tagList":[" x","x","y"]}}"#, "a").unwrap();
        assert_eq!(
            Fields::new(obj).tag_list("tagList"),
            Some(vec!["x".into(), "y".into()])
        );
    }

    #[test]
    fn overlong_tag_is_rejected() {
        let long = "t".repeat(101);
        let body = format!(r#"{{"a":{{"tagList":["{long}"]}}}}"#);
        let mut f = Fields::new(envelope(body.as_bytes(), "a").unwrap());
        assert_eq!(f.tag_list("tagList"), None);
        assert_eq!(f.finish().unwrap_err().status_code(), 422);
    }

    #[test]
    fn paging_defaults_and_rejects_negative_offset() {
        assert_eq!(
            page(&[]).unwrap(),
            Page {
                offset: 0,
                limit: 20
            }
        );
        let bad = vec![("offset".to_owned(), "-1".to_owned())];
        assert_eq!(page(&bad).unwrap_err().status_code(), 422);
        let zero = vec![("limit".to_owned(), "0".to_owned())];
        assert_eq!(page(&zero).unwrap_err().status_code(), 422);
    }
}
