//! localcloud-sqs
