//! Bad input: typed rejections before any work, per-row statuses for bad
//! data, neighbours untouched, nothing panics. spec: SAMPLER.md §2, §7.

use super::diff_rows;
use crate::{BatchInput, Ctx, Geometry, Logits, Outcome, Sampler};
use tailrace_model::{
    LogitBias, ParamError, RawParams, RowOutput, RowRequest, RowStatus, SamplingParams,
};

pub(super) fn invalid_params_rejected(_: &Ctx, b: &dyn Sampler) -> Outcome {
    let base = RawParams::default();
    type IsExpected = fn(&ParamError) -> bool;
    let param_cases: Vec<(RawParams, IsExpected)> = vec![
        (
            RawParams {
                temperature: f64::NAN,
                ..base
            },
            |e| matches!(e, ParamError::InvalidTemperature(_)),
        ),
        (
            RawParams {
                temperature: -0.5,
                ..base
            },
            |e| matches!(e, ParamError::InvalidTemperature(_)),
        ),
        (
            RawParams {
                temperature: f64::INFINITY,
                ..base
            },
            |e| matches!(e, ParamError::InvalidTemperature(_)),
        ),
        (RawParams { top_p: 0.0, ..base }, |e| {
            matches!(e, ParamError::InvalidTopP(_))
        }),
        (RawParams { top_p: 1.5, ..base }, |e| {
            matches!(e, ParamError::InvalidTopP(_))
        }),
        (
            RawParams {
                top_p: f64::NAN,
                ..base
            },
            |e| matches!(e, ParamError::InvalidTopP(_)),
        ),
        (
            RawParams {
                min_p: -0.1,
                ..base
            },
            |e| matches!(e, ParamError::InvalidMinP(_)),
        ),
        (
            RawParams {
                min_p: 1.01,
                ..base
            },
            |e| matches!(e, ParamError::InvalidMinP(_)),
        ),
        (
            RawParams {
                min_p: f64::NAN,
                ..base
            },
            |e| matches!(e, ParamError::InvalidMinP(_)),
        ),
    ];
    for (raw, ok) in &param_cases {
        match SamplingParams::new(*raw) {
            Err(e) if ok(&e) => {}
            other => {
                return Outcome::violated(format!(
                    "{raw:?}: expected its typed error, got {other:?}"
                ))
            }
        }
    }
    // Batch-level input, through the backend: each must be an error, not a panic and not output.
    let good: RowRequest = SamplingParams::new(base).expect("valid").into();
    let row = |bias: LogitBias| RowRequest {
        params: good.params,
        bias,
    };
    let batch = |v: usize, stride: usize, n: usize, rows: Vec<RowRequest>| BatchInput {
        logits: Logits::F32(vec![0.5; n]),
        vocab: v,
        stride,
        rows,
    };
    let batch_cases: Vec<(&str, BatchInput)> = vec![
        ("vocabulary 0", batch(0, 0, 4, vec![good.clone()])),
        (
            "stride below vocabulary",
            batch(8, 4, 64, vec![good.clone(), good.clone()]),
        ),
        (
            "logits buffer too short",
            batch(8, 8, 12, vec![good.clone(), good.clone()]),
        ),
        (
            "sparse bias index out of range",
            batch(8, 8, 8, vec![row(LogitBias::Sparse(vec![(8, 1.0)]))]),
        ),
        (
            "duplicate sparse bias index",
            batch(
                8,
                8,
                8,
                vec![row(LogitBias::Sparse(vec![(2, 1.0), (2, 2.0)]))],
            ),
        ),
        (
            "NaN sparse bias value",
            batch(8, 8, 8, vec![row(LogitBias::Sparse(vec![(2, f32::NAN)]))]),
        ),
        (
            "+inf sparse bias value",
            batch(
                8,
                8,
                8,
                vec![row(LogitBias::Sparse(vec![(2, f32::INFINITY)]))],
            ),
        ),
        (
            "dense bias of the wrong length",
            batch(8, 8, 8, vec![row(LogitBias::Dense(vec![0.0; 7]))]),
        ),
    ];
    for (what, input) in &batch_cases {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            b.sample(input, Geometry::default())
        }));
        match r {
            Err(_) => return Outcome::violated(format!("{what}: the backend panicked")),
            Ok(Ok(out)) => return Outcome::violated(format!("{what}: accepted, returned {out:?}")),
            Ok(Err(e)) if e.downcast_ref::<ParamError>().is_none() => {
                return Outcome::violated(format!(
                    "{what}: rejected, but not with a typed ParamError: {e:#}"
                ))
            }
            Ok(Err(_)) => {}
        }
    }
    Outcome::verified(format!(
        "{} invalid parameters and {} invalid batches each rejected with their typed error, no panic",
        param_cases.len(),
        batch_cases.len()
    ))
}

