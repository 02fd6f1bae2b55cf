//! Filter semantics observed through tokens, against a brute-force survivor
//! set written here from the spec text (not from the model's filter code).
//! spec: SAMPLER.md §4.

use crate::gen::{splitmix, unit};
use crate::{BatchInput, Ctx, Geometry, Logits, Outcome, Sampler};
use std::collections::BTreeSet;
use tailrace_model::{LogitBias, RawParams, RowOutput, RowRequest, SamplingParams};
use tailrace_noise::{math, NoiseProfile};

/// `ceil(p * q)` for p in (0, 1), by schoolbook big-integer arithmetic.
fn ceil_mul(p: f64, q: u128) -> u128 {
    let bits = p.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i64;
    let m = if e == 0 {
        bits & ((1 << 52) - 1)
    } else {
        (bits & ((1 << 52) - 1)) | (1 << 52)
    };
    let shift = if e == 0 { 1074 } else { 1075 - e } as u32;
    // limbs of m * q, base 2^32, little endian
    let ml = [m as u32 as u64, m >> 32];
    let ql: Vec<u64> = (0..4).map(|k| ((q >> (32 * k)) as u32) as u64).collect();
    let mut prod = [0u64; 7];
    for (i, a) in ml.iter().enumerate() {
        let mut carry = 0u64;
        for (j, b) in ql.iter().enumerate() {
            let t = prod[i + j] + a * b + carry;
            prod[i + j] = t & 0xffff_ffff;
            carry = t >> 32;
        }
        prod[i + 4] += carry;
    }
    let bit = |k: u32| -> bool { (k / 32) < 7 && (prod[(k / 32) as usize] >> (k % 32)) & 1 == 1 };
    let mut quotient: u128 = 0;
    for k in (shift..224).rev() {
        quotient = (quotient << 1) | u128::from(bit(k));
    }
    let remainder = (0..shift.min(224)).any(bit);
    quotient + u128::from(remainder)
}

/// The survivor set of a clean row by the spec's rules, evaluated naively.
pub(crate) fn survivors(a: &[f64], p: &SamplingParams) -> BTreeSet<u32> {
    let mut order: Vec<u32> = (0..a.len() as u32)
        .filter(|&i| a[i as usize] > f64::NEG_INFINITY)
        .collect();
    order.sort_by(|&x, &y| {
        a[y as usize]
            .partial_cmp(&a[x as usize])
            .unwrap()
            .then(x.cmp(&y))
    });
    let a_max = a[order[0] as usize];
    if p.is_greedy() {
        return [order[0]].into();
    }
    let mut keep = order.len();
    if let Some(k) = p.top_k() {
        keep = keep.min(k as usize);
    }
    if let Some(mp) = p.min_p() {
        let thr = p.temp() * math::ln(mp);
        keep = keep.min(
            order
                .iter()
                .take_while(|&&i| a[i as usize] - a_max >= thr)
                .count(),
        );
    }
    if let Some(tp) = p.top_p() {
        let mass = |i: u32| -> u128 {
            let y = (a[i as usize] - a_max) / p.temp();
            (math::exp_nonpositive(y) * 2f64.powi(63)).floor() as u128
        };
        let total: u128 = order[..keep].iter().map(|&i| mass(i)).sum();
        let target = ceil_mul(tp, total);
        let mut cum = 0u128;
        let mut n = 0;
        for &i in &order[..keep] {
            cum += mass(i);
            n += 1;
            if cum >= target {
                break;
            }
        }
        keep = n;
    }
    order[..keep].iter().copied().collect()
}

/// `a = x + b` of a row as the spec defines it.
fn a_of(x: &[f32], bias: &LogitBias) -> Vec<f64> {
    let b = bias.to_dense(x.len());
    x.iter()
        .enumerate()
        .map(|(i, &v)| f64::from(v) + b.as_ref().map_or(0.0, |b| f64::from(b[i])))
        .collect()
}

/// Draws `n` tokens of one row at positions `0..n` through the backend.
fn draws(b: &dyn Sampler, x: &[f32], req: &RowRequest, n: usize) -> anyhow::Result<Vec<RowOutput>> {
    let v = x.len();
    let logits: Vec<f32> = (0..n).flat_map(|_| x.iter().copied()).collect();
    let rows = (0..n as u64)
        .map(|p| RowRequest {
            params: req.params.at_position(p),
            bias: req.bias.clone(),
        })
        .collect();
    b.sample(
        &BatchInput {
            logits: Logits::F32(logits),
            vocab: v,
            stride: v,
            rows,
        },
        Geometry::default(),
    )
}

