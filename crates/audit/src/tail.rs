//! The tail-rate audit: draws from rows `[0, -D, ..., -D]` (binary32,
//! `T = 1`) miss token 0 at the exact rate `(V-1) r / (1 + (V-1) r)`,
//! `r = e^-D`. A sampler whose noise cannot reach `D` nats misses too rarely;
//! one with coarse noise near its cap misses at the wrong rate. spec:
//! SAMPLER.md §5 (the law); the table is the one of the Megatron-LM fp64
//! sampling-noise change.

use crate::stats::{poisson_interval, poisson_two_sided};
use crate::{AuditError, ALPHA};
use serde::Serialize;
use std::fmt::Write as _;
use tailrace_model::MAX_VOCAB;

/// A tail row: `V` tokens, token 0 at 0 and the others at `-D`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TailRow {
    /// Vocabulary size.
    pub vocab: usize,
    /// The nominal `r = e^-D`.
    pub r: f64,
    /// `D` as stored: the binary32 rounding of `-ln r`.
    pub d_used: f32,
    /// `r' = e^-D'` of the binary32 `D'` actually used.
    pub r_used: f64,
    /// `P(miss) = (V-1) r' / (1 + (V-1) r')` under the exact law.
    pub miss_rate: f64,
}

impl TailRow {
    /// The row for `vocab` tokens and ratio `r` (`0 < r`, `2 <= vocab <= 2^31`).
    pub fn new(vocab: usize, r: f64) -> Result<Self, AuditError> {
        if !(2..=MAX_VOCAB).contains(&vocab) {
            return Err(AuditError::Usage(format!(
                "tail vocabulary {vocab} is out of range: need 2 <= V <= 2^31"
            )));
        }
        if !(r > 0.0 && r.is_finite()) {
            return Err(AuditError::Usage(format!(
                "tail ratio r = {r} is invalid: need a finite r > 0 (r = e^-D)"
            )));
        }
        let d_used = (-r.ln()) as f32;
        let r_used = (-f64::from(d_used)).exp();
        let q = (vocab - 1) as f64 * r_used;
        let miss_rate = q / (1.0 + q);
        if miss_rate.is_nan() || miss_rate <= 0.0 {
            return Err(AuditError::Usage(format!(
                "tail ratio r = {r:e} at V = {vocab}: the miss rate underflows"
            )));
        }
        Ok(TailRow {
            vocab,
            r,
            d_used,
            r_used,
            miss_rate,
        })
    }

    /// The logits row `[0, -D', ..., -D']`.
    pub fn logits(&self) -> Vec<f32> {
        let mut x = vec![-self.d_used; self.vocab];
        x[0] = 0.0;
        x
    }
}

/// Where a cell's count lies relative to its interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TailVerdict {
    /// Inside the interval.
    Inside,
    /// Too few misses: the tail is under-sampled (noise too shallow).
    Below,
    /// Too many misses: the tail is over-sampled.
    Above,
}

impl TailVerdict {
    fn text(self) -> &'static str {
        match self {
            TailVerdict::Inside => "inside",
            TailVerdict::Below => "BELOW the interval",
            TailVerdict::Above => "ABOVE the interval",
        }
    }
}

/// One cell: one `r`, its draws and misses.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TailCell {
    /// The row.
    #[serde(flatten)]
    pub row: TailRow,
    /// Draws.
    pub draws: u64,
    /// Expected misses: `draws * P(miss)`.
    pub expected: f64,
    /// The counts inside the two-sided interval at the per-cell level.
    pub interval: (u64, u64),
    /// Observed misses.
    pub observed: u64,
    /// Two-sided Poisson p-value of `observed`.
    pub p_value: f64,
    /// The verdict at the per-cell level.
    pub verdict: TailVerdict,
}

/// The audit of a set of cells.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TailAudit {
    /// Family-wise significance ([`ALPHA`]).
    pub alpha: f64,
    /// Per-cell significance: `alpha / cells` (Bonferroni).
    pub alpha_per_cell: f64,
    /// The cells, in the order given.
    pub cells: Vec<TailCell>,
    /// Whether every cell is inside its interval.
    pub pass: bool,
}

