#!/usr/bin/env python3
"""Checks the closed-form class cutoff of the exact race (kernels/sample.cu,
tr_cutoff_f32_closed) against the exact cutoff (tr_cutoff_f32, a bisection
over binary32 order keys) in exact rational arithmetic, with the standard
library only.

The exact cutoff of a class is the smallest binary32 x with
fma(neg_t, lbc, x) >= thr. The closed form is

    margin = RU(RU(RU(|thr| + RU(|neg_t| * 128)) * 2^-51) + 2^-1000)
    m      = RD(RD(thr - RN(neg_t * lbc)) - margin)
    c      = -FLT_MAX if not m >= -FLT_MAX, else binary32 RD(m)

(RN, RU, RD: binary64 rounding to nearest, up, down). The race only needs c
to be conservative (c <= the exact cutoff: no element that can reach thr is
dropped) and, for the unit test, not decreasing as lbc rises with the lead
class. Both are checked here on random cases around the values the race
meets (class bounds of the 16-bit leads, thresholds of ordinary and extreme
magnitude, temperatures from 1e-20 to 1e3) and on cases where thr sits next
to neg_t * lbc, where binary32 cutoffs are near zero.

    python3 scripts/check_cutoff_margin.py [--cases N] [--seed S]
"""
import argparse
import math
import random
import struct
import sys
from fractions import Fraction as F

FLT_MAX = struct.unpack("<f", struct.pack("<I", 0x7F7FFFFF))[0]


def rd(x):
    """binary64 rounding down of a Fraction."""
    d = float(x)  # correctly rounded to nearest
    return math.nextafter(d, -math.inf) if F(d) > x else d


def ru(x):
    d = float(x)
    return math.nextafter(d, math.inf) if F(d) < x else d


def fkey(x):
    b = struct.unpack("<I", struct.pack("<f", x))[0]
    return (~b) & 0xFFFFFFFF if b >> 31 else b | 0x80000000


def funkey(k):
    b = k & 0x7FFFFFFF if k >> 31 else (~k) & 0xFFFFFFFF
    return struct.unpack("<f", struct.pack("<I", b))[0]


def f32_rd(d):
    """binary32 rounding down of a binary64 value within +-FLT_MAX."""
    x = struct.unpack("<f", struct.pack("<f", d))[0]  # to nearest
    if x > d:
        k = fkey(x)
        x = funkey(k - 1)
    return x


def fma_reaches(neg_t, lbc, x, thr):
    """fma(neg_t, lbc, x) >= thr, the fma rounded once (to nearest)."""
    v = F(neg_t) * F(lbc) + F(x)
    try:
        r = float(v)
    except OverflowError:
        r = math.inf if v > 0 else -math.inf
    return r >= thr


def exact_cutoff(neg_t, lbc, thr):
    if fma_reaches(neg_t, lbc, -FLT_MAX, thr):
        return -FLT_MAX
    if not fma_reaches(neg_t, lbc, FLT_MAX, thr):
        return math.inf
    lo, hi = fkey(-FLT_MAX), fkey(FLT_MAX)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fma_reaches(neg_t, lbc, funkey(mid), thr):
            hi = mid
        else:
            lo = mid
    return funkey(hi)


def closed_cutoff(neg_t, lbc, thr):
    margin = ru(F(ru(F(ru(F(abs(thr)) + F(ru(F(abs(neg_t)) * 128)))) * F(2) ** -51)) + F(2) ** -1000)
    m = rd(F(rd(F(thr) - F(neg_t * lbc))) - F(margin))
    if not m >= -FLT_MAX:
        return -FLT_MAX
    return f32_rd(m)


# The class bounds lb(2^j) of the race (classes 0 and 16 to 31), as in
# kernels/noise.cuh up to the slack: (j - 32) ln 2, and -129 ln 2 for class 0.
CLASS_BOUNDS = [-129 * math.log(2) - 1e-9] + [(j - 32) * math.log(2) for j in range(16, 32)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    above, gaps = 0, []
    for _ in range(args.cases):
        neg_t = -(10 ** rng.uniform(-4, 3))
        lbc = rng.choice(CLASS_BOUNDS) * (1 + rng.uniform(-1e-6, 1e-6))
        thr = rng.choice([
            rng.uniform(-30, 30),
            rng.uniform(-1e-5, 1e-5) * 10 ** rng.uniform(-30, 0),
            neg_t * lbc * (1 + rng.uniform(-1e-12, 1e-12)),
            neg_t * lbc + rng.uniform(-1e-13, 1e-13),
            rng.uniform(-1e30, 1e30),
        ])
        e, c = exact_cutoff(neg_t, lbc, thr), closed_cutoff(neg_t, lbc, thr)
        if not c <= e:
            above += 1
            print(f"ABOVE: neg_t {neg_t!r} lbc {lbc!r} thr {thr!r}: exact {e!r}, closed {c!r}")
        elif math.isfinite(e) and e != -FLT_MAX:
            gaps.append(fkey(e) - fkey(c))
    falls = 0
    for _ in range(args.cases // 4):
        neg_t = -(10 ** rng.uniform(-20, 3))
        thr = rng.choice([rng.uniform(-30, 30), rng.uniform(-1e30, 1e30), rng.uniform(-1e-3, 1e-3)])
        cs = [closed_cutoff(neg_t, lbc, thr) for lbc in sorted(CLASS_BOUNDS)]
        if any(a > b for a, b in zip(cs, cs[1:])):
            falls += 1
            print(f"FALLS: neg_t {neg_t!r} thr {thr!r}: {cs}")
    gaps.sort()
    print(f"{args.cases} cases: {above} above the exact cutoff; binary32 steps below it: median "
          f"{gaps[len(gaps) // 2] if gaps else '-'}, largest {gaps[-1] if gaps else '-'}; "
          f"{args.cases // 4} class sequences, {falls} not increasing")
    sys.exit(1 if above or falls else 0)


if __name__ == "__main__":
    main()
