"""CPU reference (numpy only) for the Triton/Megatron request-seed noise.

Everything here is independent of Triton and of the GPU, so it can be tested
on any machine (`python3 tref.py` runs the self-checks). capture.py uses it to
build the input tables and to cross-check what Triton returns.

Definitions (they are also the contract with the Rust side, see README.md):

* Philox4x32-10, key = (seed lo, seed hi), counter = (index, pos lo, pos hi, 0);
  the noise reads output word 0 only.
* uniform(w) = f32(x) * f32(0x2FFFFFFF), x = int32(w), x -> -x-1 when x < 0
  (Triton's ``uint_to_uniform_float``).
* noise(u) = -logf(max(u, FLT_MIN)), logf = libdevice ``__nv_logf`` (Triton
  3.6 ships libdevice.10.bc; its ``__nv_logf`` is transcribed in `logf`).
* The 1M dump triples: see `dump_triples`.
"""

import numpy as np

M64 = (1 << 64) - 1

# ---------------------------------------------------------------- philox

PHILOX_M0 = np.uint64(0xD2511F53)
PHILOX_M1 = np.uint64(0xCD9E8D57)
PHILOX_W0 = 0x9E3779B9
PHILOX_W1 = 0xBB67AE85


def philox4x32_10(c0, c1, c2, c3, k0, k1):
    """Vectorised Philox4x32-10 on uint32 arrays (key arrays broadcast)."""
    m32 = np.uint64(0xFFFFFFFF)
    c = [np.asarray(v, dtype=np.uint64) for v in (c0, c1, c2, c3)]
    k0 = np.asarray(k0, dtype=np.uint64).copy()
    k1 = np.asarray(k1, dtype=np.uint64).copy()
    for r in range(10):
        if r > 0:
            k0 = (k0 + np.uint64(PHILOX_W0)) & m32
            k1 = (k1 + np.uint64(PHILOX_W1)) & m32
        p0 = PHILOX_M0 * c[0]
        p1 = PHILOX_M1 * c[2]
        c = [
            (p1 >> np.uint64(32)) ^ c[1] ^ k0,
            p1 & m32,
            (p0 >> np.uint64(32)) ^ c[3] ^ k1,
            p0 & m32,
        ]
    return [v.astype(np.uint32) for v in c]


def triton_word(seed, position, index):
    """Word 0 of Philox((index, pos lo, pos hi, 0), (seed lo, seed hi))."""
    seed = np.asarray(seed, dtype=np.uint64)
    position = np.asarray(position, dtype=np.uint64)
    index = np.asarray(index, dtype=np.uint64)
    m32 = np.uint64(0xFFFFFFFF)
    s32 = np.uint64(32)
    w = philox4x32_10(index, position & m32, position >> s32,
                      np.zeros_like(index), seed & m32, seed >> s32)
    return w[0]


# ---------------------------------------------------------------- uniform

SCALE_BITS = 0x2FFFFFFF


def f32_from_bits(b):
    return np.asarray(b, dtype=np.uint32).view(np.float32)


def bits_of_f32(x):
    return np.asarray(x, dtype=np.float32).view(np.uint32)


def triton_uniform(word):
    """Triton's uint_to_uniform_float on uint32 words -> float32."""
    x = np.asarray(word, dtype=np.uint32).view(np.int32).astype(np.int64)
    x = np.where(x < 0, -x - 1, x)
    # int -> f32 rounds to nearest even (numpy int64 -> float32 is a single rounding)
    xf = x.astype(np.float32)
    return (xf * f32_from_bits(np.uint32(SCALE_BITS))).astype(np.float32)


# ---------------------------------------------------------------- exact fma(f32)


