//! Percent-decoding of paths, query strings and form bodies.

/// `%2F` -> `/`; invalid escapes stay as written.
pub fn percent_decode(text: &str) -> String {
    decode(text, false)
}

/// `application/x-www-form-urlencoded` values: percent escapes, and `+` for
/// a space.
pub fn form_decode(text: &str) -> String {
    decode(text, true)
}

fn decode(text: &str, plus_is_space: bool) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (b'+', _) if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_decoded_and_bad_ones_kept() {
        assert_eq!(percent_decode("a%2Fb%3A+c%zz%4"), "a/b:+c%zz%4");
        assert_eq!(form_decode("a+b%3D"), "a b=");
    }
}
