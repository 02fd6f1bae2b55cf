// The four noise profiles: (seed, position, index) -> E and ln E, as in
// tailrace-noise's profile.rs. spec: NOISE.md §2-§6.

#define TR_PROFILE_EXACT 0
#define TR_PROFILE_F64 1
#define TR_PROFILE_F32 2
#define TR_PROFILE_TRITON 3

// ---- exact (spec: NOISE.md §4) ----

// Kernels carry the 16-bit lead h of an element as its smallest prefix
// h·2^16 (the grid point's top 32 bits with the unknown low half zero): the
// 32-bit form the bounds and the race's lead classes take.

// The lead prefix of `index` from its lead block: half index & 1 (low half
// for even indices) of word (index >> 1) & 3. spec: NOISE.md §4.1.
__device__ __forceinline__ u32 tr_lead_prefix(uint4 b, u32 index) {
    const u32 w = tr_word(b, (index >> 1) & 3);
    return (index & 1) ? (w & 0xffff0000u) : (w << 16);
}

// k = h·2^112 + t0·2^80 + t1·2^48 + t2·2^16 + ⌊t3/2^16⌋ from the lead prefix
// h·2^16 and the tail block. spec: NOISE.md §4.2.
__device__ __forceinline__ u128 tr_grid_point(u32 prefix, uint4 tail) {
    return (((u128)prefix) << 96) | (((u128)tail.x) << 80) | (((u128)tail.y) << 48) |
           (((u128)tail.z) << 16) | (u128)(tail.w >> 16);
}

// The uniform (k + 1/2) / 2^128 rounded to binary64 (for display).
__device__ __forceinline__ double tr_exact_uniform(u128 k) {
    if ((k >> 127) == 0) return __dmul_rn(tr_u128_to_f64(2 * k + 1), 0x1p-129);
    return __dsub_rn(1.0, __dmul_rn(tr_u128_to_f64(2 * ~k + 1), 0x1p-129));
}

// E = -ln(1 - U), two-sided. spec: NOISE.md §4.3.
__device__ __noinline__ double tr_exact_variate(u128 k) {
    if ((k >> 127) == 0) {
        double v = __dmul_rn(tr_u128_to_f64(2 * k + 1), 0x1p-129);
        return -tr_log1p(-v);
    }
    double w = __dmul_rn(tr_u128_to_f64(2 * ~k + 1), 0x1p-129);
    return -tr_ln(w);
}

__device__ __forceinline__ double tr_exact_ln_variate(u128 k) { return tr_ln(tr_exact_variate(k)); }

// log2_lower of profile.rs: exponent plus mantissa fraction of x as binary64.
__device__ __forceinline__ double tr_log2_lower(u64 x) {
    u64 b = ((u64)__double_as_longlong(__ull2double_rn(x))) >> 20;
    return __dsub_rn(__dmul_rn(__ull2double_rn(b), 0x1p-32), 1023.0);
}

// exact::prefix_lower_bound (lower32), same operations. spec: NOISE.md §4.4.
__device__ __forceinline__ double tr_prefix_lower_bound(u32 prefix) {
    if (prefix == 0) return __dsub_rn(__dmul_rn(-129.0, TR_LN_2), TR_BOUND_SLACK);
    return __dsub_rn(__dmul_rn(__dsub_rn(tr_log2_lower((u64)prefix), 32.0), TR_LN_2),
                     TR_BOUND_SLACK);
}

// exact::prefix_upper_bound (upper32), same operations.
__device__ __forceinline__ double tr_prefix_upper_bound(u32 prefix) {
    if (prefix >= (1u << 31) - 1) return 4.5;
    u64 hi = (u64)prefix + 1;
    double v_hi = __dmul_rn(__ull2double_rn(hi), 0x1p-32);
    double l = __dmul_rn(__dsub_rn(__dadd_rn(tr_log2_lower(hi), TR_UB_GAP), 32.0), TR_LN_2);
    return __dadd_rn(__dadd_rn(l, __dmul_rn(2.0, v_hi)), TR_BOUND_SLACK);
}

