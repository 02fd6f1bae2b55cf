//! Logits rows from a safetensors file: read once, rows decoded on demand.

use crate::error::{name_list, shape_str, AuditError};
use half::{bf16, f16};
use safetensors::{Dtype, SafeTensors};
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;
use tailrace_model::MAX_VOCAB;

/// One tensor of a logits file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorInfo {
    /// Its dtype as safetensors names it.
    pub dtype: String,
    /// Its shape.
    pub shape: Vec<usize>,
    bytes: Range<usize>,
}

/// A safetensors file of logits, held in memory.
#[derive(Debug)]
pub struct LogitsFile {
    path: String,
    bytes: Vec<u8>,
    tensors: BTreeMap<String, TensorInfo>,
}

/// One logits row, converted exactly to binary32 (bf16 and f16 widen
/// exactly, so the model sees the same `a_i` as from the stored type).
#[derive(Debug, Clone, PartialEq)]
pub struct LogitsRow {
    /// The tensor it came from.
    pub tensor: String,
    /// Its row index.
    pub row: u64,
    /// The values.
    pub values: Vec<f32>,
}

impl LogitsFile {
    /// Reads and indexes `path`.
    pub fn open(path: &Path) -> Result<Self, AuditError> {
        let bytes = std::fs::read(path).map_err(|e| AuditError::io(path, e))?;
        Self::from_bytes(path.display().to_string(), bytes)
    }

    /// Indexes an in-memory safetensors buffer; `name` is used in messages.
    pub fn from_bytes(name: String, bytes: Vec<u8>) -> Result<Self, AuditError> {
        let st = SafeTensors::deserialize(&bytes).map_err(|e| AuditError::Safetensors {
            path: name.clone(),
            reason: e.to_string(),
        })?;
        let tensors = st
            .iter()
            .map(|(n, v)| {
                // The view borrows `bytes`: its offset in the buffer.
                let start = v.data().as_ptr() as usize - bytes.as_ptr() as usize;
                let info = TensorInfo {
                    dtype: v.dtype().to_string(),
                    shape: v.shape().to_vec(),
                    bytes: start..start + v.data().len(),
                };
                (n.to_owned(), info)
            })
            .collect();
        Ok(LogitsFile {
            path: name,
            bytes,
            tensors,
        })
    }

    /// The file's name as used in messages.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The tensors, by name.
    pub fn tensors(&self) -> &BTreeMap<String, TensorInfo> {
        &self.tensors
    }

    fn names(&self) -> Vec<&str> {
        self.tensors.keys().map(String::as_str).collect()
    }

    /// The tensor `name`, or the only tensor when `name` is None.
    pub fn tensor(&self, name: Option<&str>) -> Result<(&str, &TensorInfo), AuditError> {
        match name {
            Some(n) => self
                .tensors
                .get_key_value(n)
                .map(|(k, v)| (k.as_str(), v))
                .ok_or_else(|| AuditError::TensorNotFound {
                    path: self.path.clone(),
                    name: n.to_owned(),
                    available: name_list(&self.names()),
                }),
            None if self.tensors.len() == 1 => {
                let (k, v) = self.tensors.iter().next().expect("one tensor");
                Ok((k.as_str(), v))
            }
            None => Err(AuditError::TensorNotNamed {
                path: self.path.clone(),
                count: self.tensors.len(),
                available: name_list(&self.names()),
            }),
        }
    }

    /// `(rows, vocab)` of a logits tensor, checking dtype and shape.
    pub fn dims(&self, name: Option<&str>) -> Result<(usize, usize), AuditError> {
        let (n, info) = self.tensor(name)?;
        self.check(n, info).map(|(rows, vocab, _)| (rows, vocab))
    }

    fn check(&self, name: &str, info: &TensorInfo) -> Result<(usize, usize, Dtype), AuditError> {
        let dtype = match info.dtype.as_str() {
            "BF16" => Dtype::BF16,
            "F16" => Dtype::F16,
            "F32" => Dtype::F32,
            _ => {
                return Err(AuditError::Dtype {
                    path: self.path.clone(),
                    name: name.to_owned(),
                    dtype: info.dtype.clone(),
                })
            }
        };
        let (rows, vocab) = match *info.shape.as_slice() {
            [v] => (1, v),
            [n, v] => (n, v),
            _ => (0, 0),
        };
        if vocab == 0 || vocab > MAX_VOCAB {
            return Err(AuditError::Shape {
                path: self.path.clone(),
                name: name.to_owned(),
                shape: shape_str(&info.shape),
            });
        }
        Ok((rows, vocab, dtype))
    }

    /// Row `row` of tensor `name` (the only tensor when None), as binary32.
    pub fn row(&self, name: Option<&str>, row: u64) -> Result<LogitsRow, AuditError> {
        let (n, info) = self.tensor(name)?;
        let (rows, vocab, dtype) = self.check(n, info)?;
        if row >= rows as u64 {
            return Err(AuditError::RowOutOfRange {
                path: self.path.clone(),
                name: n.to_owned(),
                row,
                rows,
                shape: shape_str(&info.shape),
            });
        }
        let elem = if dtype == Dtype::F32 { 4 } else { 2 };
        let start = info.bytes.start + row as usize * vocab * elem;
        let raw = &self.bytes[start..start + vocab * elem];
        let values = match dtype {
            Dtype::F32 => raw
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
            Dtype::BF16 => raw
                .chunks_exact(2)
                .map(|c| bf16::from_le_bytes([c[0], c[1]]).to_f32())
                .collect(),
            _ => raw
                .chunks_exact(2)
                .map(|c| f16::from_le_bytes([c[0], c[1]]).to_f32())
                .collect(),
        };
        Ok(LogitsRow {
            tensor: n.to_owned(),
            row,
            values,
        })
    }
}
