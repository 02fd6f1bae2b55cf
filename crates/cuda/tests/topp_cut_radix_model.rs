//! The top-p gather's radix cut (`kernels/topp.cu`, `tr_topp_cut_radix`,
//! `TR_TOPP_CUT_RADIX`) as an algorithm on the host, against the sort and
//! walk it replaces. It checks the argument, not the CUDA code (which only a
//! device runs; the CUDA check compares every gathered row's cut with the
//! CPU model there): for a list of distinct rank keys with their masses and
//! a mass r still needed, the rounds of buckets must name the walk's
//! element, the first in descending key order at which the running mass
//! reaches r, and name none where the list's masses do not reach r.
//!
//! The model sums a bucket's masses in two 32-bit halves and keeps each
//! bucket's least and greatest key; the kernel sums four 16-bit pieces and
//! finds the chosen bucket's least and greatest key by a pass over its keys
//! (the same sums, the same range, so the same buckets), and takes r = 0
//! (the greatest key) before the rounds, where the rounds reach the same
//! key.
//!
//! A list is the elements of bin b*: key `(order key of x) << 32 | !index`,
//! mass a non-increasing function of the key's upper half, so that ties in
//! x (f16 rows, bf16 value entries) share a mass and differ in the index
//! bits alone.

use proptest::prelude::*;

/// The walk over the list sorted by key, descending: the first position
/// whose running mass reaches r.
fn walk(list: &[(u64, u64)], r: u128) -> Option<u64> {
    let mut sorted = list.to_vec();
    sorted.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut run = 0u128;
    for &(k, m) in &sorted {
        run += m as u128;
        if run >= r {
            return Some(k);
        }
    }
    None
}

/// The kernel's rounds: buckets of 8 bits from the highest bit where the
/// candidates' least and greatest keys differ; per bucket the sums of the
/// masses' 32-bit halves and the least and greatest key; the first nonempty
/// bucket in descending order where the running mass reaches r (the warp's
/// scan of 32 lanes of 8 buckets, then the lane's own walk, which give the
/// same bucket). `rounds` counts the rounds.
fn radix(list: &[(u64, u64)], r: u128, rounds: &mut u32) -> Option<u64> {
    let mut cmin = list.iter().map(|e| e.0).min().unwrap_or(!0);
    let mut cmax = list.iter().map(|e| e.0).max().unwrap_or(0);
    let mut r = r;
    *rounds = 0;
    loop {
        *rounds += 1;
        assert!(*rounds <= 9, "more than eight rounds");
        let mut lo = [0u64; 256];
        let mut hi = [0u64; 256];
        let mut kmin = [!0u64; 256];
        let mut kmax = [0u64; 256];
        let diff = cmin ^ cmax;
        let h = if diff != 0 {
            63 - diff.leading_zeros()
        } else {
            0
        };
        let sh = h.saturating_sub(7);
        for &(k, m) in list {
            if k < cmin || k > cmax {
                continue;
            }
            let d = ((k >> sh) & 255) as usize;
            lo[d] += m & 0xffff_ffff;
            hi[d] += m >> 32;
            kmin[d] = kmin[d].min(k);
            kmax[d] = kmax[d].max(k);
        }
        let mass = |d: usize| ((hi[d] as u128) << 32) + lo[d] as u128;
        // The warp: lane L sums buckets 255 - 8L down to 248 - 8L; the
        // first lane with a nonempty bucket whose inclusive sum reaches r.
        let mut incl = 0u128;
        let mut hit = None;
        for lane in 0..32usize {
            let ds = (0..8).map(|q| 255 - 8 * lane - q);
            let sum: u128 = ds.clone().map(mass).sum();
            let any = ds.clone().any(|d| kmin[d] <= kmax[d]);
            incl += sum;
            if any && incl >= r {
                hit = Some((lane, incl - sum));
                break;
            }
        }
        let (lane, mut before) = hit?;
        let mut next = None;
        for q in 0..8 {
            let d = 255 - 8 * lane - q;
            if kmin[d] <= kmax[d] && before + mass(d) >= r {
                next = Some(d);
                break;
            }
            before += mass(d);
        }
        let d = next.expect("the hit lane holds the bucket");
        if kmin[d] == kmax[d] {
            return Some(kmin[d]);
        }
        cmin = kmin[d];
        cmax = kmax[d];
        r -= before;
    }
}

