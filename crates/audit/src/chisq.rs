//! The chi-square audit of draws from an arbitrary logits row against the
//! filtered exact law `P(i) ∝ exp(a_i / T)` over the model's survivors.
//! spec: SAMPLER.md §4 (filters), §5 (law).

use crate::draws::Counts;
use crate::stats::{chi_square_p_value, chi_square_quantile};
use crate::tail::p_str;
use crate::{AuditError, ALPHA};
use serde::Serialize;
use std::fmt::Write as _;
use tailrace_model::race::{PreparedRow, RowData};
use tailrace_model::{filter, LogitBias, RawParams, RowStatus, SamplingParams};

/// Cells whose expected count is below this are pooled into one bin.
pub const MIN_EXPECTED: f64 = 5.0;

/// The exact law of one row under its parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct ExactLaw {
    /// Vocabulary size.
    pub vocab: usize,
    /// Greedy decoding (T = 0 or top-k = 1): a point mass.
    pub greedy: bool,
    /// The survivors of the filters, ascending.
    pub survivors: Vec<u32>,
    /// Their probabilities (same order), summing to 1.
    pub probs: Vec<f64>,
}

/// The law of `logits` + `bias` under `params`: survivors from the model's
/// own filters, probabilities from the scaled logits in binary64.
pub fn exact_law(
    logits: &[f32],
    bias: &LogitBias,
    params: &SamplingParams,
) -> Result<ExactLaw, AuditError> {
    let vocab = logits.len();
    bias.validate(vocab)?;
    let dense = bias.to_dense(vocab);
    let row = RowData::new(logits, dense.as_deref());
    let whole = 0..vocab;
    let prep = PreparedRow::new(row, *params, std::slice::from_ref(&whole), false);
    match prep.scan.status() {
        RowStatus::Ok => {}
        RowStatus::NonFiniteLogit => {
            return Err(AuditError::Usage(
                "the row holds a NaN or +inf logit (after bias): the model draws no token from it"
                    .into(),
            ))
        }
        RowStatus::AllMasked => {
            return Err(AuditError::Usage(
                "every token of the row is masked (-inf): the model draws no token from it".into(),
            ))
        }
    }
    if params.is_greedy() {
        return Ok(ExactLaw {
            vocab,
            greedy: true,
            survivors: vec![prep.scan.top.1],
            probs: vec![1.0],
        });
    }
    let survivors: Vec<u32> = match prep.cut {
        Some(c) => filter::survivors(&row, c),
        None => (0..vocab)
            .filter(|&i| row.a(i) > f64::NEG_INFINITY)
            .map(|i| i as u32)
            .collect(),
    };
    let (a_max, t) = (prep.scan.top.0, params.temp());
    let w: Vec<f64> = survivors
        .iter()
        .map(|&i| ((row.a(i as usize) - a_max) / t).exp())
        .collect();
    let z: f64 = w.iter().sum();
    Ok(ExactLaw {
        vocab,
        greedy: false,
        survivors,
        probs: w.iter().map(|v| v / z).collect(),
    })
}

/// A drawn token the law gives probability zero.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// The token.
    pub token: u32,
    /// How often it was drawn.
    pub count: u64,
}

/// One bin's share of the statistic.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Contribution {
    /// The token, or None for the pooled bin.
    pub token: Option<u32>,
    /// Cells in the bin.
    pub cells: usize,
    /// Expected draws.
    pub expected: f64,
    /// Observed draws.
    pub observed: u64,
    /// `(observed - expected)^2 / expected`.
    pub contribution: f64,
}

/// The chi-square audit of one row's draws.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChiSquareAudit {
    /// What row was audited (file, tensor, row), as the caller named it.
    pub row: String,
    /// Vocabulary size.
    pub vocab: usize,
    /// The parameters of the law.
    pub params: RawParams,
    /// Survivors of the filters.
    pub survivors: usize,
    /// All draws.
    pub draws: u64,
    /// Draws of tokens outside the survivor set.
    pub violating_draws: u64,
    /// Those tokens.
    pub violations: Vec<Violation>,
    /// Bins of the test (after pooling).
    pub bins: usize,
    /// Cells pooled into one bin because their expected count was below [`MIN_EXPECTED`].
    pub pooled_cells: usize,
    /// The statistic over the draws inside the survivor set.
    pub statistic: f64,
    /// Degrees of freedom: bins - 1.
    pub dof: usize,
    /// Significance ([`ALPHA`]).
    pub alpha: f64,
    /// The `1 - alpha` quantile of chi-square with `dof` degrees of freedom.
    pub quantile: f64,
    /// `P(X >= statistic)`.
    pub p_value: f64,
    /// The bins that contribute most, largest first (at most 10).
    pub largest: Vec<Contribution>,
    /// Pass: no violation and the statistic below the quantile.
    pub pass: bool,
    /// A caveat, e.g. too few draws for any test.
    pub note: Option<String>,
}

