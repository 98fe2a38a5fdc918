//! Grammar of condition and filter expressions, which key condition expressions share:
//! OR, AND, NOT, parentheses, comparisons, BETWEEN, IN and function calls.

use super::cursor::{PResult, Parser};
use super::tree::{Comparator, RawCond, RawOperand};
use crate::expr::lexer::Tok;

impl Parser<'_> {
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
}
