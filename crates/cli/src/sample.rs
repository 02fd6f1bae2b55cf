//! `tailrace sample`: tokens from one logits row of a safetensors file,
//! drawn by the CPU reference model. spec: SAMPLER.md.

use crate::error::{failure_msg, input_msg, CliError, ResultExt};
use crate::parse::{self, SparseBias};
use crate::Format;
use anyhow::Context;
use clap::Args;
use half::{bf16, f16};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use safetensors::{Dtype, SafeTensors};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::ops::Range;
use std::path::{Path, PathBuf};
use tailrace_model::{
    sample_batch, sample_row, Logit, LogitBias, RawParams, RowOutput, RowRequest, RowStatus,
    SamplingParams, MAX_VOCAB,
};
use tailrace_noise::NoiseProfile;

/// Ranges up to this many draws print every token in JSON.
const MAX_LISTED_TOKENS: u64 = 100_000;
/// Tokens shown by the text output.
const TEXT_TOKENS: usize = 20;
/// Histogram lines shown by the text output.
const TEXT_HISTOGRAM: usize = 50;
/// Positions per batch call: bounds the request and output vectors and sets
/// the progress bar's step.
const BATCH_ROWS: u64 = 1024;
/// Ranges with at least this many draws show a progress bar (on a terminal).
const PROGRESS_DRAWS: u64 = 10_000;

/// Arguments of `tailrace sample`.
#[derive(Debug, Args)]
pub struct SampleArgs {
    /// The safetensors file holding the logits.
    #[arg(long)]
    logits: PathBuf,
    /// The tensor's name (may be omitted when the file holds one tensor).
    #[arg(long)]
    tensor: Option<String>,
    /// The row of an [N, V] tensor.
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    row: usize,
    /// Request seed (decimal or 0x-hex).
    #[arg(long, value_parser = parse::u64_dec_or_hex)]
    seed: u64,
    /// Absolute position of the token (decimal or 0x-hex).
    #[arg(
        long,
        value_parser = parse::u64_dec_or_hex,
        required_unless_present = "positions",
        conflicts_with = "positions"
    )]
    position: Option<u64>,
    /// Draw one token per position of the half-open range A..B (at most 10^8).
    #[arg(long, value_parser = parse::positions, value_name = "A..B")]
    positions: Option<Range<u64>>,
    /// Temperature (0 = greedy).
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true)]
    temperature: f64,
    /// Keep the k most likely tokens (0 = off).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    top_k: u32,
    /// Nucleus mass in (0, 1] (1 = off).
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true)]
    top_p: f64,
    /// Minimum probability relative to the top token, in [0, 1] (0 = off).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    min_p: f64,
    /// Noise profile: exact, f64, f32 or triton.
    #[arg(long, value_parser = parse::profile, default_value = "exact")]
    profile: NoiseProfile,
    /// Sparse logit bias INDEX:VALUE,... (VALUE may be -inf to mask a token).
    #[arg(long, value_parser = parse::sparse_bias, allow_hyphen_values = true, value_name = "I:V,...")]
    bias: Option<SparseBias>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// One row of logits in its stored element type.
enum Values {
    Bf16(Vec<bf16>),
    F16(Vec<f16>),
    F32(Vec<f32>),
}

/// The row taken out of the file, and where it came from.
struct LoadedRow {
    tensor: String,
    dtype: Dtype,
    shape: Vec<usize>,
    row: usize,
    vocab: usize,
    values: Values,
}

fn shape_str(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("[{}]", dims.join(", "))
}

fn name_list(names: &[&str]) -> String {
    const SHOWN: usize = 20;
    let mut s = names
        .iter()
        .take(SHOWN)
        .map(|n| format!("{n:?}"))
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        let _ = write!(s, ", ... ({} more)", names.len() - SHOWN);
    }
    s
}

/// Decodes little-endian elements into a freshly reserved vector.
fn decode<T, const N: usize>(bytes: &[u8], f: impl Fn([u8; N]) -> T) -> Result<Vec<T>, CliError> {
    let mut out = Vec::new();
    out.try_reserve_exact(bytes.len() / N)
        .map_err(|e| failure_msg(format!("cannot allocate the logits row: {e}")))?;
    out.extend(bytes.chunks_exact(N).map(|c| {
        let mut a = [0u8; N];
        a.copy_from_slice(c);
        f(a)
    }));
    Ok(out)
}

