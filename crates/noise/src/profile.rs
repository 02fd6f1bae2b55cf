//! Noise profiles: how (seed, position, vocabulary index) becomes an
//! exponential variate `E` and its logarithm. spec: NOISE.md §2-§6.

use crate::libdevice;
use crate::math;
use crate::philox::{philox4x32_10, seed_key, Counter};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Which noise feeds the exponential race. spec: NOISE.md §3.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NoiseProfile {
    /// 128-bit uniform, `E` to full binary64 accuracy (tail to ~89 nats). The default.
    #[default]
    Exact,
    /// 52-bit midpoint uniform from two Philox words (tail to ~36.7 nats).
    F64,
    /// 24-bit uniform, `E` rounded to binary32 (tail to ~16.6 nats), like torch's float32 race.
    F32,
    /// The Megatron/Triton request-seed layout with libdevice `logf`: binary32 uniforms
    /// (smallest noise 2^-24, tail to ~16.6 nats; largest noise 21.5, or 87.3 at the
    /// clamped zero).
    Triton,
}

impl NoiseProfile {
    /// Every profile, in spec order.
    pub const ALL: [NoiseProfile; 4] = [Self::Exact, Self::F64, Self::F32, Self::Triton];

    /// The profile's name as written in the spec and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Exact => "exact",
            Self::F64 => "f64",
            Self::F32 => "f32",
            Self::Triton => "triton",
        }
    }

    /// The numeric code used in device parameter arrays. spec: NOISE.md §3.
    pub fn code(self) -> u32 {
        match self {
            Self::Exact => 0,
            Self::F64 => 1,
            Self::F32 => 2,
            Self::Triton => 3,
        }
    }
}

impl fmt::Display for NoiseProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown profile name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown noise profile {0:?} (expected one of: exact, f64, f32, triton)")]
pub struct UnknownProfile(pub String);

impl FromStr for NoiseProfile {
    type Err = UnknownProfile;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| UnknownProfile(s.to_owned()))
    }
}

/// Stream tags: word 3 of every Philox counter. spec: NOISE.md §2.
pub mod tag {
    /// The Megatron/Triton layout (its word 3 is zero).
    pub const TRITON: u32 = 0;
    /// `exact`: 16-bit leads, one block per eight vocabulary indices.
    pub const EXACT_LEAD: u32 = 1;
    /// `exact`: the tail words of one index (three and a half).
    pub const EXACT_TAIL: u32 = 2;
    /// `f64`: two words of one index.
    pub const F64: u32 = 3;
    /// `f32`: one word of one index.
    pub const F32: u32 = 4;
}

/// The Philox counter `(c0, position low, position high, tag)`. spec: NOISE.md §2.
#[inline(always)]
pub fn counter(c0: u32, position: u64, tag: u32) -> Counter {
    [c0, position as u32, (position >> 32) as u32, tag]
}

/// Philox block for `(seed, c0, position, tag)`.
#[inline(always)]
pub fn block(seed: u64, c0: u32, position: u64, tag: u32) -> [u32; 4] {
    philox4x32_10(counter(c0, position, tag), seed_key(seed))
}

/// 2^-129.
const TWO_M129: f64 = f64::from_bits((1023 - 129) << 52);
/// 2^-53.
const TWO_M53: f64 = f64::from_bits((1023 - 53) << 52);
/// 2^-24 (binary32).
const TWO_M24_F32: f32 = f32::from_bits((127 - 24) << 23);

/// The `exact` profile. spec: NOISE.md §4.
pub mod exact {
    use super::*;

    /// Indices sharing one lead block: each takes a 16-bit half-word of it.
    pub const LEADS_PER_BLOCK: u32 = 8;

    /// The lead block of indices `8b .. 8b+7`.
    #[inline(always)]
    pub fn lead_block(seed: u64, position: u64, b: u32) -> [u32; 4] {
        block(seed, b, position, tag::EXACT_LEAD)
    }

    /// The lead of `index` within its lead block: half `index & 1` (low half
    /// for even indices) of word `(index >> 1) & 3`. spec: NOISE.md §4.1.
    #[inline(always)]
    pub fn lead_in_block(block: [u32; 4], index: u32) -> u16 {
        (block[((index >> 1) & 3) as usize] >> (16 * (index & 1))) as u16
    }

