//! Value parsers for the command line (clap `value_parser` functions).

use std::ops::Range;
use tailrace_noise::NoiseProfile;

/// The largest vocabulary index plus one (indices fit in 31 bits). spec: SAMPLER.md §1.
pub const INDEX_LIMIT: u64 = 1 << 31;

/// The most draws one `--positions` range may ask for.
pub const MAX_DRAWS: u64 = 100_000_000;

/// A u64 written in decimal or as `0x` hex.
pub fn u64_dec_or_hex(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse::<u64>(),
    };
    parsed.map_err(|e| format!("{s:?} is not an unsigned 64-bit integer (decimal or 0x-hex): {e}"))
}

/// A vocabulary index: decimal or `0x` hex, below 2^31.
pub fn vocab_index(s: &str) -> Result<u32, String> {
    let v = u64_dec_or_hex(s)?;
    if v >= INDEX_LIMIT {
        return Err(format!(
            "index {v} is out of range: vocabulary indices must be < 2^31 = {INDEX_LIMIT}"
        ));
    }
    u32::try_from(v).map_err(|e| e.to_string())
}

/// A noise profile name.
pub fn profile(s: &str) -> Result<NoiseProfile, String> {
    s.parse::<NoiseProfile>().map_err(|e| e.to_string())
}

/// A half-open position range `A..B` with `A < B` and at most [`MAX_DRAWS`] positions.
pub fn positions(s: &str) -> Result<Range<u64>, String> {
    let (a, b) = s
        .split_once("..")
        .ok_or_else(|| format!("{s:?} is not a position range: expected A..B (half-open)"))?;
    let (a, b) = (u64_dec_or_hex(a)?, u64_dec_or_hex(b)?);
    if a >= b {
        return Err(format!("position range {a}..{b} is empty: need A < B"));
    }
    if b - a > MAX_DRAWS {
        return Err(format!(
            "position range {a}..{b} holds {} positions: at most {MAX_DRAWS} draws",
            b - a
        ));
    }
    Ok(a..b)
}

/// A sparse logit bias `I:V,I:V,...` (`V` may be `-inf`; validity against the
/// vocabulary is checked by `LogitBias::validate`).
#[derive(Debug, Clone, PartialEq)]
pub struct SparseBias(pub Vec<(u32, f32)>);

/// Parses `I:V,...`.
pub fn sparse_bias(s: &str) -> Result<SparseBias, String> {
    let mut entries = Vec::new();
    for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let (i, v) = item
            .split_once(':')
            .ok_or_else(|| format!("bias entry {item:?} is not INDEX:VALUE"))?;
        let index = u64_dec_or_hex(i)?;
        let index = u32::try_from(index)
            .map_err(|_| format!("bias index {index} is out of range for a 32-bit index"))?;
        let value = v
            .trim()
            .parse::<f32>()
            .map_err(|e| format!("bias value {v:?} at index {index} is not a number: {e}"))?;
        entries.push((index, value));
    }
    if entries.is_empty() {
        return Err("empty logit bias: expected INDEX:VALUE[,INDEX:VALUE...]".to_owned());
    }
    Ok(SparseBias(entries))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers() {
        assert_eq!(u64_dec_or_hex("42"), Ok(42));
        assert_eq!(u64_dec_or_hex("0x2A"), Ok(42));
        assert_eq!(u64_dec_or_hex("0xffffffffffffffff"), Ok(u64::MAX));
        assert!(u64_dec_or_hex("-1").is_err());
        assert!(u64_dec_or_hex("0x").is_err());
        assert_eq!(vocab_index("0x7fffffff"), Ok(0x7fff_ffff));
        assert!(vocab_index("2147483648").is_err());
    }

    #[test]
    fn ranges_and_bias() {
        assert_eq!(positions("3..0x10"), Ok(3..16));
        assert!(positions("5..5").is_err());
        assert!(positions("0..100000001").is_err());
        assert_eq!(
            sparse_bias("5:-inf, 7:1.5"),
            Ok(SparseBias(vec![(5, f32::NEG_INFINITY), (7, 1.5)]))
        );
        assert!(sparse_bias("5").is_err());
        assert!(sparse_bias("4294967296:1").is_err());
    }
}
