//! A binary32 natural logarithm that reproduces CUDA's libdevice `__nv_logf`
//! (what Triton's `tl.log` calls on float32) bit for bit, for the `triton`
//! noise profile. spec: NUMERICS.md §5.
//!
//! The input is reduced around 2/3 (bits 0x3f2aaaab) to `m` in [2/3, 4/3)
//! and an exponent `i`; `ln(m)` is `f + f^2 * p(f)` with `f = m - 1` and `p` a
//! degree-8 polynomial in Horner form. Every step is one binary32 operation,
//! so `f32::mul_add` reproduces it exactly. The coefficients were read from
//! the PTX that Triton 3.6 generates for `tl.log` and the function was
//! checked against the GPU on every binary32 input (golden/triton/README.md).

#[inline(always)]
fn fmaf(a: f32, b: f32, c: f32) -> f32 {
    a.mul_add(b, c)
}

/// Polynomial coefficients, highest degree first (binary32 bit patterns).
pub const LOGF_COEFFS: [u32; 8] = [
    0xBE05_5027,
    0x3E10_39F6,
    0xBDF8_CDCC,
    0x3E0F_2955,
    0xBE2A_D8B9,
    0x3E4C_ED0B,
    0xBE7F_FF22,
    0x3EAA_AA78,
];

/// ln 2 rounded to binary32 (0x3f317218).
pub const LOGF_LN2: f32 = f32::from_bits(0x3F31_7218);

/// The NaN the GPU returns (and so does this function) for NaN and negative inputs.
pub const CANONICAL_NAN: f32 = f32::from_bits(0x7FFF_FFFF);

/// libdevice `logf`, bit-exact, for every binary32 input.
#[inline(always)]
pub fn logf(a: f32) -> f32 {
    let (x, i0) = if a < f32::MIN_POSITIVE {
        (a * 8_388_608.0, -23.0f32)
    } else {
        (a, 0.0)
    };
    let e = x.to_bits().wrapping_sub(0x3F2A_AAAB) & 0xFF80_0000;
    let m = f32::from_bits(x.to_bits().wrapping_sub(e));
    let i = fmaf(e as i32 as f32, f32::from_bits(0x3400_0000), i0); // 2^-23
    let f = m - 1.0;
    let c = |j: usize| f32::from_bits(LOGF_COEFFS[j]);
    let mut p = fmaf(c(0), f, c(1));
    for j in 2..8 {
        p = fmaf(p, f, c(j));
    }
    let p = fmaf(p, f, -0.5) * f;
    let r = fmaf(p, f, f);
    let mut r = fmaf(i, LOGF_LN2, r);
    if x.to_bits() >= 0x7F80_0000 {
        // +inf, NaN and (through the sign bit) every negative input.
        r = fmaf(x, f32::INFINITY, f32::INFINITY);
    }
    if x == 0.0 {
        r = f32::NEG_INFINITY;
    }
    if r.is_nan() {
        r = CANONICAL_NAN;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_values() {
        assert_eq!(logf(1.0), 0.0);
        assert_eq!(logf(0.0), f32::NEG_INFINITY);
        assert_eq!(logf(-0.0), f32::NEG_INFINITY);
        assert_eq!(logf(f32::INFINITY), f32::INFINITY);
        assert_eq!(logf(-1.0).to_bits(), CANONICAL_NAN.to_bits());
        assert_eq!(logf(f32::NAN).to_bits(), CANONICAL_NAN.to_bits());
    }

    #[test]
    fn within_one_step_of_correctly_rounded() {
        let mut b = 1u32;
        while b < 0x7f00_0000 {
            let x = f32::from_bits(b);
            let want = ((x as f64).ln() as f32).to_bits() as i64;
            let got = logf(x).to_bits() as i64;
            assert!((got - want).abs() <= 1, "{x:e}");
            b += 0x1234;
        }
    }
}
