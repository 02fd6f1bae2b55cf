//! `tailrace-cuda-check`: the GPU acceptance run of the CUDA backend.
//!
//! 1. noise/math dumps: device bits == CPU bits for every profile;
//! 2. differential check: >= 10^5 random rows, GPU == `tailrace_model::sample_batch`;
//! 3. invariance: rows alone, permuted, doubled batches, other launch geometry,
//!    CUDA graph replays;
//! 4. timing with CUDA events (median of >= 50, inputs rotated through buffers
//!    larger than L2).
//!
//! Writes a JSON summary to `--out`, mismatch reports next to it, and prints a
//! short summary last. Every failure is reported, none panics silently.

#[path = "check/gen.rs"]
mod gen;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use gen::{Batch, Rng, RowReport, Typed};
use rayon::prelude::*;
use serde::Serialize;
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tailrace_cuda::debug::{
    cpu_int_words, cpu_math_words, same_f32_bits, same_f64_bits, NoiseWords,
};
use tailrace_cuda::{
    kernels, DeviceLogits, DeviceOutput, DeviceParams, Dtype, Geometry, LaunchOptions, RecordedCut,
    Sampler, ToppTrigger,
};
use tailrace_model::{
    sample_batch, LogitBias, NoiseProfile, RawParams, RowOutput, RowRequest, SamplingParams,
};

#[derive(Parser)]
#[command(about = "GPU acceptance checks and timings of the tailrace CUDA backend")]
struct Cli {
    #[command(subcommand)]
    cmd: Option<Cmd>,
    /// JSON summary path.
    #[arg(long, default_value = "tailrace-cuda-check.json")]
    out: PathBuf,
    /// Rows of the differential check.
    #[arg(long, default_value_t = 100_000)]
    rows: usize,
    /// Seed of the random batches.
    #[arg(long, default_value_t = 0x7A11_2ACE)]
    seed: u64,
    /// Noise dump triples per profile.
    #[arg(long, default_value_t = 4000)]
    noise: usize,
    /// Timed iterations per configuration (median reported).
    #[arg(long, default_value_t = 100)]
    iters: usize,
    /// Skip the timing phase.
    #[arg(long)]
    no_timing: bool,
    /// Only the timing phase.
    #[arg(long)]
    timing_only: bool,
    /// Skip the invariance phase.
    #[arg(long)]
    no_invariance: bool,
    /// CUDA device ordinal.
    #[arg(long, default_value_t = 0)]
    device: usize,
    /// Kernel variants to time, each `NAME=VALUE;NAME=VALUE` (e.g.
    /// `TR_FAST_BOUNDS=__launch_bounds__(512)`), or `opts:NAME,...` for the
    /// default kernels under launch options (`no_pdl`, `no_fused`,
    /// `generic`, `no_topp_pend`, `first_pass_always`, `topp_cluster=N`,
    /// `topp_trigger=auto|early|late`, ...); the invariance check compares
    /// each with the default.
    #[arg(long)]
    variant: Vec<String>,
    /// The grid modes (plain, top_k50, top_p0.9, ...) the variants are timed
    /// in, comma-separated; `MODE@PROFILE` (e.g. `plain@f32`) times the mode
    /// with that noise profile instead of `exact`.
    #[arg(long, value_delimiter = ',', default_value = "plain")]
    variant_mode: Vec<String>,
    /// The batch sizes (`--variant-vocab`, `--variant-dtype` logits) the
    /// variants are timed at, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,8,64,256,1024")]
    variant_rows: Vec<usize>,
    /// The vocabulary sizes the variants' `--variant-rows` timings are taken
    /// at, comma-separated (the other logit types' B = 256 at V = 131072).
    #[arg(long, value_delimiter = ',', default_value = "131072")]
    variant_vocab: Vec<usize>,
    /// The logit type of the variants' `--variant-rows` timings (bf16, f32
    /// or f16); B = 256 of the other two types is timed as well.
    #[arg(long, default_value = "bf16", value_parser = ["bf16", "f32", "f16"])]
    variant_dtype: String,
    /// Time only the variants and the default kernels in the variant modes
    /// (not the default configuration list).
    #[arg(long)]
    variants_only: bool,
    /// Also time a second build of the default kernels (compiled as a
    /// variant, with a define no kernel reads) among the variants, in the
    /// same interleaved order and on the same requests: an A/A whose
    /// differences are the timing's own spread, reported beside the A/B.
    /// The default build is then timed among the variants too.
    #[arg(long)]
    variant_aa: bool,
    /// Stop the differential check after this many seconds.
    #[arg(long, default_value_t = 240)]
    diff_budget_s: u64,
    /// Compile the checked kernels themselves with these `NAME=VALUE`
    /// defines (e.g. `TR_TOPP_CAP=64`, which sends most binned top-p rows
    /// to their fallback): every check then tests that build, and the
    /// default timing list times it. The variant timing's "default" rows
    /// stay the default kernels; name the checked defines as a `--variant`
    /// to time that build beside them.
    #[arg(long = "checked-define")]
    checked_defines: Vec<String>,
    /// Also time a sweep of chunk counts around the automatic geometry.
    #[arg(long)]
    chunk_sweep: bool,
    /// Also time block sizes other than 256 threads (non-powers of two
    /// among them) at one or a few chunks a row.
    #[arg(long)]
    shape_sweep: bool,
}

#[derive(Subcommand)]
enum Cmd {
    /// Print the assembled NVRTC source (with `--define`s, as compiled with them:
    /// each takes a line at the top).
    Source {
        /// Extra `NAME=VALUE` defines (tuning variants).
        #[arg(long = "define")]
        defines: Vec<String>,
    },
    /// Compile for an architecture (no GPU needed) and print NVRTC's log with ptxas statistics.
    CompileInfo {
        #[arg(default_value = "sm_90")]
        arch: String,
        /// Extra `NAME=VALUE` defines (tuning variants).
        #[arg(long = "define")]
        defines: Vec<String>,
    },
    /// Compile to a CUBIN file (no GPU needed), for nvdisasm/cuobjdump.
    Cubin {
        path: PathBuf,
        #[arg(long, default_value = "sm_90")]
        arch: String,
        /// Extra `NAME=VALUE` defines (tuning variants).
        #[arg(long = "define")]
        defines: Vec<String>,
    },
    /// Regenerate one batch and compare CPU and GPU row by row (debugging).
    Batch { id: u64 },
    /// Run one configuration a few times (for profilers such as ncu).
    Bench {
        #[arg(long, default_value_t = 1024)]
        rows: usize,
        #[arg(long, default_value_t = 131072)]
        vocab: usize,
        #[arg(long, default_value_t = 0)]
        top_k: u32,
        #[arg(long, default_value_t = 1.0)]
        top_p: f64,
        #[arg(long, default_value_t = 0.0)]
        min_p: f64,
        /// Noise profile: exact, f64, f32 or triton.
        #[arg(long, default_value = "exact")]
        profile: String,
        #[arg(long, default_value_t = 3)]
        reps: usize,
        /// Threads a block of the pass (0: the default), one entry per
        /// launch shape; each repetition runs every shape in turn.
        #[arg(long, value_delimiter = ',', default_value = "0")]
        block_threads: Vec<u32>,
        /// Chunks a row (0: the automatic count), paired with
        /// `--block-threads` (the last entry repeats for the shapes past it).
        #[arg(long, value_delimiter = ',', default_value = "0")]
        blocks_per_row: Vec<u32>,
        /// Logit type: bf16, f32 or f16.
        #[arg(long, default_value = "bf16", value_parser = ["bf16", "f32", "f16"])]
        dtype: String,
        /// Launch in plain stream order (`LaunchOptions::no_pdl`).
        #[arg(long)]
        no_pdl: bool,
        /// More launch options, as a `--variant opts:` list (e.g.
        /// `first_pass_always,topp_cluster=16`).
        #[arg(long)]
        opts: Option<String>,
    },
    /// The benchmark grid of issue 5: V x B x profile x mode, bf16 logits,
    /// CUDA-event medians; writes `--out` in the format bench/report.py reads.
    Grid {
        /// Vocabulary sizes.
        #[arg(long, value_delimiter = ',', default_value = "32000,131072,262144")]
        vocab: Vec<usize>,
        /// Batch sizes.
        #[arg(long, value_delimiter = ',', default_value = "1,8,64,256,1024")]
        batch: Vec<usize>,
        /// Profiles (greedy is timed once per shape: it draws no noise).
        #[arg(long, value_delimiter = ',', default_value = "exact,f64,f32")]
        profile: Vec<String>,
        /// Modes: plain, top_k50, top_p0.9, top_k50_top_p0.9, min_p0.05, greedy.
        #[arg(
            long,
            value_delimiter = ',',
            default_value = "plain,top_k50,top_p0.9,top_k50_top_p0.9,min_p0.05,greedy"
        )]
        mode: Vec<String>,
    },
    /// The host's share of a call: host time of `Sampler::sample` (from an
    /// idle stream and back to back) and of its pieces (the workspace's
    /// geometry, the context binding, a kernel attribute, empty launches
    /// with and without the sampler's argument block and launch attribute),
    /// medians of `--iters` calls each; writes `--out`.
    HostCost {
        /// Batch sizes (bf16 logits).
        #[arg(long, value_delimiter = ',', default_value = "1,8,64,256")]
        rows: Vec<usize>,
        #[arg(long, default_value_t = 131072)]
        vocab: usize,
        /// Grid modes (plain, top_k50, top_p0.9, top_k50_top_p0.9, ...).
        #[arg(
            long,
            value_delimiter = ',',
            default_value = "plain,top_k50_top_p0.9,top_p0.9"
        )]
        mode: Vec<String>,
    },
    /// Generate batches and time the CPU model on them (no GPU needed).
    CpuStats {
        #[arg(default_value_t = 200)]
        batches: u64,
    },
}

static PROGRESS: AtomicU64 = AtomicU64::new(0);

fn log(msg: impl AsRef<str>) {
    let t = START.get_or_init(Instant::now).elapsed().as_secs_f64();
    println!("[{t:8.2}s] {}", msg.as_ref());
    let _ = std::io::stdout().flush();
}
static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();

fn main() {
    START.get_or_init(Instant::now);
    let cli = Cli::parse();
    let code = match run(&cli) {
        Ok(ok) => {
            if ok {
                0
            } else {
                1
            }
        }
        Err(e) => {
            println!("FATAL: {e:#}");
            2
        }
    };
    std::process::exit(code);
}

/// The builds (define lists) a check or timing run loads: the checked
/// defines (the default: none), the A/A copy where asked for, and every
/// `--variant` that is not `opts:` (launch options run the default build),
/// each once. Subcommands that compile nothing themselves give none.
fn run_builds(cli: &Cli) -> Vec<Vec<String>> {
    if matches!(
        cli.cmd,
        Some(
            Cmd::Source { .. } | Cmd::CompileInfo { .. } | Cmd::Cubin { .. } | Cmd::CpuStats { .. }
        )
    ) {
        return Vec::new();
    }
    let mut builds = vec![cli.checked_defines.clone()];
    if timed_default_apart(cli) {
        builds.push(Vec::new());
    }
    if cli.variant_aa {
        builds.push(vec![AA_COPY_DEFINE.to_string()]);
    }
    for v in &cli.variant {
        if v.starts_with("opts:") {
            continue;
        }
        let d: Vec<String> = v.split(';').map(str::to_string).collect();
        if !builds.contains(&d) {
            builds.push(d);
        }
    }
    builds
}

/// Whether the variant timing's "default" runs on a sampler of its own: it
/// is always the default kernels, and the checked build (the main sampler)
/// differs from them where `--checked-define` is given. Before run 59 of
/// docs/cuda-notes.md the main sampler stood in, so with a checked define
/// the rows named "default" timed the checked build and the A/A compared it
/// with the default kernels.
fn timed_default_apart(cli: &Cli) -> bool {
    !cli.checked_defines.is_empty() && (cli.variants_only || cli.variant_aa)
}