/// Observed draws of one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TailObservation {
    /// Draws.
    pub draws: u64,
    /// Draws other than token 0.
    pub misses: u64,
}

/// Audits cells `(row, observation)` against the exact law at family-wise
/// level [`ALPHA`], Bonferroni across the cells.
pub fn tail_audit(cells: &[(TailRow, TailObservation)]) -> Result<TailAudit, AuditError> {
    if cells.is_empty() {
        return Err(AuditError::Usage("no tail cells to audit".into()));
    }
    let alpha_per_cell = ALPHA / cells.len() as f64;
    let mut out = Vec::with_capacity(cells.len());
    for &(row, obs) in cells {
        if obs.draws == 0 {
            return Err(AuditError::Usage(format!(
                "tail cell r = {:e}: no draws",
                row.r
            )));
        }
        if obs.misses > obs.draws {
            return Err(AuditError::Usage(format!(
                "tail cell r = {:e}: {} misses exceed {} draws",
                row.r, obs.misses, obs.draws
            )));
        }
        let expected = obs.draws as f64 * row.miss_rate;
        let interval = poisson_interval(expected, alpha_per_cell);
        let p_value = poisson_two_sided(expected, obs.misses);
        let verdict = if obs.misses < interval.0 {
            TailVerdict::Below
        } else if obs.misses > interval.1 {
            TailVerdict::Above
        } else {
            TailVerdict::Inside
        };
        out.push(TailCell {
            row,
            draws: obs.draws,
            expected,
            interval,
            observed: obs.misses,
            p_value,
            verdict,
        });
    }
    let pass = out.iter().all(|c| c.verdict == TailVerdict::Inside);
    Ok(TailAudit {
        alpha: ALPHA,
        alpha_per_cell,
        cells: out,
        pass,
    })
}

/// `2.0e5`-style count.
fn sci(n: u64) -> String {
    if n < 10_000 {
        n.to_string()
    } else {
        format!("{:.1e}", n as f64)
    }
}

/// A p-value: two significant digits, scientific below 0.01.
pub(crate) fn p_str(p: f64) -> String {
    if p.is_nan() {
        "n/a".into()
    } else if p >= 0.01 {
        format!("{p:.2}")
    } else if p == 0.0 {
        "< 1e-300".into()
    } else {
        format!("{p:.0e}")
    }
}

impl TailAudit {
    /// The Markdown report: a short header, the table and the verdict.
    pub fn to_markdown(&self) -> String {
        let mut s = String::new();
        let vocabs: Vec<String> = {
            let mut v: Vec<usize> = self.cells.iter().map(|c| c.row.vocab).collect();
            v.dedup();
            v.iter().map(|v| v.to_string()).collect()
        };
        let _ = writeln!(s, "## Tail-rate audit\n");
        let _ = writeln!(
            s,
            "Rows `[0, -D, ..., -D]` in float32, T = 1, V = {}. A miss is a draw other than token 0; \
             under the exact law P(miss) = (V-1) r' / (1 + (V-1) r') with r' = e^-D' for the \
             float32 D' actually used. p: two-sided Poisson p-value. Verdict against the two-sided \
             {:.0e} interval, Bonferroni over {} cell(s) ({:.1e} per cell).\n",
            vocabs.join(", "),
            self.alpha,
            self.cells.len(),
            self.alpha_per_cell
        );
        let _ = writeln!(
            s,
            "| r = e^-D | D (float32) | draws | expected | interval | observed | p | verdict |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|---|---|");
        for c in &self.cells {
            let _ = writeln!(
                s,
                "| {:e} | {} | {} | {:.1} | {}..{} | {} | {} | {} |",
                c.row.r,
                c.row.d_used,
                sci(c.draws),
                c.expected,
                c.interval.0,
                c.interval.1,
                c.observed,
                p_str(c.p_value),
                c.verdict.text()
            );
        }
        let outside = self
            .cells
            .iter()
            .filter(|c| c.verdict != TailVerdict::Inside)
            .count();
        let _ = writeln!(
            s,
            "\n**Verdict: {}** ({} of {} cell(s) outside the interval)",
            if self.pass { "PASS" } else { "FAIL" },
            outside,
            self.cells.len()
        );
        s
    }
}
