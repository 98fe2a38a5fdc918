//! Tokens of DynamoDB's expression languages, with byte spans for error messages.

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    /// Bare word: attribute name, function name or keyword (AND, SET, ...).
    Ident(String),
    /// `#name` placeholder, including the `#`.
    Name(String),
    /// `:value` placeholder, including the `:`.
    Value(String),
    /// Unsigned integer, only meaningful as a list index.
    Int(String),
    LParen,
    RParen,
    LBracket,
    RBracket,
    Comma,
    Dot,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Plus,
    Minus,
    /// A character no token starts with; always a syntax error.
    Unknown(char),
    Eof,
}

#[derive(Clone, Debug)]
pub(crate) struct Token {
    pub tok: Tok,
    pub start: usize,
    pub end: usize,
}

impl Tok {
    /// Whether this bare word is the keyword `kw` (keywords are case-insensitive).
    pub fn is_keyword(&self, kw: &str) -> bool {
        matches!(self, Tok::Ident(w) if w.eq_ignore_ascii_case(kw))
    }
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

pub(crate) fn tokenize(src: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut chars = src.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        chars.next();
        let take_word = |chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>| {
            let mut end = start + c.len_utf8();
            while let Some(&(i, d)) = chars.peek() {
                if !is_word_char(d) {
                    break;
                }
                end = i + d.len_utf8();
                chars.next();
            }
            end
        };
        let (tok, end) = match c {
            '#' => {
                let end = take_word(&mut chars);
                (Tok::Name(src[start..end].to_string()), end)
            }
            ':' => {
                let end = take_word(&mut chars);
                (Tok::Value(src[start..end].to_string()), end)
            }
            c if c.is_ascii_digit() => {
                let end = take_word(&mut chars);
                (Tok::Int(src[start..end].to_string()), end)
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let end = take_word(&mut chars);
                (Tok::Ident(src[start..end].to_string()), end)
            }
            '<' | '>' => {
                let next = chars.peek().map(|&(_, d)| d);
                let (tok, two) = match (c, next) {
                    ('<', Some('=')) => (Tok::Le, true),
                    ('<', Some('>')) => (Tok::Ne, true),
                    ('>', Some('=')) => (Tok::Ge, true),
                    ('<', _) => (Tok::Lt, false),
                    _ => (Tok::Gt, false),
                };
                if two {
                    chars.next();
                }
                (tok, start + if two { 2 } else { 1 })
            }
            _ => {
                let tok = match c {
                    '(' => Tok::LParen,
                    ')' => Tok::RParen,
                    '[' => Tok::LBracket,
                    ']' => Tok::RBracket,
                    ',' => Tok::Comma,
                    '.' => Tok::Dot,
                    '=' => Tok::Eq,
                    '+' => Tok::Plus,
                    '-' => Tok::Minus,
                    other => Tok::Unknown(other),
                };
                (tok, start + c.len_utf8())
            }
        };
        tokens.push(Token { tok, start, end });
    }
    tokens.push(Token {
        tok: Tok::Eof,
        start: src.len(),
        end: src.len(),
    });
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(src: &str) -> Vec<Tok> {
        tokenize(src).into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn splits_operators_placeholders_and_paths() {
        assert_eq!(
            toks("#a.b[12] <= :v1"),
            vec![
                Tok::Name("#a".into()),
                Tok::Dot,
                Tok::Ident("b".into()),
                Tok::LBracket,
                Tok::Int("12".into()),
                Tok::RBracket,
                Tok::Le,
                Tok::Value(":v1".into()),
                Tok::Eof
            ]
        );
        assert_eq!(toks("a<>b")[1], Tok::Ne);
        assert_eq!(toks("a ! b")[1], Tok::Unknown('!'));
    }
}
