//! Properties of the noise: Philox, the deterministic math, the profile laws
//! and bit-exactness of backends' noise. spec: NOISE.md, NUMERICS.md.

use crate::gen::splitmix;
use crate::{Ctx, Outcome, Sampler};
use tailrace_noise::profile::{self, exact, f32p, f64p, triton};
use tailrace_noise::{libdevice, math, NoiseProfile};

/// Random123 known-answer vectors, philox4x32 10.
pub const KAT: [([u32; 4], [u32; 2], [u32; 4]); 3] = tailrace_noise::philox::KNOWN_ANSWERS;

pub(super) fn philox_kat(_: &Ctx, b: &dyn Sampler) -> Outcome {
    let inputs: Vec<_> = KAT.iter().map(|k| (k.0, k.1)).collect();
    match b.philox(&inputs) {
        None => Outcome::not_verified("backend exposes no raw Philox evaluation"),
        Some(Err(e)) => Outcome::violated(format!("backend error: {e:#}")),
        Some(Ok(out)) => match KAT.iter().zip(&out).find(|(k, o)| k.2 != **o) {
            Some((k, o)) => Outcome::violated(format!(
                "ctr {:08x?} key {:08x?}: expected {:08x?}, got {o:08x?}",
                k.0, k.1, k.2
            )),
            None => Outcome::verified("3 Random123 known-answer vectors"),
        },
    }
}

pub(super) fn philox_oracle(ctx: &Ctx, b: &dyn Sampler) -> Outcome {
    let n = ctx.scale(1_000_000, 4_000_000, 16_000_000);
    let mut s = 0x5EED_0001u64;
    let inputs: Vec<([u32; 4], [u32; 2])> = (0..n)
        .map(|_| {
            let (a, c, k) = (splitmix(&mut s), splitmix(&mut s), splitmix(&mut s));
            (
                [a as u32, (a >> 32) as u32, c as u32, (c >> 32) as u32],
                [k as u32, (k >> 32) as u32],
            )
        })
        .collect();
    match b.philox(&inputs) {
        None => Outcome::not_verified("backend exposes no raw Philox evaluation"),
        Some(Err(e)) => Outcome::violated(format!("backend error: {e:#}")),
        Some(Ok(out)) => {
            for ((c, k), o) in inputs.iter().zip(&out) {
                let want = rand_philox::philox4x32_10(*c, *k);
                if want != *o {
                    return Outcome::violated(format!(
                        "ctr {c:08x?} key {k:08x?}: rand_philox {want:08x?}, backend {o:08x?}"
                    ));
                }
            }
            Outcome::verified(format!(
                "{n} random (counter, key) pairs equal the rand_philox crate"
            ))
        }
    }
}

fn golden_path(rel: &str) -> std::path::PathBuf {
    crate::repo_path(rel)
}

/// Captured Triton noise: (seed, position, index, word, uniform bits, noise bits).
/// One captured row: seed, position, index, word, uniform bits, noise bits.
type TritonCase = (u64, u64, u32, u32, u32, u32);