def fmaf(a, b, c):
    """Correctly rounded binary32 fma on float32 arrays, from binary64 pieces.

    a*b is exact in binary64 (48 bits); p + c is computed with TwoSum and the
    sum rounded to odd in binary64, then rounded to binary32: round-to-odd with
    53 >= 24 + 2 bits makes the double rounding correct. Inf/NaN go through
    the plain binary64 path.
    """
    a = np.asarray(a, dtype=np.float32).astype(np.float64)
    b = np.asarray(b, dtype=np.float32).astype(np.float64)
    c = np.asarray(c, dtype=np.float32).astype(np.float64)
    with np.errstate(all="ignore"):
        p = a * b
        s = p + c
        bb = s - p
        err = (p - (s - bb)) + (c - bb)
        fin = np.isfinite(s) & np.isfinite(err)
        sb = s.view(np.uint64)
        need = fin & (err != 0) & ((sb & np.uint64(1)) == 0)
        toward = np.where(err > 0, np.inf, -np.inf)
        s_odd = np.where(need, np.nextafter(s, toward), s)
        return s_odd.astype(np.float32)


# ---------------------------------------------------------------- libdevice logf

# __nv_logf coefficients from Triton 3.6's libdevice.10.bc (binary32 bits),
# highest degree first, then -0.5.
LOGF_C = [0xBE055027, 0x3E1039F6, 0xBDF8CDCC, 0x3E0F2955,
          0xBE2AD8B9, 0x3E4CED0B, 0xBE7FFF22, 0x3EAAAA78]
LOGF_LN2 = 0x3F317218


def logf(a, ftz=True):
    """libdevice __nv_logf (as in libdevice.10.bc), bit for bit on float32 arrays.

    ftz=True models Triton's default (nvvm-reflect-ftz = 1 selects
    fma.rn.ftz.f32); that only changes results whose inputs or intermediates
    are subnormal, which never happens for inputs >= FLT_MIN.
    """
    a = np.asarray(a, dtype=np.float32)
    cf = [f32_from_bits(np.uint32(c)) for c in LOGF_C]
    with np.errstate(all="ignore"):
        small = a < np.float32(1.1754943508222875e-38)
        x = np.where(small, (a * np.float32(8388608.0)).astype(np.float32), a)
        i0 = np.where(small, np.float32(-23.0), np.float32(0.0)).astype(np.float32)
        xb = x.view(np.uint32)
        e = (xb - np.uint32(0x3F2AAAAB)) & np.uint32(0xFF800000)
        m = (xb - e).view(np.float32)
        ef = e.view(np.int32).astype(np.float32)
        i = fmaf(ef, np.float32(2.0 ** -23), i0)
        f = (m - np.float32(1.0)).astype(np.float32)
        p = fmaf(cf[0], f, cf[1])
        for c in cf[2:]:
            p = fmaf(p, f, c)
        p = fmaf(p, f, np.float32(-0.5))
        p = (p * f).astype(np.float32)
        r = fmaf(p, f, f)
        r = fmaf(i, f32_from_bits(np.uint32(LOGF_LN2)), r)
        special = x.view(np.uint32) >= np.uint32(0x7F800000)
        r = np.where(special, fmaf(x, np.float32(np.inf), np.float32(np.inf)), r)
        r = np.where(x == 0, np.float32(-np.inf), r)
    return r.astype(np.float32)


def triton_noise(u):
    u = np.asarray(u, dtype=np.float32)
    return (-logf(np.maximum(u, np.float32(1.1754943508222875e-38)))).astype(np.float32)


# ---------------------------------------------------------------- tables

CASE_SEEDS = [0, 1, 42, 1 << 32, (1 << 32) + 7, (1 << 63) - 1, (1 << 64) - 1]
CASE_POSITIONS = [0, 1, 1000, (1 << 32) - 1, 1 << 32, (1 << 32) + 5, (1 << 40) + 3, (1 << 63) - 1]
CASE_INDICES = [0, 1, 2, 3, 4, 5, 131071, 131072, 262143, (1 << 31) - 1]


def case_triples():
    """The 560 (seed, position, index) triples of noise_cases.json, in file order."""
    return [(s, p, i) for s in CASE_SEEDS for p in CASE_POSITIONS for i in CASE_INDICES]


