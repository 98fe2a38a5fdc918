//! The internal API between the services: one request type naming every
//! operation an owner offers, and the records it answers with. The same JSON
//! travels as a direct Invoke payload and as the payload of a queue request.

use conduit::model::{ArticleId, UserId};
use serde::{Deserialize, Serialize};

use crate::service::Service;

/// Every operation is a batch or a single lookup by key: callers never loop.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum InternalRequest {
    /// users: the profiles (`conduit::model::Profile`, no email, no password
    /// hash) of the users that exist among `ids`.
    UsersByIds { ids: Vec<UserId> },
    /// users: the profile of one user, by name.
    UserByUsername { username: String },
    /// users: the profile of one user, by id.
    UserById { id: UserId },
    /// profiles: which of `candidates` `viewer` follows.
    FollowedAmong {
        viewer: UserId,
        candidates: Vec<UserId>,
    },
    /// profiles: everyone `viewer` follows (the feed).
    Followees { viewer: UserId },
    /// articles: the id of the article with this slug (comments need no more).
    ArticleIdBySlug { slug: String },
    /// comments: drop the comments of a deleted article.
    DeleteCommentsOf { article: ArticleId },
}

impl InternalRequest {
    /// The service that answers this request.
    pub fn owner(&self) -> Service {
        match self {
            Self::UsersByIds { .. } | Self::UserByUsername { .. } | Self::UserById { .. } => {
                Service::Users
            }
            Self::FollowedAmong { .. } | Self::Followees { .. } => Service::Profiles,
            Self::ArticleIdBySlug { .. } => Service::Articles,
            Self::DeleteCommentsOf { .. } => Service::Comments,
        }
    }

    /// The operation's name, as it appears on the wire and in logs.
    pub fn op(&self) -> &'static str {
        match self {
            Self::UsersByIds { .. } => "usersByIds",
            Self::UserByUsername { .. } => "userByUsername",
            Self::UserById { .. } => "userById",
            Self::FollowedAmong { .. } => "followedAmong",
            Self::Followees { .. } => "followees",
            Self::ArticleIdBySlug { .. } => "articleIdBySlug",
            Self::DeleteCommentsOf { .. } => "deleteCommentsOf",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use conduit::model::{Profile, User};
    use serde_json::json;

    #[test]
    fn requests_are_tagged_by_op_with_camel_case_fields() {
        let request = InternalRequest::FollowedAmong {
            viewer: "v".into(),
            candidates: vec!["a".into()],
        };
        let value = serde_json::to_value(&request).unwrap();
        assert_eq!(
            value,
            json!({"op": "followedAmong", "viewer": "v", "candidates": ["a"]})
        );
        assert_eq!(value["op"], request.op());
        let back: InternalRequest = serde_json::from_value(value).unwrap();
        assert_eq!(back, request);
    }

    #[test]
    fn unknown_ops_and_missing_fields_are_rejected() {
        assert!(serde_json::from_value::<InternalRequest>(json!({"op": "dropTables"})).is_err());
        assert!(serde_json::from_value::<InternalRequest>(json!({"op": "usersByIds"})).is_err());
    }

    #[test]
    fn a_user_profile_carries_no_email_and_no_password_hash() {
        let user = User {
            id: "1".into(),
            username: "jake".into(),
            email: "jake@jake.jake".into(),
            password_hash: "$argon2id$secret".into(),
            bio: Some("bio".into()),
            image: None,
        };
        let text = serde_json::to_string(&user.profile()).unwrap();
        assert!(!text.contains("jake@jake.jake"), "{text}");
        assert!(!text.contains("argon2"), "{text}");
        let back: Profile = serde_json::from_str(&text).unwrap();
        assert_eq!(back.username, "jake");
        assert_eq!(back.bio.as_deref(), Some("bio"));
    }
}
