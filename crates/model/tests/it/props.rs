//! Property tests of the model against the spec rules and the brute-force
//! [`oracle`]. Fixed ChaCha seed per test, bounded cases: the same inputs on
//! every run. Inputs are drawn as small descriptions (sizes, shapes, seeds,
//! parameters) that expand deterministically into rows, so a failure prints a
//! short reproducible case.

use crate::{oracle, with_logits, Dtype, Logits, SplitMix64};
use proptest::prelude::*;
use proptest::test_runner::{
    Config, RngAlgorithm, RngSeed, TestCaseError, TestCaseResult, TestRng, TestRunner,
};
use std::cell::Cell;
use std::collections::HashSet;
use std::ops::Range;
use tailrace_model::filter;
use tailrace_model::race::{self, Best, PreparedRow, RowData};
use tailrace_model::{
    sample_batch, sample_batch_with, sample_row, BatchOptions, Logit, LogitBias, NoiseProfile,
    ParamError, RawParams, RowOutput, RowRequest, RowStatus, SamplingParams, MAX_VOCAB, NO_TOKEN,
};

// ---------------------------------------------------------------- runner

/// A runner with a fixed ChaCha seed (`salt` separates the tests), no
/// failure files and bounded shrinking.
fn runner(cases: u32, salt: u64) -> TestRunner {
    let seed = 0x7A11_7ACE_0000_0000 ^ salt;
    let config = Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 200,
        max_shrink_time: 20_000,
        rng_algorithm: RngAlgorithm::ChaCha,
        rng_seed: RngSeed::Fixed(seed),
        ..Config::default()
    };
    let mut bytes = [0u8; 32];
    for (i, chunk) in bytes.chunks_mut(8).enumerate() {
        chunk.copy_from_slice(&SplitMix64(seed + i as u64).next_u64().to_le_bytes());
    }
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &bytes))
}

fn run<S: Strategy>(cases: u32, salt: u64, strategy: S, test: impl Fn(S::Value) -> TestCaseResult)
where
    S::Value: std::fmt::Debug,
{
    if let Err(e) = runner(cases, salt).run(&strategy, test) {
        panic!("{e}");
    }
}

// ---------------------------------------------------------------- inputs

/// How a row's logits are made (expanded by [`RowSpec::logits`]).
#[derive(Debug, Clone, Copy)]
struct Shape {
    /// Logits are uniform in [-spread, spread] ...
    spread: f32,
    /// ... or, when set, on this many levels only (many exact ties).
    levels: Option<u32>,
    /// Probability of a -inf logit.
    mask_rate: f64,
}

#[derive(Debug, Clone, Copy)]
enum BiasKind {
    None,
    Dense {
        scale: f32,
        mask_rate: f64,
    },
    Sparse {
        count: usize,
        scale: f32,
        mask_rate: f64,
    },
}

/// One row: data seed, logit shape, bias and parameters.
#[derive(Debug, Clone, Copy)]
struct RowSpec {
    data_seed: u64,
    shape: Shape,
    bias: BiasKind,
    raw: RawParams,
}

impl RowSpec {
    /// The logits as binary32 (before rounding to the dtype).
    fn logits(&self, v: usize, dtype: Dtype) -> Vec<f32> {
        let mut g = SplitMix64(self.data_seed);
        let s = self.shape;
        (0..v)
            .map(|_| {
                let (u, m) = (g.next_unit(), g.next_unit());
                if m < s.mask_rate {
                    return f32::NEG_INFINITY;
                }
                let u = match s.levels {
                    Some(l) => (u * f64::from(l)).floor() / f64::from(l),
                    None => u,
                };
                let x = ((u - 0.5) * 2.0 * f64::from(s.spread)) as f32;
                if dtype == Dtype::F16 {
                    x.clamp(-60000.0, 60000.0)
                } else {
                    x
                }
            })
            .collect()
    }

    fn bias(&self, v: usize) -> LogitBias {
        let mut g = SplitMix64(self.data_seed ^ 0xB1A5_B1A5_B1A5_B1A5);
        let mut value = |scale: f32, mask_rate: f64| {
            if g.next_unit() < mask_rate {
                f32::NEG_INFINITY
            } else {
                ((g.next_unit() - 0.5) * 2.0 * f64::from(scale)) as f32
            }
        };
        match self.bias {
            BiasKind::None => LogitBias::None,
            BiasKind::Dense { scale, mask_rate } => {
                LogitBias::Dense((0..v).map(|_| value(scale, mask_rate)).collect())
            }
            BiasKind::Sparse {
                count,
                scale,
                mask_rate,
            } => {
                let mut h = SplitMix64(self.data_seed ^ 0x5EED);
                let mut seen = HashSet::new();
                let mut pairs = Vec::new();
                while pairs.len() < count.min(v) {
                    let i = h.below(v as u64) as u32;
                    if seen.insert(i) {
                        pairs.push((i, value(scale, mask_rate)));
                    }
                }
                LogitBias::Sparse(pairs)
            }
        }
    }

    fn params(&self) -> SamplingParams {
        SamplingParams::new(self.raw).expect("strategies only make valid parameters")
    }

    fn request(&self, v: usize) -> RowRequest {
        RowRequest {
            params: self.params(),
            bias: self.bias(v),
        }
    }
}

fn vocab() -> BoxedStrategy<usize> {
    prop_oneof![
        3 => 1usize..16,
        12 => 16usize..2000,
        1 => 2000usize..20000,
    ]
    .boxed()
}

fn dtype() -> BoxedStrategy<Dtype> {
    prop::sample::select(Dtype::ALL.to_vec()).boxed()
}

fn shape(mask_rates: &'static [(u32, f64)]) -> BoxedStrategy<Shape> {
    let spread = prop::sample::select(vec![0.0f32, 0.01, 1.0, 4.0, 8.0, 50.0, 1e4, 1e30]);
    let levels =
        prop_oneof![3 => Just(None), 1 => Just(Some(2)), 1 => Just(Some(5)), 1 => Just(Some(40))];
    let mask = prop::strategy::Union::new_weighted(
        mask_rates
            .iter()
            .map(|&(w, r)| (w, Just(r).boxed()))
            .collect(),
    );
    (spread, levels, mask)
        .prop_map(|(spread, levels, mask_rate)| Shape {
            spread,
            levels,
            mask_rate,
        })
        .boxed()
}

/// Mask rates including (rarely) all-masked rows.
const ANY_MASKS: &[(u32, f64)] = &[(6, 0.0), (2, 0.05), (1, 0.5), (1, 0.97), (1, 1.0)];
/// Mask rates that keep the row almost surely unmasked somewhere.
const SOME_MASKS: &[(u32, f64)] = &[(6, 0.0), (2, 0.05), (1, 0.5), (1, 0.9)];

fn bias_kind(v: usize) -> BoxedStrategy<BiasKind> {
    let scale = prop::sample::select(vec![0.5f32, 3.0, 100.0]);
    let mask = prop::sample::select(vec![0.0f64, 0.05, 0.5]);
    prop_oneof![
        5 => Just(BiasKind::None),
        2 => (scale.clone(), mask.clone())
            .prop_map(|(scale, mask_rate)| BiasKind::Dense { scale, mask_rate }),
        2 => (0..=v.min(50), scale, mask).prop_map(|(count, scale, mask_rate)| {
            BiasKind::Sparse { count, scale, mask_rate }
        }),
    ]
    .boxed()
}