fn run(cli: &Cli) -> Result<bool> {
    match &cli.cmd {
        Some(Cmd::Source { defines }) => {
            println!("{}", kernels::source_with(defines));
            return Ok(true);
        }
        Some(Cmd::CompileInfo { arch, defines }) => {
            let c = kernels::compile_with(arch, defines, &["--ptxas-options=-v".into()])?;
            println!("arch {arch} defines {defines:?}\n{}", c.log);
            return Ok(true);
        }
        Some(Cmd::Cubin {
            path,
            arch,
            defines,
        }) => {
            let c = kernels::compile_with(arch, defines, &[])?;
            std::fs::write(path, &c.image)?;
            println!(
                "wrote {} bytes ({})",
                c.image.len(),
                if c.is_cubin { "cubin" } else { "ptx" }
            );
            return Ok(true);
        }
        Some(Cmd::CpuStats { batches }) => {
            let t = Instant::now();
            let group: Vec<Batch> = (0..*batches)
                .into_par_iter()
                .map(|id| Batch::generate(cli.seed, id))
                .collect();
            let gen_s = t.elapsed().as_secs_f64();
            let t = Instant::now();
            let outs: Vec<Vec<RowOutput>> =
                group.par_iter().map(cpu_eval).collect::<Result<_>>()?;
            let rows: usize = outs.iter().map(|o| o.len()).sum();
            // The invariance phase's batches and their rearrangements, too.
            for id in 1_000_000..1_000_000 + *batches {
                let b = Batch::generate(cli.seed, id);
                let n = b.rows();
                let perm: Vec<usize> = (0..n).rev().collect();
                let mut dbl: Vec<usize> = (0..n).collect();
                dbl.extend((0..n).rev());
                let _ = (b.permuted(&perm), b.permuted(&dbl), b.permuted(&[n - 1]));
            }
            let large: usize = group
                .iter()
                .filter(|b| b.vocab >= 65536)
                .map(|b| b.rows())
                .sum();
            println!(
                "{batches} batches, {rows} rows ({large} large): generated in {gen_s:.2}s, CPU model {:.2}s on {} threads",
                t.elapsed().as_secs_f64(),
                rayon::current_num_threads()
            );
            return Ok(true);
        }
        _ => {}
    }
    // The bf16 top-p histogram races rows itself (or finds their cuts'
    // indices) only in builds with TR_TOPP_RACE, TR_TOPP_SETTLE or
    // TR_TOPP_CUT_INDEX on (asked for, or the source's default).
    let on = |knob| kernels::knob_value(knob, &cli.checked_defines).is_some_and(|v| v != "0");
    HISTOGRAM_RACES
        .set(on("TR_TOPP_RACE") || on("TR_TOPP_SETTLE") || on("TR_TOPP_CUT_INDEX"))
        .ok();
    // Every build the run will load, compiled side by side first (NVRTC
    // takes about 45 s a build, one core each): the default (or the checked
    // defines), the A/A copy, the variants.
    let builds = run_builds(cli);
    if builds.len() > 1 {
        kernels::require_driver().context("starting the CUDA sampler")?;
        kernels::require_nvrtc().context("starting the CUDA sampler")?;
        let ctx = cudarc::driver::CudaContext::new(cli.device).context("creating the context")?;
        let arch = kernels::arch_of(&ctx)?;
        let t = Instant::now();
        kernels::precompile(&arch, &builds).context("compiling the builds")?;
        log(format!(
            "compiled {} builds for {arch} side by side in {:.1} s",
            builds.len(),
            t.elapsed().as_secs_f64()
        ));
    }
    let mut sampler = if cli.checked_defines.is_empty() {
        Sampler::new(cli.device).context("starting the CUDA sampler")?
    } else {
        // Before any cudarc call, which panics where libcuda is missing.
        kernels::require_driver().context("starting the CUDA sampler")?;
        let ctx = cudarc::driver::CudaContext::new(cli.device).context("creating the context")?;
        let stream = ctx.new_stream().context("creating a stream")?;
        log(format!("checked build: defines {:?}", cli.checked_defines));
        Sampler::with_variant(stream, &cli.checked_defines)
            .context("starting the CUDA sampler with the checked defines")?
    };
    if let Some(Cmd::Bench {
        rows,
        vocab,
        top_k,
        top_p,
        min_p,
        profile,
        reps,
        block_threads,
        blocks_per_row,
        dtype,
        no_pdl,
        opts,
    }) = &cli.cmd
    {
        let base = match opts {
            Some(names) => launch_options(names)?,
            None => LaunchOptions::default(),
        };
        let stream = sampler.stream().clone();
        let dt = dtype_named(dtype)?;
        // One buffer element per logit (the descriptor checks the size).
        let (mut b16, mut b32) = if dt == Dtype::F32 {
            (None, Some(stream.alloc_zeros::<u32>(rows * vocab)?))
        } else {
            (Some(stream.alloc_zeros::<u16>(rows * vocab)?), None)
        };
        if let Some(b) = b16.as_mut() {
            sampler.fill_random(b, dt, cli.seed, 2.0)?;
        }
        if let Some(b) = b32.as_mut() {
            sampler.fill_random(b, dt, cli.seed, 2.0)?;
        }
        let profile = profile
            .parse::<NoiseProfile>()
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let reqs: Vec<RowRequest> = (0..*rows as u64)
            .map(|r| {
                SamplingParams::new(RawParams {
                    top_k: *top_k,
                    top_p: *top_p,
                    min_p: *min_p,
                    profile,
                    seed: r,
                    position: 7 * r,
                    ..RawParams::default()
                })
                .map(RowRequest::from)
                .map_err(|e| anyhow::anyhow!("bench parameters: {e}"))
            })
            .collect::<Result<_>>()?;
        let params = DeviceParams::new(&stream, *vocab, &reqs)?;
        let mut out = DeviceOutput::new(&stream, *rows)?;
        let logits = match (&b16, &b32) {
            (Some(b), _) => DeviceLogits::new(b, &stream, dt, *rows, *vocab, *vocab)?,
            (_, Some(b)) => DeviceLogits::new(b, &stream, dt, *rows, *vocab, *vocab)?,
            _ => unreachable!("one buffer is allocated"),
        };
        let shapes: Vec<LaunchOptions> = block_threads
            .iter()
            .enumerate()
            .map(|(j, &bt)| LaunchOptions {
                block_threads: bt,
                blocks_per_row: blocks_per_row
                    .get(j)
                    .or(blocks_per_row.last())
                    .copied()
                    .unwrap_or(0),
                no_pdl: *no_pdl || base.no_pdl,
                ..base
            })
            .collect();
        for _ in 0..*reps {
            for opts in &shapes {
                sampler.sample(&logits, &params, &mut out, opts)?;
            }
        }
        let got = out.download(&stream)?;
        println!(
            "bench done: {} rows, first token {:?}; last call: first pass {}, pending top-p cuts {}, \
             histogram staging {} units a thread (considered, units and resident clusters: {:?})",
            got.len(),
            got.first(),
            if sampler.last_skipped_first_pass() { "skipped" } else { "run" },
            sampler.last_pending_topp(),
            sampler.last_staged_units(),
            sampler.last_stage_fit()
        );
        return Ok(true);
    }
    if let Some(Cmd::Grid {
        vocab,
        batch,
        profile,
        mode,
    }) = &cli.cmd
    {
        return grid(&mut sampler, cli, vocab, batch, profile, mode);
    }
    if let Some(Cmd::HostCost { rows, vocab, mode }) = &cli.cmd {
        return host_cost(&mut sampler, cli, rows, *vocab, mode);
    }
    if let Some(Cmd::Batch { id }) = &cli.cmd {
        let b = Batch::generate(cli.seed, *id);
        let cpu = cpu_eval(&b)?;
        let gpu = gpu_eval(&mut sampler, &b, &LaunchOptions::default())?;
        for r in 0..b.rows() {
            let rep = b.report(r, format!("{:?}", cpu[r]), format!("{:?}", gpu[r]));
            println!(
                "{} {}",
                if cpu[r] == gpu[r] { "ok " } else { "BAD" },
                serde_json::to_string(&rep)?
            );
        }
        return Ok(true);
    }
    let dir = cli
        .out
        .parent()
        .map(|p| p.to_path_buf())
        .unwrap_or_else(|| PathBuf::from("."));
    std::fs::create_dir_all(&dir).ok();
    let mut summary = serde_json::Map::new();
    let ctx = sampler.context().clone();
    let (arch, nvrtc_log) = sampler.kernel_info();
    let device = json!({
        "name": ctx.name().unwrap_or_default(),
        "compute_capability": format!("{:?}", ctx.compute_capability().ok()),
        "sm_count": sampler.sm_count(),
        "arch": arch,
        "nvrtc_log": nvrtc_log,
        "rayon_threads": rayon::current_num_threads(),
    });
    log(format!("device: {device}"));
    summary.insert("device".into(), device);
    let write_summary = |s: &serde_json::Map<String, serde_json::Value>| {
        let _ = std::fs::write(
            &cli.out,
            serde_json::to_string_pretty(&serde_json::Value::Object(s.clone())).unwrap_or_default(),
        );
    };
    // Progress watchdog: shows where a hang happened.
    std::thread::spawn(|| loop {
        std::thread::sleep(Duration::from_secs(30));
        log(format!(
            "... progress counter {}",
            PROGRESS.load(Ordering::Relaxed)
        ));
    });

    let mut all_ok = true;
    let mut lines: Vec<String> = Vec::new();
    if !cli.timing_only {
        // 1. Dumps.
        let (ok, v) = check_dumps(&sampler, cli)?;
        all_ok &= ok;
        lines.push(format!("dumps: {}", v["summary"].as_str().unwrap_or("")));
        summary.insert("dumps".into(), v);
        write_summary(&summary);

        // 2. Differential.
        let (ok, v) = check_differential(&mut sampler, cli, &dir)?;
        all_ok &= ok;
        lines.push(format!(
            "differential: {}",
            v["summary"].as_str().unwrap_or("")
        ));
        summary.insert("differential".into(), v);
        write_summary(&summary);

        // 2b. Differential of long-chunk top-p batches (the located chunk).
        let (ok, v) = check_long_topp(&mut sampler, cli)?;
        all_ok &= ok;
        lines.push(format!(
            "long top-p: {}",
            v["summary"].as_str().unwrap_or("")
        ));
        summary.insert("long_topp".into(), v);
        write_summary(&summary);

        // 2c. Top-p batches of one chunk a row (the histogram's segments).
        let (ok, v) = check_segmented_topp(&mut sampler, cli)?;
        all_ok &= ok;
        lines.push(format!(
            "segmented top-p: {}",
            v["summary"].as_str().unwrap_or("")
        ));
        summary.insert("segmented_topp".into(), v);
        write_summary(&summary);

        // 2d. Large batches (one chunk a row, blocks of fewer threads).
        let (ok, v) = check_large(&mut sampler, cli)?;
        all_ok &= ok;
        lines.push(format!(
            "large batches: {}",
            v["summary"].as_str().unwrap_or("")
        ));
        summary.insert("large".into(), v);
        write_summary(&summary);

        // 3. Invariance.
        if !cli.no_invariance {
            let (ok, v) = check_invariance(&mut sampler, cli)?;
            all_ok &= ok;
            lines.push(format!(
                "invariance: {}",
                v["summary"].as_str().unwrap_or("")
            ));
            summary.insert("invariance".into(), v);
            write_summary(&summary);
        }
    }
    if !cli.no_timing {
        let (table, v) = timing(&mut sampler, cli)?;
        summary.insert("timing".into(), v);
        write_summary(&summary);
        std::fs::write(dir.join("timing.txt"), &table).ok();
        lines.push(format!("timing:\n{table}"));
    }
    summary.insert("all_ok".into(), json!(all_ok));
    write_summary(&summary);
    println!("==================== SUMMARY ====================");
    for l in &lines {
        println!("{l}");
    }
    println!("RESULT: {}", if all_ok { "PASS" } else { "FAIL" });
    Ok(all_ok)
}

// ---------------------------------------------------------------- dumps

fn check_dumps(sampler: &Sampler, cli: &Cli) -> Result<(bool, serde_json::Value)> {
    log("dumps: noise, math, integer conversions");
    let mut r = Rng(cli.seed ^ 0xD0D0);
    let special_u64 = [
        0u64,
        1,
        (1 << 32) - 1,
        1 << 32,
        (1 << 63) - 1,
        1 << 63,
        u64::MAX,
    ];
    let special_idx = [
        0u32,
        1,
        2,
        3,
        4,
        5,
        131071,
        131072,
        (1 << 31) - 1,
        1 << 31,
        u32::MAX,
    ];
    let mut per_profile = serde_json::Map::new();
    let mut ok = true;
    let mut bound_violations = 0u64;
    let mut total = 0usize;
    let mut bad_total = 0usize;
    for profile in NoiseProfile::ALL {
        let triples: Vec<(u64, u64, u32)> = (0..cli.noise)
            .map(|j| {
                let seed = if j % 7 == 0 {
                    r.pick(&special_u64)
                } else {
                    r.next()
                };
                let pos = if j % 5 == 0 {
                    r.pick(&special_u64)
                } else if j % 2 == 0 {
                    r.below(1 << 20)
                } else {
                    r.next()
                };
                let idx = if j % 11 == 0 {
                    r.pick(&special_idx)
                } else {
                    r.below(1 << 31) as u32
                };
                (seed, pos, idx)
            })
            .collect();
        let gpu = sampler.noise_dump(profile, &triples)?;
        let mut bad = Vec::new();
        for (t, g) in triples.iter().zip(&gpu) {
            let c = NoiseWords::cpu(profile, t.0, t.1, t.2);
            let mut same = true;
            for w in 0..8 {
                let eq = match w {
                    0..=2 | 6 | 7 => same_f64_bits(c.0[w], g.0[w]),
                    5 => {
                        same_f32_bits(c.0[w] as u32, g.0[w] as u32)
                            && same_f32_bits((c.0[w] >> 32) as u32, (g.0[w] >> 32) as u32)
                    }
                    _ => c.0[w] == g.0[w],
                };
                same &= eq;
            }
            let ln = f64::from_bits(c.0[0]);
            let upper_ok = profile != NoiseProfile::Exact || ln <= f64::from_bits(c.0[7]);
            if !(f64::from_bits(c.0[6]) <= ln && upper_ok) {
                bound_violations += 1;
            }
            if !same && bad.len() < 20 {
                bad.push(json!({
                    "seed": t.0, "position": t.1, "index": t.2,
                    "cpu": c.0.iter().map(|w| format!("{w:016x}")).collect::<Vec<_>>(),
                    "gpu": g.0.iter().map(|w| format!("{w:016x}")).collect::<Vec<_>>(),
                }));
            }
            if !same {
                bad_total += 1;
            }
        }
        let nbad = triples
            .iter()
            .zip(&gpu)
            .filter(|(t, g)| {
                let c = NoiseWords::cpu(profile, t.0, t.1, t.2);
                (0..8).any(|w| match w {
                    0..=2 | 6 | 7 => !same_f64_bits(c.0[w], g.0[w]),
                    5 => {
                        !(same_f32_bits(c.0[w] as u32, g.0[w] as u32)
                            && same_f32_bits((c.0[w] >> 32) as u32, (g.0[w] >> 32) as u32))
                    }
                    _ => c.0[w] != g.0[w],
                })
            })
            .count();
        total += triples.len();
        ok &= nbad == 0;
        log(format!(
            "  noise {profile}: {} triples, {nbad} mismatches",
            triples.len()
        ));
        for b in bad.iter().take(3) {
            log(format!("    mismatch {b}"));
        }
        per_profile.insert(
            profile.name().into(),
            json!({"triples": triples.len(), "mismatches": nbad, "examples": bad}),
        );
    }
    ok &= bound_violations == 0;
    // Math on edge and random inputs.
    let mut xs: Vec<f64> = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        0.25,
        -0.25,
        1.5,
        2.0,
        0.75,
        -0.75,
        1e-300,
        5e-324,
        2.2250738585072014e-308,
        1e300,
        f64::MAX,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -44.0,
        -43.999999,
        -745.2,
        -745.1,
        -745.3,
        -708.0,
        -1e-20,
        1e-20,
        0.49999999,
        -0.2499999,
        -0.9999999999,
        3.4e38,
        1.1754943508222875e-38,
        1e-45,
        -1e-45,
    ];
    for _ in 0..20000 {
        let e = r.below(2100) as i32 - 1075;
        let m = 1.0 + r.unit();
        let s = if r.chance(0.5) { -1.0 } else { 1.0 };
        xs.push(s * m * 2f64.powi(e.clamp(-1074, 1023)));
        xs.push(-(r.unit() * 50.0));
        xs.push(r.unit());
    }
    let gm = sampler.math_dump(&xs)?;
    let mut math_bad = Vec::new();
    for (x, g) in xs.iter().zip(&gm) {
        let c = cpu_math_words(*x);
        let same = same_f64_bits(c[0], g[0])
            && same_f64_bits(c[1], g[1])
            && same_f64_bits(c[2], g[2])
            && same_f32_bits(c[3] as u32, g[3] as u32)
            && c[4] == g[4];
        if !same {
            math_bad.push(
                json!({"x": format!("{x:e}"), "x_bits": format!("{:016x}", x.to_bits()),
                "cpu": c.iter().map(|w| format!("{w:016x}")).collect::<Vec<_>>(),
                "gpu": g.iter().map(|w| format!("{w:016x}")).collect::<Vec<_>>()}),
            );
        }
    }
    // u128 -> f64 and top-p targets.
    let mut items: Vec<(u128, f64)> = Vec::new();
    for sh in 0..128u32 {
        let one = 1u128 << sh;
        for v in [
            one,
            one.wrapping_sub(1),
            one | 1,
            one | (one >> 54),
            one | (one >> 53),
            one | (one >> 53) | 1,
            one | (one >> 52) | (one >> 53),
            one | (one >> 52) | (one >> 53) | (one >> 100),
        ] {
            items.push((v, 0.9));
        }
    }
    for _ in 0..20000 {
        let v = (u128::from(r.next()) << 64 | u128::from(r.next())) >> r.below(128);
        let p: f64 = r.pick(&[
            0.9,
            0.5,
            1e-9,
            0.999_999_999,
            0.1,
            5e-324,
            2.2250738585072014e-308,
        ]);
        let p = if r.chance(0.3) {
            r.unit().max(1e-300)
        } else {
            p
        };
        items.push((v | 1, p));
    }
    let gi = sampler.int_dump(&items)?;
    let mut int_bad = Vec::new();
    for ((v, p), g) in items.iter().zip(&gi) {
        let c = cpu_int_words(*v, *p);
        if c != *g {
            int_bad.push(json!({"v": format!("{v:032x}"), "p": p,
                "cpu": c.iter().map(|w| format!("{w:016x}")).collect::<Vec<_>>(),
                "gpu": g.iter().map(|w| format!("{w:016x}")).collect::<Vec<_>>()}));
        }
    }
    log(format!(
        "  math: {} inputs, {} mismatches; ints: {} inputs, {} mismatches; exact bound violations: {bound_violations}",
        xs.len(), math_bad.len(), items.len(), int_bad.len()
    ));
    for b in math_bad.iter().take(5).chain(int_bad.iter().take(5)) {
        log(format!("    mismatch {b}"));
    }
    ok &= math_bad.is_empty() && int_bad.is_empty();
    let summary = format!(
        "noise {total} triples over 4 profiles, {bad_total} mismatches; math {} inputs, {} mismatches; u128/top-p {} inputs, {} mismatches; lead-bound violations {bound_violations}",
        xs.len(), math_bad.len(), items.len(), int_bad.len()
    );
    math_bad.truncate(20);
    int_bad.truncate(20);
    Ok((
        ok,
        json!({"summary": summary, "noise": per_profile, "math_inputs": xs.len(),
            "math_mismatches": math_bad, "int_inputs": items.len(), "int_mismatches": int_bad,
            "bound_violations": bound_violations, "ok": ok}),
    ))
}

// ---------------------------------------------------------------- differential

fn cpu_eval(b: &Batch) -> Result<Vec<RowOutput>> {
    Ok(match &b.logits {
        Typed::F32(v) => sample_batch(v, b.vocab, b.stride, &b.reqs)?,
        Typed::Bf16(v) => sample_batch(v, b.vocab, b.stride, &b.reqs)?,
        Typed::F16(v) => sample_batch(v, b.vocab, b.stride, &b.reqs)?,
    })
}

fn gpu_eval(s: &mut Sampler, b: &Batch, opts: &LaunchOptions) -> Result<Vec<RowOutput>> {
    Ok(match &b.logits {
        Typed::F32(v) => s.sample_host_with(opts, v, b.vocab, b.stride, &b.reqs)?,
        Typed::Bf16(v) => s.sample_host_with(opts, v, b.vocab, b.stride, &b.reqs)?,
        Typed::F16(v) => s.sample_host_with(opts, v, b.vocab, b.stride, &b.reqs)?,
    })
}

#[derive(Default, Serialize, Clone)]
struct Tally {
    rows: u64,
    mismatches: u64,
}

