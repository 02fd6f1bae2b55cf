//! # tailrace-noise
//!
//! The randomness of the tailrace sampling spec, and the deterministic math it
//! needs: Philox4x32-10 ([`philox`]), binary64 `ln`/`log1p`/`exp` from IEEE
//! operations only ([`math`]), a bit-exact reproduction of CUDA's float32
//! `logf` ([`libdevice`]), and the four noise profiles that turn
//! (seed, position, vocabulary index) into an exponential variate `E` and its
//! logarithm ([`profile`]).
//!
//! This crate is `no_std`-shaped: no allocation on any hot path, no platform
//! transcendental anywhere. Everything in it is normative: `spec/NOISE.md`
//! and `spec/NUMERICS.md` define each function bit for bit.
#![deny(missing_docs)]

pub mod libdevice;
pub mod math;
pub mod philox;
pub mod profile;

pub use profile::{NoiseDraw, NoiseProfile};
