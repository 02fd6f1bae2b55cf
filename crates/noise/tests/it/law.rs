//! The exact law of each noise profile, without sampling. spec: NOISE.md §3-§6.
//!
//! Each profile's `E` is a monotone function of a uniform on a finite grid, so
//! `P(E < t)` is a count of grid points divided by the grid size: found by
//! binary search on the monotone map (`exact`: 2^128 points, `f64`: 2^52) or by
//! enumerating every distinct uniform (`f32`: 2^24, `triton`: the ~7.5e7
//! binary32 values of |x|). The law to match is Exp(1): `P(E < t) = 1 - e^-t`,
//! computed as `-expm1(-t)` with the platform's libm, which is an oracle here,
//! not a spec path.
//!
//! A grid of `N` points can only approximate a continuous law to about `1/N`
//! absolutely, so the tolerances below are "relative error plus grid cells".

use tailrace_noise::math;
use tailrace_noise::profile::{exact, f32p, f64p, triton};

/// 2^-128, one cell of the `exact` grid.
const CELL_128: f64 = 1.0 / (1u128 << 127) as f64 / 2.0;
/// 2^-52 and 2^-24: cells of the `f64` and `f32`/`triton` grids near u = 1.
const CELL_52: f64 = 1.0 / (1u64 << 52) as f64;
const CELL_24: f64 = 1.0 / (1u64 << 24) as f64;

/// Thresholds of the exact-law check, spanning both tails.
const T_LAW: [f64; 16] = [
    1e-30, 1e-25, 1e-20, 1e-15, 1e-10, 1e-5, 1e-3, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 40.0, 80.0,
];
/// Thresholds of the tail comparison between profiles.
const T_TAIL: [f64; 6] = [1e-3, 1e-5, 1e-7, 1e-9, 1e-12, 1e-16];

/// Exp(1): P(E < t).
fn law_below(t: f64) -> f64 {
    -(-t).exp_m1()
}

/// Exp(1): P(E > t).
fn law_above(t: f64) -> f64 {
    (-t).exp()
}

/// The first `k` in `[0, u128::MAX]` where the monotone predicate holds; it must
/// hold at `u128::MAX`. The threshold is re-checked on both sides.
fn first_u128(pred: impl Fn(u128) -> bool) -> u128 {
    assert!(pred(u128::MAX));
    let (mut lo, mut hi) = (0u128, u128::MAX);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    for d in 1..=64u128 {
        assert!(
            lo.checked_sub(d).is_none_or(|k| !pred(k)),
            "not monotone below {lo:#x}"
        );
        assert!(
            lo.checked_add(d).is_none_or(&pred),
            "not monotone above {lo:#x}"
        );
    }
    lo
}