    /// The lead (most significant 16 bits of the grid point) of `index`.
    #[inline(always)]
    pub fn lead(seed: u64, position: u64, index: u32) -> u16 {
        lead_in_block(lead_block(seed, position, index >> 3), index)
    }

    /// The tail block of `index`: its four words give the grid point's
    /// low 112 bits (word 3 its high half only).
    #[inline(always)]
    pub fn tail_words(seed: u64, position: u64, index: u32) -> [u32; 4] {
        block(seed, index, position, tag::EXACT_TAIL)
    }

    /// The 128-bit grid point `k = h·2^112 + t0·2^80 + t1·2^48 + t2·2^16 +
    /// ⌊t3/2^16⌋`; the uniform is `(k + 1/2) / 2^128`. spec: NOISE.md §4.2.
    #[inline(always)]
    pub fn grid_point(lead: u16, tail: [u32; 4]) -> u128 {
        (u128::from(lead) << 112)
            | (u128::from(tail[0]) << 80)
            | (u128::from(tail[1]) << 48)
            | (u128::from(tail[2]) << 16)
            | u128::from(tail[3] >> 16)
    }

    /// The uniform `(k + 1/2) / 2^128` rounded to binary64 (for display).
    pub fn uniform(k: u128) -> f64 {
        if k >> 127 == 0 {
            ((2 * k + 1) as f64) * TWO_M129
        } else {
            1.0 - ((2 * !k + 1) as f64) * TWO_M129
        }
    }

    /// `E = -ln(1 - U)` for the grid point `k`, evaluated two-sided.
    /// spec: NOISE.md §4.3.
    #[inline(always)]
    pub fn variate(k: u128) -> f64 {
        if k >> 127 == 0 {
            let v = ((2 * k + 1) as f64) * TWO_M129;
            -math::log1p(-v)
        } else {
            let w = ((2 * !k + 1) as f64) * TWO_M129;
            -math::ln(w)
        }
    }

    /// `ln E` for the grid point `k`: the race's noise term.
    #[inline(always)]
    pub fn ln_variate(k: u128) -> f64 {
        math::ln(variate(k))
    }

    /// A lower bound of `e + m` <= log2(x) for x >= 1 read off the binary64
    /// bits (exponent plus mantissa fraction; the gap is at most 0.0861).
    #[inline(always)]
    fn log2_lower(x: u64) -> f64 {
        let b = (x as f64).to_bits() >> 20;
        (b as f64) * f64::from_bits((1023 - 32) << 52) - 1023.0
    }

    /// Slack that covers every rounding in [`ln_variate`] and in the bound itself.
    const BOUND_SLACK: f64 = 1.0 / (1u64 << 30) as f64;

    /// A lower bound on the computed [`ln_variate`] of every grid point whose
    /// top 32 bits are `prefix` (`lower32`, NOISE.md §4.4). Non-decreasing in
    /// `prefix`.
    #[inline(always)]
    pub fn prefix_lower_bound(prefix: u32) -> f64 {
        if prefix == 0 {
            -129.0 * std::f64::consts::LN_2 - BOUND_SLACK
        } else {
            (log2_lower(u64::from(prefix)) - 32.0) * std::f64::consts::LN_2 - BOUND_SLACK
        }
    }

    /// An upper bound on the computed [`ln_variate`] of every grid point whose
    /// top 32 bits are `prefix` (`upper32`, NOISE.md §4.4). Non-decreasing in
    /// `prefix`.
    #[inline(always)]
    pub fn prefix_upper_bound(prefix: u32) -> f64 {
        if prefix >= (1 << 31) - 1 {
            // E <= -ln(2^-129) = 89.42, ln 89.42 = 4.4934.
            4.5
        } else {
            let hi = u64::from(prefix) + 1;
            let v_hi = hi as f64 * f64::from_bits((1023 - 32) << 52);
            (log2_lower(hi) + 0.0861 - 32.0) * std::f64::consts::LN_2 + 2.0 * v_hi + BOUND_SLACK
        }
    }

    /// The smallest prefix of a grid point with this lead: `lead·2^16`.
    #[inline(always)]
    pub fn lead_prefix(lead: u16) -> u32 {
        u32::from(lead) << 16
    }