/// Reads the file once and converts only the requested row.
fn load(path: &Path, tensor: Option<&str>, row: usize) -> Result<LoadedRow, CliError> {
    let file = path.display();
    let bytes = std::fs::read(path)
        .with_context(|| format!("cannot read logits file {file}"))
        .or_input()?;
    let st = SafeTensors::deserialize(&bytes)
        .with_context(|| format!("{file} is not a valid safetensors file"))
        .or_input()?;
    let mut names = st.names();
    names.sort_unstable();
    let name: String = match (tensor, names.as_slice()) {
        (Some(t), _) if names.contains(&t) => t.to_owned(),
        (Some(t), []) => {
            return Err(input_msg(format!(
                "tensor {t:?} not found: {file} holds no tensors"
            )))
        }
        (Some(t), all) => {
            return Err(input_msg(format!(
                "tensor {t:?} not found in {file}; it holds: {}",
                name_list(all)
            )))
        }
        (None, [only]) => (*only).to_owned(),
        (None, []) => return Err(input_msg(format!("{file} holds no tensors"))),
        (None, all) => {
            return Err(input_msg(format!(
                "{file} holds {} tensors, choose one with --tensor: {}",
                all.len(),
                name_list(all)
            )))
        }
    };
    let view = st
        .tensor(&name)
        .with_context(|| format!("cannot open tensor {name:?} in {file}"))
        .or_input()?;
    let dtype = view.dtype();
    let elem = match dtype {
        Dtype::BF16 | Dtype::F16 => 2,
        Dtype::F32 => 4,
        other => {
            return Err(input_msg(format!(
                "tensor {name:?} has dtype {other}; supported logits dtypes: BF16, F16, F32"
            )))
        }
    };
    let shape = view.shape().to_vec();
    let (rows, vocab) = match *shape.as_slice() {
        [v] => (1, v),
        [n, v] => (n, v),
        _ => {
            return Err(input_msg(format!(
                "tensor {name:?} has shape {}; expected [V] or [N, V]",
                shape_str(&shape)
            )))
        }
    };
    if vocab == 0 || vocab > MAX_VOCAB {
        return Err(input_msg(format!(
            "tensor {name:?} has shape {}: vocabulary size {vocab} is not in 1..=2^31",
            shape_str(&shape)
        )));
    }
    if row >= rows {
        return Err(input_msg(format!(
            "row {row} is out of range: tensor {name:?} has shape {} ({rows} row{})",
            shape_str(&shape),
            if rows == 1 { "" } else { "s" }
        )));
    }
    let row_bytes = vocab * elem;
    let raw = row
        .checked_mul(row_bytes)
        .and_then(|s| view.data().get(s..s.checked_add(row_bytes)?))
        .ok_or_else(|| {
            input_msg(format!(
                "tensor {name:?}: data is shorter than its shape {} says",
                shape_str(&shape)
            ))
        })?;
    let values = match dtype {
        Dtype::BF16 => Values::Bf16(decode(raw, |b| bf16::from_bits(u16::from_le_bytes(b)))?),
        Dtype::F16 => Values::F16(decode(raw, |b| f16::from_bits(u16::from_le_bytes(b)))?),
        _ => Values::F32(decode(raw, f32::from_le_bytes)?),
    };
    Ok(LoadedRow {
        tensor: name,
        dtype,
        shape,
        row,
        vocab,
        values,
    })
}

/// What was drawn.
enum Drawn {
    One(u32),
    Range {
        /// Every token, in position order, when the range is small enough to list.
        tokens: Option<Vec<u32>>,
        /// The first [`TEXT_TOKENS`] tokens.
        first: Vec<u32>,
        counts: HashMap<u32, u64>,
    },
}

