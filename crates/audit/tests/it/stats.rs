//! The statistical audits on draws from the model (must pass) and from
//! broken samplers (must fail).

use crate::common::*;
use tailrace_audit::chisq::{chi_square_audit, exact_law};
use tailrace_audit::draws::Counts;
use tailrace_audit::tail::{tail_audit, TailObservation, TailRow, TailVerdict};
use tailrace_model::{LogitBias, NoiseProfile, RawParams, SamplingParams};

fn params(raw: RawParams) -> SamplingParams {
    SamplingParams::new(raw).expect("valid")
}

#[test]
fn tail_audit_passes_model_draws_and_fails_a_truncated_sampler() {
    let vocab = 1024;
    let mut cells = Vec::new();
    let mut truncated = Vec::new();
    for (j, (r, n)) in [(1e-4, 20_000usize), (1e-5, 40_000)]
        .into_iter()
        .enumerate()
    {
        let row = TailRow::new(vocab, r).expect("valid row");
        let p = params(RawParams {
            seed: 0x7A11 + j as u64,
            ..RawParams::default()
        });
        let tokens = model_draws(&row.logits(), p, n);
        let misses = tokens.iter().filter(|&&t| t != 0).count() as u64;
        cells.push((
            row,
            TailObservation {
                draws: n as u64,
                misses,
            },
        ));
        // A sampler whose noise cannot reach the tail never misses.
        truncated.push((
            row,
            TailObservation {
                draws: n as u64,
                misses: 0,
            },
        ));
    }
    let audit = tail_audit(&cells).expect("audit");
    assert!(audit.pass, "{}", audit.to_markdown());
    assert_eq!(audit.alpha_per_cell, 1e-6 / 2.0);
    let md = audit.to_markdown();
    assert!(
        md.contains("| r = e^-D |") && md.contains("**Verdict: PASS**"),
        "{md}"
    );
    for c in &audit.cells {
        assert!(c.interval.0 <= c.observed && c.observed <= c.interval.1);
    }

    let bad = tail_audit(&truncated).expect("audit");
    assert!(!bad.pass);
    assert!(bad.cells.iter().all(|c| c.verdict == TailVerdict::Below));
    let md = bad.to_markdown();
    assert!(
        md.contains("BELOW the interval") && md.contains("**Verdict: FAIL**"),
        "{md}"
    );
    let json = serde_json::to_value(&bad).expect("json");
    assert_eq!(json["pass"], false);
    assert_eq!(json["cells"][0]["verdict"], "below");
}

#[test]
fn tail_row_uses_the_float32_depth() {
    let row = TailRow::new(131072, 1e-9).expect("valid");
    assert_eq!(row.d_used, (-(1e-9f64).ln()) as f32);
    assert_ne!(row.r_used, 1e-9);
    let q = 131071.0 * row.r_used;
    assert_eq!(row.miss_rate, q / (1.0 + q));
    // the Megatron PR's cell: 1e6 draws at r = 1e-9 expect about 131
    let e = 1e6 * row.miss_rate;
    assert!((130.0..133.0).contains(&e), "{e}");
    assert!(TailRow::new(1, 0.1).is_err());
    assert!(TailRow::new(10, 0.0).is_err());
    assert!(TailRow::new(10, f64::NAN).is_err());
}

fn sixteen() -> Vec<f32> {
    (0..16)
        .map(|i| (i as f32 * 0.37).sin() * 2.0 - (i as f32) * 0.15)
        .collect()
}

