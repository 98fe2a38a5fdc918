//! DynamoDB's reserved words, kept as data: the list from the developer guide's
//! "Reserved words in DynamoDB" page, one word per line, sorted.

static WORDS: &str = include_str!("reserved_words.txt");

/// Whether `word` may not be used as a bare attribute name (case-insensitive).
pub fn is_reserved_word(word: &str) -> bool {
    static SORTED: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    let words = SORTED.get_or_init(|| WORDS.lines().collect());
    words
        .binary_search(&word.to_ascii_uppercase().as_str())
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knows_the_documented_words_in_any_case() {
        assert_eq!(WORDS.lines().count(), 573);
        for word in ["name", "Status", "DATA", "size", "ZONE", "abort", "ttl"] {
            assert!(is_reserved_word(word), "{word}");
        }
        for word in ["title", "slug", "email", "pk", "body"] {
            assert!(!is_reserved_word(word), "{word}");
        }
    }
}
