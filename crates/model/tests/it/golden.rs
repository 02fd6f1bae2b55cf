//! Golden draws: a fixed table of cases (every profile, dtype, temperature
//! regime, filter, bias kind, extreme seeds and positions), each drawing 8
//! consecutive positions, snapshotted in `golden/draws/draws.snap`. Every
//! token is also checked against the brute-force oracle, so the snapshot
//! records values that were verified independently, not just observed.
//!
//! Logits of a case: `z_0, z_1, ...` are the outputs of SplitMix64 seeded with
//! `logit_seed` (state += 0x9E3779B97F4A7C15; z = state;
//! z = (z ^ z>>30) * 0xBF58476D1CE4E5B9; z = (z ^ z>>27) * 0x94D049BB133111EB;
//! z ^= z>>31), and `x_i = ((z_i >> 40) as f32 * 2^-24 - 0.5) * spread` in
//! binary32, then rounded to the dtype (nearest even). A dense bias is made the
//! same way from seed `logit_seed ^ 0xB1A5` with `scale` for `spread`.
//!
//! To regenerate after an intended change: `INSTA_UPDATE=always cargo test -p
//! tailrace-model --test it golden`, then review the diff of the .snap file.

use crate::{oracle, with_logits, Dtype, Logits, SplitMix64};
use serde_json::{json, Value};
use tailrace_model::{
    sample_batch, LogitBias, NoiseProfile, RawParams, RowRequest, SamplingParams,
};
use NoiseProfile::{Exact, Triton, F32 as P32, F64 as P64};

const TWO_32: u64 = 1 << 32;
const I64_MAX: u64 = (1 << 63) - 1;
const POS_40: u64 = (1 << 40) + 3;

#[derive(Debug, Clone)]
enum Bias {
    None,
    Dense { scale: f32 },
    Sparse(Vec<(u32, f32)>),
}

#[derive(Debug, Clone)]
struct Case {
    name: &'static str,
    profile: NoiseProfile,
    dtype: Dtype,
    vocab: usize,
    logit_seed: u64,
    spread: f32,
    temperature: f64,
    top_k: u32,
    top_p: f64,
    min_p: f64,
    bias: Bias,
    seed: u64,
    position: u64,
}

/// `((z >> 40) as f32 * 2^-24 - 0.5) * scale` for `n` SplitMix64 outputs.
fn stream(seed: u64, n: usize, scale: f32) -> Vec<f32> {
    let mut g = SplitMix64(seed);
    (0..n)
        .map(|_| ((g.next_u64() >> 40) as f32 * f32::from_bits((127 - 24) << 23) - 0.5) * scale)
        .collect()
}

impl Case {
    fn logits(&self) -> Logits {
        Logits::from_f32(
            self.dtype,
            &stream(self.logit_seed, self.vocab, self.spread),
        )
    }

    fn bias(&self) -> LogitBias {
        match &self.bias {
            Bias::None => LogitBias::None,
            Bias::Dense { scale } => {
                LogitBias::Dense(stream(self.logit_seed ^ 0xB1A5, self.vocab, *scale))
            }
            Bias::Sparse(pairs) => LogitBias::Sparse(pairs.clone()),
        }
    }

    fn raw(&self, position: u64) -> RawParams {
        RawParams {
            temperature: self.temperature,
            top_k: self.top_k,
            top_p: self.top_p,
            min_p: self.min_p,
            seed: self.seed,
            position,
            profile: self.profile,
        }
    }

    fn bias_json(&self) -> Value {
        match &self.bias {
            Bias::None => Value::Null,
            Bias::Dense { scale } => json!({ "dense_scale": scale }),
            Bias::Sparse(pairs) => Value::Array(
                pairs
                    .iter()
                    .map(|&(i, b)| {
                        json!([
                            i,
                            if b == f32::NEG_INFINITY {
                                json!("-inf")
                            } else {
                                json!(b)
                            }
                        ])
                    })
                    .collect(),
            ),
        }
    }
}

/// A plain case; filters and bias are set with struct update syntax.
#[allow(clippy::too_many_arguments)]
fn plain(
    name: &'static str,
    profile: NoiseProfile,
    dtype: Dtype,
    vocab: usize,
    spread: f32,
    temperature: f64,
    seed: u64,
    position: u64,
) -> Case {
    Case {
        name,
        profile,
        dtype,
        vocab,
        logit_seed: vocab as u64 ^ seed.rotate_left(7) ^ 0x601D,
        spread,
        temperature,
        top_k: 0,
        top_p: 1.0,
        min_p: 0.0,
        bias: Bias::None,
        seed,
        position,
    }
}

