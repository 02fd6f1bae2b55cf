//! Replay on a synthetic safetensors file: matches, tampered tokens,
//! malformed lines, chunking and partial results.

use crate::common::*;
use half::bf16;
use serde_json::json;
use std::io::{BufReader, Cursor, Read};
use tailrace_audit::replay::{
    check_line, replay, Issue, IssueCollector, LineOutcome, ReplayOptions, ReplayReport,
};
use tailrace_audit::{AuditError, LogitsFile};
use tailrace_model::{sample_row, LogitBias, NoiseProfile, RawParams, SamplingParams};

const V: usize = 1000;
const ROWS: usize = 8;
const V_BF: usize = 300;

struct Fixture {
    _dir: tempfile::TempDir,
    logits: LogitsFile,
    x: Vec<f32>,
    xb: Vec<f32>,
}

fn fixture() -> Fixture {
    let dir = tempdir();
    let x = random_logits(11, ROWS * V, 12.0);
    let xb: Vec<bf16> = random_logits(12, 2 * V_BF, 8.0)
        .into_iter()
        .map(bf16::from_f32)
        .collect();
    let path = file(&dir, "logits.safetensors");
    write_safetensors(
        &path,
        &[
            Tensor::f32("logits", vec![ROWS, V], &x),
            Tensor::bf16("small_bf16", vec![2, V_BF], &xb),
        ],
    );
    Fixture {
        logits: LogitsFile::open(&path).expect("opens"),
        _dir: dir,
        x,
        xb: xb.iter().map(|v| v.to_f32()).collect(),
    }
}

/// One valid line for case `k`, with the model's token.
fn good_line(f: &Fixture, k: u64) -> (serde_json::Value, u32) {
    let profiles = [NoiseProfile::Exact, NoiseProfile::F64, NoiseProfile::F32];
    let raw = RawParams {
        temperature: [0.7, 1.0, 1.5, 0.0, 1.0][k as usize % 5],
        top_k: [0, 20, 0, 0, 5, 0, 1][k as usize % 7],
        top_p: [1.0, 0.9, 1.0][k as usize % 3],
        min_p: [0.0, 0.0, 0.0, 0.05][k as usize % 4],
        seed: 0xABCD_0000_0000 + k * 7919,
        position: k * 13 + (k % 3) * (1 << 40),
        profile: profiles[k as usize % 3],
    };
    let params = SamplingParams::new(raw).expect("valid");
    let use_bf = k % 6 == 5;
    let (tensor, row, values): (&str, u64, &[f32]) = if use_bf {
        (
            "small_bf16",
            k % 2,
            &f.xb[(k % 2) as usize * V_BF..][..V_BF],
        )
    } else {
        let r = (k % ROWS as u64) as usize;
        ("logits", r as u64, &f.x[r * V..(r + 1) * V])
    };
    let with_bias = k % 4 == 1;
    let bias = if with_bias {
        LogitBias::Sparse(vec![(3, f32::NEG_INFINITY), (5, 2.0), (7, -1.25)])
    } else {
        LogitBias::None
    };
    let token = sample_row(values, &bias, &params).expect("samples").token;
    let mut line = json!({
        "tensor": tensor, "row": row,
        "temperature": raw.temperature, "top_k": raw.top_k, "top_p": raw.top_p, "min_p": raw.min_p,
        "profile": raw.profile.name(),
        "seed": raw.seed, "position": raw.position, "token": token,
    });
    if with_bias {
        line["bias"] = json!([[3, "-inf"], [5, 2.0], [7, -1.25]]);
    }
    if k % 5 == 2 {
        // seeds and positions may be strings (decimal or hex)
        line["seed"] = json!(format!("{:#x}", raw.seed));
        line["position"] = json!(raw.position.to_string());
        line["id"] = json!(format!("req-{k}"));
    }
    (line, token)
}

