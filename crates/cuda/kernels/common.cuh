// tailrace kernels: shared types and helpers. The Rust side prepends a prelude
// of #defines (TR_*) holding the spec constants as exact hex floats taken from
// tailrace-noise, then concatenates common.cuh, math.cuh, noise.cuh and the .cu
// files (NVRTC gets no include paths). Compiled with --fmad=false.

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef int i32;
typedef unsigned long long u64;
typedef long long i64;
typedef unsigned __int128 u128;

#define TR_FULL 0xffffffffu
#define TR_NO_TOKEN 0xffffffffu
#define TR_MAX_WARPS 32

__device__ __forceinline__ double tr_inf() { return __longlong_as_double(0x7ff0000000000000LL); }
__device__ __forceinline__ double tr_ninf() { return __longlong_as_double((i64)0xfff0000000000000ULL); }
// Rust's f64::NAN / f32::NAN bit patterns.
__device__ __forceinline__ double tr_nan() { return __longlong_as_double(0x7ff8000000000000LL); }
__device__ __forceinline__ float tr_nanf() { return __int_as_float(0x7fc00000); }
__device__ __forceinline__ float tr_finf() { return __int_as_float(0x7f800000); }
__device__ __forceinline__ float tr_fninf() { return __int_as_float((i32)0xff800000u); }
__device__ __forceinline__ float tr_flt_max() { return __int_as_float(0x7f7fffff); }
// max that propagates NaN (PTX max.NaN, sm_80+): NaN if either input is NaN.
__device__ __forceinline__ float tr_fmax_nan(float x, float y) {
    float r;
    asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
    return r;
}
// Inclusive sum of v over the lanes up to this one (the whole warp calls it).
__device__ __forceinline__ u32 tr_warp_scan_u32(u32 v) {
    const u32 lane = threadIdx.x & 31;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
        const u32 y = __shfl_up_sync(TR_FULL, v, off);
        if (lane >= (u32)off) v += y;
    }
    return v;
}
__device__ __forceinline__ double tr_dbl_max() { return __longlong_as_double(0x7fefffffffffffffLL); }
__device__ __forceinline__ float tr_flt_min_normal() { return __int_as_float(0x00800000); }

// Order-preserving keys: x < y  <=>  key(x) < key(y) (for non-NaN; -0 < +0).
__device__ __forceinline__ u64 tr_dkey(double x) {
    u64 b = (u64)__double_as_longlong(x);
    return (b >> 63) ? ~b : (b | 0x8000000000000000ULL);
}
__device__ __forceinline__ double tr_dunkey(u64 k) {
    u64 b = (k >> 63) ? (k & 0x7fffffffffffffffULL) : ~k;
    return __longlong_as_double((i64)b);
}
// A threshold strictly below, in value, a score whose key is above k:
// dunkey(k), except that -0 (the key just below +0's) equals +0 in value and
// gives way to the negative number of least magnitude.
__device__ __forceinline__ double tr_dbelow(u64 k) {
    const double t = tr_dunkey(k);
    return t == 0.0 ? __longlong_as_double((i64)0x8000000000000001LL) : t;
}
__device__ __forceinline__ u32 tr_fkey(float x) {
    u32 b = __float_as_uint(x);
    return (b >> 31) ? ~b : (b | 0x80000000u);
}
__device__ __forceinline__ float tr_funkey(u32 k) {
    u32 b = (k >> 31) ? (k & 0x7fffffffu) : ~k;
    return __uint_as_float(b);
}

// 2^n as binary64 for -1022 <= n <= 1023 (exact).
__device__ __forceinline__ double tr_pow2(int n) {
    return __longlong_as_double((i64)((u64)(n + 1023) << 52));
}

// ---- Philox4x32-10 (spec: NOISE.md §1) ----
__device__ __forceinline__ uint4 tr_philox(uint4 c, u32 k0, u32 k1) {
#pragma unroll
    for (int r = 0; r < 10; r++) {
        if (r > 0) {
            k0 += TR_PHILOX_W0;
            k1 += TR_PHILOX_W1;
        }
        u32 hi0 = __umulhi(TR_PHILOX_M0, c.x);
        u32 lo0 = TR_PHILOX_M0 * c.x;
        u32 hi1 = __umulhi(TR_PHILOX_M1, c.z);
        u32 lo1 = TR_PHILOX_M1 * c.z;
        c = make_uint4(hi1 ^ c.y ^ k0, lo1, hi0 ^ c.w ^ k1, lo0);
    }
    return c;
}

