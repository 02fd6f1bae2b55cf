//! The exponential race over a row: status scan, rank-order cut, and the
//! bounded exact race. spec: SAMPLER.md §3-§6.

use crate::filter::{self, Cut};
use crate::logits::Logit;
use crate::params::SamplingParams;
use serde::{Deserialize, Serialize};
use std::ops::Range;
use tailrace_noise::math;
use tailrace_noise::philox::{philox4x32_10_lanes, seed_key};
use tailrace_noise::profile::{self, exact, f32p, f64p, tag, triton};
use tailrace_noise::NoiseProfile;

/// The token reported for a row whose status is not [`RowStatus::Ok`].
pub const NO_TOKEN: u32 = u32::MAX;

/// Per-row outcome. spec: SAMPLER.md §7.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RowStatus {
    /// A token was drawn.
    Ok,
    /// Some `a_i = x_i + b_i` is NaN or +inf.
    NonFiniteLogit,
    /// Every token is masked (`a_i = -inf`).
    AllMasked,
}

impl RowStatus {
    /// The numeric status code (device output). spec: SAMPLER.md §7.
    pub fn code(self) -> u8 {
        match self {
            RowStatus::Ok => 0,
            RowStatus::NonFiniteLogit => 1,
            RowStatus::AllMasked => 2,
        }
    }

    /// The status of a numeric code, if it is one.
    pub fn from_code(code: u8) -> Option<Self> {
        match code {
            0 => Some(RowStatus::Ok),
            1 => Some(RowStatus::NonFiniteLogit),
            2 => Some(RowStatus::AllMasked),
            _ => None,
        }
    }
}

/// One row's token and status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RowOutput {
    /// The token, or [`NO_TOKEN`].
    pub token: u32,
    /// The status.
    pub status: RowStatus,
}

impl RowOutput {
    /// A drawn token.
    pub fn ok(token: u32) -> Self {
        RowOutput {
            token,
            status: RowStatus::Ok,
        }
    }
    /// A failed row.
    pub fn failed(status: RowStatus) -> Self {
        RowOutput {
            token: NO_TOKEN,
            status,
        }
    }
}

/// A row of logits with its (dense) bias: yields `a_i`.
#[derive(Clone, Copy)]
pub struct RowData<'a, T> {
    x: &'a [T],
    bias: Option<&'a [f32]>,
}

impl<'a, T: Logit> RowData<'a, T> {
    /// A row; `bias`, if given, has the row's length.
    pub fn new(x: &'a [T], bias: Option<&'a [f32]>) -> Self {
        debug_assert!(bias.is_none_or(|b| b.len() == x.len()));
        RowData { x, bias }
    }

    /// Vocabulary size.
    pub fn len(&self) -> usize {
        self.x.len()
    }

    /// Whether the row is empty (never, once validated).
    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }

    /// The largest `a` over `r` (the row must hold no NaN there).
    #[inline(always)]
    pub fn max_a(&self, r: Range<usize>) -> f64 {
        let xs = &self.x[r.clone()];
        match self.bias {
            None => f64::from(from_order_key(
                xs.iter()
                    .fold(i32::MIN, |m, v| m.max(order_key(v.to_f32().to_bits()))),
            )),
            Some(b) => xs.iter().zip(&b[r]).fold(f64::NEG_INFINITY, |m, (x, b)| {
                m.max(f64::from(x.to_f32()) + f64::from(*b))
            }),
        }
    }

    /// `a_i = f64(x_i) + f64(b_i)`. spec: SAMPLER.md §1.3.
    #[inline(always)]
    pub fn a(&self, i: usize) -> f64 {
        let x = f64::from(self.x[i].to_f32());
        match self.bias {
            None => x,
            Some(b) => x + f64::from(b[i]),
        }
    }
}