fn cases() -> Vec<Case> {
    use Dtype::{Bf16, F16, F32};
    let mask_top: Vec<(u32, f32)> = (0..64).map(|i| (i * 7, f32::NEG_INFINITY)).collect();
    vec![
        plain("exact f32 plain", Exact, F32, 1000, 8.0, 1.0, 0, 0),
        plain("exact f32 plain seed 1", Exact, F32, 1000, 8.0, 1.0, 1, 7),
        plain(
            "exact bf16 T0.7",
            Exact,
            Bf16,
            32000,
            20.0,
            0.7,
            TWO_32,
            TWO_32,
        ),
        plain(
            "exact f16 T1.5",
            Exact,
            F16,
            5000,
            10.0,
            1.5,
            I64_MAX,
            POS_40,
        ),
        plain("exact f32 seed max", Exact, F32, 257, 4.0, 1.0, u64::MAX, 0),
        plain("f64 f32 plain", P64, F32, 1000, 8.0, 1.0, 0, 0),
        plain("f32 f32 plain", P32, F32, 1000, 8.0, 1.0, 0, 0),
        plain("triton f32 plain", Triton, F32, 1000, 8.0, 1.0, 0, 0),
        plain(
            "exact bf16 50k",
            Exact,
            Bf16,
            50000,
            12.0,
            0.8,
            I64_MAX,
            POS_40,
        ),
        plain("f64 bf16 50k", P64, Bf16, 50000, 12.0, 0.8, I64_MAX, POS_40),
        plain("f32 bf16 50k", P32, Bf16, 50000, 12.0, 0.8, I64_MAX, POS_40),
        plain(
            "triton bf16 50k",
            Triton,
            Bf16,
            50000,
            12.0,
            0.8,
            I64_MAX,
            POS_40,
        ),
        plain("greedy T0", Exact, F32, 1000, 8.0, 0.0, 1, 7),
        Case {
            top_k: 1,
            ..plain("greedy top-k 1", Triton, Bf16, 2048, 6.0, 1.0, TWO_32, 0)
        },
        plain("tiny T on tiny spread", Exact, F32, 100, 1e-6, 1e-6, 0, 7),
        plain("large T", Exact, F16, 3000, 16.0, 100.0, 1, TWO_32),
        Case {
            top_k: 50,
            ..plain("top-k 50", Exact, F32, 32000, 10.0, 1.0, 0, POS_40)
        },
        Case {
            top_k: 5,
            ..plain("top-k 5 f64", P64, Bf16, 4096, 6.0, 1.2, u64::MAX, 7)
        },
        Case {
            top_p: 0.9,
            ..plain("top-p 0.9", Exact, F32, 32000, 10.0, 1.0, 1, 0)
        },
        Case {
            top_p: 0.5,
            ..plain(
                "top-p 0.5 triton",
                Triton,
                F16,
                8192,
                6.0,
                0.9,
                I64_MAX,
                TWO_32,
            )
        },
        Case {
            top_p: 0.05,
            ..plain("top-p 0.05 f32", P32, F32, 1000, 3.0, 2.0, TWO_32, 7)
        },
        Case {
            min_p: 0.1,
            ..plain("min-p 0.1", Exact, F32, 32000, 10.0, 1.0, 0, 7)
        },
        Case {
            min_p: 0.02,
            ..plain("min-p 0.02 f64", P64, Bf16, 10000, 8.0, 1.4, 1, POS_40)
        },
        Case {
            top_k: 40,
            top_p: 0.95,
            min_p: 0.05,
            ..plain(
                "all filters exact",
                Exact,
                F32,
                32000,
                10.0,
                0.7,
                u64::MAX,
                POS_40,
            )
        },
        Case {
            top_k: 40,
            top_p: 0.95,
            min_p: 0.05,
            ..plain(
                "all filters triton",
                Triton,
                Bf16,
                32000,
                10.0,
                0.7,
                u64::MAX,
                POS_40,
            )
        },
        Case {
            bias: Bias::Dense { scale: 4.0 },
            ..plain("dense bias", Exact, F32, 2000, 8.0, 1.0, 0, TWO_32)
        },
        Case {
            bias: Bias::Sparse(mask_top),
            ..plain("sparse -inf masks", Exact, F32, 500, 6.0, 1.0, 1, 0)
        },
        Case {
            bias: Bias::Sparse(vec![(17, 30.0), (3, -2.5)]),
            ..plain("sparse boost", Exact, Bf16, 2000, 8.0, 1.0, I64_MAX, 7)
        },
        Case {
            top_p: 0.8,
            bias: Bias::Dense { scale: 2.0 },
            ..plain(
                "dense bias + top-p",
                P64,
                Bf16,
                6000,
                8.0,
                1.0,
                TWO_32,
                POS_40,
            )
        },
        Case {
            top_k: 10,
            bias: Bias::Sparse(vec![
                (0, f32::NEG_INFINITY),
                (1, 5.0),
                (2, f32::NEG_INFINITY),
                (999, 1.5),
            ]),
            ..plain(
                "sparse bias + top-k",
                Triton,
                F16,
                1000,
                6.0,
                1.0,
                0,
                POS_40,
            )
        },
        plain("vocab 1", Exact, F32, 1, 1.0, 1.0, 0, 0),
        plain("vocab 3 f32", P32, F32, 3, 1.0, 1.0, u64::MAX, TWO_32),
        plain("exact bf16 128k", Exact, Bf16, 131072, 16.0, 1.0, 1, TWO_32),
        plain("f32 T3", P32, F32, 200, 2.0, 3.0, TWO_32, POS_40),
        plain("f64 T0.3", P64, F32, 4096, 5.0, 0.3, u64::MAX, 7),
        plain("triton qwen vocab", Triton, Bf16, 151936, 14.0, 1.0, 0, 0),
        Case {
            min_p: 1.0,
            ..plain("min-p 1 is argmax", Exact, F32, 1000, 8.0, 1.0, 0, 0)
        },
        Case {
            top_p: 5e-324,
            ..plain("top-p tiny is argmax", Exact, F16, 1000, 8.0, 1.0, 1, 7)
        },
        Case {
            top_k: 3,
            ..plain("f32 top-k 3 T2", P32, Bf16, 512, 3.0, 2.0, I64_MAX, 0)
        },
        Case {
            top_k: 100,
            top_p: 0.9,
            min_p: 0.01,
            bias: Bias::Sparse(vec![(5, f32::NEG_INFINITY), (6, 3.0), (4095, -1.0)]),
            ..plain(
                "triton everything",
                Triton,
                F16,
                4096,
                9.0,
                1.1,
                u64::MAX,
                POS_40,
            )
        },
    ]
}