// The block (c0, position lo, position hi, tag) under the key of `seed`. spec: NOISE.md §2.
__device__ __forceinline__ uint4 tr_block(u64 seed, u32 c0, u64 position, u32 tag) {
    return tr_philox(make_uint4(c0, (u32)position, (u32)(position >> 32), tag), (u32)seed,
                     (u32)(seed >> 32));
}

__device__ __forceinline__ u32 tr_word(uint4 b, u32 j) {
    return j == 0 ? b.x : (j == 1 ? b.y : (j == 2 ? b.z : b.w));
}

// ---- logit element types: exact conversion to binary32 ----
__device__ __forceinline__ float tr_bf16_to_f32(u32 h) { return __uint_as_float(h << 16); }
__device__ __forceinline__ float tr_f16_to_f32(u16 h) {
    float f;
    asm("{ .reg .b16 t; mov.b16 t, %1; cvt.f32.f16 %0, t; }" : "=f"(f) : "h"(h));
    return f;
}

// Dtype codes: 0 = f32, 1 = bf16, 2 = f16 (the Rust side's `Dtype`).
template <int DT> struct Elem;
template <> struct Elem<0> {
    typedef float T;
    static __device__ __forceinline__ float cvt(float v) { return v; }
};
template <> struct Elem<1> {
    typedef u16 T;
    static __device__ __forceinline__ float cvt(u16 v) { return tr_bf16_to_f32(v); }
};
template <> struct Elem<2> {
    typedef u16 T;
    static __device__ __forceinline__ float cvt(u16 v) { return tr_f16_to_f32(v); }
};

// Programmatic dependent launch (sm_90 and later): the sampler launches its
// kernels so that each may be scheduled while the previous one in the stream
// still runs. Every sampling kernel calls this first: it waits until the
// previous grid has completed and its writes are visible (at once when there
// is no such grid, or on older devices), then lets the next kernel of the
// stream be scheduled. No global memory is touched before it.
// Phase clock (a profiling aid, compiled only with TR_PHASE_PRINT defined:
// `tailrace-cuda-check --checked-define TR_PHASE_PRINT=1 bench ...`, read by
// scripts/phase-clock.py). Thread 0 of a block stamps slot n with the SM clock
// and the global timer; the block prints its stamps once, when it is done, so
// the printing delays no stamp. Without the define the stamps compile to
// nothing.
#define TR_PHASE_SLOTS 16
#ifdef TR_PHASE_PRINT
__device__ __forceinline__ long long* tr_phase_clock() {
    __shared__ long long s_phase_clock[2 * TR_PHASE_SLOTS];
    return s_phase_clock;
}
__device__ __forceinline__ void tr_phase_clear() {
    if (threadIdx.x == 0)
        for (int n = 0; n < 2 * TR_PHASE_SLOTS; n++) tr_phase_clock()[n] = -1;
}
__device__ __forceinline__ void tr_phase(int n) {
    if (threadIdx.x == 0) {
        long long g;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
        tr_phase_clock()[2 * n] = clock64();
        tr_phase_clock()[2 * n + 1] = g;
    }
}
// One line a block: block, chunks, the global timer of slot 0, then each
// slot's SM clock less slot 0's (-1: not stamped) and the latest global timer
// stamped (slot numbers need not follow time: the top-p kernels stamp slots
// 9-13 inside their selects and cuts).
// The top-p kernels print the same line under their own tag (tr_phase_hist,
// tr_phase_gather).
__device__ __forceinline__ void tr_phase_print(const char* tag = "tr_phase") {
    if (threadIdx.x != 0) return;
    const long long* c = tr_phase_clock();
    long long d[TR_PHASE_SLOTS], g_last = c[1];
    for (int n = 0; n < TR_PHASE_SLOTS; n++) {
        d[n] = c[2 * n] < 0 ? -1 : c[2 * n] - c[0];
        if (c[2 * n + 1] > g_last) g_last = c[2 * n + 1];
    }
    printf("%s %u %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld\n",
           tag, blockIdx.x, c[1], d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9], d[10],
           d[11], d[12], d[13], d[14], d[15], g_last);
}
#else
__device__ __forceinline__ void tr_phase_clear() {}
__device__ __forceinline__ void tr_phase(int) {}
__device__ __forceinline__ void tr_phase_print(const char* = nullptr) {}
#endif