/// A binary32 bit pattern as an integer whose order is the float order
/// (for every non-NaN value; -0 sorts just below +0).
#[inline(always)]
fn order_key(bits: u32) -> i32 {
    let b = bits as i32;
    b ^ ((b >> 31) & 0x7fff_ffff)
}

/// The inverse of [`order_key`].
#[inline(always)]
fn from_order_key(k: i32) -> f32 {
    f32::from_bits((k ^ ((k >> 31) & 0x7fff_ffff)) as u32)
}

/// What one pass over (part of) a row found: the first rank-order element and
/// the row's problems. Combines order-free.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scan {
    /// Largest `a` and the smallest index holding it (index `u32::MAX` if all masked).
    pub top: (f64, u32),
    /// Some `a_i` is NaN or +inf.
    pub non_finite: bool,
}

impl Scan {
    const EMPTY: Scan = Scan {
        top: (f64::NEG_INFINITY, u32::MAX),
        non_finite: false,
    };

    /// Order-free combination.
    pub fn merge(self, o: Scan) -> Scan {
        Scan {
            top: better_key(self.top, o.top),
            non_finite: self.non_finite || o.non_finite,
        }
    }

    /// The row's status, if not Ok.
    pub fn status(&self) -> RowStatus {
        if self.non_finite {
            RowStatus::NonFiniteLogit
        } else if self.top.1 == u32::MAX {
            RowStatus::AllMasked
        } else {
            RowStatus::Ok
        }
    }
}

/// The rank-order-earlier of two (a, index) keys: larger a, then smaller index.
#[inline(always)]
fn better_key(x: (f64, u32), y: (f64, u32)) -> (f64, u32) {
    if y.0 > x.0 || (y.0 == x.0 && y.1 < x.1) {
        y
    } else {
        x
    }
}

/// Scans `range` of a row. spec: SAMPLER.md §7.
pub fn scan<T: Logit>(row: &RowData<'_, T>, range: Range<usize>) -> Scan {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the feature was detected on this CPU.
        return unsafe { scan_avx2(row, range) };
    }
    scan_portable(row, range)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn scan_avx2<T: Logit>(row: &RowData<'_, T>, range: Range<usize>) -> Scan {
    scan_portable(row, range)
}

#[inline(always)]
fn scan_portable<T: Logit>(row: &RowData<'_, T>, range: Range<usize>) -> Scan {
    // Blocks of 64: a branch-free flag and maximum per block (vectorisable),
    // then the first index of the best block's maximum.
    let mut s = Scan::EMPTY;
    let mut best_block = None;
    let mut lo = range.start;
    while lo < range.end {
        let hi = (lo + 64).min(range.end);
        let (bad, m) = match row.bias {
            None => {
                // Integer keys: max and the NaN/+inf test vectorise.
                let (mut bad, mut m) = (0u32, i32::MIN);
                for x in &row.x[lo..hi] {
                    let b = x.to_f32().to_bits();
                    bad |= u32::from((b & 0x7fff_ffff) > 0x7f80_0000) | u32::from(b == 0x7f80_0000);
                    m = m.max(order_key(b));
                }
                (bad != 0, f64::from(from_order_key(m)))
            }
            Some(_) => {
                let (mut bad, mut m) = (false, f64::NEG_INFINITY);
                for i in lo..hi {
                    let a = row.a(i);
                    bad |= a.is_nan() | (a == f64::INFINITY);
                    m = if a > m { a } else { m };
                }
                (bad, m)
            }
        };
        s.non_finite |= bad;
        if m > s.top.0 {
            s.top.0 = m;
            best_block = Some(lo..hi);
        }
        lo = hi;
    }
    if s.non_finite {
        return s;
    }
    if let Some(r) = best_block {
        s.top.1 = r
            .into_iter()
            .find(|&i| row.a(i) == s.top.0)
            .expect("the maximum is in its block") as u32;
    }
    s
}

