//! Replay: recompute logged tokens with the CPU model and report every
//! mismatch. The input is JSON Lines, one generated token per line:
//!
//! ```json
//! {"tensor": "logits", "row": 3, "temperature": 0.7, "top_k": 50, "top_p": 0.9,
//!  "min_p": 0.0, "bias": [[17, "-inf"], [42, 1.5]], "profile": "exact",
//!  "seed": 1234, "position": 87, "token": 512, "id": "req-9/87"}
//! ```
//!
//! `tensor` may be omitted when the file holds one tensor, `row` defaults to
//! 0, `top_k`/`top_p`/`min_p`/`bias` default to off, `id` (any JSON value) is
//! echoed in reports; other keys are rejected so that a misspelt parameter
//! cannot silently fall back to its default. `seed` and `position` may be
//! JSON numbers or strings (decimal or `0x` hex, for loggers that lose
//! precision above 2^53).
//!
//! The input is streamed: chunks of lines are checked in parallel (rayon)
//! while the next chunk is read, and outcomes are reported in input order.
//! Memory is bounded by the chunk size, whatever the input's length.
//!
//! The `triton` profile (Megatron's float32 softmax race `argmax(p / E)`)
//! cannot be replayed bit for bit: its line passes when the observed token
//! wins the race with the exact Triton noise within [`triton_tolerance`].

use crate::logits::LogitsFile;
use crate::AuditError;
use rayon::prelude::*;
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::io::{self, BufRead};
use std::ops::Range;
use tailrace_model::filter::Cut;
use tailrace_model::race::{element_score, Best, PreparedRow, RowData};
use tailrace_model::{
    LogitBias, NoiseProfile, ParamError, RawParams, RowStatus, SamplingParams, NO_TOKEN,
};
use tailrace_noise::profile::{self as noise_profile, triton};

/// Relative tolerance of the `triton` check (see [`triton_tolerance`]).
pub const TRITON_REL_TOL: f64 = 4e-6;

/// The tolerance on race scores `s_i = a_i / T - ln E_i` for a `triton`
/// line: `4e-6 * (1 + max_i |a_i / T|)` over the survivors.
///
/// Why: Megatron's `argmax(p / E)` uses the float32 softmax. Each ratio
/// `p_o / p_j` carries a few float32 roundings (of `x / T`, of the
/// subtraction of the maximum, of `exp`, of the division by the normaliser
/// and by `E`), each at most a few 2^-24 ≈ 6e-8 relative, i.e. absolute in
/// log space, plus `2^-24 |x / T|` for the scaling of large logits. The
/// normaliser is shared and cancels. `4e-6` is about 67 such roundings: well
/// above what float32 can lose, and still far below any real mismatch
/// (a wrong token typically loses by O(1) nats).
pub fn triton_tolerance(max_abs_scaled_logit: f64) -> f64 {
    TRITON_REL_TOL * (1.0 + max_abs_scaled_logit)
}

/// The tolerance rule in words, for reports.
pub const TRITON_RULE: &str = "triton lines pass iff s_obs >= max_i s_i - tol over the survivors, \
     s_i = a_i / T - ln E_i (f64, exact Triton noise), tol = 4e-6 * (1 + max_i |a_i / T|): \
     Megatron's float32 softmax cannot be replayed bit for bit";

/// How the work is split. The outcome never depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplayOptions {
    /// Worker threads (None: rayon's default, all cores).
    pub threads: Option<usize>,
    /// Most lines per chunk.
    pub chunk_lines: usize,
    /// Most bytes of line text per chunk.
    pub chunk_bytes: usize,
    /// Longest accepted line; longer ones are reported malformed and skipped.
    pub max_line_bytes: usize,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions {
            threads: None,
            chunk_lines: 1024,
            chunk_bytes: 16 << 20,
            max_line_bytes: 16 << 20,
        }
    }
}

/// Counts over the lines checked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ReplaySummary {
    /// Non-blank lines read.
    pub lines: u64,
    /// Lines whose token equals the model's.
    pub matches: u64,
    /// `triton` lines whose token differs from the model's but wins within the tolerance.
    pub within_tolerance: u64,
    /// Lines whose token the model does not produce.
    pub mismatches: u64,
    /// Lines that could not be checked.
    pub malformed: u64,
    /// Lines with the `triton` profile (any outcome).
    pub triton_lines: u64,
}

