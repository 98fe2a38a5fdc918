//! localcloud-lambda
