//! Logit element types and logit bias. spec: SAMPLER.md §1.

use crate::params::ParamError;
use half::{bf16, f16};

/// A logit element type: converts exactly to binary32.
pub trait Logit: Copy + Send + Sync + 'static {
    /// The exact binary32 value.
    fn to_f32(self) -> f32;
    /// The dtype name (as in safetensors).
    const DTYPE: &'static str;
}

impl Logit for f32 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        self
    }
    const DTYPE: &'static str = "F32";
}

impl Logit for bf16 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        bf16::to_f32(self)
    }
    const DTYPE: &'static str = "BF16";
}

impl Logit for f16 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        f16::to_f32(self)
    }
    const DTYPE: &'static str = "F16";
}

/// An additive logit bias for one row; `-inf` masks a token.
/// spec: SAMPLER.md §1.3.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum LogitBias {
    /// No bias.
    #[default]
    None,
    /// One value per vocabulary entry (row data: NaN or +inf gives the row
    /// a non-finite status rather than an error).
    Dense(Vec<f32>),
    /// (index, value) pairs; validated before sampling.
    Sparse(Vec<(u32, f32)>),
}

impl LogitBias {
    /// Checks the bias against a vocabulary size. spec: SAMPLER.md §2.
    pub fn validate(&self, vocab: usize) -> Result<(), ParamError> {
        match self {
            LogitBias::None => Ok(()),
            LogitBias::Dense(b) if b.len() != vocab => Err(ParamError::BiasShape {
                len: b.len(),
                vocab,
            }),
            LogitBias::Dense(_) => Ok(()),
            LogitBias::Sparse(entries) => {
                let mut seen: Vec<u32> = Vec::with_capacity(entries.len());
                for &(index, value) in entries {
                    if index as usize >= vocab {
                        return Err(ParamError::BiasIndexOutOfRange { index, vocab });
                    }
                    if value.is_nan() || value == f32::INFINITY {
                        return Err(ParamError::InvalidBiasValue { index, value });
                    }
                    seen.push(index);
                }
                seen.sort_unstable();
                if let Some(w) = seen.windows(2).find(|w| w[0] == w[1]) {
                    return Err(ParamError::DuplicateBiasIndex(w[0]));
                }
                Ok(())
            }
        }
    }

    /// Expands to a dense row of length `vocab` (None when there is no bias).
    pub fn to_dense(&self, vocab: usize) -> Option<Vec<f32>> {
        match self {
            LogitBias::None => None,
            LogitBias::Dense(b) => Some(b.clone()),
            LogitBias::Sparse(entries) => {
                let mut d = vec![0.0f32; vocab];
                for &(i, v) in entries {
                    d[i as usize] = v;
                }
                Some(d)
            }
        }
    }
}
