//! The block bootstrap: a run's time cut into blocks, blocks drawn with
//! replacement as many times as the run had, each draw's figures computed as
//! the run's are (nearest-rank percentiles of successes, successes per
//! second, failed share).

use crate::recorder::Sample;

/// Resamples per figure: enough for the 2.5th and 97.5th percentiles to
/// move by less than their own rounding.
pub const RESAMPLES: usize = 1000;

/// Shortest and longest block. Blocks must be long enough that what
/// happens in one barely spills into the next (a slow second slows every
/// request in it), and short enough that even a 30-s run has 15 of them.
const MIN_BLOCK_MS: u64 = 2_000;
const MAX_BLOCK_MS: u64 = 5_000;
/// Blocks a run is cut into, where the bounds above allow.
const TARGET_BLOCKS: f64 = 30.0;

/// The block width for a run of `wall_s` seconds.
pub fn block_ms_for(wall_s: f64) -> u64 {
    let ms = (wall_s * 1000.0 / TARGET_BLOCKS).round() as u64;
    ms.clamp(MIN_BLOCK_MS, MAX_BLOCK_MS)
}

/// Every resample's figures, in resample order.
#[derive(Debug, Default)]
pub struct Resampled {
    pub blocks: usize,
    pub p50: Vec<f32>,
    pub p95: Vec<f32>,
    pub p99: Vec<f32>,
    pub ok_per_s: Vec<f32>,
    pub error_rate: Vec<f32>,
    /// Each resample's mean latency of its successes over the whole run
    /// over the run's own (1 where a resample had no success).
    pub mean_ok_ratio: Vec<f32>,
}

/// One block: its successes' latencies and its request count.
#[derive(Debug, Default, Clone)]
struct Block {
    ok_latencies: Vec<f64>,
    /// Every success's latency summed, warm-up included.
    ok_latency_sum: f64,
    ok: usize,
    requests: usize,
}

/// [`RESAMPLES`] draws of the run's blocks, seeded by `seed`; percentiles
/// of the successes completed from `latency_from_ms` on.
pub fn resample(samples: &[Sample], block_ms: u64, latency_from_ms: u64, seed: u64) -> Resampled {
    let blocks = cut(samples, block_ms, latency_from_ms);
    let n = blocks.len();
    let seconds = n as f64 * block_ms as f64 / 1000.0;
    let mut rng = SplitMix64(seed);
    let mut out = Resampled {
        blocks: n,
        ..Resampled::default()
    };
    let run_ok: usize = blocks.iter().map(|b| b.ok).sum();
    let run_mean = blocks.iter().map(|b| b.ok_latency_sum).sum::<f64>() / run_ok.max(1) as f64;
    let mut ok: Vec<f64> = Vec::new();
    for _ in 0..RESAMPLES {
        ok.clear();
        let (mut requests, mut successes, mut latency_sum) = (0, 0, 0.0);
        for _ in 0..n {
            let block = &blocks[rng.below(n)];
            ok.extend_from_slice(&block.ok_latencies);
            requests += block.requests;
            successes += block.ok;
            latency_sum += block.ok_latency_sum;
        }
        out.mean_ok_ratio
            .push(if successes == 0 || run_mean <= 0.0 {
                1.0
            } else {
                (latency_sum / successes as f64 / run_mean) as f32
            });
        if let Some([p50, p95, p99]) = percentiles(&mut ok) {
            out.p50.push(p50 as f32);
            out.p95.push(p95 as f32);
            out.p99.push(p99 as f32);
        }
        out.ok_per_s.push((successes as f64 / seconds) as f32);
        let failed = requests - successes;
        out.error_rate.push(if requests == 0 {
            0.0
        } else {
            failed as f32 / requests as f32
        });
    }
    // A resample without a success has no percentile: the interval is then
    // read from those that had one, unless too few did to mean anything.
    if out.p50.len() < RESAMPLES * 9 / 10 {
        (out.p50, out.p95, out.p99) = Default::default();
    }
    out
}

