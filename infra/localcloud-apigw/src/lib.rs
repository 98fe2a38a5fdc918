//! localcloud-apigw