impl ReplaySummary {
    /// Whether every line matched (or passed within tolerance).
    pub fn ok(&self) -> bool {
        self.mismatches == 0 && self.malformed == 0
    }
}

impl fmt::Display for ReplaySummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} lines: {} match, {} within tolerance (triton), {} mismatches, {} malformed",
            self.lines, self.matches, self.within_tolerance, self.mismatches, self.malformed
        )
    }
}

/// The `triton` check of one line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TritonCheck {
    /// The token with the largest `s_i`.
    pub best: u32,
    /// Its score `s = a / T - ln E`.
    pub best_score: f64,
    /// The observed token's score.
    pub observed_score: f64,
    /// `best_score - observed_score`.
    pub gap: f64,
    /// The tolerance.
    pub tolerance: f64,
    /// Pass: the observed token survives and `gap <= tolerance`.
    pub within: bool,
}

/// A line whose token the model does not produce.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mismatch {
    /// 1-based line number.
    pub line: u64,
    /// The line's `id`, if any.
    pub id: Option<serde_json::Value>,
    /// Tensor name.
    pub tensor: String,
    /// Row.
    pub row: u64,
    /// The parameters.
    pub params: RawParams,
    /// The model's token (None when the row has no token: see `status`).
    pub expected: Option<u32>,
    /// The row's status under the model.
    pub status: RowStatus,
    /// The logged token.
    pub observed: u32,
    /// The race score of the expected token, `fma(-T, ln E, a)` (`race::element_score`).
    pub expected_score: Option<f64>,
    /// The race score of the observed token.
    pub observed_score: f64,
    /// `expected_score - observed_score`: by how much the observed token lost.
    pub margin: Option<f64>,
    /// Whether the observed token survives the filters (and is not masked).
    pub observed_survives: bool,
    /// How many tokens survive the filters.
    pub survivors: u64,
    /// The tolerance check, for `triton` lines.
    pub triton: Option<TritonCheck>,
}

/// A line that could not be checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Malformed {
    /// 1-based line number.
    pub line: u64,
    /// What is wrong with it.
    pub error: String,
}

/// A reported line.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Issue {
    /// The token is not the model's.
    Mismatch(Box<Mismatch>),
    /// The line could not be checked.
    Malformed(Malformed),
}

impl Issue {
    /// Its line number.
    pub fn line(&self) -> u64 {
        match self {
            Issue::Mismatch(m) => m.line,
            Issue::Malformed(m) => m.line,
        }
    }
}

fn score_str(s: f64) -> String {
    format!("{s:.9}")
}

/// A small positive quantity: fixed point when readable, else scientific.
fn small_str(x: f64) -> String {
    if x == 0.0 || (1e-3..1e6).contains(&x.abs()) {
        format!("{x:.6}")
    } else {
        format!("{x:.3e}")
    }
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Issue::Malformed(m) => write!(f, "line {}: malformed: {}", m.line, m.error),
            Issue::Mismatch(m) => {
                let p = &m.params;
                write!(f, "line {}: MISMATCH", m.line)?;
                if let Some(id) = &m.id {
                    write!(f, " (id {id})")?;
                }
                let expected = match m.expected {
                    Some(t) => format!("expected token {t}"),
                    None => format!("the model draws no token (row status {:?})", m.status),
                };
                writeln!(
                    f,
                    ": {expected}, observed {}\n  tensor {:?} row {}, profile {}, seed {}, position {}, \
                     T = {}, top-k = {}, top-p = {}, min-p = {}",
                    m.observed, m.tensor, m.row, p.profile, p.seed, p.position,
                    p.temperature, p.top_k, p.top_p, p.min_p
                )?;
                match (m.expected_score, m.margin) {
                    (Some(e), Some(d)) => write!(
                        f,
                        "  race score of expected {}, of observed {}, margin {}",
                        score_str(e),
                        score_str(m.observed_score),
                        small_str(d)
                    )?,
                    _ => write!(
                        f,
                        "  race score of observed {}",
                        score_str(m.observed_score)
                    )?,
                }
                write!(
                    f,
                    "; observed token survives the filters: {} ({} survivors)",
                    if m.observed_survives { "yes" } else { "no" },
                    m.survivors
                )?;
                if let Some(t) = &m.triton {
                    write!(
                        f,
                        "\n  triton check: s(observed) = {}, max s = {} (token {}), gap {} > tolerance {}: \
                         not within tolerance",
                        score_str(t.observed_score),
                        score_str(t.best_score),
                        t.best,
                        small_str(t.gap),
                        small_str(t.tolerance)
                    )?;
                }
                Ok(())
            }
        }
    }
}