/// The first `k` in `[0, n)` where the monotone predicate holds, or `n`.
fn first_u64(n: u64, pred: impl Fn(u64) -> bool) -> u64 {
    let (mut lo, mut hi) = (0u64, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    for d in 1..=64u64 {
        assert!(
            lo.checked_sub(d).is_none_or(|k| !pred(k)),
            "not monotone below {lo}"
        );
        assert!(lo + d >= n || pred(lo + d), "not monotone above {lo}");
    }
    lo
}

/// `exact`: the number of grid points with E < t (E is non-decreasing in k).
fn exact_count_below(t: f64) -> u128 {
    first_u128(|k| exact::variate(k) >= t)
}

/// `exact`: P(E > t) as a count of grid points (2^128 - #{E <= t}).
fn exact_p_above(t: f64) -> f64 {
    let at_most = first_u128(|k| exact::variate(k) > t);
    ((u128::MAX - at_most) as f64 + 1.0) * CELL_128
}

fn rel_err(p: f64, want: f64) -> f64 {
    (p - want).abs() / want
}

#[test]
fn exact_profile_law_matches_exponential() {
    // |P - F| <= 1e-12 F + 2^-128: the grid's own resolution is one cell, which
    // dominates only at t = 1e-30 (P ~ 3.4e8 cells: rel. resolution ~3e-9) and
    // in the upper tail at t = 80 (e^-80 2^128 ~ 6.1e3 cells: ~1e-4).
    println!("exact profile: P(E < t) = k*/2^128 and P(E > t) vs Exp(1)");
    println!(
        "{:>8} {:>24} {:>10} {:>24} {:>10}",
        "t", "P(E<t)", "rel err", "P(E>t)", "rel err"
    );
    for t in T_LAW {
        let p = exact_count_below(t) as f64 * CELL_128;
        let f = law_below(t);
        let q = exact_p_above(t);
        let s = law_above(t);
        println!(
            "{t:>8e} {p:>24.17e} {:>10.2e} {q:>24.17e} {:>10.2e}",
            rel_err(p, f),
            rel_err(q, s)
        );
        assert!(
            (p - f).abs() <= 1e-12 * f + CELL_128,
            "P(E < {t}) = {p:e}, want {f:e}"
        );
        assert!(
            (q - s).abs() <= 1e-12 * s + CELL_128,
            "P(E > {t}) = {q:e}, want {s:e}"
        );
        if (1e-25..=60.0).contains(&t) {
            // Where the grid holds > 1e13 cells the relative error itself is <= 1e-12.
            assert!(rel_err(p, f) <= 1e-12 && rel_err(q, s) <= 1e-12, "t = {t}");
        }
    }
}

/// What each profile can produce at the bottom of its range, and its law there.
struct Tail {
    name: &'static str,
    /// The smallest positive E.
    e_min: f64,
    /// Its probability.
    e_min_mass: f64,
    /// P(E < t) for t in T_TAIL.
    p: [f64; 6],
}

impl Tail {
    /// The noise cap in nats: a token more than D below the top cannot win
    /// against a top whose E is about 1.
    fn cap(&self) -> f64 {
        -math::ln(self.e_min)
    }
}

fn exact_tail() -> Tail {
    let e_min = exact::variate(0);
    assert!(exact::variate(1) > e_min);
    Tail {
        name: "exact",
        e_min,
        e_min_mass: CELL_128,
        p: T_TAIL.map(|t| exact_count_below(t) as f64 * CELL_128),
    }
}

fn f64_tail() -> Tail {
    // Grid point k = (w0 << 20) | (w1 >> 12): each k carries 2^12 of the 2^64 word pairs.
    const N: u64 = 1 << 52;
    let e = |k: u64| {
        f64p::variate(f64p::uniform([
            (k >> 20) as u32,
            ((k & 0xF_FFFF) << 12) as u32,
        ]))
    };
    let e_min = e(N - 1);
    assert!(e(N - 2) > e_min);
    Tail {
        name: "f64",
        e_min,
        e_min_mass: CELL_52,
        // E is non-increasing in k: the points with E < t are [k0, N).
        p: T_TAIL.map(|t| (N - first_u64(N, |k| e(k) < t)) as f64 * CELL_52),
    }
}

fn f32_tail() -> Tail {
    // Grid point j = w >> 8: each carries 2^8 of the 2^32 words.
    let mut count = [0u64; 6];
    let (mut e_min, mut e_min_count) = (f64::INFINITY, 0u64);
    for j in 0u32..1 << 24 {
        let e = f64::from(f32p::variate(f32p::uniform(j << 8)));
        for (c, t) in count.iter_mut().zip(T_TAIL) {
            *c += u64::from(e < t);
        }
        if e > 0.0 && e < e_min {
            (e_min, e_min_count) = (e, 0);
        }
        e_min_count += u64::from(e == e_min);
    }
    Tail {
        name: "f32",
        e_min,
        e_min_mass: e_min_count as f64 * CELL_24,
        p: count.map(|c| c as f64 * CELL_24),
    }
}

/// The `triton` tail, plus its largest noise apart from the clamp and the clamp.
fn triton_tail() -> (Tail, f64, (f64, f64)) {
    const WORDS: f64 = 4_294_967_296.0;
    let mut count = [0u64; 6];
    let (mut e_min, mut e_min_words) = (f64::INFINITY, 0u64);
    let mut e_max = 0.0f64;
    let mut clamp = (0.0, 0.0);
    crate::triton_magnitude_classes(|x, n| {
        let words = 2 * n; // w = x and w = !x
        let e = f64::from(triton::variate(triton::uniform(x)));
        if x == 0 {
            // u = 0, clamped to FLT_MIN: E = -logf(FLT_MIN) = 87.34.
            clamp = (e, words as f64 / WORDS);
            return;
        }
        for (c, t) in count.iter_mut().zip(T_TAIL) {
            *c += words * u64::from(e < t);
        }
        if e > 0.0 && e < e_min {
            (e_min, e_min_words) = (e, 0);
        }
        e_min_words += words * u64::from(e == e_min);
        e_max = e_max.max(e);
    });
    let tail = Tail {
        name: "triton",
        e_min,
        e_min_mass: e_min_words as f64 / WORDS,
        p: count.map(|c| c as f64 / WORDS),
    };
    (tail, e_max, clamp)
}

#[test]
fn profile_tail_caps() {
    let ex = exact_tail();
    let f64t = f64_tail();
    let f32t = f32_tail();
    let (tri, tri_e_max, tri_clamp) = triton_tail();

    println!("noise caps: the smallest positive E and D = -ln(E_min)");
    println!(
        "{:<8} {:>12} {:>12} {:>12}",
        "profile", "E_min", "P(E=E_min)", "cap D (nats)"
    );
    for r in [&ex, &f64t, &f32t, &tri] {
        println!(
            "{:<8} {:>12.4e} {:>12.4e} {:>12.3}",
            r.name,
            r.e_min,
            r.e_min_mass,
            r.cap()
        );
    }
    println!(
        "triton: largest E apart from the clamp {tri_e_max:.4} (-ln u_min, u_min ~ 2^-31); \
         clamped u = 0 gives {:.4} with probability {:.3e}",
        tri_clamp.0, tri_clamp.1
    );
    println!("P(E < t), relative error vs 1 - e^-t:");
    print!("{:<8}", "profile");
    for t in T_TAIL {
        print!(" {:>20}", format!("t = {t:e}"));
    }
    println!();
    for r in [&ex, &f64t, &f32t, &tri] {
        print!("{:<8}", r.name);
        for (p, t) in r.p.iter().zip(T_TAIL) {
            print!(" {:>9.3e} ({:>8.1e})", p, rel_err(*p, law_below(t)));
        }
        println!();
    }

    // exact: tail to 2^-129 (89.4 nats) and the exponential law at every t.
    assert!(ex.cap() > 88.0, "exact cap {}", ex.cap());
    for (p, t) in ex.p.iter().zip(T_TAIL) {
        assert!(
            rel_err(*p, law_below(t)) <= 1e-12,
            "exact P(E < {t}) = {p:e}"
        );
    }

    // f64: E_min = -ln(1 - 2^-53) ~ 1.11e-16, cap 36.74 nats. Its midpoint grid
    // gets P(E < t) right to half a cell (2^-53) at every t >= E_min, i.e. a
    // relative error of at most 1.1e-16 / t: < 1e-6 down to t = 1e-9, 1e-4 at
    // 1e-12, ~10% at 1e-15. Below E_min, P = 0.
    assert!(
        (f64t.e_min / CELL_52 * 2.0 - 1.0).abs() < 1e-12,
        "f64 E_min {}",
        f64t.e_min
    );
    assert!((36.7..36.8).contains(&f64t.cap()), "f64 cap {}", f64t.cap());
    for (p, t) in f64t.p.iter().zip(T_TAIL) {
        let f = law_below(t);
        if t >= f64t.e_min {
            assert!(
                (p - f).abs() <= 0.5 * CELL_52 + 1e-12 * f,
                "f64 P(E < {t}) = {p:e}"
            );
        } else {
            assert_eq!(*p, 0.0, "f64 P(E < {t}) below E_min");
        }
        if t >= 1e-9 {
            assert!(
                rel_err(*p, f) < 1e-6,
                "f64 P(E < {t}) = {p:e}, rel err {}",
                rel_err(*p, f)
            );
        }
    }

    // f32: u = (j + 1) 2^-24 on (0, 1]; E_min = 2^-24 (16.64 nats), and 2^-24
    // carries double mass: u = 1 (E = 0, clamped) and u = 1 - 2^-24.
    assert_eq!(f32t.e_min, CELL_24, "f32 E_min");
    assert_eq!(
        f32t.e_min_mass,
        2.0 * CELL_24,
        "f32: 2^-24 carries two grid points"
    );
    assert!((16.6..16.7).contains(&f32t.cap()), "f32 cap {}", f32t.cap());
    for (p, t) in f32t.p.iter().zip(T_TAIL) {
        if t <= CELL_24 {
            assert_eq!(*p, 0.0, "f32 P(E < {t})");
        } else {
            assert!(
                (p - law_below(t)).abs() <= CELL_24,
                "f32 P(E < {t}) = {p:e}"
            );
        }
    }

    // triton: f32(|x|) keeps 24 bits, so near u = 1 the uniforms are 2^-24
    // apart although x has 31 bits; and the scale 0x2FFFFFFF = 2^-31 (1 - 2^-24)
    // moves each class down one step: the top class (x >= 2^31 - 64, half a
    // class) gives u = 1 - 2^-24, E = 2^-24. So its cap is 16.64 nats, like
    // f32, not the 31 ln 2 = 21.5 nats that 31 bits suggest: 21.49 is the
    // largest E apart from the clamp (u = 2^-31 (1 - 2^-24)), the other end.
    // Its law is low by 0.5 to 1.5 cells of 2^-24 near the cap.
    assert_eq!(tri.e_min, CELL_24, "triton E_min");
    assert_eq!(
        tri.e_min_mass,
        0.5 * CELL_24,
        "triton: 2^-24 carries half a class (64 x)"
    );
    assert!(
        (16.6..16.7).contains(&tri.cap()),
        "triton cap {}",
        tri.cap()
    );
    assert!(
        (21.4..21.5).contains(&tri_e_max),
        "triton largest E {tri_e_max}"
    );
    assert!(
        (87.33..87.34).contains(&tri_clamp.0),
        "triton clamp {}",
        tri_clamp.0
    );
    assert_eq!(tri_clamp.1, 2.0 / 4_294_967_296.0, "words 0 and 0xffffffff");
    for (p, t) in tri.p.iter().zip(T_TAIL) {
        if t < tri.e_min {
            assert_eq!(*p, 0.0, "triton P(E < {t})");
        } else {
            let d = law_below(t) - p;
            assert!(
                (0.0..=1.6 * CELL_24).contains(&d),
                "triton P(E < {t}) = {p:e}, low by {d:e}"
            );
        }
    }
}
