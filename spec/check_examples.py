#!/usr/bin/env python3
"""Checks the `exact` worked examples of the spec against an independent
transcription of the spec text (standard library only; CI runs it).

It reads the values the spec states from NOISE.md §8 (the `exact` row and its
pruning bounds) and SAMPLER.md §5.1 (the race table and the token), and
recomputes them from the definitions alone:

- Philox4x32-10 (NOISE.md §1, checked first against the known answers of
  §1.4), keys and counters (§2), the lead, the tail words and the grid point
  (§4.1-§4.2): bit for bit;
- the uniform RN64(U) (§4.3: an exact product, so one correct rounding):
  bit for bit, with exact rational arithmetic;
- E = -ln(1 - U) and L = ln E, in 60-digit decimal arithmetic: the spec's
  binary64 values must lie within the bounds §4.3 states (E within 1.5 ulp,
  L within 64 * 2^-53 of ln E);
- the prefix bounds of the lead (§4.4): bit for bit, each binary64
  operation done with Python floats (IEEE binary64, rounded to nearest);
- the race scores fma(-T, L, a) of SAMPLER.md §5.1 from the spec's L, with
  exact rationals and one rounding: bit for bit; then the winner.

Usage: python3 spec/check_examples.py   (exit status 0 when every check holds)
"""

import decimal
import os
import re
import struct
import sys
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
M32 = 0xFFFFFFFF
failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


# ---- NOISE.md §1: Philox4x32-10 ----
def philox(ctr, key):
    c0, c1, c2, c3 = ctr
    k0, k1 = key
    for r in range(10):
        if r > 0:
            k0 = (k0 + 0x9E3779B9) & M32
            k1 = (k1 + 0xBB67AE85) & M32
        p0 = 0xD2511F53 * c0
        p1 = 0xCD9E8D57 * c2
        hi0, lo0 = p0 >> 32, p0 & M32
        hi1, lo1 = p1 >> 32, p1 & M32
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
    return [c0, c1, c2, c3]


KAT = [
    ([0, 0, 0, 0], [0, 0], [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]),
    ([M32] * 4, [M32, M32], [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]),
    ([0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344], [0xA4093822, 0x299F31D0],
     [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1]),
]


# ---- NOISE.md §2 and §4.1-§4.2 ----
def block(seed, c0, position, tag):
    return philox([c0, position & M32, position >> 32, tag], [seed & M32, seed >> 32])


def lead(seed, position, i):
    w = block(seed, i >> 3, position, 1)[(i >> 1) & 3]
    return (w >> 16) if (i & 1) else (w & 0xFFFF)


def grid_point(seed, position, i):
    t0, t1, t2, t3 = block(seed, i, position, 2)
    return (lead(seed, position, i) << 112) | (t0 << 80) | (t1 << 48) | (t2 << 16) | (t3 >> 16)


# ---- NOISE.md §4.3, in decimal ----
decimal.getcontext().prec = 60
D = decimal.Decimal


def exact_e_l(k):
    u = (D(k) + D("0.5")) / D(2) ** 128
    e = -(D(1) - u).ln()
    return e, e.ln()


def bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def from_bits(b):
    return struct.unpack("<d", struct.pack("<Q", b))[0]


def ulp(x):
    x = abs(x)
    return from_bits(bits(x) + 1) - x


# ---- NOISE.md §4.4, binary64 operation by operation ----
LN_2 = from_bits(0x3FE62E42FEFA39EF)
SLACK = 2.0 ** -30


def log2_lower(x):
    return float(bits(float(x)) >> 20) * 2.0 ** -32 - 1023.0


def lower32(p):
    if p == 0:
        return -129.0 * LN_2 - SLACK
    return (log2_lower(p) - 32.0) * LN_2 - SLACK


def upper32(p):
    if p >= (1 << 31) - 1:
        return 4.5
    v = float(p + 1) * 2.0 ** -32
    return ((log2_lower(p + 1) + 0.0861) - 32.0) * LN_2 + 2.0 * v + SLACK


def fma(a, b, c):
    return float(Fraction(a) * Fraction(b) + Fraction(c))