/// Tests `counts` against `law`. `row` names the row in the report.
pub fn chi_square_audit(
    law: &ExactLaw,
    params: &SamplingParams,
    counts: &Counts,
    row: String,
) -> Result<ChiSquareAudit, AuditError> {
    if counts.total == 0 {
        return Err(AuditError::Usage("no draws to audit".into()));
    }
    let mut violations = Vec::new();
    for (&token, &count) in &counts.by_token {
        if law.survivors.binary_search(&token).is_err() {
            violations.push(Violation { token, count });
        }
    }
    let violating_draws: u64 = violations.iter().map(|v| v.count).sum();
    let n = counts.total - violating_draws;
    // Bins: one per cell with expected >= MIN_EXPECTED, the rest pooled.
    let mut bins: Vec<Contribution> = Vec::new();
    let mut pooled = Contribution {
        token: None,
        cells: 0,
        expected: 0.0,
        observed: 0,
        contribution: 0.0,
    };
    for (&t, &p) in law.survivors.iter().zip(&law.probs) {
        let e = p * n as f64;
        let o = counts.get(t);
        if e >= MIN_EXPECTED {
            bins.push(Contribution {
                token: Some(t),
                cells: 1,
                expected: e,
                observed: o,
                contribution: 0.0,
            });
        } else {
            pooled.cells += 1;
            pooled.expected += e;
            pooled.observed += o;
        }
    }
    let pooled_cells = pooled.cells;
    if pooled.cells > 0 {
        if pooled.expected < MIN_EXPECTED && !bins.is_empty() {
            // Still too small: fold it into the smallest bin.
            let j = (0..bins.len())
                .min_by(|&x, &y| bins[x].expected.total_cmp(&bins[y].expected))
                .expect("non-empty");
            let b = &mut bins[j];
            b.token = None;
            b.cells += pooled.cells;
            b.expected += pooled.expected;
            b.observed += pooled.observed;
        } else {
            bins.push(pooled);
        }
    }
    let mut statistic = 0.0;
    for b in bins.iter_mut() {
        if b.expected > 0.0 {
            b.contribution = (b.observed as f64 - b.expected).powi(2) / b.expected;
            statistic += b.contribution;
        }
    }
    let dof = bins.len().saturating_sub(1);
    let (quantile, p_value, note) = if dof == 0 {
        let why = if law.survivors.len() == 1 {
            "one survivor: every draw must be it; no statistic to test"
        } else {
            "too few draws for two bins of expected count >= 5: only violations are checked"
        };
        (f64::NAN, f64::NAN, Some(why.to_owned()))
    } else {
        (
            chi_square_quantile(dof, ALPHA),
            chi_square_p_value(dof, statistic),
            None,
        )
    };
    let pass = violations.is_empty() && (dof == 0 || statistic < quantile);
    let mut largest = bins.clone();
    largest.sort_by(|x, y| y.contribution.total_cmp(&x.contribution));
    largest.truncate(10);
    Ok(ChiSquareAudit {
        row,
        vocab: law.vocab,
        params: params.raw(),
        survivors: law.survivors.len(),
        draws: counts.total,
        violating_draws,
        violations,
        bins: bins.len(),
        pooled_cells,
        statistic,
        dof,
        alpha: ALPHA,
        quantile,
        p_value,
        largest,
        pass,
        note,
    })
}

impl ChiSquareAudit {
    /// The Markdown report.
    pub fn to_markdown(&self) -> String {
        let mut s = String::new();
        let p = &self.params;
        let _ = writeln!(s, "## Chi-square audit\n");
        let _ = writeln!(
            s,
            "Row: {}, V = {}. Law: exact softmax of the scaled logits over the filter survivors \
             (T = {}, top-k = {}, top-p = {}, min-p = {}): {} survivor(s).\n",
            self.row, self.vocab, p.temperature, p.top_k, p.top_p, p.min_p, self.survivors
        );
        let _ = writeln!(
            s,
            "Draws: {} ({} outside the survivor set). Bins: {} ({} cell(s) with expected count < {} pooled).\n",
            self.draws, self.violating_draws, self.bins, self.pooled_cells, MIN_EXPECTED
        );
        let _ = writeln!(
            s,
            "| statistic | dof | {:.0e} quantile | p | verdict |",
            self.alpha
        );
        let _ = writeln!(s, "|---|---|---|---|---|");
        let q = if self.quantile.is_nan() {
            "n/a".to_owned()
        } else {
            format!("{:.2}", self.quantile)
        };
        let _ = writeln!(
            s,
            "| {:.2} | {} | {} | {} | {} |",
            self.statistic,
            self.dof,
            q,
            p_str(self.p_value),
            if self.dof == 0 {
                "n/a"
            } else if self.statistic < self.quantile {
                "below the quantile"
            } else {
                "ABOVE the quantile"
            }
        );
        if let Some(n) = &self.note {
            let _ = writeln!(s, "\nNote: {n}.");
        }
        if !self.violations.is_empty() {
            let _ = writeln!(
                s,
                "\nViolations: tokens outside the survivor set (probability 0 under the law):\n"
            );
            let _ = writeln!(s, "| token | draws |\n|---|---|");
            for v in self.violations.iter().take(50) {
                let _ = writeln!(s, "| {} | {} |", v.token, v.count);
            }
            if self.violations.len() > 50 {
                let _ = writeln!(s, "\n... and {} more.", self.violations.len() - 50);
            }
        }
        if self.dof > 0 {
            let _ = writeln!(s, "\nLargest contributions:\n");
            let _ = writeln!(
                s,
                "| bin | expected | observed | (o - e)^2 / e |\n|---|---|---|---|"
            );
            for b in &self.largest {
                let bin = match b.token {
                    Some(t) => format!("token {t}"),
                    None => format!("pooled ({} cells)", b.cells),
                };
                let _ = writeln!(
                    s,
                    "| {bin} | {:.1} | {} | {:.2} |",
                    b.expected, b.observed, b.contribution
                );
            }
        }
        let _ = writeln!(
            s,
            "\n**Verdict: {}**",
            if self.pass { "PASS" } else { "FAIL" }
        );
        s
    }
}