/// Explains a row status other than `Ok` (a data problem: exit 1).
fn status_error<T: Logit>(
    x: &[T],
    bias: &LogitBias,
    loaded: &LoadedRow,
    status: RowStatus,
) -> CliError {
    let what = format!("row {} of tensor {:?}", loaded.row, loaded.tensor);
    match status {
        RowStatus::NonFiniteLogit => {
            let dense = bias.to_dense(x.len());
            let bad = x.iter().enumerate().find_map(|(i, v)| {
                let l = v.to_f32();
                let b = dense
                    .as_ref()
                    .and_then(|d| d.get(i))
                    .copied()
                    .unwrap_or(0.0);
                let a = f64::from(l) + f64::from(b);
                (a.is_nan() || a == f64::INFINITY).then_some((i, l, b))
            });
            match bad {
                Some((i, l, b)) => failure_msg(if b == 0.0 {
                    format!(
                        "{what} has status non_finite_logit: the first non-finite logit is at index {i} (value {l})"
                    )
                } else {
                    format!(
                        "{what} has status non_finite_logit: at index {i}, logit {l} + bias {b} is not finite"
                    )
                }),
                None => failure_msg(format!("{what} has status non_finite_logit")),
            }
        }
        RowStatus::AllMasked => failure_msg(format!(
            "{what} has status all_masked: every token is masked by a -inf logit or bias"
        )),
        RowStatus::Ok => failure_msg(format!("{what}: unexpected status ok")),
    }
}

fn progress_bar(draws: u64) -> ProgressBar {
    if draws < PROGRESS_DRAWS || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(draws), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("{bar:40} {human_pos}/{human_len} draws  {per_sec}  eta {eta}")
    {
        bar.set_style(style);
    }
    bar
}

fn draw<T: Logit>(
    x: &[T],
    loaded: &LoadedRow,
    params: SamplingParams,
    bias: &LogitBias,
    start: u64,
    end: Option<u64>,
) -> Result<Drawn, CliError> {
    let vocab = x.len();
    let check = |out: RowOutput| -> Result<u32, CliError> {
        match out.status {
            RowStatus::Ok => Ok(out.token),
            s => Err(status_error(x, bias, loaded, s)),
        }
    };
    // The status depends only on the row, so the first position settles it.
    let first = check(sample_row(x, bias, &params.at_position(start)).or_input()?)?;
    let Some(end) = end else {
        return Ok(Drawn::One(first));
    };
    let positions = start..end;
    let draws = end.saturating_sub(start);

    let listed = draws <= MAX_LISTED_TOKENS;
    let mut tokens = Vec::new();
    let mut first_tokens = Vec::new();
    let mut counts: HashMap<u32, u64> = HashMap::new();
    let bar = progress_bar(draws);
    let mut next = positions.start;
    while next < positions.end {
        let stop = positions.end.min(next.saturating_add(BATCH_ROWS));
        let reqs: Vec<RowRequest> = (next..stop)
            .map(|p| RowRequest {
                params: params.at_position(p),
                bias: bias.clone(),
            })
            .collect();
        let n = reqs.len();
        // Row stride 0: every request reads the same logits row.
        let outs = sample_batch(x, vocab, 0, &reqs).or_input()?;
        for out in outs {
            let t = check(out)?;
            *counts.entry(t).or_insert(0) += 1;
            if first_tokens.len() < TEXT_TOKENS {
                first_tokens.push(t);
            }
            if listed {
                tokens.push(t);
            }
        }
        bar.inc(n as u64);
        next = stop;
    }
    bar.finish_and_clear();
    Ok(Drawn::Range {
        tokens: listed.then_some(tokens),
        first: first_tokens,
        counts,
    })
}

fn fmt_param(on: bool, v: impl std::fmt::Display) -> String {
    if on {
        v.to_string()
    } else {
        "off".to_owned()
    }
}