/// Random filtered rows: (logits, request).
fn cases(
    ctx: &Ctx,
    seed: u64,
    filter: impl Fn(&mut u64) -> RawParams,
) -> Vec<(Vec<f32>, RowRequest)> {
    let mut s = seed;
    (0..ctx.scale(24, 120, 600))
        .map(|_| {
            let v = 1 + (splitmix(&mut s) % 300) as usize;
            let ties = splitmix(&mut s) % 2 == 0;
            let x: Vec<f32> = (0..v)
                .map(|_| {
                    if ties {
                        (splitmix(&mut s) % 6) as f32 * 0.5
                    } else {
                        ((unit(&mut s) - 0.5) * 6.0) as f32
                    }
                })
                .collect();
            let mut raw = filter(&mut s);
            raw.seed = splitmix(&mut s);
            raw.profile = NoiseProfile::ALL[(splitmix(&mut s) % 4) as usize];
            let bias = if splitmix(&mut s) % 3 == 0 {
                LogitBias::Sparse(vec![(
                    (splitmix(&mut s) % v as u64) as u32,
                    f32::NEG_INFINITY,
                )])
            } else {
                LogitBias::None
            };
            (
                x,
                RowRequest {
                    params: SamplingParams::new(raw).expect("valid"),
                    bias,
                },
            )
        })
        .collect()
}

/// Every drawn token is a survivor, and (with enough draws of a flat enough
/// law) every survivor is drawn: the drawn set is exactly the survivor set.
fn drawn_set_is_survivor_set(
    ctx: &Ctx,
    b: &dyn Sampler,
    seed: u64,
    what: &str,
    filter: impl Fn(&mut u64) -> RawParams,
) -> Outcome {
    let n = ctx.scale(3000, 20000, 100000);
    let mut rows = 0;
    for (x, req) in cases(ctx, seed, filter) {
        let a = a_of(&x, &req.bias);
        if a.iter().all(|v| *v == f64::NEG_INFINITY) {
            continue;
        }
        let want = survivors(&a, &req.params);
        let out = match draws(b, &x, &req, n) {
            Ok(o) => o,
            Err(e) => return Outcome::violated(format!("backend error: {e:#}")),
        };
        let got: BTreeSet<u32> = out.iter().map(|o| o.token).collect();
        if let Some(t) = got.difference(&want).next() {
            return Outcome::violated(format!("{what}: token {t} drawn outside the survivor set {want:?}; V {} params {:?} logits {x:?}", x.len(), req.params.raw()));
        }
        // Every survivor whose filtered probability gives >= 30 expected draws must appear.
        let t = req.params.temp();
        let amax = want
            .iter()
            .map(|&i| a[i as usize])
            .fold(f64::NEG_INFINITY, f64::max);
        let z: f64 = want
            .iter()
            .map(|&i| ((a[i as usize] - amax) / t).exp())
            .sum();
        for &i in &want {
            let p = ((a[i as usize] - amax) / t).exp() / z;
            if p * n as f64 >= 30.0 && !got.contains(&i) {
                return Outcome::violated(format!("{what}: survivor {i} (probability {p:.3}) never drawn in {n} draws; params {:?}", req.params.raw()));
            }
        }
        rows += 1;
    }
    Outcome::verified(format!(
        "{rows} rows x {n} draws: the drawn set equals the spec's survivor set ({what})"
    ))
}

pub(super) fn top_k_count(ctx: &Ctx, b: &dyn Sampler) -> Outcome {
    drawn_set_is_survivor_set(
        ctx,
        b,
        0x70_0001,
        "top-k keeps exactly k, ties by index",
        |s| RawParams {
            temperature: 2.0 + unit(s) * 4.0,
            top_k: 2 + (splitmix(s) % 6) as u32,
            ..RawParams::default()
        },
    )
}

pub(super) fn top_p_minimal(ctx: &Ctx, b: &dyn Sampler) -> Outcome {
    drawn_set_is_survivor_set(ctx, b, 0x70_0002, "top-p keeps the minimal prefix", |s| {
        RawParams {
            temperature: 0.7 + unit(s) * 2.0,
            top_p: 0.05 + unit(s) * 0.6,
            ..RawParams::default()
        }
    })
}

