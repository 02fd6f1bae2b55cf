//! # tailrace-model
//!
//! The CPU reference model of the tailrace sampling spec (`spec/SAMPLER.md`):
//! validated parameters ([`SamplingParams`]), logit bias ([`LogitBias`]), the
//! rank-order filters ([`filter`]), the exponential race with exact noise
//! ([`race`]) and a rayon batch API ([`sample_batch`]).
//!
//! Architecture invariants:
//! - A row's token depends only on its logits, bias and parameters: never on
//!   its batch slot, batch mates, thread count or how the vocabulary is split.
//!   Every reduction is an argmax with smaller-index ties or an exact integer sum.
//! - No platform transcendental: all math comes from `tailrace-noise`.
//! - Bad input never panics: parameters are rejected with [`ParamError`]
//!   before any work, data problems give a per-row [`RowStatus`].
#![deny(missing_docs)]

mod batch;
pub mod filter;
mod logits;
mod params;
pub mod race;

pub use batch::{sample_batch, sample_batch_with, sample_row, BatchOptions, RowRequest};
pub use logits::{Logit, LogitBias};
pub use params::{ParamError, RawParams, SamplingParams, MAX_VOCAB};
pub use race::{RowOutput, RowStatus, NO_TOKEN};
pub use tailrace_noise::NoiseProfile;
