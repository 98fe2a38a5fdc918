//! Grammar of operands and document paths, shared by every expression language.

use super::cursor::{PResult, Parser};
use super::tree::{RawOperand, RawPathElem};
use crate::expr::lexer::Tok;

impl Parser<'_> {
    pub(super) fn operand_list(&mut self) -> PResult<Vec<RawOperand>> {
        let mut list = vec![self.operand()?];
        while *self.peek() == Tok::Comma {
            self.advance();
            list.push(self.operand()?);
        }
        Ok(list)
    }

    pub(super) fn operand(&mut self) -> PResult<RawOperand> {
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

    pub(super) fn path(&mut self) -> PResult<Vec<RawPathElem>> {
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
