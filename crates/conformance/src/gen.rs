//! Deterministic generators of batches for the properties: proptest
//! strategies (so a failing case shrinks to a small one) over compact row
//! descriptions that expand to logits with a splitmix64 stream.

use crate::sampler::{BatchInput, Logits};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use tailrace_model::{LogitBias, RawParams, RowRequest, SamplingParams};
use tailrace_noise::NoiseProfile;

/// splitmix64 step.
pub fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A uniform in [0, 1) from the stream.
pub fn unit(state: &mut u64) -> f64 {
    (splitmix(state) >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// How a row's logits look.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// Uniform in [-spread/2, spread/2).
    Spread(f32),
    /// Few distinct values: many exact ties.
    Ties(u8),
    /// One token far above a flat rest: the tail-rate row.
    Peak(f32),
}

/// Special data problems of a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Poison {
    /// None.
    Clean,
    /// A NaN logit.
    Nan,
    /// A +inf logit.
    PosInf,
    /// Every token masked.
    AllMasked,
}

/// A compact description of one row.
#[derive(Debug, Clone, PartialEq)]
pub struct RowSpec {
    /// Stream seed of the logits.
    pub data_seed: u64,
    /// Logit shape.
    pub shape: Shape,
    /// Fraction (per mille) of tokens masked with -inf.
    pub masked_permille: u16,
    /// Bias: 0 none, 1 dense, 2 sparse.
    pub bias_kind: u8,
    /// Data problem.
    pub poison: Poison,
    /// Parameters.
    pub params: RawParams,
}

/// A compact description of a batch.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchSpec {
    /// Vocabulary size.
    pub vocab: usize,
    /// Extra row stride beyond vocab.
    pub pad: usize,
    /// dtype name.
    pub dtype: &'static str,
    /// Rows.
    pub rows: Vec<RowSpec>,
}

const SPECIAL_U64: [u64; 8] = [
    0,
    1,
    7,
    (1 << 32) - 1,
    1 << 32,
    (1 << 32) + 5,
    (1 << 63) - 1,
    u64::MAX,
];

fn u64_strategy() -> impl Strategy<Value = u64> {
    prop_oneof![3 => any::<u64>(), 1 => proptest::sample::select(&SPECIAL_U64[..])]
}

