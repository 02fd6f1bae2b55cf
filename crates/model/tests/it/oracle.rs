//! A brute-force sampler written from the spec text (spec/SAMPLER.md,
//! to become SAMPLER.md), sharing no code with the model: every rule is the
//! literal one (sort the whole row, walk the rank order, sum the masses,
//! compare every score). Only the normative noise (`profile::ln_variate`) and
//! the spec's `ln`/`exp` come from `tailrace-noise`.

use tailrace_model::{LogitBias, RawParams, RowOutput, RowStatus};
use tailrace_noise::{math, profile};

/// `a_i = f64(x_i) + f64(b_i)`, `b_i = 0` where there is no bias. spec: Inputs.
pub fn a_values(x: &[f32], bias: &LogitBias) -> Vec<f64> {
    let mut b = vec![0.0f32; x.len()];
    match bias {
        LogitBias::None => {}
        LogitBias::Dense(d) => b.copy_from_slice(d),
        LogitBias::Sparse(pairs) => {
            for &(i, v) in pairs {
                b[i as usize] = v;
            }
        }
    }
    x.iter()
        .zip(&b)
        .map(|(&x, &b)| f64::from(x) + f64::from(b))
        .collect()
}

/// The row status. spec: Per-row status.
pub fn status(a: &[f64]) -> RowStatus {
    if a.iter().any(|v| v.is_nan() || *v == f64::INFINITY) {
        RowStatus::NonFiniteLogit
    } else if a.iter().all(|v| *v == f64::NEG_INFINITY) {
        RowStatus::AllMasked
    } else {
        RowStatus::Ok
    }
}

/// The unmasked indices in rank order: larger `a` first, equal `a` by smaller index.
pub fn rank_order(a: &[f64]) -> Vec<u32> {
    let mut idx: Vec<u32> = (0..a.len() as u32)
        .filter(|&i| a[i as usize] > f64::NEG_INFINITY)
        .collect();
    idx.sort_by(|&i, &j| {
        let (ai, aj) = (a[i as usize], a[j as usize]);
        aj.partial_cmp(&ai).expect("clean row").then(i.cmp(&j))
    });
    idx
}

/// Whether `raw` selects greedy decoding (T == 0, -0.0 included, or top_k == 1).
pub fn is_greedy(raw: &RawParams) -> bool {
    raw.temperature == 0.0 || raw.top_k == 1
}

/// `floor(x)` for `0 <= x < 2^64`, read off the binary64 bits.
pub fn floor_u64(x: f64) -> u64 {
    assert!((0.0..18_446_744_073_709_551_616.0).contains(&x), "{x}");
    if x < 1.0 {
        return 0;
    }
    let bits = x.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i32 - 1023; // 0..=63
    let m = (bits & ((1u64 << 52) - 1)) | (1u64 << 52);
    if e >= 52 {
        m << (e - 52)
    } else {
        m >> (52 - e)
    }
}

/// The fixed-point mass `floor(exp((a - a_max) / T) * 2^63)`. spec: top-p.
pub fn mass(a: f64, a_max: f64, t: f64) -> u64 {
    let e = math::exp_nonpositive((a - a_max) / t);
    // Multiplying by a power of two is exact here (e <= 1, no overflow).
    floor_u64(e * 9_223_372_036_854_775_808.0)
}

/// `p * q` for `p` in (0, 1), exactly: its floor and whether it is an
/// integer. p = m / 2^s is found by doubling (exact), `m * q` is formed as
/// 192-bit limbs and the quotient read off bit by bit.
pub fn p_times(p: f64, q: u128) -> (u128, bool) {
    assert!(p > 0.0 && p < 1.0);
    let (mut m, mut s) = (p, 0u32);
    while m.fract() != 0.0 {
        m *= 2.0;
        s += 1;
    }
    let m = m as u64;
    // m * q: limbs l0 + l1 * 2^64 + l2 * 2^128.
    let t0 = u128::from(m) * u128::from(q as u64);
    let t1 = u128::from(m) * u128::from((q >> 64) as u64) + (t0 >> 64);
    let limbs = [t0 as u64, t1 as u64, (t1 >> 64) as u64];
    let (mut floor, mut exact) = (0u128, true);
    for j in 0..192u32 {
        if limbs[(j / 64) as usize] >> (j % 64) & 1 == 1 {
            if j < s {
                exact = false;
            } else {
                floor |= 1u128 << (j - s);
            }
        }
    }
    (floor, exact)
}