/// (line, expected token, observed token) of a tampered line.
type Tampered = (u64, u32, u32);
/// (line, a piece of its error message) of a malformed line.
type Bad = (u64, &'static str);

/// The test file: 60 good lines (three of them tampered), several malformed,
/// one blank.
fn requests(f: &Fixture) -> (String, Vec<Tampered>, Vec<Bad>) {
    let mut out = Vec::new();
    let mut tampered = Vec::new();
    let mut bad = Vec::new();
    for k in 0..60u64 {
        let (mut line, token) = good_line(f, k);
        if k == 9 || k == 36 || k == 45 {
            // a token the model did not draw, unmasked and inside the row
            let v = if line["tensor"] == "logits" { V } else { V_BF } as u32;
            let mut other = (token + 1 + k as u32) % v;
            if other == 3 || other == token {
                other = (other + 2) % v;
            }
            line["token"] = json!(other);
            tampered.push((out.len() as u64 + 1, token, other));
        }
        out.push(line.to_string());
        match k {
            10 => {
                out.push("{\"tensor\": \"logits\", \"row\": 0, \"temperature\": 1.0".into());
                bad.push((out.len() as u64, "invalid JSON"));
            }
            20 => {
                let (mut l, _) = good_line(f, 0);
                l.as_object_mut().expect("object").remove("seed");
                out.push(l.to_string());
                bad.push((out.len() as u64, "missing field `seed`"));
            }
            21 => {
                let (mut l, _) = good_line(f, 0);
                l["temperature"] = json!(-1.0);
                out.push(l.to_string());
                bad.push((out.len() as u64, "invalid temperature -1"));
            }
            22 => {
                let (mut l, _) = good_line(f, 0);
                l["row"] = json!(99);
                out.push(l.to_string());
                bad.push((out.len() as u64, "row 99 is out of range"));
            }
            23 => {
                let (mut l, _) = good_line(f, 0);
                l["tensor"] = json!("nope");
                out.push(l.to_string());
                bad.push((out.len() as u64, "\"small_bf16\""));
            }
            24 => {
                let (mut l, _) = good_line(f, 0);
                l["token"] = json!(V + 5);
                out.push(l.to_string());
                bad.push((out.len() as u64, "outside the vocabulary"));
            }
            25 => {
                let (mut l, _) = good_line(f, 0);
                l["bias"] = json!([[V + 1, 1.0]]);
                out.push(l.to_string());
                bad.push((out.len() as u64, "logit bias index 1001 is out of range"));
            }
            26 => {
                let (mut l, _) = good_line(f, 0);
                l["temprature"] = json!(1.0);
                out.push(l.to_string());
                bad.push((out.len() as u64, "unknown field `temprature`"));
            }
            27 => {
                let (mut l, _) = good_line(f, 0);
                l.as_object_mut().expect("object").remove("tensor");
                out.push(l.to_string());
                bad.push((out.len() as u64, "holds 2 tensors"));
            }
            28 => {
                let (mut l, _) = good_line(f, 0);
                l["profile"] = json!("fp16");
                out.push(l.to_string());
                bad.push((out.len() as u64, "unknown variant `fp16`"));
            }
            40 => out.push(String::new()),
            _ => {}
        }
    }
    (out.join("\n") + "\n", tampered, bad)
}

fn run(f: &Fixture, text: &str, opts: &ReplayOptions) -> (ReplayReport, IssueCollector) {
    let mut c = IssueCollector::new(1000);
    let r = replay(&f.logits, Cursor::new(text.as_bytes()), opts, &mut c);
    (r, c)
}

#[test]
fn replay_reports_tampered_and_malformed_lines() {
    let f = fixture();
    let (text, tampered, bad) = requests(&f);
    let (report, issues) = run(&f, &text, &ReplayOptions::default());
    assert_eq!(report.error, None);
    let s = report.summary;
    assert_eq!(s.lines, 60 + bad.len() as u64, "{s:?}");
    assert_eq!(s.mismatches, 3, "{:#?}", issues.issues);
    assert_eq!(s.malformed, bad.len() as u64, "{:#?}", issues.issues);
    assert_eq!(s.matches, 57);
    assert!(!report.ok());

    let mismatches: Vec<_> = issues
        .issues
        .iter()
        .filter_map(|i| match i {
            Issue::Mismatch(m) => Some(m),
            _ => None,
        })
        .collect();
    for (m, &(line, expected, observed)) in mismatches.iter().zip(&tampered) {
        assert_eq!(m.line, line);
        assert_eq!(m.expected, Some(expected));
        assert_eq!(m.observed, observed);
        let margin = m.margin.expect("a margin");
        // A survivor that was not drawn lost the race; a filtered-out token
        // may have any score (line of k = 36 has top-k 20).
        assert_eq!(m.observed_survives, line != tampered[1].0, "{m:?}");
        if m.observed_survives {
            assert!(margin > 0.0, "margin {margin}");
        }
        assert_eq!(m.expected_score.expect("score") - m.observed_score, margin);
        let text = Issue::Mismatch((*m).clone()).to_string();
        assert!(text.contains(&format!("line {line}: MISMATCH")), "{text}");
        assert!(
            text.contains(&format!("expected token {expected}, observed {observed}")),
            "{text}"
        );
    }
    let malformed: Vec<_> = issues
        .issues
        .iter()
        .filter_map(|i| match i {
            Issue::Malformed(m) => Some(m),
            _ => None,
        })
        .collect();
    assert_eq!(malformed.len(), bad.len());
    for (m, &(line, needle)) in malformed.iter().zip(&bad) {
        assert_eq!(m.line, line, "{m:?}");
        assert!(
            m.error.contains(needle),
            "line {line}: {:?} lacks {needle:?}",
            m.error
        );
    }
    // issues come in input order
    let lines: Vec<u64> = issues.issues.iter().map(Issue::line).collect();
    let mut sorted = lines.clone();
    sorted.sort_unstable();
    assert_eq!(lines, sorted);
}

#[test]
fn replay_outcome_does_not_depend_on_chunking_or_threads() {
    let f = fixture();
    let (text, _, _) = requests(&f);
    let (want, want_issues) = run(&f, &text, &ReplayOptions::default());
    for (threads, chunk_lines) in [(Some(1), 1), (Some(2), 7), (Some(3), 64)] {
        let opts = ReplayOptions {
            threads,
            chunk_lines,
            ..ReplayOptions::default()
        };
        let (got, got_issues) = run(&f, &text, &opts);
        assert_eq!(got, want, "{threads:?} {chunk_lines}");
        assert_eq!(got_issues.issues, want_issues.issues);
    }
}

#[test]
fn overlong_lines_and_crlf() {
    let f = fixture();
    let (good, _) = good_line(&f, 0);
    let text = format!("{good}\r\n{}\n{good}", "x".repeat(5000));
    let opts = ReplayOptions {
        max_line_bytes: 4096,
        ..ReplayOptions::default()
    };
    let (r, c) = run(&f, &text, &opts);
    assert_eq!(r.summary.lines, 3);
    assert_eq!(r.summary.matches, 2);
    assert_eq!(r.summary.malformed, 1);
    assert_eq!(c.issues[0].line(), 2);
    assert!(c.issues[0].to_string().contains("over the limit"));
}

/// A reader that fails after `ok` bytes.
struct Failing {
    inner: Cursor<Vec<u8>>,
    ok: u64,
}

impl Read for Failing {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.inner.position() >= self.ok {
            return Err(std::io::Error::other("disk on fire"));
        }
        let room = (self.ok - self.inner.position()) as usize;
        let n = buf.len().min(room);
        self.inner.read(&mut buf[..n])
    }
}