fn check_differential(
    sampler: &mut Sampler,
    cli: &Cli,
    dir: &std::path::Path,
) -> Result<(bool, serde_json::Value)> {
    log(format!(
        "differential: {} rows, seed {:#x}",
        cli.rows, cli.seed
    ));
    let t0 = Instant::now();
    let mut rows = 0usize;
    let mut batches = 0u64;
    let mut mismatches: Vec<RowReport> = Vec::new();
    let mut n_mismatch = 0u64;
    let mut errors: Vec<String> = Vec::new();
    let mut by: std::collections::BTreeMap<String, Tally> = Default::default();
    let mut status_counts = [0u64; 3];
    let mut large_rows = 0u64;
    let mut cpu_s = 0.0;
    let mut gpu_s = 0.0;
    let mut next_id = 0u64;
    let mut out = std::fs::File::create(dir.join("mismatches.jsonl"))?;
    while rows < cli.rows {
        if t0.elapsed().as_secs() > cli.diff_budget_s {
            errors.push(format!("time budget of {} s reached", cli.diff_budget_s));
            break;
        }
        let group: Vec<Batch> = (next_id..next_id + 48)
            .into_par_iter()
            .map(|id| Batch::generate(cli.seed, id))
            .collect();
        next_id += 48;
        let (cpu, gpu) = rayon::join(
            || {
                let t = Instant::now();
                let r: Vec<Result<Vec<RowOutput>>> = group.par_iter().map(cpu_eval).collect();
                (r, t.elapsed().as_secs_f64())
            },
            || {
                let t = Instant::now();
                let mut r = Vec::with_capacity(group.len());
                for b in &group {
                    PROGRESS.fetch_add(1, Ordering::Relaxed);
                    r.push(gpu_eval(sampler, b, &LaunchOptions::default()));
                }
                (r, t.elapsed().as_secs_f64())
            },
        );
        cpu_s += cpu.1;
        gpu_s += gpu.1;
        for ((b, c), g) in group.iter().zip(cpu.0).zip(gpu.0) {
            batches += 1;
            let (c, g) = match (c, g) {
                (Ok(c), Ok(g)) => (c, g),
                (c, g) => {
                    let msg = format!(
                        "batch {} (vocab {}, rows {}): cpu {:?} / gpu {:?}",
                        b.id,
                        b.vocab,
                        b.rows(),
                        c.err().map(|e| e.to_string()),
                        g.err().map(|e| e.to_string())
                    );
                    log(format!("  ERROR {msg}"));
                    errors.push(msg);
                    if errors.len() > 20 {
                        bail!("too many errors in the differential check: {errors:?}");
                    }
                    continue;
                }
            };
            for r in 0..b.rows() {
                rows += 1;
                if b.vocab >= 65536 {
                    large_rows += 1;
                }
                status_counts[c[r].status as usize] += 1;
                let p = b.reqs[r].params;
                let mode = if p.is_greedy() {
                    "greedy"
                } else if p.has_filter() {
                    "filter"
                } else {
                    "plain"
                };
                let bias = match &b.reqs[r].bias {
                    LogitBias::None => "nobias",
                    LogitBias::Dense(_) => "dense",
                    LogitBias::Sparse(_) => "sparse",
                };
                let key = format!("{:?}/{}/{}/{}", b.dtype, p.profile(), mode, bias);
                let e = by.entry(key).or_default();
                e.rows += 1;
                if c[r] != g[r] {
                    e.mismatches += 1;
                    n_mismatch += 1;
                    let rep = b.report(r, format!("{:?}", c[r]), format!("{:?}", g[r]));
                    if n_mismatch <= 10 {
                        log(format!("  MISMATCH {}", serde_json::to_string(&rep)?));
                    }
                    if mismatches.len() < 200 {
                        writeln!(out, "{}", serde_json::to_string(&rep)?)?;
                        mismatches.push(rep);
                    }
                }
            }
        }
        if batches % 480 == 0 {
            log(format!(
                "  {rows} rows in {batches} batches, {n_mismatch} mismatches (cpu {cpu_s:.1}s, gpu {gpu_s:.1}s)"
            ));
        }
    }
    let ok = n_mismatch == 0 && errors.is_empty() && rows >= cli.rows;
    let summary = format!(
        "{rows} rows ({large_rows} with vocab >= 65536) in {batches} batches: {n_mismatch} mismatches, {} errors; statuses ok/nonfinite/masked = {:?}; {:.1}s",
        errors.len(),
        status_counts,
        t0.elapsed().as_secs_f64()
    );
    log(format!("  {summary}"));
    Ok((
        ok,
        json!({"summary": summary, "rows": rows, "batches": batches, "mismatches": n_mismatch,
            "errors": errors, "by_kind": by, "status_counts": status_counts,
            "large_rows": large_rows, "cpu_s": cpu_s, "gpu_s": gpu_s, "ok": ok}),
    ))
}

/// Batches of bf16 top-p rows whose top-p chunks are long enough for the
/// histogram's per-chunk counts (`Batch::generate_long_topp`), against the
/// CPU model. The random batches of the differential rarely have that shape
/// (it needs dozens of rows of a large vocabulary). Counts how many batches
/// took the located-chunk path on this device; none taking it is a failure,
/// not a pass.
fn check_long_topp(sampler: &mut Sampler, cli: &Cli) -> Result<(bool, serde_json::Value)> {
    check_generated(
        sampler,
        cli,
        ("long top-p", 16),
        Batch::generate_long_topp,
        "with per-chunk counts on this device",
        |_, g| g.topp_cnt_bytes > 0,
        Demand::SkipAndRace,
    )
}

/// Batches of bf16 top-p rows that the top-p kernels take one chunk a row
/// (`Batch::generate_segmented_topp`), against the CPU model: the histogram
/// counts each row in segments and the gather reads the one holding the
/// cut. None taking that shape on this device is a failure.
fn check_segmented_topp(sampler: &mut Sampler, cli: &Cli) -> Result<(bool, serde_json::Value)> {
    check_generated(
        sampler,
        cli,
        ("segmented top-p", 8),
        Batch::generate_segmented_topp,
        "with histogram segments on this device",
        |_, g| g.topp_seg_units > 0,
        // Rows of one chunk: the histogram races only rows of several
        // (`tr_topp_hist` in kernels/topp.cu), so none is raced here.
        Demand::Skip,
    )
}

/// Batches of 397 to 2,048 rows (`Batch::generate_large`), against the CPU
/// model: the automatic geometry gives them one chunk a row in blocks of
/// fewer than 256 threads where they take the specialized kernels
/// (`Geometry::new`), a shape the differential's batches of at most 192
/// rows never take. None taking it is a failure. The first two batches are
/// f32 and f16 rows of 131,072 and 140,000 logits, which the top-p
/// histogram takes in one chunk (its sums of 15-bit pieces, and of 128
/// bits).
fn check_large(sampler: &mut Sampler, cli: &Cli) -> Result<(bool, serde_json::Value)> {
    check_generated(
        sampler,
        cli,
        ("large batches", 8),
        Batch::generate_large,
        "in blocks of fewer than 256 threads",
        // The generic kernel keeps 256 threads (`Geometry::for_build`).
        |b, g| g.block_threads < 256 && b.specialized(),
        Demand::Shape,
    )
}

/// Generates a group of batches, `(name, batches)` in the full run and two
/// in the short runs (the memcheck run asks for 1,500 rows), and checks it
/// with [`check_group`].
fn check_generated(
    sampler: &mut Sampler,
    cli: &Cli,
    (name, full): (&str, u64),
    generate: fn(u64, u64) -> Batch,
    shape: &str,
    shaped: impl Fn(&Batch, &Geometry) -> bool,
    demand: Demand,
) -> Result<(bool, serde_json::Value)> {
    let batches: u64 = if cli.rows >= 10_000 { full } else { 2 };
    log(format!("{name}: {batches} batches"));
    let group: Vec<Batch> = (0..batches)
        .into_par_iter()
        .map(|id| generate(cli.seed, id))
        .collect();
    check_group(sampler, &group, shape, shaped, demand)
}

/// What a generated group must have run besides its shape.
#[derive(Clone, Copy, PartialEq)]
enum Demand {
    /// The shape alone.
    Shape,
    /// On a device with thread block clusters, at least one batch with
    /// pending top-p cuts and one without a first pass (groups of bf16
    /// top-p rows alone).
    Skip,
    /// As `Skip`, and in a build whose histogram races rows or finds their
    /// cuts' indices (`TR_TOPP_RACE`, `TR_TOPP_SETTLE`, `TR_TOPP_CUT_INDEX`),
    /// at least one such row.
    SkipAndRace,
}

/// Whether the checked build's bf16 top-p histogram races rows itself or
/// finds their cuts' indices (`--checked-define TR_TOPP_RACE=1`,
/// `TR_TOPP_SETTLE=1` or `TR_TOPP_CUT_INDEX=1`): set once, before any check.
static HISTOGRAM_RACES: std::sync::OnceLock<bool> = std::sync::OnceLock::new();

/// Runs `group` on the CPU model and the GPU (default launch options) and
/// compares row by row; `shaped` tells whether a batch's automatic geometry
/// has the shape the group is for, and at least one must; `demand` says
/// what else must have run.
fn check_group(
    sampler: &mut Sampler,
    group: &[Batch],
    shape: &str,
    shaped: impl Fn(&Batch, &Geometry) -> bool,
    demand: Demand,
) -> Result<(bool, serde_json::Value)> {
    let t0 = Instant::now();
    let batches = group.len();
    let cpu: Vec<Result<Vec<RowOutput>>> = group.par_iter().map(cpu_eval).collect();
    let (mut rows, mut mismatches, mut located) = (0u64, 0u64, 0u64);
    let (mut cut_rows, mut cut_mismatches) = (0u64, 0u64);
    let (mut own, mut alt_rows, mut pending) = (0u64, 0u64, 0u64);
    // Rows the histogram raced itself (TR_TOPP_RACE, TR_TOPP_SETTLE) or
    // whose cuts' indices its cluster found (TR_TOPP_CUT_INDEX), in default
    // launches.
    let mut settled = 0u64;
    // Batches whose histogram staged its chunks, and the most units a
    // thread among them.
    let (mut staged, mut staged_max) = (0u64, 0u32);
    let mut errors: Vec<String> = Vec::new();
    // A batch that ran without a first pass (its histogram blocks found the
    // rows' records, one cluster a row) runs again under two of these,
    // against the CPU model too: the first pass, other cluster sizes (16
    // takes the non-portable opt-in; 1 is no cluster), plain stream order
    // (which keeps the first pass), the early and the late PDL trigger.
    let alts = [
        LaunchOptions {
            first_pass_always: true,
            ..LaunchOptions::default()
        },
        LaunchOptions {
            topp_cluster: 16,
            ..LaunchOptions::default()
        },
        LaunchOptions {
            no_pdl: true,
            ..LaunchOptions::default()
        },
        LaunchOptions {
            topp_cluster: 3,
            ..LaunchOptions::default()
        },
        LaunchOptions {
            topp_cluster: 1,
            ..LaunchOptions::default()
        },
        LaunchOptions {
            topp_trigger: ToppTrigger::Early,
            ..LaunchOptions::default()
        },
        LaunchOptions {
            topp_trigger: ToppTrigger::Late,
            ..LaunchOptions::default()
        },
    ];
    for (b, c) in group.iter().zip(cpu) {
        let g = Geometry::new(
            &LaunchOptions::default(),
            b.rows(),
            b.vocab,
            sampler.sm_count(),
        )?;
        if shaped(b, &g) {
            located += 1;
        }
        match (c, gpu_eval(sampler, b, &LaunchOptions::default())) {
            (Ok(c), Ok(gv)) => {
                pending += u64::from(sampler.last_pending_topp());
                let units = sampler.last_staged_units();
                staged += u64::from(units > 0);
                staged_max = staged_max.max(units);
                let (n, bad, raced) = compare_cuts(sampler, b)?;
                settled += raced;
                cut_rows += n;
                cut_mismatches += bad;
                // Row by row against the CPU model; the first ten mismatches logged.
                let mut tally = |gv: &[RowOutput], what: &str| -> Result<u64> {
                    for r in 0..b.rows() {
                        if c[r] != gv[r] {
                            mismatches += 1;
                            if mismatches <= 10 {
                                let rep =
                                    b.report(r, format!("{:?}", c[r]), format!("{:?}", gv[r]));
                                log(format!("  MISMATCH{what} {}", serde_json::to_string(&rep)?));
                            }
                        }
                    }
                    Ok(b.rows() as u64)
                };
                rows += tally(&gv, "")?;
                if sampler.last_skipped_first_pass() {
                    // Two of them a batch, in turn: three batches try all.
                    for j in 0..2 {
                        let alt = alts[(2 * own as usize + j) % alts.len()];
                        let av = gpu_eval(sampler, b, &alt)?;
                        let (n, bad, raced) = compare_cuts(sampler, b)?;
                        settled += raced;
                        cut_rows += n;
                        cut_mismatches += bad;
                        alt_rows += tally(&av, &format!(" (options {alt:?})"))?;
                    }
                    own += 1;
                }
            }
            (c, gv) => errors.push(format!(
                "batch {} (vocab {}, rows {}): cpu {:?} / gpu {:?}",
                b.id,
                b.vocab,
                b.rows(),
                c.err().map(|e| e.to_string()),
                gv.err().map(|e| e.to_string())
            )),
        }
    }
    let races = demand == Demand::SkipAndRace && HISTOGRAM_RACES.get().copied().unwrap_or(false);
    let own_ok = demand == Demand::Shape
        || !sampler.has_clusters()
        || (own > 0 && pending > 0 && (settled > 0 || !races));
    if !own_ok {
        log(
            "  FAIL: no batch of this group ran without its first pass or with pending cuts, \
             or (a build with TR_TOPP_RACE, TR_TOPP_SETTLE or TR_TOPP_CUT_INDEX) no row of it was raced \
             (or had its cut's index found) by its histogram",
        );
    }
    let ok = mismatches == 0 && errors.is_empty() && located > 0 && cut_mismatches == 0 && own_ok;
    let summary = format!(
        "{rows} rows in {batches} batches ({located} {shape}; {pending} with pending top-p cuts, \
         {own} without a first pass ({settled} rows raced by their histogram or given their cut's index there), {staged} of them staging their chunks (up to {staged_max} \
         units a thread), run again under other options: {alt_rows} more rows): {mismatches} mismatches, {} errors; \
         cuts of the top-p kernels: {cut_rows} compared, {cut_mismatches} differ; {:.1}s",
        errors.len(),
        t0.elapsed().as_secs_f64()
    );
    log(format!("  {summary}"));
    Ok((
        ok,
        json!({"summary": summary, "rows": rows, "batches": batches, "located": located,
            "mismatches": mismatches, "cut_rows": cut_rows, "cut_mismatches": cut_mismatches,
            "pending_batches": pending, "without_first_pass": own, "race_settled_rows": settled, "staged_batches": staged,
             "staged_units_max": staged_max, "alt_rows": alt_rows, "errors": errors, "ok": ok}),
    ))
}

/// Compares the cut the top-p kernels recorded for each row of the batch just
/// sampled ([`Sampler::debug_row_cuts`]) with the CPU model's cut
/// (`filter::cut` through `PreparedRow`): the tokens alone rarely reveal a
/// cut one element off, since the race seldom draws the element at the
/// boundary. Rows the race kernel finished, and rows the histogram's cluster
/// raced after the cut (a build with `TR_TOPP_SETTLE`), record the
/// boundary's value and index; rows the histogram raced itself while it
/// counted (a build with `TR_TOPP_RACE`) the
/// value and the boundary's rank among the row's elements of that value in
/// index order, which names the same element. Compares
/// the rows without bias or min-p whose model cut exists (min-p can move the
/// boundary to a whole value, `Cut::index == u32::MAX`, a form the top-p
/// kernels do not record) and the kernels took; returns (rows compared, rows
/// that differ, rows the histogram raced or whose cut's index its cluster
/// found (`TR_TOPP_CUT_INDEX`), compared or not).
fn compare_cuts(sampler: &Sampler, b: &Batch) -> Result<(u64, u64, u64)> {
    let gpu = sampler.debug_row_cuts()?;
    if gpu.len() != b.rows() {
        bail!(
            "batch {}: the sampler recorded {} rows, the batch has {}",
            b.id,
            gpu.len(),
            b.rows()
        );
    }
    let settled = gpu
        .iter()
        .filter(|g| {
            matches!(
                g,
                Some(
                    RecordedCut::Rank { .. }
                        | RecordedCut::Settled { .. }
                        | RecordedCut::Clustered { .. }
                )
            )
        })
        .count() as u64;
    let pairs: Vec<(usize, RecordedCut, ModelCut)> = gpu
        .par_iter()
        .enumerate()
        .filter_map(|(r, g)| {
            let g = (*g)?;
            let req = &b.reqs[r];
            if !matches!(req.bias, LogitBias::None) || req.params.min_p().is_some() {
                return None;
            }
            let x = r * b.stride..r * b.stride + b.vocab;
            // The rank only where the record has one (a linear pass).
            let rank = matches!(g, RecordedCut::Rank { .. });
            let m = match &b.logits {
                Typed::F32(v) => model_cut(&v[x], req.params, b.vocab, rank),
                Typed::Bf16(v) => model_cut(&v[x], req.params, b.vocab, rank),
                Typed::F16(v) => model_cut(&v[x], req.params, b.vocab, rank),
            }?;
            Some((r, g, m))
        })
        .collect();
    let (mut n, mut bad) = (0u64, 0u64);
    for (r, g, m) in pairs {
        n += 1;
        // Compared as the cut is used (`Cut::keeps` compares `a` with `>`
        // and `==`): the kernels' order keys do not tell -0 from +0, so a
        // boundary at a -0 logit comes back as +0, the same cut.
        let same = match g {
            RecordedCut::Index { a, index }
            | RecordedCut::Settled { a, index }
            | RecordedCut::Clustered { a, index } => m.cut.a == a && m.cut.index == index,
            RecordedCut::Rank { a, q } => m.cut.a == a && m.rank == Some(q),
        };
        if !same {
            bad += 1;
            if bad <= 10 {
                log(format!(
                    "  CUT MISMATCH batch {} row {r}: model ({}, index {}, rank {:?}) gpu {g:?}",
                    b.id, m.cut.a, m.cut.index, m.rank
                ));
            }
        }
    }
    Ok((n, bad, settled))
}