/// Every temperature regime: greedy (0, -0), tiny, ordinary, large. (T so
/// large that `T * ln E` overflows has its own test, [`extreme_temperature_draws_a_token`].)
fn temperature() -> BoxedStrategy<f64> {
    prop_oneof![
        2 => Just(0.0),
        1 => Just(-0.0),
        2 => Just(1e-6),
        1 => Just(1e-300),
        12 => 0.3f64..3.0,
        2 => Just(50.0),
        1 => Just(1e6),
        1 => Just(1e300),
    ]
    .boxed()
}

fn positive_temperature() -> BoxedStrategy<f64> {
    temperature().prop_filter("T > 0", |t| *t > 0.0).boxed()
}

fn top_k(v: usize) -> BoxedStrategy<u32> {
    let v = v as u32;
    prop_oneof![
        6 => Just(0u32),
        1 => Just(1u32),
        2 => 2u32..20,
        1 => 1..=v,
        1 => v + 1..v + 1000,
    ]
    .boxed()
}

fn top_p() -> BoxedStrategy<f64> {
    prop_oneof![
        5 => Just(1.0),
        4 => 0.05f64..0.99,
        1 => prop::sample::select(vec![0.25, 0.5, 0.75]),
        1 => Just(5e-324),
        1 => Just(0.999_999_999),
    ]
    .boxed()
}

fn top_p_on() -> BoxedStrategy<f64> {
    top_p().prop_filter("top-p on", |p| *p < 1.0).boxed()
}

fn min_p() -> BoxedStrategy<f64> {
    prop_oneof![
        5 => Just(0.0),
        3 => 0.01f64..0.5,
        1 => Just(1.0),
        1 => Just(1e-300),
    ]
    .boxed()
}

fn min_p_on() -> BoxedStrategy<f64> {
    min_p().prop_filter("min-p on", |p| *p > 0.0).boxed()
}

fn seed_or_position() -> BoxedStrategy<u64> {
    prop_oneof![
        4 => any::<u64>(),
        1 => Just(0u64),
        1 => Just(1u64),
        1 => Just(1u64 << 32),
        1 => Just((1u64 << 63) - 1),
        1 => Just(u64::MAX),
    ]
    .boxed()
}

fn profile() -> BoxedStrategy<NoiseProfile> {
    prop::sample::select(NoiseProfile::ALL.to_vec()).boxed()
}

fn raw_params(
    t: BoxedStrategy<f64>,
    k: BoxedStrategy<u32>,
    p: BoxedStrategy<f64>,
    m: BoxedStrategy<f64>,
) -> BoxedStrategy<RawParams> {
    (
        t,
        k,
        p,
        m,
        seed_or_position(),
        seed_or_position(),
        profile(),
    )
        .prop_map(
            |(temperature, top_k, top_p, min_p, seed, position, profile)| RawParams {
                temperature,
                top_k,
                top_p,
                min_p,
                seed,
                position,
                profile,
            },
        )
        .boxed()
}

fn any_params(v: usize) -> BoxedStrategy<RawParams> {
    raw_params(temperature(), top_k(v), top_p(), min_p())
}

fn row_spec(
    v: usize,
    masks: &'static [(u32, f64)],
    raw: BoxedStrategy<RawParams>,
) -> BoxedStrategy<RowSpec> {
    (any::<u64>(), shape(masks), bias_kind(v), raw)
        .prop_map(|(data_seed, shape, bias, raw)| RowSpec {
            data_seed,
            shape,
            bias,
            raw,
        })
        .boxed()
}

fn any_row(v: usize) -> BoxedStrategy<RowSpec> {
    row_spec(v, ANY_MASKS, any_params(v))
}

/// A `[rows, stride]` batch; the padding after each row is NaN, so reading
/// past the vocabulary would show up as a NonFiniteLogit.
#[derive(Debug, Clone)]
struct Batch {
    v: usize,
    stride: usize,
    dtype: Dtype,
    rows: Vec<RowSpec>,
}

impl Batch {
    fn logits(&self) -> Logits {
        let mut buf = vec![f32::NAN; self.rows.len() * self.stride];
        for (r, spec) in self.rows.iter().enumerate() {
            buf[r * self.stride..r * self.stride + self.v]
                .copy_from_slice(&spec.logits(self.v, self.dtype));
        }
        Logits::from_f32(self.dtype, &buf)
    }

    fn requests(&self) -> Vec<RowRequest> {
        self.rows.iter().map(|s| s.request(self.v)).collect()
    }

    /// Row `r`'s logits as exact binary32 (after rounding to the dtype).
    fn row_f32(&self, r: usize) -> Vec<f32> {
        Logits::from_f32(self.dtype, &self.rows[r].logits(self.v, self.dtype)).to_f32()
    }

    fn oracle(&self, r: usize) -> RowOutput {
        let s = &self.rows[r];
        oracle::sample(&self.row_f32(r), &s.bias(self.v), &s.raw)
    }

    fn sample(&self) -> Vec<RowOutput> {
        let (l, reqs) = (self.logits(), self.requests());
        with_logits!(&l, x => sample_batch(x, self.v, self.stride, &reqs)).expect("valid batch")
    }

    fn sample_with(&self, opts: BatchOptions) -> Vec<RowOutput> {
        let (l, reqs) = (self.logits(), self.requests());
        with_logits!(&l, x => sample_batch_with(opts, x, self.v, self.stride, &reqs))
            .expect("valid batch")
    }

    fn with_rows(&self, rows: Vec<RowSpec>) -> Batch {
        Batch {
            rows,
            ..self.clone()
        }
    }
}

fn batch(rows: Range<usize>, row: fn(usize) -> BoxedStrategy<RowSpec>) -> BoxedStrategy<Batch> {
    (vocab(), dtype(), 0usize..3)
        .prop_flat_map(move |(v, dtype, pad)| {
            prop::collection::vec(row(v), rows.clone()).prop_map(move |rows| Batch {
                v,
                stride: v + pad,
                dtype,
                rows,
            })
        })
        .boxed()
}

/// A single row with its vocabulary and dtype.
#[derive(Debug, Clone)]
struct One {
    v: usize,
    dtype: Dtype,
    spec: RowSpec,
}

impl One {
    fn batch(&self) -> Batch {
        Batch {
            v: self.v,
            stride: self.v,
            dtype: self.dtype,
            rows: vec![self.spec],
        }
    }
    fn x(&self) -> Vec<f32> {
        self.batch().row_f32(0)
    }
    fn a(&self) -> Vec<f64> {
        oracle::a_values(&self.x(), &self.spec.bias(self.v))
    }
    fn typed(&self) -> Logits {
        Logits::from_f32(self.dtype, &self.x())
    }
    /// The bias as a dense row (the form `RowData` takes), expanded here.
    fn dense_bias(&self) -> Option<Vec<f32>> {
        match self.spec.bias(self.v) {
            LogitBias::None => None,
            LogitBias::Dense(d) => Some(d),
            LogitBias::Sparse(pairs) => {
                let mut d = vec![0.0; self.v];
                for (i, b) in pairs {
                    d[i as usize] = b;
                }
                Some(d)
            }
        }
    }
}

fn one(
    min_v: usize,
    masks: &'static [(u32, f64)],
    raw: fn(usize) -> BoxedStrategy<RawParams>,
) -> BoxedStrategy<One> {
    (vocab().prop_map(move |v| v.max(min_v)), dtype())
        .prop_flat_map(move |(v, dtype)| {
            row_spec(v, masks, raw(v)).prop_map(move |spec| One { v, dtype, spec })
        })
        .boxed()
}

