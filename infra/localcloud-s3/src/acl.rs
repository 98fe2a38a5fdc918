//! Access control lists of buckets and objects: canned ACLs, grants, the
//! `AccessControlPolicy` document, and whether the bucket's Object
//! Ownership lets them be set. ACLs are stored and answered, never enforced
//! (docs/divergences-s3.md).
//! https://docs.aws.amazon.com/AmazonS3/latest/userguide/acl-overview.html

use localcloud_core::xml::{elements, first, Xml};

use crate::error::S3Error;
use crate::protocol::S3_NS;

const XSI: &str = "http://www.w3.org/2001/XMLSchema-instance";
const ALL_USERS: &str = "http://acs.amazonaws.com/groups/global/AllUsers";
const AUTHENTICATED_USERS: &str = "http://acs.amazonaws.com/groups/global/AuthenticatedUsers";
const LOG_DELIVERY: &str = "http://acs.amazonaws.com/groups/s3/LogDelivery";
const PERMISSIONS: [&str; 5] = ["FULL_CONTROL", "WRITE", "WRITE_ACP", "READ", "READ_ACP"];

/// Object Ownership since April 2023 for every new bucket: ACLs disabled.
/// https://docs.aws.amazon.com/AmazonS3/latest/userguide/about-object-ownership.html
pub const DEFAULT_OWNERSHIP: &str = "BucketOwnerEnforced";

