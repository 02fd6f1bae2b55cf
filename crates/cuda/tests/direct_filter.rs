//! The word filter of the direct race (`tr_race_direct_words` in
//! `kernels/sample.cu`; `tr_direct_dist`, `tr_direct_limit` and `tr_direct_y`
//! in `kernels/noise.cuh`), compiled for the host. The race skips an element
//! whose word's distance lies above the limit, so the limit must let through
//! every element whose lower bound of ln E (`profile::ln_variate_lower_bound`,
//! the model's own function) lies below y, and `tr_direct_y` must not fall
//! below (a - bs) / T. A limit too high only costs time; the test also holds
//! it to within a factor of two of the least one.

use std::path::PathBuf;
use std::process::Command;

use tailrace_noise::profile::ln_variate_lower_bound;
use tailrace_noise::NoiseProfile;

#[path = "support/host_cpp.rs"]
mod host_cpp;

const PROFILES: [NoiseProfile; 3] = [NoiseProfile::F64, NoiseProfile::F32, NoiseProfile::Triton];
const F32_MAX_DIST: u32 = 0xFFFF_FF00;
const TRITON_MAX_DIST: u32 = 2 * ((1 << 31) - 256);

/// The profile's floor of the bound: no element's bound lies below it.
fn floor(p: NoiseProfile) -> f64 {
    if p == NoiseProfile::F64 {
        -36.8
    } else {
        -16.7
    }
}

/// A word whose distance is `d` under `p`, or None where no word has it
/// (the inverse of `tr_direct_dist`, which the test checks separately).
fn word_of(p: NoiseProfile, d: u32) -> Option<u32> {
    match p {
        NoiseProfile::F64 => Some(!d),
        NoiseProfile::F32 => match d {
            0 => Some(F32_MAX_DIST),
            d if d <= F32_MAX_DIST => Some(F32_MAX_DIST - d),
            _ => None,
        },
        _ => match d {
            0 => Some((1 << 31) - 256),
            d if d % 2 == 0 && d <= TRITON_MAX_DIST => Some((1 << 31) - 256 - d / 2),
            _ => None,
        },
    }
}

fn lb(p: NoiseProfile, d: u32) -> Option<f64> {
    word_of(p, d).map(|w| ln_variate_lower_bound(p, w))
}

/// The smallest distance above `d` that some word has.
fn next_dist(p: NoiseProfile, d: u32) -> Option<u32> {
    let n = d.checked_add(1)?;
    match p {
        NoiseProfile::F64 => Some(n),
        NoiseProfile::F32 => (n <= F32_MAX_DIST).then_some(n),
        _ => {
            let n = if n % 2 == 0 { n } else { n.checked_add(1)? };
            (n <= TRITON_MAX_DIST).then_some(n)
        }
    }
}