fn params_strategy() -> impl Strategy<Value = RawParams> {
    let temperature = prop_oneof![
        2 => Just(0.0),
        1 => Just(1e-9),
        1 => Just(1e-3),
        6 => 0.05f64..3.0,
        1 => Just(1.0),
        1 => 10.0f64..1000.0,
    ];
    let top_k = prop_oneof![6 => Just(0u32), 1 => Just(1u32), 3 => 2u32..80, 1 => 80u32..5000];
    let top_p = prop_oneof![6 => Just(1.0f64), 3 => 0.05f64..0.999, 1 => Just(0.5)];
    let min_p = prop_oneof![7 => Just(0.0f64), 3 => 0.001f64..0.6, 1 => Just(1.0)];
    let profile = proptest::sample::select(&NoiseProfile::ALL[..]);
    (
        temperature,
        top_k,
        top_p,
        min_p,
        u64_strategy(),
        u64_strategy(),
        profile,
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
}

fn row_strategy() -> impl Strategy<Value = RowSpec> {
    let shape = prop_oneof![
        4 => proptest::sample::select(&[0.01f32, 1.0, 4.0, 12.0, 60.0][..]).prop_map(Shape::Spread),
        2 => (1u8..6).prop_map(Shape::Ties),
        1 => (5.0f32..30.0).prop_map(Shape::Peak),
    ];
    let masked = prop_oneof![4 => Just(0u16), 1 => 1u16..500];
    let poison = prop_oneof![
        30 => Just(Poison::Clean),
        1 => Just(Poison::Nan),
        1 => Just(Poison::PosInf),
        1 => Just(Poison::AllMasked),
    ];
    (
        any::<u64>(),
        shape,
        masked,
        0u8..3,
        poison,
        params_strategy(),
    )
        .prop_map(
            |(data_seed, shape, masked_permille, bias_kind, poison, params)| RowSpec {
                data_seed,
                shape,
                masked_permille,
                bias_kind,
                poison,
                params,
            },
        )
}

/// Batches with vocabularies up to `max_vocab` and up to `max_rows` rows.
pub fn batch_strategy(max_vocab: usize, max_rows: usize) -> impl Strategy<Value = BatchSpec> {
    let vocab = prop_oneof![
        3 => 1usize..70,
        4 => 70usize..5000,
        1 => 5000usize..=max_vocab.max(5000),
    ]
    .prop_map(move |v| v.min(max_vocab));
    let dtype = proptest::sample::select(&["f32", "bf16", "f16"][..]);
    (
        vocab,
        prop_oneof![3 => Just(0usize), 1 => 1usize..9],
        dtype,
        proptest::collection::vec(row_strategy(), 1..=max_rows),
    )
        .prop_map(|(vocab, pad, dtype, rows)| BatchSpec {
            vocab,
            pad,
            dtype,
            rows,
        })
}

impl BatchSpec {
    /// Expands the description into a batch.
    pub fn build(&self) -> BatchInput {
        let stride = self.vocab + self.pad;
        let mut logits = vec![0f32; stride * self.rows.len()];
        let mut requests = Vec::with_capacity(self.rows.len());
        for (r, spec) in self.rows.iter().enumerate() {
            let mut s = spec.data_seed;
            let row = &mut logits[r * stride..(r + 1) * stride];
            for x in row.iter_mut() {
                *x = f32::from_bits(0x7fc0_dead); // padding is never read
            }
            let peak = (splitmix(&mut s) % self.vocab as u64) as usize;
            for (i, x) in row[..self.vocab].iter_mut().enumerate() {
                *x = match spec.shape {
                    Shape::Spread(w) => ((unit(&mut s) - 0.5) * f64::from(w)) as f32,
                    Shape::Ties(n) => (splitmix(&mut s) % u64::from(n)) as f32 * 0.5,
                    Shape::Peak(d) => {
                        if i == peak {
                            0.0
                        } else {
                            -d
                        }
                    }
                };
                if spec.masked_permille > 0
                    && (splitmix(&mut s) % 1000) < u64::from(spec.masked_permille)
                    && i != peak
                {
                    *x = f32::NEG_INFINITY;
                }
            }
            match spec.poison {
                Poison::Clean => {}
                Poison::Nan => row[(splitmix(&mut s) % self.vocab as u64) as usize] = f32::NAN,
                Poison::PosInf => {
                    row[(splitmix(&mut s) % self.vocab as u64) as usize] = f32::INFINITY
                }
                Poison::AllMasked => row[..self.vocab]
                    .iter_mut()
                    .for_each(|x| *x = f32::NEG_INFINITY),
            }
            let bias = match spec.bias_kind {
                1 => LogitBias::Dense(
                    (0..self.vocab)
                        .map(|_| match splitmix(&mut s) % 50 {
                            0 => f32::NEG_INFINITY,
                            1..=10 => ((unit(&mut s) - 0.5) * 6.0) as f32,
                            _ => 0.0,
                        })
                        .collect(),
                ),
                2 => {
                    let n = (splitmix(&mut s) % 8) as usize;
                    let mut idx: Vec<u32> = (0..n)
                        .map(|_| (splitmix(&mut s) % self.vocab as u64) as u32)
                        .collect();
                    idx.sort_unstable();
                    idx.dedup();
                    LogitBias::Sparse(
                        idx.into_iter()
                            .map(|i| {
                                let v = if splitmix(&mut s) % 3 == 0 {
                                    f32::NEG_INFINITY
                                } else {
                                    ((unit(&mut s) - 0.5) * 20.0) as f32
                                };
                                (i, v)
                            })
                            .collect(),
                    )
                }
                _ => LogitBias::None,
            };
            let params = SamplingParams::new(spec.params).expect("strategy yields valid params");
            requests.push(RowRequest { params, bias });
        }
        BatchInput {
            logits: Logits::from_f32(self.dtype, &logits),
            vocab: self.vocab,
            stride,
            rows: requests,
        }
    }
}

/// A deterministic proptest runner for `cases` cases.
pub fn runner(cases: u32, seed: u64) -> TestRunner {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    TestRunner::new_with_rng(
        Config {
            cases,
            failure_persistence: None,
            max_shrink_iters: 2000,
            ..Config::default()
        },
        TestRng::from_seed(RngAlgorithm::ChaCha, &key),
    )
}
