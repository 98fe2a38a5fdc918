//! Test functions live in src/bin.
