//! Observed draws from any sampler: readers for JSON and `.npy` files.
//!
//! Accepted forms (the file's extension picks the reader: `.npy` or JSON):
//! - `{"tokens": [t0, t1, ...]}`: one token per draw;
//! - `{"counts": {"token": n, ...}}`: a histogram;
//! - `{"draws": N, "misses": M}`: for the tail audit only, draws that were
//!   not token 0;
//! - `.npy`: a 1-D array of any integer dtype, one token per draw.
//!
//! Other keys of a JSON object are ignored (room for metadata), except
//! `"vocab"` and `"r"`, which are checked against the audit's own values when
//! present (a file given in the wrong order is an error, not a false verdict).
//! Every token is checked against the vocabulary; the error names the file and
//! the draw's position (or the histogram key).

use crate::AuditError;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

/// A histogram of drawn tokens.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    /// Draws per token (tokens never drawn are absent).
    pub by_token: BTreeMap<u32, u64>,
    /// Total draws.
    pub total: u64,
}

impl Counts {
    /// Counts a sequence of tokens.
    pub fn from_tokens(tokens: impl IntoIterator<Item = u32>) -> Self {
        let mut c = Counts::default();
        for t in tokens {
            c.add(t, 1);
        }
        c
    }

    /// Adds `n` draws of `token`.
    pub fn add(&mut self, token: u32, n: u64) {
        if n > 0 {
            *self.by_token.entry(token).or_insert(0) += n;
            self.total += n;
        }
    }

    /// Draws of `token`.
    pub fn get(&self, token: u32) -> u64 {
        self.by_token.get(&token).copied().unwrap_or(0)
    }
}

/// What a draws file holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Draws {
    /// Tokens (or a histogram of them).
    Counts(Counts),
    /// Only the number of draws and of misses (draws other than token 0).
    Misses {
        /// Draws.
        draws: u64,
        /// Draws other than token 0.
        misses: u64,
    },
}

impl Draws {
    /// `(draws, misses)`: draws, and draws other than token 0.
    pub fn misses(&self) -> (u64, u64) {
        match self {
            Draws::Counts(c) => (c.total, c.total - c.get(0)),
            Draws::Misses { draws, misses } => (*draws, *misses),
        }
    }
}

/// A draws file: the draws and what it declares about itself.
#[derive(Debug, Clone, PartialEq)]
pub struct DrawsFile {
    /// The draws.
    pub draws: Draws,
    /// The `"r"` key of a JSON file, if any (the tail ratio it was drawn at).
    pub declared_r: Option<f64>,
}

#[derive(Deserialize)]
struct DrawsJson {
    tokens: Option<Vec<serde_json::Number>>,
    counts: Option<BTreeMap<String, u64>>,
    draws: Option<u64>,
    misses: Option<u64>,
    vocab: Option<serde_json::Value>,
    r: Option<f64>,
}

fn oov(input: &str, at: String, token: impl ToString, vocab: usize) -> AuditError {
    AuditError::TokenOutOfVocab {
        input: input.to_owned(),
        at,
        token: token.to_string(),
        vocab,
    }
}

fn draws_err(input: &str, reason: impl Into<String>) -> AuditError {
    AuditError::Draws {
        input: input.to_owned(),
        reason: reason.into(),
    }
}

/// Reads a draws file; `.npy` by extension, JSON otherwise. Tokens must be
/// below `vocab`.
pub fn read_draws(path: &Path, vocab: usize) -> Result<DrawsFile, AuditError> {
    let is_npy = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("npy"));
    let file = std::fs::File::open(path).map_err(|e| AuditError::io(path, e))?;
    let name = path.display().to_string();
    if is_npy {
        read_npy(std::io::BufReader::new(file), &name, vocab).map(|c| DrawsFile {
            draws: Draws::Counts(c),
            declared_r: None,
        })
    } else {
        let mut bytes = Vec::new();
        std::io::BufReader::new(file)
            .read_to_end(&mut bytes)
            .map_err(|e| AuditError::io(path, e))?;
        parse_json(&bytes, &name, vocab)
    }
}

/// Parses a JSON draws document (`input` names it in messages).
pub fn parse_json(bytes: &[u8], input: &str, vocab: usize) -> Result<DrawsFile, AuditError> {
    let doc: DrawsJson = serde_json::from_slice(bytes)
        .map_err(|e| draws_err(input, format!("not a JSON draws document: {e}")))?;
    if let Some(v) = &doc.vocab {
        if v.as_u64() != Some(vocab as u64) {
            return Err(draws_err(
                input,
                format!("the file says \"vocab\": {v}, the audit's vocabulary is {vocab}"),
            ));
        }
    }
    let declared_r = doc.r;
    parse_doc(doc, input, vocab).map(|draws| DrawsFile { draws, declared_r })
}

