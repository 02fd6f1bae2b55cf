//! Chi-square tests of the drawn law: the empirical token counts over many
//! positions (fixed seed) against softmax(a / T) over the survivors, computed
//! here in f64 with the platform `exp` (an oracle, not a spec path). Each
//! statistic must stay below its 1 - 1e-6 quantile; tokens outside the
//! survivor set must never be drawn.

use crate::oracle;
use statrs::distribution::{ChiSquared, ContinuousCDF};
use std::time::Instant;
use tailrace_model::{
    sample_batch, LogitBias, NoiseProfile, RawParams, RowRequest, RowStatus, SamplingParams,
};

/// The 16-token test row: a spread of 4.5 nats, smallest probability ~0.3%.
const ROW: [f32; 16] = [
    2.0, 1.5, 1.2, 1.0, 0.8, 0.5, 0.3, 0.0, -0.2, -0.5, -0.8, -1.0, -1.3, -1.6, -2.0, -2.5,
];

/// Rows per `sample_batch` call (all the same logits, consecutive positions).
const ROWS: usize = 1 << 15;

/// Token counts of `draws` draws at positions `raw.position ..`.
fn counts(x: &[f32], bias: &LogitBias, raw: RawParams, draws: usize) -> Vec<u64> {
    let v = x.len();
    let buf: Vec<f32> = x.iter().copied().cycle().take(ROWS * v).collect();
    let params = SamplingParams::new(raw).expect("valid");
    let mut counts = vec![0u64; v];
    let mut done = 0usize;
    while done < draws {
        let n = ROWS.min(draws - done);
        let reqs: Vec<RowRequest> = (0..n)
            .map(|j| RowRequest {
                params: params.at_position(raw.position + (done + j) as u64),
                bias: bias.clone(),
            })
            .collect();
        for out in sample_batch(&buf[..n * v], v, v, &reqs).expect("valid batch") {
            assert_eq!(out.status, RowStatus::Ok);
            counts[out.token as usize] += 1;
        }
        done += n;
    }
    counts
}

/// softmax(a / T) over `survivors` (zero elsewhere), in f64.
fn law(a: &[f64], t: f64, survivors: &[u32]) -> Vec<f64> {
    let a_max = survivors
        .iter()
        .map(|&i| a[i as usize])
        .fold(f64::NEG_INFINITY, f64::max);
    let mut p = vec![0.0; a.len()];
    for &i in survivors {
        p[i as usize] = ((a[i as usize] - a_max) / t).exp();
    }
    let z: f64 = p.iter().sum();
    p.iter().map(|w| w / z).collect()
}

/// Draws, checks the support and the chi-square statistic; returns it.
fn chi_square(name: &str, x: &[f32], bias: &LogitBias, raw: RawParams, draws: usize) -> f64 {
    let a = oracle::a_values(x, bias);
    let survivors = oracle::survivors(&a, &raw);
    let p = law(&a, raw.temperature, &survivors);
    let t0 = Instant::now();
    let c = counts(x, bias, raw, draws);
    let secs = t0.elapsed().as_secs_f64();
    for (i, &n) in c.iter().enumerate() {
        if survivors.binary_search(&(i as u32)).is_err() {
            assert_eq!(n, 0, "{name}: filtered-out token {i} drawn {n} times");
        }
    }
    let stat: f64 = survivors
        .iter()
        .map(|&i| {
            let e = p[i as usize] * draws as f64;
            let d = c[i as usize] as f64 - e;
            d * d / e
        })
        .sum();
    let dof = survivors.len() - 1;
    assert!(
        dof >= 3,
        "{name}: a law worth testing has several survivors"
    );
    let limit = ChiSquared::new(dof as f64)
        .expect("dof > 0")
        .inverse_cdf(1.0 - 1e-6);
    eprintln!(
        "{name:28} {} draws, {} survivors: chi2 = {stat:8.3} (dof {dof}, 1e-6 quantile {limit:.2}) [{secs:.1} s]",
        draws,
        survivors.len()
    );
    assert!(
        stat < limit,
        "{name}: chi-square {stat} >= {limit} (dof {dof}); counts {c:?}"
    );
    stat
}

#[test]
fn chi_square_sixteen_tokens() {
    let limit = ChiSquared::new(15.0).expect("dof").inverse_cdf(1.0 - 1e-6);
    assert!(
        (56.0..57.0).contains(&limit),
        "the 15-dof 1e-6 quantile is ~56.5, got {limit}"
    );
    for (profile, t, draws) in [
        (NoiseProfile::Exact, 1.0, 1_000_000),
        (NoiseProfile::F64, 1.0, 1_000_000),
        (NoiseProfile::F32, 0.8, 1_000_000),
        (NoiseProfile::Triton, 1.3, 1_000_000),
    ] {
        let raw = RawParams {
            temperature: t,
            seed: 0x5EED_0000 + u64::from(profile.code()),
            position: 1 << 32,
            profile,
            ..RawParams::default()
        };
        chi_square(
            &format!("plain {profile} T={t}"),
            &ROW,
            &LogitBias::None,
            raw,
            draws,
        );
    }
}

#[test]
fn chi_square_filtered_laws() {
    let base = RawParams {
        seed: 20_260_401,
        ..RawParams::default()
    };
    let mask_top = LogitBias::Sparse(vec![
        (0, f32::NEG_INFINITY),
        (3, 1.0),
        (7, -0.5),
        (9, f32::NEG_INFINITY),
        (15, 2.75),
    ]);
    let dense: Vec<f32> = (0..16)
        .map(|i| {
            if i % 5 == 2 {
                f32::NEG_INFINITY
            } else {
                0.1 * i as f32 - 0.6
            }
        })
        .collect();
    let with = |n: u64, raw: RawParams| RawParams {
        seed: base.seed + n,
        ..raw
    };
    let cases: [(&str, RawParams, LogitBias, usize); 6] = [
        (
            "top-k 5",
            with(1, RawParams { top_k: 5, ..base }),
            LogitBias::None,
            1_000_000,
        ),
        (
            "top-p 0.7",
            with(2, RawParams { top_p: 0.7, ..base }),
            LogitBias::None,
            1_000_000,
        ),
        (
            "min-p 0.1",
            with(3, RawParams { min_p: 0.1, ..base }),
            LogitBias::None,
            1_000_000,
        ),
        ("bias with -inf mask", with(4, base), mask_top, 1_000_000),
        (
            "top-p 0.9 f64 T=0.6",
            with(
                5,
                RawParams {
                    top_p: 0.9,
                    temperature: 0.6,
                    profile: NoiseProfile::F64,
                    ..base
                },
            ),
            LogitBias::None,
            1_000_000,
        ),
        (
            "all filters + dense bias",
            with(
                6,
                RawParams {
                    top_k: 9,
                    min_p: 0.05,
                    top_p: 0.95,
                    temperature: 0.8,
                    ..base
                },
            ),
            LogitBias::Dense(dense),
            1_000_000,
        ),
    ];
    for (name, raw, bias, draws) in cases {
        let a = oracle::a_values(&ROW, &bias);
        let kept = oracle::survivors(&a, &raw);
        let unmasked = a.iter().filter(|v| **v > f64::NEG_INFINITY).count();
        assert!(
            kept.len() < 16,
            "{name}: the law must exclude something ({kept:?})"
        );
        if bias == LogitBias::None {
            assert!(
                kept.len() < unmasked,
                "{name}: the filter must cut ({kept:?})"
            );
        }
        chi_square(name, &ROW, &bias, raw, draws);
    }
}
