//! Syntax only: turns tokens into raw trees that still hold placeholder names.
//! Meaning (placeholders, reserved words, function rules) is checked in `resolve.rs`,
//! because AWS reports syntax errors before any of those.

mod clauses;

pub(crate) use clauses::{Clause, RawAction};

use super::lexer::{tokenize, Tok, Token};

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum RawPathElem {
    Ident(String),
    Name(String),
    Index(usize),
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum RawOperand {
    Path(Vec<RawPathElem>),
    Value(String),
    Call(String, Vec<RawOperand>),
    /// `(x)`, kept so that `((x))` can be reported as redundant.
    Parens(Box<RawOperand>),
    Plus(Box<RawOperand>, Box<RawOperand>),
    Minus(Box<RawOperand>, Box<RawOperand>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparator {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Comparator {
    pub fn symbol(self) -> &'static str {
        match self {
            Comparator::Eq => "=",
            Comparator::Ne => "<>",
            Comparator::Lt => "<",
            Comparator::Le => "<=",
            Comparator::Gt => ">",
            Comparator::Ge => ">=",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum RawCond {
    Compare(RawOperand, Comparator, RawOperand),
    Between(RawOperand, RawOperand, RawOperand),
    In(RawOperand, Vec<RawOperand>),
    /// A function used as a condition, e.g. `attribute_exists(a)`.
    Call(RawOperand),
    And(Box<RawCond>, Box<RawCond>),
    Or(Box<RawCond>, Box<RawCond>),
    Not(Box<RawCond>),
    Parens(Box<RawCond>),
}

/// Position of the unexpected token; rendered by [`Parser::message`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct SyntaxError {
    pos: usize,
}

pub(crate) type PResult<T> = Result<T, SyntaxError>;

const CONDITION_KEYWORDS: [&str; 5] = ["AND", "OR", "NOT", "BETWEEN", "IN"];
const UPDATE_KEYWORDS: [&str; 4] = ["SET", "REMOVE", "ADD", "DELETE"];

pub(crate) struct Parser<'a> {
    src: &'a str,
    toks: Vec<Token>,
    pos: usize,
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

    fn peek(&self) -> &Tok {
        &self.toks[self.pos].tok
    }

    fn peek_at(&self, offset: usize) -> &Tok {
        let i = (self.pos + offset).min(self.toks.len() - 1);
        &self.toks[i].tok
    }

    fn advance(&mut self) -> Tok {
        let tok = self.toks[self.pos].tok.clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        tok
    }

    fn error<T>(&self) -> PResult<T> {
        Err(SyntaxError { pos: self.pos })
    }

    fn expect(&mut self, tok: Tok) -> PResult<()> {
        if *self.peek() == tok {
            self.advance();
            Ok(())
        } else {
            self.error()
        }
    }

    fn at_keyword(&self, kw: &str) -> bool {
        self.peek().is_keyword(kw)
    }

    fn is_reserved_keyword(&self, word: &str) -> bool {
        self.keywords.iter().any(|k| k.eq_ignore_ascii_case(word))
    }

    fn expect_end(&self) -> PResult<()> {
        match self.peek() {
            Tok::Eof => Ok(()),
            _ => self.error(),
        }
    }

    // ---- conditions ----

    pub fn condition(&mut self) -> PResult<RawCond> {
        let cond = self.or()?;
        self.expect_end()?;
        Ok(cond)
    }

    fn or(&mut self) -> PResult<RawCond> {
        let mut left = self.and()?;
        while self.at_keyword("OR") {
            self.advance();
            let right = self.and()?;
            left = RawCond::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn and(&mut self) -> PResult<RawCond> {
        let mut left = self.not()?;
        while self.at_keyword("AND") {
            self.advance();
            let right = self.not()?;
            left = RawCond::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn not(&mut self) -> PResult<RawCond> {
        if self.at_keyword("NOT") {
            self.advance();
            let inner = self.nested(Self::not)?;
            return Ok(RawCond::Not(Box::new(inner)));
        }
        self.primary()
    }

    /// Runs a rule one nesting level deeper.
    fn nested<T>(&mut self, rule: fn(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.depth >= MAX_DEPTH {
            return self.error();
        }
        self.depth += 1;
        let result = rule(self);
        self.depth -= 1;
        result
    }

    /// `(` starts either a parenthesised condition or a parenthesised operand: it is an
    /// operand when a comparison follows its matching `)`. Deciding by lookahead keeps
    /// parsing linear however deeply parentheses nest.
    fn primary(&mut self) -> PResult<RawCond> {
        if *self.peek() == Tok::LParen && !self.group_is_operand() {
            self.grouped_condition()
        } else {
            self.comparison()
        }
    }

    fn group_is_operand(&self) -> bool {
        let mut depth = 0usize;
        for (i, token) in self.toks.iter().enumerate().skip(self.pos) {
            match token.tok {
                Tok::LParen => depth += 1,
                Tok::RParen => {
                    depth -= 1;
                    if depth == 0 {
                        let next = &self.toks[(i + 1).min(self.toks.len() - 1)].tok;
                        return starts_comparison_tail(next);
                    }
                }
                Tok::Eof => return false,
                _ => {}
            }
        }
        false
    }

    fn grouped_condition(&mut self) -> PResult<RawCond> {
        self.expect(Tok::LParen)?;
        let inner = self.nested(Self::or)?;
        self.expect(Tok::RParen)?;
        Ok(RawCond::Parens(Box::new(inner)))
    }

    fn comparison(&mut self) -> PResult<RawCond> {
        let left = self.operand()?;
        let comparator = match self.peek() {
            Tok::Eq => Some(Comparator::Eq),
            Tok::Ne => Some(Comparator::Ne),
            Tok::Lt => Some(Comparator::Lt),
            Tok::Le => Some(Comparator::Le),
            Tok::Gt => Some(Comparator::Gt),
            Tok::Ge => Some(Comparator::Ge),
            _ => None,
        };
        if let Some(c) = comparator {
            self.advance();
            let right = self.operand()?;
            return Ok(RawCond::Compare(left, c, right));
        }
        if self.at_keyword("BETWEEN") {
            self.advance();
            let low = self.operand()?;
            if !self.at_keyword("AND") {
                return self.error();
            }
            self.advance();
            let high = self.operand()?;
            return Ok(RawCond::Between(left, low, high));
        }
        if self.at_keyword("IN") {
            self.advance();
            self.expect(Tok::LParen)?;
            let list = self.operand_list()?;
            self.expect(Tok::RParen)?;
            return Ok(RawCond::In(left, list));
        }
        match left {
            RawOperand::Call(..) => Ok(RawCond::Call(left)),
            _ => self.error(),
        }
    }

    fn operand_list(&mut self) -> PResult<Vec<RawOperand>> {
        let mut list = vec![self.operand()?];
        while *self.peek() == Tok::Comma {
            self.advance();
            list.push(self.operand()?);
        }
        Ok(list)
    }

    fn operand(&mut self) -> PResult<RawOperand> {
        match self.peek().clone() {
            Tok::LParen => {
                self.advance();
                let inner = self.nested(Self::operand)?;
                self.expect(Tok::RParen)?;
                Ok(RawOperand::Parens(Box::new(inner)))
            }
            Tok::Value(v) => {
                self.advance();
                Ok(RawOperand::Value(v))
            }
            Tok::Ident(name)
                if *self.peek_at(1) == Tok::LParen && !self.is_reserved_keyword(&name) =>
            {
                self.advance();
                self.advance();
                let args = self.nested(Self::operand_list)?;
                self.expect(Tok::RParen)?;
                Ok(RawOperand::Call(name, args))
            }
            _ => Ok(RawOperand::Path(self.path()?)),
        }
    }

    fn path(&mut self) -> PResult<Vec<RawPathElem>> {
        let mut elems = vec![self.path_name()?];
        loop {
            match self.peek() {
                Tok::Dot => {
                    self.advance();
                    elems.push(self.path_name()?);
                }
                Tok::LBracket => {
                    self.advance();
                    let Tok::Int(digits) = self.peek().clone() else {
                        return self.error();
                    };
                    if !digits.bytes().all(|b| b.is_ascii_digit()) {
                        return self.error();
                    }
                    // An index too large for memory can match nothing; saturate.
                    let index = digits.parse::<usize>().unwrap_or(usize::MAX);
                    self.advance();
                    self.expect(Tok::RBracket)?;
                    elems.push(RawPathElem::Index(index));
                }
                _ => return Ok(elems),
            }
        }
    }

    fn path_name(&mut self) -> PResult<RawPathElem> {
        match self.peek().clone() {
            Tok::Ident(name) if !self.is_reserved_keyword(&name) => {
                self.advance();
                Ok(RawPathElem::Ident(name))
            }
            Tok::Name(name) => {
                self.advance();
                Ok(RawPathElem::Name(name))
            }
            _ => self.error(),
        }
    }
}

fn starts_comparison_tail(tok: &Tok) -> bool {
    matches!(
        tok,
        Tok::Eq | Tok::Ne | Tok::Lt | Tok::Le | Tok::Gt | Tok::Ge
    ) || tok.is_keyword("BETWEEN")
        || tok.is_keyword("IN")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cond(src: &str) -> Result<RawCond, String> {
        let mut p = Parser::for_condition(src);
        p.condition().map_err(|e| p.message(e))
    }

    #[test]
    fn and_binds_tighter_than_or() {
        let parsed = cond("a = :a OR b = :b AND c = :c").unwrap();
        let RawCond::Or(_, right) = parsed else {
            panic!("expected OR at the top: {parsed:?}")
        };
        assert!(matches!(*right, RawCond::And(..)));
    }

    #[test]
    fn parenthesised_operand_is_not_a_condition() {
        assert!(matches!(
            cond("(a) = :v").unwrap(),
            RawCond::Compare(RawOperand::Parens(_), Comparator::Eq, _)
        ));
        assert!(matches!(cond("(a = :v)").unwrap(), RawCond::Parens(_)));
    }

    #[test]
    fn syntax_errors_name_token_and_neighbour() {
        assert_eq!(
            cond("a = = :b").unwrap_err(),
            "Syntax error; token: \"=\", near: \"= =\""
        );
        assert_eq!(
            cond("foo").unwrap_err(),
            "Syntax error; token: \"<EOF>\", near: \"foo\""
        );
        assert_eq!(
            cond(":hashId a").unwrap_err(),
            "Syntax error; token: \"a\", near: \":hashId a\""
        );
    }

    #[test]
    fn list_indexes_must_be_plain_integers() {
        assert_eq!(
            cond("a[1x] = :v").unwrap_err(),
            "Syntax error; token: \"1x\", near: \"[1x\""
        );
        assert_eq!(
            cond("a[:i] = :v").unwrap_err(),
            "Syntax error; token: \":i\", near: \"[:i\""
        );
    }

    #[test]
    fn update_clauses_parse_in_any_order() {
        let mut p = Parser::for_update("REMOVE a, b[1] SET c = c + :one ADD d :n DELETE e :s");
        let clauses = p.update().unwrap();
        let kinds: Vec<Clause> = clauses.iter().map(|c| c.0).collect();
        assert_eq!(
            kinds,
            vec![Clause::Remove, Clause::Set, Clause::Add, Clause::Delete]
        );
    }
}