/// The order key of an f32 (`tr_fkey`).
fn fkey(x: f32) -> u32 {
    let b = x.to_bits();
    if b >> 31 != 0 {
        !b
    } else {
        b | 0x8000_0000
    }
}

/// A bin's list: values drawn from `xs` (few distinct values give ties),
/// each at its own index, masses falling with the value.
fn list_of(xs: &[f32], idx: &[u32]) -> Vec<(u64, u64)> {
    xs.iter()
        .zip(idx)
        .map(|(&x, &i)| {
            let k = ((fkey(x) as u64) << 32) | (!i) as u64;
            // Any non-increasing function of x; the exact masses are
            // 2^63 exp(x - a_max) rounded, which is one.
            let m = ((x as f64 + 20.0).max(0.0) * (1u64 << 58) as f64) as u64;
            (k, m)
        })
        .collect()
}

fn check(list: &[(u64, u64)], r: u128) -> u32 {
    let mut rounds = 0;
    assert_eq!(radix(list, r, &mut rounds), walk(list, r), "r = {r}");
    rounds
}

/// Every r at the list's running sums, one below and one above each, 0 and
/// past the total.
fn every_r(list: &[(u64, u64)]) -> Vec<u128> {
    let mut sorted = list.to_vec();
    sorted.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut rs = vec![0u128, 1];
    let mut run = 0u128;
    for &(_, m) in &sorted {
        rs.push(run + 1);
        run += m as u128;
        rs.extend([run - 1, run, run + 1]);
    }
    rs
}

#[test]
fn every_running_sum_of_hand_made_lists() {
    // Distinct values; one value many times (a bf16 value entry); a few
    // values (f16); both signs; one element; empty; masses near 2^64.
    let idx: Vec<u32> = (0..2048u32)
        .map(|i| i.wrapping_mul(2_654_435_761) % 262_144)
        .collect();
    let distinct: Vec<f32> = (0..900).map(|i| 1.0 + i as f32 * 1e-4).collect();
    let same = vec![0.375f32; 1500];
    let few: Vec<f32> = (0..2048)
        .map(|i| [0.5f32, 0.5009766, 0.50195][i % 3])
        .collect();
    let signs: Vec<f32> = (0..700).map(|i| (i as f32 - 350.0) * 1e-3).collect();
    let mut rounds = 0;
    for xs in [
        &distinct[..],
        &same[..],
        &few[..],
        &signs[..],
        &distinct[..1],
        &[][..],
    ] {
        let mut seen: Vec<u32> = idx.clone();
        seen.sort_unstable();
        seen.dedup();
        assert!(seen.len() >= xs.len());
        let l = list_of(xs, &seen[..xs.len()]);
        for r in every_r(&l) {
            rounds = rounds.max(check(&l, r));
        }
    }
    let heavy: Vec<(u64, u64)> = (0..2048u64)
        .map(|i| ((1 << 40) + i * 977, u64::MAX - i))
        .collect();
    for r in every_r(&heavy) {
        rounds = rounds.max(check(&heavy, r));
    }
    assert!(rounds <= 8, "{rounds} rounds");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn random_lists_name_the_walks_element(
        raw in proptest::collection::vec((0u32..64, any::<u32>()), 0..2048),
        spread in 0u32..24,
        pick in any::<u64>(),
    ) {
        // Values from 64 steps of 2^-spread (ties wherever two draws meet),
        // indices made distinct.
        let mut used = std::collections::HashSet::new();
        let (xs, idx): (Vec<f32>, Vec<u32>) = raw
            .iter()
            .filter(|(_, i)| used.insert(*i))
            .map(|&(v, i)| (1.0 + v as f32 * (-(spread as f32)).exp2(), i))
            .unzip();
        let l = list_of(&xs, &idx);
        let total: u128 = l.iter().map(|e| e.1 as u128).sum();
        let r = if total == 0 { pick as u128 % 3 } else { pick as u128 % (total + 2) };
        check(&l, r);
    }
}