fn check(cond: bool, msg: impl FnOnce() -> String) -> TestCaseResult {
    if cond {
        Ok(())
    } else {
        Err(TestCaseError::fail(msg()))
    }
}

// ---------------------------------------------------------------- batch invariance

#[test]
fn batch_permutation_and_mates() {
    let strategy = (
        batch(1..6, any_row),
        prop::collection::vec(any::<u64>(), 1..10),
        any::<u64>(),
    );
    run(1000, 1, strategy, |(b, mate_seeds, perm_seed)| {
        let out = b.sample();
        for (r, o) in out.iter().enumerate() {
            let want = b.oracle(r);
            check(*o == want, || {
                format!("row {r}: got {o:?}, oracle {want:?}")
            })?;
        }
        // Permuted batch.
        let mut perm: Vec<usize> = (0..b.rows.len()).collect();
        let mut g = SplitMix64(perm_seed);
        for i in (1..perm.len()).rev() {
            perm.swap(i, g.below(i as u64 + 1) as usize);
        }
        let permuted = b
            .with_rows(perm.iter().map(|&r| b.rows[r]).collect())
            .sample();
        for (j, &r) in perm.iter().enumerate() {
            check(permuted[j] == out[r], || {
                format!("slot {j} (row {r}): {:?} vs {:?}", permuted[j], out[r])
            })?;
        }
        // Other mates (new rows from the same generator), row 0 first and last.
        let mates: Vec<RowSpec> = mate_seeds
            .iter()
            .zip(b.rows.iter().cycle())
            .map(|(&s, proto)| RowSpec {
                data_seed: s,
                raw: RawParams {
                    seed: s,
                    position: s.rotate_left(17),
                    ..proto.raw
                },
                ..*proto
            })
            .collect();
        let mut rows = vec![b.rows[0]];
        rows.extend(&mates);
        check(b.with_rows(rows.clone()).sample()[0] == out[0], || {
            "new mates after".into()
        })?;
        rows.rotate_left(1);
        let last = *b.with_rows(rows).sample().last().expect("rows");
        check(last == out[0], || "new mates before".into())?;
        // Batch size: alone, and in a batch large enough for the row-parallel path.
        let alone = b.with_rows(vec![b.rows[0]]).sample()[0];
        check(alone == out[0], || {
            format!("alone {alone:?} vs {:?}", out[0])
        })?;
        let big = 2 * rayon::current_num_threads() + 1;
        let rows: Vec<RowSpec> = std::iter::once(b.rows[0])
            .chain(mates.iter().cycle().take(big).copied())
            .collect();
        let many = b.with_rows(rows).sample()[0];
        check(many == out[0], || {
            format!("big batch {many:?} vs {:?}", out[0])
        })
    });
}

#[test]
fn single_row_equals_batched() {
    run(
        1500,
        2,
        (batch(1..5, any_row), any::<prop::sample::Index>()),
        |(b, which)| {
            let r = which.index(b.rows.len());
            let out = b.sample();
            let l = b.logits();
            let (lo, hi) = (r * b.stride, r * b.stride + b.v);
            let bias = b.rows[r].bias(b.v);
            let params = b.rows[r].params();
            let single =
                with_logits!(&l, x => sample_row(&x[lo..hi], &bias, &params)).expect("valid");
            check(single == out[r], || {
                format!("sample_row {single:?} vs batch {:?}", out[r])
            })?;
            let want = b.oracle(r);
            check(single == want, || {
                format!("sample_row {single:?} vs oracle {want:?}")
            })
        },
    );
}

#[test]
fn vocab_chunking_never_changes_token() {
    let strategy = (
        batch(1..4, any_row),
        prop::collection::vec((1usize..=20000, any::<bool>()), 1..5),
    );
    run(1500, 3, strategy, |(b, splits)| {
        let reference = b.sample();
        for (r, o) in reference.iter().enumerate() {
            let want = b.oracle(r);
            check(*o == want, || {
                format!("row {r}: got {o:?}, oracle {want:?}")
            })?;
        }
        for (c, parallel) in splits {
            // Chunk lengths 1..=V (the model rounds up to a multiple of 4).
            let chunk = 1 + (c - 1) % b.v;
            let got = b.sample_with(BatchOptions { chunk, parallel });
            check(got == reference, || {
                format!("chunk {chunk} parallel {parallel}: {got:?} vs {reference:?}")
            })?;
        }
        Ok(())
    });
}

// ---------------------------------------------------------------- sharding

/// Random split points of `0..v` into consecutive shards.
fn shards(v: usize, cuts: &[usize]) -> Vec<Range<usize>> {
    let mut points: Vec<usize> = cuts.iter().map(|c| c % (v + 1)).collect();
    points.push(0);
    points.push(v);
    points.sort_unstable();
    points.dedup();
    points.windows(2).map(|w| w[0]..w[1]).collect()
}

fn shard_check<T: Logit>(
    x: &[T],
    case: &One,
    cuts: &[usize],
    stats: &Cell<(usize, usize)>,
) -> TestCaseResult {
    let v = case.v;
    let a = case.a();
    let raw = case.spec.raw;
    let params = case.spec.params();
    let dense = case.dense_bias();
    let row = RowData::new(x, dense.as_deref());
    let full = sample_row(x, &case.spec.bias(v), &params).expect("valid");
    let want = oracle::sample(&case.x(), &case.spec.bias(v), &raw);
    check(full == want, || {
        format!("unsharded {full:?} vs oracle {want:?}")
    })?;
    let prep = PreparedRow::new(row, params, std::slice::from_ref(&(0..v)), false);
    if let Some(settled) = prep.settled() {
        return check(settled == full, || {
            format!("settled {settled:?} vs {full:?}")
        });
    }
    let parts = shards(v, cuts);
    // Merge in reverse order: Best::merge must not care.
    let mut by_range = Best::NONE;
    let mut by_prepared = Best::NONE;
    for r in parts.iter().rev() {
        by_range = by_range.merge(race::race_range(&row, &params, prep.cut, r.clone()));
        by_prepared = by_prepared.merge(prep.race(r.clone()));
    }
    let (w, ws) = oracle::race(&a, &raw, &oracle::survivors(&a, &raw));
    for (how, best) in [("race_range", by_range), ("PreparedRow::race", by_prepared)] {
        check(best.index == full.token && best.index == w, || {
            format!("{how} over {parts:?}: {best:?}, unsharded {full:?}, oracle {w}")
        })?;
        check(best.score.to_bits() == ws.to_bits(), || {
            format!("{how}: score {} vs oracle {ws}", best.score)
        })?;
    }
    let (n, plain) = stats.get();
    stats.set((n + 1, plain));
    if params.has_filter() {
        return Ok(());
    }
    // Plain sampling: each shard is a row of its own (the rest masked, global
    // indices kept), sampled through the public API; its winner is the shard's.
    stats.set((n + 1, plain + 1));
    let xf = case.x();
    let mut combined: Option<(u32, f64)> = None;
    for r in &parts {
        let masked: Vec<f32> = (0..v)
            .map(|i| {
                if r.contains(&i) {
                    xf[i]
                } else {
                    f32::NEG_INFINITY
                }
            })
            .collect();
        let typed = Logits::from_f32(case.dtype, &masked);
        let alone =
            with_logits!(&typed, y => sample_row(y, &case.spec.bias(v), &params)).expect("valid");
        let in_place = race::race_range(&row, &params, None, r.clone());
        if alone.status != RowStatus::Ok {
            check(in_place.index == u32::MAX, || {
                format!("shard {r:?} has no survivor")
            })?;
            continue;
        }
        check(alone.token == in_place.index, || {
            format!("shard {r:?}: alone {alone:?}, race_range {in_place:?}")
        })?;
        let s = oracle::score(&a, &raw, alone.token);
        combined = match combined {
            Some((j, b)) if !(s > b || (s == b && alone.token < j)) => Some((j, b)),
            _ => Some((alone.token, s)),
        };
    }
    check(combined.map(|c| c.0) == Some(full.token), || {
        format!("combined shard winners {combined:?} vs {full:?}")
    })
}

