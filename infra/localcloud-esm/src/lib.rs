//! localcloud-esm
