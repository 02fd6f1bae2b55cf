//! Golden draws: seeded draws of the golden case table equal the committed
//! snapshot `golden/draws/draws.snap` (written by the model's CI test) on
//! every backend. The snapshot describes each case completely; the logits are
//! regenerated here from the documented SplitMix64 formula and checked
//! against the snapshot's `logits_head` before use.

use crate::gen::splitmix;
use crate::{BatchInput, Ctx, Geometry, Logits, Outcome, Sampler};
use serde_json::Value;
use tailrace_model::{LogitBias, RawParams, RowRequest, SamplingParams};

fn stream(seed: u64, n: usize, scale: f32) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| ((splitmix(&mut s) >> 40) as f32 * f32::from_bits((127 - 24) << 23) - 0.5) * scale)
        .collect()
}

/// One case of the snapshot, rebuilt as a batch of its consecutive positions,
/// with the expected tokens.
fn rebuild(case: &Value) -> Result<(String, BatchInput, Vec<u32>), String> {
    let name = case["name"].as_str().unwrap_or("?").to_string();
    let err = |what: &str| format!("case {name:?}: bad or missing {what}");
    let u = |k: &str| case[k].as_u64().ok_or_else(|| err(k));
    let f = |k: &str| case[k].as_f64().ok_or_else(|| err(k));
    let vocab = u("vocab")? as usize;
    let seed_l = u("logit_seed")?;
    let spread = f("spread")? as f32;
    let dtype = match case["dtype"].as_str() {
        Some("F32") => "f32",
        Some("Bf16") => "bf16",
        Some("F16") => "f16",
        _ => return Err(err("dtype")),
    };
    let x = stream(seed_l, vocab, spread);
    let logits = Logits::from_f32(dtype, &x);
    // Compared as binary32: the snapshot prints widened binary32 values.
    let head: Vec<f32> = case["logits_head"]
        .as_array()
        .ok_or_else(|| err("logits_head"))?
        .iter()
        .filter_map(Value::as_f64)
        .map(|v| v as f32)
        .collect();
    let ours: Vec<f32> = match &logits {
        Logits::F32(v) => v.iter().take(head.len()).copied().collect(),
        Logits::Bf16(v) => v.iter().take(head.len()).map(|y| y.to_f32()).collect(),
        Logits::F16(v) => v.iter().take(head.len()).map(|y| y.to_f32()).collect(),
    };
    if ours != head {
        return Err(format!(
            "case {name:?}: regenerated logits {ours:?} differ from the snapshot's {head:?}"
        ));
    }
    let bias = match &case["bias"] {
        Value::Null => LogitBias::None,
        Value::Object(o) => {
            let scale = o
                .get("dense_scale")
                .and_then(Value::as_f64)
                .ok_or_else(|| err("bias"))? as f32;
            LogitBias::Dense(stream(seed_l ^ 0xB1A5, vocab, scale))
        }
        Value::Array(pairs) => LogitBias::Sparse(
            pairs
                .iter()
                .map(|p| {
                    let i = p[0].as_u64().ok_or_else(|| err("bias index"))? as u32;
                    let v = match &p[1] {
                        Value::String(s) if s == "-inf" => f32::NEG_INFINITY,
                        v => v.as_f64().ok_or_else(|| err("bias value"))? as f32,
                    };
                    Ok((i, v))
                })
                .collect::<Result<_, String>>()?,
        ),
        _ => return Err(err("bias")),
    };
    let profile = case["profile"]
        .as_str()
        .and_then(|p| p.parse().ok())
        .ok_or_else(|| err("profile"))?;
    let tokens: Vec<u32> = case["tokens"]
        .as_array()
        .ok_or_else(|| err("tokens"))?
        .iter()
        .filter_map(|t| t.as_u64().map(|t| t as u32))
        .collect();
    let first = u("position")?;
    let raw = RawParams {
        temperature: f("temperature")?,
        top_k: u("top_k")? as u32,
        top_p: f("top_p")?,
        min_p: f("min_p")?,
        seed: u("seed")?,
        position: first,
        profile,
    };
    let params = SamplingParams::new(raw).map_err(|e| format!("case {name:?}: {e}"))?;
    let rows = (0..tokens.len() as u64)
        .map(|k| RowRequest {
            params: params.at_position(first.wrapping_add(k)),
            bias: bias.clone(),
        })
        .collect();
    Ok((
        name,
        BatchInput {
            logits,
            vocab,
            stride: 0,
            rows,
        },
        tokens,
    ))
}

pub(super) fn golden_draws(_: &Ctx, b: &dyn Sampler) -> Outcome {
    let path = crate::repo_path("golden/draws/draws.snap");
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => return Outcome::violated(format!("{}: {e}", path.display())),
    };
    // insta: a YAML header between two `---` lines, then the JSON body.
    let body = text.splitn(3, "---").nth(2).unwrap_or("");
    let cases: Vec<Value> = match serde_json::from_str(body) {
        Ok(Value::Array(c)) if !c.is_empty() => c,
        _ => {
            return Outcome::violated(format!(
                "{}: no JSON case array after the header",
                path.display()
            ))
        }
    };
    let mut draws = 0;
    for case in &cases {
        let (name, input, want) = match rebuild(case) {
            Ok(r) => r,
            Err(e) => return Outcome::violated(e),
        };
        let got = match b.sample(&input, Geometry::default()) {
            Ok(o) => o,
            Err(e) => return Outcome::violated(format!("case {name:?}: backend error: {e:#}")),
        };
        let got: Vec<u32> = got.iter().map(|o| o.token).collect();
        if got != want {
            return Outcome::violated(format!("case {name:?}: drew {got:?}, golden {want:?}"));
        }
        draws += want.len();
    }
    Outcome::verified(format!(
        "{} golden cases, {draws} seeded draws equal golden/draws/draws.snap",
        cases.len()
    ))
}
