//! Temporary credentials and who they stand for: role sessions (a function's
//! execution role, `AssumeRole`) and the administrator's own
//! `GetSessionToken` sessions. The local cloud mints them, so it knows their
//! secrets and can verify signatures.
//! https://docs.aws.amazon.com/STS/latest/APIReference/API_Credentials.html

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use parking_lot::RwLock;

use crate::role::Role;

/// `AccessKeyId`, `SecretAccessKey`, `SessionToken`, `Expiration`.
#[derive(Debug, Clone, PartialEq)]
pub struct Credentials {
    pub access_key_id: String,
    pub secret_access_key: String,
    pub session_token: String,
    pub expiration: DateTime<Utc>,
}

impl Credentials {
    /// Fresh random credentials, valid for `lifetime`; temporary access key
    /// ids start with `ASIA`.
    pub fn mint(lifetime: Duration) -> Self {
        const BASE32: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
        let random = |n: usize, alphabet: &[u8]| -> String {
            let mut out = String::with_capacity(n);
            while out.len() < n {
                for b in uuid::Uuid::new_v4().as_bytes() {
                    if out.len() < n {
                        out.push(alphabet[*b as usize % alphabet.len()] as char);
                    }
                }
            }
            out
        };
        const SECRET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        Self {
            access_key_id: format!("ASIA{}", random(16, BASE32)),
            secret_access_key: random(40, SECRET),
            session_token: format!("IQoJb3JpZ2luX2VjE{}", random(300, SECRET)),
            expiration: Utc::now() + lifetime,
        }
    }

    /// The variables Lambda gives a function.
    pub fn environment(&self) -> BTreeMap<String, String> {
        [
            ("AWS_ACCESS_KEY_ID", &self.access_key_id),
            ("AWS_SECRET_ACCESS_KEY", &self.secret_access_key),
            ("AWS_SESSION_TOKEN", &self.session_token),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
    }
}

/// Who a session's calls are made by.
#[derive(Debug, Clone, PartialEq)]
pub enum Principal {
    /// `arn:aws:sts::{account}:assumed-role/{role}/{session}`; its role's
    /// policies decide.
    AssumedRole {
        role: Arc<Role>,
        session_name: String,
    },
    /// The account's administrator (`GetSessionToken`): never denied.
    Administrator { account: String },
    /// `arn:aws:sts::{account}:federated-user/{name}` (`GetFederationToken`
    /// by the administrator); its session policy is not evaluated, so it is
    /// never denied either (docs/iam.md).
    FederatedUser { account: String, name: String },
}

impl Principal {
    /// The ARN IAM names in messages and `GetCallerIdentity`.
    pub fn arn(&self) -> String {
        match self {
            Principal::AssumedRole { role, session_name } => format!(
                "arn:aws:sts::{}:assumed-role/{}/{session_name}",
                role.account, role.name
            ),
            Principal::Administrator { account } => format!("arn:aws:iam::{account}:root"),
            Principal::FederatedUser { account, name } => {
                format!("arn:aws:sts::{account}:federated-user/{name}")
            }
        }
    }

    pub fn account(&self) -> &str {
        match self {
            Principal::AssumedRole { role, .. } => &role.account,
            Principal::Administrator { account } | Principal::FederatedUser { account, .. } => {
                account
            }
        }
    }
}

#[derive(Debug, Clone)]
pub struct Session {
    pub credentials: Credentials,
    pub principal: Principal,
}

/// Every role of every stack and every session minted, by access key id.
#[derive(Debug, Default)]
pub struct Sessions {
    roles: RwLock<BTreeMap<String, Arc<Role>>>,
    by_key: RwLock<HashMap<String, Session>>,
}

impl Sessions {
    /// Adds (or replaces, on a redeploy) a role; returns it shared.
    pub fn put_role(&self, role: Role) -> Arc<Role> {
        let role = Arc::new(role);
        self.roles.write().insert(role.arn(), role.clone());
        role
    }

    pub fn role(&self, arn: &str) -> Option<Arc<Role>> {
        self.roles.read().get(arn).cloned()
    }

    pub fn roles(&self) -> Vec<Arc<Role>> {
        self.roles.read().values().cloned().collect()
    }

    /// Mints credentials for `principal`, valid for `lifetime`.
    pub fn open(&self, principal: Principal, lifetime: Duration) -> Credentials {
        let credentials = Credentials::mint(lifetime);
        self.by_key.write().insert(
            credentials.access_key_id.clone(),
            Session {
                credentials: credentials.clone(),
                principal,
            },
        );
        credentials
    }

    pub fn get(&self, access_key_id: &str) -> Option<Session> {
        self.by_key.read().get(access_key_id).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minted_credentials_look_like_sts_ones_and_are_distinct() {
        let a = Credentials::mint(Duration::hours(1));
        let b = Credentials::mint(Duration::hours(1));
        assert!(a.access_key_id.starts_with("ASIA"));
        assert_eq!(a.access_key_id.len(), 20);
        assert_eq!(a.secret_access_key.len(), 40);
        assert_ne!(a.access_key_id, b.access_key_id);
        assert_ne!(a.secret_access_key, b.secret_access_key);
    }

    #[test]
    fn sessions_name_their_assumed_role() {
        let sessions = Sessions::default();
        let role = sessions.put_role(Role {
            name: "app-ReaderRole".into(),
            account: "123456789012".into(),
            policies: Vec::new(),
        });
        let creds = sessions.open(
            Principal::AssumedRole {
                role,
                session_name: "app-reader".into(),
            },
            Duration::hours(1),
        );
        let session = sessions.get(&creds.access_key_id).unwrap();
        assert_eq!(
            session.principal.arn(),
            "arn:aws:sts::123456789012:assumed-role/app-ReaderRole/app-reader"
        );
        assert!(sessions.get("ASIANOTMINTED").is_none());
    }
}
