//! Every bad input: non-zero exit, one `error: ...` line, no panic text.

use crate::common::{logits, tailrace, tmp_path, write_raw, Kind, Run};
use safetensors::Dtype;
use std::path::Path;

fn sample(path: &Path, extra: &[&str]) -> Run {
    let p = path.display().to_string();
    let mut args = vec!["sample", "--logits", p.as_str(), "--seed", "1"];
    if !extra.iter().any(|a| a.starts_with("--position")) {
        args.extend(["--position", "0"]);
    }
    args.extend_from_slice(extra);
    tailrace(&args)
}

fn good_file() -> std::path::PathBuf {
    let row = logits(16, 1);
    write_raw(&[("logits", Dtype::F32, vec![2, 8], Kind::F32.bytes(&row))])
}

#[test]
fn unreadable_files() {
    let missing = tmp_path("does-not-exist.safetensors");
    let line = sample(&missing, &[]).fails(2).to_owned();
    assert!(line.contains("cannot read"), "{line}");

    let garbage = tmp_path("garbage.safetensors");
    std::fs::write(&garbage, b"this is not a safetensors file at all").expect("write");
    let line = sample(&garbage, &[]).fails(2).to_owned();
    assert!(line.contains("not a valid safetensors"), "{line}");

    let empty = tmp_path("empty.safetensors");
    std::fs::write(&empty, b"").expect("write");
    sample(&empty, &[]).fails(2);

    let dir = tmp_path("a-directory");
    std::fs::create_dir_all(&dir).expect("mkdir");
    sample(&dir, &[]).fails(2);
}

#[test]
fn wrong_dtype_shape_row_and_name() {
    let ints: Vec<u8> = (0..8i64).flat_map(|v| v.to_le_bytes()).collect();
    let i64_file = write_raw(&[("logits", Dtype::I64, vec![8], ints)]);
    let line = sample(&i64_file, &[]).fails(2).to_owned();
    assert!(
        line.contains("I64") && line.contains("BF16, F16, F32"),
        "{line}"
    );

    let f64s: Vec<u8> = (0..8).flat_map(|v| f64::from(v).to_le_bytes()).collect();
    sample(&write_raw(&[("logits", Dtype::F64, vec![8], f64s)]), &[]).fails(2);

    let cube = write_raw(&[(
        "logits",
        Dtype::F32,
        vec![2, 2, 2],
        Kind::F32.bytes(&[0.5; 8]),
    )]);
    let line = sample(&cube, &[]).fails(2).to_owned();
    assert!(line.contains("[2, 2, 2]"), "{line}");

    let scalar = write_raw(&[("logits", Dtype::F32, vec![], Kind::F32.bytes(&[0.5]))]);
    sample(&scalar, &[]).fails(2);

    let no_vocab = write_raw(&[("logits", Dtype::F32, vec![3, 0], Vec::new())]);
    sample(&no_vocab, &[]).fails(2);
    let no_rows = write_raw(&[("logits", Dtype::BF16, vec![0, 4], Vec::new())]);
    sample(&no_rows, &[]).fails(2);

    let file = good_file();
    let line = sample(&file, &["--row", "2"]).fails(2).to_owned();
    assert!(line.contains("row 2") && line.contains("2 rows"), "{line}");
    sample(&file, &["--row", "-1"]).fails(2);
    let flat = write_raw(&[("logits", Dtype::F16, vec![4], Kind::F16.bytes(&[1.0; 4]))]);
    sample(&flat, &["--row", "1"]).fails(2);

    let line = sample(&file, &["--tensor", "nope"]).fails(2).to_owned();
    assert!(
        line.contains("\"nope\"") && line.contains("\"logits\""),
        "{line}"
    );

    let two = write_raw(&[
        ("alpha", Dtype::F32, vec![4], Kind::F32.bytes(&[1.0; 4])),
        ("beta", Dtype::F32, vec![4], Kind::F32.bytes(&[1.0; 4])),
    ]);
    let line = sample(&two, &[]).fails(2).to_owned();
    assert!(
        line.contains("--tensor") && line.contains("\"alpha\"") && line.contains("\"beta\""),
        "{line}"
    );
    sample(&two, &["--tensor", "beta"]).ok();
}