/// What one line came to.
#[derive(Debug, Clone, PartialEq)]
pub enum LineOutcome {
    /// Blank line (not counted).
    Blank,
    /// The model's token.
    Match {
        /// Whether the line uses the `triton` profile.
        triton: bool,
    },
    /// A `triton` line that passes within tolerance.
    WithinTolerance {
        /// 1-based line number.
        line: u64,
        /// The check.
        check: TritonCheck,
    },
    /// A mismatch or malformed line.
    Issue(Issue),
}

/// Receives results as the replay goes, in input order.
pub trait ReplayObserver {
    /// A mismatch or malformed line.
    fn on_issue(&mut self, _issue: &Issue) {}
    /// A `triton` line that passes within tolerance without equalling the model's token.
    fn on_within_tolerance(&mut self, _line: u64, _check: &TritonCheck) {}
    /// After each chunk: bytes consumed so far and the running summary.
    fn on_progress(&mut self, _bytes: u64, _summary: &ReplaySummary) {}
}

/// An observer that keeps the first `cap` issues.
#[derive(Debug, Clone, Default)]
pub struct IssueCollector {
    /// Most issues kept.
    pub cap: usize,
    /// The kept issues.
    pub issues: Vec<Issue>,
    /// Issues seen beyond the cap.
    pub omitted: u64,
}

impl IssueCollector {
    /// Keeps at most `cap` issues.
    pub fn new(cap: usize) -> Self {
        IssueCollector {
            cap,
            ..Default::default()
        }
    }
}

impl ReplayObserver for IssueCollector {
    fn on_issue(&mut self, issue: &Issue) {
        if self.issues.len() < self.cap {
            self.issues.push(issue.clone());
        } else {
            self.omitted += 1;
        }
    }
}

/// The result of a replay.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayReport {
    /// Counts over the lines checked.
    pub summary: ReplaySummary,
    /// A fatal error that stopped the replay (the summary covers the lines before it).
    pub error: Option<String>,
}

impl ReplayReport {
    /// Whether the replay finished and every line passed.
    pub fn ok(&self) -> bool {
        self.error.is_none() && self.summary.ok()
    }
}

/// Replays every line of `input` against `logits`.
pub fn replay<R: BufRead + Send>(
    logits: &LogitsFile,
    input: R,
    opts: &ReplayOptions,
    observer: &mut (dyn ReplayObserver + Send),
) -> ReplayReport {
    match opts.threads {
        None => replay_in_pool(logits, input, opts, observer),
        Some(n) => match rayon::ThreadPoolBuilder::new().num_threads(n).build() {
            Ok(pool) => pool.install(|| replay_in_pool(logits, input, opts, observer)),
            Err(e) => ReplayReport {
                summary: ReplaySummary::default(),
                error: Some(format!("cannot start {n} worker threads: {e}")),
            },
        },
    }
}

/// Lines of one chunk: (line number, text or the length of an over-long line).
type Chunk = Vec<(u64, Result<Vec<u8>, usize>)>;

struct LineReader<R> {
    input: R,
    next_line: u64,
    bytes: u64,
    done: bool,
}

impl<R: BufRead> LineReader<R> {
    /// Reads up to a chunk of lines; an I/O error comes with the lines before it.
    fn chunk(&mut self, opts: &ReplayOptions) -> (Chunk, Option<io::Error>) {
        let mut chunk = Vec::new();
        let mut size = 0usize;
        while !self.done && chunk.len() < opts.chunk_lines && size < opts.chunk_bytes {
            let mut buf = Vec::new();
            match read_line_bounded(&mut self.input, &mut buf, opts.max_line_bytes) {
                Ok(None) => self.done = true,
                Ok(Some((n, too_long))) => {
                    self.next_line += 1;
                    self.bytes += n as u64;
                    size += buf.len();
                    chunk.push((self.next_line, if too_long { Err(n) } else { Ok(buf) }));
                }
                Err(e) => {
                    self.done = true;
                    return (chunk, Some(e));
                }
            }
        }
        (chunk, None)
    }
}