def splitmix64(x):
    """splitmix64 finaliser of x + 0x9E3779B97F4A7C15 (uint64 numpy arrays)."""
    with np.errstate(over="ignore"):
        z = np.asarray(x, dtype=np.uint64) + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


DUMP_N = 1 << 20
DUMP_K = 0xD1B54A32D192ED03


def dump_triples(n=DUMP_N):
    """The triples of triton_1m.bin, j = 0 .. n-1:

    seed     = splitmix64(j)
    r        = splitmix64(j ^ 0xD1B54A32D192ED03)
    position = r                              if j % 4 == 0   (full 64 bits)
             = r & 0xFFFFFFFF                 if j % 4 == 1   (below 2^32)
             = (r & 0xFFFFFFFF) | 2^32        if j % 4 == 2   (in [2^32, 2^33))
             = r & 0xFFFFF                    if j % 4 == 3   (below 2^20)
    index    = (j * 2654435761) mod 2^31
    """
    j = np.arange(n, dtype=np.uint64)
    seed = splitmix64(j)
    r = splitmix64(j ^ np.uint64(DUMP_K))
    sel = j & np.uint64(3)
    lo = r & np.uint64(0xFFFFFFFF)
    pos = np.where(sel == 0, r,
                   np.where(sel == 1, lo,
                            np.where(sel == 2, lo | np.uint64(1 << 32), r & np.uint64(0xFFFFF))))
    with np.errstate(over="ignore"):
        idx = (j * np.uint64(2654435761)) & np.uint64(0x7FFFFFFF)
    return seed, pos.astype(np.uint64), idx.astype(np.uint32)


def logf_sample_inputs(seed=20261129):
    """~50,000 float32 bit patterns for logf_samples.json (sorted, unique)."""
    rng = np.random.default_rng(seed)
    out = []
    # random bit patterns in [FLT_MIN, 1]
    out.append(rng.integers(0x00800000, 0x3F800001, size=33200, dtype=np.uint64))
    # every uniform reachable from words near the extremes: x in [0, 4096) and
    # x in [2^31 - 4096, 2^31) (x = int32 word folded to non-negative)
    xs = np.concatenate([np.arange(0, 4096), np.arange((1 << 31) - 4096, 1 << 31)]).astype(np.uint32)
    u = triton_uniform(xs)
    out.append(bits_of_f32(np.maximum(u, np.float32(1.1754943508222875e-38))).astype(np.uint64))
    # uniforms of random words
    out.append(bits_of_f32(triton_uniform(rng.integers(0, 1 << 32, size=4000, dtype=np.uint64).astype(np.uint32))).astype(np.uint64))
    # powers of two 2^-149 .. 2^127 and their neighbours
    for k in range(-149, 128):
        b = int(bits_of_f32(np.float32(2.0 ** k)))
        out.append(np.array([b - 1, b, b + 1], dtype=np.uint64))
    # around 2/3: the reduction boundary (0x3f2aaaab), in every binade of [FLT_MIN, 1]
    out.append(np.arange(0x3F2AAAA0, 0x3F2AAAB9, dtype=np.uint64))
    for k in range(1, 128):
        base = 0x3F2AAAAB - (k << 23)
        if base < 0x00800000:
            break
        out.append(np.arange(base - 4, base + 5, dtype=np.uint64))
    # around 4/3 (upper end of the reduced range) and around 1
    out.append(np.arange(0x3FAAAAA0, 0x3FAAAAB9, dtype=np.uint64))
    out.append(np.arange(0x3F7FFF00, 0x3F800101, dtype=np.uint64))
    # subnormals
    out.append(np.arange(1, 257, dtype=np.uint64))
    out.append(rng.integers(1, 0x00800000, size=1000, dtype=np.uint64))
    out.append(np.arange(0x007FFF00, 0x00800000, dtype=np.uint64))
    # values > 1 up to FLT_MAX
    out.append(rng.integers(0x3F800001, 0x7F800000, size=4000, dtype=np.uint64))
    out.append(np.arange(0x7F7FFF00, 0x7F800000, dtype=np.uint64))
    # specials: 0, -0, inf, -inf, NaNs, negatives
    out.append(np.array([0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000,
                         0x7F800001, 0x7FFFFFFF, 0xFFC00000, 0xFFFFFFFF, 0xBF800000,
                         0x80000001, 0x80800000, 0xFF7FFFFF], dtype=np.uint64))
    out.append(rng.integers(0x80000001, 0xFF800000, size=500, dtype=np.uint64))
    v = np.unique(np.concatenate(out)) & np.uint64(0xFFFFFFFF)
    return np.unique(v).astype(np.uint32)


