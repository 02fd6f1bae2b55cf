// Deterministic binary64/binary32 math: the exact operation sequences of
// tailrace-noise's math.rs and libdevice.rs, written with explicit correctly
// rounded intrinsics (a Rust mul_add is __fma_rn, every other operation is the
// plain correctly rounded one). spec: NUMERICS.md §2-§5.

// e * ln 2 + ln(1 + f). spec: NUMERICS.md §2.
__device__ __forceinline__ double tr_ln_kernel(int e, double f) {
    const double c[12] = {TR_LN_SERIES_0, TR_LN_SERIES_1, TR_LN_SERIES_2, TR_LN_SERIES_3,
                          TR_LN_SERIES_4, TR_LN_SERIES_5, TR_LN_SERIES_6, TR_LN_SERIES_7,
                          TR_LN_SERIES_8, TR_LN_SERIES_9, TR_LN_SERIES_10, TR_LN_SERIES_11};
    double s = __ddiv_rn(f, __dadd_rn(2.0, f));
    double z = __dmul_rn(s, s);
    double r = c[11];
#pragma unroll
    for (int j = 10; j >= 0; j--) r = __fma_rn(r, z, c[j]);
    r = __dmul_rn(r, z);
    double hfsq = __dmul_rn(__dmul_rn(0.5, f), f);
    double dk = (double)e;  // exact
    double inner = __dadd_rn(__dmul_rn(s, __dadd_rn(hfsq, r)), __dmul_rn(dk, TR_LN2_LO));
    return __dsub_rn(__dmul_rn(dk, TR_LN2_HI), __dsub_rn(__dsub_rn(hfsq, inner), f));
}