/// Reads one line (with its `\n`) into `buf`, keeping at most `max` bytes:
/// `(bytes consumed, too long)`, or None at end of input.
fn read_line_bounded<R: BufRead>(
    r: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> io::Result<Option<(usize, bool)>> {
    let (mut consumed, mut too_long) = (0usize, false);
    loop {
        let avail = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            return Ok((consumed > 0).then_some((consumed, too_long)));
        }
        let (n, end) = match avail.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (avail.len(), false),
        };
        if !too_long {
            if buf.len() + n > max {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(&avail[..n]);
            }
        }
        r.consume(n);
        consumed += n;
        if end {
            return Ok(Some((consumed, too_long)));
        }
    }
}

fn replay_in_pool<R: BufRead + Send>(
    logits: &LogitsFile,
    input: R,
    opts: &ReplayOptions,
    observer: &mut (dyn ReplayObserver + Send),
) -> ReplayReport {
    let mut reader = LineReader {
        input,
        next_line: 0,
        bytes: 0,
        done: false,
    };
    let mut summary = ReplaySummary::default();
    let (mut chunk, mut read_error) = reader.chunk(opts);
    loop {
        let bytes_so_far = reader.bytes;
        let last_line = chunk.last().map(|c| c.0);
        // Check this chunk while the next one is read.
        let (outcomes, next) = if read_error.is_some() || reader.done {
            (check_chunk(logits, &chunk), None)
        } else {
            let (o, n) = rayon::join(|| check_chunk(logits, &chunk), || reader.chunk(opts));
            (o, Some(n))
        };
        for o in &outcomes {
            tally(&mut summary, o, observer);
        }
        observer.on_progress(bytes_so_far, &summary);
        if let Some(e) = read_error {
            let after = last_line.map_or("at the start".to_owned(), |l| format!("after line {l}"));
            return ReplayReport {
                summary,
                error: Some(format!("cannot read the requests {after}: {e}")),
            };
        }
        match next {
            None => break,
            Some((c, e)) => {
                if c.is_empty() && e.is_none() {
                    break;
                }
                chunk = c;
                read_error = e;
            }
        }
    }
    ReplayReport {
        summary,
        error: None,
    }
}

fn tally(s: &mut ReplaySummary, o: &LineOutcome, observer: &mut dyn ReplayObserver) {
    match o {
        LineOutcome::Blank => return,
        LineOutcome::Match { triton } => {
            s.matches += 1;
            s.triton_lines += u64::from(*triton);
        }
        LineOutcome::WithinTolerance { .. } => {
            s.within_tolerance += 1;
            s.triton_lines += 1;
        }
        LineOutcome::Issue(Issue::Mismatch(m)) => {
            s.mismatches += 1;
            s.triton_lines += u64::from(m.params.profile == NoiseProfile::Triton);
        }
        LineOutcome::Issue(Issue::Malformed(_)) => s.malformed += 1,
    }
    s.lines += 1;
    match o {
        LineOutcome::Issue(i) => observer.on_issue(i),
        LineOutcome::WithinTolerance { line, check } => observer.on_within_tolerance(*line, check),
        _ => {}
    }
}

fn check_chunk(logits: &LogitsFile, chunk: &Chunk) -> Vec<LineOutcome> {
    chunk
        .par_iter()
        .map(|(line, text)| match text {
            Ok(t) => check_line(logits, *line, t),
            Err(len) => malformed(
                *line,
                format!("line is {len} bytes long, over the limit; skipped"),
            ),
        })
        .collect()
}

fn malformed(line: u64, error: String) -> LineOutcome {
    LineOutcome::Issue(Issue::Malformed(Malformed { line, error }))
}

/// One logged token, as written on a line.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LineJson {
    #[serde(default)]
    id: Option<serde_json::Value>,
    #[serde(default)]
    tensor: Option<String>,
    #[serde(default)]
    row: u64,
    temperature: f64,
    #[serde(default)]
    top_k: u32,
    #[serde(default = "one")]
    top_p: f64,
    #[serde(default)]
    min_p: f64,
    #[serde(default)]
    bias: Vec<(u32, BiasValue)>,
    profile: NoiseProfile,
    seed: U64,
    position: U64,
    token: U64,
}