    /// A lower bound on the computed [`ln_variate`] of every grid point whose
    /// lead is `lead`: the prefix bound of its smallest prefix. spec: NOISE.md
    /// §4.4 (not normative: an implementation may prune with it because it
    /// never excludes a winner).
    #[inline(always)]
    pub fn ln_variate_lower_bound(lead: u16) -> f64 {
        prefix_lower_bound(lead_prefix(lead))
    }

    /// An upper bound on the computed [`ln_variate`] of every grid point whose
    /// lead is `lead`: the prefix bound of its largest prefix.
    #[inline(always)]
    pub fn ln_variate_upper_bound(lead: u16) -> f64 {
        prefix_upper_bound(lead_prefix(lead) | 0xFFFF)
    }
}

/// The `f64` profile: 52-bit midpoint uniform `u = (k + 1/2) / 2^52`,
/// `E = -ln(u)`. spec: NOISE.md §5.
pub mod f64p {
    use super::*;

    /// The two words used for `index` (words 0 and 1 of its block).
    #[inline(always)]
    pub fn words(seed: u64, position: u64, index: u32) -> [u32; 2] {
        let b = block(seed, index, position, tag::F64);
        [b[0], b[1]]
    }

    /// The uniform, exact in binary64.
    #[inline(always)]
    pub fn uniform(w: [u32; 2]) -> f64 {
        let k = (u64::from(w[0]) << 20) | (u64::from(w[1]) >> 12);
        ((2 * k + 1) as f64) * TWO_M53
    }

    /// `E = -ln(u)`.
    #[inline(always)]
    pub fn variate(u: f64) -> f64 {
        -math::ln(u)
    }
}

/// The `f32` profile: 24-bit uniform `u = (j + 1) / 2^24`, `E` rounded to
/// binary32 and clamped below at 2^-24. spec: NOISE.md §5.
pub mod f32p {
    use super::*;

    /// The word used for `index` (word 0 of its block).
    #[inline(always)]
    pub fn word(seed: u64, position: u64, index: u32) -> u32 {
        block(seed, index, position, tag::F32)[0]
    }

    /// The uniform in (0, 1], exact in binary32.
    #[inline(always)]
    pub fn uniform(w: u32) -> f32 {
        ((w >> 8) + 1) as f32 * TWO_M24_F32
    }

    /// `E = max(f32(-ln u), 2^-24)`.
    #[inline(always)]
    pub fn variate(u: f32) -> f32 {
        let e = (-math::ln(f64::from(u))) as f32;
        if e < TWO_M24_F32 {
            TWO_M24_F32
        } else {
            e
        }
    }
}

/// The `triton` profile: Megatron's request-seed noise. spec: NOISE.md §6.
pub mod triton {
    use super::*;

    /// The word used for `index` (word 0 of the block `(index, pos lo, pos hi, 0)`).
    #[inline(always)]
    pub fn word(seed: u64, position: u64, index: u32) -> u32 {
        block(seed, index, position, tag::TRITON)[0]
    }

    /// Triton's `uint_to_uniform_float` for a 32-bit word.
    #[inline(always)]
    pub fn uniform(w: u32) -> f32 {
        let x = w as i32;
        let x = if x < 0 { !x } else { x };
        (x as f32) * f32::from_bits(0x2FFF_FFFF)
    }

    /// Megatron's noise `-logf(max(u, FLT_MIN))`.
    #[inline(always)]
    pub fn variate(u: f32) -> f32 {
        -libdevice::logf(u.max(f32::MIN_POSITIVE))
    }
}

/// `ln E` of one element under `profile`: the noise term of the race score.
/// spec: NOISE.md §3.
#[inline(always)]
pub fn ln_variate(profile: NoiseProfile, seed: u64, position: u64, index: u32) -> f64 {
    match profile {
        NoiseProfile::Exact => {
            let k = exact::grid_point(
                exact::lead(seed, position, index),
                exact::tail_words(seed, position, index),
            );
            exact::ln_variate(k)
        }
        NoiseProfile::F64 => math::ln(f64p::variate(f64p::uniform(f64p::words(
            seed, position, index,
        )))),
        NoiseProfile::F32 => math::ln(f64::from(f32p::variate(f32p::uniform(f32p::word(
            seed, position, index,
        ))))),
        NoiseProfile::Triton => math::ln(f64::from(triton::variate(triton::uniform(
            triton::word(seed, position, index),
        )))),
    }
}