/// The CPU model's cut of a row and, where asked, the boundary's rank among
/// the row's elements of its value in index order (from 1; `None` where not
/// asked, or where the cut keeps every element of that value, `Cut::index ==
/// u32::MAX`).
struct ModelCut {
    cut: tailrace_model::filter::Cut,
    rank: Option<u32>,
}

fn model_cut<T: tailrace_model::Logit>(
    x: &[T],
    params: SamplingParams,
    vocab: usize,
    rank: bool,
) -> Option<ModelCut> {
    let row = tailrace_model::race::RowData::new(x, None);
    let cut = tailrace_model::race::PreparedRow::new(
        row,
        params,
        std::slice::from_ref(&(0..vocab)),
        false,
    )
    .cut?;
    Some(ModelCut {
        cut,
        rank: if rank { cut_rank(x, cut) } else { None },
    })
}

/// The rank of the cut's element among the elements of its value in index
/// order (from 1), compared as `Cut::keeps` compares (`==` on binary64: -0
/// and +0 are one value); `None` where the cut names no element.
fn cut_rank<T: tailrace_model::Logit>(x: &[T], cut: tailrace_model::filter::Cut) -> Option<u32> {
    let end = usize::try_from(cut.index).ok()?;
    if end >= x.len() {
        return None;
    }
    let equal = x[..=end]
        .iter()
        .filter(|v| f64::from(v.to_f32()) == cut.a)
        .count();
    u32::try_from(equal).ok()
}

// ---------------------------------------------------------------- invariance

fn check_invariance(sampler: &mut Sampler, cli: &Cli) -> Result<(bool, serde_json::Value)> {
    log("invariance: geometry, permutation, batch size, graph replay");
    let geometries = [
        LaunchOptions {
            block_threads: 32,
            blocks_per_row: 1,
            filter_threads: 32,
            queue_cap: 32,
            generic: true,
            no_fused: true,
            no_pdl: true,
            no_topp_pend: false,
            first_pass_always: false,
            topp_cluster: 0,
            topp_trigger: ToppTrigger::Auto,
        },
        LaunchOptions {
            block_threads: 512,
            blocks_per_row: 0,
            filter_threads: 512,
            queue_cap: 32,
            generic: false,
            no_fused: false,
            no_pdl: false,
            no_topp_pend: false,
            first_pass_always: false,
            topp_cluster: 0,
            topp_trigger: ToppTrigger::Late,
        },
        LaunchOptions {
            block_threads: 128,
            blocks_per_row: 7,
            filter_threads: 64,
            queue_cap: 200,
            generic: true,
            no_fused: true,
            no_pdl: false,
            no_topp_pend: false,
            first_pass_always: false,
            topp_cluster: 0,
            topp_trigger: ToppTrigger::Early,
        },
        LaunchOptions {
            block_threads: 64,
            blocks_per_row: 100_000,
            filter_threads: 256,
            queue_cap: 0,
            generic: false,
            no_fused: false,
            no_pdl: true,
            no_topp_pend: false,
            first_pass_always: false,
            topp_cluster: 0,
            topp_trigger: ToppTrigger::Auto,
        },
        LaunchOptions {
            block_threads: 512,
            blocks_per_row: 3,
            filter_threads: 128,
            queue_cap: 96,
            generic: true,
            no_fused: false,
            no_pdl: false,
            no_topp_pend: false,
            first_pass_always: false,
            topp_cluster: 0,
            topp_trigger: ToppTrigger::Early,
        },
        // One warp a block with the fused top-k path: its last block reads
        // the lists' first slots before it combines, in the same warp.
        LaunchOptions {
            block_threads: 32,
            blocks_per_row: 0,
            filter_threads: 64,
            queue_cap: 0,
            generic: false,
            no_fused: false,
            no_pdl: false,
            no_topp_pend: false,
            first_pass_always: false,
            topp_cluster: 0,
            topp_trigger: ToppTrigger::Late,
        },
        // Blocks of 3 and 12 warps (not powers of two), the default queues.
        LaunchOptions {
            block_threads: 96,
            blocks_per_row: 0,
            filter_threads: 96,
            queue_cap: 0,
            generic: false,
            no_fused: false,
            no_pdl: false,
            no_topp_pend: false,
            first_pass_always: false,
            topp_cluster: 0,
            topp_trigger: ToppTrigger::Early,
        },
        // Two chunks a row, every top-p cut found by the gather.
        LaunchOptions {
            block_threads: 384,
            blocks_per_row: 2,
            filter_threads: 0,
            queue_cap: 0,
            generic: false,
            no_fused: false,
            no_pdl: false,
            no_topp_pend: true,
            first_pass_always: false,
            topp_cluster: 0,
            topp_trigger: ToppTrigger::Late,
        },
        // 512 threads with the default queues: no room for the race's
        // staging ring, so the specialized kernels load in registers.
        LaunchOptions {
            block_threads: 512,
            blocks_per_row: 0,
            filter_threads: 0,
            queue_cap: 0,
            generic: false,
            no_fused: true,
            no_pdl: false,
            no_topp_pend: false,
            first_pass_always: false,
            topp_cluster: 0,
            topp_trigger: ToppTrigger::Auto,
        },
    ];
    let mut checked = 0u64;
    let mut bad = 0u64;
    let mut examples = Vec::new();
    let mut rng = Rng(cli.seed ^ 0x1A7A);
    let mut compare =
        |what: &str, base: &[RowOutput], other: &[RowOutput], map: &[usize], b: &Batch| {
            for (j, &src) in map.iter().enumerate() {
                checked += 1;
                if base[src] != other[j] {
                    bad += 1;
                    if examples.len() < 20 {
                        let rep =
                            b.report(src, format!("{:?}", base[src]), format!("{:?}", other[j]));
                        log(format!(
                            "  INVARIANCE {what}: {}",
                            serde_json::to_string(&rep).unwrap_or_default()
                        ));
                        examples.push(json!({"what": what, "row": rep}));
                    }
                }
            }
        };
    // Kernel variants (other unrolling/register budgets) must give the same tokens.
    let mut variants: Vec<(String, Sampler)> = Vec::new();
    let mut opt_variants: Vec<(String, LaunchOptions)> = Vec::new();
    for v in &cli.variant {
        if let Some(names) = v.strip_prefix("opts:") {
            opt_variants.push((v.clone(), launch_options(names)?));
            continue;
        }
        let defines: Vec<String> = v.split(';').map(str::to_string).collect();
        let vs = Sampler::with_variant(sampler.stream().clone(), &defines)
            .with_context(|| format!("compiling variant {v}"))?;
        variants.push((v.clone(), vs));
    }
    // The time budget starts after the variants compiled (NVRTC takes a while).
    let t_loop = Instant::now();
    let mut batches = 0;
    for id in (0..).map(|k| 1_000_000 + k) {
        if batches >= 300 || t_loop.elapsed().as_secs() > 45 {
            break;
        }
        let b = Batch::generate(cli.seed, id);
        if b.rows() * b.vocab > 600_000 && b.vocab < 65536 {
            continue;
        }
        batches += 1;
        PROGRESS.fetch_add(1, Ordering::Relaxed);
        let base = gpu_eval(sampler, &b, &LaunchOptions::default())?;
        let ident: Vec<usize> = (0..b.rows()).collect();
        let g = geometries[batches % geometries.len()];
        let other = gpu_eval(sampler, &b, &g)?;
        compare(&format!("geometry {g:?}"), &base, &other, &ident, &b);
        for (name, vs) in variants.iter_mut() {
            let other = gpu_eval(vs, &b, &LaunchOptions::default())?;
            compare(&format!("variant {name}"), &base, &other, &ident, &b);
        }
        for (name, o) in &opt_variants {
            let other = gpu_eval(sampler, &b, o)?;
            compare(&format!("variant {name}"), &base, &other, &ident, &b);
        }
        // Permuted, with stride = vocab.
        let mut perm = ident.clone();
        for i in (1..perm.len()).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            perm.swap(i, j);
        }
        let pb = b.permuted(&perm);
        let other = gpu_eval(sampler, &pb, &LaunchOptions::default())?;
        compare("permuted", &base, &other, &perm, &b);
        // Doubled batch (other batch size): rows then the same rows reversed.
        let mut dbl: Vec<usize> = ident.clone();
        dbl.extend(ident.iter().rev());
        let db = b.permuted(&dbl);
        let other = gpu_eval(sampler, &db, &LaunchOptions::default())?;
        compare("doubled", &base, &other, &dbl, &b);
        // Each row alone (small batches).
        if b.rows() <= 6 {
            for r in 0..b.rows() {
                let one = b.permuted(&[r]);
                let other = gpu_eval(sampler, &one, &LaunchOptions::default())?;
                compare("alone", &base, &other, &[r], &b);
            }
        }
    }
    // Graph capture and replay with new positions.
    let graph = check_graph(sampler, cli)?;
    let graph_ok = graph["ok"].as_bool().unwrap_or(false);
    // No comparisons at all would be a vacuous pass.
    let ok = bad == 0 && graph_ok && checked > 0;
    let summary = format!(
        "{checked} row comparisons over {batches} batches (geometry, permutation, doubled, alone, kernel variants {:?}): {bad} differences; graph replay: {}",
        cli.variant,
        graph["summary"].as_str().unwrap_or("")
    );
    log(format!("  {summary}"));
    Ok((
        ok,
        json!({"summary": summary, "checked": checked, "differences": bad, "examples": examples,
            "graph": graph, "ok": ok}),
    ))
}

fn upload_bf16(sampler: &Sampler, data: &[half::bf16]) -> Result<cudarc::driver::CudaSlice<u16>> {
    let bits: Vec<u16> = data.iter().map(|x| x.to_bits()).collect();
    Ok(sampler.stream().clone_htod(&bits)?)
}

fn check_graph(sampler: &mut Sampler, cli: &Cli) -> Result<serde_json::Value> {
    use cudarc::driver::sys;
    let vocab = 32768 + 24;
    let rows = 16;
    let mut r = Rng(cli.seed ^ 0x6A6A);
    let data: Vec<half::bf16> = (0..rows * vocab)
        .map(|_| half::bf16::from_f32((r.normal() * 3.0) as f32))
        .collect();
    let reqs: Vec<RowRequest> = (0..rows)
        .map(|i| {
            let raw = RawParams {
                temperature: [1.0, 0.7, 0.0, 1.3][i % 4],
                top_k: if i % 5 == 1 { 40 } else { 0 },
                top_p: if i % 3 == 2 { 0.9 } else { 1.0 },
                seed: r.next(),
                position: r.below(1000),
                profile: NoiseProfile::ALL[i % 4],
                ..RawParams::default()
            };
            RowRequest {
                params: SamplingParams::new(raw).expect("valid"),
                bias: if i % 6 == 5 {
                    LogitBias::Sparse(vec![(3, 10.0), (7, f32::NEG_INFINITY)])
                } else {
                    LogitBias::None
                },
            }
        })
        .collect();
    let stream = sampler.stream().clone();
    let buf = upload_bf16(sampler, &data)?;
    let mut params = DeviceParams::new(&stream, vocab, &reqs)?;
    let mut out = DeviceOutput::new(&stream, rows)?;
    let opts = LaunchOptions::default();
    sampler.reserve(rows, vocab, params.sparse_rows(), &opts)?;
    let logits = DeviceLogits::new(&buf, &stream, Dtype::Bf16, rows, vocab, vocab)?;
    stream.synchronize()?;
    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)?;
    let cap = sampler.sample(&logits, &params, &mut out, &opts);
    let graph = stream.end_capture(
        sys::CUgraphInstantiate_flags::CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH,
    )?;
    cap?;
    let graph = graph.context("capture produced no graph")?;
    let mut replays = 0;
    let mut diffs = 0;
    for step in 0..8u64 {
        let positions: Vec<u64> = reqs
            .iter()
            .map(|q| q.params.position() + step * 1000)
            .collect();
        params.set_positions(&stream, &positions)?;
        graph.launch()?;
        let got = out.download(&stream)?;
        let want_reqs: Vec<RowRequest> = reqs
            .iter()
            .zip(&positions)
            .map(|(q, p)| RowRequest {
                params: q.params.at_position(*p),
                bias: q.bias.clone(),
            })
            .collect();
        let want = sample_batch(&data, vocab, vocab, &want_reqs)?;
        replays += 1;
        diffs += got.iter().zip(&want).filter(|(a, b)| a != b).count();
    }
    let ok = diffs == 0;
    Ok(
        json!({"summary": format!("{replays} replays x {rows} rows vs CPU: {diffs} differences"),
        "ok": ok}),
    )
}

// ---------------------------------------------------------------- timing

#[derive(Serialize)]
struct Timing {
    name: String,
    dtype: String,
    vocab: usize,
    rows: usize,
    median_us: f64,
    p10_us: f64,
    p90_us: f64,
    floor_us: f64,
    ratio_to_floor: f64,
    /// The same call timed with the calls queued back to back (no host
    /// synchronization between them, a GPU delay in front so the host is
    /// ahead): the device time of the sampler's launches without the host's
    /// submission latency, as the baselines' eager loop times theirs.
    queued_median_us: f64,
    queued_p10_us: f64,
    queued_p90_us: f64,
    /// Whether every queued call was on the stream before the first ran
    /// (false: the host fell behind and the queued figures include gaps).
    queued_host_ahead: bool,
    /// Median host time of the sampler call in the per-call timing (us). The
    /// GPU waits for part of it (run 55 of docs/cuda-notes.md: per call minus
    /// queued follows the launch's host cost, as for an empty kernel).
    host_median_us: f64,
}

fn measure_copy_bandwidth(sampler: &Sampler) -> Result<f64> {
    let s = sampler.stream();
    let n = 256usize << 20; // 1 GiB of f32
    let a = s.alloc_zeros::<f32>(n)?;
    let mut b = s.alloc_zeros::<f32>(n)?;
    let ctx = sampler.context();
    let e0 = ctx.new_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT))?;
    let e1 = ctx.new_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT))?;
    s.memcpy_dtod(&a, &mut b)?;
    let mut best = f64::MAX;
    for _ in 0..5 {
        e0.record(s)?;
        s.memcpy_dtod(&a, &mut b)?;
        e1.record(s)?;
        e1.synchronize()?;
        best = best.min(f64::from(e0.elapsed_ms(&e1)?));
    }
    Ok(2.0 * (n * 4) as f64 / (best * 1e-3)) // bytes read + written per second
}

#[derive(Clone)]
struct Cfg {
    name: String,
    dtype: Dtype,
    vocab: usize,
    rows: usize,
    raw: RawParams,
    opts: LaunchOptions,
}

impl Cfg {
    fn new(
        name: &str,
        dtype: Dtype,
        vocab: usize,
        rows: usize,
        raw: RawParams,
        opts: LaunchOptions,
    ) -> Cfg {
        Cfg {
            name: name.to_string(),
            dtype,
            vocab,
            rows,
            raw,
            opts,
        }
    }
}

/// The timing pool: random logits in a buffer much larger than L2, rotated.
struct Pool {
    buf: cudarc::driver::CudaSlice<u32>,
    ptr: u64,
    bytes: usize,
    filled: Option<Dtype>,
    /// Scratch whose zero fill delays the stream while the host queues the
    /// calls of a queued timing.
    delay: cudarc::driver::CudaSlice<u8>,
    /// Time of one zero fill of `delay`, us.
    delay_us: f64,
}

/// Bytes of the queued timing's delay buffer.
const DELAY_BYTES: usize = 256 << 20;

/// The copy bandwidth (logged) and a 4 GiB pool of logits, far larger than
/// the L2, for the timings to rotate through.
fn timing_setup(sampler: &Sampler) -> Result<(f64, Pool)> {
    let bw = measure_copy_bandwidth(sampler)?;
    log(format!(
        "  copy bandwidth (read + write): {:.2} TB/s",
        bw / 1e12
    ));
    let stream = sampler.stream().clone();
    let pool_elems: usize = 1usize << 30;
    let buf = stream.alloc_zeros::<u32>(pool_elems)?;
    let ptr = {
        use cudarc::driver::DevicePtr;
        buf.device_ptr(&stream).0
    };
    let mut delay = stream.alloc_zeros::<u8>(DELAY_BYTES)?;
    let ctx = sampler.context();
    let e0 = ctx.new_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT))?;
    let e1 = ctx.new_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT))?;
    let mut delay_us = f64::MAX;
    for _ in 0..3 {
        e0.record(&stream)?;
        stream.memset_zeros(&mut delay)?;
        e1.record(&stream)?;
        e1.synchronize()?;
        delay_us = delay_us.min(f64::from(e0.elapsed_ms(&e1)?) * 1e3);
    }
    Ok((
        bw,
        Pool {
            buf,
            ptr,
            bytes: pool_elems * 4,
            filled: None,
            delay,
            delay_us,
        },
    ))
}

