//! The rank-order filters: top-k, min-p and top-p with exact fixed-point
//! masses. Each keeps a prefix of the rank order (larger `a` first, then the
//! smaller index), so together they reduce to one boundary, a [`Cut`].
//! spec: SAMPLER.md §4.

use crate::logits::Logit;
use crate::params::SamplingParams;
use crate::race::RowData;
use tailrace_noise::math;

/// The last survivor of a rank-order prefix: a token survives when its key
/// `(a, index)` is not ranked after `(a, index)` of the cut.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cut {
    /// The boundary's `a`.
    pub a: f64,
    /// The boundary's index (`u32::MAX`: every token with `a == self.a` survives).
    pub index: u32,
}

impl Cut {
    /// Whether the token `(a, i)` is in the prefix.
    #[inline(always)]
    pub fn keeps(&self, a: f64, i: u32) -> bool {
        a > self.a || (a == self.a && i <= self.index)
    }

    /// The shorter of two prefixes.
    pub fn tighter(self, o: Cut) -> Cut {
        if o.a > self.a || (o.a == self.a && o.index < self.index) {
            o
        } else {
            self
        }
    }
}

fn tighten(c: Option<Cut>, n: Cut) -> Option<Cut> {
    Some(c.map_or(n, |c| c.tighter(n)))
}

#[inline(always)]
/// The min-p threshold `T * ln(min_p)` on `a_i - a_max`. spec: SAMPLER.md §4.3.
pub fn min_p_threshold(temperature: f64, min_p: f64) -> f64 {
    temperature * math::ln(min_p)
}

/// The fixed-point mass `floor(exp((a - a_max) / T) * 2^63)`. spec: SAMPLER.md §4.4.
#[inline(always)]
pub fn top_p_mass(a: f64, a_max: f64, temperature: f64) -> u64 {
    let y = (a - a_max) / temperature;
    if y < -44.0 {
        return 0; // exp(y) < 2^-63: the mass floors to zero.
    }
    (math::exp_nonpositive(y) * 9_223_372_036_854_775_808.0) as u64
}

/// `ceil(p * q)` exactly, for p in (0, 1) and q < 2^100. spec: SAMPLER.md §4.4.
pub fn top_p_target(p: f64, q: u128) -> u128 {
    let bits = p.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as u32;
    let frac = bits & ((1u64 << 52) - 1);
    // p = m * 2^-s exactly.
    let (m, s) = if exp == 0 {
        (frac, 1074u32)
    } else {
        (frac | (1u64 << 52), 1075 - exp)
    };
    // m * q as 192 bits: hi * 2^128 + lo.
    let (q_hi, q_lo) = ((q >> 64) as u64, q as u64);
    let p_lo = u128::from(m) * u128::from(q_lo);
    let p_hi = u128::from(m) * u128::from(q_hi);
    let (lo, carry) = p_lo.overflowing_add(p_hi << 64);
    let hi = (p_hi >> 64) + u128::from(carry);
    // ceil((hi:lo) / 2^s)
    if s >= 256 {
        return u128::from(hi != 0 || lo != 0);
    }
    let (quot, rem_nonzero) = if s >= 128 {
        let sh = s - 128;
        let quot = if sh == 0 { hi } else { hi >> sh };
        let rem = lo != 0 || (sh > 0 && hi & ((1u128 << sh) - 1) != 0);
        (quot, rem)
    } else if s == 0 {
        (lo, false)
    } else {
        let quot = (lo >> s) | (hi << (128 - s));
        (quot, lo & ((1u128 << s) - 1) != 0)
    };
    quot + u128::from(rem_nonzero)
}

/// The survivors' boundary for `params` on a clean row whose largest `a` is
/// `a_max` (None: every unmasked token survives). spec: SAMPLER.md §4.
pub fn cut<T: Logit>(row: &RowData<'_, T>, params: &SamplingParams, a_max: f64) -> Option<Cut> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("fma") && std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the features were detected on this CPU.
        return unsafe { cut_fma(row, params, a_max) };
    }
    cut_portable(row, params, a_max)
}

/// [`cut`] with hardware fma (same bits: `mul_add` is correctly rounded either way).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn cut_fma<T: Logit>(
    row: &RowData<'_, T>,
    params: &SamplingParams,
    a_max: f64,
) -> Option<Cut> {
    cut_portable(row, params, a_max)
}

