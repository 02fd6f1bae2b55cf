//! Deterministic elementary functions in binary64, built from IEEE
//! add/sub/mul/div/fma and bit operations only, so that every platform that
//! performs the same sequence of correctly rounded operations gets the same
//! bits. spec: NUMERICS.md §2-§4.
//!
//! Never replace these with `f64::ln`/`f64::exp`: the platform functions
//! differ between glibc, musl and CUDA's libdevice.

/// High part of ln 2: 32 significant bits, so `k * LN2_HI` is exact for |k| < 2^21.
pub const LN2_HI: f64 = f64::from_bits(0x3FE6_2E42_FEE0_0000);
/// ln 2 - LN2_HI, rounded to binary64.
pub const LN2_LO: f64 = f64::from_bits(0x3DEA_39EF_3579_3C76);
/// 1 / ln 2 rounded to binary64.
pub const INV_LN2: f64 = f64::from_bits(0x3FF7_1547_652B_82FE);

/// Coefficients `2 / (2j + 1)`, j = 1..=12, of the atanh series used by [`ln`];
/// each is the correctly rounded binary64 quotient. spec: NUMERICS.md §2.
pub const LN_SERIES: [f64; 12] = [
    2.0 / 3.0,
    2.0 / 5.0,
    2.0 / 7.0,
    2.0 / 9.0,
    2.0 / 11.0,
    2.0 / 13.0,
    2.0 / 15.0,
    2.0 / 17.0,
    2.0 / 19.0,
    2.0 / 21.0,
    2.0 / 23.0,
    2.0 / 25.0,
];

/// Coefficients `1 / j!`, j = 2..=13, of the Taylor series used by
/// [`exp_nonpositive`]; each is the correctly rounded binary64 value of the
/// exact rational (computed by exact integer factorials, then one division).
pub const EXP_SERIES: [f64; 12] = [
    1.0 / 2.0,
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5040.0,
    1.0 / 40320.0,
    1.0 / 362880.0,
    1.0 / 3628800.0,
    1.0 / 39916800.0,
    1.0 / 479001600.0,
    1.0 / 6227020800.0,
];

#[inline(always)]
fn fma(a: f64, b: f64, c: f64) -> f64 {
    a.mul_add(b, c)
}

/// `e * ln 2 + ln(1 + f)` for an integer `e` and an exactly known
/// `f` in [-1/4, 1/2]. The kernel shared by [`ln`] and [`log1p`].
/// spec: NUMERICS.md §2.
#[inline(always)]
pub fn ln_kernel(e: i32, f: f64) -> f64 {
    let s = f / (2.0 + f);
    let z = s * s;
    let mut r = LN_SERIES[11];
    let mut j = 11;
    while j > 0 {
        j -= 1;
        r = fma(r, z, LN_SERIES[j]);
    }
    let r = r * z;
    let hfsq = 0.5 * f * f;
    let dk = f64::from(e);
    dk * LN2_HI - ((hfsq - (s * (hfsq + r) + dk * LN2_LO)) - f)
}

/// Natural logarithm. ln(±0) = -inf, ln(x < 0) = NaN, ln(+inf) = +inf.
/// Error below 1 ulp (NUMERICS.md §2 gives the measured bound).
#[inline(always)]
pub fn ln(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if x == f64::INFINITY {
        return f64::INFINITY;
    }
    let mut bits = x.to_bits();
    let mut e: i32 = 0;
    if bits < (1u64 << 52) {
        // Subnormal: scale by 2^54 (exact).
        bits = (x * f64::from_bits(0x4350_0000_0000_0000)).to_bits();
        e = -54;
    }
    e += ((bits >> 52) as i32) - 1023;
    let m = f64::from_bits((bits & 0x000F_FFFF_FFFF_FFFF) | 0x3FF0_0000_0000_0000);
    if m >= 1.5 {
        // m/2 in [3/4, 1): f = m/2 - 1 is exact (Sterbenz).
        ln_kernel(e + 1, 0.5 * m - 1.0)
    } else {
        ln_kernel(e, m - 1.0)
    }
}

