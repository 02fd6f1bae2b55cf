//! The worked examples of the spec, against the reference implementation:
//! NOISE.md §8 (the noise of one element under every profile) and SAMPLER.md
//! §5.1 (filters and race of a ten-token row). The values below are the
//! spec's; `spec/check_examples.py` recomputes them independently (its own
//! Philox and layout, bit for bit; `E` and `ln E` to the accuracy NOISE.md
//! §4.3 states, in high-precision decimal arithmetic; the scores exactly).

use tailrace_model::{sample_batch, LogitBias, RawParams, RowRequest, SamplingParams};
use tailrace_noise::profile::{self, exact};
use tailrace_noise::{NoiseDraw, NoiseProfile};

/// NOISE.md §8: seed 42, position 7, index 5.
#[test]
fn noise_worked_example() {
    let d = NoiseDraw::new(NoiseProfile::Exact, 42, 7, 5);
    assert_eq!(
        d.philox[0].output,
        [0xcc73cd30, 0x0a2f28af, 0x6ac25cf3, 0x3a6e115e]
    );
    assert_eq!(
        d.philox[1].output,
        [0xaa1ab9c1, 0xcb886a55, 0xd68d193e, 0xbb766511]
    );
    assert_eq!(d.lead, Some(0x6ac2));
    assert_eq!(d.grid_point, Some(0x6ac2aa1ab9c1cb886a55d68d193ebb76));
    assert_eq!(d.uniform.to_bits(), 0x3fdab0aa86ae7073);
    assert_eq!(d.noise.to_bits(), 0x3fe1449a742cdaac);
    assert_eq!(d.ln_noise.to_bits(), 0xbfe3bd7f11b2e15c);
    // Index 4 shares the lead block and takes the low half of the same word.
    assert_eq!(exact::lead(42, 7, 4), 0x5cf3);
    let h = d.lead.expect("exact lead");
    assert_eq!(
        exact::ln_variate_lower_bound(h).to_bits(),
        EXAMPLE_LEAD_LOWER
    );
    assert_eq!(
        exact::ln_variate_upper_bound(h).to_bits(),
        EXAMPLE_LEAD_UPPER
    );
    // The other profiles' rows of §8 do not involve the lead.
    let word = |p| NoiseDraw::new(p, 42, 7, 5).ln_noise.to_bits();
    assert_eq!(word(NoiseProfile::F64), 0xBFE5E4BECCED0D58);
    assert_eq!(word(NoiseProfile::F32), 0x3FD67FD1964485F2);
    assert_eq!(word(NoiseProfile::Triton), 0xC00AD7CDE9460168);
}

/// The §8 lead bounds of lead 0x6AC2 (NOISE.md §4.4).
const EXAMPLE_LEAD_LOWER: u64 = 0xBFED8AEDCC0B575A;
const EXAMPLE_LEAD_UPPER: u64 = 0xBF9E1DE31BD333C0;

/// SAMPLER.md §5.1.
#[test]
fn sampler_worked_example() {
    let x: [f32; 10] = [1.0, 3.25, 0.5, 2.75, 3.0, -2.0, 0.0, 1.5, -6.0, 2.0];
    let params = SamplingParams::new(RawParams {
        temperature: 0.8,
        top_k: 6,
        min_p: 0.1,
        top_p: 0.9,
        seed: 42,
        position: 7,
        ..RawParams::default()
    })
    .expect("valid parameters");
    let req = RowRequest {
        params,
        bias: LogitBias::Sparse(vec![(3, 0.5), (9, f32::NEG_INFINITY)]),
    };
    let out = sample_batch(&x, 10, 10, &[req]).expect("valid batch");
    let a = [3.25f64, 3.25, 3.0];
    for ((i, a), (lead, e, l, s)) in [1u32, 3, 4].into_iter().zip(a).zip(RACE) {
        assert_eq!(u32::from(exact::lead(42, 7, i)), lead, "token {i}");
        let d = NoiseDraw::new(NoiseProfile::Exact, 42, 7, i);
        assert_eq!(d.noise.to_bits(), e, "token {i}");
        assert_eq!(d.ln_noise.to_bits(), l, "token {i}");
        let score = (-0.8f64).mul_add(profile::ln_variate(NoiseProfile::Exact, 42, 7, i), a);
        assert_eq!(score.to_bits(), s, "token {i}");
    }
    assert_eq!(out[0].token, WINNER);
}

/// Survivors 1, 3, 4 of SAMPLER.md §5.1: lead, `E`, `L`, score (bits).
const RACE: [(u32, u64, u64, u64); 3] = [
    (
        0xCC73,
        0x3FF9A4698E75D79A,
        0x3FDE2F8C4A93FAC4,
        0x4006FB3EC5579A20,
    ),
    (
        0x0A2F,
        0x3FA4C8CD924C41A4,
        0xC009A20B01B91476,
        0x401740D133E3A1C9,
    ),
    (
        0x5CF3,
        0x3FDCDF41392A427A,
        0xBFE978E536373E98,
        0x400D182DD7A4A61E,
    ),
];
const WINNER: u32 = 3;