def read(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return f.read()


def hexes(s):
    return [int(h, 16) for h in re.findall(r"`0x([0-9A-Fa-f]{16})`", s)]


def main():
    for ctr, key, out in KAT:
        check(philox(ctr, key) == out, "Philox4x32-10 known answer %s" % [hex(w) for w in out])

    # NOISE.md §8, the exact row: seed 42, position 7, index 5.
    noise = read("NOISE.md")
    row = next(l for l in noise.splitlines() if l.startswith("| `exact` | lead:"))
    k_spec = int(re.search(r"`k = 0x([0-9A-Fa-f]{32})`", row).group(1), 16)
    h_spec = int(re.search(r"`h = 0x([0-9A-Fa-f]{4})`", row).group(1), 16)
    uniform_b, e_b, l_b = hexes(row)[-3:]
    seed, pos, i = 42, 7, 5
    k = grid_point(seed, pos, i)
    check(lead(seed, pos, i) == h_spec, "NOISE.md §8 lead 0x%04X" % h_spec)
    check(k == k_spec, "NOISE.md §8 grid point 0x%032X" % k_spec)
    lead_words = block(seed, i >> 3, pos, 1)
    tail_words = block(seed, i, pos, 2)
    for w in lead_words + tail_words:
        check(("%08x" % w)[:4] in row, "NOISE.md §8 shows Philox word %08x" % w)
    if k >> 127 == 0:
        u = float(Fraction(2 * k + 1, 2 ** 129))
    else:
        u = 1.0 - float(Fraction(2 * (2 ** 128 - 1 - k) + 1, 2 ** 129))
    check(bits(u) == uniform_b, "NOISE.md §8 uniform bits 0x%016X" % uniform_b)
    e, l = exact_e_l(k)
    e_spec, l_spec = from_bits(e_b), from_bits(l_b)
    check(abs(D(e_spec) - e) <= D(1.5) * D(ulp(e_spec)), "NOISE.md §8 E within 1.5 ulp of -ln(1 - U)")
    check(abs(D(l_spec) - l) <= D(64) * D(2) ** -53, "NOISE.md §8 L within 64 * 2^-53 of ln E")
    lb_line = noise[noise.index("Pruning bounds of the `exact` lead"):]
    lb_b, ub_b = hexes(lb_line)[:2]
    check(bits(lower32(h_spec << 16)) == lb_b, "NOISE.md §8 lower(h) = lower32(h * 2^16) bits")
    check(bits(upper32((h_spec << 16) | 0xFFFF)) == ub_b, "NOISE.md §8 upper(h) = upper32(h * 2^16 + 2^16 - 1) bits")
    lo, hi = exact_e_l(h_spec << 112)[1], exact_e_l((h_spec << 112) | ((1 << 112) - 1))[1]
    check(D(from_bits(lb_b)) <= lo and D(from_bits(ub_b)) >= hi, "NOISE.md §8 lead bounds hold at the lead's extreme grid points")
    check(lead(seed, pos, 4) == int(re.search(r"low half of the same word,\s*`0x([0-9A-F]{4})`", noise).group(1), 16),
          "NOISE.md §8 index 4 takes the low half")

    # SAMPLER.md §5.1, the race of survivors 1, 3, 4 (T = 0.8, a = 3.25, 3.25, 3.0).
    sampler = read("SAMPLER.md")
    sec = sampler[sampler.index("§5.1 **Worked example.**"):sampler.index("## §6")]
    a = {1: 3.25, 3: 3.25, 4: 3.0}
    best = None
    for line in sec.splitlines():
        m = re.match(r"\s*\| (\d+) \| `0x([0-9A-F]{4})` \|", line)
        if not m:
            continue
        tok, h = int(m.group(1)), int(m.group(2), 16)
        l_b, s_b = hexes(line)
        check(lead(seed, pos, tok) == h, "SAMPLER.md §5.1 token %d lead 0x%04X" % (tok, h))
        _, l = exact_e_l(grid_point(seed, pos, tok))
        check(abs(D(from_bits(l_b)) - l) <= D(64) * D(2) ** -53, "SAMPLER.md §5.1 token %d L within 64 * 2^-53 of ln E" % tok)
        s = fma(-0.8, from_bits(l_b), a[tok])
        check(bits(s) == s_b, "SAMPLER.md §5.1 token %d score = fma(-T, L, a) bits" % tok)
        if best is None or s > best[0]:
            best = (s, tok)
    winner = int(re.search(r"- Token \*\*(\d+)\*\*", sec).group(1))
    check(best is not None and best[1] == winner, "SAMPLER.md §5.1 winner is token %d" % winner)

    print("%d failed" % len(failures) if failures else "all checks hold")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
