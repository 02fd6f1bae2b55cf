//! The `triton` profile replays real Triton bit for bit.
//!
//! `golden/triton/noise_cases.json` was captured on an H200 with Triton 3.6 by
//! `golden/triton/capture.py`: for 7 seeds x 8 positions x 10 vocabulary indices it
//! holds Philox word 0 as `tl.philox` returned it, the bits of
//! `tl.uint_to_uniform_float(word)` and the bits of
//! `-tl.log(tl.maximum(u, FLT_MIN))` (Megatron's request-seed noise).

use tailrace_noise::profile::triton;

fn cases_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../golden/triton/noise_cases.json")
}

/// One row: (seed, position, index, word, uniform bits, noise bits).
type Row = (u64, u64, u32, u32, u32, u32);

fn load_rows() -> Vec<Row> {
    let path = cases_path();
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let doc: serde_json::Value = serde_json::from_str(&text).expect("noise_cases.json is JSON");
    let cols: Vec<&str> = doc["columns"]
        .as_array()
        .expect("columns")
        .iter()
        .map(|c| c.as_str().expect("column name"))
        .collect();
    assert_eq!(
        cols,
        [
            "seed",
            "position",
            "index",
            "word",
            "uniform_bits",
            "noise_bits"
        ]
    );
    doc["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            let v: Vec<u64> = r
                .as_array()
                .expect("row")
                .iter()
                .map(|x| x.as_u64().expect("unsigned integer"))
                .collect();
            assert_eq!(v.len(), 6);
            let u32_of = |x: u64| u32::try_from(x).expect("fits u32");
            (
                v[0],
                v[1],
                u32_of(v[2]),
                u32_of(v[3]),
                u32_of(v[4]),
                u32_of(v[5]),
            )
        })
        .collect()
}

#[test]
fn matches_captured_triton() {
    let rows = load_rows();
    assert_eq!(rows.len(), 560, "7 seeds x 8 positions x 10 indices");
    let mut bad = Vec::new();
    for &(seed, position, index, word, u_bits, e_bits) in &rows {
        let w = triton::word(seed, position, index);
        let u = triton::uniform(w);
        let e = triton::variate(u);
        // The uniform and noise are checked from the captured word / uniform too, so one
        // wrong stage does not hide the others.
        let u_from_captured = triton::uniform(word).to_bits();
        let e_from_captured = triton::variate(f32::from_bits(u_bits)).to_bits();
        if w != word
            || u.to_bits() != u_bits
            || e.to_bits() != e_bits
            || u_from_captured != u_bits
            || e_from_captured != e_bits
        {
            bad.push(format!(
                "seed {seed} position {position} index {index}: word {w:08x} (triton {word:08x}), \
                 uniform {:08x} (triton {u_bits:08x}), noise {:08x} (triton {e_bits:08x}, \
                 from triton's uniform {e_from_captured:08x})",
                u.to_bits(),
                e.to_bits()
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {} captured Triton rows differ; first ones:\n{}",
        bad.len(),
        rows.len(),
        bad.iter().take(10).cloned().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn captured_table_covers_the_edges() {
    let rows = load_rows();
    let has = |f: &dyn Fn(&Row) -> bool| rows.iter().any(f);
    assert!(has(&|r| r.0 == u64::MAX));
    assert!(has(&|r| r.0 == 1 << 32));
    assert!(has(&|r| r.1 == (1 << 32) - 1));
    assert!(has(&|r| r.1 == (1 << 40) + 3));
    assert!(has(&|r| r.2 == (1 << 31) - 1));
}
