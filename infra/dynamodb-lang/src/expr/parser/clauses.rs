//! Grammar of update expressions (`SET`, `REMOVE`, `ADD`, `DELETE` clauses) and of
//! projection expressions, on top of the shared paths and operands.

use super::cursor::{PResult, Parser};
use super::tree::{RawOperand, RawPathElem};
use crate::expr::lexer::Tok;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Clause {
    Set,
    Remove,
    Add,
    Delete,
}

impl Clause {
    pub fn keyword(self) -> &'static str {
        match self {
            Clause::Set => "SET",
            Clause::Remove => "REMOVE",
            Clause::Add => "ADD",
            Clause::Delete => "DELETE",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum RawAction {
    Set(Vec<RawPathElem>, RawOperand),
    Remove(Vec<RawPathElem>),
    Add(Vec<RawPathElem>, String),
    Delete(Vec<RawPathElem>, String),
}

impl Parser<'_> {
    pub fn update(&mut self) -> PResult<Vec<(Clause, Vec<RawAction>)>> {
        let mut clauses = Vec::new();
        loop {
            let clause = match self.peek() {
                t if t.is_keyword("SET") => Clause::Set,
                t if t.is_keyword("REMOVE") => Clause::Remove,
                t if t.is_keyword("ADD") => Clause::Add,
                t if t.is_keyword("DELETE") => Clause::Delete,
                Tok::Eof if !clauses.is_empty() => return Ok(clauses),
                _ => return self.error(),
            };
            self.advance();
            let mut actions = vec![self.action(clause)?];
            while *self.peek() == Tok::Comma {
                self.advance();
                actions.push(self.action(clause)?);
            }
            clauses.push((clause, actions));
        }
    }

    fn action(&mut self, clause: Clause) -> PResult<RawAction> {
        let path = self.path()?;
        match clause {
            Clause::Set => {
                self.expect(Tok::Eq)?;
                Ok(RawAction::Set(path, self.set_value()?))
            }
            Clause::Remove => Ok(RawAction::Remove(path)),
            Clause::Add | Clause::Delete => {
                let Tok::Value(v) = self.peek().clone() else {
                    return self.error();
                };
                self.advance();
                Ok(match clause {
                    Clause::Add => RawAction::Add(path, v),
                    _ => RawAction::Delete(path, v),
                })
            }
        }
    }

    /// `operand [(+|-) operand]`, optionally wrapped in one pair of parentheses.
    fn set_value(&mut self) -> PResult<RawOperand> {
        if *self.peek() == Tok::LParen {
            let start = self.pos;
            self.advance();
            let grouped = self
                .arithmetic()
                .and_then(|v| self.expect(Tok::RParen).map(|_| v));
            match grouped {
                Ok(value) if !matches!(self.peek(), Tok::Plus | Tok::Minus) => return Ok(value),
                _ => self.pos = start,
            }
        }
        self.arithmetic()
    }

    fn arithmetic(&mut self) -> PResult<RawOperand> {
        let left = self.operand()?;
        let op = self.peek().clone();
        if op != Tok::Plus && op != Tok::Minus {
            return Ok(left);
        }
        self.advance();
        let right = self.operand()?;
        Ok(match op {
            Tok::Plus => RawOperand::Plus(Box::new(left), Box::new(right)),
            _ => RawOperand::Minus(Box::new(left), Box::new(right)),
        })
    }

    pub fn projection(&mut self) -> PResult<Vec<Vec<RawPathElem>>> {
        let mut paths = vec![self.path()?];
        while *self.peek() == Tok::Comma {
            self.advance();
            paths.push(self.path()?);
        }
        self.expect_end()?;
        Ok(paths)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
