// Audit kernels: noise and math dumps compared bit for bit with the CPU by the
// check binary, and a random fill for timing inputs.

// Per triple, 8 words: ln E, E, uniform (binary64 bits), grid point lo/hi
// (exact), uniform_f32 | noise_f32 << 32 (f32, triton), the pruning lower
// bound of ln E from the profile's bound word (exact: the lead), and (exact)
// the upper bound.
extern "C" __global__ void tr_noise_dump(u32 profile, u32 n, const u64* seeds, const u64* positions,
                                         const u32* indices, u64* out) {
    u32 j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    const u64 seed = seeds[j], pos = positions[j];
    const u32 index = indices[j];
    u64* o = out + (u64)j * 8;
    double uniform = 0.0, noise = 0.0;
    u128 k = 0;
    u64 f32bits = 0;
    double lb = 0.0, ub = 0.0;
    if (profile == TR_PROFILE_EXACT) {
        uint4 l = tr_block(seed, index >> 3, pos, TR_TAG_EXACT_LEAD);
        uint4 t = tr_block(seed, index, pos, TR_TAG_EXACT_TAIL);
        u32 prefix = tr_lead_prefix(l, index);
        k = tr_grid_point(prefix, t);
        uniform = tr_exact_uniform(k);
        noise = tr_exact_variate(k);
        lb = tr_lead_lower_bound(prefix);
        ub = tr_lead_upper_bound(prefix);
    } else if (profile == TR_PROFILE_F64) {
        uint4 b = tr_block(seed, index, pos, TR_TAG_F64);
        uniform = tr_f64_uniform(b.x, b.y);
        noise = -tr_ln(uniform);
        lb = tr_direct_lower_bound(profile, b.x);
    } else if (profile == TR_PROFILE_F32) {
        uint4 b = tr_block(seed, index, pos, TR_TAG_F32);
        float u = tr_f32_uniform(b.x);
        float e = tr_f32_variate(u);
        uniform = (double)u;
        noise = (double)e;
        f32bits = (u64)__float_as_uint(u) | ((u64)__float_as_uint(e) << 32);
        lb = tr_direct_lower_bound(profile, b.x);
    } else {
        uint4 b = tr_block(seed, index, pos, TR_TAG_TRITON);
        float u = tr_triton_uniform(b.x);
        float e = tr_triton_variate(u);
        uniform = (double)u;
        noise = (double)e;
        f32bits = (u64)__float_as_uint(u) | ((u64)__float_as_uint(e) << 32);
        lb = tr_direct_lower_bound(profile, b.x);
    }
    double ln_noise = tr_ln(noise);
    o[0] = (u64)__double_as_longlong(ln_noise);
    o[1] = (u64)__double_as_longlong(noise);
    o[2] = (u64)__double_as_longlong(uniform);
    o[3] = (u64)k;
    o[4] = (u64)(k >> 64);
    o[5] = f32bits;
    o[6] = (u64)__double_as_longlong(lb);
    o[7] = (u64)__double_as_longlong(ub);
    // The full path used by the samplers must agree with the dump's.
    if (__double_as_longlong(tr_ln_variate(profile, seed, pos, index)) != __double_as_longlong(ln_noise))
        o[0] = 0x7ff4dead7ff4deadULL;
}

// Per input x, 8 words: ln x, log1p x, exp_nonpositive(-|x|), logf((float)x),
// top_p_mass(x, 0, 1) for x <= 0 (else 0), and three spare words.
extern "C" __global__ void tr_math_dump(u32 n, const double* xs, u64* out) {
    u32 j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    double x = xs[j];
    u64* o = out + (u64)j * 8;
    o[0] = (u64)__double_as_longlong(tr_ln(x));
    o[1] = (u64)__double_as_longlong(tr_log1p(x));
    double y = (x < 0.0) ? x : -x;  // -|x|, NaN stays NaN
    o[2] = (u64)__double_as_longlong(tr_exp_nonpositive(y));
    o[3] = (u64)__float_as_uint(tr_logf(__double2float_rn(x)));
    o[4] = (x <= 0.0) ? tr_top_p_mass(x, 0.0, 1.0) : 0;
    o[5] = 0;
    o[6] = 0;
    o[7] = 0;
}

// Per (v = hi:lo, p), 4 words: (v as f64) bits, top_p_target(p, v mod 2^100) lo and hi, 0.
extern "C" __global__ void tr_int_dump(u32 n, const u64* lo, const u64* hi, const double* ps, u64* out) {
    u32 j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    u128 v = ((u128)hi[j] << 64) | (u128)lo[j];
    u64* o = out + (u64)j * 4;
    o[0] = (u64)__double_as_longlong(tr_u128_to_f64(v));
    u128 q = v & ((((u128)1) << 100) - 1);
    u128 t = tr_top_p_target(ps[j], q);
    o[1] = (u64)t;
    o[2] = (u64)(t >> 64);
    o[3] = 0;
}

// Random logits for timing: about N(0, scale^2) from four uniforms (Irwin-Hall),
// dtype 0 = f32, 1 = bf16 (rounded by truncation), 2 = f16 (via cvt.rn).
extern "C" __global__ void tr_fill_random(void* out, u64 n, u32 dtype, u64 seed, float scale) {
    u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    for (; j < n; j += (u64)gridDim.x * blockDim.x) {
        uint4 b = tr_block(seed, (u32)j, j >> 32, 7);
        float s = (float)b.x * 0x1p-32f + (float)b.y * 0x1p-32f + (float)b.z * 0x1p-32f +
                  (float)b.w * 0x1p-32f - 2.0f;
        float v = s * scale * 1.7320508f;
        if (dtype == 0) {
            ((float*)out)[j] = v;
        } else if (dtype == 1) {
            ((u16*)out)[j] = (u16)(__float_as_uint(v) >> 16);
        } else {
            u16 h;
            asm("{ .reg .b16 t; cvt.rn.f16.f32 t, %1; mov.b16 %0, t; }" : "=h"(h) : "f"(v));
            ((u16*)out)[j] = h;
        }
    }
}