#[test]
fn read_error_keeps_the_lines_checked_so_far() {
    let f = fixture();
    let lines: Vec<String> = (0..5).map(|k| good_line(&f, k).0.to_string()).collect();
    let ok = (lines[0].len() + lines[1].len() + lines[2].len() + 3) as u64;
    let text = lines.join("\n") + "\n";
    let reader = BufReader::with_capacity(
        16,
        Failing {
            inner: Cursor::new(text.into_bytes()),
            ok,
        },
    );
    let mut c = IssueCollector::new(10);
    let opts = ReplayOptions {
        chunk_lines: 2,
        ..ReplayOptions::default()
    };
    let r = replay(&f.logits, reader, &opts, &mut c);
    assert_eq!(r.summary.lines, 3, "{r:?}");
    assert_eq!(r.summary.matches, 3);
    let e = r.error.clone().expect("an error");
    assert!(
        e.contains("after line 3") && e.contains("disk on fire"),
        "{e}"
    );
    assert!(!r.ok());
}

#[test]
fn greedy_and_status_rows() {
    let dir = tempdir();
    let path = file(&dir, "one.safetensors");
    let mut x = random_logits(5, 64, 4.0);
    x[10] = 9.0;
    x[20] = 9.0; // tie: greedy takes the smaller index
    write_safetensors(&path, &[Tensor::f32("only", vec![64], &x)]);
    let logits = LogitsFile::open(&path).expect("opens");
    let line = |token: u32, extra: serde_json::Value| {
        let mut l = json!({"temperature": 0.0, "profile": "triton", "seed": 1, "position": 2, "token": token});
        for (k, v) in extra.as_object().expect("object") {
            l[k] = v.clone();
        }
        l.to_string()
    };
    assert_eq!(
        check_line(&logits, 1, line(10, json!({})).as_bytes()),
        LineOutcome::Match { triton: true }
    );
    match check_line(&logits, 2, line(20, json!({})).as_bytes()) {
        LineOutcome::Issue(Issue::Mismatch(m)) => {
            assert_eq!(m.expected, Some(10));
            assert_eq!(m.margin, Some(0.0), "a tie lost on the index");
            assert!(m.triton.is_none(), "greedy is checked exactly");
        }
        o => panic!("{o:?}"),
    }
    // every token masked except by bias -inf: the row has no token
    let all: Vec<serde_json::Value> = (0..64).map(|i| json!([i, "-inf"])).collect();
    match check_line(
        &logits,
        3,
        line(10, json!({"bias": all, "temperature": 1.0})).as_bytes(),
    ) {
        LineOutcome::Issue(Issue::Mismatch(m)) => {
            assert_eq!(m.expected, None);
            assert!(!m.observed_survives);
            assert!(Issue::Mismatch(m).to_string().contains("AllMasked"));
        }
        o => panic!("{o:?}"),
    }
    assert_eq!(check_line(&logits, 4, b"   \r\n"), LineOutcome::Blank);
}

