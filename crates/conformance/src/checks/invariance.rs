//! Bit-exactness against the reference and the invariances that follow from
//! keying noise by logical coordinates only. spec: SAMPLER.md §8.

use super::diff_rows;
use crate::gen::{self, splitmix, BatchSpec};
use crate::{Ctx, Geometry, Outcome, Sampler};
use proptest::test_runner::{TestCaseError, TestError};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Runs `body` on `cases` generated batches; returns the outcome with the
/// shrunk failing batch, if any.
fn for_batches(
    cases: usize,
    seed: u64,
    max_vocab: usize,
    max_rows: usize,
    what: &str,
    body: impl Fn(&BatchSpec) -> Result<usize, String>,
) -> Outcome {
    let mut runner = gen::runner(cases as u32, seed);
    let rows = AtomicUsize::new(0);
    let r = runner.run(&gen::batch_strategy(max_vocab, max_rows), |spec| {
        let n = body(&spec).map_err(TestCaseError::fail)?;
        rows.fetch_add(n, Ordering::Relaxed);
        Ok(())
    });
    match r {
        Ok(()) => Outcome::verified(format!(
            "{cases} random batches, {} rows checked: {what}",
            rows.load(Ordering::Relaxed)
        )),
        Err(TestError::Fail(reason, spec)) => {
            Outcome::violated(format!("{reason}; smallest failing batch: {spec:?}"))
        }
        Err(TestError::Abort(reason)) => Outcome::violated(format!("aborted: {reason}")),
    }
}

fn sample(
    b: &dyn Sampler,
    input: &crate::BatchInput,
    g: Geometry,
) -> Result<Vec<tailrace_model::RowOutput>, String> {
    b.sample(input, g)
        .map_err(|e| format!("backend error: {e:#}"))
}

pub(super) fn token_bit_exact(ctx: &Ctx, b: &dyn Sampler) -> Outcome {
    let cases = ctx.scale(300, 4000, 40000);
    let max_vocab = ctx.scale(20000, 262144, 262144);
    for_batches(
        cases,
        0x70CE_0001,
        max_vocab,
        16,
        "tokens and statuses equal the CPU model",
        |spec| {
            let input = spec.build();
            let want = sample(&ctx.reference, &input, Geometry::default())?;
            let got = sample(b, &input, Geometry::default())?;
            diff_rows(&want, &got).map_or(Ok(input.rows.len()), Err)
        },
    )
}

pub(super) fn batch_position_invariance(ctx: &Ctx, b: &dyn Sampler) -> Outcome {
    let cases = ctx.scale(150, 1500, 10000);
    for_batches(
        cases,
        0xBA7C_0001,
        8000,
        12,
        "permuted, duplicated and re-mated batches give each row the same output",
        |spec| {
            let input = spec.build();
            let base = sample(b, &input, Geometry::default())?;
            let n = input.rows.len();
            let mut s = spec.rows[0].data_seed;
            let mut perm: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                perm.swap(i, (splitmix(&mut s) % (i as u64 + 1)) as usize);
            }
            // A permutation, a batch with every row twice, and a random subset with repeats.
            let dup: Vec<usize> = (0..n).flat_map(|r| [r, r]).collect();
            let subset: Vec<usize> = (0..(1 + splitmix(&mut s) % (2 * n as u64)))
                .map(|_| (splitmix(&mut s) % n as u64) as usize)
                .collect();
            for order in [perm, dup, subset] {
                let got = sample(b, &input.select(&order), Geometry::default())?;
                for (k, &r) in order.iter().enumerate() {
                    if got[k] != base[r] {
                        return Err(format!(
                            "row {r} at slot {k} of a batch of {}: {:?}, alone in order {:?}",
                            order.len(),
                            got[k],
                            base[r]
                        ));
                    }
                }
            }
            Ok(n)
        },
    )
}

pub(super) fn single_equals_batched(ctx: &Ctx, b: &dyn Sampler) -> Outcome {
    let cases = ctx.scale(100, 1000, 8000);
    for_batches(
        cases,
        0x5167_0001,
        8000,
        8,
        "each row sampled alone equals its batched output",
        |spec| {
            let input = spec.build();
            let base = sample(b, &input, Geometry::default())?;
            for (r, batched) in base.iter().enumerate() {
                let one = sample(b, &input.select(&[r]), Geometry::default())?;
                if one[0] != *batched {
                    return Err(format!("row {r}: alone {:?}, batched {batched:?}", one[0]));
                }
            }
            Ok(input.rows.len())
        },
    )
}