/// The best (score, index) of a race over part of a row; combines order-free.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Best {
    /// The race score `fma(-T, ln E, a)`.
    pub score: f64,
    /// Its index (`u32::MAX` when nothing survived in the range).
    pub index: u32,
}

impl Best {
    /// No survivor yet.
    pub const NONE: Best = Best {
        score: f64::NEG_INFINITY,
        index: u32::MAX,
    };

    /// Whether a later (larger-index) element with score `s` replaces this
    /// best: its score is larger, or there is no best yet (a score can be
    /// -inf when `T * ln E` overflows; the first survivor still wins then).
    #[inline(always)]
    pub fn admits(&self, s: f64) -> bool {
        s > self.score || self.index == u32::MAX
    }

    /// The larger score, equal scores to the smaller index.
    #[inline(always)]
    pub fn merge(self, o: Best) -> Best {
        if o.score > self.score || (o.score == self.score && o.index < self.index) {
            o
        } else {
            self
        }
    }
}

/// The race score of one element. spec: SAMPLER.md §5.
#[inline(always)]
pub fn score(a: f64, temperature: f64, ln_e: f64) -> f64 {
    (-temperature).mul_add(ln_e, a)
}

/// The race score of element `i` computed directly from the spec (no bound).
pub fn element_score<T: Logit>(row: &RowData<'_, T>, params: &SamplingParams, i: usize) -> f64 {
    let ln_e = profile::ln_variate(params.profile(), params.seed(), params.position(), i as u32);
    score(row.a(i), params.temp(), ln_e)
}

/// Races the survivors in `range` (T > 0). The result is the exact argmax of
/// the spec score, however `range` is chosen. spec: SAMPLER.md §5.
pub fn race_range<T: Logit>(
    row: &RowData<'_, T>,
    params: &SamplingParams,
    cut: Option<Cut>,
    range: Range<usize>,
) -> Best {
    debug_assert!(params.temp() > 0.0);
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        if has!("avx512f") && has!("avx512dq") && has!("fma") {
            // SAFETY: the features were detected on this CPU.
            return unsafe { race_range_avx512(row, params, cut, range) };
        }
        if has!("fma") && has!("avx2") {
            // SAFETY: the features were detected on this CPU.
            return unsafe { race_range_fma(row, params, cut, range) };
        }
    }
    race_range_portable(row, params, cut, range)
}

/// [`race_range`] compiled for AVX-512 (same bits, wider Philox lanes).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx2,fma")]
unsafe fn race_range_avx512<T: Logit>(
    row: &RowData<'_, T>,
    params: &SamplingParams,
    cut: Option<Cut>,
    range: Range<usize>,
) -> Best {
    race_range_portable(row, params, cut, range)
}

/// [`race_range`] compiled with hardware fma: `mul_add` is correctly rounded
/// either way, so the result is the same bits, only faster.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn race_range_fma<T: Logit>(
    row: &RowData<'_, T>,
    params: &SamplingParams,
    cut: Option<Cut>,
    range: Range<usize>,
) -> Best {
    race_range_portable(row, params, cut, range)
}

#[inline(always)]
fn race_range_portable<T: Logit>(
    row: &RowData<'_, T>,
    params: &SamplingParams,
    cut: Option<Cut>,
    range: Range<usize>,
) -> Best {
    match params.profile() {
        NoiseProfile::Exact => race_exact(row, params, cut, range),
        p => race_direct(row, params, p, cut, range),
    }
}

#[inline(always)]
fn survives(a: f64, i: usize, cut: Option<Cut>) -> bool {
    a > f64::NEG_INFINITY && cut.is_none_or(|c| c.keeps(a, i as u32))
}