// exact::ln_variate_lower_bound and _upper_bound of the lead with this
// prefix: the prefix bounds of its smallest and largest prefix.
__device__ __forceinline__ double tr_lead_lower_bound(u32 prefix) {
    return tr_prefix_lower_bound(prefix);
}
__device__ __forceinline__ double tr_lead_upper_bound(u32 prefix) {
    return tr_prefix_upper_bound(prefix | 0xffffu);
}

// ---- f64 (spec: NOISE.md §5) ----
__device__ __forceinline__ double tr_f64_uniform(u32 w0, u32 w1) {
    u64 k = (((u64)w0) << 20) | (((u64)w1) >> 12);
    return __dmul_rn(__ull2double_rn(2 * k + 1), 0x1p-53);
}

// ---- f32 (spec: NOISE.md §5) ----
__device__ __forceinline__ float tr_f32_uniform(u32 w) {
    return __fmul_rn(__uint2float_rn((w >> 8) + 1), 0x1p-24f);
}
__device__ __forceinline__ float tr_f32_variate(float u) {
    float e = __double2float_rn(-tr_ln((double)u));
    return (e < 0x1p-24f) ? 0x1p-24f : e;
}

// ---- triton (spec: NOISE.md §6) ----
__device__ __forceinline__ float tr_triton_uniform(u32 w) {
    i32 x = (i32)w;
    if (x < 0) x = ~x;
    return __fmul_rn(__int2float_rn(x), __int_as_float(0x2fffffff));
}
__device__ __forceinline__ float tr_triton_variate(float u) {
    float v = (u > tr_flt_min_normal()) ? u : tr_flt_min_normal();
    return -tr_logf(v);
}

// The stream tag of a non-exact profile.
__device__ __forceinline__ u32 tr_direct_tag(u32 profile) {
    return profile == TR_PROFILE_F64 ? TR_TAG_F64
                                     : (profile == TR_PROFILE_F32 ? TR_TAG_F32 : TR_TAG_TRITON);
}

// ln E of one element of a non-exact profile from its Philox block.
__device__ __noinline__ double tr_ln_variate_block(u32 profile, uint4 b) {
    if (profile == TR_PROFILE_F64) return tr_ln(-tr_ln(tr_f64_uniform(b.x, b.y)));
    if (profile == TR_PROFILE_F32) return tr_ln((double)tr_f32_variate(tr_f32_uniform(b.x)));
    return tr_ln((double)tr_triton_variate(tr_triton_uniform(b.x)));
}

// ln E of one element of a non-exact profile (one Philox block of its own).
__device__ double tr_ln_variate_direct(u32 profile, u64 seed, u64 position, u32 index) {
    return tr_ln_variate_block(profile, tr_block(seed, index, position, tr_direct_tag(profile)));
}

// profile::ln_variate_lower_bound for the non-exact profiles (word 0 of the
// element's block), same operations: a lower bound of the computed ln E.
__device__ __forceinline__ double tr_direct_lower_bound(u32 profile, u32 lead) {
    if (profile == TR_PROFILE_F64) {
        double v = tr_prefix_lower_bound(~lead);
        return v > TR_LB_F64_FLOOR ? v : TR_LB_F64_FLOOR;
    }
    u32 w;
    if (profile == TR_PROFILE_F32) {
        if (lead >= 0xffffff00u) return TR_LB_F32_FLOOR;
        w = 0xffffff00u - lead;
    } else {
        u32 x = ((i32)lead < 0) ? ~lead : lead;
        if (x >= (1u << 31) - 256) return TR_LB_F32_FLOOR;
        w = 2 * ((1u << 31) - 256 - x);
    }
    double v = __dsub_rn(tr_prefix_lower_bound(w), TR_LB_F32_SLACK);
    return v > TR_LB_F32_FLOOR ? v : TR_LB_F32_FLOOR;
}

