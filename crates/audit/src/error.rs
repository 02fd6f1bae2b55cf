//! The audit's typed errors. Each one names the input and where in it.

use tailrace_model::ParamError;

/// A problem with an audit's input.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// A file that cannot be opened or read. (The cause is part of the
    /// message, not a `source`, so that a context chain does not repeat it.)
    #[error("cannot read {path}: {cause}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        cause: std::io::Error,
    },
    /// A logits file that is not valid safetensors.
    #[error("{path} is not a valid safetensors file: {reason}")]
    Safetensors {
        /// The file.
        path: String,
        /// The parser's complaint.
        reason: String,
    },
    /// A tensor name the file does not hold.
    #[error("tensor {name:?} not found in {path}; it holds: {available}")]
    TensorNotFound {
        /// The file.
        path: String,
        /// The name asked for.
        name: String,
        /// The names it holds.
        available: String,
    },
    /// No tensor named, and the file holds more than one (or none).
    #[error("{path} holds {count} tensors: name one ({available})")]
    TensorNotNamed {
        /// The file.
        path: String,
        /// How many it holds.
        count: usize,
        /// Their names.
        available: String,
    },
    /// A tensor whose dtype cannot hold logits.
    #[error(
        "tensor {name:?} in {path} has dtype {dtype}; supported logits dtypes: BF16, F16, F32"
    )]
    Dtype {
        /// The file.
        path: String,
        /// The tensor.
        name: String,
        /// Its dtype.
        dtype: String,
    },
    /// A tensor that is not `[V]` or `[N, V]` with `1 <= V <= 2^31`.
    #[error(
        "tensor {name:?} in {path} has shape {shape}; expected [V] or [N, V] with 1 <= V <= 2^31"
    )]
    Shape {
        /// The file.
        path: String,
        /// The tensor.
        name: String,
        /// Its shape.
        shape: String,
    },
    /// A row index past the tensor's rows.
    #[error(
        "row {row} is out of range: tensor {name:?} in {path} has {rows} row(s) (shape {shape})"
    )]
    RowOutOfRange {
        /// The file.
        path: String,
        /// The tensor.
        name: String,
        /// The row asked for.
        row: u64,
        /// How many rows it has.
        rows: usize,
        /// Its shape.
        shape: String,
    },
    /// Sampling parameters the model rejects (its typed error).
    #[error("invalid sampling parameters: {0}")]
    Params(ParamError),
    /// A draw outside the vocabulary.
    #[error("{input}: {at} is token {token}, outside the vocabulary of {vocab} tokens")]
    TokenOutOfVocab {
        /// The input (file).
        input: String,
        /// Where in it (position or key).
        at: String,
        /// The offending value as written.
        token: String,
        /// The vocabulary size.
        vocab: usize,
    },
    /// A draws file that cannot be understood.
    #[error("{input}: {reason}")]
    Draws {
        /// The input (file).
        input: String,
        /// What is wrong.
        reason: String,
    },
    /// Inconsistent audit arguments.
    #[error("{0}")]
    Usage(String),
}

impl From<ParamError> for AuditError {
    fn from(e: ParamError) -> Self {
        AuditError::Params(e)
    }
}

impl AuditError {
    /// An I/O error on `path`.
    pub fn io(path: &std::path::Path, cause: std::io::Error) -> Self {
        AuditError::Io {
            path: path.display().to_string(),
            cause,
        }
    }
}

/// `[a, b, ...]`.
pub(crate) fn shape_str(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("[{}]", dims.join(", "))
}

/// At most 20 quoted names, then a count.
pub(crate) fn name_list<S: AsRef<str>>(names: &[S]) -> String {
    const SHOWN: usize = 20;
    if names.is_empty() {
        return "no tensors".to_owned();
    }
    let mut s = names
        .iter()
        .take(SHOWN)
        .map(|n| format!("{:?}", n.as_ref()))
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        s.push_str(&format!(", ... ({} more)", names.len() - SHOWN));
    }
    s
}
