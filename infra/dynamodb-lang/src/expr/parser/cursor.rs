//! The parser's cursor over the tokens of one expression: lookahead, expected tokens,
//! the nesting guard and AWS's syntax error message. The grammars build on it.

use crate::expr::lexer::{tokenize, Tok, Token};

#[derive(Clone, Copy, Debug)]
pub(crate) struct SyntaxError {
    pos: usize,
}

pub(crate) type PResult<T> = Result<T, SyntaxError>;

const CONDITION_KEYWORDS: [&str; 5] = ["AND", "OR", "NOT", "BETWEEN", "IN"];
const UPDATE_KEYWORDS: [&str; 4] = ["SET", "REMOVE", "ADD", "DELETE"];

pub(crate) struct Parser<'a> {
    src: &'a str,
    pub(super) toks: Vec<Token>,
    pub(super) pos: usize,
    keywords: &'static [&'static str],
    depth: usize,
}

/// Deepest nesting of parentheses and NOT accepted; deeper input is a syntax error at
/// the token that goes too deep (a guard against stack exhaustion).
const MAX_DEPTH: usize = 64;

impl<'a> Parser<'a> {
    pub fn for_condition(src: &'a str) -> Self {
        Self::new(src, &CONDITION_KEYWORDS)
    }

    pub fn for_update(src: &'a str) -> Self {
        Self::new(src, &UPDATE_KEYWORDS)
    }

    pub fn for_projection(src: &'a str) -> Self {
        Self::new(src, &[])
    }

    fn new(src: &'a str, keywords: &'static [&'static str]) -> Self {
        Parser {
            src,
            toks: tokenize(src),
            pos: 0,
            keywords,
            depth: 0,
        }
    }

    pub fn source_len(&self) -> usize {
        self.src.len()
    }

    pub fn is_empty(&self) -> bool {
        self.toks.len() == 1
    }

    /// AWS's text: `Syntax error; token: "x", near: "<previous token> x"`.
    pub fn message(&self, err: SyntaxError) -> String {
        let tok = &self.toks[err.pos];
        let prev = err.pos.checked_sub(1).map(|p| &self.toks[p]);
        let (token, near) = match (&tok.tok, prev) {
            (Tok::Eof, Some(p)) => ("<EOF>", &self.src[p.start..p.end]),
            (Tok::Eof, None) => ("<EOF>", ""),
            (_, Some(p)) => (&self.src[tok.start..tok.end], &self.src[p.start..tok.end]),
            (_, None) => (&self.src[tok.start..tok.end], &self.src[tok.start..tok.end]),
        };
        format!("Syntax error; token: \"{token}\", near: \"{near}\"")
    }

    pub(super) fn peek(&self) -> &Tok {
        &self.toks[self.pos].tok
    }

    pub(super) fn peek_at(&self, offset: usize) -> &Tok {
        let i = (self.pos + offset).min(self.toks.len() - 1);
        &self.toks[i].tok
    }

    pub(super) fn advance(&mut self) -> Tok {
        let tok = self.toks[self.pos].tok.clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        tok
    }

    pub(super) fn error<T>(&self) -> PResult<T> {
        Err(SyntaxError { pos: self.pos })
    }

    pub(super) fn expect(&mut self, tok: Tok) -> PResult<()> {
        if *self.peek() == tok {
            self.advance();
            Ok(())
        } else {
            self.error()
        }
    }

    pub(super) fn at_keyword(&self, kw: &str) -> bool {
        self.peek().is_keyword(kw)
    }

    pub(super) fn is_reserved_keyword(&self, word: &str) -> bool {
        self.keywords.iter().any(|k| k.eq_ignore_ascii_case(word))
    }

    pub(super) fn expect_end(&self) -> PResult<()> {
        match self.peek() {
            Tok::Eof => Ok(()),
            _ => self.error(),
        }
    }

    /// Runs a rule one nesting level deeper.
    pub(super) fn nested<T>(&mut self, rule: fn(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.depth >= MAX_DEPTH {
            return self.error();
        }
        self.depth += 1;
        let result = rule(self);
        self.depth -= 1;
        result
    }
}