/// Runs `tailrace sample`.
pub fn run(a: &SampleArgs) -> Result<String, CliError> {
    let (start, end) = match (&a.positions, a.position) {
        (Some(r), _) => (r.start, Some(r.end)),
        (None, Some(p)) => (p, None),
        (None, None) => return Err(input_msg("give --position or --positions")),
    };
    let raw = RawParams {
        temperature: a.temperature,
        top_k: a.top_k,
        top_p: a.top_p,
        min_p: a.min_p,
        seed: a.seed,
        position: start,
        profile: a.profile,
    };
    let params = SamplingParams::new(raw).or_input()?;
    let loaded = load(&a.logits, a.tensor.as_deref(), a.row)?;
    let bias = match &a.bias {
        Some(SparseBias(entries)) => LogitBias::Sparse(entries.clone()),
        None => LogitBias::None,
    };
    bias.validate(loaded.vocab).or_input()?;
    let drawn = match &loaded.values {
        Values::Bf16(x) => draw(x, &loaded, params, &bias, start, end)?,
        Values::F16(x) => draw(x, &loaded, params, &bias, start, end)?,
        Values::F32(x) => draw(x, &loaded, params, &bias, start, end)?,
    };
    let raw = params.raw();
    let file = a.logits.display().to_string();
    Ok(match a.format {
        Format::Json => {
            let mut v = json!({
                "file": file,
                "tensor": loaded.tensor,
                "dtype": loaded.dtype.to_string(),
                "shape": loaded.shape,
                "row": loaded.row,
                "seed": raw.seed,
                "profile": raw.profile.name(),
                "temperature": raw.temperature,
                "top_k": raw.top_k,
                "top_p": raw.top_p,
                "min_p": raw.min_p,
                "bias": a.bias.as_ref().map(|b| b.0.iter().map(|&(i, v)| {
                    json!([i, if v.is_finite() { json!(v) } else { json!(v.to_string()) }])
                }).collect::<Vec<_>>()),
            });
            let obj = v
                .as_object_mut()
                .ok_or_else(|| failure_msg("JSON output is not an object"))?;
            match drawn {
                Drawn::One(t) => {
                    obj.insert("position".into(), json!(start));
                    obj.insert("token".into(), json!(t));
                    obj.insert("status".into(), json!("ok"));
                }
                Drawn::Range { tokens, counts, .. } => {
                    let end = end.unwrap_or(start);
                    obj.insert("positions".into(), json!({"start": start, "end": end}));
                    obj.insert("draws".into(), json!(end - start));
                    obj.insert("distinct".into(), json!(counts.len()));
                    let mut sorted: Vec<(u32, u64)> = counts.into_iter().collect();
                    sorted.sort_unstable();
                    let map: Map<String, Value> = sorted
                        .into_iter()
                        .map(|(t, c)| (t.to_string(), json!(c)))
                        .collect();
                    obj.insert("counts".into(), Value::Object(map));
                    if let Some(t) = tokens {
                        obj.insert("tokens".into(), json!(t));
                    }
                    obj.insert("status".into(), json!("ok"));
                }
            }
            format!("{v}\n")
        }
        Format::Text => {
            let mut s = String::new();
            let _ = writeln!(
                s,
                "logits    {file} tensor {:?} {} {} row {}",
                loaded.tensor,
                loaded.dtype,
                shape_str(&loaded.shape),
                loaded.row
            );
            let _ = writeln!(
                s,
                "sampling  temperature {} top-k {} top-p {} min-p {} profile {} seed {}{}",
                raw.temperature,
                fmt_param(raw.top_k != 0, raw.top_k),
                fmt_param(raw.top_p < 1.0, raw.top_p),
                fmt_param(raw.min_p > 0.0, raw.min_p),
                raw.profile,
                raw.seed,
                match &a.bias {
                    Some(b) => format!(" bias {} entries", b.0.len()),
                    None => String::new(),
                }
            );
            match drawn {
                Drawn::One(t) => {
                    let _ = writeln!(s, "position  {start}\ntoken     {t}");
                }
                Drawn::Range { first, counts, .. } => {
                    let end = end.unwrap_or(start);
                    let draws = end - start;
                    let _ = writeln!(
                        s,
                        "positions {start}..{end} ({draws} draws, {} distinct tokens)",
                        counts.len()
                    );
                    let shown: Vec<String> = first.iter().map(|t| t.to_string()).collect();
                    let _ = writeln!(s, "first {}  {}", shown.len(), shown.join(" "));
                    let mut sorted: Vec<(u32, u64)> = counts.into_iter().collect();
                    sorted.sort_unstable_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
                    let _ = writeln!(s, "{:>10} {:>12} {:>10}", "token", "count", "fraction");
                    for &(t, c) in sorted.iter().take(TEXT_HISTOGRAM) {
                        let _ = writeln!(s, "{t:>10} {c:>12} {:>10.6}", c as f64 / draws as f64);
                    }
                    if sorted.len() > TEXT_HISTOGRAM {
                        let rest: u64 = sorted[TEXT_HISTOGRAM..].iter().map(|x| x.1).sum();
                        let _ = writeln!(
                            s,
                            "{:>10} {rest:>12} {:>10.6}  ({} more tokens)",
                            "...",
                            rest as f64 / draws as f64,
                            sorted.len() - TEXT_HISTOGRAM
                        );
                    }
                }
            }
            s
        }
    })
}