/// The race for the profiles whose noise comes from one Philox block per
/// element: word 0 bounds `ln E` from below, so the logarithms run only for
/// elements that might beat the running best.
#[inline(always)]
fn race_direct<T: Logit>(
    row: &RowData<'_, T>,
    params: &SamplingParams,
    p: NoiseProfile,
    cut: Option<Cut>,
    range: Range<usize>,
) -> Best {
    let (t, seed, pos) = (params.temp(), params.seed(), params.position());
    let key = seed_key(seed);
    let tg = match p {
        NoiseProfile::F64 => tag::F64,
        NoiseProfile::F32 => tag::F32,
        _ => tag::TRITON,
    };
    let mut best = Best::NONE;
    let mut lo = range.start;
    while lo < range.end {
        let n = (4 * LANES).min(range.end - lo);
        let mut ctrs = [[0u32; 4]; 4 * LANES];
        for (j, c) in ctrs.iter_mut().enumerate() {
            *c = profile::counter((lo + j) as u32, pos, tg);
        }
        let mut blocks = [[0u32; 4]; 4 * LANES];
        for (q, chunk) in blocks.chunks_exact_mut(LANES).enumerate() {
            if q * LANES >= n {
                break;
            }
            let mut c = [[0u32; 4]; LANES];
            c.copy_from_slice(&ctrs[q * LANES..(q + 1) * LANES]);
            chunk.copy_from_slice(&philox_batch(&c, n - q * LANES, key));
        }
        for (j, w) in blocks.iter().enumerate().take(n) {
            let i = lo + j;
            let a = row.a(i);
            if !survives(a, i, cut)
                || !best.admits(score(a, t, profile::ln_variate_lower_bound(p, w[0])))
            {
                continue;
            }
            let ln_e = match p {
                NoiseProfile::F64 => math::ln(f64p::variate(f64p::uniform([w[0], w[1]]))),
                NoiseProfile::F32 => math::ln(f64::from(f32p::variate(f32p::uniform(w[0])))),
                _ => math::ln(f64::from(triton::variate(triton::uniform(w[0])))),
            };
            let s = score(a, t, ln_e);
            if best.admits(s) {
                best = Best {
                    score: s,
                    index: i as u32,
                };
            }
        }
        lo += n;
    }
    best
}

/// Philox for the first `n` of `ctrs`: all lanes at once when most are
/// needed (vectorised), one by one for a short tail.
#[inline(always)]
fn philox_batch(ctrs: &[[u32; 4]; LANES], n: usize, key: [u32; 2]) -> [[u32; 4]; LANES] {
    if n >= LANES / 2 {
        philox4x32_10_lanes(*ctrs, key)
    } else {
        let mut out = [[0u32; 4]; LANES];
        for j in 0..n {
            out[j] = tailrace_noise::philox::philox4x32_10(ctrs[j], key);
        }
        out
    }
}

/// Lead blocks evaluated per Philox batch (8 indices each).
const LANES: usize = 16;
/// Lead blocks per group of the joint bound (64 elements).
const GROUP_BLOCKS: usize = 8;
/// Indices per lead block. spec: NOISE.md §4.1.
const LEAD_SPAN: usize = exact::LEADS_PER_BLOCK as usize;

