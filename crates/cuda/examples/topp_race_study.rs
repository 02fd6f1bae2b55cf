//! How much work the ways of racing a top-p row inside the bf16 histogram
//! (`kernels/topp.cu`, `TR_TOPP_RACE`) would leave, counted on the host for
//! the benchmark's rows (std 2, V = 131072, T = 1, top-p 0.9) in the cluster
//! shapes of B = 256, 64 and 1 on an H200 (2, 4 and 16 chunks a row). No
//! device needed; the figures steer the kernel's design (docs/cuda-notes.md,
//! run 31).
//!
//! For each row and chunk count it prints, as medians and maxima over rows:
//! - `surv`: elements whose score's upper bound (from the 16-bit lead)
//!   reaches L0, the first maximum's exact score (the survivors of
//!   `TR_TOPP_RACE`); `max/chunk` the most in one chunk (a chunk's region of
//!   the row's list holds 4,096 / chunks); `class` the kernel's own count,
//!   its test by lead class (`tests/support/topp_race.rs`), and `max/chunk`
//!   of those;
//! - `oracle`: those whose upper bound reaches the winner's score, the
//!   fewest survivors any threshold known before the cut could leave;
//! - `entry`: survivors that would take an exact score if each value entry
//!   kept its running best (in index order within a chunk), the work of a
//!   per-entry table in place of the survivors' list;
//! - `after`: elements taking an exact score in a race run after the cut is
//!   known, each chunk in index order with a running threshold that starts
//!   at L0 (a race inside the histogram after one more cluster barrier).
//!
//! `cargo run --release -p tailrace-cuda --example topp_race_study [rows]`

use half::bf16;
use std::collections::HashMap;
use tailrace_model::filter;
use tailrace_model::race::{self, RowData};
use tailrace_model::{RawParams, SamplingParams};
use tailrace_noise::profile::{self, exact};

#[path = "../tests/support/topp_race.rs"]
mod topp_race;

/// "median M max X" of a count a row.
fn median_max(v: &mut [usize]) -> String {
    v.sort_unstable();
    format!("median {} max {}", v[v.len() / 2], v[v.len() - 1])
}

fn main() {
    let rows: u32 = std::env::args()
        .nth(1)
        .map(|s| s.parse().expect("rows: a number"))
        .unwrap_or(48);
    let vocab = 131072usize;
    for nchunks in [2usize, 4, 16] {
        let (mut surv, mut chunk_max, mut oracle, mut entry, mut after) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut class, mut class_max) = (Vec::new(), Vec::new());
        for r in 0..rows {
            // The benchmark's logits: four uniforms summed, std 2 (bench.rs).
            let mut words = (0..).flat_map(|n| profile::block(u64::from(r), n, 7, 0x57d));
            let mut unit = || f64::from(words.next().unwrap()) / 4294967296.0;
            let x: Vec<bf16> = (0..vocab)
                .map(|_| {
                    let n = (0..4).map(|_| unit()).sum::<f64>() - 2.0;
                    bf16::from_f64(n * 2.0 * 3f64.sqrt())
                })
                .collect();
            let p = SamplingParams::new(RawParams {
                top_p: 0.9,
                seed: 0x5eed ^ u64::from(r),
                position: u64::from(r),
                ..RawParams::default()
            })
            .unwrap();
            let row = RowData::new(&x[..], None);
            let (seed, pos, t) = (p.seed(), p.position(), p.temp());
            let top = (0..vocab).fold(0, |b, i| if row.a(i) > row.a(b) { i } else { b });
            let a_max = row.a(top);
            let cut = filter::cut(&row, &p, a_max).expect("a top-p cut");
            let l0 = race::element_score(&row, &p, top);
            let ub = |i: usize| {
                race::score(
                    row.a(i),
                    t,
                    exact::ln_variate_lower_bound(exact::lead(seed, pos, i as u32)),
                )
            };
            let ubs: Vec<f64> = (0..vocab).map(ub).collect();
            let cuts = topp_race::class_cutoffs(-t, l0);
            let by_class =
                |i: usize| topp_race::survives(&cuts, x[i].to_f32(), seed, pos, i as u32);
            let win = (0..vocab)
                .filter(|&i| cut.keeps(row.a(i), i as u32))
                .map(|i| (race::element_score(&row, &p, i), i))
                .fold((f64::NEG_INFINITY, 0), |b, c| if c.0 > b.0 { c } else { b });
            let per = vocab / nchunks;
            let (mut s_row, mut s_max, mut e_row, mut a_row) = (0, 0, 0, 0);
            let (mut c_row, mut c_max) = (0, 0);
            for c in 0..nchunks {
                let range = c * per..(c + 1) * per;
                let s_c = range.clone().filter(|&i| ubs[i] >= l0).count();
                s_row += s_c;
                s_max = s_max.max(s_c);
                let c_c = range.clone().filter(|&i| by_class(i)).count();
                c_row += c_c;
                c_max = c_max.max(c_c);
                // Per-entry running bests among the survivors.
                let mut best: HashMap<u16, f64> = HashMap::new();
                for i in range.clone().filter(|&i| ubs[i] >= l0) {
                    let b = best.entry(x[i].to_bits()).or_insert(f64::NEG_INFINITY);
                    if ubs[i] >= *b {
                        e_row += 1;
                        *b = b.max(race::element_score(&row, &p, i));
                    }
                }
                // A race after the cut, in index order, from L0.
                let mut thr = l0;
                for i in range.filter(|&i| cut.keeps(row.a(i), i as u32)) {
                    if ubs[i] >= thr {
                        a_row += 1;
                        thr = thr.max(race::element_score(&row, &p, i));
                    }
                }
            }
            surv.push(s_row);
            class.push(c_row);
            class_max.push(c_max);
            chunk_max.push(s_max);
            oracle.push((0..vocab).filter(|&i| ubs[i] >= win.0).count());
            entry.push(e_row);
            after.push(a_row);
        }
        println!(
            "{nchunks:>2} chunks, {rows} rows: surv {}; max/chunk {}; class {}; max/chunk {}; \
             oracle {}; entry {}; after {}",
            median_max(&mut surv),
            median_max(&mut chunk_max),
            median_max(&mut class),
            median_max(&mut class_max),
            median_max(&mut oracle),
            median_max(&mut entry),
            median_max(&mut after),
        );
    }
}