pub(super) fn min_p_rule(ctx: &Ctx, b: &dyn Sampler) -> Outcome {
    drawn_set_is_survivor_set(
        ctx,
        b,
        0x70_0003,
        "min-p keeps a - a_max >= T ln(min_p)",
        |s| RawParams {
            temperature: 0.7 + unit(s) * 2.0,
            min_p: 0.05 + unit(s) * 0.9,
            ..RawParams::default()
        },
    )
}

pub(super) fn greedy_exact(ctx: &Ctx, b: &dyn Sampler) -> Outcome {
    let mut rows = 0;
    for (k, (x, req)) in cases(ctx, 0x70_0004, |s| RawParams {
        temperature: if splitmix(s) % 2 == 0 { 0.0 } else { 1.0 },
        top_k: 1,
        top_p: if splitmix(s) % 2 == 0 { 1.0 } else { 0.3 },
        ..RawParams::default()
    })
    .into_iter()
    .enumerate()
    {
        let mut raw = req.params.raw();
        if k % 2 == 0 {
            raw.top_k = 0;
            raw.temperature = 0.0;
        }
        let req = RowRequest {
            params: SamplingParams::new(raw).expect("valid"),
            bias: req.bias,
        };
        let a = a_of(&x, &req.bias);
        let Some(top) =
            (0..a.len())
                .filter(|&i| a[i] > f64::NEG_INFINITY)
                .fold(None, |m: Option<usize>, i| match m {
                    Some(j) if a[j] >= a[i] => Some(j),
                    _ => Some(i),
                })
        else {
            continue;
        };
        let out = match draws(b, &x, &req, 16) {
            Ok(o) => o,
            Err(e) => return Outcome::violated(format!("backend error: {e:#}")),
        };
        if let Some(o) = out.iter().find(|o| o.token != top as u32) {
            return Outcome::violated(format!("greedy drew {o:?}, argmax with smallest index is {top}; params {raw:?} logits {x:?}"));
        }
        rows += 1;
    }
    Outcome::verified(format!(
        "{rows} rows x 16 positions: T = 0 and top-k = 1 give the argmax with the smallest index"
    ))
}

pub(super) fn filter_coupling(ctx: &Ctx, b: &dyn Sampler) -> Outcome {
    let n = ctx.scale(400, 4000, 20000);
    let mut checked = 0;
    for (x, req) in cases(ctx, 0x70_0005, |s| RawParams {
        temperature: 0.5 + unit(s) * 2.0,
        top_k: if splitmix(s) % 2 == 0 {
            0
        } else {
            1 + (splitmix(s) % 20) as u32
        },
        top_p: if splitmix(s) % 2 == 0 {
            1.0
        } else {
            0.1 + unit(s) * 0.8
        },
        min_p: if splitmix(s) % 2 == 0 {
            0.0
        } else {
            unit(s) * 0.5
        },
        ..RawParams::default()
    }) {
        let a = a_of(&x, &req.bias);
        if a.iter().all(|v| *v == f64::NEG_INFINITY) {
            continue;
        }
        let keep = survivors(&a, &req.params);
        let mut plain = req.params.raw();
        (plain.top_k, plain.top_p, plain.min_p) = (0, 1.0, 0.0);
        let plain_req = RowRequest {
            params: SamplingParams::new(plain).expect("valid"),
            bias: req.bias.clone(),
        };
        let (f, u) = match (draws(b, &x, &req, n), draws(b, &x, &plain_req, n)) {
            (Ok(f), Ok(u)) => (f, u),
            (Err(e), _) | (_, Err(e)) => return Outcome::violated(format!("backend error: {e:#}")),
        };
        for (pos, (f, u)) in f.iter().zip(&u).enumerate() {
            if keep.contains(&u.token) {
                checked += 1;
                if f.token != u.token {
                    return Outcome::violated(format!(
                        "position {pos}: unfiltered winner {} survives the filter but the filtered draw is {}; params {:?}",
                        u.token,
                        f.token,
                        req.params.raw()
                    ));
                }
            }
        }
    }
    Outcome::verified(format!("{checked} draws whose unfiltered winner survived the filter: the filtered winner was the same token"))
}

#[cfg(test)]
mod tests {
    use super::ceil_mul;

    #[test]
    fn ceil_mul_small_cases() {
        assert_eq!(ceil_mul(0.5, 11), 6);
        assert_eq!(ceil_mul(0.25, 8), 2);
        assert_eq!(
            ceil_mul(0.75, (1u128 << 95) + 1),
            (3 * ((1u128 << 95) + 1)).div_ceil(4)
        );
        assert_eq!(ceil_mul(f64::MIN_POSITIVE, 1 << 90), 1);
    }
}