/// The `exact` race with the lead bound: an element whose score bound cannot
/// beat the running best skips its tail block and logarithms, and a group of
/// 64 elements whose joint bound (largest `a`, smallest lead) cannot beat it
/// is skipped whole. The bounds are conservative under rounding (NOISE.md
/// §4.4), so the result is the exact argmax.
#[inline(always)]
fn race_exact<T: Logit>(
    row: &RowData<'_, T>,
    params: &SamplingParams,
    cut: Option<Cut>,
    range: Range<usize>,
) -> Best {
    let (t, seed, pos) = (params.temp(), params.seed(), params.position());
    let key = seed_key(seed);
    let mut best = Best::NONE;
    let end_block = range.end.div_ceil(LEAD_SPAN);
    let mut b = range.start / LEAD_SPAN;
    while b < end_block {
        let n = LANES.min(end_block - b);
        let mut ctrs = [[0u32; 4]; LANES];
        for (j, c) in ctrs.iter_mut().enumerate() {
            *c = profile::counter((b + j) as u32, pos, tag::EXACT_LEAD);
        }
        // leads[i - 8b] is the lead of index i.
        let blocks = philox_batch(&ctrs, n, key);
        let mut leads = [0u16; LANES * LEAD_SPAN];
        for (j, l) in leads.iter_mut().enumerate() {
            *l = exact::lead_in_block(blocks[j / LEAD_SPAN], j as u32);
        }
        let base = b * LEAD_SPAN;
        for g in (0..n).step_by(GROUP_BLOCKS) {
            let lo = ((b + g) * LEAD_SPAN).max(range.start);
            let hi = ((b + (g + GROUP_BLOCKS).min(n)) * LEAD_SPAN).min(range.end);
            let lead = |i: usize| leads[i - base];
            // Joint bound of the group: fma is monotone in both a and the bound.
            let min_lead = leads[lo - base..hi - base]
                .iter()
                .fold(u16::MAX, |m, &h| m.min(h));
            let max_a = row.max_a(lo..hi);
            if !best.admits(score(max_a, t, exact::ln_variate_lower_bound(min_lead))) {
                continue;
            }
            for i in lo..hi {
                let a = row.a(i);
                if !survives(a, i, cut) {
                    continue;
                }
                let h = lead(i);
                if best.admits(score(a, t, exact::ln_variate_lower_bound(h))) {
                    let k = exact::grid_point(h, exact::tail_words(seed, pos, i as u32));
                    let s = score(a, t, exact::ln_variate(k));
                    if best.admits(s) {
                        best = Best {
                            score: s,
                            index: i as u32,
                        };
                    }
                }
            }
        }
        b += n;
    }
    best
}

/// Races an explicit list of survivors (ascending indices), for filters that
/// keep few tokens. Same result as the full race with the same cut.
pub fn race_list<T: Logit>(row: &RowData<'_, T>, params: &SamplingParams, list: &[u32]) -> Best {
    let (t, seed, pos) = (params.temp(), params.seed(), params.position());
    let mut best = Best::NONE;
    for &i in list {
        let a = row.a(i as usize);
        let s = match params.profile() {
            NoiseProfile::Exact => {
                let lead = exact::lead(seed, pos, i);
                if !best.admits(score(a, t, exact::ln_variate_lower_bound(lead))) {
                    continue;
                }
                score(
                    a,
                    t,
                    exact::ln_variate(exact::grid_point(lead, exact::tail_words(seed, pos, i))),
                )
            }
            p => {
                let word = profile::bound_word(p, seed, pos, i);
                if !best.admits(score(a, t, profile::ln_variate_lower_bound(p, word))) {
                    continue;
                }
                score(a, t, profile::ln_variate(p, seed, pos, i))
            }
        };
        if best.admits(s) {
            best = Best { score: s, index: i };
        }
    }
    best
}

/// A row made ready to race: status known, greedy answered, cut computed.
pub struct PreparedRow<'a, T> {
    /// The row data.
    pub row: RowData<'a, T>,
    /// Its parameters.
    pub params: SamplingParams,
    /// The status scan of the whole row.
    pub scan: Scan,
    /// The survivors' rank-order boundary (None: every unmasked token survives).
    pub cut: Option<Cut>,
    /// The survivors in ascending index order, when the filters keep few of them.
    pub survivors: Option<Vec<u32>>,
}

