//! Compares a Triton noise dump (`golden/triton/capture.py`, file `triton_1m.bin`)
//! with the crate's `triton` profile, triple by triple.
//!
//! ```text
//! cargo run --release -p tailrace-noise --example compare_triton_dump [-- PATH]
//! ```
//!
//! PATH defaults to `golden/triton/dumps/triton_1m.bin` (not committed: it is 12 MiB;
//! re-create it with capture.py on a CUDA machine). The file is raw little-endian
//! u32 triples `(word, uniform bits, noise bits)` for j = 0 .. n-1, where the
//! (seed, position, index) of row j is recomputed here (`triple`), exactly as
//! `golden/triton/tref.py::dump_triples` defines it.
//!
//! Exit status: 0 when every triple matches, 1 otherwise.

use std::process::ExitCode;
use tailrace_noise::profile::triton;

/// splitmix64 finaliser of `x + 0x9E3779B97F4A7C15`.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The (seed, position, index) of dump row `j`.
fn triple(j: u64) -> (u64, u64, u32) {
    let seed = splitmix64(j);
    let r = splitmix64(j ^ 0xD1B5_4A32_D192_ED03);
    let lo = r & 0xFFFF_FFFF;
    let position = match j & 3 {
        0 => r,
        1 => lo,
        2 => lo | (1 << 32),
        _ => r & 0xF_FFFF,
    };
    let index = (j.wrapping_mul(2_654_435_761) & 0x7FFF_FFFF) as u32;
    (seed, position, index)
}

fn main() -> ExitCode {
    let path = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../golden/triton/dumps/triton_1m.bin")
        });
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("cannot read {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    };
    if bytes.len() % 12 != 0 {
        eprintln!(
            "{}: {} bytes is not a whole number of 12-byte rows",
            path.display(),
            bytes.len()
        );
        return ExitCode::FAILURE;
    }
    let n = bytes.len() / 12;
    let word_at = |k: usize| u32::from_le_bytes(bytes[4 * k..4 * k + 4].try_into().unwrap());

    let (mut bad_word, mut bad_uniform, mut bad_noise, mut bad_logf_only) =
        (0usize, 0usize, 0usize, 0usize);
    let mut bad_rows = 0usize;
    let mut shown = 0usize;
    let mut positions_high = 0usize;
    let mut clamped = 0usize;
    for j in 0..n {
        let (seed, position, index) = triple(j as u64);
        positions_high += usize::from(position >> 32 != 0);
        let (tw, tu, te) = (word_at(3 * j), word_at(3 * j + 1), word_at(3 * j + 2));
        let w = triton::word(seed, position, index);
        let u = triton::uniform(w);
        let e = triton::variate(u);
        clamped += usize::from(tu == 0);
        // The noise recomputed from Triton's own uniform isolates logf.
        let e_from_tu = triton::variate(f32::from_bits(tu)).to_bits();
        let (ok_w, ok_u, ok_e) = (w == tw, u.to_bits() == tu, e.to_bits() == te);
        bad_word += usize::from(!ok_w);
        bad_uniform += usize::from(!ok_u);
        bad_noise += usize::from(!ok_e);
        bad_logf_only += usize::from(e_from_tu != te);
        if !(ok_w && ok_u && ok_e) {
            bad_rows += 1;
            if shown < 10 {
                shown += 1;
                println!(
                    "row {j}: seed {seed} position {position} index {index}: \
                     word {w:08x} / triton {tw:08x}, uniform {:08x} / {tu:08x} ({}), \
                     noise {:08x} / {te:08x} ({} vs {})",
                    u.to_bits(),
                    f32::from_bits(tu),
                    e.to_bits(),
                    e,
                    f32::from_bits(te)
                );
            }
        }
    }
    println!(
        "{}: {n} triples ({positions_high} with position >= 2^32, {clamped} with u = 0)",
        path.display()
    );
    println!(
        "mismatches: word {bad_word}, uniform {bad_uniform}, noise {bad_noise} \
         (noise from Triton's own uniform: {bad_logf_only}); rows with any mismatch: {bad_rows}"
    );
    if bad_rows == 0 {
        println!("all {n} triples match bit for bit");
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
