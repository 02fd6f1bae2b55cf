//! `tailrace replay` and `tailrace audit-draws`: thin shells over
//! `tailrace-audit` (guide: docs/audit.md).

use crate::error::{failure_msg, input_msg, CliError, ResultExt};
use crate::parse::{self, SparseBias};
use crate::Format;
use clap::{ArgGroup, Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use serde_json::json;
use std::io::{BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};
use tailrace_audit::chisq::{chi_square_audit, exact_law};
use tailrace_audit::draws::{read_draws, Draws};
use tailrace_audit::replay::{
    replay, Issue, IssueCollector, ReplayObserver, ReplayOptions, ReplaySummary, TritonCheck,
    TRITON_RULE,
};
use tailrace_audit::tail::{tail_audit, TailObservation, TailRow};
use tailrace_audit::LogitsFile;
use tailrace_model::{LogitBias, RawParams, SamplingParams};

/// Inputs at least this large show a progress bar (on a terminal).
const PROGRESS_BYTES: u64 = 4 << 20;
/// Issues kept for the JSON report.
const JSON_ISSUES: usize = 100_000;

/// Arguments of `tailrace replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The safetensors file holding the logged logits rows.
    #[arg(long)]
    logits: PathBuf,
    /// The JSON Lines file of logged tokens, one per line (`-`: standard input).
    #[arg(long)]
    requests: PathBuf,
    /// Output format: text streams each issue as it is found; json prints one
    /// object at the end.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
}

/// Prints issues as they come (text) and drives the progress bar.
struct Printer {
    out: Option<std::io::BufWriter<std::io::Stdout>>,
    bar: ProgressBar,
    collect: Option<IssueCollector>,
    within_shown: u64,
}

impl Printer {
    fn print(&mut self, text: &str) {
        if let Some(out) = &mut self.out {
            let bar = self.bar.clone();
            let ok = bar.suspend(|| writeln!(out, "{text}"));
            if ok.is_err() {
                self.out = None; // a closed pipe: keep checking, stop printing
            }
        }
    }
}

impl ReplayObserver for Printer {
    fn on_issue(&mut self, issue: &Issue) {
        match &mut self.collect {
            Some(c) => c.on_issue(issue),
            None => self.print(&issue.to_string()),
        }
    }

    fn on_within_tolerance(&mut self, line: u64, c: &TritonCheck) {
        // A few notes in text mode; the summary counts them all.
        if self.collect.is_none() && self.within_shown < 20 {
            self.within_shown += 1;
            self.print(&format!(
                "line {line}: triton token within tolerance: gap {:.3e} <= {:.3e} to token {} (see docs/audit.md)",
                c.gap, c.tolerance, c.best
            ));
        }
    }

    fn on_progress(&mut self, bytes: u64, s: &ReplaySummary) {
        if let Some(out) = &mut self.out {
            if out.flush().is_err() {
                self.out = None;
            }
        }
        self.bar.set_position(bytes);
        self.bar.set_message(format!(
            "{} lines, {} mismatches, {} malformed",
            s.lines, s.mismatches, s.malformed
        ));
    }
}

