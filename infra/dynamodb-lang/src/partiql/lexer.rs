//! Tokens of DynamoDB's PartiQL: words, `"quoted"` identifiers, `'string'`
//! literals, numbers, `?` parameters and punctuation, each with its offset
//! for error messages.

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    /// A bare word: keyword, identifier or function name.
    Word(String),
    /// A `"double quoted"` identifier (`""` stands for one `"`).
    Quoted(String),
    /// A `'single quoted'` string (`''` stands for one `'`).
    Str(String),
    /// Digits with an optional fraction and exponent, unsigned.
    Num(String),
    Param,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    /// `<<`, opening a set literal.
    LBag,
    /// `>>`, closing a set literal.
    RBag,
    Comma,
    Dot,
    Colon,
    Star,
    Plus,
    Minus,
    Semicolon,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    End,
}

impl Tok {
    /// Whether this is the keyword `kw` (keywords are case-insensitive).
    pub(crate) fn is_keyword(&self, kw: &str) -> bool {
        matches!(self, Tok::Word(w) if w.eq_ignore_ascii_case(kw))
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Token {
    pub tok: Tok,
    pub offset: usize,
}

/// The tokens of `src`, ending with `End`; an unterminated quote or a
/// character no token starts with is an error naming its offset.
pub(crate) fn tokenize(src: &str) -> Result<Vec<Token>, String> {
    let chars: Vec<(usize, char)> = src.char_indices().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let (offset, c) = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let next = chars.get(i + 1).map(|(_, c)| *c);
        let (tok, width) = match (c, next) {
            ('<', Some('<')) => (Tok::LBag, 2),
            ('>', Some('>')) => (Tok::RBag, 2),
            ('<', Some('=')) => (Tok::Le, 2),
            ('<', Some('>')) | ('!', Some('=')) => (Tok::Ne, 2),
            ('>', Some('=')) => (Tok::Ge, 2),
            ('<', _) => (Tok::Lt, 1),
            ('>', _) => (Tok::Gt, 1),
            ('=', _) => (Tok::Eq, 1),
            ('?', _) => (Tok::Param, 1),
            ('(', _) => (Tok::LParen, 1),
            (')', _) => (Tok::RParen, 1),
            ('[', _) => (Tok::LBracket, 1),
            (']', _) => (Tok::RBracket, 1),
            ('{', _) => (Tok::LBrace, 1),
            ('}', _) => (Tok::RBrace, 1),
            (',', _) => (Tok::Comma, 1),
            ('.', Some(d)) if d.is_ascii_digit() => number(&chars, i),
            ('.', _) => (Tok::Dot, 1),
            (':', _) => (Tok::Colon, 1),
            ('*', _) => (Tok::Star, 1),
            ('+', _) => (Tok::Plus, 1),
            ('-', _) => (Tok::Minus, 1),
            (';', _) => (Tok::Semicolon, 1),
            ('\'', _) => {
                let (text, width) = quoted(&chars, i, '\'')?;
                (Tok::Str(text), width)
            }
            ('"', _) => {
                let (text, width) = quoted(&chars, i, '"')?;
                (Tok::Quoted(text), width)
            }
            (d, _) if d.is_ascii_digit() => number(&chars, i),
            (w, _) if w.is_alphabetic() || w == '_' => {
                let width = chars[i..]
                    .iter()
                    .take_while(|(_, c)| c.is_alphanumeric() || *c == '_' || *c == '$')
                    .count();
                let text: String = chars[i..i + width].iter().map(|(_, c)| c).collect();
                (Tok::Word(text), width)
            }
            (other, _) => return Err(format!("unexpected character '{other}' at offset {offset}")),
        };
        tokens.push(Token { tok, offset });
        i += width;
    }
    tokens.push(Token {
        tok: Tok::End,
        offset: src.len(),
    });
    Ok(tokens)
}

/// A quoted run starting at `chars[start]`; a doubled quote stands for itself.
fn quoted(chars: &[(usize, char)], start: usize, quote: char) -> Result<(String, usize), String> {
    let mut text = String::new();
    let mut i = start + 1;
    loop {
        match chars.get(i).map(|(_, c)| *c) {
            None => {
                return Err(format!(
                    "unterminated quoted text at offset {}",
                    chars[start].0
                ))
            }
            Some(c) if c == quote => {
                if chars.get(i + 1).map(|(_, c)| *c) == Some(quote) {
                    text.push(quote);
                    i += 2;
                } else {
                    return Ok((text, i + 1 - start));
                }
            }
            Some(c) => {
                text.push(c);
                i += 1;
            }
        }
    }
}

/// `12`, `1.5`, `.5`, `1e3`, `2.5E-4`: digits, one fraction, one exponent.
fn number(chars: &[(usize, char)], start: usize) -> (Tok, usize) {
    let at = |i: usize| chars.get(i).map(|(_, c)| *c);
    let digits = |mut i: usize| {
        while at(i).is_some_and(|c| c.is_ascii_digit()) {
            i += 1;
        }
        i
    };
    let mut end = digits(start);
    if at(end) == Some('.') {
        end = digits(end + 1);
    }
    if matches!(at(end), Some('e' | 'E')) {
        let sign = usize::from(matches!(at(end + 1), Some('+' | '-')));
        if at(end + 1 + sign).is_some_and(|c| c.is_ascii_digit()) {
            end = digits(end + 1 + sign);
        }
    }
    let text: String = chars[start..end].iter().map(|(_, c)| c).collect();
    (Tok::Num(text), end - start)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(src: &str) -> Vec<Tok> {
        tokenize(src).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn sets_comparisons_and_quotes_are_told_apart() {
        assert_eq!(
            toks(r#"<<'it''s'>> <= <> "a""b" 1.5e3 ?"#),
            vec![
                Tok::LBag,
                Tok::Str("it's".into()),
                Tok::RBag,
                Tok::Le,
                Tok::Ne,
                Tok::Quoted("a\"b".into()),
                Tok::Num("1.5e3".into()),
                Tok::Param,
                Tok::End
            ]
        );
    }

    #[test]
    fn an_unterminated_string_or_a_stray_character_is_an_error() {
        assert!(tokenize("SELECT 'abc").is_err());
        assert!(tokenize("SELECT # FROM t").is_err());
    }
}
