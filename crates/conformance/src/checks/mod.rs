//! The property checks, one function per manifest id.

use crate::{Ctx, Outcome, Sampler};

mod filters;
mod golden;
mod inputs;
mod invariance;
mod noise;
mod stats;

/// A property check.
pub type CheckFn = fn(&Ctx, &dyn Sampler) -> Outcome;

/// Every check by property id.
pub const CHECKS: &[(&str, CheckFn)] = &[
    ("philox-kat", noise::philox_kat),
    ("philox-oracle", noise::philox_oracle),
    ("triton-noise-golden", noise::triton_noise_golden),
    ("logf-libdevice", noise::logf_libdevice),
    ("math-accuracy", noise::math_accuracy),
    ("math-monotone", noise::math_monotone),
    ("noise-law-exact", noise::noise_law_exact),
    ("noise-law-caps", noise::noise_law_caps),
    ("noise-bit-exact", noise::noise_bit_exact),
    ("token-bit-exact", invariance::token_bit_exact),
    (
        "batch-position-invariance",
        invariance::batch_position_invariance,
    ),
    ("single-equals-batched", invariance::single_equals_batched),
    (
        "launch-geometry-invariance",
        invariance::launch_geometry_invariance,
    ),
    (
        "stream-contention-replay",
        invariance::stream_contention_replay,
    ),
    ("vocab-shard-invariance", invariance::vocab_shard_invariance),
    ("filter-coupling", filters::filter_coupling),
    ("greedy-exact", filters::greedy_exact),
    ("top-k-count", filters::top_k_count),
    ("top-p-minimal", filters::top_p_minimal),
    ("min-p-rule", filters::min_p_rule),
    ("tail-rate", stats::tail_rate),
    ("chi-square-plain", stats::chi_square_plain),
    ("chi-square-filtered", stats::chi_square_filtered),
    ("golden-draws", golden::golden_draws),
    ("invalid-params-rejected", inputs::invalid_params_rejected),
    ("nonfinite-row-isolated", inputs::nonfinite_row_isolated),
];

/// The check of a property id.
pub fn find(id: &str) -> Option<CheckFn> {
    CHECKS.iter().find(|(i, _)| *i == id).map(|(_, f)| *f)
}

/// Outcome of comparing every row of a backend's output with the reference.
pub(crate) fn diff_rows(
    want: &[tailrace_model::RowOutput],
    got: &[tailrace_model::RowOutput],
) -> Option<String> {
    if want.len() != got.len() {
        return Some(format!(
            "{} rows expected, {} returned",
            want.len(),
            got.len()
        ));
    }
    want.iter()
        .zip(got)
        .enumerate()
        .find(|(_, (w, g))| w != g)
        .map(|(r, (w, g))| format!("row {r}: expected {w:?}, got {g:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_property_has_a_check_and_every_check_a_property() {
        let m = crate::manifest::load();
        for p in &m.property {
            assert!(find(&p.id).is_some(), "property {} has no check", p.id);
            assert!(
                p.check.ends_with(&p.id.replace('-', "_")),
                "property {}: check {} is not named after it",
                p.id,
                p.check
            );
        }
        for (id, _) in CHECKS {
            assert!(
                m.property.iter().any(|p| p.id == *id),
                "check {id} has no manifest property"
            );
        }
        let mut ids: Vec<_> = m.property.iter().map(|p| &p.id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), m.property.len(), "duplicate property ids");
    }
}
