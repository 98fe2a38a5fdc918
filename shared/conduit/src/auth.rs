//! Tokens (JWT HS256) and password hashing (Argon2id).

use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::Argon2;
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

/// Argon2id with the crate defaults (m = 19 MiB, t = 2, p = 1: OWASP's minimum).
/// Measured ~80 ms per hash in this workspace's dev profile (dependencies at
/// opt-level 1); an optimised build is several times faster. Each hash also needs
/// 19 MiB, which a 128 MB function has.
pub fn hash_password(password: &str) -> Result<String, ApiError> {
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|hash| hash.to_string())
        .map_err(|err| ApiError::internal(err.to_string()))
}

/// False for a wrong password or an unparsable stored hash.
pub fn verify_password(password: &str, stored_hash: &str) -> bool {
    Argon2::default()
        .verify_password(password.as_bytes(), stored_hash)
        .is_ok()
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

    #[test]
    fn password_verifies_only_against_its_own_hash() {
        let hash = hash_password("hunter42").unwrap();
        assert!(verify_password("hunter42", &hash));
        assert!(!verify_password("hunter43", &hash));
        assert!(!verify_password("hunter42", "not a hash"));
    }
}
