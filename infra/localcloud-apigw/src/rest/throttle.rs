//! The token bucket API Gateway throttles with: `burst` tokens at most,
//! refilled at `rate` per second; a request without a token gets 429.
//! <https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-request-throttling.html>

use std::time::Instant;

use parking_lot::Mutex;

use crate::rest::config::Throttle;

pub struct TokenBucket {
    rate: f64,
    burst: f64,
    state: Mutex<(f64, Instant)>,
}

impl TokenBucket {
    pub fn new(throttle: Throttle) -> Self {
        let burst = f64::from(throttle.burst_limit);
        Self {
            rate: throttle.rate_limit,
            burst,
            state: Mutex::new((burst, Instant::now())),
        }
    }

    /// Takes a token if there is one.
    pub fn try_take(&self) -> bool {
        self.try_take_at(Instant::now())
    }

    fn try_take_at(&self, now: Instant) -> bool {
        let mut state = self.state.lock();
        let (tokens, last) = *state;
        let elapsed = now.saturating_duration_since(last).as_secs_f64();
        let tokens = (tokens + elapsed * self.rate).min(self.burst);
        if tokens >= 1.0 {
            *state = (tokens - 1.0, now);
            true
        } else {
            *state = (tokens, now);
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn burst_is_served_then_requests_wait_for_the_rate() {
        let bucket = TokenBucket::new(Throttle {
            rate_limit: 10.0,
            burst_limit: 3,
        });
        let start = Instant::now();
        assert!((0..3).all(|_| bucket.try_take_at(start)));
        assert!(!bucket.try_take_at(start));
        // 100 ms at 10 per second is one more token.
        assert!(bucket.try_take_at(start + Duration::from_millis(100)));
        assert!(!bucket.try_take_at(start + Duration::from_millis(100)));
    }

    #[test]
    fn zero_burst_rejects_everything() {
        let bucket = TokenBucket::new(Throttle {
            rate_limit: 100.0,
            burst_limit: 0,
        });
        assert!(!bucket.try_take());
    }
}
