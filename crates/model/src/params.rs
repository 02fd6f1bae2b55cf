//! Sampling parameters and their validation. spec: SAMPLER.md §2.

use serde::{Deserialize, Serialize};
use tailrace_noise::NoiseProfile;

/// Largest supported vocabulary (indices fit in 31 bits). spec: SAMPLER.md §1.
pub const MAX_VOCAB: usize = 1 << 31;

/// A rejected parameter. Every variant names the offending value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParamError {
    /// Temperature is NaN, infinite or negative.
    #[error("invalid temperature {0}: must be finite and >= 0")]
    InvalidTemperature(f64),
    /// top-p outside (0, 1].
    #[error("invalid top-p {0}: must be in (0, 1] (1 disables it)")]
    InvalidTopP(f64),
    /// min-p outside [0, 1].
    #[error("invalid min-p {0}: must be in [0, 1] (0 disables it)")]
    InvalidMinP(f64),
    /// Vocabulary size 0 or above [`MAX_VOCAB`].
    #[error("invalid vocabulary size {0}: must be in 1..=2^31")]
    InvalidVocab(usize),
    /// A sparse bias index is not below the vocabulary size.
    #[error("logit bias index {index} is out of range for vocabulary size {vocab}")]
    BiasIndexOutOfRange {
        /// The index.
        index: u32,
        /// The vocabulary size.
        vocab: usize,
    },
    /// The same index appears twice in a sparse bias.
    #[error("logit bias index {0} appears more than once")]
    DuplicateBiasIndex(u32),
    /// A sparse bias value is NaN or +inf (-inf is a mask and allowed).
    #[error("logit bias value {value} at index {index} is invalid: must be finite or -inf")]
    InvalidBiasValue {
        /// The index.
        index: u32,
        /// The value.
        value: f32,
    },
    /// A dense bias row whose length is not the vocabulary size.
    #[error("dense logit bias has {len} entries, vocabulary size is {vocab}")]
    BiasShape {
        /// Its length.
        len: usize,
        /// The vocabulary size.
        vocab: usize,
    },
    /// A logits buffer that does not hold the rows it is said to hold.
    #[error("logits shape mismatch: {0}")]
    Shape(String),
    /// A problem with one row of a batch.
    #[error("row {row}: {source}")]
    Row {
        /// The row.
        row: usize,
        /// What is wrong with it.
        #[source]
        source: Box<ParamError>,
    },
}

/// Unvalidated parameters as a user writes them (serde-friendly).
/// `top_k = 0`, `top_p = 1` and `min_p = 0` disable the filter.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RawParams {
    /// Temperature; 0 selects greedy decoding.
    pub temperature: f64,
    /// Keep the k best tokens (0 = off).
    pub top_k: u32,
    /// Keep the smallest rank-order prefix with at least this mass (1 = off).
    pub top_p: f64,
    /// Keep tokens whose probability is at least `min_p` times the top one (0 = off).
    pub min_p: f64,
    /// Request seed.
    pub seed: u64,
    /// Absolute position of the token being drawn.
    pub position: u64,
    /// Noise profile.
    pub profile: NoiseProfile,
}

impl Default for RawParams {
    fn default() -> Self {
        RawParams {
            temperature: 1.0,
            top_k: 0,
            top_p: 1.0,
            min_p: 0.0,
            seed: 0,
            position: 0,
            profile: NoiseProfile::Exact,
        }
    }
}

/// Validated sampling parameters: cannot hold an invalid value.
/// spec: SAMPLER.md §2.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SamplingParams {
    temperature: f64,
    top_k: Option<u32>,
    top_p: Option<f64>,
    min_p: Option<f64>,
    seed: u64,
    position: u64,
    profile: NoiseProfile,
}

impl TryFrom<RawParams> for SamplingParams {
    type Error = ParamError;
    fn try_from(r: RawParams) -> Result<Self, ParamError> {
        SamplingParams::new(r)
    }
}

impl SamplingParams {
    /// Validates `raw`. spec: SAMPLER.md §2.
    pub fn new(raw: RawParams) -> Result<Self, ParamError> {
        let t = raw.temperature;
        if !(t.is_finite() && t >= 0.0) {
            return Err(ParamError::InvalidTemperature(t));
        }
        if !(raw.top_p > 0.0 && raw.top_p <= 1.0) {
            return Err(ParamError::InvalidTopP(raw.top_p));
        }
        if !(raw.min_p >= 0.0 && raw.min_p <= 1.0) {
            return Err(ParamError::InvalidMinP(raw.min_p));
        }
        Ok(SamplingParams {
            temperature: if t == 0.0 { 0.0 } else { t },
            top_k: (raw.top_k != 0).then_some(raw.top_k),
            top_p: (raw.top_p < 1.0).then_some(raw.top_p),
            min_p: (raw.min_p > 0.0).then_some(raw.min_p),
            seed: raw.seed,
            position: raw.position,
            profile: raw.profile,
        })
    }

    /// Plain temperature sampling with the `exact` profile.
    pub fn temperature(temperature: f64, seed: u64, position: u64) -> Result<Self, ParamError> {
        Self::new(RawParams {
            temperature,
            seed,
            position,
            ..RawParams::default()
        })
    }

    /// The parameters as raw values (the inverse of [`SamplingParams::new`]).
    pub fn raw(&self) -> RawParams {
        RawParams {
            temperature: self.temperature,
            top_k: self.top_k.unwrap_or(0),
            top_p: self.top_p.unwrap_or(1.0),
            min_p: self.min_p.unwrap_or(0.0),
            seed: self.seed,
            position: self.position,
            profile: self.profile,
        }
    }

    /// The same parameters at another position.
    pub fn at_position(mut self, position: u64) -> Self {
        self.position = position;
        self
    }

    /// The same parameters with another seed.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The same parameters with another noise profile.
    pub fn with_profile(mut self, profile: NoiseProfile) -> Self {
        self.profile = profile;
        self
    }

    /// Temperature (0 means greedy).
    pub fn temp(&self) -> f64 {
        self.temperature
    }
    /// top-k, if on.
    pub fn top_k(&self) -> Option<u32> {
        self.top_k
    }
    /// top-p, if on (always < 1).
    pub fn top_p(&self) -> Option<f64> {
        self.top_p
    }
    /// min-p, if on (always > 0).
    pub fn min_p(&self) -> Option<f64> {
        self.min_p
    }
    /// Request seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// Absolute position.
    pub fn position(&self) -> u64 {
        self.position
    }
    /// Noise profile.
    pub fn profile(&self) -> NoiseProfile {
        self.profile
    }

    /// Greedy decoding: T == 0 or top-k == 1. spec: SAMPLER.md §4.
    pub fn is_greedy(&self) -> bool {
        self.temperature == 0.0 || self.top_k == Some(1)
    }

    /// Whether any filter (top-k, min-p, top-p) is on.
    pub fn has_filter(&self) -> bool {
        self.top_k.is_some() || self.top_p.is_some() || self.min_p.is_some()
    }
}

/// Checks a vocabulary size. spec: SAMPLER.md §1.
pub fn check_vocab(vocab: usize) -> Result<(), ParamError> {
    if vocab == 0 || vocab > MAX_VOCAB {
        Err(ParamError::InvalidVocab(vocab))
    } else {
        Ok(())
    }
}
