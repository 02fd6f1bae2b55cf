//! `tailrace sample` against `tailrace_model::sample_row` on the same inputs.

use crate::common::{logits, tailrace, write_raw, Kind, KINDS};
use half::{bf16, f16};
use std::path::Path;
use tailrace_model::{sample_row, LogitBias, RawParams, RowStatus, SamplingParams};
use tailrace_noise::NoiseProfile;

/// `sample_row` on `values` stored as `kind`.
fn model_token(kind: Kind, values: &[f32], bias: &LogitBias, raw: RawParams) -> u32 {
    let params = SamplingParams::new(raw).expect("valid params");
    let out = match kind {
        Kind::Bf16 => {
            let x: Vec<bf16> = values.iter().map(|&v| bf16::from_f32(v)).collect();
            sample_row(&x, bias, &params)
        }
        Kind::F16 => {
            let x: Vec<f16> = values.iter().map(|&v| f16::from_f32(v)).collect();
            sample_row(&x, bias, &params)
        }
        Kind::F32 => sample_row(values, bias, &params),
    }
    .expect("sample_row");
    assert_eq!(out.status, RowStatus::Ok);
    out.token
}

/// Sampling settings written both ways.
struct Setting {
    args: Vec<String>,
    raw: RawParams,
    bias: LogitBias,
}

fn settings() -> Vec<Setting> {
    let mut out = Vec::new();
    for (i, profile) in NoiseProfile::ALL.into_iter().enumerate() {
        let seed = 1000 + i as u64;
        let position = 3 + 17 * i as u64;
        let base = RawParams {
            seed,
            position,
            profile,
            ..RawParams::default()
        };
        let common = vec![
            "--seed".to_owned(),
            format!("{seed:#x}"),
            "--position".to_owned(),
            position.to_string(),
            "--profile".to_owned(),
            profile.name().to_owned(),
        ];
        let with = |extra: &[&str]| {
            let mut a = common.clone();
            a.extend(extra.iter().map(|s| s.to_string()));
            a
        };
        out.push(Setting {
            args: with(&[]),
            raw: base,
            bias: LogitBias::None,
        });
        out.push(Setting {
            args: with(&["--temperature", "0.7", "--top-k", "20", "--top-p", "0.9"]),
            raw: RawParams {
                temperature: 0.7,
                top_k: 20,
                top_p: 0.9,
                ..base
            },
            bias: LogitBias::None,
        });
        out.push(Setting {
            args: with(&[
                "--temperature",
                "1.3",
                "--min-p",
                "0.05",
                "--bias",
                "3:-inf,10:2.5",
            ]),
            raw: RawParams {
                temperature: 1.3,
                min_p: 0.05,
                ..base
            },
            bias: LogitBias::Sparse(vec![(3, f32::NEG_INFINITY), (10, 2.5)]),
        });
    }
    out.push(Setting {
        args: ["--seed", "1", "--position", "0", "--temperature", "0"]
            .map(String::from)
            .to_vec(),
        raw: RawParams {
            temperature: 0.0,
            seed: 1,
            ..RawParams::default()
        },
        bias: LogitBias::None,
    });
    out
}

fn sample_json(path: &Path, extra: &[String]) -> serde_json::Value {
    let mut args: Vec<String> = vec![
        "sample".into(),
        "--logits".into(),
        path.display().to_string(),
        "--format".into(),
        "json".into(),
    ];
    args.extend_from_slice(extra);
    tailrace(&args).json()
}

#[test]
fn single_draw_matches_model_for_every_dtype_and_shape() {
    let vocab = 1000;
    for kind in KINDS {
        // [V]
        let row = logits(vocab, 1);
        let path_v = write_raw(&[("logits", kind.dtype(), vec![vocab], kind.bytes(&row))]);
        // [N, V] next to a second tensor: --tensor and --row pick the row.
        let rows: Vec<Vec<f32>> = (0..3).map(|r| logits(vocab, 10 + r)).collect();
        let flat: Vec<f32> = rows.concat();
        let path_nv = write_raw(&[
            ("batch", kind.dtype(), vec![3, vocab], kind.bytes(&flat)),
            ("other", kind.dtype(), vec![4], kind.bytes(&[0.0; 4])),
        ]);
        for s in settings() {
            let want = model_token(kind, &row, &s.bias, s.raw);
            let v = sample_json(&path_v, &s.args);
            assert_eq!(
                v["token"].as_u64(),
                Some(u64::from(want)),
                "{kind:?} {:?}",
                s.args
            );
            assert_eq!(v["status"], "ok");
            assert_eq!(v["dtype"], kind.dtype().to_string());

            let r = 2usize;
            let want = model_token(kind, &rows[r], &s.bias, s.raw);
            let mut args = s.args.clone();
            args.extend(["--tensor", "batch", "--row", "2"].map(String::from));
            let v = sample_json(&path_nv, &args);
            assert_eq!(
                v["token"].as_u64(),
                Some(u64::from(want)),
                "{kind:?} {args:?}"
            );
            assert_eq!(v["shape"], serde_json::json!([3, vocab]));
        }
        // --row defaults to 0.
        let want = model_token(
            kind,
            &rows[0],
            &LogitBias::None,
            RawParams {
                seed: 5,
                position: 6,
                ..RawParams::default()
            },
        );
        let v = sample_json(
            &path_nv,
            &["--tensor", "batch", "--seed", "5", "--position", "6"].map(String::from),
        );
        assert_eq!(v["token"].as_u64(), Some(u64::from(want)));
    }
}