fn triton_cases() -> anyhow::Result<Vec<TritonCase>> {
    let path = golden_path("golden/triton/noise_cases.json");
    let text =
        std::fs::read_to_string(&path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let v: serde_json::Value = serde_json::from_str(&text)?;
    let columns: Vec<&str> = v
        .get("columns")
        .and_then(|c| c.as_array())
        .map(|c| c.iter().filter_map(|x| x.as_str()).collect())
        .unwrap_or_default();
    let want = [
        "seed",
        "position",
        "index",
        "word",
        "uniform_bits",
        "noise_bits",
    ];
    let col: Vec<usize> = want
        .iter()
        .map(|w| {
            columns
                .iter()
                .position(|c| c == w)
                .ok_or_else(|| anyhow::anyhow!("{}: no column {w}", path.display()))
        })
        .collect::<anyhow::Result<_>>()?;
    let rows = v
        .get("rows")
        .and_then(|c| c.as_array())
        .ok_or_else(|| anyhow::anyhow!("{}: no rows", path.display()))?;
    rows.iter()
        .map(|r| {
            let f = |k: usize| -> anyhow::Result<u64> {
                r.get(col[k])
                    .and_then(|x| x.as_u64())
                    .ok_or_else(|| anyhow::anyhow!("bad row {r}"))
            };
            Ok((
                f(0)?,
                f(1)?,
                f(2)? as u32,
                f(3)? as u32,
                f(4)? as u32,
                f(5)? as u32,
            ))
        })
        .collect()
}

pub(super) fn triton_noise_golden(_: &Ctx, b: &dyn Sampler) -> Outcome {
    let cases = match triton_cases() {
        Ok(c) if !c.is_empty() => c,
        Ok(_) => return Outcome::violated("golden/triton/noise_cases.json holds no cases"),
        Err(e) => return Outcome::violated(format!("cannot read the Triton capture: {e:#}")),
    };
    if b.name() == "cpu" {
        for &(s, p, i, w, u, e) in &cases {
            let (gw, gu) = (
                triton::word(s, p, i),
                triton::uniform(triton::word(s, p, i)),
            );
            let ge = triton::variate(gu);
            if (gw, gu.to_bits(), ge.to_bits()) != (w, u, e) {
                return Outcome::violated(format!(
                    "seed {s} position {p} index {i}: Triton word {w:#x} u {u:#x} noise {e:#x}, model {gw:#x} {:#x} {:#x}",
                    gu.to_bits(),
                    ge.to_bits()
                ));
            }
        }
        return Outcome::verified(format!(
            "{} triples captured from Triton: word, uniform and noise bits equal",
            cases.len()
        ));
    }
    let triples: Vec<_> = cases.iter().map(|c| (c.0, c.1, c.2)).collect();
    match b.noise_ln_bits(NoiseProfile::Triton, &triples) {
        None => Outcome::not_verified("backend exposes no noise dump"),
        Some(Err(e)) => Outcome::violated(format!("backend error: {e:#}")),
        Some(Ok(bits)) => {
            for (c, got) in cases.iter().zip(bits) {
                let want = math::ln(f64::from(f32::from_bits(c.5))).to_bits();
                if want != got {
                    return Outcome::violated(format!("seed {} position {} index {}: ln E from Triton {want:#x}, backend {got:#x}", c.0, c.1, c.2));
                }
            }
            Outcome::verified(format!("{} Triton triples: ln E bits equal", cases.len()))
        }
    }
}

pub(super) fn logf_libdevice(_: &Ctx, _: &dyn Sampler) -> Outcome {
    let path = golden_path("golden/triton/logf_samples.json");
    let parsed = std::fs::read_to_string(&path)
        .map_err(anyhow::Error::from)
        .and_then(|t| Ok(serde_json::from_str::<serde_json::Value>(&t)?));
    let v = match parsed {
        Ok(v) => v,
        Err(e) => return Outcome::violated(format!("cannot read {}: {e:#}", path.display())),
    };
    let list = |k: &str| -> Vec<u32> {
        v.get(k)
            .and_then(|a| a.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_u64())
                    .map(|x| x as u32)
                    .collect()
            })
            .unwrap_or_default()
    };
    let (inp, out) = (list("inputs"), list("outputs"));
    if inp.is_empty() || inp.len() != out.len() {
        return Outcome::violated(format!(
            "{}: inputs/outputs missing or of different lengths",
            path.display()
        ));
    }
    for (x, y) in inp.iter().zip(&out) {
        let got = libdevice::logf(f32::from_bits(*x)).to_bits();
        // NaN payloads may differ; any NaN matches any NaN.
        if got != *y && !(f32::from_bits(got).is_nan() && f32::from_bits(*y).is_nan()) {
            return Outcome::violated(format!("logf({x:#010x}): GPU {y:#010x}, model {got:#010x}"));
        }
    }
    Outcome::verified(format!(
        "{} float32 inputs: logf bits equal the GPU's tl.log",
        inp.len()
    ))
}