// Warp clock (a profiling aid, compiled only with TR_WARP_PRINT defined:
// `tailrace-cuda-check --checked-define TR_WARP_PRINT=1 bench ...`, read by
// scripts/warp-clock.py). Lane 0 of each warp of the exact race counts its
// steps, rare steps, threshold raises and queued candidates, sums the SM
// clock spent in its rare steps and in its raises' cutoff computations, and
// stamps the clock at the race's start, at the end of its loop (before the
// block's barrier) and after its final flush; it prints one line when the
// race is done. Without the define every member compiles to nothing.
struct WarpClock {
#ifdef TR_WARP_PRINT
    long long c0, c1, cr, cc, rare_cyc, raise_cyc;
    unsigned long long g0;
    unsigned steps, rare, raises, queued;
    __device__ __forceinline__ void start() {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
        c0 = clock64();
        c1 = cr = cc = c0;
        rare_cyc = raise_cyc = 0;
        steps = rare = raises = queued = 0;
    }
    __device__ __forceinline__ void step() { steps++; }
    __device__ __forceinline__ void rare_step() {
        rare++;
        cr = clock64();
    }
    __device__ __forceinline__ void rare_done() { rare_cyc += clock64() - cr; }
    __device__ __forceinline__ void raise_begin() {
        raises++;
        cc = clock64();
    }
    __device__ __forceinline__ void raise_done() { raise_cyc += clock64() - cc; }
    __device__ __forceinline__ void queue(unsigned n) { queued += n; }
    __device__ __forceinline__ void loop_done() { c1 = clock64(); }
    __device__ __forceinline__ void print(unsigned final_q) {
        const long long c2 = clock64();
        unsigned long long g;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
        unsigned smid;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
        if ((threadIdx.x & 31) == 0)
            printf("tr_warp %u %u %u %lld %lld %llu %llu %u %u %u %u %lld %u %lld\n", blockIdx.x,
                   threadIdx.x >> 5, smid, c1 - c0, c2 - c0, g0, g, steps, rare, queued, final_q,
                   rare_cyc, raises, raise_cyc);
    }
#else
    __device__ __forceinline__ void start() {}
    __device__ __forceinline__ void step() {}
    __device__ __forceinline__ void rare_step() {}
    __device__ __forceinline__ void rare_done() {}
    __device__ __forceinline__ void raise_begin() {}
    __device__ __forceinline__ void raise_done() {}
    __device__ __forceinline__ void queue(unsigned) {}
    __device__ __forceinline__ void loop_done() {}
    __device__ __forceinline__ void print(unsigned) {}
#endif
};

// Programmatic dependent launch: wait for the previous kernel of the stream
// and its writes; allow the next one to be scheduled (a block's exit allows
// it too). No-ops without PDL and before sm_90.
__device__ __forceinline__ void tr_grid_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void tr_grid_trigger() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
__device__ __forceinline__ void tr_grid_begin() {
    tr_grid_wait();
    tr_grid_trigger();
}

// Eight consecutive elements [base, base + 8) of a row, raw: their bits as
// stored (two words of f32 per uint4, or eight 16-bit values in one uint4).
// Positions at or past `vocab` read as -inf (masked, so they never count).
// 16-byte loads when the row is 16-byte aligned and the unit is whole; scalar
// loads otherwise, so nothing past the row is ever read. Fetching apart from
// converting lets a loop issue the next unit's loads before computing.
struct Raw8 {
    uint4 v0, v1;  // v1 unused for 16-bit dtypes
};

// A 16-byte read-only load with an L2 eviction priority: POL 0 none (as
// __ldg), 1 evict_last (data read again soon: the top-p histogram's own scan
// of the chunk it counts next), 2 evict_first (data read for the last time
// in this kernel: that count). A hint only: the loaded values are the same.
template <int POL>
__device__ __forceinline__ uint4 tr_ldg16(const uint4* p) {
    if (POL == 0) return __ldg(p);
    uint4 v;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    // The policy has no inputs: the compiler computes it once.
    u64 pol;
    if (POL == 1)
        asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
    else
        asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
    asm("ld.global.nc.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
        : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
        : "l"(p), "l"(pol));
#else
    v = __ldg(p);
#endif
    return v;
}

