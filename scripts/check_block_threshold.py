#!/usr/bin/env python3
"""Checks, on the formulas of kernels/common.cuh and kernels/sample.cu, what the
race's shorter rare step (TR_RACE_RARE_SHORT, docs/cuda-notes.md run 33)
relies on (standard library only):

1. the order key of a binary64 value (tr_dkey) orders as the values and
   tr_dunkey inverts it, bit for bit;
2. the warp maximum by key (tr_warp_max_key: the largest upper word, then the
   largest lower word among the lanes that hold it) is the largest value of
   the warp (equal values: -0 and +0 count as one);
3. the block threshold kept as the key's upper word only (tr_block_thr)
   reads back as a value no larger than the one raised, never a NaN, -inf
   from the start key; and the largest upper word, which the 32-bit atomic
   maximum keeps, reads back as the largest of the values' read-backs, so
   no raise is lost beyond its lower word.

Values are random bit patterns over every exponent, and the edges: zeros,
subnormals, the largest finite values, the infinities.
"""
import math
import random
import struct
import sys

M64 = (1 << 64) - 1


def bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def value(b):
    return struct.unpack("<d", struct.pack("<Q", b & M64))[0]


def dkey(x):
    b = bits(x)
    return (~b & M64) if b >> 63 else (b | (1 << 63))


def dunkey(k):
    b = (k & ((1 << 63) - 1)) if k >> 63 else (~k & M64)
    return value(b)


NINF_HI = dkey(-math.inf) >> 32


def block_thr(hi):
    """tr_block_thr with TR_RACE_RARE_SHORT bit 1: the upper word alone."""
    return -math.inf if hi <= NINF_HI else dunkey(hi << 32)


def warp_max_key(vals):
    keys = [dkey(v) for v in vals]
    hi = max(k >> 32 for k in keys)
    lo = max((k & 0xFFFFFFFF) if (k >> 32) == hi else 0 for k in keys)
    return dunkey((hi << 32) | lo)


EDGES = [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, -2.2250738585072014e-308,
         1.7976931348623157e308, -1.7976931348623157e308, math.inf, -math.inf, 1.0, -1.0,
         4.5, -88.0, 1e-300, -1e-300]


def random_value(rng):
    while True:
        x = value(rng.getrandbits(64))
        if not math.isnan(x):
            return x


def same(a, b):
    return bits(a) == bits(b)


def main():
    rng = random.Random(20261205)
    vals = EDGES + [random_value(rng) for _ in range(20000)]
    # Values near one another: the same upper word, other lower words.
    for _ in range(2000):
        x = random_value(rng)
        vals.append(value(bits(x) ^ rng.getrandbits(20)))
    vals = [v for v in vals if not math.isnan(v)]
    bad = 0

    def fail(msg):
        nonlocal bad
        bad += 1
        if bad <= 10:
            print("FAIL", msg)

    # 1. Order and inverse.
    for v in vals:
        if not same(dunkey(dkey(v)), v):
            fail("dunkey(dkey(%r))" % v)
    srt = sorted(vals)
    for a, b in zip(srt, srt[1:]):
        if a < b and not dkey(a) < dkey(b):
            fail("key order %r < %r" % (a, b))
    # 2. The warp maximum by key.
    for _ in range(3000):
        warp = [rng.choice(vals) for _ in range(32)]
        got, want = warp_max_key(warp), max(warp)
        if got != want or (got == 0.0 and not any(same(got, w) for w in warp)):
            fail("warp max %r != %r" % (got, want))
    # 3. The upper word's read-back.
    for v in vals:
        hi = dkey(v) >> 32
        r = block_thr(hi)
        if math.isnan(r) or r > v:
            fail("block_thr of %r reads %r" % (v, r))
        if v == -math.inf and r != -math.inf:
            fail("the start key reads %r" % r)
    for _ in range(3000):
        raised = [rng.choice(vals) for _ in range(rng.randint(1, 8))]
        kept = max(dkey(v) >> 32 for v in raised)
        if block_thr(kept) != max(block_thr(dkey(v) >> 32) for v in raised):
            fail("atomic max of upper words over %r" % raised)
    n = len(vals)
    print("%d values, 3000 warps, 3000 raise sequences: %d failures" % (n, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
