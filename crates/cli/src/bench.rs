//! `tailrace bench-cpu`: per-row time of the CPU model on random f32 logits,
//! for every profile and filter, on rayon pools of 1 and N threads.
//!
//! The requirement it checks: "CPU model, one core, f32 logits, V = 131072,
//! exact profile, plain temperature sampling: at most 0.5 ms per row".

use crate::error::{failure_msg, input_msg, CliError, ResultExt};
use crate::Format;
use anyhow::Context;
use clap::Args;
use serde_json::json;
use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Instant;
use tailrace_model::{sample_batch, RawParams, RowRequest, RowStatus, SamplingParams, MAX_VOCAB};
use tailrace_noise::NoiseProfile;

/// The requirement's per-row limit (exact, plain, one thread, V = 131072).
const LIMIT_MS: f64 = 0.5;
/// The requirement's vocabulary size.
const REQUIREMENT_VOCAB: usize = 131072;

/// Arguments of `tailrace bench-cpu`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Vocabulary size.
    #[arg(long, default_value_t = REQUIREMENT_VOCAB, allow_negative_numbers = true)]
    vocab: usize,
    /// Rows per batch (distinct random rows, each at its own position).
    #[arg(long, default_value_t = 64, allow_negative_numbers = true)]
    rows: usize,
    /// Threads of the parallel pool (default: every core); 1 thread is always measured too.
    #[arg(long, allow_negative_numbers = true)]
    threads: Option<usize>,
    /// Timed repetitions per case (after one warm-up); the median is reported.
    #[arg(long, default_value_t = 5, allow_negative_numbers = true)]
    reps: usize,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// One benchmarked configuration.
struct Case {
    /// `None` for greedy (no noise is drawn).
    profile: Option<NoiseProfile>,
    filter: &'static str,
    params: SamplingParams,
}

fn cases() -> Result<Vec<Case>, CliError> {
    let mut out = Vec::new();
    let filters: [(&str, RawParams); 4] = [
        ("plain", RawParams::default()),
        (
            "top-k 50",
            RawParams {
                top_k: 50,
                ..RawParams::default()
            },
        ),
        (
            "top-p 0.9",
            RawParams {
                top_p: 0.9,
                ..RawParams::default()
            },
        ),
        (
            "min-p 0.05",
            RawParams {
                min_p: 0.05,
                ..RawParams::default()
            },
        ),
    ];
    for profile in NoiseProfile::ALL {
        for (filter, raw) in filters {
            let params = SamplingParams::new(RawParams { profile, ..raw }).or_failure()?;
            out.push(Case {
                profile: Some(profile),
                filter,
                params,
            });
        }
    }
    out.push(Case {
        profile: None,
        filter: "greedy",
        params: SamplingParams::temperature(0.0, 0, 0).or_failure()?,
    });
    Ok(out)
}

/// splitmix64: a fixed, dependency-free source for the benchmark logits.
fn splitmix(s: &mut u64) -> u64 {
    *s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *s;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Non-zero, roughly normal logits with standard deviation 2 (the sum of four
/// uniforms on [-1/2, 1/2) has variance 1/3).
fn random_logits(n: usize) -> Result<Vec<f32>, CliError> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|e| failure_msg(format!("cannot allocate {n} logits: {e}")))?;
    let scale = 2.0 * 3f64.sqrt();
    let mut s = 0x7461_696c_7261_6365u64; // "tailrace"
    v.extend((0..n).map(|_| {
        let sum: f64 = (0..4)
            .map(|_| (splitmix(&mut s) >> 11) as f64 / (1u64 << 53) as f64 - 0.5)
            .sum();
        let x = (sum * scale) as f32;
        if x == 0.0 {
            f32::MIN_POSITIVE
        } else {
            x
        }
    }));
    Ok(v)
}

/// CPU time of the whole process (every thread) in seconds, from
/// `/proc/self/task/*/schedstat` (Linux); `None` where that is unavailable.
/// Unlike wall time it does not grow when other processes share the cores.
fn process_cpu_seconds() -> Option<f64> {
    let mut ns: u64 = 0;
    for entry in std::fs::read_dir("/proc/self/task").ok()? {
        let path = entry.ok()?.path().join("schedstat");
        // A thread may exit between listing and reading.
        if let Ok(stat) = std::fs::read_to_string(path) {
            ns += stat.split_whitespace().next()?.parse::<u64>().ok()?;
        }
    }
    Some(ns as f64 * 1e-9)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// One case's seconds per row.
#[derive(Clone, Copy)]
struct Timing {
    /// Median over repetitions of wall time per row.
    wall: f64,
    /// Mean process CPU time per row over the timed repetitions (every thread).
    cpu: Option<f64>,
}

/// Wall and CPU seconds per row of `case` on `pool`.
fn measure(
    pool: &rayon::ThreadPool,
    logits: &[f32],
    vocab: usize,
    rows: usize,
    reps: usize,
    case: &Case,
) -> Result<Timing, CliError> {
    pool.install(|| {
        let mut times = Vec::with_capacity(reps);
        let mut cpu_start = None;
        for rep in 0..=reps {
            let reqs: Vec<RowRequest> = (0..rows)
                .map(|r| {
                    case.params
                        .at_position((rep * rows + r) as u64)
                        .with_seed(rep as u64)
                        .into()
                })
                .collect();
            if rep == 1 {
                cpu_start = process_cpu_seconds();
            }
            let t0 = Instant::now();
            let out = sample_batch(black_box(logits), vocab, vocab, &reqs).or_failure()?;
            let dt = t0.elapsed().as_secs_f64();
            if let Some(bad) = out.iter().find(|o| o.status != RowStatus::Ok) {
                return Err(failure_msg(format!(
                    "benchmark row has status {:?}",
                    bad.status
                )));
            }
            black_box(out);
            // Repetition 0 warms caches and the pool.
            if rep > 0 {
                times.push(dt / rows as f64);
            }
        }
        // The kernel accounts a running thread's time at ticks and switches,
        // so CPU time is taken over all timed repetitions, not per repetition.
        let cpu = cpu_start
            .zip(process_cpu_seconds())
            .map(|(a, b)| (b - a) / (reps * rows) as f64);
        Ok(Timing {
            wall: median(times),
            cpu,
        })
    })
}

fn cpu_model() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    info.lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, m)| m.trim().to_owned())
}

