//! localcloud-dynamodb