pub(super) fn math_accuracy(ctx: &Ctx, _: &dyn Sampler) -> Outcome {
    // The CI tests measure ulp error against a double-double reference; here
    // the platform's ln/exp (within 1 ulp of the truth) bound it from outside:
    // ours must stay within 2 ulp of them.
    let n = ctx.scale(2_000_000, 20_000_000, 100_000_000);
    let mut s = 0xACC0_0001u64;
    let ulps = |a: f64, b: f64| (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs();
    let mut worst = (0u64, 0.0f64, "");
    for _ in 0..n {
        let bits = splitmix(&mut s) & 0x7fef_ffff_ffff_ffff;
        let x = f64::from_bits(bits);
        if x > 0.0 {
            let d = ulps(math::ln(x), x.ln());
            if d > worst.0 {
                worst = (d, x, "ln");
            }
        }
        let y = -((splitmix(&mut s) >> 11) as f64) * (745.0 / (1u64 << 53) as f64);
        let d = ulps(math::exp_nonpositive(y), y.exp());
        if d > worst.0 && y.exp() > f64::MIN_POSITIVE {
            worst = (d, y, "exp");
        }
        let z = -((splitmix(&mut s) >> 11) as f64 * (1.0 / (1u64 << 53) as f64));
        let d = ulps(math::log1p(z), z.ln_1p());
        if d > worst.0 {
            worst = (d, z, "log1p");
        }
    }
    if worst.0 > 2 {
        Outcome::violated(format!(
            "{}({:e}) is {} ulp from the platform value",
            worst.2, worst.1, worst.0
        ))
    } else {
        Outcome::verified(format!(
            "{n} random inputs each for ln, log1p, exp: at most {} ulp from the platform functions",
            worst.0
        ))
    }
}

pub(super) fn math_monotone(ctx: &Ctx, _: &dyn Sampler) -> Outcome {
    let n = ctx.scale(2_000_000, 20_000_000, 100_000_000);
    let mut s = 0x0A0A_0001u64;
    for _ in 0..n {
        let x = f64::from_bits(splitmix(&mut s) & 0x7fef_ffff_ffff_ffff);
        let next = f64::from_bits(x.to_bits() + 1);
        if math::ln(next) < math::ln(x) {
            return Outcome::violated(format!("ln({next:e}) < ln({x:e})"));
        }
        // log1p on (-1, 1/2), the range the exact profile uses (it is not
        // monotone on [1/2, inf), nor is exp_nonpositive: NUMERICS.md §6.2).
        let z = -((splitmix(&mut s) >> 11) as f64 * (1.0 / (1u64 << 53) as f64));
        let z_up = f64::from_bits(z.to_bits() - 1); // next toward zero
        if z > -1.0 && z_up < 0.0 && math::log1p(z_up) < math::log1p(z) {
            return Outcome::violated(format!("log1p({z_up:e}) < log1p({z:e})"));
        }
        let k = (u128::from(splitmix(&mut s)) << 64) | u128::from(splitmix(&mut s));
        if k < u128::MAX && exact::variate(k + 1) < exact::variate(k) {
            return Outcome::violated(format!("exact E decreases at grid point {k:#x}"));
        }
    }
    Outcome::verified(format!(
        "{n} random neighbours: ln, exp and the exact-profile E are non-decreasing"
    ))
}

/// P(E < t) for the exact profile by counting grid points: the number of k
/// with variate(k) < t, divided by 2^128 (binary search: variate is monotone).
pub fn exact_cdf(t: f64) -> f64 {
    let (mut lo, mut hi) = (0u128, u128::MAX);
    if exact::variate(lo) >= t {
        return 0.0;
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if exact::variate(mid) < t {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo as f64 + 1.0) * 2f64.powi(-128)
}

pub(super) fn noise_law_exact(_: &Ctx, _: &dyn Sampler) -> Outcome {
    // The law lives on a grid of 2^128 points: at t the count is an integer
    // near 2^128 (1 - e^-t), so one grid point (relative 1 / count) is the
    // granularity on top of the 1e-12 tolerance.
    let mut worst = (0.0f64, 0.0f64);
    for t in [
        1e-30, 1e-25, 1e-20, 1e-15, 1e-10, 1e-6, 1e-3, 0.1, 0.5, 1.0, 2.0, 5.0,
    ] {
        let p = exact_cdf(t);
        let want = -(-t).exp_m1();
        let grid = 2f64.powi(-128) / want;
        let rel = ((p - want) / want).abs() / (1e-12 + grid) * 1e-12;
        if rel > worst.0 {
            worst = (rel, t);
        }
    }
    if worst.0 > 1e-12 {
        Outcome::violated(format!(
            "P(E < {:e}) off by relative {:e}",
            worst.1, worst.0
        ))
    } else {
        Outcome::verified(format!(
            "P(E < t) by exact grid counting matches 1 - e^-t for t from 1e-30 to 5 within 1e-12 relative plus one grid point (worst scaled error {:.1e})",
            worst.0
        ))
    }
}

pub(super) fn noise_law_caps(_: &Ctx, _: &dyn Sampler) -> Outcome {
    // Each profile's noise lies in [E_min, E_max]: a token more than
    // ln(E_max / E_min) nats below the top can never win, and tokens more than
    // -ln(E_min) nats down already lose most of their rate.
    let range = |lo: f64, hi: f64| (-lo.ln(), (hi / lo).ln());
    let caps = [
        ("exact", range(exact::variate(0), exact::variate(u128::MAX))),
        (
            "f64",
            range(
                f64p::variate(f64p::uniform([u32::MAX; 2])),
                f64p::variate(f64p::uniform([0, 0])),
            ),
        ),
        (
            "f32",
            range(
                f64::from(f32p::variate(f32p::uniform(u32::MAX))),
                f64::from(f32p::variate(f32p::uniform(0))),
            ),
        ),
        (
            "triton",
            range(
                f64::from(triton::variate(triton::uniform(0x7fff_ffff))),
                f64::from(triton::variate(triton::uniform(0))),
            ),
        ),
    ];
    let near = |x: f64, want: f64| (x - want).abs() < 0.05;
    let ok = caps[0].1 .0 > 88.0
        && near(caps[1].1 .0, 36.74)
        && near(caps[2].1 .0, 16.64)
        && near(caps[3].1 .0, 16.64);
    let text = caps
        .iter()
        .map(|(n, (d, r))| format!("{n}: -ln E_min {d:.2}, ln(E_max/E_min) {r:.2} nats"))
        .collect::<Vec<_>>()
        .join("; ");
    if ok {
        Outcome::verified(text)
    } else {
        Outcome::violated(format!("unexpected caps: {text}"))
    }
}

pub(super) fn noise_bit_exact(ctx: &Ctx, b: &dyn Sampler) -> Outcome {
    let n = ctx.scale(4096, 65536, 1 << 20);
    let mut s = 0xB17E_0001u64;
    let specials = [0u64, 1, (1 << 32) - 1, 1 << 32, (1 << 63) - 1, u64::MAX];
    let triples: Vec<(u64, u64, u32)> = (0..n)
        .map(|j| {
            let seed = if j % 7 == 0 {
                specials[j % specials.len()]
            } else {
                splitmix(&mut s)
            };
            let pos = if j % 5 == 0 {
                specials[(j / 5) % specials.len()]
            } else {
                splitmix(&mut s)
            };
            let idx = if j % 3 == 0 {
                (j as u32) & 0xff
            } else {
                (splitmix(&mut s) >> 33) as u32
            };
            (seed, pos, idx)
        })
        .collect();
    let mut checked = 0;
    for p in NoiseProfile::ALL {
        match b.noise_ln_bits(p, &triples) {
            None => return Outcome::not_verified("backend exposes no noise dump"),
            Some(Err(e)) => return Outcome::violated(format!("backend error: {e:#}")),
            Some(Ok(bits)) => {
                for (t, got) in triples.iter().zip(bits) {
                    let want = profile::ln_variate(p, t.0, t.1, t.2).to_bits();
                    if want != got {
                        return Outcome::violated(format!(
                            "{p} seed {} position {} index {}: model {want:#x}, backend {got:#x}",
                            t.0, t.1, t.2
                        ));
                    }
                }
                checked += triples.len();
            }
        }
    }
    Outcome::verified(format!(
        "{checked} (profile, seed, position, index) noise values bit-equal to the CPU model"
    ))
}
