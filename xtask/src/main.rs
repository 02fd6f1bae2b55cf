//! `cargo xtask`: project automation.
//!
//! `cargo xtask conformance [--backend cpu|cuda|all] [--tier quick|full|deep] [--out DIR]`
//! runs the determinism manifest on the backends present and writes
//! `report.md` and `report.json`; it exits non-zero on any violation.
//!
//! `cargo xtask bench [--out DIR] [--iters N] [--no-baselines]` times the CUDA
//! sampler over the benchmark grid (`tailrace-cuda-check grid`), the torch and
//! Triton baselines (`bench/baselines.py`) in the same call, merges both
//! into `report.md`/`report.json` (`bench/report.py`) and reads the benchmark
//! issue's targets off it into `targets.md` (`bench/targets.py`), with the
//! B = 1 kernel time from Nsight Compute where `ncu` is installed. It needs a
//! GPU.

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
    /// Time the CUDA sampler over V x B x profile x mode next to the torch/Triton baselines.
    Bench {
        /// Where to write tailrace.json, baselines.json, report.md and report.json.
        #[arg(long, default_value = "target/bench")]
        out: PathBuf,
        /// Timed calls per configuration (the median is reported; at least 50).
        #[arg(long, default_value_t = 60)]
        iters: usize,
        /// Skip the Python baselines (tailrace's own grid only).
        #[arg(long)]
        no_baselines: bool,
    },
}

fn main() {
    if let Err(e) = run(Cli::parse()) {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.cmd {
        Cmd::Conformance {
            backend,
            tier,
            out,
            only,
        } => conformance(backend, tier, out, only),
        Cmd::Bench {
            out,
            iters,
            no_baselines,
        } => bench(&out, iters, no_baselines),
    }
}

/// Runs a command, failing with its name when it cannot start or exits non-zero.
fn run_step(what: &str, cmd: &mut std::process::Command) -> Result<()> {
    eprintln!("== {what}");
    let status = cmd
        .status()
        .map_err(|e| anyhow::anyhow!("{what}: could not start: {e}"))?;
    if !status.success() {
        anyhow::bail!("{what} failed ({status})");
    }
    Ok(())
}

fn bench(out: &std::path::Path, iters: usize, no_baselines: bool) -> Result<()> {
    if iters < 50 {
        anyhow::bail!("--iters must be at least 50 (medians of fewer calls are too noisy)");
    }
    std::fs::create_dir_all(out)?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let tailrace_json = out.join("tailrace.json");
    run_step(
        "tailrace grid (tailrace-cuda-check grid; needs a CUDA GPU)",
        std::process::Command::new(&cargo)
            .args([
                "run",
                "--release",
                "-q",
                "-p",
                "tailrace-cuda",
                "--bin",
                "tailrace-cuda-check",
                "--",
                "--iters",
                &iters.to_string(),
                "--out",
            ])
            .arg(&tailrace_json)
            .arg("grid"),
    )?;
    if no_baselines {
        println!("tailrace timings: {}", tailrace_json.display());
        return Ok(());
    }
    let baselines_json = out.join("baselines.json");
    run_step(
        "baselines (bench/baselines.py: torch and Triton on the same GPU)",
        std::process::Command::new("python3")
            .arg("bench/baselines.py")
            .arg("--out")
            .arg(&baselines_json),
    )?;
    run_step(
        "report (bench/report.py)",
        std::process::Command::new("python3")
            .arg("bench/report.py")
            .arg("--tailrace")
            .arg(&tailrace_json)
            .arg("--baselines")
            .arg(&baselines_json)
            .arg("--out-md")
            .arg(out.join("report.md"))
            .arg("--out-json")
            .arg(out.join("report.json")),
    )?;
    // The issue states the B = 1 target as kernel time: Nsight Compute's
    // duration of the plain race, where `ncu` is installed.
    let ncu_csv = out.join("ncu-b1.csv");
    let kernel_time = kernel_time_b1(&ncu_csv);
    let mut targets = std::process::Command::new("python3");
    targets
        .arg("bench/targets.py")
        .arg(out.join("report.json"))
        .arg("--out")
        .arg(out.join("targets.md"));
    if kernel_time {
        targets.arg("--kernel-time").arg(&ncu_csv);
    }
    run_step(
        "targets (bench/targets.py: the benchmark issue's targets from the report)",
        &mut targets,
    )?;
    println!(
        "report: {}, targets: {}",
        out.join("report.md").display(),
        out.join("targets.md").display()
    );
    Ok(())
}

/// Writes Nsight Compute's durations of five B = 1 plain calls to `csv`;
/// false (with the reason printed) where `ncu` is missing or fails, and the
/// kernel-time target then stays out of `targets.md`.
fn kernel_time_b1(csv: &std::path::Path) -> bool {
    let target = std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| "target".into());
    let bin = std::path::Path::new(&target).join("release/tailrace-cuda-check");
    let file = match std::fs::File::create(csv) {
        Ok(f) => f,
        Err(e) => {
            println!("kernel time at B = 1 not measured: {}: {e}", csv.display());
            return false;
        }
    };
    let status = std::process::Command::new("ncu")
        .args([
            "--clock-control",
            "none",
            "--kernel-name",
            "regex:tr_fast",
            "--csv",
            "--page",
            "raw",
            "--metrics",
            "gpu__time_duration.sum,smsp__inst_executed.sum",
        ])
        .arg(&bin)
        .args(["bench", "--rows", "1", "--reps", "5"])
        .stdout(file)
        .status();
    match status {
        Ok(s) if s.success() => true,
        Ok(s) => {
            println!(
                "kernel time at B = 1 not measured: ncu failed ({s}); see {}",
                csv.display()
            );
            false
        }
        Err(e) => {
            println!("kernel time at B = 1 not measured (ncu: {e}): that target is not verified");
            false
        }
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
