//! Raw syntax trees: what the parser builds, still holding placeholder names.

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
    /// The comparator with its operands swapped: `a < b` is `b > a`.
    pub fn mirrored(self) -> Comparator {
        match self {
            Comparator::Lt => Comparator::Gt,
            Comparator::Le => Comparator::Ge,
            Comparator::Gt => Comparator::Lt,
            Comparator::Ge => Comparator::Le,
            other => other,
        }
    }

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
