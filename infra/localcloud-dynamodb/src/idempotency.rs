//! ClientRequestToken idempotency of TransactWriteItems: the same token and body
//! within ten minutes returns the first response; the same token with another body
//! is an error.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::error::{DdbError, DdbResult};
use crate::key::segment_hash;

const TOKEN_LIFETIME: Duration = Duration::from_secs(600);

/// Hash of the request body, the response, and when it was sent.
type CachedResponse = (u64, Vec<u8>, Instant);

/// The responses of the last ten minutes, by token.
#[derive(Default)]
pub struct TokenCache {
    entries: Mutex<HashMap<String, CachedResponse>>,
}

impl TokenCache {
    pub(crate) fn lookup(&self, token: &str, body: &[u8]) -> DdbResult<Option<Vec<u8>>> {
        let entries = self.entries.lock();
        match entries.get(token) {
            Some((hash, out, at)) if at.elapsed() < TOKEN_LIFETIME => {
                if *hash == segment_hash(body) {
                    Ok(Some(out.clone()))
                } else {
                    Err(DdbError::IdempotentParameterMismatch(
                        "The request uses the same client token as a previous, but non-identical request.".into(),
                    ))
                }
            }
            _ => Ok(None),
        }
    }

    pub(crate) fn remember(&self, token: &str, body: &[u8], out: &[u8]) {
        let mut entries = self.entries.lock();
        if entries.len() > 10_000 {
            entries.retain(|_, (_, _, at)| at.elapsed() < TOKEN_LIFETIME);
        }
        entries.insert(
            token.to_string(),
            (segment_hash(body), out.to_vec(), Instant::now()),
        );
    }
}