/// The `f` quantile of sorted times (nearest rank).
fn quantile(sorted: &[f64], f: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * f).round() as usize]
}

/// A timing's per-call and queued times (us, each sorted).
struct CallTimes {
    per_call: Vec<f64>,
    /// The host's time in each per-call `run` (us, sorted), part of which
    /// the GPU spends waiting for the submission.
    host: Vec<f64>,
    queued: Vec<f64>,
    /// Whether every queued call was on the stream before the first ran.
    host_ahead: bool,
}

/// Times `iters` calls of `run` (after 10 untimed ones), each given what
/// `prep` makes for its iteration outside the timed stretch. Per call: the
/// stream is idle at each start, so a time includes the host's submission
/// of the call. Queued: zero fills that keep the stream busy for twice the
/// host's time to queue every call (its time a call in the per-call loop),
/// then the calls back to back, each between its own events; `host_ahead`
/// says whether the fills were still running when the last call was queued.
fn time_calls<P>(
    ctx: &std::sync::Arc<cudarc::driver::CudaContext>,
    stream: &std::sync::Arc<cudarc::driver::CudaStream>,
    pool: &mut Pool,
    iters: usize,
    mut prep: impl FnMut(usize) -> Result<P>,
    mut run: impl FnMut(P) -> Result<()>,
) -> Result<CallTimes> {
    let flag = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
    let (e0, e1) = (ctx.new_event(flag)?, ctx.new_event(flag)?);
    let mut per_call = Vec::with_capacity(iters);
    let mut host = Vec::with_capacity(iters);
    let mut host_s = 0.0;
    for it in 0..iters + 10 {
        let p = prep(it)?;
        let t = std::time::Instant::now();
        e0.record(stream)?;
        let t_run = std::time::Instant::now();
        run(p)?;
        let run_us = t_run.elapsed().as_secs_f64() * 1e6;
        e1.record(stream)?;
        host_s += t.elapsed().as_secs_f64();
        e1.synchronize()?;
        if it >= 10 {
            per_call.push(f64::from(e0.elapsed_ms(&e1)?) * 1e3);
            host.push(run_us);
        }
    }
    per_call.sort_by(|a, b| a.total_cmp(b));
    host.sort_by(|a, b| a.total_cmp(b));
    let per_call_us = host_s * 1e6 / (iters + 10) as f64;
    let fills = ((2.0 * iters as f64 * per_call_us / pool.delay_us).ceil() as usize).clamp(1, 64);
    let pairs = (0..iters)
        .map(|_| Ok((ctx.new_event(flag)?, ctx.new_event(flag)?)))
        .collect::<Result<Vec<_>>>()?;
    for _ in 0..fills {
        stream.memset_zeros(&mut pool.delay)?;
    }
    let gate = ctx.new_event(flag)?;
    gate.record(stream)?;
    for (it, (q0, q1)) in pairs.iter().enumerate() {
        let p = prep(iters + 10 + it)?;
        q0.record(stream)?;
        run(p)?;
        q1.record(stream)?;
    }
    let host_ahead = !gate.try_is_complete()?;
    stream.synchronize()?;
    let mut queued = pairs
        .iter()
        .map(|(q0, q1)| Ok(f64::from(q0.elapsed_ms(q1)?) * 1e3))
        .collect::<Result<Vec<f64>>>()?;
    queued.sort_by(|a, b| a.total_cmp(b));
    Ok(CallTimes {
        per_call,
        host,
        queued,
        host_ahead,
    })
}

/// The A/A copy's define (read by no kernel) and its name in the tables.
const AA_COPY_DEFINE: &str = "TR_AA_COPY=1";
const AA_COPY_NAME: &str = "default, A/A copy";

/// The spread of an A/A: for each configuration, the default's and its
/// copy's medians (per call and queued), the largest and the median
/// absolute difference of each kind, and a one-line summary.
fn aa_spread(pairs: &[(&Timing, &Timing)]) -> serde_json::Value {
    let diffs = |f: fn(&Timing) -> f64| -> Vec<f64> {
        pairs.iter().map(|(a, b)| (f(a) - f(b)).abs()).collect()
    };
    let call = diffs(|t| t.median_us);
    let queued = diffs(|t| t.queued_median_us);
    let stats = |d: &[f64]| -> (f64, f64) {
        if d.is_empty() {
            return (f64::NAN, f64::NAN);
        }
        let mut v = d.to_vec();
        v.sort_by(f64::total_cmp);
        (v[v.len() - 1], quantile(&v, 0.5))
    };
    let worst = |d: &[f64]| -> String {
        d.iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map(|(i, _)| {
                format!(
                    "{} {} B={}",
                    pairs[i].0.name, pairs[i].0.dtype, pairs[i].0.rows
                )
            })
            .unwrap_or_default()
    };
    let (cmax, cmed) = stats(&call);
    let (qmax, qmed) = stats(&queued);
    let summary = if pairs.is_empty() {
        "A/A: no configuration timed on both copies".to_string()
    } else {
        format!(
            "A/A (the default against its copy, same requests, interleaved) over {} configurations: \
             per call |difference| at most {cmax:.2} us (median {cmed:.2}; largest at {}), \
             queued at most {qmax:.2} us (median {qmed:.2}; largest at {})",
            pairs.len(),
            worst(&call),
            worst(&queued)
        )
    };
    json!({
        "summary": summary,
        "per_call_max_us": cmax, "per_call_median_us": cmed,
        "queued_max_us": qmax, "queued_median_us": qmed,
        "pairs": pairs.iter().map(|(a, b)| json!({
            "config": a.name, "dtype": a.dtype, "vocab": a.vocab, "rows": a.rows,
            "default_us": a.median_us, "copy_us": b.median_us,
            "default_queued_us": a.queued_median_us, "copy_queued_us": b.queued_median_us,
        })).collect::<Vec<_>>(),
    })
}

/// Each variant against the default, configuration by configuration: the
/// difference of the medians, per call and queued (variant minus default;
/// positive: the variant is slower), the default being the mean of its two
/// copies where an A/A ran (`with_copy`). A difference is called beyond
/// the A/A only where it exceeds the A/A's largest difference of its kind
/// over all configurations (`aa_max`, per call and queued): run 38's A/As
/// put that at 0.5-2 us per call (docs/cuda-notes.md), so smaller
/// differences are not results. `builds[k]` is build k's configurations
/// (None where a configuration failed); build 0 is the default, build 1
/// its copy when `with_copy`.
fn variant_differences(
    builds: &[Vec<Option<&Timing>>],
    with_copy: bool,
    aa_max: Option<(f64, f64)>,
) -> (Vec<String>, serde_json::Value) {
    let first_variant = if with_copy { 2 } else { 1 };
    let mut lines = Vec::new();
    let mut records = Vec::new();
    let Some(default) = builds.first() else {
        return (lines, json!([]));
    };
    for (c, base) in default.iter().enumerate() {
        let Some(base) = base else { continue };
        let copy = if with_copy {
            builds.get(1).and_then(|b| b.get(c).copied().flatten())
        } else {
            None
        };
        // A configuration the copy lost has no reference to trust.
        if with_copy && copy.is_none() {
            continue;
        }
        let reference = |f: fn(&Timing) -> f64| match copy {
            Some(t) => (f(base) + f(t)) / 2.0,
            None => f(base),
        };
        let (rc, rq) = (
            reference(|t| t.median_us),
            reference(|t| t.queued_median_us),
        );
        for b in builds.iter().skip(first_variant) {
            let Some(v) = b.get(c).copied().flatten() else {
                continue;
            };
            let (dc, dq) = (v.median_us - rc, v.queued_median_us - rq);
            let beyond = aa_max.map(|(mc, mq)| (dc.abs() > mc, dq.abs() > mq));
            let verdict = match beyond {
                None => "no A/A to judge it by".to_string(),
                Some((bc, bq)) => format!(
                    "per call {}, queued {} the A/A",
                    if bc { "beyond" } else { "within" },
                    if bq { "beyond" } else { "within" }
                ),
            };
            // V only where it is not the grid's usual 131072.
            let vocab = if v.vocab == 131072 {
                String::new()
            } else {
                format!(" V={}", v.vocab)
            };
            lines.push(format!(
                "A/B {} {}{vocab} B={}: {:+.2} us per call ({:.1} against {:.1}), {:+.2} queued ({:.1} against {:.1}); {verdict}",
                v.name, v.dtype, v.rows, dc, v.median_us, rc, dq, v.queued_median_us, rq
            ));
            records.push(json!({
                "config": v.name, "dtype": v.dtype, "vocab": v.vocab, "rows": v.rows,
                "variant_us": v.median_us, "default_us": rc, "difference_us": dc,
                "variant_queued_us": v.queued_median_us, "default_queued_us": rq,
                "queued_difference_us": dq,
                "beyond_aa_per_call": beyond.map(|b| b.0),
                "beyond_aa_queued": beyond.map(|b| b.1),
            }));
        }
    }
    (lines, serde_json::Value::Array(records))
}

/// The order of the variant timings, as (build, configuration) pairs:
/// configuration by configuration, every build in turn, the build that
/// goes first moving on by one with each configuration. Timed build after
/// build, the first build read up to 3 us slower at top-p 0.9 B = 64 than
/// the same kernels timed later in the process, and A/A pairs of one build
/// 1 us apart (run 37 of docs/cuda-notes.md): a drift that, build by build,
/// lands on the A/B's difference.
fn variant_schedule(builds: usize, configs: usize) -> Vec<(usize, usize)> {
    (0..configs)
        .flat_map(|c| (0..builds).map(move |k| ((c + k) % builds, c)))
        .collect()
}

/// The rows' seeds and positions of a timed configuration: drawn from the
/// check's seed and the shape alone (vocabulary and rows), so that every
/// build, mode, profile and launch option timed at one shape samples the
/// same requests. The race's work (its rare steps) follows the noise, so an
/// A/B whose sides drew other seeds compares two draws as well as two
/// kernels (runs 36 and 37 of docs/cuda-notes.md).
fn timing_requests(seed: u64, cfg: &Cfg) -> Vec<RowRequest> {
    let mut rng = Rng(Rng(Rng(seed ^ 0x7177).next() ^ cfg.vocab as u64).next() ^ cfg.rows as u64);
    (0..cfg.rows)
        .map(|_| {
            RowRequest::from(
                SamplingParams::new(RawParams {
                    seed: rng.next(),
                    position: rng.below(1 << 20),
                    ..cfg.raw
                })
                .expect("valid"),
            )
        })
        .collect()
}

fn time_cfg(
    sampler: &mut Sampler,
    pool: &mut Pool,
    cfg: &Cfg,
    cli: &Cli,
    bw: f64,
) -> Result<Timing> {
    PROGRESS.fetch_add(1, Ordering::Relaxed);
    let stream = sampler.stream().clone();
    let ctx = sampler.context().clone();
    if pool.filled != Some(cfg.dtype) {
        sampler.fill_random(&mut pool.buf, cfg.dtype, cli.seed, 2.0)?;
        stream.synchronize()?;
        pool.filled = Some(cfg.dtype);
    }
    let reqs = timing_requests(cli.seed, cfg);
    let params = DeviceParams::new(&stream, cfg.vocab, &reqs)?;
    let mut out = DeviceOutput::new(&stream, cfg.rows)?;
    sampler.reserve(cfg.rows, cfg.vocab, 0, &cfg.opts)?;
    let batch_bytes = cfg.rows * cfg.vocab * cfg.dtype.size();
    let slots = (pool.bytes / batch_bytes).max(1);
    let base = pool.ptr;
    let logits_at = |it: usize| {
        let off = ((it * 7919) % slots) * batch_bytes;
        // SAFETY: the slot lies inside the pool, which outlives the queued work.
        unsafe {
            DeviceLogits::from_raw(base + off as u64, cfg.dtype, cfg.rows, cfg.vocab, cfg.vocab)
        }
    };
    let CallTimes {
        per_call: times,
        host,
        queued,
        host_ahead,
    } = time_calls(
        &ctx,
        &stream,
        pool,
        cli.iters,
        |it| Ok(logits_at(it)?),
        |logits| {
            sampler.sample(&logits, &params, &mut out, &cfg.opts)?;
            Ok(())
        },
    )?;
    let got = out.download(&stream)?; // surfaces any kernel fault
    let ok_rows = got
        .iter()
        .filter(|o| o.status == tailrace_model::RowStatus::Ok)
        .count();
    let q = |f: f64| quantile(&times, f);
    let floor = batch_bytes as f64 / bw * 1e6;
    let t = Timing {
        name: cfg.name.clone(),
        dtype: format!("{:?}", cfg.dtype),
        vocab: cfg.vocab,
        rows: cfg.rows,
        median_us: q(0.5),
        p10_us: q(0.1),
        p90_us: q(0.9),
        floor_us: floor,
        ratio_to_floor: q(0.5) / floor,
        queued_median_us: quantile(&queued, 0.5),
        queued_p10_us: quantile(&queued, 0.1),
        queued_p90_us: quantile(&queued, 0.9),
        queued_host_ahead: host_ahead,
        host_median_us: quantile(&host, 0.5),
    };
    log(format!(
        "  {:44} {:5} V={:6} B={:5}: median {:9.1} us (p10 {:.1}, p90 {:.1}), floor {:.1} us, x{:.2}; queued {:.1} (p10 {:.1}, p90 {:.1}); host {:.1}{} [{ok_rows} ok rows]",
        t.name, t.dtype, t.vocab, t.rows, t.median_us, t.p10_us, t.p90_us, t.floor_us, t.ratio_to_floor,
        t.queued_median_us, t.queued_p10_us, t.queued_p90_us, t.host_median_us,
        if host_ahead { "" } else { " HOST BEHIND" }
    ));
    Ok(t)
}

