//! The cost model.