pub(super) fn nonfinite_row_isolated(_: &Ctx, b: &dyn Sampler) -> Outcome {
    let v = 1000;
    let clean = |k: usize| -> Vec<f32> {
        (0..v)
            .map(|i| ((i * 7919 + k * 104729) % 1000) as f32 * 0.01)
            .collect()
    };
    let mut rows: Vec<(Vec<f32>, LogitBias, Option<RowStatus>)> = Vec::new();
    let mut x = clean(1);
    x[17] = f32::NAN;
    rows.push((x, LogitBias::None, Some(RowStatus::NonFiniteLogit)));
    let mut x = clean(2);
    x[999] = f32::INFINITY;
    rows.push((x, LogitBias::None, Some(RowStatus::NonFiniteLogit)));
    let mut bias = vec![0.0; v];
    bias[3] = f32::NAN;
    rows.push((
        clean(3),
        LogitBias::Dense(bias),
        Some(RowStatus::NonFiniteLogit),
    ));
    let mut x = clean(4);
    x[5] = f32::INFINITY;
    let mut bias = vec![0.0; v];
    bias[5] = f32::NEG_INFINITY;
    rows.push((x, LogitBias::Dense(bias), Some(RowStatus::NonFiniteLogit)));
    rows.push((
        vec![f32::NEG_INFINITY; v],
        LogitBias::None,
        Some(RowStatus::AllMasked),
    ));
    let mut x = vec![f32::NEG_INFINITY; v];
    x[0] = f32::NAN;
    rows.push((x, LogitBias::None, Some(RowStatus::NonFiniteLogit)));
    rows.push((
        clean(5),
        LogitBias::Sparse((0..v as u32).map(|i| (i, f32::NEG_INFINITY)).collect()),
        Some(RowStatus::AllMasked),
    ));
    for k in 0..6 {
        rows.push((clean(10 + k), LogitBias::None, None));
    }
    // Interleave clean and bad rows.
    let order: Vec<usize> = vec![7, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 6];
    let params: Vec<SamplingParams> = (0..rows.len() as u64)
        .map(|k| {
            SamplingParams::new(RawParams {
                temperature: if k % 4 == 0 { 0.0 } else { 0.9 },
                seed: k,
                position: 3 * k,
                ..RawParams::default()
            })
            .expect("valid")
        })
        .collect();
    let logits: Vec<f32> = order
        .iter()
        .flat_map(|&r| rows[r].0.iter().copied())
        .collect();
    let reqs: Vec<RowRequest> = order
        .iter()
        .map(|&r| RowRequest {
            params: params[r],
            bias: rows[r].1.clone(),
        })
        .collect();
    let input = BatchInput {
        logits: Logits::F32(logits),
        vocab: v,
        stride: v,
        rows: reqs,
    };
    let out = match b.sample(&input, Geometry::default()) {
        Ok(o) => o,
        Err(e) => {
            return Outcome::violated(format!("backend error on a batch with bad rows: {e:#}"))
        }
    };
    for (slot, &r) in order.iter().enumerate() {
        let o = out[slot];
        match rows[r].2 {
            Some(st) => {
                if o != RowOutput::failed(st) {
                    return Outcome::violated(format!(
                        "bad row {r} at slot {slot}: expected {:?}, got {o:?}",
                        RowOutput::failed(st)
                    ));
                }
            }
            None => {
                let alone = match b.sample(&input.select(&[slot]), Geometry::default()) {
                    Ok(a) => a,
                    Err(e) => return Outcome::violated(format!("backend error: {e:#}")),
                };
                if let Some(d) = diff_rows(&alone, &out[slot..slot + 1]) {
                    return Outcome::violated(format!(
                        "clean row {r} changed next to bad rows: {d}"
                    ));
                }
                if o.status != RowStatus::Ok {
                    return Outcome::violated(format!("clean row {r}: {o:?}"));
                }
            }
        }
    }
    Outcome::verified("7 bad rows (NaN, +inf, NaN bias, +inf-inf, all masked) flagged with their status; 6 clean neighbours equal their solo outputs")
}