fn timing(sampler: &mut Sampler, cli: &Cli) -> Result<(String, serde_json::Value)> {
    log("timing");
    let (bw, mut pool) = timing_setup(sampler)?;
    let stream = sampler.stream().clone();
    let plain = RawParams::default();
    let d = LaunchOptions::default();
    let cfg = Cfg::new;
    // Most configurations: bf16 logits, V = 131072.
    let bf16 = |name: &str, rows, raw, opts| cfg(name, Dtype::Bf16, 131072, rows, raw, opts);
    let mut cfgs = Vec::new();
    for rows in [1usize, 8, 64, 256, 1024] {
        cfgs.push(bf16("exact T=1", rows, plain, d));
    }
    cfgs.push(cfg("exact T=1", Dtype::Bf16, 262144, 256, plain, d));
    cfgs.push(cfg("exact T=1", Dtype::F32, 131072, 256, plain, d));
    cfgs.push(cfg("exact T=1", Dtype::F16, 131072, 256, plain, d));
    for rows in [1usize, 256] {
        cfgs.push(bf16(
            "exact T=1, generic kernel",
            rows,
            plain,
            LaunchOptions { generic: true, ..d },
        ));
    }
    for bt in [128u32, 512] {
        for rows in [256usize, 1024] {
            cfgs.push(bf16(
                &format!("exact T=1, block {bt}"),
                rows,
                plain,
                LaunchOptions {
                    block_threads: bt,
                    ..d
                },
            ));
        }
    }
    for bpr in [16u32, 32, 128] {
        for rows in [1usize, 8] {
            cfgs.push(bf16(
                &format!("exact T=1, {bpr} blocks/row"),
                rows,
                plain,
                LaunchOptions {
                    blocks_per_row: bpr,
                    ..d
                },
            ));
        }
    }
    // Modes at fixed chunk counts (bf16, V = 131072): (rows, chunks a row).
    let chunked = |tag: &str, shapes: &[(usize, u32)], modes: &[(&str, RawParams)]| {
        let mut v = Vec::new();
        for &(rows, bpr) in shapes {
            for &(name, raw) in modes {
                let opts = LaunchOptions {
                    blocks_per_row: bpr,
                    ..d
                };
                let label = format!("{name}, {bpr} blocks/row ({tag})");
                v.push(bf16(&label, rows, raw, opts));
            }
        }
        v
    };
    let greedy = RawParams {
        temperature: 0.0,
        ..plain
    };
    let top_p = RawParams {
        top_p: 0.9,
        ..plain
    };
    // The chunk counts of the earlier automatic rule (four blocks a
    // multiprocessor in all: 64 a row at B = 8, 9 at B = 64), next to the
    // current default.
    cfgs.extend(chunked(
        "earlier default",
        &[(8, 64), (64, 9)],
        &[
            ("exact T=1", plain),
            ("greedy", greedy),
            ("top-p 0.9", top_p),
        ],
    ));
    // Chunk counts around the automatic choice (plain, top-p, top-k).
    if cli.chunk_sweep {
        let sweep = [
            (8, 33),
            (8, 49),
            (64, 2),
            (64, 4),
            (64, 6),
            (128, 2),
            (128, 3),
            (64, 12),
            (64, 18),
            (256, 1),
            (256, 2),
            (256, 3),
            (256, 6),
            (1024, 1),
            (1024, 2),
            (1024, 3),
            (1024, 4),
            (1024, 5),
            (1024, 6),
        ];
        let top_k = RawParams { top_k: 50, ..plain };
        cfgs.extend(chunked(
            "sweep",
            &sweep,
            &[
                ("exact T=1", plain),
                ("top-p 0.9", top_p),
                ("top-k 50", top_k),
            ],
        ));
        // The fused top-k path at small B: fewer, longer chunks mean fewer
        // lists for the row's last block to merge.
        let small = [(1, 8), (1, 16), (1, 32), (1, 128), (8, 4), (8, 8), (8, 16)];
        let top_kp = RawParams {
            top_k: 50,
            top_p: 0.9,
            ..plain
        };
        // B = 1 with one unit a thread in blocks of other sizes.
        for (bt, bpr) in [(64u32, 256u32), (128, 128), (512, 32)] {
            cfgs.push(bf16(
                &format!("exact T=1, block {bt}, {bpr} blocks/row (sweep)"),
                1,
                plain,
                LaunchOptions {
                    block_threads: bt,
                    blocks_per_row: bpr,
                    ..d
                },
            ));
        }
        cfgs.extend(chunked(
            "sweep",
            &small,
            &[
                ("exact T=1", plain),
                ("top-k 50", top_k),
                ("top-k 50 + top-p 0.9", top_kp),
            ],
        ));
    }
    // Block sizes at one chunk a row. The automatic geometry takes 96
    // threads from 1056 rows on (132 SMs), 128 at 792, 192 at 512 for the
    // specialized kernels and 256 for the generic one (`Geometry::for_build`);
    // 256 is the earlier default. bf16 V = 131072 at B = 512 to 2048 (run
    // 16, item 4), then other logit types, vocabularies and profiles at B =
    // 1024, each automatic against 256 threads (the generic kernel's
    // profiles against 96).
    if cli.shape_sweep {
        let top_k = RawParams { top_k: 50, ..plain };
        let top_kp = RawParams {
            top_k: 50,
            top_p: 0.9,
            ..plain
        };
        let min_p = RawParams {
            min_p: 0.05,
            ..plain
        };
        let shape = |bt: u32| LaunchOptions {
            block_threads: bt,
            blocks_per_row: if bt == 0 { 0 } else { 1 },
            ..d
        };
        let modes = [
            ("exact T=1", plain),
            ("top-k 50", top_k),
            ("top-k 50 + top-p 0.9", top_kp),
            ("top-p 0.9", top_p),
            ("min-p 0.05", min_p),
            ("greedy", greedy),
        ];
        let bf16_shapes = [
            (512usize, 96u32),
            (512, 192),
            (512, 256),
            (768, 96),
            (768, 128),
            (768, 256),
            (1024, 64),
            (1024, 96),
            (1024, 128),
            (1024, 256),
            (2048, 64),
            (2048, 96),
            (2048, 256),
        ];
        let label = |name: &str, bt: u32| {
            if bt == 0 {
                format!("{name}, automatic block (shapes)")
            } else {
                format!("{name}, block {bt} (shapes)")
            }
        };
        for (rows, bt) in bf16_shapes {
            for (name, raw) in modes {
                cfgs.push(bf16(&label(name, bt), rows, raw, shape(bt)));
            }
        }
        for (dtype, vocab) in [
            (Dtype::F32, 131072usize),
            (Dtype::F16, 131072),
            (Dtype::Bf16, 32000),
            (Dtype::Bf16, 262144),
        ] {
            for bt in [0u32, 256] {
                for &(name, raw) in &[modes[0], modes[1], modes[3], modes[5]] {
                    cfgs.push(cfg(&label(name, bt), dtype, vocab, 1024, raw, shape(bt)));
                }
            }
        }
        for p in [NoiseProfile::F64, NoiseProfile::F32] {
            for vocab in [131072usize, 262144] {
                for bt in [0u32, 96] {
                    let raw = RawParams {
                        profile: p,
                        ..plain
                    };
                    let name = format!("{} profile T=1", p.name());
                    cfgs.push(cfg(
                        &label(&name, bt),
                        Dtype::Bf16,
                        vocab,
                        1024,
                        raw,
                        shape(bt),
                    ));
                }
            }
        }
    }
    for rows in [1usize, 8, 64, 1024] {
        cfgs.push(bf16(
            "greedy",
            rows,
            RawParams {
                temperature: 0.0,
                ..plain
            },
            d,
        ));
    }
    cfgs.push(bf16(
        "exact T=0.01",
        256,
        RawParams {
            temperature: 0.01,
            ..plain
        },
        d,
    ));
    cfgs.push(bf16(
        "exact T=100",
        256,
        RawParams {
            temperature: 100.0,
            ..plain
        },
        d,
    ));
    for p in [NoiseProfile::F64, NoiseProfile::F32, NoiseProfile::Triton] {
        cfgs.push(bf16(
            &format!("{} profile T=1", p.name()),
            256,
            RawParams {
                profile: p,
                ..plain
            },
            d,
        ));
    }
    for rows in [1usize, 8, 64, 256, 1024] {
        cfgs.push(bf16("top-k 50", rows, RawParams { top_k: 50, ..plain }, d));
    }
    for rows in [1usize, 8, 64, 256, 1024] {
        cfgs.push(bf16(
            "top-p 0.9",
            rows,
            RawParams {
                top_p: 0.9,
                ..plain
            },
            d,
        ));
    }
    // f32/f16 logits take the scaled-bin top-p path (a mass per element).
    for dtype in [Dtype::F32, Dtype::F16] {
        for rows in [1usize, 256, 1024] {
            cfgs.push(cfg(
                "top-p 0.9",
                dtype,
                131072,
                rows,
                RawParams {
                    top_p: 0.9,
                    ..plain
                },
                d,
            ));
        }
    }
    // The same work launched in plain stream order, next to the default
    // (programmatic dependent launch where the device has it).
    for rows in [1usize, 64, 1024] {
        for (name, raw) in [
            ("exact T=1, plain stream order (no PDL)", plain),
            (
                "top-p 0.9, plain stream order (no PDL)",
                RawParams {
                    top_p: 0.9,
                    ..plain
                },
            ),
        ] {
            cfgs.push(bf16(name, rows, raw, LaunchOptions { no_pdl: true, ..d }));
        }
    }
    for rows in [1usize, 256] {
        cfgs.push(bf16(
            "top-p 0.9, filter kernel path (no fused)",
            rows,
            RawParams {
                top_p: 0.9,
                ..plain
            },
            LaunchOptions {
                no_fused: true,
                ..d
            },
        ));
    }
    for rows in [1usize, 256, 1024] {
        cfgs.push(bf16(
            "top-k 50, filter kernel path (no fused)",
            rows,
            RawParams { top_k: 50, ..plain },
            LaunchOptions {
                no_fused: true,
                ..d
            },
        ));
    }
    for rows in [1usize, 8, 64, 256, 1024] {
        cfgs.push(bf16(
            "top-k 50 + top-p 0.9",
            rows,
            RawParams {
                top_k: 50,
                top_p: 0.9,
                ..plain
            },
            d,
        ));
    }
    cfgs.push(bf16(
        "min-p 0.05",
        256,
        RawParams {
            min_p: 0.05,
            ..plain
        },
        d,
    ));
    let mut results = Vec::new();
    if cli.variants_only {
        cfgs.clear();
    }
    for c in &cfgs {
        match time_cfg(sampler, &mut pool, c, cli, bw) {
            Ok(t) => results.push(t),
            Err(e) => log(format!("  TIMING ERROR {} B={}: {e:#}", c.name, c.rows)),
        }
    }
    // Register-budget variants of the kernels (same results, other speed),
    // with the default kernels first when the default list was skipped.
    let mut variants = Vec::new();
    let modes: Vec<(&String, RawParams)> = cli
        .variant_mode
        .iter()
        .map(|m| {
            let (mode, profile) = match m.split_once('@') {
                Some((mode, p)) => (
                    mode,
                    p.parse::<NoiseProfile>()
                        .map_err(|e| anyhow::anyhow!("--variant-mode {m}: {e}"))?,
                ),
                None => (m.as_str(), NoiseProfile::Exact),
            };
            grid_mode(mode, profile)
                .map(|r| (m, r))
                .with_context(|| format!("unknown --variant-mode {m}"))
        })
        .collect::<Result<_>>()?;
    let mut runs: Vec<(String, Option<Sampler>)> = Vec::new();
    if cli.variants_only || cli.variant_aa {
        let own = if timed_default_apart(cli) {
            Some(
                Sampler::with_variant(stream.clone(), &[])
                    .context("loading the default kernels for the variant timing")?,
            )
        } else {
            None
        };
        runs.push(("default".to_string(), own));
    }
    if cli.variant_aa {
        let copy = Sampler::with_variant(stream.clone(), &[AA_COPY_DEFINE.to_string()])
            .context("compiling the A/A copy of the default kernels")?;
        runs.push((AA_COPY_NAME.to_string(), Some(copy)));
    }
    // `opts:NAME,...`: the default kernels with launch options (no_pdl,
    // no_fused, generic, no_topp_pend) instead of defines.
    let mut run_opts: Vec<LaunchOptions> = vec![LaunchOptions::default(); runs.len()];
    for v in &cli.variant {
        if let Some(names) = v.strip_prefix("opts:") {
            match launch_options(names) {
                Ok(o) => {
                    runs.push((v.clone(), None));
                    run_opts.push(o);
                }
                Err(e) => log(format!("  VARIANT {v}: {e:#}")),
            }
            continue;
        }
        let defines: Vec<String> = v.split(';').map(str::to_string).collect();
        match Sampler::with_variant(stream.clone(), &defines) {
            Ok(s) => {
                runs.push((v.clone(), Some(s)));
                run_opts.push(LaunchOptions::default());
            }
            Err(e) => log(format!("  VARIANT {v}: {e:#}")),
        }
    }
    // Each build's configurations, in the same order for every build.
    let vdt = dtype_named(&cli.variant_dtype)?;
    let mut plans: Vec<Vec<Cfg>> = Vec::new();
    for ((v, _), opts) in runs.iter().zip(&run_opts) {
        let mut plan = Vec::new();
        for (m, vraw) in &modes {
            let name = format!("{} T={} {m} [{v}]", vraw.profile.name(), vraw.temperature);
            for &vocab in &cli.variant_vocab {
                for &rows in &cli.variant_rows {
                    plan.push(cfg(&name, vdt, vocab, rows, *vraw, d));
                }
            }
            // The other logit types, as the default's configurations above.
            for dt in [Dtype::Bf16, Dtype::F32, Dtype::F16] {
                if dt != vdt {
                    plan.push(cfg(&name, dt, 131072, 256, *vraw, d));
                }
            }
        }
        for c in plan.iter_mut() {
            c.opts = *opts;
        }
        plans.push(plan);
    }
    // Timed configuration by configuration, every build in turn (see
    // variant_schedule), after one untimed round of the first configuration.
    let mut timed: Vec<(usize, usize, Timing)> = Vec::new();
    let ncfg = plans.first().map_or(0, Vec::len);
    let warm_builds = if ncfg == 0 { 0 } else { runs.len() };
    let warm = (0..warm_builds).map(|k| (k, 0, false));
    let sched = variant_schedule(runs.len(), ncfg)
        .into_iter()
        .map(|(k, c)| (k, c, true));
    for (k, c, keep) in warm.chain(sched) {
        let s: &mut Sampler = match &mut runs[k].1 {
            Some(s) => s,
            None => &mut *sampler,
        };
        let warm_cfg;
        let cf = if keep {
            &plans[k][c]
        } else {
            warm_cfg = Cfg {
                name: format!("{} (warm-up, not kept)", plans[k][c].name),
                ..plans[k][c].clone()
            };
            &warm_cfg
        };
        match time_cfg(s, &mut pool, cf, cli, bw) {
            Ok(t) if keep => timed.push((k, c, t)),
            Ok(_) => {}
            Err(e) => log(format!("  TIMING ERROR {} B={}: {e:#}", cf.name, cf.rows)),
        }
    }
    // The A/A: the default (run 0) against its copy (run 1), configuration
    // by configuration.
    let aa = if cli.variant_aa {
        let of = |k: usize, c: usize| timed.iter().find(|t| t.0 == k && t.1 == c).map(|t| &t.2);
        let pairs: Vec<(&Timing, &Timing)> = (0..ncfg)
            .filter_map(|c| Some((of(0, c)?, of(1, c)?)))
            .collect();
        let v = aa_spread(&pairs);
        log(format!("  {}", v["summary"].as_str().unwrap_or("")));
        v
    } else {
        serde_json::Value::Null
    };
    // Each variant against the default (and its copy), judged by the A/A.
    let ab = {
        let builds: Vec<Vec<Option<&Timing>>> = (0..runs.len())
            .map(|k| {
                (0..ncfg)
                    .map(|c| timed.iter().find(|t| t.0 == k && t.1 == c).map(|t| &t.2))
                    .collect()
            })
            .collect();
        let aa_max = if cli.variant_aa {
            aa["per_call_max_us"]
                .as_f64()
                .zip(aa["queued_max_us"].as_f64())
                .filter(|(c, q)| c.is_finite() && q.is_finite())
        } else {
            None
        };
        // Without the default among the runs there is nothing to compare.
        if cli.variants_only || cli.variant_aa {
            let (lines, v) = variant_differences(&builds, cli.variant_aa, aa_max);
            for l in lines {
                log(format!("  {l}"));
            }
            v
        } else {
            serde_json::Value::Null
        }
    };
    // Reported build by build, as the table has always listed them.
    timed.sort_by_key(|&(k, c, _)| (k, c));
    variants.extend(timed.into_iter().map(|(_, _, t)| t));
    // Graph replay at B = 1 (launch overhead amortized as in a decode loop).
    let graph_b1 = graph_replay_b1(sampler, &mut pool, cli)?;
    log(format!(
        "  graph replay exact T=1 bf16 V=131072 B=1: median {graph_b1:.1} us"
    ));
    let mut table = String::from(
        "| config | dtype | V | B | median us | p10 | p90 | floor us | x floor | queued us | p10 | p90 |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for t in results.iter().chain(&variants) {
        table.push_str(&format!(
            "| {} | {} | {} | {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.2} | {:.1}{} | {:.1} | {:.1} |\n",
            t.name,
            t.dtype,
            t.vocab,
            t.rows,
            t.median_us,
            t.p10_us,
            t.p90_us,
            t.floor_us,
            t.ratio_to_floor,
            t.queued_median_us,
            if t.queued_host_ahead { "" } else { " (host behind)" },
            t.queued_p10_us,
            t.queued_p90_us,
        ));
    }
    table.push_str(&format!(
        "| exact T=1, CUDA graph replay | Bf16 | 131072 | 1 | {graph_b1:.1} | | | | | | | |\n"
    ));
    table.push_str(&format!(
        "copy bandwidth (read + write): {:.2} TB/s\n",
        bw / 1e12
    ));
    Ok((
        table,
        json!({"copy_bandwidth_bytes_per_s": bw, "configs": results, "variants": variants,
            "graph_replay_b1_us": graph_b1, "variant_aa": aa, "variant_ab": ab}),
    ))
}

/// Launch options from comma-separated names (`no_pdl`, `no_fused`,
/// `generic`, `no_topp_pend`, `first_pass_always`, `topp_cluster=N`,
/// `blocks_per_row=N`, `block_threads=N`), for timing variants of the host's
/// choices.
/// A logit type by its command-line name.
fn dtype_named(name: &str) -> Result<Dtype> {
    Ok(match name {
        "bf16" => Dtype::Bf16,
        "f32" => Dtype::F32,
        "f16" => Dtype::F16,
        _ => bail!("unknown logit type {name:?} (bf16, f32, f16)"),
    })
}

fn launch_options(names: &str) -> Result<LaunchOptions> {
    let mut o = LaunchOptions::default();
    for n in names.split(',') {
        match n {
            "no_pdl" => o.no_pdl = true,
            "no_fused" => o.no_fused = true,
            "generic" => o.generic = true,
            "no_topp_pend" => o.no_topp_pend = true,
            "first_pass_always" => o.first_pass_always = true,
            "topp_trigger=auto" => o.topp_trigger = ToppTrigger::Auto,
            "topp_trigger=early" => o.topp_trigger = ToppTrigger::Early,
            "topp_trigger=late" => o.topp_trigger = ToppTrigger::Late,
            _ => {
                let (key, value) = n.split_once('=').unwrap_or((n, ""));
                let field = match key {
                    "topp_cluster" => &mut o.topp_cluster,
                    "blocks_per_row" => &mut o.blocks_per_row,
                    "block_threads" => &mut o.block_threads,
                    _ => bail!(
                        "unknown launch option {n:?} (no_pdl, no_fused, generic, no_topp_pend, \
                         first_pass_always, topp_trigger=auto|early|late, topp_cluster=N, \
                         blocks_per_row=N, block_threads=N)"
                    ),
                };
                *field = value
                    .parse()
                    .with_context(|| format!("launch option {n:?}: N must be an integer"))?;
            }
        }
    }
    Ok(o)
}