pub(super) fn launch_geometry_invariance(ctx: &Ctx, b: &dyn Sampler) -> Outcome {
    let cases = ctx.scale(100, 1000, 8000);
    let max_vocab = ctx.scale(20000, 262144, 262144);
    for_batches(
        cases,
        0x6E03_0001,
        max_vocab,
        6,
        "every launch geometry gives the default geometry's outputs",
        |spec| {
            let input = spec.build();
            let base = sample(b, &input, Geometry::default())?;
            for g in b.geometries(input.vocab).into_iter().skip(1) {
                let got = sample(b, &input, g)?;
                if let Some(d) = diff_rows(&base, &got) {
                    return Err(format!("geometry {g:?}: {d}"));
                }
            }
            Ok(input.rows.len())
        },
    )
}

pub(super) fn stream_contention_replay(ctx: &Ctx, b: &dyn Sampler) -> Outcome {
    let mut runner = gen::runner(1, 0x57E4_0001);
    let spec = proptest::strategy::ValueTree::current(
        &proptest::strategy::Strategy::new_tree(&gen::batch_strategy(131072, 64), &mut runner)
            .expect("strategy"),
    );
    let input = spec.build();
    let replays = ctx.scale(20, 100, 1000);
    let Some(base) = b.sample_under_contention(&input, replays, false) else {
        return Outcome::not_verified("backend has no streams to contend");
    };
    let base = match base {
        Ok(r) => r,
        Err(e) => return Outcome::violated(format!("backend error: {e:#}")),
    };
    let want = match ctx.reference.sample(&input, Geometry::default()) {
        Ok(w) => w,
        Err(e) => return Outcome::violated(format!("reference error: {e:#}")),
    };
    for (k, r) in base.iter().enumerate() {
        if let Some(d) = diff_rows(&want, r) {
            return Outcome::violated(format!("replay {k} under contention: {d}"));
        }
    }
    // Negative control: the backend perturbs one replay's positions; the
    // harness must see it, or it could not have seen a real difference.
    let control = match b.sample_under_contention(&input, 4, true) {
        Some(Ok(r)) => r,
        Some(Err(e)) => return Outcome::violated(format!("negative control failed to run: {e:#}")),
        None => return Outcome::violated("negative control unavailable"),
    };
    if control.iter().all(|r| diff_rows(&want, r).is_none()) {
        return Outcome::violated("negative control: a perturbed replay was not detected");
    }
    Outcome::verified(format!(
        "{replays} replays of a {}-row batch under side-stream load equal the CPU model; the perturbed negative control was detected",
        input.rows.len()
    ))
}

pub(super) fn vocab_shard_invariance(ctx: &Ctx, _b: &dyn Sampler) -> Outcome {
    use tailrace_model::race::{Best, PreparedRow, RowData};
    let cases = ctx.scale(200, 2000, 20000);
    for_batches(
        cases,
        0x5A4D_0001,
        6000,
        4,
        "racing vocabulary shards and merging winners equals the unsharded token",
        |spec| {
            let input = spec.build();
            let crate::Logits::F32(_) = &input.logits else {
                // Shards are a property of the race, not the dtype: f32 rows suffice.
                return Ok(0);
            };
            let want = ctx
                .reference
                .sample(&input, Geometry::default())
                .map_err(|e| e.to_string())?;
            let crate::Logits::F32(x) = &input.logits else {
                unreachable!()
            };
            let mut s = spec.rows[0].data_seed ^ 0x5A4D;
            for (r, req) in input.rows.iter().enumerate() {
                let row = &x[r * input.stride..r * input.stride + input.vocab];
                let dense = req.bias.to_dense(input.vocab);
                let prep = PreparedRow::new(
                    RowData::new(row, dense.as_deref()),
                    req.params,
                    std::slice::from_ref(&(0..input.vocab)),
                    false,
                );
                if let Some(out) = prep.settled() {
                    if out != want[r] {
                        return Err(format!("row {r}: settled {out:?} vs {:?}", want[r]));
                    }
                    continue;
                }
                // Random shard boundaries (not aligned to anything).
                let mut cuts: Vec<usize> = (0..(splitmix(&mut s) % 6))
                    .map(|_| (splitmix(&mut s) % input.vocab as u64) as usize)
                    .collect();
                cuts.push(0);
                cuts.push(input.vocab);
                cuts.sort_unstable();
                let best = cuts
                    .windows(2)
                    .map(|w| prep.race(w[0]..w[1]))
                    .fold(Best::NONE, Best::merge);
                let got = prep.finish(best);
                if got != want[r] {
                    return Err(format!(
                        "row {r} with shards at {cuts:?}: merged {got:?}, unsharded {:?}",
                        want[r]
                    ));
                }
            }
            Ok(input.rows.len())
        },
    )
}