// Natural logarithm. spec: NUMERICS.md §2.
__device__ __noinline__ double tr_ln(double x) {
    if (x != x || x < 0.0) return tr_nan();
    if (x == 0.0) return tr_ninf();
    if (x == tr_inf()) return tr_inf();
    u64 bits = (u64)__double_as_longlong(x);
    int e = 0;
    if (bits < (1ULL << 52)) {
        bits = (u64)__double_as_longlong(__dmul_rn(x, 0x1p54));
        e = -54;
    }
    e += (int)(bits >> 52) - 1023;
    double m = __longlong_as_double((i64)((bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL));
    if (m >= 1.5) {
        return tr_ln_kernel(e + 1, __dsub_rn(__dmul_rn(0.5, m), 1.0));
    }
    return tr_ln_kernel(e, __dsub_rn(m, 1.0));
}

// ln(1 + x). spec: NUMERICS.md §3.
__device__ __noinline__ double tr_log1p(double x) {
    if (x != x || x < -1.0) return tr_nan();
    if (x == -1.0) return tr_ninf();
    if (x == tr_inf()) return tr_inf();
    if (x == 0.0) return x;
    if (x >= -0.25 && x < 0.5) return tr_ln_kernel(0, x);
    if (x >= -0.5 && x < -0.25) return tr_ln_kernel(-1, __dadd_rn(1.0, __dmul_rn(2.0, x)));
    if (x < -0.5) return tr_ln(__dadd_rn(1.0, x));
    double u = __dadd_rn(1.0, x);
    double c = __dsub_rn(x, __dsub_rn(u, 1.0));
    return __dadd_rn(tr_ln(u), __ddiv_rn(c, u));
}

// x * 2^n for n in [-1100, 1023]. spec: NUMERICS.md §4.
__device__ __forceinline__ double tr_scale_by_pow2(double x, int n) {
    if (n >= -1022) return __dmul_rn(x, tr_pow2(n));
    double y = __dmul_rn(x, tr_pow2(-1022));
    return __dmul_rn(y, tr_pow2(n + 1022));
}

// e^y for y <= 0. spec: NUMERICS.md §4. Inlined where it runs once per
// element of a loop (tr_top_p_mass_inline); tr_exp_nonpositive, the same
// operations as a call, everywhere else.
__device__ __forceinline__ double tr_exp_nonpositive_inline(double y) {
    const double c[12] = {TR_EXP_SERIES_0, TR_EXP_SERIES_1, TR_EXP_SERIES_2, TR_EXP_SERIES_3,
                          TR_EXP_SERIES_4, TR_EXP_SERIES_5, TR_EXP_SERIES_6, TR_EXP_SERIES_7,
                          TR_EXP_SERIES_8, TR_EXP_SERIES_9, TR_EXP_SERIES_10, TR_EXP_SERIES_11};
    if (y != y) return tr_nan();
    if (y < TR_EXP_UNDERFLOW) return 0.0;
    double n = floor(__fma_rn(y, TR_INV_LN2, 0.5));
    double r = __dsub_rn(__dsub_rn(y, __dmul_rn(n, TR_LN2_HI)), __dmul_rn(n, TR_LN2_LO));
    double p = c[11];
#pragma unroll
    for (int j = 10; j >= 0; j--) p = __fma_rn(p, r, c[j]);
    p = __fma_rn(__fma_rn(p, r, 1.0), r, 1.0);
    return tr_scale_by_pow2(p, __double2int_rz(n));
}
__device__ __noinline__ double tr_exp_nonpositive(double y) { return tr_exp_nonpositive_inline(y); }

// CUDA/libdevice logf, as reproduced bit for bit by libdevice.rs (the
// coefficients and Horner order read from Triton's PTX). spec: NUMERICS.md §5.
__device__ __noinline__ float tr_logf(float a) {
    float x, i0;
    if (a < tr_flt_min_normal()) {
        x = __fmul_rn(a, 8388608.0f);
        i0 = -23.0f;
    } else {
        x = a;
        i0 = 0.0f;
    }
    u32 e = (__float_as_uint(x) - 0x3f2aaaabu) & 0xff800000u;
    float m = __uint_as_float(__float_as_uint(x) - e);
    float i = __fmaf_rn(__int2float_rn((i32)e), 0x1p-23f, i0);
    float f = __fsub_rn(m, 1.0f);
    float p = __fmaf_rn(TR_LOGF_C0, f, TR_LOGF_C1);
    p = __fmaf_rn(p, f, TR_LOGF_C2);
    p = __fmaf_rn(p, f, TR_LOGF_C3);
    p = __fmaf_rn(p, f, TR_LOGF_C4);
    p = __fmaf_rn(p, f, TR_LOGF_C5);
    p = __fmaf_rn(p, f, TR_LOGF_C6);
    p = __fmaf_rn(p, f, TR_LOGF_C7);
    p = __fmul_rn(__fmaf_rn(p, f, -0.5f), f);
    float r = __fmaf_rn(p, f, f);
    r = __fmaf_rn(i, TR_LOGF_LN2, r);
    if (__float_as_uint(x) >= 0x7f800000u) {
        // +inf, NaN and (through the sign bit) every negative input.
        r = __fmaf_rn(x, tr_finf(), tr_finf());
    }
    if (x == 0.0f) r = tr_fninf();
    if (r != r) r = __uint_as_float(TR_LOGF_CANONICAL_NAN);
    return r;
}

// u128 -> binary64, round to nearest, ties to even (Rust's `as f64`).
__device__ __forceinline__ double tr_u128_to_f64(u128 v) {
    u64 hi = (u64)(v >> 64);
    if (hi == 0) return __ull2double_rn((u64)v);
    int sh = 64 - __clzll((i64)hi);  // 1..64: bit length minus 64
    u64 t = (u64)(v >> sh);          // the top 64 bits, leading bit set
    u128 below = v & ((((u128)1) << sh) - 1);
    if (below != 0) t |= 1;  // sticky: bit 0 lies under the rounding position
    return __dmul_rn(__ull2double_rn(t), tr_pow2(sh));  // exact scaling
}

// ---- filter arithmetic (spec: SAMPLER.md §4) ----

// T * ln(min_p).
__device__ __forceinline__ double tr_min_p_threshold(double t, double min_p) {
    return __dmul_rn(t, tr_ln(min_p));
}

// floor(exp((a - a_max) / T) * 2^63).
__device__ __forceinline__ u64 tr_top_p_mass(double a, double a_max, double t) {
    double y = __ddiv_rn(__dsub_rn(a, a_max), t);
    if (y < -44.0) return 0;
    return __double2ull_rz(__dmul_rn(tr_exp_nonpositive(y), 0x1p63));
}
// The same with the exp inlined: for loops that take one mass an element.
__device__ __forceinline__ u64 tr_top_p_mass_inline(double a, double a_max, double t) {
    double y = __ddiv_rn(__dsub_rn(a, a_max), t);
    if (y < -44.0) return 0;
    return __double2ull_rz(__dmul_rn(tr_exp_nonpositive_inline(y), 0x1p63));
}

// The exp's constants in the constant bank, so that each operation of
// tr_top_p_mass_exp reads its constant from there (as immediates, each
// binary64 constant costs the loop two uniform moves an element).
__constant__ double tr_exp_const[15] = {
    TR_EXP_SERIES_0, TR_EXP_SERIES_1, TR_EXP_SERIES_2, TR_EXP_SERIES_3, TR_EXP_SERIES_4,
    TR_EXP_SERIES_5, TR_EXP_SERIES_6, TR_EXP_SERIES_7, TR_EXP_SERIES_8, TR_EXP_SERIES_9,
    TR_EXP_SERIES_10, TR_EXP_SERIES_11, TR_INV_LN2, TR_LN2_HI, TR_LN2_LO};

// floor(exp_nonpositive(y) * 2^63) for y in [-44, 0] (the y of an element
// with a top-p mass, y < -44 having mass 0): there exp_nonpositive's special
// cases do not arise (y is a number above its underflow), n lies in [-63, 0],
// so p * 2^n is normal and exact and its product with 2^63 equals p * 2^(n +
// 63), also exact. The operations that decide the result are
// tr_top_p_mass_inline's: the same masses, bit for bit.
__device__ __forceinline__ u64 tr_top_p_mass_exp(double y) {
    const double n = floor(__fma_rn(y, tr_exp_const[12], 0.5));
    const double r = __dsub_rn(__dsub_rn(y, __dmul_rn(n, tr_exp_const[13])), __dmul_rn(n, tr_exp_const[14]));
    double p = tr_exp_const[11];
#pragma unroll
    for (int j = 10; j >= 0; j--) p = __fma_rn(p, r, tr_exp_const[j]);
    p = __fma_rn(__fma_rn(p, r, 1.0), r, 1.0);
    const i64 e = (i64)__double2int_rz(n) + 63 + 1023;  // 2^(n + 63), n + 63 in [0, 63]
    return __double2ull_rz(__dmul_rn(p, __longlong_as_double(e << 52)));
}

// ceil(p * q) exactly, p in (0, 1), q < 2^100.
__device__ u128 tr_top_p_target(double p, u128 q) {
    u64 bits = (u64)__double_as_longlong(p);
    u32 ex = (u32)((bits >> 52) & 0x7ff);
    u64 frac = bits & ((1ULL << 52) - 1);
    u64 m;
    u32 s;
    if (ex == 0) {
        m = frac;
        s = 1074;
    } else {
        m = frac | (1ULL << 52);
        s = 1075 - ex;
    }
    u64 q_hi = (u64)(q >> 64), q_lo = (u64)q;
    u128 p_lo = (u128)m * q_lo;
    u128 p_hi = (u128)m * q_hi;
    u128 lo = p_lo + (p_hi << 64);
    u128 carry = (lo < p_lo) ? 1 : 0;
    u128 hi = (p_hi >> 64) + carry;
    if (s >= 256) return (hi != 0 || lo != 0) ? 1 : 0;
    u128 quot;
    bool rem;
    if (s >= 128) {
        u32 sh = s - 128;
        quot = sh == 0 ? hi : (hi >> sh);
        rem = lo != 0 || (sh > 0 && (hi & ((((u128)1) << sh) - 1)) != 0);
    } else if (s == 0) {
        quot = lo;
        rem = false;
    } else {
        quot = (lo >> s) | (hi << (128 - s));
        rem = (lo & ((((u128)1) << s) - 1)) != 0;
    }
    return quot + (rem ? 1 : 0);
}