/// Who a grant is for.
#[derive(Debug, Clone, PartialEq)]
pub enum Grantee {
    CanonicalUser(String),
    Group(String),
    Email(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Grant {
    pub grantee: Grantee,
    pub permission: String,
}

/// The grants of a bucket or object; its owner is the local account.
#[derive(Debug, Clone, PartialEq)]
pub struct Acl {
    pub grants: Vec<Grant>,
}

fn grant(grantee: Grantee, permission: &str) -> Grant {
    Grant {
        grantee,
        permission: permission.to_string(),
    }
}

impl Acl {
    /// The default ACL: the owner has FULL_CONTROL.
    pub fn private(owner: &str) -> Self {
        Self {
            grants: vec![grant(Grantee::CanonicalUser(owner.into()), "FULL_CONTROL")],
        }
    }

    /// A canned ACL (`x-amz-acl`); in one account the bucket owner is the
    /// object owner, so `bucket-owner-*` are the owner's FULL_CONTROL.
    /// https://docs.aws.amazon.com/AmazonS3/latest/userguide/acl-overview.html#canned-acl
    pub fn canned(name: &str, owner: &str) -> Result<Self, S3Error> {
        let mut acl = Self::private(owner);
        let group = |uri: &str| Grantee::Group(uri.to_string());
        match name {
            "private" | "bucket-owner-read" | "bucket-owner-full-control" => {}
            "public-read" => acl.grants.push(grant(group(ALL_USERS), "READ")),
            "public-read-write" => {
                acl.grants.push(grant(group(ALL_USERS), "READ"));
                acl.grants.push(grant(group(ALL_USERS), "WRITE"));
            }
            "authenticated-read" => acl.grants.push(grant(group(AUTHENTICATED_USERS), "READ")),
            "log-delivery-write" => {
                acl.grants.push(grant(group(LOG_DELIVERY), "WRITE"));
                acl.grants.push(grant(group(LOG_DELIVERY), "READ_ACP"));
            }
            _ => {
                return Err(
                    S3Error::invalid_argument(format!("{name} is not a canned ACL"))
                        .with("ArgumentName", "x-amz-acl")
                        .with("ArgumentValue", name),
                )
            }
        }
        Ok(acl)
    }

    /// The grants of an `AccessControlPolicy` body; the grantee's kind is
    /// read from what names it (`ID`, `URI` or `EmailAddress`).
    /// https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObjectAcl.html
    pub fn from_xml(body: &[u8]) -> Result<Self, S3Error> {
        let body = std::str::from_utf8(body).map_err(|_| S3Error::malformed_xml())?;
        if first(body, "AccessControlList").is_none() {
            return Err(S3Error::malformed_xml());
        }
        let mut grants = Vec::new();
        for element in elements(body, "Grant") {
            let grantee = first(&element, "Grantee").ok_or_else(S3Error::malformed_xml)?;
            let grantee = match (
                first(&grantee, "ID"),
                first(&grantee, "URI"),
                first(&grantee, "EmailAddress"),
            ) {
                (Some(id), None, None) => Grantee::CanonicalUser(id),
                (None, Some(uri), None) => Grantee::Group(uri),
                (None, None, Some(email)) => Grantee::Email(email),
                _ => return Err(S3Error::malformed_xml()),
            };
            let permission = first(&element, "Permission")
                .filter(|p| PERMISSIONS.contains(&p.as_str()))
                .ok_or_else(S3Error::malformed_xml)?;
            grants.push(Grant {
                grantee,
                permission,
            });
        }
        Ok(Self { grants })
    }

    /// True when the ACL grants nothing but the owner's FULL_CONTROL: the
    /// only ACL a bucket with ACLs disabled accepts.
    pub fn owner_full_control_only(&self, owner: &str) -> bool {
        self.grants == Self::private(owner).grants
    }

    /// The `AccessControlPolicy` document GetObjectAcl and GetBucketAcl answer.
    pub fn to_xml(&self, owner: &str) -> String {
        let mut doc = Xml::document("AccessControlPolicy", S3_NS);
        doc.open("Owner")
            .text("ID", owner)
            .text("DisplayName", "localcloud")
            .close("Owner");
        doc.open("AccessControlList");
        for g in &self.grants {
            doc.open("Grant");
            let (kind, element, value) = match &g.grantee {
                Grantee::CanonicalUser(id) => ("CanonicalUser", "ID", id),
                Grantee::Group(uri) => ("Group", "URI", uri),
                Grantee::Email(email) => ("AmazonCustomerByEmail", "EmailAddress", email),
            };
            doc.open_with("Grantee", &[("xmlns:xsi", XSI), ("xsi:type", kind)])
                .text(element, value);
            if kind == "CanonicalUser" {
                doc.text("DisplayName", "localcloud");
            }
            doc.close("Grantee")
                .text("Permission", &g.permission)
                .close("Grant");
        }
        doc.close("AccessControlList");
        doc.finish("AccessControlPolicy")
    }
}

/// The ACL a `Put*Acl` request sets: its `x-amz-acl` canned ACL or its
/// body, not both. `x-amz-grant-*` headers are refused as not implemented.
pub fn requested(
    canned: Option<&str>,
    grant_headers: bool,
    body: &[u8],
    owner: &str,
) -> Result<Acl, S3Error> {
    if grant_headers {
        return Err(crate::protocol::not_implemented("x-amz-grant-* headers"));
    }
    match (canned, body.is_empty()) {
        (Some(name), true) => Acl::canned(name, owner),
        (None, false) => Acl::from_xml(body),
        (Some(_), false) => Err(S3Error::new(
            400,
            "UnexpectedContent",
            "This request does not support content",
        )),
        (None, true) => Err(S3Error::new(
            400,
            "MissingSecurityHeader",
            "Your request was missing a required header",
        )
        .with("MissingHeaderName", "x-amz-acl")),
    }
}

/// The `ObjectOwnership` of an `OwnershipControls` document.
pub fn ownership(controls: Option<&[u8]>) -> Option<String> {
    let body = std::str::from_utf8(controls?).ok()?;
    first(body, "ObjectOwnership")
}

/// Refuses an ACL other than the owner's FULL_CONTROL on a bucket whose
/// Object Ownership is BucketOwnerEnforced (ACLs disabled), as S3 does.
/// https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-ownership-error-responses.html
pub fn check_allowed(ownership: Option<&str>, acl: &Acl, owner: &str) -> Result<(), S3Error> {
    if ownership == Some(DEFAULT_OWNERSHIP) && !acl.owner_full_control_only(owner) {
        return Err(S3Error::new(
            400,
            "AccessControlListNotSupported",
            "The bucket does not allow ACLs",
        ));
    }
    Ok(())
}

/// A `PutBucketOwnershipControls` body must name one of the three settings.
/// https://docs.aws.amazon.com/AmazonS3/latest/API/API_OwnershipControlsRule.html
pub fn check_ownership_controls(body: &[u8]) -> Result<(), S3Error> {
    match ownership(Some(body)).as_deref() {
        Some("BucketOwnerEnforced" | "BucketOwnerPreferred" | "ObjectWriter") => Ok(()),
        _ => Err(S3Error::malformed_xml()),
    }
}

/// The `OwnershipControls` document of one Object Ownership setting.
pub fn ownership_controls(ownership: &str) -> String {
    let mut doc = Xml::document("OwnershipControls", S3_NS);
    doc.open("Rule")
        .text("ObjectOwnership", ownership)
        .close("Rule");
    doc.finish("OwnershipControls")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canned_acls_grant_the_owner_full_control_and_add_their_groups() {
        let public = Acl::canned("public-read", "111").unwrap();
        assert_eq!(public.grants.len(), 2);
        assert_eq!(public.grants[1].grantee, Grantee::Group(ALL_USERS.into()));
        let writable = Acl::canned("public-read-write", "111").unwrap();
        let permissions: Vec<_> = writable
            .grants
            .iter()
            .map(|g| g.permission.as_str())
            .collect();
        assert_eq!(permissions, vec!["FULL_CONTROL", "READ", "WRITE"]);
        assert!(Acl::canned("bucket-owner-full-control", "111")
            .unwrap()
            .owner_full_control_only("111"));
        let bad = Acl::canned("everyone", "111").unwrap_err();
        assert_eq!(bad.code, "InvalidArgument");
    }

    #[test]
    fn a_policy_document_round_trips_its_grants() {
        let mut acl = Acl::canned("authenticated-read", "111").unwrap();
        acl.grants
            .push(grant(Grantee::Email("a@example.com".into()), "READ_ACP"));
        let xml = acl.to_xml("111");
        assert!(xml.contains("xsi:type=\"Group\""), "{xml}");
        assert_eq!(Acl::from_xml(xml.as_bytes()).unwrap(), acl);
    }

    #[test]
    fn bad_policy_documents_are_malformed() {
        for body in [
            "<AccessControlPolicy/>",
            "<AccessControlPolicy><AccessControlList><Grant><Grantee><ID>1</ID></Grantee><Permission>ALL</Permission></Grant></AccessControlList></AccessControlPolicy>",
            "<AccessControlPolicy><AccessControlList><Grant><Permission>READ</Permission></Grant></AccessControlList></AccessControlPolicy>",
        ] {
            assert_eq!(
                Acl::from_xml(body.as_bytes()).unwrap_err().code,
                "MalformedXML",
                "{body}"
            );
        }
    }

    #[test]
    fn a_bucket_with_acls_disabled_accepts_only_the_owners_full_control() {
        let public = Acl::canned("public-read", "111").unwrap();
        let enforced = Some(DEFAULT_OWNERSHIP);
        assert_eq!(
            check_allowed(enforced, &public, "111").unwrap_err().code,
            "AccessControlListNotSupported"
        );
        assert!(check_allowed(enforced, &Acl::private("111"), "111").is_ok());
        assert!(check_allowed(Some("ObjectWriter"), &public, "111").is_ok());
        assert!(check_allowed(None, &public, "111").is_ok());
        assert_eq!(
            check_ownership_controls(b"<OwnershipControls><Rule><ObjectOwnership>Nobody</ObjectOwnership></Rule></OwnershipControls>")
                .unwrap_err()
                .code,
            "MalformedXML"
        );
        let controls = ownership_controls(DEFAULT_OWNERSHIP);
        assert!(check_ownership_controls(controls.as_bytes()).is_ok());
        assert_eq!(ownership(Some(controls.as_bytes())).as_deref(), enforced);
    }
}
