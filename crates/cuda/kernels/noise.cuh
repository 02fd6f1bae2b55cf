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

// ln E of one element under any profile, from scratch.
__device__ double tr_ln_variate(u32 profile, u64 seed, u64 position, u32 index) {
    if (profile == TR_PROFILE_EXACT) {
        uint4 lb = tr_block(seed, index >> 3, position, TR_TAG_EXACT_LEAD);
        uint4 tb = tr_block(seed, index, position, TR_TAG_EXACT_TAIL);
        return tr_exact_ln_variate(tr_grid_point(tr_lead_prefix(lb, index), tb));
    }
    return tr_ln_variate_direct(profile, seed, position, index);
}