#[test]
fn logits_file_errors_name_the_input() {
    let dir = tempdir();
    let missing = file(&dir, "missing.safetensors");
    let e = LogitsFile::open(&missing).expect_err("missing");
    assert!(matches!(e, AuditError::Io { .. }));
    assert!(e.to_string().contains("missing.safetensors"), "{e}");

    let junk = file(&dir, "junk.safetensors");
    std::fs::write(&junk, b"not a safetensors file").expect("write");
    let e = LogitsFile::open(&junk).expect_err("junk");
    assert!(
        e.to_string().contains("is not a valid safetensors file"),
        "{e}"
    );

    let path = file(&dir, "mixed.safetensors");
    let ints: Vec<u8> = (0..16u8).collect();
    write_safetensors(
        &path,
        &[
            Tensor {
                name: "ids",
                dtype: safetensors::Dtype::I32,
                shape: vec![4],
                bytes: ints,
            },
            Tensor::f32("cube", vec![2, 2, 2], &[0.0; 8]),
            Tensor::f32("rows", vec![3, 4], &[0.0; 12]),
        ],
    );
    let f = LogitsFile::open(&path).expect("opens");
    let e = f.row(Some("ids"), 0).expect_err("dtype");
    assert!(e.to_string().contains("dtype I32"), "{e}");
    let e = f.row(Some("cube"), 0).expect_err("shape");
    assert!(e.to_string().contains("shape [2, 2, 2]"), "{e}");
    let e = f.row(Some("rows"), 3).expect_err("row");
    assert!(e.to_string().contains("has 3 row(s)"), "{e}");
    let e = f.row(Some("logitz"), 0).expect_err("name");
    assert!(e.to_string().contains("\"cube\", \"ids\", \"rows\""), "{e}");
    assert_eq!(f.row(Some("rows"), 2).expect("row").values.len(), 4);
}
