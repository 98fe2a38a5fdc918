//! Tokens (JWT HS256) and the caller's identity, read from the request once.

use http::HeaderMap;
use jsonwebtoken::{decode, encode, Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

use crate::error::ApiError;
use crate::model::UserId;

/// Tokens live a day; RealWorld clients log in again after that.
const TOKEN_TTL_SECS: u64 = 24 * 60 * 60;
const MIN_SECRET_LEN: usize = 32;

#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    #[error("JWT_SECRET is not set")]
    Missing,
    #[error("JWT_SECRET must be at least {MIN_SECRET_LEN} bytes")]
    TooShort,
    #[error("JWT_SECRET is unusable as an HMAC key: {0}")]
    Unusable(String),
}

#[derive(Debug, Serialize, Deserialize)]
struct Claims {
    sub: String,
    iat: u64,
    exp: u64,
}

/// Signs and verifies tokens with one shared secret.
#[derive(Clone)]
pub struct Tokens {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    ttl_secs: u64,
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokens").finish_non_exhaustive()
    }
}

impl Tokens {
    pub fn new(secret: &[u8]) -> Result<Self, SecretError> {
        if secret.len() < MIN_SECRET_LEN {
            return Err(SecretError::TooShort);
        }
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_required_spec_claims(&["exp", "sub", "iat"]);
        validation.validate_exp = true;
        validation.leeway = 0;
        let unusable = |e: jsonwebtoken::errors::Error| SecretError::Unusable(e.to_string());
        Ok(Self {
            encoding: EncodingKey::from_secret(secret).map_err(unusable)?,
            decoding: DecodingKey::from_secret(secret).map_err(unusable)?,
            validation,
            ttl_secs: TOKEN_TTL_SECS,
        })
    }

    /// Reads `JWT_SECRET`; the function refuses to start without a strong one.
    pub fn from_env() -> Result<Self, SecretError> {
        let secret = std::env::var("JWT_SECRET").map_err(|_| SecretError::Missing)?;
        Self::new(secret.as_bytes())
    }

    /// Same key, different lifetime (tests use this to mint expired tokens).
    pub fn with_ttl_secs(mut self, ttl_secs: u64) -> Self {
        self.ttl_secs = ttl_secs;
        self
    }

    pub fn issue(&self, user: &UserId) -> Result<String, ApiError> {
        self.issue_at(user, now_secs())
    }

    /// A token issued at `iat` (seconds since the epoch).
    pub fn issue_at(&self, user: &UserId, iat: u64) -> Result<String, ApiError> {
        let claims = Claims {
            sub: user.clone(),
            iat,
            exp: iat + self.ttl_secs,
        };
        encode(&Header::new(Algorithm::HS256), &claims, &self.encoding).map_err(ApiError::internal)
    }

    /// The user id of a valid, unexpired HS256 token signed with our secret.
    pub fn verify(&self, token: &str) -> Result<UserId, ApiError> {
        decode::<Claims>(token, &self.decoding, &self.validation)
            .map(|data| data.claims.sub)
            .map_err(|err| {
                tracing::debug!(error = %err, "rejected token");
                ApiError::invalid_token()
            })
    }
}

fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default()
}

/// What the request's `Authorization` header says, read and checked once per
/// request; each route then takes the extractor it needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Identity {
    /// No `Authorization` header.
    Anonymous,
    /// A valid token for this user id.
    User(UserId),
    /// A header that is not a valid token: 401 wherever auth is read, even
    /// where it is optional.
    Invalid,
}

impl Identity {
    /// Accepts `Token <jwt>` (the RealWorld scheme) and `Bearer <jwt>`.
    pub fn from_headers(tokens: &Tokens, headers: &HeaderMap) -> Self {
        let Some(value) = headers.get(http::header::AUTHORIZATION) else {
            return Self::Anonymous;
        };
        let token = value.to_str().ok().map(str::trim).and_then(|v| {
            v.strip_prefix("Token ")
                .or_else(|| v.strip_prefix("Bearer "))
        });
        match token.map(|t| tokens.verify(t.trim())) {
            Some(Ok(user)) => Self::User(user),
            _ => Self::Invalid,
        }
    }

    /// The caller, who must be authenticated.
    pub fn required(&self) -> Result<AuthUser, ApiError> {
        match self {
            Self::User(id) => Ok(AuthUser(id.clone())),
            Self::Anonymous => Err(ApiError::missing_token()),
            Self::Invalid => Err(ApiError::invalid_token()),
        }
    }