# ---------------------------------------------------------------- self-checks


def _selfcheck():
    # Random123 known-answer vectors
    kat = [
        ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
        ((0xFFFFFFFF,) * 4, (0xFFFFFFFF, 0xFFFFFFFF), (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
        ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
         (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
    ]
    for ctr, key, want in kat:
        got = philox4x32_10(*[np.array([c], dtype=np.uint32) for c in ctr],
                            np.array([key[0]], dtype=np.uint32), np.array([key[1]], dtype=np.uint32))
        assert tuple(int(g[0]) for g in got) == want, (ctr, [hex(int(g[0])) for g in got])
    # uniform endpoints
    assert float(triton_uniform(np.uint32(0))) == 0.0
    assert float(triton_uniform(np.uint32(0xFFFFFFFF))) == 0.0
    assert float(triton_uniform(np.uint32(0x7FFFFFFF))) < 1.0
    # fmaf against exact rational arithmetic
    from fractions import Fraction
    rng = np.random.default_rng(1)
    a = f32_from_bits(rng.integers(0x30000000, 0x4F000000, 20000, dtype=np.uint64).astype(np.uint32))
    b = f32_from_bits(rng.integers(0x30000000, 0x4F000000, 20000, dtype=np.uint64).astype(np.uint32))
    c = -(a * b).astype(np.float32) * np.float32(1.0 + 2.0 ** -20)
    got = fmaf(a, b, c)
    for ai, bi, ci, gi in zip(a[:2000], b[:2000], c[:2000], got[:2000]):
        exact = Fraction(float(ai)) * Fraction(float(bi)) + Fraction(float(ci))
        # correctly rounded f32 of exact: compare against the neighbours
        g = Fraction(float(gi))
        lo = Fraction(float(np.nextafter(gi, np.float32(-np.inf))))
        hi = Fraction(float(np.nextafter(gi, np.float32(np.inf))))
        assert abs(exact - g) <= abs(exact - lo) and abs(exact - g) <= abs(exact - hi), (ai, bi, ci)
        if abs(exact - g) == abs(exact - lo) or abs(exact - g) == abs(exact - hi):
            assert int(bits_of_f32(gi)) & 1 == 0
    # logf close to the true log
    xs = f32_from_bits(np.arange(0x00800000, 0x7F800000, 0x1234, dtype=np.uint32))
    err = np.abs(logf(xs).astype(np.float64) - np.log(xs.astype(np.float64)))
    ulp = np.spacing(np.abs(np.log(xs.astype(np.float64))).astype(np.float32)).astype(np.float64)
    assert np.all(err <= 1.0 * ulp), float((err / ulp).max())
    assert float(logf(np.float32(1.0))) == 0.0
    assert np.isneginf(logf(np.float32(0.0)))
    assert np.isnan(logf(np.float32(-1.0)))
    assert np.isposinf(logf(np.float32(np.inf)))
    print("tref self-checks passed; max logf error on the grid %.3f ulp" % float((err / ulp).max()))
    n = np.asarray(triton_noise(triton_uniform(np.uint32(0))))
    print("noise(u=0) = %r (bits %08x)" % (float(n), int(bits_of_f32(n))))


if __name__ == "__main__":
    _selfcheck()