fn replay_bar(len: Option<u64>) -> ProgressBar {
    if !std::io::stderr().is_terminal() || len.is_some_and(|l| l < PROGRESS_BYTES) {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(len, ProgressDrawTarget::stderr());
    let template = if len.is_some() {
        "{bar:40} {bytes}/{total_bytes}  {msg}  eta {eta}"
    } else {
        "{spinner} {bytes}  {msg}"
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar
}

/// The JSON report of `tailrace replay`.
#[derive(Serialize)]
struct ReplayJson {
    logits: String,
    requests: String,
    summary: ReplaySummary,
    /// A read error that stopped the replay (the summary covers the lines before it).
    error: Option<String>,
    triton_rule: &'static str,
    /// Mismatches and malformed lines, in input order (at most JSON_ISSUES).
    issues: Vec<Issue>,
    issues_omitted: u64,
}

/// Runs `tailrace replay`.
pub fn run_replay(a: &ReplayArgs) -> Result<String, CliError> {
    let logits = LogitsFile::open(&a.logits).or_input()?;
    let (input, len): (Box<dyn std::io::BufRead + Send>, Option<u64>) =
        if a.requests.as_os_str() == "-" {
            (
                Box::new(BufReader::with_capacity(1 << 20, std::io::stdin())),
                None,
            )
        } else {
            let f = std::fs::File::open(&a.requests)
                .map_err(|e| input_msg(format!("cannot read {}: {e}", a.requests.display())))?;
            let len = f.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
            (Box::new(BufReader::with_capacity(1 << 20, f)), len)
        };
    let json = a.format == Format::Json;
    let mut printer = Printer {
        out: (!json).then(|| std::io::BufWriter::new(std::io::stdout())),
        bar: replay_bar(len),
        collect: json.then(|| IssueCollector::new(JSON_ISSUES)),
        within_shown: 0,
    };
    let opts = ReplayOptions {
        threads: a.threads.map(usize::from),
        ..ReplayOptions::default()
    };
    let report = replay(&logits, input, &opts, &mut printer);
    printer.bar.finish_and_clear();
    let s = report.summary;
    let out = if json {
        let c = printer.collect.take().unwrap_or_default();
        let doc = ReplayJson {
            logits: a.logits.display().to_string(),
            requests: a.requests.display().to_string(),
            summary: s,
            error: report.error.clone(),
            triton_rule: TRITON_RULE,
            issues: c.issues,
            issues_omitted: c.omitted,
        };
        serde_json::to_string_pretty(&doc).or_failure()? + "\n"
    } else {
        let mut t = format!("summary: {s}\n");
        if s.triton_lines > 0 {
            t.push_str(&format!(
                "triton: {} line(s) used the triton profile, checked with a tolerance: {TRITON_RULE}\n",
                s.triton_lines
            ));
        }
        t
    };
    if let Some(mut w) = printer.out.take() {
        let _ = w.flush();
    }
    crate::write_stdout(&out)?;
    if let Some(e) = report.error {
        return Err(failure_msg(format!(
            "{e} (the summary covers the lines before it)"
        )));
    }
    if !s.ok() {
        return Err(failure_msg(format!(
            "replay failed: {} mismatch(es), {} malformed line(s) in {} lines",
            s.mismatches, s.malformed, s.lines
        )));
    }
    Ok(String::new())
}

/// Report format of `audit-draws`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum ReportFormat {
    /// Markdown.
    #[default]
    Md,
    /// One JSON object.
    Json,
}

/// Arguments of `tailrace audit-draws`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("law").required(true).args(["tail_vocab", "logits"])))]
pub struct AuditDrawsArgs {
    /// Tail rows [0, -D, ..., -D] (float32, T = 1) of this vocabulary size.
    #[arg(long, requires = "tail_r", conflicts_with = "logits")]
    tail_vocab: Option<usize>,
    /// Tail ratios r = e^-D, comma-separated: one per --draws file, in order.
    #[arg(long, value_delimiter = ',', requires = "tail_vocab")]
    tail_r: Vec<f64>,
    /// An arbitrary row: the safetensors file holding it.
    #[arg(long)]
    logits: Option<PathBuf>,
    /// The tensor's name (may be omitted when the file holds one tensor).
    #[arg(long, requires = "logits")]
    tensor: Option<String>,
    /// The row of an [N, V] tensor.
    #[arg(long, default_value_t = 0, requires = "logits")]
    row: u64,
    /// Temperature of the audited law (0 = greedy).
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true)]
    temperature: f64,
    /// Keep the k most likely tokens (0 = off).
    #[arg(long, default_value_t = 0)]
    top_k: u32,
    /// Nucleus mass in (0, 1] (1 = off).
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true)]
    top_p: f64,
    /// Minimum probability relative to the top token, in [0, 1] (0 = off).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    min_p: f64,
    /// Sparse logit bias INDEX:VALUE,... (VALUE may be -inf to mask a token).
    #[arg(long, value_parser = parse::sparse_bias, allow_hyphen_values = true, value_name = "I:V,...")]
    bias: Option<SparseBias>,
    /// Observed draws, comma-separated: JSON ({"tokens": [...]}, {"counts": {...}} or
    /// {"draws": N, "misses": M}) or .npy (1-D integer array of tokens).
    #[arg(long, value_delimiter = ',', required = true)]
    draws: Vec<PathBuf>,
    /// Report format on standard output.
    #[arg(long, value_enum, default_value_t)]
    format: ReportFormat,
    /// Also write the JSON report to this file.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Runs `tailrace audit-draws`.