#[test]
fn shard_winners_combine() {
    fn params(v: usize) -> BoxedStrategy<RawParams> {
        // Half the cases plain (no filter), T > 0.
        prop_oneof![
            raw_params(
                positive_temperature(),
                Just(0).boxed(),
                Just(1.0).boxed(),
                Just(0.0).boxed()
            ),
            raw_params(positive_temperature(), top_k(v), top_p(), min_p()),
        ]
        .boxed()
    }
    let stats = Cell::new((0usize, 0usize));
    let strategy = (
        one(2, SOME_MASKS, params),
        prop::collection::vec(any::<usize>(), 1..12),
    );
    run(2000, 4, strategy, |(case, cuts)| {
        let l = case.typed();
        with_logits!(&l, x => shard_check(x, &case, &cuts, &stats))
    });
    let (raced, plain) = stats.get();
    eprintln!("shard_winners_combine: {raced} raced rows, {plain} plain");
    assert!(
        raced >= 1000 && plain >= 500,
        "too few raced cases: {raced}, {plain}"
    );
}

// ---------------------------------------------------------------- filters

#[test]
fn filter_coupling() {
    fn params(v: usize) -> BoxedStrategy<RawParams> {
        raw_params(positive_temperature(), top_k(v), top_p(), min_p())
            .prop_filter("some filter on", |r| {
                r.top_k != 0 || r.top_p < 1.0 || r.min_p > 0.0
            })
            .boxed()
    }
    let coupled = Cell::new(0usize);
    run(3000, 5, one(1, SOME_MASKS, params), |case| {
        let (x, bias, raw) = (case.x(), case.spec.bias(case.v), case.spec.raw);
        let a = oracle::a_values(&x, &bias);
        if oracle::status(&a) != RowStatus::Ok {
            return Ok(());
        }
        let l = case.typed();
        let filtered =
            with_logits!(&l, y => sample_row(y, &bias, &case.spec.params())).expect("valid");
        let plain_raw = RawParams {
            top_k: 0,
            top_p: 1.0,
            min_p: 0.0,
            ..raw
        };
        let plain_params = SamplingParams::new(plain_raw).expect("valid");
        let plain = with_logits!(&l, y => sample_row(y, &bias, &plain_params)).expect("valid");
        let survivors = if oracle::is_greedy(&raw) {
            vec![oracle::rank_order(&a)[0]]
        } else {
            oracle::survivors(&a, &raw)
        };
        check(survivors.binary_search(&filtered.token).is_ok(), || {
            format!("filtered winner {filtered:?} is not a survivor")
        })?;
        let want = oracle::sample(&x, &bias, &raw);
        check(filtered == want, || {
            format!("filtered {filtered:?} vs oracle {want:?}")
        })?;
        if survivors.binary_search(&plain.token).is_ok() {
            coupled.set(coupled.get() + 1);
            check(filtered == plain, || {
                format!("unfiltered winner {plain:?} survives but filtered gives {filtered:?}")
            })?;
        }
        Ok(())
    });
    eprintln!("filter_coupling: {} coupled cases", coupled.get());
    assert!(
        coupled.get() >= 1000,
        "coupling checked only {} times",
        coupled.get()
    );
}

#[test]
fn greedy_is_argmax_smallest_index() {
    fn params(v: usize) -> BoxedStrategy<RawParams> {
        prop_oneof![
            raw_params(
                prop::sample::select(vec![0.0, -0.0]).boxed(),
                top_k(v),
                top_p(),
                min_p()
            ),
            raw_params(temperature(), Just(1).boxed(), top_p(), min_p()),
        ]
        .boxed()
    }
    let strategy = (
        one(1, ANY_MASKS, params),
        prop::collection::vec((seed_or_position(), seed_or_position(), profile()), 3),
    );
    run(2000, 6, strategy, |(case, others)| {
        let (x, bias) = (case.x(), case.spec.bias(case.v));
        let a = oracle::a_values(&x, &bias);
        let want = match oracle::status(&a) {
            RowStatus::Ok => {
                // First strict maximum scanning upwards: the smallest index of max a.
                let mut best = None::<usize>;
                for (i, &ai) in a.iter().enumerate() {
                    if ai > f64::NEG_INFINITY && best.is_none_or(|b| ai > a[b]) {
                        best = Some(i);
                    }
                }
                RowOutput::ok(best.expect("unmasked") as u32)
            }
            s => RowOutput::failed(s),
        };
        let l = case.typed();
        for (seed, position, profile) in std::iter::once((
            case.spec.raw.seed,
            case.spec.raw.position,
            case.spec.raw.profile,
        ))
        .chain(others)
        {
            let params = case
                .spec
                .params()
                .with_seed(seed)
                .at_position(position)
                .with_profile(profile);
            let got = with_logits!(&l, y => sample_row(y, &bias, &params)).expect("valid");
            check(got == want, || {
                format!("seed {seed} position {position} {profile}: {got:?} vs argmax {want:?}")
            })?;
        }
        Ok(())
    });
}

