//! `tailrace noise`: JSON keys, hex formatting and values against `NoiseDraw`.

use crate::common::tailrace;
use serde_json::Value;
use tailrace_noise::{NoiseDraw, NoiseProfile};

fn is_hex(s: &str, digits: usize) -> bool {
    s.len() == digits + 2
        && s.starts_with("0x")
        && s[2..].chars().all(|c| matches!(c, '0'..='9' | 'a'..='f'))
}

fn hex_str<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} is a string: {v}"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-15 * a.abs().max(b.abs())
}

#[test]
fn json_matches_noise_draw_for_every_profile() {
    // (seed, position, index) as typed and as values.
    let inputs = [
        ("42", "7", "5", 42u64, 7u64, 5u32),
        ("0x2A", "0x100000000", "0x1ffff", 42, 1 << 32, 0x1ffff),
        (
            "18446744073709551615",
            "0xffffffffffffffff",
            "2147483647",
            u64::MAX,
            u64::MAX,
            (1 << 31) - 1,
        ),
        ("0", "0", "0", 0, 0, 0),
    ];
    for profile in NoiseProfile::ALL {
        let f32_bits = matches!(profile, NoiseProfile::F32 | NoiseProfile::Triton);
        for &(s, p, i, seed, position, index) in &inputs {
            let v = tailrace(&[
                "noise",
                "--profile",
                profile.name(),
                "--seed",
                s,
                "--position",
                p,
                "--index",
                i,
                "--format",
                "json",
            ])
            .json();
            let d = NoiseDraw::new(profile, seed, position, index);
            for key in [
                "profile",
                "seed",
                "position",
                "index",
                "uniform",
                "noise",
                "ln_noise",
                "uniform_bits",
                "noise_bits",
                "philox",
            ] {
                assert!(v.get(key).is_some(), "{profile}: key {key} missing in {v}");
            }
            assert_eq!(v["profile"], profile.name());
            assert_eq!(v["seed"].as_u64(), Some(seed));
            assert_eq!(v["position"].as_u64(), Some(position));
            assert_eq!(v["index"].as_u64(), Some(u64::from(index)));

            let digits = if f32_bits { 8 } else { 16 };
            let (ub, nb) = (hex_str(&v, "uniform_bits"), hex_str(&v, "noise_bits"));
            assert!(is_hex(ub, digits), "{profile}: uniform_bits {ub}");
            assert!(is_hex(nb, digits), "{profile}: noise_bits {nb}");
            if f32_bits {
                let (u, e) = (
                    d.uniform_f32.expect("f32 uniform"),
                    d.noise_f32.expect("f32 noise"),
                );
                assert_eq!(ub, format!("0x{:08x}", u.to_bits()));
                assert_eq!(nb, format!("0x{:08x}", e.to_bits()));
            } else {
                assert_eq!(ub, format!("0x{:016x}", d.uniform.to_bits()));
                assert_eq!(nb, format!("0x{:016x}", d.noise.to_bits()));
            }
            assert_eq!(
                hex_str(&v, "ln_noise_bits"),
                format!("0x{:016x}", d.ln_noise.to_bits())
            );
            assert!(close(v["uniform"].as_f64().unwrap_or(f64::NAN), d.uniform));
            assert!(close(v["noise"].as_f64().unwrap_or(f64::NAN), d.noise));
            assert!(close(
                v["ln_noise"].as_f64().unwrap_or(f64::NAN),
                d.ln_noise
            ));

            match d.lead {
                Some(h) => assert_eq!(hex_str(&v, "lead"), format!("0x{h:04x}")),
                None => assert!(v.get("lead").is_none(), "{profile}: no lead"),
            }
            match d.grid_point {
                Some(k) => {
                    let g = hex_str(&v, "grid_point");
                    assert!(is_hex(g, 32), "grid_point {g}");
                    assert_eq!(g, format!("0x{k:032x}"));
                }
                None => assert!(v.get("grid_point").is_none(), "{profile}: no grid point"),
            }

            let calls = v["philox"].as_array().expect("philox array");
            assert_eq!(calls.len(), d.philox.len());
            for (c, want) in calls.iter().zip(&d.philox) {
                let words = |key: &str| -> Vec<String> {
                    c[key]
                        .as_array()
                        .expect("word array")
                        .iter()
                        .map(|w| w.as_str().expect("hex word").to_owned())
                        .collect()
                };
                let hex = |ws: &[u32]| -> Vec<String> {
                    ws.iter().map(|w| format!("0x{w:08x}")).collect()
                };
                assert_eq!(words("counter"), hex(&want.counter));
                assert_eq!(words("key"), hex(&want.key));
                assert_eq!(words("output"), hex(&want.output));
                let used: Vec<[u64; 3]> = c["used"]
                    .as_array()
                    .expect("used")
                    .iter()
                    .map(|u| ["word", "shift", "width"].map(|f| u[f].as_u64().expect(f)))
                    .collect();
                let want_used: Vec<[u64; 3]> = want
                    .used
                    .iter()
                    .map(|u| [u.word as u64, u64::from(u.shift), u64::from(u.width)])
                    .collect();
                assert_eq!(used, want_used);
            }
        }
    }
}

#[test]
fn text_shows_every_step() {
    for profile in NoiseProfile::ALL {
        let run = tailrace(&[
            "noise",
            "--profile",
            profile.name(),
            "--seed",
            "1",
            "--position",
            "2",
            "--index",
            "3",
        ]);
        let out = run.ok();
        let d = NoiseDraw::new(profile, 1, 2, 3);
        assert!(out.contains("philox #1"), "{out}");
        assert!(out.contains("ln E"), "{out}");
        assert!(
            out.contains(&format!("0x{:016x}", d.ln_noise.to_bits())),
            "{out}"
        );
        assert_eq!(out.contains("grid point"), profile == NoiseProfile::Exact);
        if let Some(h) = d.lead {
            // Index 3: the high half of word 1 of its lead block.
            assert!(out.contains(&format!("lead      0x{h:04x}")), "{out}");
            assert!(out.contains("used 1[31:16]"), "{out}");
        }
        if let Some(e) = d.noise_f32 {
            assert!(
                out.contains(&format!("f32 bits 0x{:08x}", e.to_bits())),
                "{out}"
            );
        }
    }
}

#[test]
fn bad_noise_arguments() {
    let base = ["noise", "--seed", "1", "--position", "2"];
    let with = |extra: &[&str]| {
        let mut a: Vec<&str> = base.to_vec();
        a.extend_from_slice(extra);
        tailrace(&a)
    };
    let line = with(&["--index", "2147483648"]).fails(2).to_owned();
    assert!(line.contains("2^31"), "{line}");
    with(&["--index", "0x80000000"]).fails(2);
    with(&["--index", "-1"]).fails(2);
    with(&["--index", "1", "--profile", "f16"]).fails(2);
    with(&["--index", "0xZZ"]).fails(2);
    with(&["--index", "1", "--format", "yaml"]).fails(2);
    with(&[]).fails(2);
    tailrace(&[
        "noise",
        "--seed",
        "18446744073709551616",
        "--position",
        "0",
        "--index",
        "0",
    ])
    .fails(2);
    tailrace::<&str>(&[]).fails(2);
    tailrace(&["frobnicate"]).fails(2);
}