    /// The caller if any; a present but bad token is still a 401.
    pub fn optional(&self) -> Result<MaybeAuthUser, ApiError> {
        match self {
            Self::User(id) => Ok(MaybeAuthUser(Some(id.clone()))),
            Self::Anonymous => Ok(MaybeAuthUser(None)),
            Self::Invalid => Err(ApiError::invalid_token()),
        }
    }

    /// The user id of a valid token, ignoring a bad one.
    pub fn user_id(&self) -> Option<&UserId> {
        match self {
            Self::User(id) => Some(id),
            _ => None,
        }
    }
}

/// An authenticated caller (the route requires a token).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthUser(pub UserId);

/// A caller who may be anonymous (the route takes an optional token).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MaybeAuthUser(pub Option<UserId>);

impl MaybeAuthUser {
    pub fn id(&self) -> Option<&UserId> {
        self.0.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &[u8] = b"test-secret-test-secret-test-secret!";

    #[test]
    fn issued_token_verifies_to_its_user() {
        let tokens = Tokens::new(SECRET).unwrap();
        let token = tokens.issue(&"u1".to_owned()).unwrap();
        assert_eq!(tokens.verify(&token).unwrap(), "u1");
    }

    #[test]
    fn expired_token_is_rejected() {
        let tokens = Tokens::new(SECRET).unwrap().with_ttl_secs(10);
        let token = tokens
            .issue_at(&"u1".to_owned(), now_secs() - 3600)
            .unwrap();
        assert!(matches!(
            tokens.verify(&token),
            Err(ApiError::Unauthorized { .. })
        ));
    }

    #[test]
    fn token_signed_with_another_secret_is_rejected() {
        let other = Tokens::new(b"another-secret-another-secret-another").unwrap();
        let token = other.issue(&"u1".to_owned()).unwrap();
        assert!(Tokens::new(SECRET).unwrap().verify(&token).is_err());
    }

    #[test]
    fn token_with_another_algorithm_is_rejected() {
        // GIVEN a token with valid claims, signed with our secret but HS512
        let claims = Claims {
            sub: "u1".into(),
            iat: now_secs(),
            exp: now_secs() + 60,
        };
        let key = EncodingKey::from_secret(SECRET).unwrap();
        let token = encode(&Header::new(Algorithm::HS512), &claims, &key).unwrap();
        // THEN only HS256 is accepted
        assert!(Tokens::new(SECRET).unwrap().verify(&token).is_err());
    }

    #[test]
    fn token_without_expiry_is_rejected() {
        #[derive(Serialize)]
        struct NoExp {
            sub: String,
            iat: u64,
        }
        let key = EncodingKey::from_secret(SECRET).unwrap();
        let claims = NoExp {
            sub: "u1".into(),
            iat: now_secs(),
        };
        let token = encode(&Header::new(Algorithm::HS256), &claims, &key).unwrap();
        assert!(Tokens::new(SECRET).unwrap().verify(&token).is_err());
    }

    #[test]
    fn short_secret_is_refused() {
        assert!(matches!(Tokens::new(b"short"), Err(SecretError::TooShort)));
    }

    fn headers(authorization: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(http::header::AUTHORIZATION, authorization.parse().unwrap());
        headers
    }

    #[test]
    fn identity_accepts_both_schemes_and_tells_absent_from_bad() {
        let tokens = Tokens::new(SECRET).unwrap();
        let token = tokens.issue(&"u1".to_owned()).unwrap();
        for scheme in ["Token", "Bearer"] {
            let identity = Identity::from_headers(&tokens, &headers(&format!("{scheme} {token}")));
            assert_eq!(identity, Identity::User("u1".into()));
        }
        assert_eq!(
            Identity::from_headers(&tokens, &HeaderMap::new()),
            Identity::Anonymous
        );
        assert_eq!(
            Identity::from_headers(&tokens, &headers(&token)),
            Identity::Invalid
        );
    }

    #[test]
    fn a_bad_token_is_401_even_where_auth_is_optional() {
        assert_eq!(Identity::Invalid.optional().unwrap_err().status_code(), 401);
        assert_eq!(Identity::Anonymous.optional().unwrap(), MaybeAuthUser(None));
        let missing = Identity::Anonymous.required().unwrap_err();
        assert_eq!(missing.body()["errors"]["token"][0], "is missing");
    }
}
