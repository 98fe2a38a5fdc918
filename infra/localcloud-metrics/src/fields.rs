//! Names of a contract type's fields that the compiler checks.

/// `field_names!(Type { a, b })`: the names `["a", "b"]` of fields of
/// `Type`, as its JSON spells them (the contract renames no field). Each is
/// read in a function the compiler checks, so renaming or removing one of
/// them breaks the build rather than a reader's figures.
macro_rules! field_names {
    ($ty:ty { $($field:ident),+ $(,)? }) => {{
        #[allow(dead_code)]
        fn fields_exist(value: &$ty) {
            $(let _ = &value.$field;)+
        }
        &[$(stringify!($field)),+]
    }};
}

pub(crate) use field_names;
