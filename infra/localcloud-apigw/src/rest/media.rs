//! Matching content types against a REST API's `binaryMediaTypes`
//! (`image/png`, `image/*`, `*/*`).

/// Whether `content_type` (parameters ignored) is one of `types`.
pub fn matches_media_type(types: &[String], content_type: &str) -> bool {
    let essence = crate::text::media_essence(content_type);
    let Some((kind, sub)) = essence.split_once('/') else {
        return false;
    };
    types.iter().any(|t| {
        let t = t.to_ascii_lowercase();
        let Some((tk, ts)) = t.split_once('/') else {
            return false;
        };
        (tk == "*" || tk == kind) && (ts == "*" || ts == sub)
    })
}

/// The first media type of an `Accept` header: the one API Gateway uses to
/// decide whether a response goes out as binary.
pub fn first_accepted(accept: &str) -> &str {
    accept.split(',').next().unwrap_or_default().trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn types(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn exact_wildcard_subtype_and_any_types_match() {
        assert!(matches_media_type(&types(&["image/png"]), "image/png"));
        assert!(matches_media_type(&types(&["image/*"]), "image/jpeg; q=1"));
        assert!(matches_media_type(&types(&["*/*"]), "application/json"));
        assert!(!matches_media_type(&types(&["image/png"]), "image/jpeg"));
        assert!(!matches_media_type(&types(&[]), "image/png"));
        assert!(!matches_media_type(&types(&["*/*"]), "nonsense"));
    }

    #[test]
    fn first_accepted_type_is_the_first_of_the_list() {
        assert_eq!(first_accepted("image/png, text/html;q=0.9"), "image/png");
        assert_eq!(first_accepted(""), "");
    }
}