/// Runs `tailrace bench-cpu`.
pub fn run(a: &BenchArgs) -> Result<String, CliError> {
    if a.vocab == 0 || a.vocab > MAX_VOCAB {
        return Err(input_msg(format!("--vocab {} is not in 1..=2^31", a.vocab)));
    }
    if a.rows == 0 {
        return Err(input_msg("--rows must be at least 1"));
    }
    if a.reps == 0 {
        return Err(input_msg("--reps must be at least 1"));
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = a.threads.unwrap_or(cores);
    if threads == 0 {
        return Err(input_msg("--threads must be at least 1"));
    }
    let total = a
        .rows
        .checked_mul(a.vocab)
        .ok_or_else(|| input_msg("--rows * --vocab overflows"))?;
    let logits = random_logits(total)?;
    let mut counts = vec![1usize];
    if threads > 1 {
        counts.push(threads);
    }
    let cases = cases()?;
    // per_row[case][thread count] in seconds.
    let mut per_row = vec![Vec::new(); cases.len()];
    for &t in &counts {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .with_context(|| format!("cannot build a rayon pool of {t} threads"))
            .or_failure()?;
        for (i, case) in cases.iter().enumerate() {
            per_row[i].push(measure(&pool, &logits, a.vocab, a.rows, a.reps, case)?);
        }
    }
    let profile_name = |c: &Case| c.profile.map_or("any", NoiseProfile::name);
    let req = per_row[0][0]; // exact, plain, 1 thread
    let req_ms = req.wall * 1e3;
    let applies = a.vocab == REQUIREMENT_VOCAB;
    let cpu = cpu_model().unwrap_or_else(|| "unknown cpu".to_owned());

    Ok(match a.format {
        Format::Json => {
            let mut results = Vec::new();
            for (case, times) in cases.iter().zip(&per_row) {
                for (&t, tm) in counts.iter().zip(times) {
                    results.push(json!({
                        "profile": profile_name(case),
                        "filter": case.filter,
                        "threads": t,
                        "ms_per_row": tm.wall * 1e3,
                        "cpu_ms_per_row": tm.cpu.map(|c| c * 1e3),
                        "rows_per_s": 1.0 / tm.wall,
                    }));
                }
            }
            let v = json!({
                "vocab": a.vocab,
                "rows": a.rows,
                "reps": a.reps,
                "threads": counts,
                "cores": cores,
                "cpu": cpu,
                "logits": "f32, sum of 4 uniforms scaled to std 2, non-zero",
                "temperature": 1.0,
                "results": results,
                "requirement": {
                    "case": "exact profile, plain temperature sampling, 1 thread, f32 logits, V = 131072",
                    "applies": applies,
                    "ms_per_row": req_ms,
                    "cpu_ms_per_row": req.cpu.map(|c| c * 1e3),
                    "limit_ms": LIMIT_MS,
                    "pass": req_ms <= LIMIT_MS,
                },
            });
            format!("{v}\n")
        }
        Format::Text => {
            let mut s = String::new();
            let _ = writeln!(
                s,
                "tailrace bench-cpu: V = {}, f32 logits (std 2), {} rows per batch, median of {} reps, T = 1",
                a.vocab, a.rows, a.reps
            );
            let _ = writeln!(s, "cpu: {cpu}, {cores} logical cores");
            let _ = write!(s, "{:<8} {:<11}", "profile", "filter");
            for &t in &counts {
                let _ = write!(
                    s,
                    " {:>13} {:>13} {:>11}",
                    format!("ms/row {t}thr"),
                    format!("cpu-ms {t}thr"),
                    format!("rows/s {t}thr")
                );
            }
            if counts.len() > 1 {
                let _ = write!(s, " {:>8}", "speedup");
            }
            s.push('\n');
            for (case, times) in cases.iter().zip(&per_row) {
                let _ = write!(s, "{:<8} {:<11}", profile_name(case), case.filter);
                for tm in times {
                    let cpu = tm.cpu.map_or("-".to_owned(), |c| format!("{:.4}", c * 1e3));
                    let _ = write!(
                        s,
                        " {:>13.4} {cpu:>13} {:>11.0}",
                        tm.wall * 1e3,
                        1.0 / tm.wall
                    );
                }
                if let [one, .., many] = times.as_slice() {
                    let _ = write!(s, " {:>7.2}x", one.wall / many.wall);
                }
                s.push('\n');
            }
            let verdict = if req_ms <= LIMIT_MS { "PASS" } else { "FAIL" };
            let _ = writeln!(
                s,
                "(ms/row: median wall time; cpu-ms: mean process CPU time per row over all threads, which does not grow when other work shares the cores)"
            );
            let _ = writeln!(
                s,
                "requirement (exact, plain, 1 thread, V = 131072): {req_ms:.4} ms/row{} <= {LIMIT_MS} ms: {}",
                req.cpu.map_or(String::new(), |c| format!(" (cpu {:.4} ms/row)", c * 1e3)),
                if applies {
                    verdict.to_owned()
                } else {
                    format!("not applicable (V = {})", a.vocab)
                }
            );
            s
        }
    })
}