#[test]
fn text_output_names_the_token() {
    let row = logits(64, 3);
    let path = write_raw(&[("x", Kind::F32.dtype(), vec![64], Kind::F32.bytes(&row))]);
    let want = model_token(
        Kind::F32,
        &row,
        &LogitBias::None,
        RawParams {
            seed: 9,
            position: 4,
            ..RawParams::default()
        },
    );
    let run = tailrace(&[
        "sample",
        "--logits",
        &path.display().to_string(),
        "--seed",
        "9",
        "--position",
        "4",
    ]);
    assert!(
        run.ok().contains(&format!("token     {want}\n")),
        "{}",
        run.stdout
    );
}

#[test]
fn position_range_matches_single_draws() {
    let vocab = 300;
    for kind in KINDS {
        let row = logits(vocab, 7);
        let path = write_raw(&[("logits", kind.dtype(), vec![1, vocab], kind.bytes(&row))]);
        for (profile, bias_arg, bias) in [
            ("exact", None, LogitBias::None),
            (
                "triton",
                Some("0:-inf,299:1"),
                LogitBias::Sparse(vec![(0, f32::NEG_INFINITY), (299, 1.0)]),
            ),
        ] {
            let (a, b) = (1_000u64, 1_250u64);
            let mut args: Vec<String> = [
                "--seed",
                "77",
                "--positions",
                &format!("{a}..{b}"),
                "--profile",
                profile,
                "--top-p",
                "0.95",
            ]
            .map(String::from)
            .to_vec();
            if let Some(bs) = bias_arg {
                args.extend(["--bias".to_owned(), bs.to_owned()]);
            }
            let v = sample_json(&path, &args);
            let tokens: Vec<u64> = v["tokens"]
                .as_array()
                .expect("tokens listed for small ranges")
                .iter()
                .map(|t| t.as_u64().expect("token"))
                .collect();
            assert_eq!(tokens.len() as u64, b - a);
            let counts = v["counts"].as_object().expect("counts");
            let total: u64 = counts.values().map(|c| c.as_u64().expect("count")).sum();
            assert_eq!(total, b - a);
            assert_eq!(v["draws"].as_u64(), Some(b - a));
            for (p, &t) in (a..b).zip(&tokens) {
                let raw = RawParams {
                    seed: 77,
                    position: p,
                    top_p: 0.95,
                    profile: profile.parse().expect("profile"),
                    ..RawParams::default()
                };
                assert_eq!(
                    t,
                    u64::from(model_token(kind, &row, &bias, raw)),
                    "position {p}"
                );
            }
            for (tok, c) in counts {
                let tok: u64 = tok.parse().expect("token key");
                let n = tokens.iter().filter(|&&t| t == tok).count() as u64;
                assert_eq!(c.as_u64(), Some(n));
            }
            // A few positions drawn one at a time by the CLI agree too.
            for p in [a, a + 1, b - 1] {
                let mut single = args.clone();
                let at = single
                    .iter()
                    .position(|x| x == "--positions")
                    .expect("flag");
                single[at] = "--position".into();
                single[at + 1] = p.to_string();
                let v = sample_json(&path, &single);
                assert_eq!(v["token"].as_u64(), Some(tokens[(p - a) as usize]));
            }
        }
    }
}

#[test]
fn large_range_reports_counts_only() {
    let vocab = 8;
    let row = logits(vocab, 11);
    let path = write_raw(&[("l", Kind::Bf16.dtype(), vec![vocab], Kind::Bf16.bytes(&row))]);
    let (a, b) = (0u64, 100_001u64);
    let v = sample_json(
        &path,
        &[
            "--seed",
            "3",
            "--positions",
            &format!("{a}..{b}"),
            "--top-k",
            "4",
        ]
        .map(String::from),
    );
    assert!(
        v.get("tokens").is_none(),
        "tokens listed only up to 10^5 draws"
    );
    let counts = v["counts"].as_object().expect("counts");
    assert!(counts.len() <= 4, "top-k 4 keeps 4 tokens: {counts:?}");
    let total: u64 = counts.values().map(|c| c.as_u64().expect("count")).sum();
    assert_eq!(total, b - a);

    // The text output lists the first 20 tokens and the histogram.
    let run = tailrace(&[
        "sample",
        "--logits",
        &path.display().to_string(),
        "--seed",
        "3",
        "--positions",
        "0..100",
    ]);
    let out = run.ok();
    let first = out
        .lines()
        .find(|l| l.starts_with("first 20"))
        .expect("first tokens line");
    assert_eq!(first.split_whitespace().count(), 22, "{first}");
    assert!(out.contains("fraction"), "{out}");
}
