//! # tailrace-conformance
//!
//! The determinism manifest (`spec/manifest.toml`), checked property by
//! property against every sampler backend present. Each property is written
//! once against the [`Sampler`] trait; its outcome on a backend is one of
//! three states: verified (with evidence), violated (with the smallest
//! failing case found) or not verified (with the reason). A property that was
//! not run is never reported as passing.
//!
//! Architecture invariants: the CPU model is the reference every other
//! backend is compared with; checks are deterministic (fixed seeds); a check
//! that panics is reported as violated, never as passed.
#![deny(missing_docs)]

pub mod checks;
pub mod gen;
pub mod manifest;
pub mod report;
pub mod sampler;

pub use sampler::{BatchInput, CpuSampler, Geometry, Logits, Sampler};

use serde::Serialize;
use std::time::Instant;

/// A file of the repository: relative to the working directory when run from
/// the repository root (as on a machine the binary was carried to), else
/// relative to where this crate was built.
pub fn repo_path(rel: &str) -> std::path::PathBuf {
    let here = std::path::Path::new(rel);
    if here.exists() {
        here.to_path_buf()
    } else {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(rel)
    }
}

/// How much work each property does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// CI on a CPU: minutes.
    Quick,
    /// One GPU: about five minutes.
    Full,
    /// As deep as time allows.
    Deep,
}

impl std::str::FromStr for Tier {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "quick" => Ok(Tier::Quick),
            "full" => Ok(Tier::Full),
            "deep" => Ok(Tier::Deep),
            _ => Err(format!("unknown tier {s:?} (quick, full, deep)")),
        }
    }
}

impl Tier {
    /// The tier's name.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Quick => "quick",
            Tier::Full => "full",
            Tier::Deep => "deep",
        }
    }
}

/// The three-state outcome of one property on one backend.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Outcome {
    /// The property held on every case run.
    Verified {
        /// What was run.
        evidence: String,
    },
    /// The property failed.
    Violated {
        /// The smallest failing case found and what went wrong.
        case: String,
    },
    /// The property was not run on this backend.
    NotVerified {
        /// Why.
        reason: String,
    },
    /// A check that by design shows a known defect of a backend or profile (non-vacuity).
    ExpectedFailure {
        /// What was shown.
        evidence: String,
    },
}

impl Outcome {
    /// Verified with evidence.
    pub fn verified(e: impl Into<String>) -> Self {
        Outcome::Verified { evidence: e.into() }
    }
    /// Violated with a case.
    pub fn violated(c: impl Into<String>) -> Self {
        Outcome::Violated { case: c.into() }
    }
    /// Not verified with a reason.
    pub fn not_verified(r: impl Into<String>) -> Self {
        Outcome::NotVerified { reason: r.into() }
    }
    /// The short label for tables.
    pub fn label(&self) -> &'static str {
        match self {
            Outcome::Verified { .. } => "verified",
            Outcome::Violated { .. } => "VIOLATED",
            Outcome::NotVerified { .. } => "not verified",
            Outcome::ExpectedFailure { .. } => "verified (expected failures shown)",
        }
    }
    /// The detail text.
    pub fn detail(&self) -> &str {
        match self {
            Outcome::Verified { evidence } | Outcome::ExpectedFailure { evidence } => evidence,
            Outcome::Violated { case } => case,
            Outcome::NotVerified { reason } => reason,
        }
    }
}

/// What every check gets.
pub struct Ctx {
    /// The tier.
    pub tier: Tier,
    /// The reference backend.
    pub reference: CpuSampler,
    /// Progress display.
    pub progress: indicatif::ProgressBar,
}

impl Ctx {
    /// A count scaled by tier: `quick`, `full`, `deep`.
    pub fn scale(&self, quick: usize, full: usize, deep: usize) -> usize {
        match self.tier {
            Tier::Quick => quick,
            Tier::Full => full,
            Tier::Deep => deep,
        }
    }

    /// Updates the progress message.
    pub fn note(&self, msg: impl Into<String>) {
        self.progress.set_message(msg.into());
    }
}

/// One property's results across backends.
#[derive(Debug, Clone, Serialize)]
pub struct PropertyResult {
    /// Property id.
    pub id: String,
    /// Its statement.
    pub statement: String,
    /// Spec section.
    pub spec: String,
    /// Per backend: name, outcome, seconds.
    pub results: Vec<(String, Outcome, f64)>,
}

/// Runs every manifest property of `tier` (and lower tiers) on each backend.
/// Backends a property does not apply to are reported "not applicable" only
/// when the manifest says so; a missing backend is reported "not verified".
pub fn run_suite(
    backends: &[&dyn Sampler],
    missing: &[(String, String)],
    tier: Tier,
    only: Option<&str>,
) -> Vec<PropertyResult> {
    let manifest = manifest::load();
    let bar = if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        indicatif::ProgressBar::new(manifest.property.len() as u64)
    } else {
        indicatif::ProgressBar::hidden()
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let ctx = Ctx {
        tier,
        reference: CpuSampler,
        progress: bar.clone(),
    };
    let mut out = Vec::new();
    for prop in &manifest.property {
        bar.inc(1);
        if only.is_some_and(|o| o != prop.id) {
            continue;
        }
        let check = checks::find(&prop.id);
        let mut results = Vec::new();
        for b in backends {
            let name = b.name();
            if !prop.backends.iter().any(|x| x == name) {
                continue;
            }
            let outcome = match check {
                None => Outcome::violated(format!("manifest property {} has no check", prop.id)),
                Some(_) if prop.tier > tier => Outcome::not_verified(format!(
                    "runs in the {} tier; this run is {}",
                    prop.tier.name(),
                    tier.name()
                )),
                Some(f) => {
                    ctx.note(format!("{} on {name}", prop.id));
                    let t0 = Instant::now();
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&ctx, *b)));
                    let o = r.unwrap_or_else(|p| {
                        let msg = p
                            .downcast_ref::<String>()
                            .cloned()
                            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_default();
                        Outcome::violated(format!("the check panicked: {msg}"))
                    });
                    results.push((name.to_string(), o, t0.elapsed().as_secs_f64()));
                    continue;
                }
            };
            results.push((name.to_string(), outcome, 0.0));
        }
        for (name, reason) in missing {
            if prop.backends.iter().any(|x| x == name) {
                results.push((name.clone(), Outcome::not_verified(reason.clone()), 0.0));
            }
        }
        out.push(PropertyResult {
            id: prop.id.clone(),
            statement: prop.statement.clone(),
            spec: prop.spec.clone(),
            results,
        });
    }
    bar.finish_and_clear();
    out
}

pub mod cuda;