impl<'a, T: Logit> PreparedRow<'a, T> {
    /// Scans the row (over `chunks`, in parallel when asked) and computes the
    /// filter cut. spec: SAMPLER.md §3-§4.
    pub fn new(
        row: RowData<'a, T>,
        params: SamplingParams,
        chunks: &[Range<usize>],
        parallel: bool,
    ) -> Self {
        let scan = if parallel {
            use rayon::prelude::*;
            chunks
                .par_iter()
                .map(|r| scan(&row, r.clone()))
                .reduce(|| Scan::EMPTY, Scan::merge)
        } else {
            chunks
                .iter()
                .map(|r| scan(&row, r.clone()))
                .fold(Scan::EMPTY, Scan::merge)
        };
        let cut = if scan.status() == RowStatus::Ok && !params.is_greedy() && params.has_filter() {
            filter::cut(&row, &params, scan.top.0)
        } else {
            None
        };
        let survivors = cut
            .map(|c| filter::survivors(&row, c))
            .filter(|l| l.len() <= row.len() / 16);
        PreparedRow {
            row,
            params,
            scan,
            cut,
            survivors,
        }
    }

    /// The answer that needs no race (failed rows and greedy rows).
    pub fn settled(&self) -> Option<RowOutput> {
        match self.scan.status() {
            RowStatus::Ok if self.params.is_greedy() => Some(RowOutput::ok(self.scan.top.1)),
            RowStatus::Ok => None,
            s => Some(RowOutput::failed(s)),
        }
    }

    /// Races one part of the row.
    pub fn race(&self, range: Range<usize>) -> Best {
        match &self.survivors {
            Some(list) => {
                let from = list.partition_point(|&i| (i as usize) < range.start);
                let to = list.partition_point(|&i| (i as usize) < range.end);
                race_list(&self.row, &self.params, &list[from..to])
            }
            None => race_range(&self.row, &self.params, self.cut, range),
        }
    }

    /// The row's output from the combined best of all parts.
    pub fn finish(&self, best: Best) -> RowOutput {
        if let Some(out) = self.settled() {
            return out;
        }
        debug_assert!(best.index != u32::MAX, "the top token always survives");
        RowOutput::ok(best.index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::RawParams;

    fn brute<T: Logit>(row: &RowData<'_, T>, params: &SamplingParams, cut: Option<Cut>) -> Best {
        let mut best = Best::NONE;
        for i in 0..row.len() {
            let a = row.a(i);
            if survives(a, i, cut) {
                best = best.merge(Best {
                    score: element_score(row, params, i),
                    index: i as u32,
                });
            }
        }
        best
    }

    fn splitmix(s: &mut u64) -> u64 {
        *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    #[test]
    fn order_keys_sort_like_floats() {
        let v = [
            f32::NEG_INFINITY,
            -3.5,
            -1e-40,
            -0.0,
            0.0,
            1e-40,
            2.0,
            f32::MAX,
            f32::INFINITY,
        ];
        for w in v.windows(2) {
            assert!(
                order_key(w[0].to_bits()) < order_key(w[1].to_bits()),
                "{w:?}"
            );
        }
        for x in v {
            assert_eq!(
                from_order_key(order_key(x.to_bits())).to_bits(),
                x.to_bits()
            );
        }
    }

    #[test]
    fn bounded_race_equals_brute_force() {
        let mut s = 7u64;
        for case in 0..300 {
            let v = 1 + (splitmix(&mut s) % 3000) as usize;
            let spread = [0.01f32, 1.0, 5.0, 40.0][case % 4];
            let x: Vec<f32> = (0..v)
                .map(|_| ((splitmix(&mut s) >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * spread)
                .collect();
            let t = [1e-3, 0.3, 1.0, 2.5, 100.0][case % 5];
            for profile in NoiseProfile::ALL {
                let params = SamplingParams::new(RawParams {
                    temperature: t,
                    seed: splitmix(&mut s),
                    position: splitmix(&mut s),
                    profile,
                    ..RawParams::default()
                })
                .unwrap();
                let row = RowData::new(&x, None);
                let got = race_range(&row, &params, None, 0..v);
                let want = brute(&row, &params, None);
                assert_eq!(got.index, want.index, "case {case} {profile}");
                assert_eq!(got.score.to_bits(), want.score.to_bits());
            }
        }
    }
}
