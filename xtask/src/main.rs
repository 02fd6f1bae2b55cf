//! `cargo xtask`: project automation.
//!
//! `cargo xtask conformance [--backend cpu|cuda|all] [--tier quick|full|deep] [--out DIR]`
//! runs the determinism manifest on the backends present and writes
//! `report.md` and `report.json`; it exits non-zero on any violation.

use anyhow::Result;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use tailrace_conformance::report::{Report, Signature};
use tailrace_conformance::{run_suite, CpuSampler, Sampler, Tier};

#[derive(Parser)]
#[command(name = "cargo xtask", about = "tailrace project tasks")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Backend {
    Cpu,
    Cuda,
    All,
}

#[derive(Subcommand)]
enum Cmd {
    /// Check every manifest property on the best backends present.
    Conformance {
        /// Which backends to run (all: every backend present; a missing one is reported as not verified).
        #[arg(long, value_enum, default_value = "all")]
        backend: Backend,
        /// How deep to go.
        #[arg(long, default_value = "quick")]
        tier: Tier,
        /// Where to write report.md and report.json.
        #[arg(long, default_value = "target/conformance")]
        out: PathBuf,
        /// Run only this property id.
        #[arg(long)]
        only: Option<String>,
    },
}

fn main() -> Result<()> {
    match Cli::parse().cmd {
        Cmd::Conformance {
            backend,
            tier,
            out,
            only,
        } => conformance(backend, tier, out, only),
    }
}

fn conformance(backend: Backend, tier: Tier, out: PathBuf, only: Option<String>) -> Result<()> {
    let cpu = CpuSampler;
    let mut backends: Vec<&dyn Sampler> = Vec::new();
    let mut missing: Vec<(String, String)> = Vec::new();
    if backend != Backend::Cuda {
        backends.push(&cpu);
    }
    let cuda = if backend != Backend::Cpu {
        tailrace_conformance::cuda::open()
    } else {
        Err("not requested".into())
    };
    match &cuda {
        Ok(c) => backends.push(c.as_ref()),
        Err(reason) if backend != Backend::Cpu => {
            eprintln!("note: CUDA backend not available ({reason}); its properties are reported as not verified");
            if backend == Backend::Cuda {
                eprintln!("note: falling back to the CPU reference model");
                backends.push(&cpu);
            }
            missing.push(("cuda".into(), reason.clone()));
        }
        Err(_) => {}
    }
    let described = backends
        .iter()
        .map(|b| (b.name().to_string(), b.describe()))
        .collect();
    eprintln!(
        "running the {} tier on: {}",
        tier.name(),
        backends
            .iter()
            .map(|b| b.name())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let properties = run_suite(&backends, &missing, tier, only.as_deref());
    let report = Report {
        signature: Signature::collect(described, missing, tier),
        properties,
    };
    report.write(&out)?;
    print!("{}", report.summary());
    println!("report: {}", out.join("report.md").display());
    if report.violated() {
        for p in &report.properties {
            for (b, o, _) in &p.results {
                if let tailrace_conformance::Outcome::Violated { case } = o {
                    println!(
                        "VIOLATED {} on {b}: {}",
                        p.id,
                        case.lines().next().unwrap_or("")
                    );
                }
            }
        }
        std::process::exit(1);
    }
    Ok(())
}