pub fn run_audit_draws(a: &AuditDrawsArgs) -> Result<String, CliError> {
    let (md, value, pass) = match a.tail_vocab {
        Some(vocab) => audit_tail(a, vocab)?,
        None => audit_row(a)?,
    };
    let json_text = serde_json::to_string_pretty(&value).or_failure()? + "\n";
    if let Some(path) = &a.out {
        std::fs::write(path, &json_text)
            .map_err(|e| failure_msg(format!("cannot write {}: {e}", path.display())))?;
    }
    crate::write_stdout(match a.format {
        ReportFormat::Md => &md,
        ReportFormat::Json => &json_text,
    })?;
    if pass {
        Ok(String::new())
    } else {
        Err(failure_msg(
            "audit verdict: FAIL (the draws do not follow the exact law; see the report)",
        ))
    }
}

fn audit_tail(
    a: &AuditDrawsArgs,
    vocab: usize,
) -> Result<(String, serde_json::Value, bool), CliError> {
    if a.tail_r.len() != a.draws.len() {
        return Err(input_msg(format!(
            "{} --tail-r value(s) but {} --draws file(s): give one draws file per r, in order",
            a.tail_r.len(),
            a.draws.len()
        )));
    }
    let mut cells = Vec::new();
    for (&r, path) in a.tail_r.iter().zip(&a.draws) {
        let row = TailRow::new(vocab, r).or_input()?;
        let file = read_draws(path, vocab).or_input()?;
        if let Some(dr) = file.declared_r {
            if (dr - r).abs() > 1e-9 * r {
                return Err(input_msg(format!(
                    "{} says \"r\": {dr:e} but is paired with --tail-r {r:e} (draws files pair with --tail-r values in order)",
                    path.display()
                )));
            }
        }
        let (draws, misses) = file.draws.misses();
        cells.push((row, TailObservation { draws, misses }));
    }
    let audit = tail_audit(&cells).or_input()?;
    let mut value = serde_json::to_value(&audit).or_failure()?;
    value["draws_files"] = json!(a
        .draws
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>());
    Ok((audit.to_markdown(), value, audit.pass))
}

fn audit_row(a: &AuditDrawsArgs) -> Result<(String, serde_json::Value, bool), CliError> {
    let path = a.logits.as_deref().unwrap_or(Path::new(""));
    let [draws_path] = a.draws.as_slice() else {
        return Err(input_msg(format!(
            "the chi-square audit takes one --draws file, got {}",
            a.draws.len()
        )));
    };
    let logits = LogitsFile::open(path).or_input()?;
    let row = logits.row(a.tensor.as_deref(), a.row).or_input()?;
    let params = SamplingParams::new(RawParams {
        temperature: a.temperature,
        top_k: a.top_k,
        top_p: a.top_p,
        min_p: a.min_p,
        ..RawParams::default()
    })
    .map_err(|e| input_msg(format!("invalid sampling parameters: {e}")))?;
    let bias = a
        .bias
        .as_ref()
        .map_or(LogitBias::None, |b| LogitBias::Sparse(b.0.clone()));
    let law = exact_law(&row.values, &bias, &params).or_input()?;
    let counts = match read_draws(draws_path, row.values.len()).or_input()?.draws {
        Draws::Counts(c) => c,
        Draws::Misses { .. } => {
            return Err(input_msg(format!(
                "{} gives only draws and misses; the chi-square audit needs tokens or counts",
                draws_path.display()
            )))
        }
    };
    let label = format!(
        "tensor {:?} row {} of {}",
        row.tensor,
        row.row,
        path.display()
    );
    let audit = chi_square_audit(&law, &params, &counts, label).or_input()?;
    let mut value = serde_json::to_value(&audit).or_failure()?;
    value["draws_file"] = json!(draws_path.display().to_string());
    Ok((audit.to_markdown(), value, audit.pass))
}