/// ln(1 + x). log1p(-1) = -inf, log1p(x < -1) = NaN, log1p(+inf) = +inf.
/// spec: NUMERICS.md §3.
#[inline(always)]
pub fn log1p(x: f64) -> f64 {
    if x.is_nan() || x < -1.0 {
        return f64::NAN;
    }
    if x == -1.0 {
        return f64::NEG_INFINITY;
    }
    if x == f64::INFINITY {
        return f64::INFINITY;
    }
    if x == 0.0 {
        return x; // keeps the sign of zero
    }
    if (-0.25..0.5).contains(&x) {
        ln_kernel(0, x)
    } else if (-0.5..-0.25).contains(&x) {
        // 1 + x = (1 + (1 + 2x)) / 2 and 1 + 2x is exact (Sterbenz).
        ln_kernel(-1, 1.0 + 2.0 * x)
    } else if x < -0.5 {
        // 1 + x is exact (Sterbenz).
        ln(1.0 + x)
    } else {
        // x >= 1/2: u = 1 + x may round; correct to first order by the
        // rounding error c = x - (u - 1), which is exact.
        let u = 1.0 + x;
        let c = x - (u - 1.0);
        ln(u) + c / u
    }
}

/// e^y for y <= 0 (e^y for y < -745.2 is 0; NaN stays NaN).
/// Used for the fixed-point masses of top-p. spec: NUMERICS.md §4.
#[inline(always)]
pub fn exp_nonpositive(y: f64) -> f64 {
    if y.is_nan() {
        return f64::NAN;
    }
    assert!(y <= 0.0, "exp_nonpositive takes y <= 0, got {y}");
    if y < -745.2 {
        return 0.0;
    }
    // n = round-half-up(y / ln 2) as an integer in [-1075, 0].
    let n = (fma(y, INV_LN2, 0.5)).floor();
    let r = (y - n * LN2_HI) - n * LN2_LO;
    let mut p = EXP_SERIES[11];
    let mut j = 11;
    while j > 0 {
        j -= 1;
        p = fma(p, r, EXP_SERIES[j]);
    }
    let p = fma(fma(p, r, 1.0), r, 1.0);
    scale_by_pow2(p, n as i32)
}

/// x * 2^n for n in [-1100, 1023], with one rounding at most (only when the
/// result is subnormal).
#[inline(always)]
pub fn scale_by_pow2(x: f64, n: i32) -> f64 {
    if n >= -1022 {
        x * f64::from_bits(((n + 1023) as u64) << 52)
    } else {
        // Two exact steps then one rounding step into the subnormals.
        let x = x * f64::from_bits(1u64 << 52); // 2^-1022
        let m = n + 1022; // in [-78, -1]
        x * f64::from_bits(((m + 1023) as u64) << 52)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_series_is_inverse_factorials() {
        let mut fact: u64 = 1;
        for (j, c) in EXP_SERIES.iter().enumerate() {
            fact *= (j + 2) as u64;
            assert_eq!(*c, 1.0 / fact as f64, "1/{}!", j + 2);
        }
    }

    #[test]
    fn special_values() {
        assert_eq!(ln(1.0), 0.0);
        assert_eq!(ln(0.0), f64::NEG_INFINITY);
        assert!(ln(-1.0).is_nan());
        assert_eq!(ln(f64::INFINITY), f64::INFINITY);
        assert_eq!(log1p(-1.0), f64::NEG_INFINITY);
        assert_eq!(exp_nonpositive(0.0), 1.0);
        assert_eq!(exp_nonpositive(-1000.0), 0.0);
    }

    #[test]
    fn close_to_platform_on_a_sweep() {
        // A smoke test only; the accuracy tests against a high-precision
        // reference live in tests/.
        let mut x = 1e-300f64;
        while x < 1e300 {
            let (a, b) = (ln(x), x.ln());
            assert!(
                (a - b).abs() <= 2.0 * f64::EPSILON * b.abs().max(1e-300),
                "{x}"
            );
            x *= 1.37;
        }
    }
}
