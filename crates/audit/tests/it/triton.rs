//! The triton profile: Megatron's float32 softmax race is accepted within
//! the stated tolerance; a wrong token is not.

use crate::common::*;
use serde_json::json;
use tailrace_audit::replay::{check_line, triton_tolerance, Issue, LineOutcome};
use tailrace_audit::LogitsFile;
use tailrace_noise::profile::triton;

const V: usize = 500;

fn noise(seed: u64, pos: u64, i: usize) -> f32 {
    triton::variate(triton::uniform(triton::word(seed, pos, i as u32)))
}

/// Megatron's race in float32: p = softmax(x / T), argmax(p / E), first index on ties.
fn f32_softmax_race(x: &[f32], t: f32, seed: u64, pos: u64) -> u32 {
    let z: Vec<f32> = x.iter().map(|v| v / t).collect();
    let m = z.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
    let e: Vec<f32> = z.iter().map(|v| (v - m).exp()).collect();
    let sum: f32 = e.iter().sum();
    let mut best = (f32::NEG_INFINITY, 0u32);
    for (i, ei) in e.iter().enumerate() {
        let q = (ei / sum) / noise(seed, pos, i);
        if q > best.0 {
            best = (q, i as u32);
        }
    }
    best.1
}

fn line(t: f32, seed: u64, pos: u64, token: u32) -> String {
    json!({"temperature": t, "profile": "triton", "seed": seed, "position": pos, "token": token})
        .to_string()
}

#[test]
fn triton_float32_race_passes_within_tolerance_and_wrong_token_fails() {
    let dir = tempdir();
    let t = 0.8f32;
    let (seed, pos) = (0x5EED_u64, 4242u64);
    let mut x = random_logits(21, V, 6.0);
    // Exact scores s_i = x_i / T - ln E_i; make token k a near-tie of the winner w
    // (equal up to float32 rounding of its logit).
    let s =
        |x: &[f32], i: usize| f64::from(x[i]) / f64::from(t) - f64::from(noise(seed, pos, i)).ln();
    let w = (0..V)
        .max_by(|&a, &b| s(&x, a).total_cmp(&s(&x, b)))
        .expect("non-empty");
    let k = (w + 7) % V;
    x[k] = ((s(&x, w) + f64::from(noise(seed, pos, k)).ln()) * f64::from(t)) as f32;
    let path = file(&dir, "tri.safetensors");
    write_safetensors(&path, &[Tensor::f32("tri", vec![V], &x)]);
    let logits = LogitsFile::open(&path).expect("opens");

    let megatron = f32_softmax_race(&x, t, seed, pos);
    assert!(megatron == w as u32 || megatron == k as u32);
    let outcomes: Vec<LineOutcome> = [w as u32, k as u32]
        .iter()
        .enumerate()
        .map(|(n, &tok)| check_line(&logits, n as u64 + 1, line(t, seed, pos, tok).as_bytes()))
        .collect();
    // One of the near-tied pair is the model's token, the other passes within tolerance.
    let matches = outcomes
        .iter()
        .filter(|o| matches!(o, LineOutcome::Match { triton: true }))
        .count();
    let within: Vec<_> = outcomes
        .iter()
        .filter_map(|o| match o {
            LineOutcome::WithinTolerance { check, .. } => Some(check),
            _ => None,
        })
        .collect();
    assert_eq!((matches, within.len()), (1, 1), "{outcomes:?}");
    let c = within[0];
    assert!(c.within && c.gap >= 0.0 && c.gap <= c.tolerance, "{c:?}");
    let max_abs = x
        .iter()
        .map(|v| (f64::from(*v) / f64::from(t)).abs())
        .fold(0.0, f64::max);
    assert_eq!(c.tolerance, triton_tolerance(max_abs));

    // Several seeds: the float32 race's token always passes.
    for sd in 0..40u64 {
        let tok = f32_softmax_race(&x, t, sd, pos);
        let o = check_line(&logits, 1, line(t, sd, pos, tok).as_bytes());
        assert!(
            matches!(
                o,
                LineOutcome::Match { .. } | LineOutcome::WithinTolerance { .. }
            ),
            "seed {sd}: {o:?}"
        );
    }

    // A token far down the race fails, with the triton check in the report.
    let worst = (0..V)
        .min_by(|&a, &b| s(&x, a).total_cmp(&s(&x, b)))
        .expect("non-empty") as u32;
    match check_line(&logits, 9, line(t, seed, pos, worst).as_bytes()) {
        LineOutcome::Issue(Issue::Mismatch(m)) => {
            let tc = m.triton.as_ref().expect("triton check");
            assert!(!tc.within && tc.gap > 1.0, "{tc:?}");
            assert!(m.margin.expect("margin") > 0.0);
            let text = Issue::Mismatch(m.clone()).to_string();
            assert!(text.contains("not within tolerance"), "{text}");
        }
        o => panic!("{o:?}"),
    }
}
