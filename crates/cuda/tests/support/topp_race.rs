//! The survivor test of the bf16 top-p histogram's race (`kernels/topp.cu`,
//! `TR_TOPP_RACE`) on the host, shared by `tests/topp_race_model.rs` and
//! `examples/topp_race_study.rs`: an element survives where its binary32
//! value reaches the cutoff of its lead's class, the kernel's test (a
//! superset of the elements whose score bound reaches the threshold).

use tailrace_noise::profile::exact;

/// The class of a lead prefix: the position of its highest set bit, with
/// prefix 0 joining 1 in class 0 (`tr_lead_class`).
pub fn lead_class(prefix: u32) -> usize {
    (31 - (prefix | 1).leading_zeros()) as usize
}

/// The next binary64 value toward +inf (finite x; the MSRV predates
/// `f64::next_up`).
fn up(x: f64) -> f64 {
    if x == 0.0 {
        f64::from_bits(1)
    } else if x > 0.0 {
        f64::from_bits(x.to_bits() + 1)
    } else {
        f64::from_bits(x.to_bits() - 1)
    }
}

/// The next binary64 value toward -inf (finite x).
fn down(x: f64) -> f64 {
    -up(-x)
}

/// The largest binary32 value not above x (finite x within binary32 range).
fn f32_down(x: f64) -> f32 {
    let r = x as f32;
    if f64::from(r) <= x {
        r
    } else if r > 0.0 {
        f32::from_bits(r.to_bits() - 1)
    } else if r == 0.0 {
        -f32::from_bits(1)
    } else {
        f32::from_bits(r.to_bits() + 1)
    }
}

/// The binary32 cutoff of lead class `j` for threshold `thr` at `neg_t` = -T:
/// the closed form of `tr_cutoff_f32_closed`, each of its directed roundings
/// taken as the nearest result moved one ulp outward (never less
/// conservative than the kernel's), the last one exact.
pub fn class_cutoff(neg_t: f64, j: usize, thr: f64) -> f32 {
    let lbc = exact::prefix_lower_bound(if j == 0 { 0 } else { 1 << j });
    let margin =
        up(up(up(thr.abs() + up(neg_t.abs() * 128.0)) * 2f64.powi(-51)) + 2f64.powi(-1000));
    let m = down(down(thr - neg_t * lbc) - margin);
    if m < -f64::from(f32::MAX) {
        return -f32::MAX;
    }
    f32_down(m)
}

/// The 32 cutoffs of a threshold, by class.
pub fn class_cutoffs(neg_t: f64, thr: f64) -> Vec<f32> {
    (0..32).map(|j| class_cutoff(neg_t, j, thr)).collect()
}

/// Whether element `index` of value `a` survives the cutoffs.
pub fn survives(cuts: &[f32], a: f32, seed: u64, position: u64, index: u32) -> bool {
    a >= cuts[lead_class(u32::from(exact::lead(seed, position, index)) << 16)]
}
