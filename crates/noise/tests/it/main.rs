//! Integration tests of `tailrace-noise`, one binary (`cargo test -p tailrace-noise --test it`).
//!
//! Which module proves what:
//! - [`philox`]: Philox4x32-10 equals the Random123 known answers and the
//!   independent `rand_philox` implementation, scalar and lane-parallel.
//! - [`math`]: `ln`, `log1p`, `exp_nonpositive` are within the stated ulp bounds of
//!   a double-double reference written here from first principles, and monotone;
//!   the profiles' variates are monotone in their uniform; `libdevice::logf` equals
//!   the GPU captures bit for bit and is within 1 ulp of a correctly rounded log.
//! - [`law`]: the exact law of each noise profile, by counting grid points (no
//!   sampling): `exact` is exponential to 1e-12 over 1e-30..80, the others lose
//!   the tail below their smallest variate (the "cap").

mod law;
mod math;
mod philox;
mod triton;

/// SplitMix64 (Steele, Lea, Flood 2014): the tests' fixed-seed input generator.
/// Deliberately unrelated to Philox so it cannot hide a Philox bug.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// Next 64-bit output.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Next 32-bit output (high half).
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// Next 128-bit output.
    pub fn next_u128(&mut self) -> u128 {
        (u128::from(self.next_u64()) << 64) | u128::from(self.next_u64())
    }

    /// Uniform in [0, 1) on the 2^-53 grid.
    pub fn next_unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * f64::from_bits((1023 - 53) << 52)
    }
}

/// Every distinct binary32 value `f32(x)` for `x` in `[0, 2^31)`, in increasing
/// order, with the first such `x` and how many `x` round to it.
///
/// These are the magnitude classes of the `triton` profile: Triton's
/// `uint_to_uniform_float` maps the word `w` and `!w` to the same `x`, then
/// rounds `x` to binary32, so each class holds `2 * count` of the 2^32 words.
/// The preimages are derived from the midpoints between neighbouring floats and
/// checked against Rust's own int-to-float conversion (round to nearest even,
/// like the GPU's `cvt.rn.f32.s32`).
pub fn triton_magnitude_classes(mut visit: impl FnMut(u32, u64)) {
    const TOP: u64 = 1 << 31;
    // Candidate values in increasing order: every integer below 2^24 (all exact),
    // then every binary32 from 2^24 up to 2^31 (all integers).
    let above = (1u32 << 24) as f32;
    let candidates = (0u32..1 << 24)
        .map(|x| x as f32)
        .chain((above.to_bits()..=(TOP as f32).to_bits()).map(f32::from_bits));
    let mut prev: Option<(f32, u64)> = None; // (value, first x)
    let mut total = 0u64;
    for v in candidates {
        let Some((pv, pstart)) = prev else {
            prev = Some((v, 0));
            continue;
        };
        // First x rounding to v: the midpoint rounded up, or one more when the
        // midpoint is a tie that went to pv.
        let (a, b) = (pv as u64, v as u64);
        let mut start = (a + b).div_ceil(2);
        if start as f32 != v {
            start += 1;
        }
        assert!(start as f32 == v && (start - 1) as f32 == pv, "class {v}");
        visit(pstart as u32, start - pstart);
        total += start - pstart;
        prev = Some((v, start));
    }
    let (v, start) = prev.expect("at least one class");
    assert_eq!(v, TOP as f32);
    assert_eq!((TOP - 1) as f32, v, "2^31 - 1 rounds up to 2^31");
    visit(start as u32, TOP - start);
    total += TOP - start;
    assert_eq!(total, TOP, "the classes partition [0, 2^31)");
}
