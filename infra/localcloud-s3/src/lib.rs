//! The local cloud's S3: buckets with their settings (policy, versioning,
//! encryption, tags, ... stored as sent), objects and their versions,
//! `ListObjectsV2` and multipart uploads, over the REST-XML protocol with path-style and
//! virtual-host-style addressing, and AWS's XML errors. Enough for the AWS
//! SDKs, the AWS CLI and `sam deploy` (which uploads packages and templates
//! here). Objects live in memory.
//!
//! Requests are recognised by the service of their SigV4 signature (`s3`)
//! or by a virtual-host-style `Host`; everything else is handed back to the
//! next service of the endpoint.

mod acl;
mod acl_api;
mod address;
mod api;
mod attributes_api;
mod bucket_api;
mod chunked;
mod copy_api;
mod error;
mod object;
mod object_api;
mod protocol;
mod service;
mod store;
mod uploads_api;
mod version;
mod versions;
mod versions_api;

pub use acl::{Acl, Grant, Grantee};
pub use address::{address, parse_url, Address};
pub use error::S3Error;
pub use service::S3Service;
pub use store::{valid_bucket_name, Bucket, Object, Setting};
pub use versions::{Deletion, Version, Versioning, NULL_VERSION};