fn one() -> f64 {
    1.0
}

/// A u64 from a JSON number or a decimal / `0x` hex string.
#[derive(Debug, Clone, Copy)]
struct U64(u64);

impl<'de> Deserialize<'de> for U64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = U64;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an unsigned 64-bit integer (number, or string in decimal or 0x hex)")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<U64, E> {
                Ok(U64(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<U64, E> {
                u64::try_from(v).map(U64).map_err(|_| {
                    E::custom(format!(
                        "{v} is negative: expected an unsigned 64-bit integer"
                    ))
                })
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<U64, E> {
                Err(E::custom(format!(
                    "{v} is not an integer: expected an unsigned 64-bit integer"
                )))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<U64, E> {
                let t = s.trim();
                let r = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                    Some(h) => u64::from_str_radix(h, 16),
                    None => t.parse(),
                };
                r.map(U64).map_err(|_| {
                    E::custom(format!(
                        "{s:?} is not an unsigned 64-bit integer (decimal or 0x hex)"
                    ))
                })
            }
        }
        d.deserialize_any(V)
    }
}

/// A bias value: a number, or "-inf" (mask) / "inf" / "nan" as strings.
#[derive(Debug, Clone, Copy)]
struct BiasValue(f32);

impl<'de> Deserialize<'de> for BiasValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = BiasValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a bias value (a number or \"-inf\")")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<BiasValue, E> {
                Ok(BiasValue(v as f32))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<BiasValue, E> {
                Ok(BiasValue(v as f32))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<BiasValue, E> {
                Ok(BiasValue(v as f32))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<BiasValue, E> {
                match s.trim().to_ascii_lowercase().as_str() {
                    "-inf" | "-infinity" => Ok(BiasValue(f32::NEG_INFINITY)),
                    "inf" | "+inf" | "infinity" => Ok(BiasValue(f32::INFINITY)),
                    "nan" => Ok(BiasValue(f32::NAN)),
                    _ => Err(E::custom(format!(
                        "bias value {s:?} is not a number or \"-inf\""
                    ))),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// serde_json's message without its "at line 1 column N" (a line is one
/// JSON document), with the column kept; syntax errors and schema errors
/// (missing or unknown fields, wrong types) are told apart.
fn json_error(e: &serde_json::Error) -> String {
    let msg = e.to_string();
    let base = match msg.rfind(" at line ") {
        Some(i) => &msg[..i],
        None => msg.as_str(),
    };
    let what = match e.classify() {
        serde_json::error::Category::Data => "invalid request",
        _ => "invalid JSON",
    };
    if e.column() > 0 {
        format!("{what}: {base} (column {})", e.column())
    } else {
        format!("{what}: {base}")
    }
}

/// Vocabulary chunk of the race (the result does not depend on it).
const RACE_CHUNK: usize = 32768;

/// Checks one line (1-based `line`, `text` without its line end or with it).
pub fn check_line(logits: &LogitsFile, line: u64, text: &[u8]) -> LineOutcome {
    let text = text.trim_ascii();
    if text.is_empty() {
        return LineOutcome::Blank;
    }
    let req: LineJson = match serde_json::from_slice(text) {
        Ok(r) => r,
        Err(e) => return malformed(line, json_error(&e)),
    };
    match check_request(logits, line, req) {
        Ok(o) => o,
        Err(msg) => malformed(line, msg),
    }
}

fn param_error(e: &ParamError) -> String {
    format!("invalid sampling parameters: {e}")
}

fn check_request(logits: &LogitsFile, line: u64, req: LineJson) -> Result<LineOutcome, String> {
    let raw = RawParams {
        temperature: req.temperature,
        top_k: req.top_k,
        top_p: req.top_p,
        min_p: req.min_p,
        seed: req.seed.0,
        position: req.position.0,
        profile: req.profile,
    };
    let params = SamplingParams::new(raw).map_err(|e| param_error(&e))?;
    let x = logits
        .row(req.tensor.as_deref(), req.row)
        .map_err(|e| AuditError::to_string(&e))?;
    let vocab = x.values.len();
    let bias = if req.bias.is_empty() {
        LogitBias::None
    } else {
        LogitBias::Sparse(req.bias.iter().map(|&(i, v)| (i, v.0)).collect())
    };
    bias.validate(vocab).map_err(|e| param_error(&e))?;
    let observed = match u32::try_from(req.token.0) {
        Ok(t) if (t as usize) < vocab => t,
        _ => {
            return Err(format!(
                "observed token {} is outside the vocabulary of {vocab} tokens (tensor {:?})",
                req.token.0, x.tensor
            ))
        }
    };
    let dense = bias.to_dense(vocab);
    let row = RowData::new(&x.values, dense.as_deref());
    let ranges: Vec<Range<usize>> = (0..vocab)
        .step_by(RACE_CHUNK)
        .map(|s| s..(s + RACE_CHUNK).min(vocab))
        .collect();
    let prep = PreparedRow::new(row, params, &ranges, false);
    let out = match prep.settled() {
        Some(o) => o,
        None => prep.finish(
            ranges
                .par_iter()
                .map(|r| prep.race(r.clone()))
                .reduce(|| Best::NONE, Best::merge),
        ),
    };
    let is_triton = params.profile() == NoiseProfile::Triton;
    if out.status == RowStatus::Ok && out.token == observed {
        return Ok(LineOutcome::Match { triton: is_triton });
    }
    let ok = out.status == RowStatus::Ok;
    let survives = |i: u32| {
        let a = row.a(i as usize);
        ok && a > f64::NEG_INFINITY
            && (params.is_greedy() || prep.cut.is_none_or(|c| c.keeps(a, i)))
    };
    let triton = (ok && is_triton && !params.is_greedy())
        .then(|| triton_check(&row, &params, prep.cut, observed, survives(observed)));
    if let Some(t) = &triton {
        if t.within {
            return Ok(LineOutcome::WithinTolerance {
                line,
                check: t.clone(),
            });
        }
    }
    let expected = (out.token != NO_TOKEN).then_some(out.token);
    let observed_score = element_score(&row, &params, observed as usize);
    let expected_score = expected.map(|t| element_score(&row, &params, t as usize));
    let survivors = if ok {
        (0..vocab as u32).filter(|&i| survives(i)).count() as u64
    } else {
        0
    };
    Ok(LineOutcome::Issue(Issue::Mismatch(Box::new(Mismatch {
        line,
        id: req.id,
        tensor: x.tensor,
        row: req.row,
        params: raw,
        expected,
        status: out.status,
        observed,
        expected_score,
        observed_score,
        margin: expected_score.map(|e| e - observed_score),
        observed_survives: survives(observed),
        survivors,
        triton,
    }))))
}

/// The `triton` tolerance check: `s_i = a_i / T - ln E_i` over the survivors.
fn triton_check(
    row: &RowData<'_, f32>,
    params: &SamplingParams,
    cut: Option<Cut>,
    observed: u32,
    observed_survives: bool,
) -> TritonCheck {
    let (t, seed, pos) = (params.temp(), params.seed(), params.position());
    let ln_e = |w: u32| tailrace_noise::math::ln(f64::from(triton::variate(triton::uniform(w))));
    let (mut best, mut best_i, mut max_abs) = (f64::NEG_INFINITY, u32::MAX, 0.0f64);
    for i in 0..row.len() {
        let a = row.a(i);
        if !(a > f64::NEG_INFINITY && cut.is_none_or(|c| c.keeps(a, i as u32))) {
            continue;
        }
        let z = a / t;
        max_abs = max_abs.max(z.abs());
        let w = triton::word(seed, pos, i as u32);
        // The bound never excludes a winner: ln E >= the bound, rounding is monotone.
        if z - noise_profile::ln_variate_lower_bound(NoiseProfile::Triton, w) <= best {
            continue;
        }
        let s = z - ln_e(w);
        if s > best {
            (best, best_i) = (s, i as u32);
        }
    }
    let observed_score = row.a(observed as usize) / t - ln_e(triton::word(seed, pos, observed));
    let tolerance = triton_tolerance(max_abs);
    let gap = best - observed_score;
    TritonCheck {
        best: best_i,
        best_score: best,
        observed_score,
        gap,
        tolerance,
        within: observed_survives && gap <= tolerance,
    }
}