fn parse_doc(doc: DrawsJson, input: &str, vocab: usize) -> Result<Draws, AuditError> {
    let forms = [
        doc.tokens.is_some(),
        doc.counts.is_some(),
        doc.draws.is_some() || doc.misses.is_some(),
    ];
    match forms.iter().filter(|&&f| f).count() {
        0 => {
            return Err(draws_err(
                input,
                "expected {\"tokens\": [...]}, {\"counts\": {\"token\": n, ...}} or {\"draws\": N, \"misses\": M}",
            ))
        }
        1 => {}
        _ => {
            return Err(draws_err(
                input,
                "give exactly one of \"tokens\", \"counts\" or \"draws\"/\"misses\"",
            ))
        }
    }
    if let Some(tokens) = doc.tokens {
        let mut c = Counts::default();
        for (pos, t) in tokens.iter().enumerate() {
            let at = || format!("draw {pos} (0-based, in \"tokens\")");
            let Some(v) = t.as_u64() else {
                return Err(if t.is_i64() {
                    oov(input, at(), t, vocab)
                } else {
                    draws_err(input, format!("{} is {t}, not an integer token", at()))
                });
            };
            if v >= vocab as u64 {
                return Err(oov(input, at(), v, vocab));
            }
            c.add(v as u32, 1);
        }
        return Ok(Draws::Counts(c));
    }
    if let Some(counts) = doc.counts {
        let mut c = Counts::default();
        for (key, n) in counts {
            let at = format!("\"counts\" key {key:?}");
            let t: u64 = key.trim().parse().map_err(|_| {
                draws_err(
                    input,
                    format!("{at} is not a token index (a non-negative integer)"),
                )
            })?;
            if t >= vocab as u64 {
                return Err(oov(input, at, t, vocab));
            }
            c.add(t as u32, n);
        }
        return Ok(Draws::Counts(c));
    }
    match (doc.draws, doc.misses) {
        (Some(draws), Some(misses)) if misses <= draws => Ok(Draws::Misses { draws, misses }),
        (Some(draws), Some(misses)) => Err(draws_err(
            input,
            format!("\"misses\" ({misses}) exceeds \"draws\" ({draws})"),
        )),
        _ => Err(draws_err(input, "\"draws\" and \"misses\" go together")),
    }
}

/// Reads a `.npy` 1-D integer array of tokens (`input` names it in messages).
pub fn read_npy(reader: impl Read, input: &str, vocab: usize) -> Result<Counts, AuditError> {
    use npyz::{DType, TypeChar};
    let npy = npyz::NpyFile::new(reader)
        .map_err(|e| draws_err(input, format!("not a valid .npy file: {e}")))?;
    if npy.shape().len() != 1 {
        return Err(draws_err(
            input,
            format!(
                "array has shape {:?}; expected a 1-D array of tokens",
                npy.shape()
            ),
        ));
    }
    let DType::Plain(ts) = npy.dtype() else {
        return Err(draws_err(
            input,
            format!("dtype {}; expected an integer dtype", npy.dtype().descr()),
        ));
    };
    let size = ts.size_field();
    let mut c = Counts::default();
    macro_rules! count {
        ($t:ty) => {
            count_npy::<$t, _>(npy, input, vocab, &mut c)
        };
    }
    match (ts.type_char(), size) {
        (TypeChar::Int, 1) => count!(i8),
        (TypeChar::Int, 2) => count!(i16),
        (TypeChar::Int, 4) => count!(i32),
        (TypeChar::Int, 8) => count!(i64),
        (TypeChar::Uint, 1) => count!(u8),
        (TypeChar::Uint, 2) => count!(u16),
        (TypeChar::Uint, 4) => count!(u32),
        (TypeChar::Uint, 8) => count!(u64),
        _ => Err(draws_err(
            input,
            format!("dtype {ts}; expected an integer dtype (int8..int64, uint8..uint64)"),
        )),
    }?;
    Ok(c)
}

fn count_npy<T, R>(
    npy: npyz::NpyFile<R>,
    input: &str,
    vocab: usize,
    c: &mut Counts,
) -> Result<(), AuditError>
where
    T: npyz::Deserialize + Into<i128>,
    R: Read,
{
    let data = npy
        .data::<T>()
        .map_err(|e| draws_err(input, format!("cannot read the array: {e}")))?;
    for (pos, v) in data.enumerate() {
        let v: i128 = v
            .map_err(|e| draws_err(input, format!("cannot read draw {pos}: {e}")))?
            .into();
        if v < 0 || v >= vocab as i128 {
            return Err(oov(input, format!("draw {pos} (0-based)"), v, vocab));
        }
        c.add(v as u32, 1);
    }
    Ok(())
}
