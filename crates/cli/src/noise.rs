//! `tailrace noise`: one element's noise, every intermediate shown.
//! spec: NOISE.md §2-§6.

use crate::error::CliError;
use crate::{parse, Format};
use clap::Args;
use serde_json::{json, Value};
use std::fmt::Write;
use tailrace_noise::profile::PhiloxCall;
use tailrace_noise::{NoiseDraw, NoiseProfile};

/// Arguments of `tailrace noise`.
#[derive(Debug, Args)]
pub struct NoiseArgs {
    /// Noise profile: exact, f64, f32 or triton.
    #[arg(long, value_parser = parse::profile, default_value = "exact")]
    profile: NoiseProfile,
    /// Request seed (decimal or 0x-hex).
    #[arg(long, value_parser = parse::u64_dec_or_hex)]
    seed: u64,
    /// Absolute position (decimal or 0x-hex).
    #[arg(long, value_parser = parse::u64_dec_or_hex)]
    position: u64,
    /// Vocabulary index (decimal or 0x-hex, < 2^31).
    #[arg(long, value_parser = parse::vocab_index)]
    index: u32,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// Whether the profile's uniform and noise are binary32 values.
fn is_f32(p: NoiseProfile) -> bool {
    matches!(p, NoiseProfile::F32 | NoiseProfile::Triton)
}

fn hex32(w: u32) -> String {
    format!("{w:#010x}")
}

fn hex64(w: u64) -> String {
    format!("{w:#018x}")
}

/// The IEEE bits of a value the profile holds as binary32 or binary64.
fn bits(f32_value: Option<f32>, f64_value: f64) -> String {
    match f32_value {
        Some(v) => hex32(v.to_bits()),
        None => hex64(f64_value.to_bits()),
    }
}

fn words(ws: &[u32]) -> Vec<String> {
    ws.iter().map(|&w| hex32(w)).collect()
}

fn philox_json(c: &PhiloxCall) -> Value {
    json!({
        "counter": words(&c.counter),
        "key": words(&c.key),
        "output": words(&c.output),
        "used": c.used.iter().map(|u| json!({"word": u.word, "shift": u.shift, "width": u.width})).collect::<Vec<_>>(),
    })
}

/// The JSON object of a draw.
pub fn to_json(d: &NoiseDraw) -> Value {
    let mut v = json!({
        "profile": d.profile.name(),
        "seed": d.seed,
        "position": d.position,
        "index": d.index,
        "philox": d.philox.iter().map(philox_json).collect::<Vec<_>>(),
        "uniform": d.uniform,
        "uniform_bits": bits(d.uniform_f32, d.uniform),
        "noise": d.noise,
        "noise_bits": bits(d.noise_f32, d.noise),
        "ln_noise": d.ln_noise,
        "ln_noise_bits": hex64(d.ln_noise.to_bits()),
        "bits_type": if is_f32(d.profile) { "f32" } else { "f64" },
    });
    if let (Some(k), Some(obj)) = (d.grid_point, v.as_object_mut()) {
        obj.insert("grid_point".to_owned(), Value::from(format!("{k:#034x}")));
    }
    if let (Some(h), Some(obj)) = (d.lead, v.as_object_mut()) {
        obj.insert("lead".to_owned(), Value::from(format!("{h:#06x}")));
    }
    v
}

/// The text report of a draw.
pub fn to_text(d: &NoiseDraw) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "profile   {}", d.profile);
    let _ = writeln!(s, "seed      {} ({})", d.seed, hex64(d.seed));
    let _ = writeln!(s, "position  {} ({})", d.position, hex64(d.position));
    let _ = writeln!(s, "index     {} ({})", d.index, hex32(d.index));
    for (n, c) in d.philox.iter().enumerate() {
        let _ = writeln!(
            s,
            "philox #{}  counter [{}]  key [{}]",
            n + 1,
            words(&c.counter).join(", "),
            words(&c.key).join(", ")
        );
        let used: Vec<String> = c.used.iter().map(|u| u.to_string()).collect();
        let _ = writeln!(
            s,
            "           output  [{}]  used {}",
            words(&c.output).join(", "),
            used.join(", ")
        );
    }
    if let Some(h) = d.lead {
        let _ = writeln!(s, "lead      {h:#06x}  (the grid point's top 16 bits)");
    }
    if let Some(k) = d.grid_point {
        let _ = writeln!(s, "grid point {k:#034x}  (uniform = (k + 1/2) / 2^128)");
    }
    match (d.uniform_f32, d.noise_f32) {
        (Some(u), Some(e)) => {
            let _ = writeln!(s, "uniform   {u:?}  (f32 bits {})", hex32(u.to_bits()));
            let _ = writeln!(s, "E         {e:?}  (f32 bits {})", hex32(e.to_bits()));
        }
        _ => {
            let _ = writeln!(
                s,
                "uniform   {:?}  (f64 bits {})",
                d.uniform,
                hex64(d.uniform.to_bits())
            );
            let _ = writeln!(
                s,
                "E         {:?}  (f64 bits {})",
                d.noise,
                hex64(d.noise.to_bits())
            );
        }
    }
    let _ = writeln!(
        s,
        "ln E      {:?}  (f64 bits {})",
        d.ln_noise,
        hex64(d.ln_noise.to_bits())
    );
    s
}

/// Runs `tailrace noise`.
pub fn run(a: &NoiseArgs) -> Result<String, CliError> {
    let d = NoiseDraw::new(a.profile, a.seed, a.position, a.index);
    Ok(match a.format {
        Format::Text => to_text(&d),
        Format::Json => format!("{}\n", to_json(&d)),
    })
}
