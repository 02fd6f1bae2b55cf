//! A binary32 natural logarithm that reproduces CUDA's `logf` (libdevice
//! `__nv_logf`, which Triton's `tl.log` calls on float32) bit for bit, for the
//! `triton` noise profile. spec: NUMERICS.md §5.
//!
//! The function is a reduction around 2/3 (bits 0x3f2aaaab) followed by a
//! short fma polynomial; all steps are binary32 operations, so the CPU
//! reproduces it exactly with `f32::mul_add`.

#[inline(always)]
fn fmaf(a: f32, b: f32, c: f32) -> f32 {
    a.mul_add(b, c)
}

/// Polynomial coefficients, highest degree first (binary32 bit patterns).
pub const LOGF_COEFFS: [u32; 8] = [
    0xbe05_5000, // -0.130187988
    0x3e10_455c, //  0.140889585
    0xbdf8_cf88, // -0.121489584
    0x3e0f_2a3b, //  0.139809534
    0xbe2a_d96c, // -0.166845024
    0x3e4c_ec8f, //  0.200121149
    0xbe7f_ff0c, // -0.249996364
    0x3eaa_aa7c, //  0.333331943
];

/// ln 2 rounded to binary32 (0x3f317218).
pub const LOGF_LN2: f32 = f32::from_bits(0x3f31_7218);

/// CUDA/libdevice `logf`, bit-exact, for every binary32 input.
#[inline(always)]
pub fn logf(a: f32) -> f32 {
    let c = |j: usize| f32::from_bits(LOGF_COEFFS[j]);
    let mut x = a;
    let mut i = 0.0f32;
    if x < f32::MIN_POSITIVE {
        x *= 8_388_608.0; // 2^23
        i = -23.0;
    }
    let e = (x.to_bits().wrapping_sub(0x3f2a_aaab)) & 0xff80_0000;
    let m = f32::from_bits(x.to_bits().wrapping_sub(e));
    let i = fmaf(e as i32 as f32, f32::from_bits(0x3400_0000), i); // 2^-23
    let f = m - 1.0;
    let s = f * f;
    let r = fmaf(c(0), f, c(1));
    let t = fmaf(c(2), f, c(3));
    let r = fmaf(r, s, t);
    let r = fmaf(r, f, c(4));
    let r = fmaf(r, f, c(5));
    let r = fmaf(r, f, c(6));
    let r = fmaf(r, f, c(7));
    let r = fmaf(r, f, -0.5);
    let r = fmaf(r, s, f);
    let mut r = fmaf(i, LOGF_LN2, r);
    if !(a > 0.0 && a <= f32::MAX) {
        r = a + a;
        if a < 0.0 {
            r = f32::NAN;
        }
        if a == 0.0 {
            r = f32::NEG_INFINITY;
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coefficient_bits_match_their_decimal_values() {
        let dec = [
            -0.130187988f32,
            0.140889585,
            -0.121489584,
            0.139809534,
            -0.166845024,
            0.200121149,
            -0.249996364,
            0.333331943,
        ];
        for (b, d) in LOGF_COEFFS.iter().zip(dec) {
            assert_eq!(*b, d.to_bits(), "{d}");
        }
        assert_eq!(LOGF_LN2, 0.693147182f32);
    }

    #[test]
    fn close_to_correctly_rounded() {
        let mut b = 1u32;
        while b < 0x7f00_0000 {
            let x = f32::from_bits(b);
            let want = (x as f64).ln();
            let got = logf(x) as f64;
            assert!(
                (got - want).abs() <= 2.0 * f32::EPSILON as f64 * want.abs().max(1e-3),
                "{x}"
            );
            b += 0x1234;
        }
    }
}