// A whole unit of a 16-byte aligned row: [base, base + 8) inside the row.
template <int DT, int POL = 0>
__device__ __forceinline__ Raw8 tr_fetch8_whole(const typename Elem<DT>::T* row, i64 base) {
    Raw8 r;
    const uint4* p = (const uint4*)(row + base);
    r.v0 = tr_ldg16<POL>(p);
    r.v1 = (DT == 0) ? tr_ldg16<POL>(p + 1) : make_uint4(0, 0, 0, 0);
    return r;
}

template <int DT, int POL = 0>
__device__ __forceinline__ Raw8 tr_fetch8(const typename Elem<DT>::T* row, i64 base, u32 vocab,
                                          bool aligned, bool live) {
    Raw8 r;
    if (DT == 0) {
        const u32 ninf = 0xff800000u;
        if (!live) {
            r.v0 = make_uint4(ninf, ninf, ninf, ninf);
            r.v1 = r.v0;
        } else if (aligned && base + 8 <= (i64)vocab) {
            r = tr_fetch8_whole<DT, POL>(row, base);
        } else {
            const u32* q = (const u32*)row;
            u32 w[8];
#pragma unroll
            for (int k = 0; k < 8; k++) w[k] = (base + k < (i64)vocab) ? __ldg(q + base + k) : ninf;
            r.v0 = make_uint4(w[0], w[1], w[2], w[3]);
            r.v1 = make_uint4(w[4], w[5], w[6], w[7]);
        }
    } else {
        const u32 ninf = (DT == 1) ? 0xff80u : 0xfc00u;
        r.v1 = make_uint4(0, 0, 0, 0);
        if (!live) {
            u32 w = ninf | (ninf << 16);
            r.v0 = make_uint4(w, w, w, w);
        } else if (aligned && base + 8 <= (i64)vocab) {
            r = tr_fetch8_whole<DT, POL>(row, base);
        } else {
            const u16* q = (const u16*)row;
            u32 h[8];
#pragma unroll
            for (int k = 0; k < 8; k++) h[k] = (base + k < (i64)vocab) ? (u32)__ldg(q + base + k) : ninf;
            r.v0 = make_uint4(h[0] | (h[1] << 16), h[2] | (h[3] << 16), h[4] | (h[5] << 16),
                              h[6] | (h[7] << 16));
        }
    }
    return r;
}

template <int DT>
__device__ __forceinline__ void tr_convert8(const Raw8& r, float x[8]) {
    if (DT == 0) {
        x[0] = __uint_as_float(r.v0.x);
        x[1] = __uint_as_float(r.v0.y);
        x[2] = __uint_as_float(r.v0.z);
        x[3] = __uint_as_float(r.v0.w);
        x[4] = __uint_as_float(r.v1.x);
        x[5] = __uint_as_float(r.v1.y);
        x[6] = __uint_as_float(r.v1.z);
        x[7] = __uint_as_float(r.v1.w);
    } else {
        const u32 w[4] = {r.v0.x, r.v0.y, r.v0.z, r.v0.w};
#pragma unroll
        for (int j = 0; j < 4; j++) {
            if (DT == 1) {
                x[2 * j] = __uint_as_float(w[j] << 16);
                x[2 * j + 1] = __uint_as_float(w[j] & 0xffff0000u);
            } else {
                x[2 * j] = tr_f16_to_f32((u16)(w[j] & 0xffffu));
                x[2 * j + 1] = tr_f16_to_f32((u16)(w[j] >> 16));
            }
        }
    }
}

// ---- warp reductions ----
__device__ __forceinline__ double tr_warp_max(double v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        double w = __shfl_xor_sync(TR_FULL, v, o);
        v = (w > v) ? w : v;
    }
    return v;
}

// (score, index): the larger score, equal scores to the smaller index.
__device__ __forceinline__ bool tr_better(double s, u32 i, double bs, u32 bi) {
    return s > bs || (s == bs && i < bi);
}
__device__ __forceinline__ void tr_warp_best(double& s, u32& i) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        double s2 = __shfl_xor_sync(TR_FULL, s, o);
        u32 i2 = __shfl_xor_sync(TR_FULL, i, o);
        if (tr_better(s2, i2, s, i)) {
            s = s2;
            i = i2;
        }
    }
}