/// Sampling parameters of a grid mode (None: unknown mode).
fn grid_mode(mode: &str, profile: NoiseProfile) -> Option<RawParams> {
    let plain = RawParams {
        profile,
        ..RawParams::default()
    };
    Some(match mode {
        "plain" => plain,
        "top_k50" => RawParams { top_k: 50, ..plain },
        "top_p0.9" => RawParams {
            top_p: 0.9,
            ..plain
        },
        // Top-p at a temperature whose reciprocal is not exact (the f32/f16
        // histogram divides by it; at 1.0 it multiplies).
        "top_p0.9_t0.7" => RawParams {
            top_p: 0.9,
            temperature: 0.7,
            ..plain
        },
        "top_k50_top_p0.9" => RawParams {
            top_k: 50,
            top_p: 0.9,
            ..plain
        },
        "min_p0.05" => RawParams {
            min_p: 0.05,
            ..plain
        },
        "greedy" => RawParams {
            temperature: 0.0,
            ..plain
        },
        _ => return None,
    })
}

fn grid(
    sampler: &mut Sampler,
    cli: &Cli,
    vocabs: &[usize],
    batches: &[usize],
    profiles: &[String],
    modes: &[String],
) -> Result<bool> {
    let profiles: Vec<NoiseProfile> = profiles
        .iter()
        .map(|p| {
            p.parse::<NoiseProfile>()
                .map_err(|e| anyhow::anyhow!("{e}"))
        })
        .collect::<Result<_>>()?;
    for m in modes {
        if grid_mode(m, NoiseProfile::Exact).is_none() {
            bail!("unknown mode {m}");
        }
    }
    log("grid: copy bandwidth");
    let (bw, mut pool) = timing_setup(sampler)?;
    let mut records = Vec::new();
    let mut failed = 0usize;
    for &vocab in vocabs {
        for &rows in batches {
            for m in modes {
                // Greedy draws no noise: one record per shape, under `exact`.
                let ps: &[NoiseProfile] = if m == "greedy" {
                    &[NoiseProfile::Exact]
                } else {
                    &profiles
                };
                for &p in ps {
                    let raw = grid_mode(m, p).expect("checked above");
                    let c = Cfg {
                        name: format!("{} {m}", p.name()),
                        dtype: Dtype::Bf16,
                        vocab,
                        rows,
                        raw,
                        opts: LaunchOptions::default(),
                    };
                    match time_cfg(sampler, &mut pool, &c, cli, bw) {
                        Ok(t) => {
                            records.push(json!({
                                "profile": p.name(), "mode": m, "vocab": vocab, "batch": rows,
                                "dtype": "bf16", "median_us": t.median_us, "p10_us": t.p10_us,
                                "p90_us": t.p90_us, "floor_us": t.floor_us, "iters": cli.iters,
                                "host_us": t.host_median_us,
                            }));
                            records.push(json!({
                                "profile": p.name(), "mode": m, "vocab": vocab, "batch": rows,
                                "dtype": "bf16", "median_us": t.queued_median_us,
                                "p10_us": t.queued_p10_us, "p90_us": t.queued_p90_us,
                                "floor_us": t.floor_us, "iters": cli.iters, "queued": true,
                                "host_ahead": t.queued_host_ahead,
                            }));
                        }
                        Err(e) => {
                            failed += 1;
                            log(format!(
                                "  TIMING ERROR {} V={vocab} B={rows}: {e:#}",
                                c.name
                            ));
                        }
                    }
                }
            }
        }
    }
    let graph_b1 = graph_replay_b1(sampler, &mut pool, cli)?;
    log(format!(
        "  graph replay exact plain bf16 V=131072 B=1: median {graph_b1:.1} us"
    ));
    records.push(json!({
        "profile": "exact", "mode": "plain", "vocab": 131072, "batch": 1, "dtype": "bf16",
        "median_us": graph_b1, "graph": true, "iters": cli.iters,
    }));
    let empty = empty_kernel(sampler, &mut pool, cli)?;
    let (name, _) = sampler.kernel_info();
    let doc = json!({
        "tool": "tailrace-cuda-check grid",
        "device": name,
        "sm_count": sampler.sm_count(),
        "copy_bandwidth_bytes_per_s": bw,
        "iters": cli.iters,
        "empty_kernel_per_call_us": empty.per_call_us,
        "empty_kernel_queued_us": empty.queued_us,
        "empty_kernel_host_us": empty.host_us,
        "empty_kernel_blocks": empty.blocks,
        "empty_kernel_queued_host_ahead": empty.host_ahead,
        "timings": records,
        "failed_configs": failed,
    });
    std::fs::write(&cli.out, serde_json::to_string_pretty(&doc)?)
        .with_context(|| format!("writing {}", cli.out.display()))?;
    println!(
        "grid: {} records, {failed} failed, written to {}",
        records.len(),
        cli.out.display()
    );
    Ok(failed == 0)
}

/// The launch floor of a timing: an empty kernel over one block of 256
/// threads a multiprocessor, timed as `time_cfg` times a call (per call from
/// an idle stream, and queued back to back), so that a target of a few
/// microseconds can be set against what any launch costs here.
struct EmptyKernel {
    per_call_us: f64,
    queued_us: f64,
    /// Median host time of the launch in the per-call timing.
    host_us: f64,
    blocks: u32,
    /// Whether every queued launch was on the stream before the first ran.
    host_ahead: bool,
}

fn empty_kernel(sampler: &Sampler, pool: &mut Pool, cli: &Cli) -> Result<EmptyKernel> {
    use cudarc::driver::LaunchConfig;
    let stream = sampler.stream().clone();
    let ctx = sampler.context().clone();
    let ptx = cudarc::nvrtc::compile_ptx("extern \"C\" __global__ void tr_empty() {}")
        .context("compiling the empty kernel")?;
    let module = ctx.load_module(ptx)?;
    let f = module.load_function("tr_empty")?;
    let blocks = sampler.sm_count();
    let cfg = LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let launch = || -> Result<()> {
        // SAFETY: the kernel takes no arguments and touches no memory.
        unsafe { stream.launch_builder(&f).launch(cfg) }?;
        Ok(())
    };
    let CallTimes {
        per_call: times,
        host,
        queued,
        host_ahead,
    } = time_calls(&ctx, &stream, pool, cli.iters, |_| Ok(()), |()| launch())?;
    let e = EmptyKernel {
        per_call_us: quantile(&times, 0.5),
        queued_us: quantile(&queued, 0.5),
        host_us: quantile(&host, 0.5),
        blocks,
        host_ahead,
    };
    log(format!(
        "  empty kernel ({blocks} blocks of 256): median {:.1} us per call, {:.1} queued, host {:.1}{}",
        e.per_call_us,
        e.queued_us,
        e.host_us,
        if host_ahead { "" } else { " HOST BEHIND" }
    ));
    Ok(e)
}

/// Median, 10th and 90th percentile (us) of the host time of `iters` calls
/// of `f`, after 20 untimed ones; with `idle`, the stream is synchronized
/// (untimed) before each call, as in the per-call timing.
fn host_times(
    stream: &cudarc::driver::CudaStream,
    iters: usize,
    idle: bool,
    mut f: impl FnMut() -> Result<()>,
) -> Result<[f64; 3]> {
    let mut t = Vec::with_capacity(iters);
    for it in 0..iters + 20 {
        if idle || it % 32 == 0 {
            stream.synchronize()?;
        }
        let t0 = Instant::now();
        f()?;
        let us = t0.elapsed().as_secs_f64() * 1e6;
        if it >= 20 {
            t.push(us);
        }
    }
    stream.synchronize()?;
    t.sort_by(|a, b| a.total_cmp(b));
    Ok([quantile(&t, 0.5), quantile(&t, 0.1), quantile(&t, 0.9)])
}

/// `tailrace-cuda-check host-cost`: where the host's share of a per-call
/// time goes. Each piece is timed alone on the host (`Instant`), so the
/// figures add up only roughly; what matters is the sampler call against an
/// empty launch of the same form.
fn host_cost(
    sampler: &mut Sampler,
    cli: &Cli,
    rows_list: &[usize],
    vocab: usize,
    modes: &[String],
) -> Result<bool> {
    use cudarc::driver::sys;
    use std::ffi::c_void;
    log("host cost");
    let stream = sampler.stream().clone();
    let ctx = sampler.context().clone();
    let iters = cli.iters.max(50);
    let words = tailrace_cuda::SAMPLE_ARGS_BYTES.div_ceil(8);
    let src = format!(
        "struct TrArgsBlob {{ unsigned long long w[{words}]; }};\n\
         extern \"C\" __global__ void tr_empty() {{}}\n\
         extern \"C\" __global__ void tr_empty_args(const TrArgsBlob a) {{}}\n"
    );
    let ptx = cudarc::nvrtc::compile_ptx(src).context("compiling the empty kernels")?;
    let module = ctx.load_module(ptx)?;
    let empty = module.load_function("tr_empty")?;
    let empty_args = module.load_function("tr_empty_args")?;
    let blocks = sampler.sm_count();
    let mut blob = vec![0u64; words];
    let event = ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))?;
    // An empty launch of the sampler's form: its argument block by value,
    // through cuLaunchKernelEx, with or without the PDL attribute.
    let launch_ex = |pdl: bool, blob: &mut Vec<u64>| -> Result<()> {
        let mut params = [blob.as_mut_ptr() as *mut c_void];
        // SAFETY: an all-zero launch attribute is a valid value of the union.
        let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
        attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        attr.value.programmaticStreamSerializationAllowed = 1;
        let config = sys::CUlaunchConfig {
            gridDimX: blocks,
            gridDimY: 1,
            gridDimZ: 1,
            blockDimX: 256,
            blockDimY: 1,
            blockDimZ: 1,
            sharedMemBytes: 0,
            hStream: stream.cu_stream(),
            attrs: &mut attr,
            numAttrs: u32::from(pdl),
        };
        // SAFETY: the kernel takes one argument of the blob's size and reads
        // nothing; `config`, `attr` and the blob outlive the call.
        unsafe {
            sys::cuLaunchKernelEx(
                &config,
                empty_args.cu_function(),
                params.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        }
        .result()?;
        Ok(())
    };
    let cfg = cudarc::driver::LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut pieces: Vec<(String, [f64; 3])> = Vec::new();
    let mut put = |name: &str, t: [f64; 3]| {
        log(format!(
            "  {name:58} median {:6.2} us (p10 {:.2}, p90 {:.2})",
            t[0], t[1], t[2]
        ));
        pieces.push((name.to_string(), t));
    };
    put(
        "context binding (bind_to_thread)",
        host_times(&stream, iters, true, || Ok(ctx.bind_to_thread()?))?,
    );
    put(
        "kernel attribute (max_threads_per_block)",
        host_times(&stream, iters, true, || {
            empty.max_threads_per_block()?;
            Ok(())
        })?,
    );
    put(
        "event record",
        host_times(&stream, iters, true, || Ok(event.record(&stream)?))?,
    );
    put(
        "empty launch, cudarc builder, no arguments (the grid's)",
        host_times(&stream, iters, true, || {
            // SAFETY: the kernel takes no arguments and touches no memory.
            unsafe { stream.launch_builder(&empty).launch(cfg) }?;
            Ok(())
        })?,
    );
    for pdl in [false, true] {
        put(
            &format!(
                "empty launch, {}-byte argument block, cuLaunchKernelEx{}",
                words * 8,
                if pdl { " + PDL" } else { "" }
            ),
            host_times(&stream, iters, true, || launch_ex(pdl, &mut blob))?,
        );
    }
    put(
        "the same + PDL, back to back",
        host_times(&stream, iters, false, || launch_ex(true, &mut blob))?,
    );
    // The same launches timed on the device as the grid times a call.
    let (bw, mut pool) = timing_setup(sampler)?;
    let mut timed = Vec::new();
    // (per call, queued, host) medians and whether the host stayed ahead.
    let mut put_timed = |name: &str, (p, q, h, ahead): (f64, f64, f64, bool)| {
        log(format!(
            "  {name:58} per call {p:6.2} us, queued {q:6.2}, host {h:5.2}{}",
            if ahead { "" } else { " HOST BEHIND" }
        ));
        timed.push(json!({
            "launch": name, "per_call_us": p, "queued_us": q, "host_us": h,
            "queued_host_ahead": ahead,
        }));
    };
    let medians = |c: CallTimes| {
        (
            quantile(&c.per_call, 0.5),
            quantile(&c.queued, 0.5),
            quantile(&c.host, 0.5),
            c.host_ahead,
        )
    };
    put_timed(
        "timed: empty launch, cudarc builder (the grid's)",
        medians(time_calls(
            &ctx,
            &stream,
            &mut pool,
            iters,
            |_| Ok(()),
            |()| {
                // SAFETY: the kernel takes no arguments and touches no memory.
                unsafe { stream.launch_builder(&empty).launch(cfg) }?;
                Ok(())
            },
        )?),
    );
    for pdl in [false, true] {
        put_timed(
            &format!(
                "timed: empty launch, argument block, cuLaunchKernelEx{}",
                if pdl { " + PDL" } else { "" }
            ),
            medians(time_calls(
                &ctx,
                &stream,
                &mut pool,
                iters,
                |_| Ok(()),
                |()| launch_ex(pdl, &mut blob),
            )?),
        );
    }
    let mut configs = Vec::new();
    for &rows in rows_list {
        let mut buf = stream.alloc_zeros::<u16>(rows * vocab)?;
        sampler.fill_random(&mut buf, Dtype::Bf16, cli.seed, 2.0)?;
        let logits = DeviceLogits::new(&buf, &stream, Dtype::Bf16, rows, vocab, vocab)?;
        let mut out = DeviceOutput::new(&stream, rows)?;
        for mode in modes {
            let raw = grid_mode(mode, NoiseProfile::Exact)
                .ok_or_else(|| anyhow::anyhow!("unknown mode {mode:?}"))?;
            let cfg = Cfg::new(
                mode,
                Dtype::Bf16,
                vocab,
                rows,
                raw,
                LaunchOptions::default(),
            );
            let params = DeviceParams::new(&stream, vocab, &timing_requests(cli.seed, &cfg))?;
            let opts = LaunchOptions::default();
            sampler.reserve(rows, vocab, 0, &opts)?;
            let mut one = |name: &str, t: [f64; 3]| {
                log(format!(
                    "  {mode:18} B={rows:5} {name:36} median {:6.2} us (p10 {:.2}, p90 {:.2})",
                    t[0], t[1], t[2]
                ));
                configs.push(json!({
                    "mode": mode, "rows": rows, "vocab": vocab, "piece": name,
                    "median_us": t[0], "p10_us": t[1], "p90_us": t[2],
                }));
            };
            one(
                "workspace geometry (reserve)",
                host_times(&stream, iters, true, || {
                    sampler.reserve(rows, vocab, 0, &opts)?;
                    Ok(())
                })?,
            );
            for (name, idle) in [
                ("sample, idle stream", true),
                ("sample, back to back", false),
            ] {
                one(
                    name,
                    host_times(&stream, iters, idle, || {
                        sampler.sample(&logits, &params, &mut out, &opts)?;
                        Ok(())
                    })?,
                );
            }
            put_timed(
                &format!("timed: sample {mode} B = {rows} (one batch, not rotated)"),
                medians(time_calls(
                    &ctx,
                    &stream,
                    &mut pool,
                    iters,
                    |_| Ok(()),
                    |()| {
                        sampler.sample(&logits, &params, &mut out, &opts)?;
                        Ok(())
                    },
                )?),
            );
            // As the grid times it: the logits rotated through the pool.
            let t = time_cfg(sampler, &mut pool, &cfg, cli, bw)?;
            put_timed(
                &format!("timed: sample {mode} B = {rows} (rotated, as the grid)"),
                (
                    t.median_us,
                    t.queued_median_us,
                    t.host_median_us,
                    t.queued_host_ahead,
                ),
            );
        }
    }
    let (name, _) = sampler.kernel_info();
    let doc = json!({
        "tool": "tailrace-cuda-check host-cost",
        "device": name,
        "iters": iters,
        "argument_block_bytes": words * 8,
        "pieces": pieces.iter().map(|(n, t)| json!({
            "piece": n, "median_us": t[0], "p10_us": t[1], "p90_us": t[2],
        })).collect::<Vec<_>>(),
        "calls": configs,
        "timed": timed,
    });
    std::fs::write(&cli.out, serde_json::to_string_pretty(&doc)?)
        .with_context(|| format!("writing {}", cli.out.display()))?;
    Ok(true)
}

