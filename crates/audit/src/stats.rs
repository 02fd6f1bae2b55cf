//! Test statistics shared by the audits (statrs underneath).
//!
//! Tail probabilities use statrs' survival functions rather than `1 - cdf`,
//! so p-values far below 1e-16 (a sampler that never reaches the tail) are
//! still reported with their magnitude.

use statrs::distribution::{ChiSquared, ContinuousCDF, DiscreteCDF, Poisson};

/// Two-sided p-value of `observed` under Poisson(`mean`):
/// `min(1, 2 min(P(X <= k), P(X >= k)))`. `mean` must be positive.
pub fn poisson_two_sided(mean: f64, observed: u64) -> f64 {
    let Ok(d) = Poisson::new(mean) else {
        return f64::NAN;
    };
    let lower = d.cdf(observed);
    let upper = if observed == 0 {
        1.0
    } else {
        d.sf(observed - 1)
    };
    (2.0 * lower.min(upper)).min(1.0)
}

/// The counts whose two-sided p-value under Poisson(`mean`) is at least
/// `alpha`: the closed interval `[lo, hi]` (each tail holds at most `alpha/2`).
pub fn poisson_interval(mean: f64, alpha: f64) -> (u64, u64) {
    let Ok(d) = Poisson::new(mean) else {
        return (0, 0);
    };
    let half = alpha / 2.0;
    // lo: the smallest k with P(X <= k) >= alpha/2 (cdf is increasing in k).
    let lo = first_true(|k| d.cdf(k) >= half, mean);
    // hi: the largest k with P(X >= k) >= alpha/2, i.e. one below the
    // smallest k with P(X >= k) < alpha/2.
    let hi = first_true(|k| k > 0 && d.sf(k - 1) < half, mean).saturating_sub(1);
    (lo, hi)
}

/// The smallest k with `pred(k)`, for a predicate false then true in k.
fn first_true(pred: impl Fn(u64) -> bool, mean: f64) -> u64 {
    let mut hi = (mean + 10.0 * mean.sqrt() + 50.0).ceil() as u64;
    while !pred(hi) {
        hi = hi.saturating_mul(2);
        if hi == u64::MAX {
            return hi;
        }
    }
    let mut lo = 0u64;
    if pred(lo) {
        return lo;
    }
    // pred(lo) false, pred(hi) true
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// The `1 - alpha` quantile of the chi-square law with `dof` degrees of freedom.
pub fn chi_square_quantile(dof: usize, alpha: f64) -> f64 {
    match ChiSquared::new(dof as f64) {
        Ok(d) => d.inverse_cdf(1.0 - alpha),
        Err(_) => f64::NAN,
    }
}

/// `P(X >= stat)` under the chi-square law with `dof` degrees of freedom.
pub fn chi_square_p_value(dof: usize, stat: f64) -> f64 {
    match ChiSquared::new(dof as f64) {
        Ok(d) => d.sf(stat),
        Err(_) => f64::NAN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_matches_p_values() {
        for mean in [0.5, 3.0, 34.0, 131.4, 2597.0] {
            let alpha = 1e-6;
            let (lo, hi) = poisson_interval(mean, alpha);
            assert!(poisson_two_sided(mean, lo) >= alpha, "{mean}");
            assert!(poisson_two_sided(mean, hi) >= alpha, "{mean}");
            if lo > 0 {
                assert!(poisson_two_sided(mean, lo - 1) < alpha, "{mean}");
            }
            assert!(poisson_two_sided(mean, hi + 1) < alpha, "{mean}");
        }
    }

    #[test]
    fn deep_p_values_keep_their_magnitude() {
        // 0 observed where 131 are expected: e^-131 ~ 1e-57.
        let p = poisson_two_sided(131.0, 0);
        assert!(p > 1e-60 && p < 1e-55, "{p}");
        let p = poisson_two_sided(34.0, 300);
        assert!(p > 0.0 && p < 1e-100, "{p}");
    }
}
