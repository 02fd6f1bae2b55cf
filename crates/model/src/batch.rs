//! The batch API: rows with per-row parameters, parallel over rows and, for
//! small batches, over vocabulary chunks. spec: SAMPLER.md §8.

use crate::logits::{Logit, LogitBias};
use crate::params::{check_vocab, ParamError, SamplingParams};
use crate::race::{Best, PreparedRow, RowData, RowOutput};
use rayon::prelude::*;
use std::ops::Range;

/// One row's request: parameters and bias.
#[derive(Debug, Clone, PartialEq)]
pub struct RowRequest {
    /// Validated parameters.
    pub params: SamplingParams,
    /// Logit bias.
    pub bias: LogitBias,
}

impl From<SamplingParams> for RowRequest {
    fn from(params: SamplingParams) -> Self {
        RowRequest {
            params,
            bias: LogitBias::None,
        }
    }
}

/// How the work is split. Results never depend on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchOptions {
    /// Vocabulary chunk length for splitting a row (rounded up to a multiple of 4; 0 = automatic).
    pub chunk: usize,
    /// Use rayon (false: everything on the calling thread).
    pub parallel: bool,
}

impl Default for BatchOptions {
    fn default() -> Self {
        BatchOptions {
            chunk: 0,
            parallel: true,
        }
    }
}

fn chunks(vocab: usize, chunk: usize) -> Vec<Range<usize>> {
    let c = if chunk == 0 {
        16384
    } else {
        chunk.div_ceil(4) * 4
    };
    (0..vocab)
        .step_by(c)
        .map(|s| s..(s + c).min(vocab))
        .collect()
}

/// Samples one row. spec: SAMPLER.md.
pub fn sample_row<T: Logit>(
    logits: &[T],
    bias: &LogitBias,
    params: &SamplingParams,
) -> Result<RowOutput, ParamError> {
    let req = RowRequest {
        params: *params,
        bias: bias.clone(),
    };
    let out = sample_batch_with(
        BatchOptions::default(),
        logits,
        logits.len(),
        logits.len(),
        &[req],
    )?;
    Ok(out[0])
}

/// Samples every row of a `[rows, vocab]` buffer with row stride `row_stride`
/// (`row_stride == 0`: every row reads the same logits, e.g. one row drawn at
/// many positions).
pub fn sample_batch<T: Logit>(
    logits: &[T],
    vocab: usize,
    row_stride: usize,
    rows: &[RowRequest],
) -> Result<Vec<RowOutput>, ParamError> {
    sample_batch_with(BatchOptions::default(), logits, vocab, row_stride, rows)
}

/// [`sample_batch`] with explicit work splitting (for tests of split invariance).
pub fn sample_batch_with<T: Logit>(
    opts: BatchOptions,
    logits: &[T],
    vocab: usize,
    row_stride: usize,
    rows: &[RowRequest],
) -> Result<Vec<RowOutput>, ParamError> {
    check_vocab(vocab)?;
    if row_stride < vocab && row_stride != 0 {
        return Err(ParamError::Shape(format!(
            "row stride {row_stride} is below vocabulary size {vocab} (0 means every row reads the same logits)"
        )));
    }
    if !rows.is_empty() {
        let need = (rows.len() - 1)
            .checked_mul(row_stride)
            .and_then(|n| n.checked_add(vocab))
            .ok_or_else(|| ParamError::Shape("rows * stride overflows".into()))?;
        if logits.len() < need {
            return Err(ParamError::Shape(format!(
                "{} rows of vocabulary {vocab} with stride {row_stride} need {need} elements, got {}",
                rows.len(),
                logits.len()
            )));
        }
    }
    for (r, req) in rows.iter().enumerate() {
        req.bias.validate(vocab).map_err(|e| ParamError::Row {
            row: r,
            source: Box::new(e),
        })?;
    }
    let ranges = chunks(vocab, opts.chunk);
    let one_row = |r: usize, split: bool| -> RowOutput {
        let req = &rows[r];
        let x = &logits[r * row_stride..r * row_stride + vocab];
        let dense = match &req.bias {
            LogitBias::Sparse(_) => req.bias.to_dense(vocab),
            _ => None,
        };
        let bias = match &req.bias {
            LogitBias::Dense(b) => Some(b.as_slice()),
            LogitBias::Sparse(_) => dense.as_deref(),
            LogitBias::None => None,
        };
        let prep = PreparedRow::new(RowData::new(x, bias), req.params, &ranges, split);
        if let Some(out) = prep.settled() {
            return out;
        }
        let best = if split {
            ranges
                .par_iter()
                .map(|c| prep.race(c.clone()))
                .reduce(|| Best::NONE, Best::merge)
        } else {
            ranges
                .iter()
                .map(|c| prep.race(c.clone()))
                .fold(Best::NONE, Best::merge)
        };
        prep.finish(best)
    };
    if !opts.parallel {
        return Ok((0..rows.len()).map(|r| one_row(r, false)).collect());
    }
    let threads = rayon::current_num_threads();
    if rows.len() >= 2 * threads {
        Ok((0..rows.len())
            .into_par_iter()
            .map(|r| one_row(r, false))
            .collect())
    } else {
        Ok((0..rows.len())
            .into_par_iter()
            .map(|r| one_row(r, true))
            .collect())
    }
}