fn graph_replay_b1(sampler: &mut Sampler, pool: &mut Pool, cli: &Cli) -> Result<f64> {
    let stream = sampler.stream().clone();
    let ctx = sampler.context().clone();
    if pool.filled != Some(Dtype::Bf16) {
        sampler.fill_random(&mut pool.buf, Dtype::Bf16, cli.seed, 2.0)?;
        stream.synchronize()?;
        pool.filled = Some(Dtype::Bf16);
    }
    let reqs = vec![RowRequest::from(
        SamplingParams::new(RawParams::default()).expect("valid"),
    )];
    let params = DeviceParams::new(&stream, 131072, &reqs)?;
    let mut out = DeviceOutput::new(&stream, 1)?;
    let opts = LaunchOptions::default();
    sampler.reserve(1, 131072, 0, &opts)?;
    // SAFETY: inside the pool, which outlives the graph's replays.
    let logits = unsafe { DeviceLogits::from_raw(pool.ptr, Dtype::Bf16, 1, 131072, 131072) }?;
    stream.synchronize()?;
    stream.begin_capture(
        cudarc::driver::sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
    )?;
    let cap = sampler.sample(&logits, &params, &mut out, &opts);
    let g = stream.end_capture(
        cudarc::driver::sys::CUgraphInstantiate_flags::CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH,
    )?;
    cap?;
    let g = g.context("no graph")?;
    let e0 = ctx.new_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT))?;
    let e1 = ctx.new_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT))?;
    let mut times = Vec::new();
    for it in 0..cli.iters + 10 {
        e0.record(&stream)?;
        g.launch()?;
        e1.record(&stream)?;
        e1.synchronize()?;
        if it >= 10 {
            times.push(f64::from(e0.elapsed_ms(&e1)?) * 1e3);
        }
    }
    times.sort_by(|a, b| a.total_cmp(b));
    Ok(times[times.len() / 2])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The builds compiled side by side before a run are the ones it loads:
    /// the checked defines, the A/A copy where asked for, each define
    /// variant once; launch-option variants and the subcommands that compile
    /// for themselves add none.
    #[test]
    fn run_builds_lists_each_loaded_build_once() {
        let cli = Cli::parse_from([
            "check",
            "--variant-aa",
            "--variant",
            "TR_A=1;TR_B=2",
            "--variant",
            "opts:no_pdl",
            "--variant",
            "TR_A=1;TR_B=2",
            "--variant",
            "TR_C=0",
        ]);
        let d = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            run_builds(&cli),
            vec![
                d(&[]),
                d(&[AA_COPY_DEFINE]),
                d(&["TR_A=1", "TR_B=2"]),
                d(&["TR_C=0"])
            ]
        );
        let checked = Cli::parse_from(["check", "--checked-define", "TR_TOPP_CAP=64"]);
        assert_eq!(run_builds(&checked), vec![d(&["TR_TOPP_CAP=64"])]);
        // A checked build with a variant timing: the timing's default is
        // the default kernels, compiled too (run 59 timed the checked build
        // under that name).
        let timed = Cli::parse_from([
            "check",
            "--checked-define",
            "TR_K=1",
            "--variants-only",
            "--variant-aa",
            "--variant",
            "TR_K=1",
        ]);
        assert!(timed_default_apart(&timed));
        assert_eq!(
            run_builds(&timed),
            vec![d(&["TR_K=1"]), d(&[]), d(&[AA_COPY_DEFINE])]
        );
        assert!(!timed_default_apart(&checked));
        assert!(!timed_default_apart(&cli));
        let source = Cli::parse_from(["check", "--variant", "TR_C=0", "source"]);
        assert!(run_builds(&source).is_empty());
    }

    /// `--variant opts:...` names launch options; an unknown name is an
    /// error, not a silently default run timed under a misleading label.
    #[test]
    fn launch_option_variants_parse() {
        let o = launch_options("no_pdl,generic").unwrap();
        assert!(o.no_pdl && o.generic && !o.no_fused);
        assert_eq!(
            launch_options("no_fused").unwrap(),
            LaunchOptions {
                no_fused: true,
                ..LaunchOptions::default()
            }
        );
        assert!(launch_options("no_topp_pend").unwrap().no_topp_pend);
        assert!(
            launch_options("first_pass_always")
                .unwrap()
                .first_pass_always
        );
        assert_eq!(
            launch_options("topp_cluster=16,no_pdl").unwrap(),
            LaunchOptions {
                topp_cluster: 16,
                no_pdl: true,
                ..LaunchOptions::default()
            }
        );
        assert_eq!(
            launch_options("topp_trigger=late").unwrap().topp_trigger,
            ToppTrigger::Late
        );
        assert_eq!(
            launch_options("no_pdl,topp_trigger=early").unwrap(),
            LaunchOptions {
                no_pdl: true,
                topp_trigger: ToppTrigger::Early,
                ..LaunchOptions::default()
            }
        );
        assert!(launch_options("topp_trigger=soon").is_err());
        assert_eq!(
            launch_options("blocks_per_row=2,block_threads=128").unwrap(),
            LaunchOptions {
                blocks_per_row: 2,
                block_threads: 128,
                ..LaunchOptions::default()
            }
        );
        assert!(launch_options("block_threads=-1").is_err());
        assert!(launch_options("no_pdl=1").is_err());
        assert!(launch_options("topp_cluster=x").is_err());
        assert!(launch_options("topp_cluster").is_err());
        assert!(launch_options("no_pdl,fast").is_err());
        assert!(launch_options("").is_err());
    }

    /// An A/B times the same requests on both sides: the seeds and
    /// positions of a timed shape follow the check's seed, the vocabulary
    /// and the rows alone, not the build's name, the mode, the profile, the
    /// launch options or how many shapes were timed before.
    #[test]
    fn timed_requests_depend_on_the_shape_alone() {
        let key = |reqs: &[RowRequest]| -> Vec<(u64, u64)> {
            reqs.iter()
                .map(|r| (r.params.seed(), r.params.position()))
                .collect()
        };
        let cfg = Cfg::new;
        let d = LaunchOptions::default();
        let plain = grid_mode("plain", NoiseProfile::Exact).unwrap();
        let a = cfg(
            "exact T=1 plain [default]",
            Dtype::Bf16,
            131072,
            64,
            plain,
            d,
        );
        let base = key(&timing_requests(7, &a));
        assert_eq!(base.len(), 64);
        let others = [
            cfg(
                "exact T=1 top_p0.9 [TR_X=1]",
                Dtype::Bf16,
                131072,
                64,
                grid_mode("top_p0.9", NoiseProfile::Exact).unwrap(),
                d,
            ),
            cfg(
                "f32 plain",
                Dtype::F32,
                131072,
                64,
                grid_mode("plain", NoiseProfile::F32).unwrap(),
                d,
            ),
            Cfg {
                opts: launch_options("no_pdl").unwrap(),
                ..cfg(
                    "exact T=1 plain [opts:no_pdl]",
                    Dtype::Bf16,
                    131072,
                    64,
                    plain,
                    d,
                )
            },
        ];
        for o in &others {
            assert_eq!(key(&timing_requests(7, o)), base, "{}", o.name);
        }
        // Other shapes and another check seed draw other requests; rows
        // differ from each other.
        let rows8 = key(&timing_requests(
            7,
            &cfg("b8", Dtype::Bf16, 131072, 8, plain, d),
        ));
        assert_ne!(rows8[..], base[..8]);
        assert_ne!(
            key(&timing_requests(
                7,
                &cfg("v", Dtype::Bf16, 32000, 64, plain, d)
            )),
            base
        );
        assert_ne!(key(&timing_requests(8, &a)), base);
        let mut seeds: Vec<u64> = base.iter().map(|k| k.0).collect();
        seeds.sort_unstable();
        seeds.dedup();
        assert_eq!(seeds.len(), 64);
        // The mode's parameters are kept.
        let tp = timing_requests(7, &others[0]);
        assert!(tp.iter().all(|r| r.params.top_p() == Some(0.9)));
    }

    /// A timing record of bf16 rows, V = 131072, with the given medians.
    fn timing_of(name: &str, rows: usize, call: f64, queued: f64) -> Timing {
        Timing {
            name: name.to_string(),
            dtype: "Bf16".to_string(),
            vocab: 131072,
            rows,
            median_us: call,
            p10_us: call,
            p90_us: call,
            floor_us: 1.0,
            ratio_to_floor: call,
            queued_median_us: queued,
            queued_p10_us: queued,
            queued_p90_us: queued,
            queued_host_ahead: true,
            host_median_us: 0.0,
        }
    }

    /// The A/A's spread: absolute differences of the two copies' medians,
    /// per call and queued, whichever copy is faster.
    #[test]
    fn aa_spread_reports_the_largest_and_median_differences() {
        let t = timing_of;
        let a = [
            t("p", 1, 13.3, 10.9),
            t("p", 64, 67.4, 65.2),
            t("p", 256, 40.9, 38.9),
        ];
        let b = [
            t("c", 1, 12.3, 10.8),
            t("c", 64, 65.1, 64.3),
            t("c", 256, 41.2, 39.0),
        ];
        let pairs: Vec<(&Timing, &Timing)> = a.iter().zip(b.iter()).collect();
        let v = aa_spread(&pairs);
        assert!((v["per_call_max_us"].as_f64().unwrap() - 2.3).abs() < 1e-9);
        assert!((v["per_call_median_us"].as_f64().unwrap() - 1.0).abs() < 1e-9);
        assert!((v["queued_max_us"].as_f64().unwrap() - 0.9).abs() < 1e-9);
        assert!((v["queued_median_us"].as_f64().unwrap() - 0.1).abs() < 1e-9);
        let sum = v["summary"].as_str().unwrap();
        assert!(sum.contains("over 3 configurations"), "{sum}");
        assert!(sum.contains("largest at p Bf16 B=64"), "{sum}");
        assert_eq!(v["pairs"].as_array().unwrap().len(), 3);
        assert_eq!(v["pairs"][2]["copy_us"].as_f64(), Some(41.2));
        let none = aa_spread(&[]);
        assert!(none["summary"]
            .as_str()
            .unwrap()
            .contains("no configuration"));
    }

    /// A variant's difference from the default: against the mean of the
    /// default's two copies when an A/A ran, judged by the A/A's largest
    /// difference of each kind; configurations a build lost are skipped.
    #[test]
    fn variant_differences_judge_by_the_aa() {
        let t = timing_of;
        let d = [
            t("d", 64, 62.6, 60.9),
            t("d", 256, 39.8, 37.4),
            t("d", 1024, 1.0, 1.0),
        ];
        let c = [t("c", 64, 62.5, 60.8), t("c", 256, 39.3, 37.5)];
        let v = [
            t("v", 64, 62.8, 60.9),
            t("v", 256, 40.5, 38.2),
            t("v", 1024, 9.0, 9.0),
        ];
        let builds = vec![
            d.iter().map(Some).collect::<Vec<_>>(),
            vec![Some(&c[0]), Some(&c[1]), None],
            v.iter().map(Some).collect::<Vec<_>>(),
        ];
        let (lines, j) = variant_differences(&builds, true, Some((0.51, 3.04)));
        // The third configuration has no copy: no reference, no line.
        assert_eq!(lines.len(), 2, "{lines:?}");
        let r = j.as_array().unwrap();
        assert_eq!(r.len(), 2);
        // B = 64: 62.8 against (62.6 + 62.5) / 2, within the A/A.
        assert!((r[0]["difference_us"].as_f64().unwrap() - 0.25).abs() < 1e-9);
        assert_eq!(r[0]["beyond_aa_per_call"].as_bool(), Some(false));
        // B = 256: 40.5 against 39.55, beyond 0.51 per call; queued +0.75 within 3.04.
        assert!((r[1]["difference_us"].as_f64().unwrap() - 0.95).abs() < 1e-9);
        assert!((r[1]["queued_difference_us"].as_f64().unwrap() - 0.75).abs() < 1e-9);
        assert_eq!(r[1]["beyond_aa_per_call"].as_bool(), Some(true));
        assert_eq!(r[1]["beyond_aa_queued"].as_bool(), Some(false));
        assert!(
            lines[1].contains("per call beyond, queued within the A/A"),
            "{}",
            lines[1]
        );
        // Without a copy: the default alone is the reference, build 1 is a
        // variant, and nothing is judged.
        let builds = vec![vec![Some(&d[1])], vec![Some(&v[1])]];
        let (lines, j) = variant_differences(&builds, false, None);
        assert!((j[0]["difference_us"].as_f64().unwrap() - 0.7).abs() < 1e-9);
        assert!(j[0]["beyond_aa_per_call"].is_null());
        assert!(lines[0].contains("no A/A to judge it by"), "{}", lines[0]);
        assert!(variant_differences(&[], true, None).0.is_empty());
        // The line names V only where it is not 131072 (`--variant-vocab`).
        assert!(lines[0].starts_with("A/B v Bf16 B=256: "), "{}", lines[0]);
        let (mut d2, mut v2) = (t("d", 256, 39.8, 37.4), t("v", 256, 40.5, 38.2));
        d2.vocab = 262144;
        v2.vocab = 262144;
        let builds = vec![vec![Some(&d2)], vec![Some(&v2)]];
        let (lines, j) = variant_differences(&builds, false, None);
        assert!(
            lines[0].starts_with("A/B v Bf16 V=262144 B=256: "),
            "{}",
            lines[0]
        );
        assert_eq!(j[0]["vocab"].as_u64(), Some(262144));
    }

    /// Every (build, configuration) pair is timed once, each configuration's
    /// builds back to back, and each build goes first equally often.
    #[test]
    fn variant_schedule_interleaves_the_builds() {
        assert!(variant_schedule(3, 0).is_empty());
        assert_eq!(variant_schedule(1, 3), vec![(0, 0), (0, 1), (0, 2)]);
        for (builds, configs) in [(2, 4), (3, 14), (5, 14), (4, 1)] {
            let s = variant_schedule(builds, configs);
            let mut all = s.clone();
            all.sort_unstable();
            let want: Vec<(usize, usize)> = (0..builds)
                .flat_map(|k| (0..configs).map(move |c| (k, c)))
                .collect();
            assert_eq!(all, want);
            for (c, round) in s.chunks(builds).enumerate() {
                assert!(round.iter().all(|&(_, rc)| rc == c));
            }
            let mut first = vec![0usize; builds];
            for round in s.chunks(builds) {
                first[round[0].0] += 1;
            }
            let (lo, hi) = (first.iter().min().unwrap(), first.iter().max().unwrap());
            assert!(hi - lo <= 1, "{first:?}");
        }
    }

    /// Every batch the GPU run generates (and its rearrangements) can be built:
    /// a panic here would cost a device run.
    #[test]
    fn generated_batches_are_well_formed() {
        for id in (0..150).chain(1_000_000..1_000_050) {
            let b = Batch::generate(0x7A11_2ACE, id);
            let n = b.rows();
            assert!(n >= 1);
            assert!(b.stride == 0 || b.stride >= b.vocab);
            let perm: Vec<usize> = (0..n).rev().collect();
            let p = b.permuted(&perm);
            assert_eq!(p.rows(), n);
            let bits = |v: Vec<f32>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(p.row_f32(0)), bits(b.row_f32(n - 1)));
            let one = b.permuted(&[n - 1]);
            assert_eq!(one.rows(), 1);
        }
    }

    /// The rank a raced row's record is compared with: among the elements of
    /// the cut's value up to its index, -0 and +0 one value, as the cut keeps.
    #[test]
    fn cut_rank_counts_equal_values_up_to_the_index() {
        use half::bf16;
        let row: Vec<bf16> = [1.0f32, -0.0, 0.5, 0.0, 0.0, 2.0, 0.0]
            .iter()
            .map(|&v| bf16::from_f32(v))
            .collect();
        let cut = |a: f64, index: u32| tailrace_model::filter::Cut { a, index };
        assert_eq!(cut_rank(&row, cut(0.0, 1)), Some(1));
        assert_eq!(cut_rank(&row, cut(0.0, 3)), Some(2));
        assert_eq!(cut_rank(&row, cut(-0.0, 4)), Some(3));
        assert_eq!(cut_rank(&row, cut(0.5, 2)), Some(1));
        assert_eq!(cut_rank(&row, cut(2.0, 5)), Some(1));
        // No element named: the cut keeps every element of its value.
        assert_eq!(cut_rank(&row, cut(0.0, u32::MAX)), None);
        assert_eq!(cut_rank(&row, cut(0.0, 7)), None);
    }

    #[test]
    fn large_batches_take_smaller_blocks() {
        let mut fast = 0;
        for id in 0..12 {
            let b = Batch::generate_large(0x7A11_2ACE, id);
            assert!((397..=2048).contains(&b.rows()));
            let g = Geometry::new(&LaunchOptions::default(), b.rows(), b.vocab, 132).unwrap();
            // Batch 1's rows (140,000 logits) are longer than small blocks take.
            assert!(
                g.block_threads < 256 || id == 1,
                "batch {id}: {} threads",
                g.block_threads
            );
            assert_eq!(g.nchunks, 1);
            if id < 2 {
                // The f32/f16 top-p histogram's long chunks: 15-bit piece
                // sums (at most 2^17 elements), then 128-bit sums.
                assert!(!matches!(b.logits, Typed::Bf16(_)));
                assert_eq!(g.topp_nchunks, 1);
                assert!(g.topp_chunk_len > [65536, 131072][id as usize]);
                assert!(id == 1 || g.topp_chunk_len <= 131072);
            }
            fast += usize::from(b.specialized());
        }
        assert!(fast > 0, "some batches keep to the specialized kernels");
    }
}