#[inline(always)]
fn cut_portable<T: Logit>(
    row: &RowData<'_, T>,
    params: &SamplingParams,
    a_max: f64,
) -> Option<Cut> {
    let t = params.temp();
    let n = row.len();
    let mut c: Option<Cut> = None;
    if let Some(min_p) = params.min_p() {
        let thr = min_p_threshold(t, min_p);
        let mut lowest = a_max;
        for i in 0..n {
            let a = row.a(i);
            if a > f64::NEG_INFINITY && a - a_max >= thr && a < lowest {
                lowest = a;
            }
        }
        c = tighten(
            c,
            Cut {
                a: lowest,
                index: u32::MAX,
            },
        );
    }
    if let Some(k) = params.top_k() {
        if let Some(kth) = kth_in_rank_order(row, c, k as usize) {
            c = tighten(
                c,
                Cut {
                    a: kth.0,
                    index: kth.1,
                },
            );
        }
    }
    if let Some(p) = params.top_p() {
        let mut keys: Vec<(f64, u32, u64)> = (0..n)
            .filter_map(|i| {
                let a = row.a(i);
                if !(a > f64::NEG_INFINITY && c.is_none_or(|c| c.keeps(a, i as u32))) {
                    return None;
                }
                let q = top_p_mass(a, a_max, t);
                (q > 0).then_some((a, i as u32, q))
            })
            .collect();
        let total: u128 = keys.iter().map(|k| u128::from(k.2)).sum();
        let (a, i) = weighted_select(&mut keys, top_p_target(p, total));
        c = tighten(c, Cut { a, index: i });
    }
    c
}

/// The k-th survivor of `c` in rank order (None when fewer than k+1 survive,
/// i.e. top-k keeps them all). A buffer of candidates at or above a rising
/// threshold keeps the work linear with cheap compares.
#[inline(always)]
fn kth_in_rank_order<T: Logit>(
    row: &RowData<'_, T>,
    c: Option<Cut>,
    k: usize,
) -> Option<(f64, u32)> {
    // Never more than the row holds (k may be far above V).
    let cap = (2 * k).max(k + 4096).min(row.len() + 1);
    let mut buf: Vec<(f64, u32)> = Vec::with_capacity(cap + 1);
    let mut floor = f64::NEG_INFINITY; // a of the current k-th best once the buffer was shrunk
    let mut survivors = 0usize;
    for i in 0..row.len() {
        let a = row.a(i);
        if !(a > f64::NEG_INFINITY && c.is_none_or(|c| c.keeps(a, i as u32))) {
            continue;
        }
        survivors += 1;
        if a >= floor {
            buf.push((a, i as u32));
            if buf.len() > cap {
                buf.select_nth_unstable_by(k - 1, rank_order);
                buf.truncate(k);
                floor = buf.iter().map(|x| x.0).fold(f64::INFINITY, f64::min);
            }
        }
    }
    if survivors <= k {
        return None;
    }
    Some(*buf.select_nth_unstable_by(k - 1, rank_order).1)
}

/// The element of `keys` at which the rank-order running mass first reaches
/// `target` (0 < target <= total mass). Expected linear time: partition at the
/// median, keep the side that holds the crossing.
#[inline(always)]
fn weighted_select(keys: &mut [(f64, u32, u64)], target: u128) -> (f64, u32) {
    let by_rank = |x: &(f64, u32, u64), y: &(f64, u32, u64)| rank_order(&(x.0, x.1), &(y.0, y.1));
    let mut window = keys;
    let mut before: u128 = 0;
    loop {
        debug_assert!(!window.is_empty());
        let mid = window.len() / 2;
        let (earlier, pivot, later) = window.select_nth_unstable_by(mid, by_rank);
        let mass: u128 = earlier.iter().map(|k| u128::from(k.2)).sum();
        if before + mass >= target {
            window = earlier;
        } else if before + mass + u128::from(pivot.2) >= target {
            return (pivot.0, pivot.1);
        } else {
            before += mass + u128::from(pivot.2);
            window = later;
        }
    }
}

/// The indices a cut keeps, ascending.
pub fn survivors<T: Logit>(row: &RowData<'_, T>, cut: Cut) -> Vec<u32> {
    (0..row.len())
        .filter(|&i| {
            let a = row.a(i);
            a > f64::NEG_INFINITY && cut.keeps(a, i as u32)
        })
        .map(|i| i as u32)
        .collect()
}

/// Rank order as a sort comparator: earlier-ranked first.
pub fn rank_order(x: &(f64, u32), y: &(f64, u32)) -> std::cmp::Ordering {
    y.0.partial_cmp(&x.0)
        .expect("no NaN in a clean row")
        .then(x.1.cmp(&y.1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_is_exact_ceiling() {
        assert_eq!(top_p_target(0.5, 10), 5);
        assert_eq!(top_p_target(0.5, 11), 6);
        assert_eq!(top_p_target(0.9, 1 << 63), (0.9f64 * 2f64.powi(63)) as u128);
        // p = 0.1 is slightly above 1/10 in binary64: ceil(p * 10) = 2.
        assert_eq!(top_p_target(0.1, 10), 2);
        assert_eq!(top_p_target(f64::MIN_POSITIVE, 1u128 << 90), 1);
        let q = (1u128 << 95) + 12345;
        let p = 0.75;
        assert_eq!(top_p_target(p, q), (3 * q).div_ceil(4));
    }

    #[test]
    fn mass_of_top_token_is_two_to_63() {
        assert_eq!(top_p_mass(3.0, 3.0, 0.7), 1 << 63);
        assert_eq!(top_p_mass(-100.0, 3.0, 1.0), 0);
    }
}