/// The least binary64 above a finite `y`.
fn next_up(y: f64) -> f64 {
    if y == 0.0 {
        f64::from_bits(1)
    } else if y > 0.0 {
        f64::from_bits(y.to_bits() + 1)
    } else {
        f64::from_bits(y.to_bits() - 1)
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// The harness built as the program `name` (each test its own file).
fn program(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let noise = std::fs::read_to_string(dir.join("kernels/noise.cuh")).unwrap();
    let common = std::fs::read_to_string(dir.join("kernels/common.cuh")).unwrap();
    let here = dir.join("tests/direct_filter");
    let mut cpp = std::fs::read_to_string(here.join("harness.cpp")).unwrap();
    cpp.push_str(&tailrace_cuda::kernels::prelude());
    cpp.push_str(host_cpp::section(
        &noise,
        "noise.cuh",
        "#define TR_PROFILE_EXACT",
        "// ---- exact",
    ));
    cpp.push_str(host_cpp::section(
        &common,
        "common.cuh",
        "// 2^n as binary64",
        "// ---- Philox",
    ));
    cpp.push_str(host_cpp::section(
        &noise,
        "noise.cuh",
        "// ---- the direct race's word filter",
        "// ln E of one element under any profile",
    ));
    cpp.push_str(&std::fs::read_to_string(here.join("main.cpp")).unwrap());
    host_cpp::build(name, &cpp, &["-O2", "-std=gnu++17", "-Wall"])
}

/// Runs the program's `mode` on `input`, returning its output file's bytes.
fn run(exe: &PathBuf, mode: &str, input: &[u8]) -> Vec<u8> {
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let (inp, out) = (
        tmp.join(format!("direct_filter_{mode}.in")),
        tmp.join(format!("direct_filter_{mode}.out")),
    );
    std::fs::write(&inp, input).unwrap();
    let st = Command::new(exe)
        .arg(mode)
        .arg(&inp)
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success(), "{mode}: the program failed");
    std::fs::read(&out).unwrap()
}

fn u32s(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn direct_filter_never_drops_a_candidate() {
    let exe = program("direct_filter");

    // The distances: every word near the profiles' edges, and random ones.
    let mut words: Vec<u32> = Vec::new();
    for c in [
        0u32,
        0x7FFF_FF00,
        0x8000_0000,
        0xFFFF_FF00,
        0xFFFF_FFFF,
        1 << 16,
        1 << 24,
    ] {
        for k in 0..600u32 {
            words.push(c.wrapping_add(k).wrapping_sub(300));
        }
    }
    let mut r = Rng(0x5EED_D1EC);
    words.extend((0..1_000_000).map(|_| r.next() as u32));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let dists = u32s(&run(&exe, "dist", &bytes));
    assert_eq!(dists.len(), 3 * words.len());
    for (j, &w) in words.iter().enumerate() {
        for (k, &p) in PROFILES.iter().enumerate() {
            let d = dists[3 * j + k];
            let want = ln_variate_lower_bound(p, w);
            let got = lb(p, d)
                .unwrap_or_else(|| panic!("{p:?} word {w:#x}: distance {d:#x} has no word"));
            assert_eq!(
                got.to_bits(),
                want.to_bits(),
                "{p:?} word {w:#x} distance {d:#x}"
            );
        }
    }

    // The values of y: each profile's bounds at random distances (uniform and
    // spread over the octaves) and their neighbours, values between, the
    // floors' neighbours, NaN and infinity.
    let mut ys: Vec<f64> = vec![f64::NAN, f64::INFINITY, 0.0, -0.0, 1e300];
    for p in PROFILES {
        let f = floor(p);
        ys.extend([f64::from_bits(f.to_bits() - 1), f + 1e-9, f + 1e-3]);
        for n in 0..120_000u32 {
            let d = if n % 2 == 0 {
                r.next() as u32
            } else {
                (r.next() as u32) >> (r.next() % 32)
            };
            let Some(y) = lb(p, d).or_else(|| lb(p, d & !1)) else {
                continue;
            };
            ys.extend([y, next_up(y), y + 1e-12, y - 1e-12, y + 1e-9]);
        }
    }
    for _ in 0..300_000 {
        ys.push(-40.0 + 80.0 * r.unit());
    }
    let bytes: Vec<u8> = ys.iter().flat_map(|y| y.to_le_bytes()).collect();
    let lims = u32s(&run(&exe, "limit", &bytes));
    assert_eq!(lims.len(), 3 * ys.len());
    let mut checked = [0usize; 3];
    for (j, &y) in ys.iter().enumerate() {
        for (k, &p) in PROFILES.iter().enumerate() {
            let lim = lims[3 * j + k];
            if y.is_nan() {
                assert_eq!(lim, u32::MAX, "{p:?}: NaN must let every element through");
                continue;
            }
            if y <= floor(p) {
                continue; // the race skips the unit before it asks for a limit
            }
            checked[k] += 1;
            // LB is non-decreasing in the distance (NOISE.md §4.4), so the
            // next distance above the limit is the one to check.
            if let Some(d) = next_dist(p, lim) {
                let b = lb(p, d).unwrap();
                assert!(b >= y, "{p:?} y {y:e} ({:#x}): limit {lim:#x}, but distance {d:#x} has bound {b:e} < y", y.to_bits());
            }
            // Not vacuous: half the limit still has a bound below y.
            if lim >= 8 && lim != u32::MAX {
                let h = (lim / 2) & !1;
                if let Some(b) = lb(p, h) {
                    assert!(b < y, "{p:?} y {y:e}: limit {lim:#x} more than twice the least (bound {b:e} at {h:#x})");
                }
            }
        }
    }
    println!(
        "{} words' distances; limits checked for {checked:?} values of y (f64, f32, triton)",
        words.len()
    );
    assert!(checked.iter().all(|&c| c > 500_000));
}

#[test]
fn direct_y_is_an_upper_bound_of_the_quotient() {
    let exe = program("direct_filter_y");
    let out = Command::new(&exe).arg("y").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    println!("{text}");
    assert!(out.status.success(), "{text}");
}
