//! The conformance report: summary table, `report.md`, `report.json`, and the
//! runtime signature that says where and on what it ran.

use crate::{Outcome, PropertyResult, Tier};
use serde::Serialize;
use std::path::Path;
use std::process::Command;

/// Where and on what a run happened.
#[derive(Debug, Clone, Serialize)]
pub struct Signature {
    /// Backends run, each with its description (GPU name, driver, NVRTC version).
    pub backends: Vec<(String, String)>,
    /// Backends requested but not available, with the reason.
    pub missing: Vec<(String, String)>,
    /// Tier.
    pub tier: Tier,
    /// `git rev-parse HEAD` of the checkout the run happened in (with
    /// "-dirty" when the tree has changes).
    pub commit: String,
    /// The commit the binary was built from (embedded at build time; with
    /// "-dirty" when crates/ had uncommitted changes then).
    pub build_commit: String,
    /// OS and kernel.
    pub os: String,
    /// UTC date and time.
    pub date: String,
    /// CPU threads used by the CPU backend.
    pub cpu_threads: usize,
}

fn cmd(prog: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(prog).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

impl Signature {
    /// Collects the signature of this run.
    pub fn collect(
        backends: Vec<(String, String)>,
        missing: Vec<(String, String)>,
        tier: Tier,
    ) -> Self {
        let commit = cmd("git", &["rev-parse", "HEAD"]).map_or_else(
            || "unknown (not a git checkout)".into(),
            |c| {
                let dirty = cmd("git", &["status", "--porcelain", "--untracked-files=no"])
                    .is_some_and(|s| !s.is_empty());
                if dirty {
                    format!("{c}-dirty")
                } else {
                    c
                }
            },
        );
        let os = format!(
            "{} {} ({})",
            std::env::consts::OS,
            cmd("uname", &["-r"]).unwrap_or_default(),
            std::env::consts::ARCH
        );
        let date = cmd("date", &["-u", "+%Y-%m-%dT%H:%M:%SZ"]).unwrap_or_else(|| "unknown".into());
        Signature {
            backends,
            missing,
            tier,
            commit,
            build_commit: env!("TAILRACE_BUILD_COMMIT").to_string(),
            os,
            date,
            cpu_threads: rayon::current_num_threads(),
        }
    }
}

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Where it ran.
    pub signature: Signature,
    /// Per property.
    pub properties: Vec<PropertyResult>,
}

impl Report {
    /// Whether any property was violated on any backend.
    pub fn violated(&self) -> bool {
        self.properties.iter().any(|p| {
            p.results
                .iter()
                .any(|r| matches!(r.1, Outcome::Violated { .. }))
        })
    }

    /// Counts of (verified, violated, not verified) cells.
    pub fn counts(&self) -> (usize, usize, usize) {
        let mut c = (0, 0, 0);
        for p in &self.properties {
            for (_, o, _) in &p.results {
                match o {
                    Outcome::Verified { .. } | Outcome::ExpectedFailure { .. } => c.0 += 1,
                    Outcome::Violated { .. } => c.1 += 1,
                    Outcome::NotVerified { .. } => c.2 += 1,
                }
            }
        }
        c
    }

    fn backends(&self) -> Vec<String> {
        let mut b: Vec<String> = self
            .signature
            .backends
            .iter()
            .map(|x| x.0.clone())
            .collect();
        b.extend(self.signature.missing.iter().map(|x| x.0.clone()));
        b
    }

    /// The summary table (plain text for the terminal).
    pub fn summary(&self) -> String {
        let names = self.backends();
        let width = self
            .properties
            .iter()
            .map(|p| p.id.len())
            .max()
            .unwrap_or(8)
            .max(8);
        let mut s = format!("{:width$}", "property");
        for n in &names {
            s += &format!("  {n:<14}");
        }
        s.push('\n');
        for p in &self.properties {
            s += &format!("{:width$}", p.id);
            for n in &names {
                let cell = p
                    .results
                    .iter()
                    .find(|r| &r.0 == n)
                    .map_or("n/a", |r| match r.1 {
                        Outcome::Verified { .. } => "verified",
                        Outcome::ExpectedFailure { .. } => "verified*",
                        Outcome::Violated { .. } => "VIOLATED",
                        Outcome::NotVerified { .. } => "not verified",
                    });
                s += &format!("  {cell:<14}");
            }
            s.push('\n');
        }
        let (v, x, n) = self.counts();
        s += &format!("\n{v} verified, {x} violated, {n} not verified (n/a: the property does not apply to that backend; *: expected failures of the lossy profiles shown)\n");
        s
    }

    /// The Markdown report.
    pub fn markdown(&self) -> String {
        let sig = &self.signature;
        let mut s = String::from("# tailrace conformance report\n\n");
        s += &format!(
            "- date: {}\n- built from commit: {}\n- run in checkout: {}\n- os: {}\n- tier: {}\n- CPU threads: {}\n",
            sig.date,
            sig.build_commit,
            sig.commit,
            sig.os,
            sig.tier.name(),
            sig.cpu_threads
        );
        for (b, d) in &sig.backends {
            s += &format!("- backend `{b}`: {d}\n");
        }
        for (b, d) in &sig.missing {
            s += &format!("- backend `{b}`: not available ({d})\n");
        }
        s += "\n## Summary\n\n```\n";
        s += &self.summary();
        s += "```\n\n## Properties\n";
        for p in &self.properties {
            s += &format!("\n### {}\n\n{} ({})\n\n", p.id, p.statement, p.spec);
            for (b, o, secs) in &p.results {
                s += &format!("- **{b}**: {} ({secs:.1} s)", o.label());
                let d = o.detail();
                if d.contains('\n') {
                    s += &format!("\n\n{d}\n\n");
                } else {
                    s += &format!(": {d}\n");
                }
            }
        }
        s
    }

    /// Writes `report.md` and `report.json` into `dir`.
    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        std::fs::write(dir.join("report.md"), self.markdown())?;
        let json = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        std::fs::write(dir.join("report.json"), json)
    }
}