// ---- the direct race's word filter (docs/cuda-notes.md, run 47) ----
//
// tr_direct_lower_bound of profile PROF as a function of one distance d of
// word 0: LB(d) = max(P(d) - s, F), P = tr_prefix_lower_bound, s = 0 (f64)
// or TR_LB_F32_SLACK, F the profile's floor, d = 0 where the profile returns
// its floor (P(0) lies below every floor). P is non-decreasing in d (NOISE.md
// §4.4), and so is LB.
template <u32 PROF> __device__ __forceinline__ u32 tr_direct_dist(u32 w0) {
    if (PROF == TR_PROFILE_F64) return ~w0;
    if (PROF == TR_PROFILE_F32) return w0 >= 0xffffff00u ? 0u : 0xffffff00u - w0;
    const u32 x = ((i32)w0 < 0) ? ~w0 : w0;
    return x >= (1u << 31) - 256 ? 0u : 2 * ((1u << 31) - 256 - x);
}

// A distance limit for y > F: every d with LB(d) < y has d <= the limit
// (all d where y is NaN or large). For d >= 1, P(d) rounds (log2_lower(d) -
// 32) ln 2 - slack with errors below 10^-13 (operands below 90), so LB(d) < y
// implies g(d) < t = 32 + (y + slack + s + 10^-13) / ln 2, g = log2_lower,
// which is exact for a 32-bit d: g(d) = e + d / 2^e - 1 on [2^e, 2^(e+1)),
// continuous and increasing. So d < 2^e (1 + f) with e = floor(t), f = t - e;
// the margins (2^-30 on t, 1 on the limit) cover this function's own
// rounding. tests/direct_filter.rs checks the limit against
// profile::ln_variate_lower_bound.
template <u32 PROF> __device__ __forceinline__ u32 tr_direct_limit(double y) {
    const double s = PROF == TR_PROFILE_F64 ? 0.0 : TR_LB_F32_SLACK;
    const double t = __dadd_rn(__fma_rn(__dadd_rn(y, s + TR_BOUND_SLACK + 1e-13), TR_INV_LN2, 32.0),
                               0x1p-30);
    if (!(t < 32.0)) return 0xffffffffu;
    if (t < 0.0) return 0u;
    const int e = __double2int_rd(t);
    const double x = __dmul_rn(__dadd_rn(1.0, __dsub_rn(t, (double)e)), tr_pow2(e));
    const u64 lim = __double2ull_rd(x) + 1;
    return lim > 0xffffffffull ? 0xffffffffu : (u32)lim;
}

// An upper bound of (a - bs) / T from inv_t = RN(1 / T): the difference,
// the reciprocal and the product each round by at most 2^-53 of their
// value, so the quotient errs by less than 2^-51 of it, and raising it by
// 2^-48 of itself covers that (where it underflows, the limit's margin
// does). NaN where a - bs is inf - inf or the product 0 * inf.
__device__ __forceinline__ double tr_direct_y(double a, double bs, double inv_t) {
    const double y = __dmul_rn(__dsub_rn(a, bs), inv_t);
    return __fma_rn(fabs(y), 0x1p-48, y);
}

// ln E of one element under any profile, from scratch.
__device__ double tr_ln_variate(u32 profile, u64 seed, u64 position, u32 index) {
    if (profile == TR_PROFILE_EXACT) {
        uint4 lb = tr_block(seed, index >> 3, position, TR_TAG_EXACT_LEAD);
        uint4 tb = tr_block(seed, index, position, TR_TAG_EXACT_TAIL);
        return tr_exact_ln_variate(tr_grid_point(tr_lead_prefix(lb, index), tb));
    }
    return tr_ln_variate_direct(profile, seed, position, index);
}