/// Draws 8 consecutive positions of `case` in one batch.
fn draw(case: &Case) -> Vec<u32> {
    let logits = case.logits();
    let bias = case.bias();
    let reqs: Vec<RowRequest> = (0..8)
        .map(|j| RowRequest {
            params: SamplingParams::new(case.raw(case.position + j)).expect("valid"),
            bias: bias.clone(),
        })
        .collect();
    let v = case.vocab;
    let out = with_logits!(&logits, x => {
        let buf: Vec<_> = x.iter().copied().cycle().take(8 * v).collect();
        sample_batch(&buf, v, v, &reqs)
    })
    .expect("valid");
    let xf = logits.to_f32();
    out.iter()
        .enumerate()
        .map(|(j, o)| {
            let want = oracle::sample(&xf, &bias, &case.raw(case.position + j as u64));
            assert_eq!(*o, want, "{}: position +{j}", case.name);
            o.token
        })
        .collect()
}

#[test]
fn golden_draws() {
    let cases = cases();
    assert!(cases.len() >= 40);
    let table: Vec<Value> = cases
        .iter()
        .map(|c| {
            let head: Vec<f32> = c.logits().to_f32().into_iter().take(4).collect();
            json!({
                "name": c.name,
                "profile": c.profile,
                "dtype": c.dtype,
                "vocab": c.vocab,
                "logit_seed": c.logit_seed,
                "spread": c.spread,
                "logits_head": head,
                "temperature": c.temperature,
                "top_k": c.top_k,
                "top_p": c.top_p,
                "min_p": c.min_p,
                "bias": c.bias_json(),
                "seed": c.seed,
                "position": c.position,
                "tokens": draw(c),
            })
        })
        .collect();
    insta::with_settings!({
        snapshot_path => "../../../../golden/draws",
        prepend_module_to_snapshot => false,
        description => "tailrace-model golden draws: crates/model/tests/it/golden.rs",
        omit_expression => true,
    }, {
        insta::assert_json_snapshot!("draws", table);
    });
}
