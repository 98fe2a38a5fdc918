//! Receipt handles: opaque to callers, but they name the queue incarnation,
//! the message and the receive that produced them, with a keyed checksum so
//! a made-up handle is rejected as `ReceiptHandleIsInvalid`.

use base64::Engine;
use md5::{Digest, Md5};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HandleParts {
    pub queue_id: u64,
    pub seq: u64,
    pub nonce: u64,
}

pub struct HandleCodec {
    secret: [u8; 16],
}

impl HandleCodec {
    pub fn new() -> Self {
        Self {
            secret: *uuid::Uuid::new_v4().as_bytes(),
        }
    }

    fn mac(&self, payload: &str) -> String {
        let mut hasher = Md5::new();
        hasher.update(self.secret);
        hasher.update(payload.as_bytes());
        hex::encode(&hasher.finalize()[..8])
    }

    pub fn encode(&self, parts: HandleParts) -> String {
        let payload = format!("{}:{}:{}", parts.queue_id, parts.seq, parts.nonce);
        let mac = self.mac(&payload);
        base64::engine::general_purpose::STANDARD.encode(format!("{payload}:{mac}"))
    }

    pub fn decode(&self, handle: &str) -> Option<HandleParts> {
        let raw = base64::engine::general_purpose::STANDARD
            .decode(handle.trim())
            .ok()?;
        let text = String::from_utf8(raw).ok()?;
        let (payload, mac) = text.rsplit_once(':')?;
        if self.mac(payload) != mac {
            return None;
        }
        let mut it = payload.split(':').map(|p| p.parse::<u64>().ok());
        let parts = HandleParts {
            queue_id: it.next()??,
            seq: it.next()??,
            nonce: it.next()??,
        };
        it.next().is_none().then_some(parts)
    }
}

impl Default for HandleCodec {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_round_trip_and_forgeries_fail() {
        let codec = HandleCodec::new();
        let parts = HandleParts {
            queue_id: 3,
            seq: 99,
            nonce: 7,
        };
        let handle = codec.encode(parts);
        assert_eq!(codec.decode(&handle), Some(parts));
        assert_eq!(codec.decode("garbage"), None);
        let forged = base64::engine::general_purpose::STANDARD.encode("3:99:8:0000000000000000");
        assert_eq!(codec.decode(&forged), None);
        assert_eq!(
            HandleCodec::new().decode(&handle),
            None,
            "another service's secret"
        );
    }
}
