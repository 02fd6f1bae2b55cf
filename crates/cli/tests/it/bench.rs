//! `tailrace bench-cpu` on a tiny problem: the JSON shape.

use crate::common::tailrace;

#[test]
fn bench_json_has_every_case() {
    let v = tailrace(&[
        "bench-cpu",
        "--vocab",
        "512",
        "--rows",
        "4",
        "--reps",
        "1",
        "--threads",
        "2",
        "--format",
        "json",
    ])
    .json();
    assert_eq!(v["vocab"].as_u64(), Some(512));
    assert_eq!(v["threads"], serde_json::json!([1, 2]));
    let results = v["results"].as_array().expect("results");
    // 4 profiles x 4 filters + greedy, at 1 and 2 threads.
    assert_eq!(results.len(), (4 * 4 + 1) * 2);
    for r in results {
        let ms = r["ms_per_row"].as_f64().expect("ms_per_row");
        assert!(ms > 0.0 && ms.is_finite(), "{r}");
        assert!(r["rows_per_s"].as_f64().is_some_and(|x| x > 0.0), "{r}");
    }
    assert_eq!(v["requirement"]["applies"], false);

    let run = tailrace(&[
        "bench-cpu",
        "--vocab",
        "256",
        "--rows",
        "2",
        "--reps",
        "1",
        "--threads",
        "1",
    ]);
    let out = run.ok();
    assert!(out.contains("ms/row 1thr"), "{out}");
    assert!(out.contains("greedy"), "{out}");
}

#[test]
fn bench_rejects_bad_sizes() {
    tailrace(&["bench-cpu", "--threads", "0"]).fails(2);
    tailrace(&["bench-cpu", "--rows", "0"]).fails(2);
    tailrace(&["bench-cpu", "--vocab", "0"]).fails(2);
    tailrace(&["bench-cpu", "--reps", "0"]).fails(2);
    tailrace(&["bench-cpu", "--rows", "-1"]).fails(2);
}