/// The word a profile's pruning bound reads: for `exact` the smallest prefix
/// of the element's lead (`lead·2^16`, [`exact::lead_prefix`]), otherwise word
/// 0 of the element's own block.
#[inline(always)]
pub fn bound_word(profile: NoiseProfile, seed: u64, position: u64, index: u32) -> u32 {
    match profile {
        NoiseProfile::Exact => exact::lead_prefix(exact::lead(seed, position, index)),
        NoiseProfile::F64 => f64p::words(seed, position, index)[0],
        NoiseProfile::F32 => f32p::word(seed, position, index),
        NoiseProfile::Triton => triton::word(seed, position, index),
    }
}

/// A lower bound on the computed [`ln_variate`] of every element whose bound
/// word (see [`bound_word`]) is `word`. Not normative: implementations may
/// prune with it because it never excludes a winner. spec: NOISE.md §4.4.
///
/// For the profiles with `E = -ln(u)` the bound uses `E >= 1 - u` and an
/// upper bound of `u` from the word; binary32 noise gets extra slack for its
/// final rounding (and libdevice `logf`'s error), and every profile's bound
/// is clamped at its smallest possible `E`.
#[inline(always)]
pub fn ln_variate_lower_bound(profile: NoiseProfile, word: u32) -> f64 {
    const F32_SLACK: f64 = 1e-6;
    match profile {
        NoiseProfile::Exact => exact::prefix_lower_bound(word),
        // u < (word + 1) / 2^32, so 1 - u > !word / 2^32; E >= 2^-53.
        NoiseProfile::F64 => exact::prefix_lower_bound(!word).max(-36.8),
        // u <= (word + 256) / 2^32; E >= 2^-24.
        NoiseProfile::F32 => {
            if word >= 0xFFFF_FF00 {
                -16.7
            } else {
                (exact::prefix_lower_bound(0xFFFF_FF00 - word) - F32_SLACK).max(-16.7)
            }
        }
        // x = |word| as 31 bits; u <= (x + 256) / 2^31; E >= 2^-24.
        NoiseProfile::Triton => {
            let x = if (word as i32) < 0 { !word } else { word };
            if x >= (1 << 31) - 256 {
                -16.7
            } else {
                (exact::prefix_lower_bound(2 * ((1 << 31) - 256 - x)) - F32_SLACK).max(-16.7)
            }
        }
    }
}

/// Bits of one Philox output word that a profile used: `width` bits from
/// bit `shift` up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct WordBits {
    /// The output word (0 to 3).
    pub word: usize,
    /// The lowest bit used.
    pub shift: u32,
    /// How many bits.
    pub width: u32,
}

impl WordBits {
    /// All 32 bits of `word`.
    pub const fn whole(word: usize) -> Self {
        WordBits {
            word,
            shift: 0,
            width: 32,
        }
    }

    /// The top `width` bits of `word`.
    pub const fn top(word: usize, width: u32) -> Self {
        WordBits {
            word,
            shift: 32 - width,
            width,
        }
    }

    /// The used bits of `output`, shifted down.
    pub fn of(self, output: &[u32; 4]) -> u32 {
        let w = output[self.word] >> self.shift;
        if self.width == 32 {
            w
        } else {
            w & ((1 << self.width) - 1)
        }
    }
}

impl fmt::Display for WordBits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.width == 32 {
            write!(f, "{}", self.word)
        } else {
            write!(
                f,
                "{}[{}:{}]",
                self.word,
                self.shift + self.width - 1,
                self.shift
            )
        }
    }
}

/// One Philox evaluation and the bits of it that a profile used.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PhiloxCall {
    /// The counter block.
    pub counter: [u32; 4],
    /// The key.
    pub key: [u32; 2],
    /// The output block.
    pub output: [u32; 4],
    /// Which output bits were used, most significant first.
    pub used: Vec<WordBits>,
}

