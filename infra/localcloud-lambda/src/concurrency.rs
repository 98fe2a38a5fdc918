//! Concurrency limits: a function with reserved concurrency draws only from its
//! reservation; every other function shares what the reservations leave of the
//! account limit. Over a limit, an invocation is refused at once.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;

pub const RESERVED_LIMIT_EXCEEDED: &str = "ReservedFunctionConcurrentInvocationLimitExceeded";
pub const ACCOUNT_LIMIT_EXCEEDED: &str = "ConcurrentInvocationLimitExceeded";

#[derive(Default)]
pub struct Concurrency {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    account_limit: u32,
    reserved_total: u32,
    unreserved_in_use: u32,
    in_use: u32,
    peak: u32,
    functions: HashMap<String, FunctionSlots>,
}

#[derive(Default, Clone, Copy)]
struct FunctionSlots {
    reserved: Option<u32>,
    in_use: u32,
    peak: u32,
}

/// Counts (account total, its peak) or (one function, its peak).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    pub now: u32,
    pub peak: u32,
}

impl Concurrency {
    pub fn new<'a>(
        account_limit: u32,
        functions: impl IntoIterator<Item = (&'a str, Option<u32>)>,
    ) -> Self {
        let functions: HashMap<String, FunctionSlots> = functions
            .into_iter()
            .map(|(name, reserved)| {
                (
                    name.to_string(),
                    FunctionSlots {
                        reserved,
                        ..Default::default()
                    },
                )
            })
            .collect();
        let reserved_total = functions.values().filter_map(|f| f.reserved).sum();
        Self {
            state: Mutex::new(State {
                account_limit,
                reserved_total,
                functions,
                ..Default::default()
            }),
        }
    }

    /// Takes one execution slot for `function`, or names AWS's throttle reason.
    pub fn acquire(self: &Arc<Self>, function: &str) -> Result<Slot, &'static str> {
        let mut state = self.state.lock();
        let unreserved_capacity = state.account_limit.saturating_sub(state.reserved_total);
        let unreserved_in_use = state.unreserved_in_use;
        let slots = state.functions.entry(function.to_string()).or_default();
        let reserved = slots.reserved;
        match reserved {
            Some(limit) if slots.in_use >= limit => return Err(RESERVED_LIMIT_EXCEEDED),
            None if unreserved_in_use >= unreserved_capacity => return Err(ACCOUNT_LIMIT_EXCEEDED),
            _ => {}
        }
        slots.in_use += 1;
        slots.peak = slots.peak.max(slots.in_use);
        if reserved.is_none() {
            state.unreserved_in_use += 1;
        }
        state.in_use += 1;
        state.peak = state.peak.max(state.in_use);
        Ok(Slot {
            owner: self.clone(),
            function: function.to_string(),
            reserved: reserved.is_some(),
        })
    }

    pub fn account(&self) -> Usage {
        let state = self.state.lock();
        Usage {
            now: state.in_use,
            peak: state.peak,
        }
    }

    pub fn function(&self, function: &str) -> Usage {
        let state = self.state.lock();
        state
            .functions
            .get(function)
            .map(|f| Usage {
                now: f.in_use,
                peak: f.peak,
            })
            .unwrap_or_default()
    }

    /// Peaks restart from what is in use now.
    pub fn reset_peaks(&self) {
        let mut state = self.state.lock();
        state.peak = state.in_use;
        for slots in state.functions.values_mut() {
            slots.peak = slots.in_use;
        }
    }

    fn release(&self, function: &str, reserved: bool) {
        let mut state = self.state.lock();
        state.in_use -= 1;
        if !reserved {
            state.unreserved_in_use -= 1;
        }
        if let Some(slots) = state.functions.get_mut(function) {
            slots.in_use -= 1;
        }
    }
}

/// One execution in progress; dropping it frees the slot.
pub struct Slot {
    owner: Arc<Concurrency>,
    function: String,
    reserved: bool,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.owner.release(&self.function, self.reserved);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_function_is_capped_by_its_reservation() {
        let limits = Arc::new(Concurrency::new(10, [("a", Some(1)), ("b", None)]));
        let first = limits.acquire("a").unwrap();
        assert_eq!(limits.acquire("a").err(), Some(RESERVED_LIMIT_EXCEEDED));
        drop(first);
        assert!(limits.acquire("a").is_ok());
    }

    #[test]
    fn reserved_zero_throttles_everything() {
        let limits = Arc::new(Concurrency::new(10, [("off", Some(0))]));
        assert_eq!(limits.acquire("off").err(), Some(RESERVED_LIMIT_EXCEEDED));
    }

    #[test]
    fn unreserved_functions_share_what_reservations_leave() {
        let limits = Arc::new(Concurrency::new(
            3,
            [("a", Some(1)), ("b", None), ("c", None)],
        ));
        let _b = limits.acquire("b").unwrap();
        let _c = limits.acquire("c").unwrap();
        assert_eq!(limits.acquire("b").err(), Some(ACCOUNT_LIMIT_EXCEEDED));
        // The reservation stays available to its function.
        let _a = limits.acquire("a").unwrap();
        assert_eq!(limits.account(), Usage { now: 3, peak: 3 });
    }

    #[test]
    fn peaks_survive_release_until_reset() {
        let limits = Arc::new(Concurrency::new(5, [("a", None)]));
        let one = limits.acquire("a").unwrap();
        let two = limits.acquire("a").unwrap();
        drop((one, two));
        assert_eq!(limits.function("a"), Usage { now: 0, peak: 2 });
        limits.reset_peaks();
        assert_eq!(limits.function("a"), Usage { now: 0, peak: 0 });
    }
}
