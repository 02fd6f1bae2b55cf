//! # tailrace-cuda
//!
//! The CUDA backend of the tailrace sampling spec: a fused exponential-race
//! sampler that returns, for every row, the same token and status as the CPU
//! reference model (`tailrace_model::sample_batch`), bit for bit.
//!
//! - [`Sampler`] owns a stream, the kernels (compiled at run time by NVRTC for
//!   the device's architecture, once per process) and a reusable workspace.
//!   [`Sampler::sample`] queues the work asynchronously (no host sync, CUDA
//!   graph capturable); [`Sampler::sample_host`] uploads, samples, downloads.
//! - [`DeviceParams`] holds per-row parameters validated on the host by the
//!   CPU model's own checks ([`tailrace_model::ParamError`]).
//! - The kernels live in `kernels/*.cu[h]`; `docs/cuda-notes.md` explains the
//!   design (chunked rows, lead-word bound, exact radix filters) and its speed.
//!
//! Architecture invariants:
//! - A row's result depends only on its logits, bias and parameters: never on
//!   batch slot, batch mates or launch geometry ([`LaunchOptions`]). Every
//!   reduction is an argmax with smaller-index ties or an exact integer sum.
//! - The device computes every value with the CPU model's operation sequence
//!   (explicit correctly rounded intrinsics, fmad off); spec constants come
//!   from `tailrace-noise` through a generated prelude.
//! - Missing libcuda/libnvrtc is a typed [`CudaError`], never a panic.
#![deny(missing_docs)]

pub mod debug;
mod error;
pub mod kernels;
mod launch;
mod params;
mod sampler;

pub use error::{CudaError, Result};
pub use launch::{
    topp_late_trigger, Geometry, LaunchOptions, ToppTrigger, SAMPLE_ARGS_BYTES, TOPP_LATE_ROWS,
};
pub use params::{bias_kind, DeviceParams, PackedParams};
pub use sampler::{DeviceLogits, DeviceOutput, Dtype, HostLogit, RecordedCut, Sampler};