#[test]
fn bad_rows_exit_1_and_name_the_index() {
    for kind in [Kind::Bf16, Kind::F16, Kind::F32] {
        let mut row = logits(16, 2);
        row[7] = f32::NAN;
        row[9] = f32::INFINITY;
        let f = write_raw(&[("logits", kind.dtype(), vec![16], kind.bytes(&row))]);
        let line = sample(&f, &[]).fails(1).to_owned();
        assert!(
            line.contains("non_finite_logit") && line.contains("index 7"),
            "{kind:?}: {line}"
        );
        // Also in range mode and with greedy decoding.
        sample(&f, &["--positions", "0..10"]).fails(1);
        sample(&f, &["--temperature", "0"]).fails(1);

        let mut inf_row = logits(16, 3);
        inf_row[12] = f32::INFINITY;
        let f = write_raw(&[("logits", kind.dtype(), vec![1, 16], kind.bytes(&inf_row))]);
        let line = sample(&f, &[]).fails(1).to_owned();
        assert!(line.contains("index 12"), "{line}");
        // +inf logit under a -inf bias is NaN: still non-finite.
        let line = sample(&f, &["--bias", "12:-inf"]).fails(1).to_owned();
        assert!(line.contains("index 12") && line.contains("bias"), "{line}");

        let masked = write_raw(&[(
            "logits",
            kind.dtype(),
            vec![4],
            kind.bytes(&[f32::NEG_INFINITY; 4]),
        )]);
        let line = sample(&masked, &[]).fails(1).to_owned();
        assert!(line.contains("all_masked"), "{line}");
    }
    let f = write_raw(&[(
        "logits",
        Dtype::F32,
        vec![3],
        Kind::F32.bytes(&[1.0, 2.0, 3.0]),
    )]);
    let line = sample(&f, &["--bias", "0:-inf,1:-inf,2:-inf"])
        .fails(1)
        .to_owned();
    assert!(line.contains("all_masked"), "{line}");
    sample(&f, &["--bias", "0:-inf,1:-inf"]).ok();
}

#[test]
fn invalid_parameters_give_the_typed_message() {
    let f = good_file();
    for (args, needle) in [
        (&["--temperature", "-1"][..], "invalid temperature"),
        (&["--temperature=-0.5"], "invalid temperature"),
        (&["--temperature", "nan"], "invalid temperature"),
        (&["--temperature", "inf"], "invalid temperature"),
        (&["--top-p", "0"], "invalid top-p"),
        (&["--top-p", "1.5"], "invalid top-p"),
        (&["--min-p", "2"], "invalid min-p"),
        (&["--min-p", "-0.1"], "invalid min-p"),
        (&["--bias", "8:1"], "out of range"),
        (&["--bias", "1:1,1:2"], "more than once"),
        (&["--bias", "1:inf"], "invalid"),
        (&["--bias", "1:nan"], "invalid"),
        (&["--bias", "1"], "INDEX:VALUE"),
        (&["--bias", "x:1"], "bias"),
        (&["--bias", "1:abc"], "not a number"),
        (&["--bias", "4294967296:1"], "32-bit"),
        (&["--top-k", "-1"], "top-k"),
        (&["--profile", "f16"], "unknown noise profile"),
        (&["--positions", "5..5"], "empty"),
        (&["--positions", "9..3"], "empty"),
        (&["--positions", "0..100000001"], "at most"),
        (&["--positions", "12"], "A..B"),
        (
            &["--positions", "1..2", "--position", "1"],
            "cannot be used",
        ),
        (&["--format", "xml"], "xml"),
    ] {
        let line = sample(&f, args).fails(2).to_owned();
        assert!(line.contains(needle), "{args:?}: {line}");
    }
    let p = f.display().to_string();
    tailrace(&["sample", "--logits", &p, "--seed", "1"]).fails(2);
    tailrace(&["sample", "--logits", &p, "--position", "1"]).fails(2);
    tailrace(&[
        "sample",
        "--logits",
        &p,
        "--seed",
        "0xZZ",
        "--position",
        "1",
    ])
    .fails(2);
    tailrace(&["sample", "--seed", "1", "--position", "1"]).fails(2);
}