/// `ceil(p * q)` exactly, for `p` in (0, 1).
pub fn ceil_p_times(p: f64, q: u128) -> u128 {
    let (floor, exact) = p_times(p, q);
    floor + u128::from(!exact)
}

/// What the top-p step saw: its input set in rank order, their masses, the
/// total `Q`, the target `ceil(p * Q)` and how long the kept prefix is.
#[derive(Debug, Clone)]
pub struct TopP {
    pub input: Vec<u32>,
    pub masses: Vec<u64>,
    pub total: u128,
    pub target: u128,
    pub kept: usize,
}

/// The survivors (ascending indices) of a clean, not all-masked row under
/// non-greedy `raw`, and the top-p details when top-p is on. spec: Order key and filters.
pub fn survivors_detail(a: &[f64], raw: &RawParams) -> (Vec<u32>, Option<TopP>) {
    let mut keep = rank_order(a);
    assert!(!keep.is_empty());
    let a_max = a[keep[0] as usize];
    let t = raw.temperature;
    // 1. top-k
    if raw.top_k >= 1 && (raw.top_k as usize) < keep.len() {
        keep.truncate(raw.top_k as usize);
    }
    // 2. min-p
    if raw.min_p > 0.0 {
        let thr = t * math::ln(raw.min_p);
        keep.retain(|&i| a[i as usize] - a_max >= thr);
    }
    // 3. top-p
    let mut detail = None;
    if raw.top_p < 1.0 {
        let masses: Vec<u64> = keep
            .iter()
            .map(|&i| mass(a[i as usize], a_max, t))
            .collect();
        let total: u128 = masses.iter().map(|&q| u128::from(q)).sum();
        let target = ceil_p_times(raw.top_p, total);
        let mut run = 0u128;
        let mut kept = keep.len();
        for (n, &q) in masses.iter().enumerate() {
            run += u128::from(q);
            if run >= target {
                kept = n + 1;
                break;
            }
        }
        detail = Some(TopP {
            input: keep.clone(),
            masses,
            total,
            target,
            kept,
        });
        keep.truncate(kept);
    }
    keep.sort_unstable();
    (keep, detail)
}

/// The survivors (ascending) of a clean row under non-greedy `raw`.
pub fn survivors(a: &[f64], raw: &RawParams) -> Vec<u32> {
    survivors_detail(a, raw).0
}

/// The race score `fma(-T, ln E_i, a_i)`. spec: The race.
pub fn score(a: &[f64], raw: &RawParams, i: u32) -> f64 {
    let ln_e = profile::ln_variate(raw.profile, raw.seed, raw.position, i);
    (-raw.temperature).mul_add(ln_e, a[i as usize])
}

/// The survivor with the largest score, equal scores to the smaller index.
pub fn race(a: &[f64], raw: &RawParams, survivors: &[u32]) -> (u32, f64) {
    let mut best: Option<(u32, f64)> = None;
    for &i in survivors {
        let s = score(a, raw, i);
        match best {
            Some((j, b)) if !(s > b || (s == b && i < j)) => {}
            _ => best = Some((i, s)),
        }
    }
    best.expect("at least one survivor")
}

/// The row's output.
pub fn sample(x: &[f32], bias: &LogitBias, raw: &RawParams) -> RowOutput {
    let a = a_values(x, bias);
    match status(&a) {
        RowStatus::Ok => {}
        s => return RowOutput::failed(s),
    }
    if is_greedy(raw) {
        return RowOutput::ok(rank_order(&a)[0]);
    }
    RowOutput::ok(race(&a, raw, &survivors(&a, raw)).0)
}