/// The run cut into blocks by completion time, empty ones included (a
/// block where nothing finished is a block of nothing done); latencies are
/// kept from `latency_from_ms` on, the counts of every request.
fn cut(samples: &[Sample], block_ms: u64, latency_from_ms: u64) -> Vec<Block> {
    let last = samples.iter().map(|s| s.at_ms).max().unwrap_or(0);
    let mut blocks = vec![Block::default(); (last / block_ms + 1) as usize];
    for s in samples {
        let block = &mut blocks[(s.at_ms / block_ms) as usize];
        block.requests += 1;
        if s.ok {
            block.ok += 1;
            block.ok_latency_sum += s.latency_ms;
            if s.at_ms >= latency_from_ms {
                block.ok_latencies.push(s.latency_ms);
            }
        }
    }
    blocks
}

/// Nearest-rank p50, p95 and p99 (as `recorder::percentile`) without a full
/// sort: each selection partitions the slice for the next, higher one.
fn percentiles(values: &mut [f64]) -> Option<[f64; 3]> {
    let n = values.len();
    if n == 0 {
        return None;
    }
    let index = |p: f64| ((p / 100.0 * n as f64).ceil() as usize).clamp(1, n) - 1;
    let mut out = [0.0; 3];
    let mut from = 0;
    for (slot, p) in [50.0, 95.0, 99.0].into_iter().enumerate() {
        let i = index(p);
        let (_, nth, _) = values[from..].select_nth_unstable_by(i - from, f64::total_cmp);
        out[slot] = *nth;
        from = i;
    }
    Some(out)
}

/// SplitMix64: a small, fast generator whose output for a seed never
/// changes with a dependency's version (reports are reproducible).
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n` > 0), by Lemire's multiply-shift.
    fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next()) * n as u128) >> 64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recorder::percentile;

    #[test]
    fn the_three_percentiles_are_the_recorders_nearest_ranks() {
        // GIVEN values in scrambled order
        let mut values: Vec<f64> = (1..=1000).map(|i| ((i * 7919) % 1000 + 1) as f64).collect();
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        // WHEN selected
        let got = percentiles(&mut values).unwrap();
        // THEN they are the nearest ranks the summary reports
        let want = [50.0, 95.0, 99.0].map(|p| percentile(&sorted, p).unwrap());
        assert_eq!(got, want);
    }

    #[test]
    fn blocks_count_idle_time_and_split_by_completion() {
        // GIVEN requests finishing at 0.5 s and 6.5 s with 2-s blocks
        let samples = [
            Sample {
                at_ms: 500,
                latency_ms: 1.0,
                ok: true,
                status: 200,
            },
            Sample {
                at_ms: 6500,
                latency_ms: 2.0,
                ok: false,
                status: 503,
            },
        ];
        // WHEN cut
        let blocks = cut(&samples, 2000, 0);
        // THEN the empty blocks between them are kept
        assert_eq!(blocks.len(), 4);
        assert_eq!((blocks[0].requests, blocks[0].ok_latencies.len()), (1, 1));
        assert_eq!((blocks[3].requests, blocks[3].ok_latencies.len()), (1, 0));
        // AND latencies before the window's start are counted, not timed
        let windowed = cut(&samples, 2000, 1000);
        assert_eq!((windowed[0].ok, windowed[0].ok_latencies.len()), (1, 0));
    }

    #[test]
    fn block_width_aims_at_thirty_blocks_within_bounds() {
        assert_eq!(block_ms_for(30.0), 2000);
        assert_eq!(block_ms_for(120.0), 4000);
        assert_eq!(block_ms_for(3600.0), 5000);
    }

    #[test]
    fn draws_are_uniform_enough_and_repeatable() {
        let mut a = SplitMix64(7);
        let mut counts = [0u32; 4];
        for _ in 0..40_000 {
            counts[a.below(4)] += 1;
        }
        assert!(
            counts.iter().all(|c| (9_500..10_500).contains(c)),
            "{counts:?}"
        );
        let (mut x, mut y) = (SplitMix64(42), SplitMix64(42));
        assert_eq!(x.next(), y.next());
    }
}
