//! Draws readers: JSON forms and `.npy` round trips, with their errors.

use crate::common::*;
use npyz::WriterBuilder;
use tailrace_audit::draws::{parse_json, read_draws, Counts, Draws};
use tailrace_audit::AuditError;

fn write_npy<T: npyz::AutoSerialize>(path: &std::path::Path, shape: &[u64], v: &[T]) {
    let f = std::fs::File::create(path).expect("create");
    let mut w = npyz::WriteOptions::new()
        .default_dtype()
        .shape(shape)
        .writer(std::io::BufWriter::new(f))
        .begin_nd()
        .expect("writer");
    w.extend(v.iter()).expect("write");
    w.finish().expect("finish");
}

#[test]
fn npy_round_trip() {
    let dir = tempdir();
    let tokens: Vec<i64> = (0..5000).map(|i| (i * 7919) % 97).collect();
    let want = Counts::from_tokens(tokens.iter().map(|&t| t as u32));
    let p = file(&dir, "draws.npy");
    write_npy(&p, &[tokens.len() as u64], &tokens);
    assert_eq!(
        read_draws(&p, 97).expect("reads").draws,
        Draws::Counts(want.clone())
    );
    // other integer dtypes
    let small: Vec<u16> = tokens.iter().map(|&t| t as u16).collect();
    let p16 = file(&dir, "draws16.npy");
    write_npy(&p16, &[small.len() as u64], &small);
    assert_eq!(
        read_draws(&p16, 97).expect("reads").draws,
        Draws::Counts(want)
    );

    // out of the vocabulary: the error names the file and the position
    let e = read_draws(&p, 96).expect_err("token 96");
    match &e {
        AuditError::TokenOutOfVocab {
            at, token, vocab, ..
        } => {
            assert_eq!(token, "96");
            assert_eq!(*vocab, 96);
            let first = tokens.iter().position(|&t| t == 96).expect("present");
            assert_eq!(at, &format!("draw {first} (0-based)"));
        }
        e => panic!("{e}"),
    }
    assert!(e.to_string().contains("draws.npy"), "{e}");
    let neg = file(&dir, "neg.npy");
    write_npy(&neg, &[3], &[1i32, -4, 2]);
    let e = read_draws(&neg, 10).expect_err("negative");
    assert!(
        e.to_string().contains("draw 1 (0-based) is token -4"),
        "{e}"
    );
    let two_d = file(&dir, "2d.npy");
    write_npy(&two_d, &[2, 2], &[1i32, 2, 3, 4]);
    assert!(read_draws(&two_d, 10)
        .expect_err("2-D")
        .to_string()
        .contains("1-D"));
    let floats = file(&dir, "f.npy");
    write_npy(&floats, &[2], &[1.0f64, 2.0]);
    assert!(read_draws(&floats, 10)
        .expect_err("float")
        .to_string()
        .contains("integer dtype"));
    let junk = file(&dir, "junk.npy");
    std::fs::write(&junk, b"nope").expect("write");
    assert!(read_draws(&junk, 10)
        .expect_err("junk")
        .to_string()
        .contains("not a valid .npy"));
    let missing = file(&dir, "missing.npy");
    assert!(matches!(
        read_draws(&missing, 10),
        Err(AuditError::Io { .. })
    ));
}

#[test]
fn json_forms() {
    let d =
        parse_json(br#"{"tokens": [0, 3, 3, 1], "sampler": "x"}"#, "t.json", 4).expect("tokens");
    assert_eq!(d.draws.misses(), (4, 3));
    let d = parse_json(br#"{"counts": {"0": 10, "2": 5}}"#, "c.json", 4).expect("counts");
    assert_eq!(d.draws.misses(), (15, 5));
    // the layout of audit/external_draws.py
    let d = parse_json(
        br#"{"sampler": "torch_race_f32", "vocab": 4, "r": 1e-7, "draws": 100, "misses": 7}"#,
        "m.json",
        4,
    )
    .expect("misses");
    assert_eq!(
        d.draws,
        Draws::Misses {
            draws: 100,
            misses: 7
        }
    );
    assert_eq!(d.declared_r, Some(1e-7));
    let e =
        parse_json(br#"{"vocab": 8, "draws": 1, "misses": 0}"#, "m.json", 4).expect_err("vocab");
    assert!(e.to_string().contains("the audit's vocabulary is 4"), "{e}");

    let e = parse_json(br#"{"tokens": [0, 1, 9]}"#, "t.json", 4).expect_err("oov");
    assert_eq!(
        e.to_string(),
        "t.json: draw 2 (0-based, in \"tokens\") is token 9, outside the vocabulary of 4 tokens"
    );
    let e = parse_json(br#"{"tokens": [0, -1]}"#, "t.json", 4).expect_err("negative");
    assert!(
        e.to_string()
            .contains("draw 1 (0-based, in \"tokens\") is token -1"),
        "{e}"
    );
    let e = parse_json(br#"{"tokens": [0, 1.5]}"#, "t.json", 4).expect_err("float");
    assert!(e.to_string().contains("not an integer token"), "{e}");
    let e = parse_json(br#"{"counts": {"7": 1}}"#, "c.json", 4).expect_err("oov");
    assert!(
        e.to_string().contains("\"counts\" key \"7\" is token 7"),
        "{e}"
    );
    let e = parse_json(br#"{"counts": {"x": 1}}"#, "c.json", 4).expect_err("key");
    assert!(e.to_string().contains("not a token index"), "{e}");
    let e = parse_json(br#"{"draws": 1, "misses": 2}"#, "m.json", 4).expect_err("too many");
    assert!(e.to_string().contains("exceeds"), "{e}");
    let e = parse_json(br#"{"tokens": [], "counts": {}}"#, "x.json", 4).expect_err("two forms");
    assert!(e.to_string().contains("exactly one"), "{e}");
    let e = parse_json(br#"{"foo": 1}"#, "x.json", 4).expect_err("none");
    assert!(e.to_string().contains("expected {\"tokens\""), "{e}");
    let e = parse_json(b"[1, 2", "x.json", 4).expect_err("syntax");
    assert!(
        e.to_string()
            .starts_with("x.json: not a JSON draws document"),
        "{e}"
    );
}
