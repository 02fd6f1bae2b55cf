//! # tailrace-audit
//!
//! Tools for someone auditing a sampling deployment (guide: `docs/audit.md`):
//!
//! - [`replay`]: recompute logged tokens with the CPU reference model. Each
//!   JSONL line names a logits row in a safetensors file ([`LogitsFile`]), the
//!   sampling parameters, seed, position and the observed token; every
//!   mismatch is reported with the race scores of both tokens. Streams any
//!   input size in bounded memory, in parallel, in input order.
//! - [`tail`]: the tail-rate audit of draws from *any* sampler on rows
//!   `[0, -D, ..., -D]`: miss counts against the exact law, two-sided Poisson
//!   p-values (the table of the Megatron-LM fp64 sampling-noise change).
//! - [`chisq`]: a chi-square audit of draws from an arbitrary logits row
//!   against the filtered exact law (survivors from the model's filters).
//! - [`draws`]: readers for observed draws (JSON tokens, counts or miss
//!   counts; `.npy` 1-D integer arrays).
//!
//! Architecture invariants: the audited law and the recomputed tokens come
//! from `tailrace-model` only (no second implementation of the sampler);
//! nothing panics on user input: every problem is an [`AuditError`] naming
//! the input and the line, index or position; results computed before an
//! error are kept (a replay reports the lines checked so far).
#![deny(missing_docs)]

pub mod chisq;
pub mod draws;
mod error;
mod logits;
pub mod replay;
pub mod stats;
pub mod tail;

pub use error::AuditError;
pub use logits::{LogitsFile, LogitsRow, TensorInfo};

/// Significance of every audit verdict: a sampler that follows the exact law
/// fails an audit with probability at most this (two-sided, after Bonferroni
/// across the cells of one run).
pub const ALPHA: f64 = 1e-6;
