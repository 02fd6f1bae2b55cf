//! # tailrace
//!
//! The command-line tool of the tailrace workspace: a thin shell over
//! `tailrace-noise` and `tailrace-model`.
//!
//! - `tailrace noise`: the Philox calls and the exponential variate of one
//!   (seed, position, index) under a noise profile (spec: NOISE.md).
//! - `tailrace sample`: draws tokens from a logits row stored in a
//!   safetensors file with the CPU reference model (spec: SAMPLER.md).
//! - `tailrace bench-cpu`: the CPU model throughput benchmark.
//! - `tailrace replay` / `tailrace audit-draws`: the auditor tools of
//!   `tailrace-audit` (guide: docs/audit.md).
//!
//! Every failure is one line `error: ...` on stderr; exit code 2 for usage
//! and input errors, 1 for everything else. The tool never panics on user
//! input; a panic hook turns a bug into a one-line internal error.

mod audit;
mod bench;
mod error;
mod noise;
mod parse;
mod sample;

use clap::{Parser, Subcommand, ValueEnum};
use error::CliError;
use std::io::Write;
use std::process::ExitCode;

/// Exact, reproducible LLM token sampling: inspect noise, sample from
/// safetensors logits, benchmark the CPU model.
#[derive(Debug, Parser)]
#[command(name = "tailrace", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Show the Philox calls, the uniform and the exponential variate E of one
    /// (seed, position, index) under a noise profile.
    Noise(noise::NoiseArgs),
    /// Draw tokens from one logits row of a safetensors file.
    Sample(sample::SampleArgs),
    /// Measure the CPU model's per-row sampling time.
    BenchCpu(bench::BenchArgs),
    /// Recompute logged tokens with the CPU model and report every mismatch.
    Replay(audit::ReplayArgs),
    /// Audit draws from any sampler against the exact law (tail rate or chi-square).
    AuditDraws(audit::AuditDrawsArgs),
}

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum Format {
    /// Human-readable text.
    #[default]
    Text,
    /// One JSON object.
    Json,
}

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        let payload = info.payload();
        let msg = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown cause".to_owned());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let line = error::one_line(&format!(
            "internal error (a bug in tailrace, please report it): {msg}{at}"
        ));
        let _ = writeln!(std::io::stderr(), "error: {line}");
        std::process::exit(1);
    }));

    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return error::report_clap(&e),
    };
    let result = match cli.command {
        Command::Noise(a) => noise::run(&a),
        Command::Sample(a) => sample::run(&a),
        Command::BenchCpu(a) => bench::run(&a),
        Command::Replay(a) => audit::run_replay(&a),
        Command::AuditDraws(a) => audit::run_audit_draws(&a),
    };
    match result.and_then(|out| write_stdout(&out)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => e.report(),
    }
}

/// Writes the command's output; a closed pipe (`| head`) is not an error.
fn write_stdout(out: &str) -> Result<(), CliError> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CliError::failure(
            anyhow::Error::new(e).context("cannot write to stdout"),
        )),
    }
}
