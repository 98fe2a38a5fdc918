//! localcloud-template