/// T is any finite value (spec: Inputs). When `T * ln E` overflows, scores
/// are ±inf; the winner is still the survivor with the largest score, equal
/// scores to the smaller index, so a token is always drawn.
#[test]
fn extreme_temperature_draws_a_token() {
    let mut failures = Vec::new();
    for t in [f64::MAX, 1e308, 4e307] {
        for profile in NoiseProfile::ALL {
            for x in [&[0.0f32][..], &[0.0, 1.0], &[3.0, -1.0, 2.0, 2.0, 0.5]] {
                for seed in 0..32u64 {
                    let raw = RawParams {
                        temperature: t,
                        seed,
                        profile,
                        ..RawParams::default()
                    };
                    let params = SamplingParams::new(raw).expect("finite T is valid");
                    let want = oracle::sample(x, &LogitBias::None, &raw);
                    let got = std::panic::catch_unwind(|| sample_row(x, &LogitBias::None, &params));
                    match got {
                        Ok(Ok(o)) if o == want => {}
                        other => failures.push(format!(
                            "T={t:e} {profile} x={x:?} seed {seed}: got {other:?}, want {want:?}"
                        )),
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures, e.g.\n{}",
        failures.len(),
        failures[..failures.len().min(5)].join("\n")
    );
}

/// The neighbouring binary32 of a finite nonzero `x`, upwards (`dir > 0`) or downwards.
fn f32_step(x: f32, dir: i32) -> f32 {
    let away_from_zero = (dir > 0) == (x > 0.0);
    f32::from_bits(if away_from_zero {
        x.to_bits() + 1
    } else {
        x.to_bits() - 1
    })
}

/// The model's survivor set: `filter::cut` with the row's true maximum, then
/// `filter::survivors` (every unmasked token when there is no cut).
fn model_survivors<T: Logit>(
    x: &[T],
    dense: Option<&[f32]>,
    params: &SamplingParams,
    a: &[f64],
) -> Vec<u32> {
    let a_max = a.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let row = RowData::new(x, dense);
    match filter::cut(&row, params, a_max) {
        Some(c) => filter::survivors(&row, c),
        None => (0..a.len() as u32)
            .filter(|&i| a[i as usize] > f64::NEG_INFINITY)
            .collect(),
    }
}

fn clean_model_survivors(case: &One) -> Option<(Vec<f64>, Vec<u32>)> {
    let a = case.a();
    if oracle::status(&a) != RowStatus::Ok {
        return None;
    }
    let (l, dense, params) = (case.typed(), case.dense_bias(), case.spec.params());
    let got = with_logits!(&l, x => model_survivors(x, dense.as_deref(), &params, &a));
    Some((a, got))
}

#[test]
fn top_k_keeps_exactly_k() {
    fn params(v: usize) -> BoxedStrategy<RawParams> {
        let k = top_k(v).prop_filter("top-k on", |k| *k != 0).boxed();
        raw_params(
            positive_temperature(),
            k,
            Just(1.0).boxed(),
            Just(0.0).boxed(),
        )
    }
    run(3000, 7, one(1, SOME_MASKS, params), |case| {
        let Some((a, got)) = clean_model_survivors(&case) else {
            return Ok(());
        };
        let k = case.spec.raw.top_k as usize;
        let order = oracle::rank_order(&a);
        let mut want: Vec<u32> = order.iter().take(k).copied().collect();
        want.sort_unstable();
        check(got.len() == k.min(order.len()), || {
            format!("kept {} of {} unmasked, k = {k}", got.len(), order.len())
        })?;
        check(got == want, || {
            format!("kept {got:?}, rank-order prefix {want:?}")
        })
    });
}

/// Child side of [`top_k_near_u32_max_is_valid`]: run only when the variable is set.
const CHILD: &str = "TAILRACE_IT_CHILD";

/// top_k is any u32 (spec: Inputs); a value far above V keeps every token.
/// Run in a child process: an allocation failure aborts, which must not take
/// the other tests down with it.
#[test]
fn top_k_near_u32_max_is_valid() {
    if std::env::var_os(CHILD).is_some() {
        let x = [0.5f32, 2.0, -1.0, 2.0];
        for k in [1u32 << 24, 1 << 30, u32::MAX] {
            let params = SamplingParams::new(RawParams {
                top_k: k,
                ..RawParams::default()
            })
            .expect("valid");
            let a: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
            assert_eq!(
                model_survivors(&x, None, &params, &a),
                vec![0, 1, 2, 3],
                "k = {k}"
            );
            let plain = SamplingParams::new(RawParams::default()).expect("valid");
            assert_eq!(
                sample_row(&x, &LogitBias::None, &params),
                sample_row(&x, &LogitBias::None, &plain),
                "k = {k}"
            );
        }
        return;
    }
    let exe = std::env::current_exe().expect("test binary");
    let out = std::process::Command::new(exe)
        .args([
            "--exact",
            "props::top_k_near_u32_max_is_valid",
            "--test-threads=1",
            "--nocapture",
        ])
        .env(CHILD, "1")
        .output()
        .expect("spawn child");
    let err = String::from_utf8_lossy(&out.stderr);
    let tail: String = err
        .lines()
        .filter(|l| !l.starts_with("  "))
        .take(20)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        out.status.success(),
        "child failed ({}):\n{tail}",
        out.status
    );
}

#[test]
fn top_p_minimal_prefix() {
    fn params(v: usize) -> BoxedStrategy<RawParams> {
        prop_oneof![
            2 => raw_params(positive_temperature(), Just(0).boxed(), top_p_on(), Just(0.0).boxed()),
            1 => raw_params(positive_temperature(), top_k(v), top_p_on(), min_p()),
        ]
        .prop_filter("not greedy", |r| r.top_k != 1)
        .boxed()
    }
    let nontrivial = Cell::new(0usize);
    run(3000, 8, one(1, SOME_MASKS, params), |case| {
        let Some((a, got)) = clean_model_survivors(&case) else {
            return Ok(());
        };
        let (want, detail) = oracle::survivors_detail(&a, &case.spec.raw);
        let tp = detail.expect("top-p on");
        // The prefix is minimal: it reaches the target, one element less does not.
        let sum = |n: usize| tp.masses[..n].iter().map(|&q| u128::from(q)).sum::<u128>();
        check(tp.target >= 1 && tp.target <= tp.total, || {
            format!("target {} of {}", tp.target, tp.total)
        })?;
        check(
            tp.kept >= 1 && sum(tp.kept) >= tp.target && sum(tp.kept - 1) < tp.target,
            || format!("oracle prefix {} is not minimal: {tp:?}", tp.kept),
        )?;
        if tp.kept < tp.input.len() {
            nontrivial.set(nontrivial.get() + 1);
        }
        check(got == want, || {
            format!("kept {got:?}, spec prefix {want:?} ({tp:?})")
        })
    });
    eprintln!(
        "top_p_minimal_prefix: {} cases cut something",
        nontrivial.get()
    );
    assert!(nontrivial.get() >= 1000);
    top_p_boundaries();
}

/// Directed boundaries that random rows almost never reach. A top token and
/// a tail of tokens 40.5..43.6 nats down (masses 1..24, the smallest that are
/// not zero) with p just below 1: the target falls inside the tail, often
/// within 1 of a prefix sum, so `ceil` (not `floor`) of `p * Q` and every tail
/// mass decide the cut. Then exact ties, where `p * Q` is a prefix sum.
fn top_p_boundaries() {
    let (mut ceil_decides, mut ends_in_tail) = (0, 0);
    for row in 0..300u64 {
        let mut g = SplitMix64(row);
        let mut x = vec![0.0f32];
        x.extend((0..400).map(|_| (-40.5 - 3.1 * g.next_unit()) as f32));
        let a: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
        for k in 1..=3u64 {
            let p = 1.0 - k as f64 * f64::EPSILON / 2.0;
            let raw = RawParams {
                top_p: p,
                seed: row,
                ..RawParams::default()
            };
            let (want, detail) = oracle::survivors_detail(&a, &raw);
            let tp = detail.expect("top-p on");
            let (floor, exact) = oracle::p_times(p, tp.total);
            let mut run = 0u128;
            if !exact
                && tp.masses.iter().any(|&q| {
                    run += u128::from(q);
                    run == floor
                })
            {
                ceil_decides += 1;
            }
            if tp.kept > 1 {
                ends_in_tail += 1;
            }
            let params = SamplingParams::new(raw).expect("valid");
            let got = model_survivors(&x, None, &params, &a);
            assert_eq!(
                got,
                want,
                "row {row}, p = 1 - {k} * 2^-53: {} kept, spec {}",
                got.len(),
                tp.kept
            );
        }
    }
    eprintln!(
        "top-p boundaries: ceil decides {ceil_decides}, prefix ends in the tail {ends_in_tail}"
    );
    assert!(
        ceil_decides >= 20 && ends_in_tail >= 300,
        "{ceil_decides} {ends_in_tail}"
    );
    // Exact ties: p * Q is exactly a prefix sum, which is then the target.
    for (n, p, kept) in [
        (2, 0.5, 1),
        (4, 0.5, 2),
        (4, 0.75, 3),
        (4, 0.25, 1),
        (8, 0.375, 3),
    ] {
        let x = vec![1.5f32; n];
        let a = vec![1.5f64; n];
        let params = SamplingParams::new(RawParams {
            top_p: p,
            ..RawParams::default()
        })
        .expect("valid");
        let want: Vec<u32> = (0..kept).collect();
        assert_eq!(
            model_survivors(&x, None, &params, &a),
            want,
            "{n} equal tokens, p = {p}"
        );
        assert_eq!(
            oracle::survivors(&a, &params.raw()),
            want,
            "oracle, {n} equal tokens, p = {p}"
        );
    }
}

#[test]
fn min_p_rule() {
    fn params(_v: usize) -> BoxedStrategy<RawParams> {
        raw_params(
            positive_temperature(),
            Just(0).boxed(),
            Just(1.0).boxed(),
            min_p_on(),
        )
    }
    run(3000, 9, one(1, SOME_MASKS, params), |case| {
        let Some((a, got)) = clean_model_survivors(&case) else {
            return Ok(());
        };
        let raw = case.spec.raw;
        let a_max = a.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let thr = raw.temperature * tailrace_noise::math::ln(raw.min_p);
        let want: Vec<u32> = (0..a.len() as u32)
            .filter(|&i| {
                let ai = a[i as usize];
                ai > f64::NEG_INFINITY && ai - a_max >= thr
            })
            .collect();
        check(got == want, || {
            format!("kept {got:?}, rule gives {want:?} (thr {thr})")
        })
    });
    // Directed: T chosen so that T * ln(min_p) is exactly a difference of
    // binary32 logits. The token at the threshold survives (>=); the next
    // binary32 below it does not.
    let mut exact_hits = 0;
    for min_p in [0.1, 0.05, 0.3, 0.5, 0.01, 0.2, 0.75, 0.9] {
        let l = tailrace_noise::math::ln(min_p);
        for d in [-0.5f32, -1.25, -2.5, -3.0, -4.75, -0.125, -6.5] {
            let mut t = f64::from(d) / l;
            // Step T by ulps until the binary64 product lands on d exactly.
            for _ in 0..16 {
                let thr = t * l;
                if thr == f64::from(d) {
                    break;
                }
                // t > 0: the next binary64 up has the next bit pattern.
                t = f64::from_bits(if thr < f64::from(d) {
                    t.to_bits() - 1
                } else {
                    t.to_bits() + 1
                });
            }
            if t * l != f64::from(d) {
                continue;
            }
            exact_hits += 1;
            let at = 1.0 + d; // exact, nonzero
            let (below, above) = (f32_step(at, -1), f32_step(at, 1));
            let x = [1.0f32, below, at, 0.75, above, 1.0, -30.0];
            let a: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
            let raw = RawParams {
                temperature: t,
                min_p,
                ..RawParams::default()
            };
            let params = SamplingParams::new(raw).expect("valid");
            let mut want: Vec<u32> = vec![0, 2, 4, 5];
            if 0.75 - 1.0 >= f64::from(d) {
                want.push(3);
            }
            want.sort_unstable();
            assert_eq!(
                oracle::survivors(&a, &raw),
                want,
                "oracle, min_p {min_p}, d {d}"
            );
            assert_eq!(
                model_survivors(&x, None, &params, &a),
                want,
                "min_p {min_p}, T {t}: threshold {d}"
            );
        }
    }
    eprintln!("min_p_rule: {exact_hits} exact-threshold rows");
    assert!(exact_hits >= 20, "only {exact_hits} exact thresholds found");
}

// ---------------------------------------------------------------- errors and statuses

fn raw_with(f: impl FnOnce(&mut RawParams)) -> RawParams {
    let mut r = RawParams::default();
    f(&mut r);
    r
}

fn row_error(e: ParamError, row: usize) -> ParamError {
    match e {
        ParamError::Row { row: r, source } if r == row => *source,
        other => panic!("expected an error naming row {row}, got {other:?}"),
    }
}

#[test]
fn invalid_params_rejected() {
    use ParamError as E;
    // Temperature.
    for t in [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        -1.0,
        -1e-300,
        -5e-324,
    ] {
        let got = SamplingParams::new(raw_with(|r| r.temperature = t));
        assert!(
            matches!(got, Err(E::InvalidTemperature(v)) if v.to_bits() == t.to_bits()),
            "T = {t}: {got:?}"
        );
    }
    // top-p.
    for p in [
        0.0,
        -0.0,
        -0.5,
        1.0 + f64::EPSILON,
        2.0,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ] {
        let got = SamplingParams::new(raw_with(|r| r.top_p = p));
        assert!(
            matches!(got, Err(E::InvalidTopP(v)) if v.to_bits() == p.to_bits()),
            "top_p = {p}: {got:?}"
        );
    }
    // min-p.
    for p in [-1e-300, -1.0, 1.0 + f64::EPSILON, f64::NAN, f64::INFINITY] {
        let got = SamplingParams::new(raw_with(|r| r.min_p = p));
        assert!(
            matches!(got, Err(E::InvalidMinP(v)) if v.to_bits() == p.to_bits()),
            "min_p = {p}: {got:?}"
        );
    }
    // Boundary values that are valid, and -0.0 temperature is greedy.
    for r in [
        raw_with(|r| r.temperature = -0.0),
        raw_with(|r| r.temperature = f64::MAX),
        raw_with(|r| r.top_p = 5e-324),
        raw_with(|r| r.top_p = 1.0),
        raw_with(|r| r.min_p = -0.0),
        raw_with(|r| r.min_p = 1.0),
        raw_with(|r| r.top_k = u32::MAX),
    ] {
        let p = SamplingParams::new(r).unwrap_or_else(|e| panic!("{r:?} is valid: {e}"));
        assert_eq!(p.is_greedy(), r.temperature == 0.0);
    }

    let x = [0.0f32, 1.0, 2.0, 3.0];
    let ok = SamplingParams::new(RawParams::default()).expect("valid");
    let req = |bias: LogitBias| RowRequest { params: ok, bias };
    // Vocabulary.
    assert_eq!(sample_batch::<f32>(&[], 0, 0, &[]), Err(E::InvalidVocab(0)));
    assert_eq!(
        sample_batch::<f32>(&[], 0, 0, &[ok.into()]),
        Err(E::InvalidVocab(0))
    );
    assert_eq!(
        sample_row::<f32>(&[], &LogitBias::None, &ok),
        Err(E::InvalidVocab(0))
    );
    assert_eq!(
        sample_batch(&x, MAX_VOCAB + 1, MAX_VOCAB + 1, &[ok.into()]),
        Err(E::InvalidVocab(MAX_VOCAB + 1))
    );
    // Sparse bias, in row 1 of a batch: index, duplicates, values.
    let in_row1 = |bias: LogitBias| {
        let e = sample_batch(
            &[x, x].concat(),
            4,
            4,
            &[req(LogitBias::None), req(bias.clone())],
        )
        .expect_err("invalid bias");
        // Debug text, not ==: the NaN-valued error is not equal to itself.
        let direct = bias.validate(4).expect_err("invalid bias");
        assert_eq!(
            format!("{direct:?}"),
            format!("{:?}", row_error(e.clone(), 1)),
            "validate agrees"
        );
        row_error(e, 1)
    };
    assert_eq!(
        in_row1(LogitBias::Sparse(vec![(4, 1.0)])),
        E::BiasIndexOutOfRange { index: 4, vocab: 4 }
    );
    assert_eq!(
        in_row1(LogitBias::Sparse(vec![(0, 1.0), (u32::MAX, 1.0)])),
        E::BiasIndexOutOfRange {
            index: u32::MAX,
            vocab: 4
        }
    );
    assert_eq!(
        in_row1(LogitBias::Sparse(vec![(2, 1.0), (1, 0.0), (2, -1.0)])),
        E::DuplicateBiasIndex(2)
    );
    assert_eq!(
        in_row1(LogitBias::Sparse(vec![
            (3, f32::NEG_INFINITY),
            (3, f32::NEG_INFINITY)
        ])),
        E::DuplicateBiasIndex(3)
    );
    assert!(
        matches!(in_row1(LogitBias::Sparse(vec![(1, f32::NAN)])), E::InvalidBiasValue { index: 1, value } if value.is_nan())
    );
    assert_eq!(
        in_row1(LogitBias::Sparse(vec![(0, -1.0), (3, f32::INFINITY)])),
        E::InvalidBiasValue {
            index: 3,
            value: f32::INFINITY
        }
    );
    // Dense bias of the wrong length.
    assert_eq!(
        in_row1(LogitBias::Dense(vec![0.0; 3])),
        E::BiasShape { len: 3, vocab: 4 }
    );
    assert_eq!(
        in_row1(LogitBias::Dense(vec![0.0; 5])),
        E::BiasShape { len: 5, vocab: 4 }
    );
    assert_eq!(
        in_row1(LogitBias::Dense(vec![])),
        E::BiasShape { len: 0, vocab: 4 }
    );
    assert_eq!(
        sample_row(&x, &LogitBias::Dense(vec![0.0; 2]), &ok).map_err(|e| row_error(e, 0)),
        Err(E::BiasShape { len: 2, vocab: 4 })
    );
    // -inf sparse values and an empty list are fine.
    assert!(sample_row(
        &x,
        &LogitBias::Sparse(vec![(3, f32::NEG_INFINITY), (0, -0.0)]),
        &ok
    )
    .is_ok());
    assert!(sample_row(&x, &LogitBias::Sparse(vec![]), &ok).is_ok());
    // Buffer shape.
    let shape =
        |r: Result<Vec<RowOutput>, ParamError>| assert!(matches!(r, Err(E::Shape(_))), "{r:?}");
    shape(sample_batch(&x[..3], 4, 4, &[ok.into()]));
    shape(sample_batch(
        &[x, x].concat()[..7],
        4,
        4,
        &[ok.into(), ok.into()],
    ));
    shape(sample_batch(
        &[x, x].concat(),
        4,
        5,
        &[ok.into(), ok.into()],
    ));
    shape(sample_batch(&x, 4, 3, &[ok.into()]));
    shape(sample_batch(&x, 4, 1, &[ok.into(), ok.into()]));
    shape(sample_batch(
        &x,
        4,
        usize::MAX / 2,
        &[ok.into(), ok.into(), ok.into()],
    ));
    // The last row needs only `vocab` elements, not a whole stride.
    assert!(sample_batch(&[x, x].concat()[..7], 3, 4, &[ok.into(), ok.into()]).is_ok());
    // Errors come before any work: a bad row after a NaN row still errors.
    let nan_row = [f32::NAN; 4];
    assert!(sample_batch(
        &[nan_row, x].concat(),
        4,
        4,
        &[ok.into(), req(LogitBias::Sparse(vec![(9, 0.0)]))]
    )
    .is_err());

    // Fuzz: any bit pattern is accepted exactly when the spec says so, never a panic.
    let mut g = SplitMix64(0xBAD_1DEA);
    let special = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        5e-324,
        1.0 + f64::EPSILON,
    ];
    let pick = |g: &mut SplitMix64| {
        if g.below(3) == 0 {
            special[g.below(special.len() as u64) as usize]
        } else {
            f64::from_bits(g.next_u64())
        }
    };
    for _ in 0..20000 {
        let raw = RawParams {
            temperature: pick(&mut g),
            top_p: pick(&mut g),
            min_p: pick(&mut g),
            top_k: g.next_u64() as u32,
            ..RawParams::default()
        };
        let t_ok = raw.temperature.is_finite() && raw.temperature >= 0.0;
        let p_ok = raw.top_p > 0.0 && raw.top_p <= 1.0;
        let m_ok = (0.0..=1.0).contains(&raw.min_p);
        let got = std::panic::catch_unwind(|| SamplingParams::new(raw)).expect("no panic");
        match got {
            Ok(_) => assert!(t_ok && p_ok && m_ok, "{raw:?} accepted"),
            Err(E::InvalidTemperature(_)) => assert!(!t_ok, "{raw:?}"),
            Err(E::InvalidTopP(_)) => assert!(!p_ok, "{raw:?}"),
            Err(E::InvalidMinP(_)) => assert!(!m_ok, "{raw:?}"),
            Err(e) => panic!("{raw:?}: unexpected {e:?}"),
        }
        // Random sparse lists against a small vocabulary.
        let v = 1 + g.below(8) as usize;
        let pairs: Vec<(u32, f32)> = (0..g.below(5))
            .map(|_| (g.below(10) as u32, f32::from_bits(g.next_u64() as u32)))
            .collect();
        let bias = LogitBias::Sparse(pairs.clone());
        let got = std::panic::catch_unwind(|| bias.validate(v)).expect("no panic");
        let mut seen = HashSet::new();
        let valid = pairs
            .iter()
            .all(|&(i, b)| (i as usize) < v && !b.is_nan() && b != f32::INFINITY)
            && pairs.iter().all(|&(i, _)| seen.insert(i));
        assert_eq!(got.is_ok(), valid, "{pairs:?} against V = {v}: {got:?}");
    }

    // Deserialisation of garbage.
    for text in [
        "",
        "garbage",
        "null",
        "{\"temperature\": \"hot\"}",
        "{\"top_k\": -1}",
        "{\"top_k\": 4294967296}",
        "{\"top_k\": 1.5}",
        "{\"seed\": -1}",
        "{\"seed\": 18446744073709551616}",
        "{\"profile\": \"gauss\"}",
        "{\"profile\": \"Exact\"}",
        "{\"temprature\": 1.0}",
        "{\"temperature\": 1.0,}",
        "{\"temperature\": NaN}",
        "{\"temperature\": 1e999}",
        "{\"temperature\": 1.0",
    ] {
        let got = serde_json::from_str::<RawParams>(text);
        assert!(got.is_err(), "{text:?} parsed as {got:?}");
    }
    let parsed: RawParams = serde_json::from_str("{}").expect("defaults");
    assert_eq!(parsed, RawParams::default());
    let parsed: RawParams = serde_json::from_str(
        "{\"temperature\": -1, \"seed\": 18446744073709551615, \"profile\": \"triton\"}",
    )
    .expect("well-formed");
    assert_eq!(
        (parsed.seed, parsed.profile),
        (u64::MAX, NoiseProfile::Triton)
    );
    assert_eq!(
        SamplingParams::new(parsed),
        Err(E::InvalidTemperature(-1.0))
    );
    // Mutations of a valid text: parse or reject, never panic.
    let valid = br#"{"temperature": 0.7, "top_k": 40, "top_p": 0.9, "min_p": 0.05, "seed": 7, "position": 3, "profile": "f32"}"#;
    let alphabet = b"{}[]\":,0123456789.-+eE truefalsnp_kxyz\\";
    for _ in 0..5000 {
        let mut bytes = valid.to_vec();
        for _ in 0..1 + g.below(4) {
            let at = g.below(bytes.len() as u64) as usize;
            let c = alphabet[g.below(alphabet.len() as u64) as usize];
            match g.below(3) {
                0 => bytes[at] = c,
                1 => bytes.insert(at, c),
                _ => {
                    bytes.remove(at);
                }
            }
        }
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let parsed = std::panic::catch_unwind(|| serde_json::from_str::<RawParams>(&text))
            .expect("no panic");
        if let Ok(raw) = parsed {
            let _ = std::panic::catch_unwind(|| SamplingParams::new(raw)).expect("no panic");
        }
    }
    let round = SamplingParams::new(raw_with(|r| {
        r.temperature = 0.7;
        r.top_k = 9;
        r.seed = u64::MAX;
    }))
    .expect("valid");
    let text = serde_json::to_string(&round.raw()).expect("serialise");
    assert_eq!(
        serde_json::from_str::<RawParams>(&text).expect("parse"),
        round.raw()
    );
}

/// A row made bad on purpose, with the status the spec gives it.
#[derive(Debug, Clone, Copy)]
enum Bad {
    NanLogit,
    PosInfLogit,
    NanDenseBias,
    PosInfDenseBias,
    PosInfLogitNegInfDense,
    PosInfLogitNegInfSparse,
    NegInfLogitPosInfDense,
    AllLogitsMasked,
    AllMaskedByDense,
    AllMaskedBySparse,
    MaskedButOneNan,
    MaskedButOneNanViaBias,
}

impl Bad {
    const ALL: [Bad; 12] = [
        Bad::NanLogit,
        Bad::PosInfLogit,
        Bad::NanDenseBias,
        Bad::PosInfDenseBias,
        Bad::PosInfLogitNegInfDense,
        Bad::PosInfLogitNegInfSparse,
        Bad::NegInfLogitPosInfDense,
        Bad::AllLogitsMasked,
        Bad::AllMaskedByDense,
        Bad::AllMaskedBySparse,
        Bad::MaskedButOneNan,
        Bad::MaskedButOneNanViaBias,
    ];

    fn status(self) -> RowStatus {
        match self {
            Bad::AllLogitsMasked | Bad::AllMaskedByDense | Bad::AllMaskedBySparse => {
                RowStatus::AllMasked
            }
            _ => RowStatus::NonFiniteLogit,
        }
    }

    /// Spoils a clean row (logits `x`, bias) at index `i`.
    fn apply(self, x: &mut [f32], bias: &mut LogitBias, i: usize) {
        let v = x.len();
        let dense = |bias: &mut LogitBias, i: usize, b: f32| {
            let mut d = match std::mem::take(bias) {
                LogitBias::Dense(d) => d,
                _ => vec![0.0; v],
            };
            d[i] = b;
            *bias = LogitBias::Dense(d);
        };
        match self {
            Bad::NanLogit => x[i] = f32::NAN,
            Bad::PosInfLogit => x[i] = f32::INFINITY,
            Bad::NanDenseBias => dense(bias, i, f32::NAN),
            Bad::PosInfDenseBias => dense(bias, i, f32::INFINITY),
            Bad::PosInfLogitNegInfDense => {
                x[i] = f32::INFINITY;
                dense(bias, i, f32::NEG_INFINITY);
            }
            Bad::PosInfLogitNegInfSparse => {
                x[i] = f32::INFINITY;
                *bias = LogitBias::Sparse(vec![(i as u32, f32::NEG_INFINITY)]);
            }
            Bad::NegInfLogitPosInfDense => {
                x[i] = f32::NEG_INFINITY;
                dense(bias, i, f32::INFINITY);
            }
            Bad::AllLogitsMasked => x.fill(f32::NEG_INFINITY),
            Bad::AllMaskedByDense => *bias = LogitBias::Dense(vec![f32::NEG_INFINITY; v]),
            Bad::AllMaskedBySparse => {
                *bias = LogitBias::Sparse(
                    (0..v as u32)
                        .rev()
                        .map(|j| (j, f32::NEG_INFINITY))
                        .collect(),
                )
            }
            Bad::MaskedButOneNan => {
                x.fill(f32::NEG_INFINITY);
                x[i] = f32::NAN;
            }
            Bad::MaskedButOneNanViaBias => {
                x.fill(f32::NEG_INFINITY);
                *bias = LogitBias::Dense(vec![0.0; v]);
                dense(bias, i, f32::INFINITY);
            }
        }
    }
}

#[test]
fn nonfinite_rows_isolated() {
    let strategy = (vocab(), dtype()).prop_flat_map(|(v, dtype)| {
        (
            Just(v),
            Just(dtype),
            prop::collection::vec(any_row(v), 0..5),
            prop::collection::vec(
                (
                    any_row(v),
                    prop::sample::select(Bad::ALL.to_vec()),
                    any::<prop::sample::Index>(),
                    any::<bool>(),
                    any::<prop::sample::Index>(),
                ),
                1..4,
            ),
        )
    });
    run(1500, 10, strategy, |(v, dtype, mates, bads)| {
        // Rows as (logits, bias, params, expected status if bad).
        let mut rows: Vec<(Vec<f32>, LogitBias, RawParams, Option<RowStatus>)> = mates
            .iter()
            .map(|s| (s.logits(v, dtype), s.bias(v), s.raw, None))
            .collect();
        for (spec, bad, at, greedy, slot) in &bads {
            let (mut x, mut bias) = (spec.logits(v, dtype), spec.bias(v));
            bad.apply(&mut x, &mut bias, at.index(v));
            let mut raw = spec.raw;
            if *greedy {
                raw.temperature = 0.0;
            }
            let slot = slot.index(rows.len() + 1);
            rows.insert(slot, (x, bias, raw, Some(bad.status())));
        }
        let stride = v + 1;
        let mut buf = vec![0.0f32; rows.len() * stride];
        for (r, row) in rows.iter().enumerate() {
            buf[r * stride..r * stride + v].copy_from_slice(&row.0);
        }
        let l = Logits::from_f32(dtype, &buf);
        let reqs: Vec<RowRequest> = rows
            .iter()
            .map(|r| RowRequest {
                params: SamplingParams::new(r.2).expect("valid"),
                bias: r.1.clone(),
            })
            .collect();
        let out = with_logits!(&l, x => sample_batch(x, v, stride, &reqs)).expect("valid batch");
        let exact = l.to_f32();
        for (r, row) in rows.iter().enumerate() {
            let xr = &exact[r * stride..r * stride + v];
            let alone = with_logits!(&l, x => sample_row(&x[r * stride..r * stride + v], &row.1, &reqs[r].params)).expect("valid");
            check(out[r] == alone, || {
                format!("row {r}: batch {:?}, alone {alone:?}", out[r])
            })?;
            let want = oracle::sample(xr, &row.1, &row.2);
            check(out[r] == want, || {
                format!("row {r}: {:?} vs oracle {want:?}", out[r])
            })?;
            if let Some(status) = row.3 {
                check(
                    out[r]
                        == RowOutput {
                            token: NO_TOKEN,
                            status,
                        },
                    || format!("bad row {r}: {:?}, want {status:?}", out[r]),
                )?;
                check(
                    out[r].status.code()
                        == if status == RowStatus::NonFiniteLogit {
                            1
                        } else {
                            2
                        },
                    || "status code".into(),
                )?;
            }
        }
        Ok(())
    });
}