#[test]
fn chi_square_passes_model_draws_and_fails_a_biased_histogram() {
    let x = sixteen();
    let p = params(RawParams {
        temperature: 0.8,
        top_k: 12,
        seed: 0xC415,
        profile: NoiseProfile::F64,
        ..RawParams::default()
    });
    let law = exact_law(&x, &LogitBias::None, &p).expect("law");
    assert_eq!(law.survivors.len(), 12);
    let counts = Counts::from_tokens(model_draws(&x, p, 30_000));
    let audit = chi_square_audit(&law, &p, &counts, "sixteen".into()).expect("audit");
    assert!(audit.pass, "{}", audit.to_markdown());
    assert!(audit.violations.is_empty());
    assert!(audit.dof >= 10 && audit.statistic < audit.quantile);
    assert!(audit.to_markdown().contains("**Verdict: PASS**"));

    // Move 3% of the draws from the most likely token to the least likely survivor.
    let top = *counts
        .by_token
        .iter()
        .max_by_key(|(_, &n)| n)
        .expect("draws")
        .0;
    let low = law.survivors[law
        .probs
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.total_cmp(b.1))
        .expect("survivors")
        .0];
    let mut biased = counts.clone();
    let moved = counts.total * 3 / 100;
    *biased.by_token.get_mut(&top).expect("top") -= moved;
    *biased.by_token.entry(low).or_insert(0) += moved;
    let audit = chi_square_audit(&law, &p, &biased, "sixteen".into()).expect("audit");
    assert!(
        !audit.pass && audit.statistic > audit.quantile,
        "{}",
        audit.to_markdown()
    );
    assert!(audit.to_markdown().contains("ABOVE the quantile"));

    // A filtered-out token drawn once is a violation.
    let outside = (0..16u32)
        .find(|t| law.survivors.binary_search(t).is_err())
        .expect("filtered");
    let mut leaked = counts.clone();
    leaked.add(outside, 1);
    let audit = chi_square_audit(&law, &p, &leaked, "sixteen".into()).expect("audit");
    assert!(!audit.pass);
    assert_eq!(audit.violations.len(), 1);
    assert_eq!(audit.violations[0].token, outside);
    assert!(audit.to_markdown().contains("Violations"));
}

#[test]
fn chi_square_pools_small_cells() {
    let x = random_logits(3, 2000, 10.0);
    let p = params(RawParams {
        temperature: 1.0,
        top_p: 0.95,
        min_p: 0.001,
        seed: 99,
        ..RawParams::default()
    });
    let law = exact_law(&x, &LogitBias::Sparse(vec![(0, f32::NEG_INFINITY)]), &p).expect("law");
    assert!(law.survivors.binary_search(&0).is_err());
    // the model's draws with the same bias
    let rows: Vec<tailrace_model::RowRequest> = (0..8000u64)
        .map(|pos| tailrace_model::RowRequest {
            params: p.at_position(pos),
            bias: LogitBias::Sparse(vec![(0, f32::NEG_INFINITY)]),
        })
        .collect();
    let tokens = tailrace_model::sample_batch(&x, x.len(), 0, &rows).expect("batch");
    let counts = Counts::from_tokens(tokens.iter().map(|o| o.token));
    let audit = chi_square_audit(&law, &p, &counts, "random".into()).expect("audit");
    assert!(audit.pooled_cells > 0, "{}", audit.to_markdown());
    assert!(audit.pass, "{}", audit.to_markdown());

    // greedy: a point mass, no statistic, only violations count
    let g = params(RawParams {
        temperature: 0.0,
        ..RawParams::default()
    });
    let law = exact_law(&x, &LogitBias::None, &g).expect("law");
    assert_eq!(law.survivors.len(), 1);
    let ok = Counts::from_tokens(vec![law.survivors[0]; 10]);
    let a = chi_square_audit(&law, &g, &ok, "g".into()).expect("audit");
    assert!(a.pass && a.dof == 0 && a.note.is_some());
    let mut bad = ok.clone();
    bad.add(law.survivors[0] + 1, 1);
    assert!(
        !chi_square_audit(&law, &g, &bad, "g".into())
            .expect("audit")
            .pass
    );

    // invalid parameters and rows: typed errors
    let e = exact_law(&x, &LogitBias::Sparse(vec![(5000, 1.0)]), &p).expect_err("bias");
    assert!(
        e.to_string()
            .contains("logit bias index 5000 is out of range"),
        "{e}"
    );
    let mut nan = x.clone();
    nan[1] = f32::NAN;
    assert!(exact_law(&nan, &LogitBias::None, &p).is_err());
}