/// Everything about the noise of one element, for display and audit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NoiseDraw {
    /// The profile.
    pub profile: NoiseProfile,
    /// Request seed.
    pub seed: u64,
    /// Absolute position.
    pub position: u64,
    /// Vocabulary index.
    pub index: u32,
    /// The Philox calls, in the order the profile reads them.
    pub philox: Vec<PhiloxCall>,
    /// The uniform as binary64 (exact for `f64`, `f32`, `triton`; rounded for `exact`).
    pub uniform: f64,
    /// The 16-bit lead of the `exact` profile (the grid point's top bits).
    pub lead: Option<u16>,
    /// The 128-bit grid point of the `exact` profile.
    pub grid_point: Option<u128>,
    /// The binary32 uniform of the `f32` and `triton` profiles.
    pub uniform_f32: Option<f32>,
    /// The exponential variate `E` as binary64 (exact widening of the binary32 noise where
    /// the profile's noise is binary32).
    pub noise: f64,
    /// The binary32 noise of the `f32` and `triton` profiles.
    pub noise_f32: Option<f32>,
    /// `ln E`, the race's noise term.
    pub ln_noise: f64,
}

impl NoiseDraw {
    /// Computes the noise of `(seed, position, index)` under `profile`.
    pub fn new(profile: NoiseProfile, seed: u64, position: u64, index: u32) -> Self {
        let key = seed_key(seed);
        let call = |c0: u32, tg: u32, used: Vec<WordBits>| {
            let counter = counter(c0, position, tg);
            PhiloxCall {
                counter,
                key,
                output: philox4x32_10(counter, key),
                used,
            }
        };
        let mut d = NoiseDraw {
            profile,
            seed,
            position,
            index,
            philox: Vec::new(),
            uniform: 0.0,
            lead: None,
            grid_point: None,
            uniform_f32: None,
            noise: 0.0,
            noise_f32: None,
            ln_noise: 0.0,
        };
        match profile {
            NoiseProfile::Exact => {
                let half = WordBits {
                    word: ((index >> 1) & 3) as usize,
                    shift: 16 * (index & 1),
                    width: 16,
                };
                let lead = call(index >> 3, tag::EXACT_LEAD, vec![half]);
                let tail = call(
                    index,
                    tag::EXACT_TAIL,
                    vec![
                        WordBits::whole(0),
                        WordBits::whole(1),
                        WordBits::whole(2),
                        WordBits::top(3, 16),
                    ],
                );
                let h = exact::lead_in_block(lead.output, index);
                let k = exact::grid_point(h, tail.output);
                d.philox = vec![lead, tail];
                d.lead = Some(h);
                d.grid_point = Some(k);
                d.uniform = exact::uniform(k);
                d.noise = exact::variate(k);
            }
            NoiseProfile::F64 => {
                let c = call(
                    index,
                    tag::F64,
                    vec![WordBits::whole(0), WordBits::top(1, 20)],
                );
                d.uniform = f64p::uniform([c.output[0], c.output[1]]);
                d.noise = f64p::variate(d.uniform);
                d.philox = vec![c];
            }
            NoiseProfile::F32 => {
                let c = call(index, tag::F32, vec![WordBits::top(0, 24)]);
                let u = f32p::uniform(c.output[0]);
                let e = f32p::variate(u);
                (d.uniform, d.uniform_f32, d.noise, d.noise_f32) =
                    (f64::from(u), Some(u), f64::from(e), Some(e));
                d.philox = vec![c];
            }
            NoiseProfile::Triton => {
                let c = call(index, tag::TRITON, vec![WordBits::whole(0)]);
                let u = triton::uniform(c.output[0]);
                let e = triton::variate(u);
                (d.uniform, d.uniform_f32, d.noise, d.noise_f32) =
                    (f64::from(u), Some(u), f64::from(e), Some(e));
                d.philox = vec![c];
            }
        }
        d.ln_noise = math::ln(d.noise);
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draw_agrees_with_ln_variate() {
        for p in NoiseProfile::ALL {
            for i in [0u32, 1, 2, 3, 4, 131071, u32::MAX] {
                let d = NoiseDraw::new(p, 42, 1 << 33, i);
                assert_eq!(
                    d.ln_noise.to_bits(),
                    ln_variate(p, 42, 1 << 33, i).to_bits()
                );
            }
        }
    }

    /// Every lead, at its lowest and highest grid point. L is non-decreasing
    /// in the grid point (NOISE.md §4.3; tested in tests/it/math.rs), so this
    /// covers every grid point of every lead.
    #[test]
    fn exact_lead_bounds_hold_for_every_lead() {
        const LOW_112: u128 = (1 << 112) - 1;
        let mut last = (f64::NEG_INFINITY, f64::NEG_INFINITY);
        for lead in 0..=u16::MAX {
            let lo = u128::from(lead) << 112;
            let (lb, ub) = (
                exact::ln_variate_lower_bound(lead),
                exact::ln_variate_upper_bound(lead),
            );
            assert!(lb <= exact::ln_variate(lo), "lead {lead}: lower bound");
            assert!(
                ub >= exact::ln_variate(lo | LOW_112),
                "lead {lead}: upper bound"
            );
            assert!(lb >= last.0 && ub >= last.1, "lead {lead}: bounds decrease");
            last = (lb, ub);
        }
    }

    #[test]
    fn exact_prefix_bounds_hold_at_grid_extremes() {
        const LOW_96: u128 = (1 << 96) - 1;
        for prefix in [
            0u32,
            1,
            2,
            3,
            1000,
            1 << 20,
            (1 << 31) - 2,
            (1 << 31) - 1,
            1 << 31,
            u32::MAX,
        ] {
            let k = u128::from(prefix) << 96;
            for k in [k, k | LOW_96, k | (1 << 95)] {
                let l = exact::ln_variate(k);
                assert!(exact::prefix_lower_bound(prefix) <= l, "prefix {prefix}");
                assert!(exact::prefix_upper_bound(prefix) >= l, "prefix {prefix}");
            }
        }
    }

    #[test]
    fn exact_grid_point_takes_lead_then_tail() {
        let tail = [0x0123_4567, 0x89ab_cdef, 0xfedc_ba98, 0x7654_3210];
        assert_eq!(
            exact::grid_point(0xbeef, tail),
            0xbeef_0123_4567_89ab_cdef_fedc_ba98_7654_u128
        );
        let block = [0x1111_2222, 0x3333_4444, 0x5555_6666, 0x7777_8888];
        let leads: Vec<u16> = (0..8).map(|i| exact::lead_in_block(block, i)).collect();
        assert_eq!(
            leads,
            [0x2222, 0x1111, 0x4444, 0x3333, 0x6666, 0x5555, 0x8888, 0x7777]
        );
        // The draw's bookkeeping names the same bits.
        for i in [0u32, 5, 6, 7, 8, 131071] {
            let d = NoiseDraw::new(NoiseProfile::Exact, 7, 9, i);
            let (lead, tail) = (&d.philox[0], &d.philox[1]);
            assert_eq!(lead.used[0].of(&lead.output), u32::from(d.lead.unwrap()));
            assert_eq!(tail.used[3].of(&tail.output), tail.output[3] >> 16);
        }
    }

    #[test]
    fn lower_bounds_hold_for_every_profile() {
        let mut s = 99u64;
        let mut words: Vec<u32> = vec![
            0,
            1,
            2,
            255,
            256,
            0x7fff_ff00,
            0x7fff_ffff,
            0x8000_0000,
            0xffff_feff,
            0xffff_ff00,
            0xffff_ffff,
        ];
        for _ in 0..200_000 {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            words.push((s >> 32) as u32);
            words.push(u32::MAX - ((s >> 40) as u32));
        }
        for &w in &words {
            for w1 in [0u32, 0x7fff_ffff, u32::MAX] {
                let f64_ln = math::ln(f64p::variate(f64p::uniform([w, w1])));
                assert!(
                    ln_variate_lower_bound(NoiseProfile::F64, w) <= f64_ln,
                    "f64 {w:#x}"
                );
            }
            let f32_ln = math::ln(f64::from(f32p::variate(f32p::uniform(w))));
            assert!(
                ln_variate_lower_bound(NoiseProfile::F32, w) <= f32_ln,
                "f32 {w:#x}"
            );
            let tr_ln = math::ln(f64::from(triton::variate(triton::uniform(w))));
            assert!(
                ln_variate_lower_bound(NoiseProfile::Triton, w) <= tr_ln,
                "triton {w:#x}"
            );
        }
    }

    #[test]
    fn triton_uniform_endpoints() {
        assert_eq!(triton::uniform(0), 0.0);
        assert_eq!(triton::uniform(u32::MAX), 0.0);
        assert!(triton::uniform(0x7fff_ffff) < 1.0);
        assert_eq!(triton::variate(0.0), -libdevice::logf(f32::MIN_POSITIVE));
    }
}
