// The batch sampler: a fused status/greedy/race pass over vocabulary chunks
// (several blocks per row, combined by the last block of the row), the
// rank-order filters (one block per row, exact radix selection), and the
// expansion of sparse biases. spec: SAMPLER.md §3-§8.
//
// Every reduction is order-free: max/argmax with smaller-index ties, exact
// integer sums. So the result never depends on the launch geometry.

struct Partial {
    double score;   // best race score of the chunk (may be -inf: see `index`)
    double max_a;   // largest a of the chunk
    u32 index;      // its index (TR_NO_TOKEN: none)
    u32 max_index;  // index of max_a (TR_NO_TOKEN: none)
    u32 flags;      // bit 0: NaN or +inf seen; bit 1: some a > -inf
    u32 pad;        // fused top-k rows: keys in the chunk's list
    u64 lo_key;     // fused top-k rows: the list's smallest key when it holds >= k (else 0)
};

struct RowState {
    double a_max;
    double cut_a;    // the rank-order cut: keep (a, i) with a > cut_a or (a == cut_a and i <= cut_index)
    u32 cut_index;
    u32 need_race;   // 1: a filter row whose race runs in phase 1
    u32 pad0;        // 1: the binned top-p path found the cut (the filter kernel skips the row);
                     // 2: it found the cut's value cut_a, and the race finds its index (topp.cu,
                     // tr_topp_pend; the filter kernel skips the row too);
                     // 3: as 2, and the histogram raced the row (topp.cu,
                     // tr_topp_race_settle: need_race 0, the token written)
    u32 pad1;        // pad0 = 2, 3: the cut is the pad1-th element of value cut_a by index
};

// Must match `SampleArgs` in src/launch.rs field for field.
struct SampleArgs {
    const void* logits;
    u64 row_stride;
    const double* temperature;
    const u32* top_k;
    const double* top_p;
    const double* min_p;
    const u64* seed;
    const u64* position;
    const u32* profile;
    const u8* bias_kind;  // 0 none, 1 dense, 2 sparse
    const u32* bias_slot; // sparse rows: row of the expanded buffer
    const float* dense_bias;
    u64 dense_stride;
    float* sparse_dense;
    const u32* sparse_offsets;
    const u32* sparse_index;
    const float* sparse_value;
    Partial* partials;
    u32* counters;
    RowState* rowstate;
    u32* out_token;
    u8* out_status;
    u32 vocab;
    u32 rows;
    u32 nchunks;
    u32 chunk_len;  // elements per chunk, a multiple of 8
    u32 phase;      // 0: status/greedy/plain race; 1: race of filter rows
    u32 queue_cap;  // candidate queue entries per warp
    u64* cand;      // fused top-k: per (row, chunk) lists of TR_FUSED_K_MAX rank keys
    u32 fused_on;   // 1: rows that qualify take the fused top-k path (tr_fused_row)
    u32 topp_on;    // 1: rows that qualify take the binned top-p path (topp.cu)
    u64* topp;      // its workspace: per-row ToppRow, histograms, bin lists
    u32* topp_cnt;  // bf16 top-p rows of many chunks: each chunk's value counts, or null
    u32 race_stages;  // 1: the launch's shared memory holds the race's staging ring
    u32 topp_seg_units;  // top-p rows of one chunk: units a histogram segment, or 0 (topp.cu)
    u32 topp_pend;  // 1: this launch's race kernel finds the cut's index of bf16 top-p rows (topp.cu)
    u32 topp_own_max;  // 1: no first pass; the bf16 top-p histogram finds each row's record (topp.cu)
    u32 topp_late;  // 1: the bf16 top-p kernels let their successor launch only after their rows' tails (topp.cu)
};

// Register budget of the pass kernel (a tuning knob: the check binary times variants).
#ifndef TR_PASS_BOUNDS
#define TR_PASS_BOUNDS __launch_bounds__(512)
#endif
// The specialized kernel without the fused path at 128 registers: with one
// lead block a unit its race is latency-bound, and the spills of an 80-register
// build cost more than its third block an SM (plain B = 256 58.8 -> 56.4 us,
// f32 70.3 -> 62.6; docs/cuda-notes.md, run 11). It runs only where every
// block is resident, at most two blocks of 256 an SM, which 128 registers
// still allow: at 96 the pinned lead blocks of TR_RACE_PIN_LEADS spilled 28
// bytes in the loop (plain B = 8 / 64 / 256 18.1 / 26.7 / 44.9 -> 16.8 /
// 25.6 / 43.9 us with both; docs/cuda-notes.md, run 18). Launches whose
// blocks queue take the 80-register build below. __maxnreg__ keeps
// 512-thread blocks launchable, which __launch_bounds__(256, 2) would not.
#ifndef TR_FAST_BOUNDS
#define TR_FAST_BOUNDS __maxnreg__(128)
#endif
// The kernel with the fused top-k path at 80 registers: 3 blocks of 256 per
// SM instead of 2 (docs/cuda-notes.md, run 4: B = 1024 237 -> 218 us), and
// the cap of its build for launches with more blocks than the 80-register
// build keeps resident: 64 registers give four blocks of 256 an SM instead of
// three, which pays once the blocks queue (top-k 50 + top-p 0.9, B = 1024:
// 246 -> 225 us) and costs where they do not (B = 256: 82.5 -> 87.4 us;
// docs/cuda-notes.md, run 9).
#ifndef TR_FUSED_BOUNDS
#define TR_FUSED_BOUNDS __maxnreg__(80)
#endif
#ifndef TR_FUSED_WIDE_BOUNDS
#define TR_FUSED_WIDE_BOUNDS __maxnreg__(64)
#endif
// The specialized kernel without the fused path for launches with more
// blocks than its default build keeps resident: 80 registers (three blocks of
// 256 an SM) with the staging ring. Plain B = 1024: 170.2 us at 64 registers
// without the ring, 171.6 with it, 155.1 at 80 with it (docs/cuda-notes.md,
// run 14; before the ring, 64 registers beat 80: 177.6 -> 169.1, run 11).
#ifndef TR_FAST_WIDE_BOUNDS
#define TR_FAST_WIDE_BOUNDS __maxnreg__(80)
#endif
// Whether tr_fast_* carry the fused top-k path too (a timing knob: run 9 of
// docs/cuda-notes.md times the kernels with it against those without).
#ifndef TR_FAST_FUSED
#define TR_FAST_FUSED false
#endif

// Which builds race 16-byte aligned rows from the staging ring (TR_RACE_STAGES):
// the specialized ones without the fused path (plain B = 256 57.9 -> 52.9
// us at 96 registers), not the fused kernels, whose race serves only the rows
// of a fused batch that are not fused (docs/cuda-notes.md, run 14).
#ifndef TR_FAST_STAGED
#define TR_FAST_STAGED true
#endif
#ifndef TR_FAST_WIDE_STAGED
#define TR_FAST_WIDE_STAGED true
#endif
#ifndef TR_FUSED_STAGED
#define TR_FUSED_STAGED false
#endif

// The pass kernel's dynamic shared memory (race queues or fused top-k buffers).
__device__ __forceinline__ u64* tr_dyn_smem_pass() {
    extern __shared__ u64 tr_dyn_smem[];
    return tr_dyn_smem;
}

#define TR_BIAS_NONE 0
#define TR_BIAS_DENSE 1
#define TR_BIAS_SPARSE 2

template <bool B> struct AType { typedef float T; };
template <> struct AType<true> { typedef double T; };

__device__ __forceinline__ const float* tr_bias_row(const SampleArgs& A, u32 row) {
    u8 kind = A.bias_kind[row];
    if (kind == TR_BIAS_DENSE) return A.dense_bias + (u64)row * A.dense_stride;
    if (kind == TR_BIAS_SPARSE) return A.sparse_dense + (u64)A.bias_slot[row] * (u64)A.vocab;
    return 0;
}

// Raw bits of eight logits and (with a bias) eight bias values.
template <int DT, bool BIAS> struct RawA {
    Raw8 x;
    Raw8 b;
};

template <int DT, bool BIAS, int POL = 0>
__device__ __forceinline__ RawA<DT, BIAS> tr_fetch_a(const typename Elem<DT>::T* row,
                                                     const float* brow, i64 base, u32 vocab,
                                                     bool al, bool bal, bool live) {
    RawA<DT, BIAS> r;
    r.x = tr_fetch8<DT, POL>(row, base, vocab, al, live);
    if (BIAS) {
        // Bias values past the row (or in dead lanes) read as -inf bits too; the
        // logit there is -inf already, and -inf + -inf stays masked.
        r.b = tr_fetch8<0>(brow, base, vocab, bal, live);
    }
    return r;
}

// a for eight elements: binary32 logits alone, or f64(x) + f64(b) with a bias.
template <int DT, bool BIAS>
__device__ __forceinline__ void tr_convert_a(const RawA<DT, BIAS>& r, typename AType<BIAS>::T a[8]) {
    float x[8];
    tr_convert8<DT>(r.x, x);
    if (BIAS) {
        float b[8];
        tr_convert8<0>(r.b, b);
#pragma unroll
        for (int k = 0; k < 8; k++)
            a[k] = (typename AType<BIAS>::T)__dadd_rn((double)x[k], (double)b[k]);
    } else {
#pragma unroll
        for (int k = 0; k < 8; k++) a[k] = (typename AType<BIAS>::T)x[k];
    }
}

template <int DT, bool BIAS>
__device__ __forceinline__ void tr_load_a(const typename Elem<DT>::T* row, const float* brow,
                                          i64 base, u32 vocab, bool al, bool bal, bool live,
                                          typename AType<BIAS>::T a[8]) {
    RawA<DT, BIAS> r = tr_fetch_a<DT, BIAS>(row, brow, base, vocab, al, bal, live);
    tr_convert_a<DT, BIAS>(r, a);
}

// Per-thread accumulators of a chunk.
struct Acc {
    bool bad;
    bool any;
    double max_a;
    u32 max_i;
    double best_s;
    u32 best_i;
};

// Accumulators before the chunk's first element: nothing seen.
__device__ __forceinline__ Acc tr_acc_empty() {
    Acc acc;
    acc.bad = false;
    acc.any = false;
    acc.max_a = tr_ninf();
    acc.max_i = TR_NO_TOKEN;
    acc.best_s = tr_ninf();
    acc.best_i = TR_NO_TOKEN;
    return acc;
}

__device__ __forceinline__ bool tr_keeps(double a, u32 i, double cut_a, u32 cut_i) {
    return a > cut_a || (a == cut_a && i <= cut_i);
}

// ---- the staging ring (docs/cuda-notes.md, run 14) ----
//
// The race and the scan of a 16-byte aligned row copy each lane's units into
// a ring of TR_RACE_STAGES slots in shared memory with cp.async,
// TR_RACE_STAGES - 1 steps ahead, so the memory has that many steps of loads
// in flight without holding their registers. The ring follows the warps'
// queues: per warp TR_RACE_STAGE_SLOTS slots of 32 lanes' units (launch.rs:
// Geometry::pass_smem_for allocates them and sets race_stages when they
// fit). 0 turns it off (a timing knob: loads then go ahead in registers).
#ifndef TR_RACE_STAGES
#define TR_RACE_STAGES TR_RACE_STAGE_SLOTS
#endif
static_assert(TR_RACE_STAGES == 0 || (TR_RACE_STAGES >= 2 && TR_RACE_STAGES <= TR_RACE_STAGE_SLOTS),
              "TR_RACE_STAGES: 0, or 2 up to the slots the host allocates");

__device__ __forceinline__ void tr_cp16(u32 saddr, const void* g) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(saddr), "l"(g) : "memory");
}
__device__ __forceinline__ void tr_cp_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N> __device__ __forceinline__ void tr_cp_wait() {
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

// Bytes of a unit of 8 logits, and of one slot of a warp's ring.
template <int DT> struct Ring {
    static constexpr u32 unit = (DT == 0) ? 32 : 16;
    static constexpr u32 slot = 32 * unit;
};

// The shared address of this lane's unit in slot 0 of its warp's ring.
template <int DT> __device__ __forceinline__ u32 tr_ring_lane(u32 cap) {
    extern __shared__ u64 tr_dyn_smem[];
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    return (u32)__cvta_generic_to_shared(tr_dyn_smem) + nwarps * cap * 16 +
           warp * (u32)TR_RACE_STAGE_SLOTS * Ring<DT>::slot + lane * Ring<DT>::unit;
}

// Starts the copy of whole unit u of `row` to dst (no commit).
template <int DT>
__device__ __forceinline__ void tr_ring_put(u32 dst, const typename Elem<DT>::T* row, i64 u) {
    tr_cp16(dst, row + u * 8);
    if (DT == 0) tr_cp16(dst + 16, row + u * 8 + 4);
}

// The unit at src, once its copy's group is complete.
template <int DT> __device__ __forceinline__ Raw8 tr_ring_get(u32 src) {
    Raw8 r;
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r.v0.x), "=r"(r.v0.y), "=r"(r.v0.z), "=r"(r.v0.w)
                 : "r"(src));
    if (DT == 0)
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(r.v1.x), "=r"(r.v1.y), "=r"(r.v1.z), "=r"(r.v1.w)
                     : "r"(src + 16));
    else
        r.v1 = make_uint4(0, 0, 0, 0);
    return r;
}

// Stores unit r into the ring at dst (a unit no cp.async copies: the
// race's RING_ALL stores the row's partial unit and -inf past the chunk).
template <int DT> __device__ __forceinline__ void tr_ring_store(u32 dst, const Raw8& r) {
    asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(dst), "r"(r.v0.x), "r"(r.v0.y),
                 "r"(r.v0.z), "r"(r.v0.w)
                 : "memory");
    if (DT == 0)
        asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(dst + 16), "r"(r.v1.x),
                     "r"(r.v1.y), "r"(r.v1.z), "r"(r.v1.w)
                     : "memory");
}

// The largest of a unit's eight logits as binary32, NaN if one is NaN (its
// other values do not matter then): NaN-propagating maxima as a tree, on the
// 16-bit pairs of bf16 and f16 units (max.NaN.bf16x2 / f16x2: exact, as the
// conversion is) before one conversion of the two halves.
__device__ __forceinline__ u32 tr_max_nan_x2(int dt, u32 x, u32 y) {
    u32 r;
    if (dt == 1)
        asm("max.NaN.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    else
        asm("max.NaN.f16x2 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    return r;
}
template <int DT> __device__ __forceinline__ float tr_unit_max(const Raw8& r) {
    if (DT == 0) {
        const float m0 = tr_fmax_nan(__uint_as_float(r.v0.x), __uint_as_float(r.v0.y));
        const float m1 = tr_fmax_nan(__uint_as_float(r.v0.z), __uint_as_float(r.v0.w));
        const float m2 = tr_fmax_nan(__uint_as_float(r.v1.x), __uint_as_float(r.v1.y));
        const float m3 = tr_fmax_nan(__uint_as_float(r.v1.z), __uint_as_float(r.v1.w));
        return tr_fmax_nan(tr_fmax_nan(m0, m1), tr_fmax_nan(m2, m3));
    } else {
        const u32 m = tr_max_nan_x2(DT, tr_max_nan_x2(DT, r.v0.x, r.v0.y),
                                    tr_max_nan_x2(DT, r.v0.z, r.v0.w));
        float x[8];
        Raw8 h;
        h.v0 = make_uint4(m, 0, 0, 0);
        h.v1 = make_uint4(0, 0, 0, 0);
        tr_convert8<DT>(h, x);
        return tr_fmax_nan(x[0], x[1]);
    }
}

// ---- status / argmax ----
// Units a thread loads before it looks at any: the scan is memory-bound, and
// one 16-byte load a thread in flight leaves the memory idle (the first pass
// of a filter batch ran at half the copy bandwidth; docs/cuda-notes.md run 7).
#ifndef TR_SCAN_UNITS
#define TR_SCAN_UNITS 4
#endif
// 1: the scan of a row without a bias tests each unit's largest logit (a
// tree of NaN-propagating maxima, in 16-bit pairs for bf16 and f16) and looks
// at the unit's elements only when it raises the thread's maximum or holds
// NaN or +inf; 0: every element compared (a timing knob; the same results).
// Measured on the H200 (docs/cuda-notes.md, run 24, item 1): greedy bf16
// B = 1024 88.1 -> 81.2 us, top-p 0.9 376.9 -> 370.0, min-p 0.05 368.7 ->
// 361.7 in one process; the first pass of top-p at B = 1024 90.7 -> 83.8 us
// (Nsight), 50.1 -> 35.5 million warp instructions.
#ifndef TR_SCAN_UNIT_MAX
#define TR_SCAN_UNIT_MAX 1
#endif
// The logit types (bit DT) whose scan (status, greedy, the first pass of
// filter rows) reads aligned rows through the staging ring in the staged
// builds, as their race does: bf16 and f16 (greedy B = 256 33.8 -> 31.2 us,
// top-p 0.9 158.8 -> 153.8), not f32 (greedy B = 256 43.6 -> 45.9;
// docs/cuda-notes.md, run 14). A timing knob.
#ifndef TR_SCAN_STAGED_DT
#define TR_SCAN_STAGED_DT 6
#endif
// A thread's scan of its units (tr_scan; the bf16 histogram's held units,
// tr_topp_hist): status flags and the first maximum. Units are taken in
// increasing order, so the first of equal maxima is kept (strict >); units
// past the chunk read as -inf and change nothing.
template <int DT, bool BIAS>
struct ScanAcc {
    typedef typename AType<BIAS>::T AT;
    AT m;
    u32 mi;
    bool bad, any;
    __device__ __forceinline__ ScanAcc() : m((AT)tr_ninf()), mi(TR_NO_TOKEN), bad(false), any(false) {}
    __device__ __forceinline__ void take(const RawA<DT, BIAS>& r, i64 u) {
#if TR_SCAN_UNIT_MAX
        if (!BIAS) {
            // The unit's largest logit (NaN if one is NaN) decides: below
            // +inf, the unit raises the running maximum only when that
            // largest value exceeds it, at the first element holding it (the
            // first of equal ones, -0 and +0 included, as the loop below);
            // NaN or +inf units take the loop.
            const float um = tr_unit_max<DT>(r.x);
            if (um < tr_inf()) {
                any |= um > tr_ninf();
                if (um > (float)m) {
                    float x[8];
                    tr_convert8<DT>(r.x, x);
                    u32 k0 = 7;
                    float v = x[7];
#pragma unroll
                    for (int k = 6; k >= 0; k--) {
                        if (x[k] == um) {
                            k0 = (u32)k;
                            v = x[k];
                        }
                    }
                    m = (AT)v;
                    mi = (u32)(u * 8) + k0;
                }
                return;
            }
        }
#endif
        AT a[8];
        tr_convert_a<DT, BIAS>(r, a);
#pragma unroll
        for (int k = 0; k < 8; k++) {
            bad |= !(a[k] < (AT)tr_inf());
            any |= a[k] > (AT)tr_ninf();
            if (a[k] > m) {
                m = a[k];
                mi = (u32)(u * 8 + k);
            }
        }
    }
    __device__ __forceinline__ void into(Acc& acc) const {
        acc.bad = bad;
        acc.any = any;
        acc.max_a = (double)m;
        acc.max_i = mi;
    }
};
template <int DT, bool BIAS, bool STAGED, int POL = 0>
__device__ __noinline__ void tr_scan(const typename Elem<DT>::T* row, const float* brow, bool al, bool bal,
                        u32 vocab, i64 lo, i64 hi, u32 cap, Acc& acc) {
    static_assert(!STAGED || (!BIAS && TR_RACE_STAGES > 0), "staged: no bias, stages on");
    constexpr int N = TR_SCAN_UNITS;
    const i64 unit_lo = lo >> 3, unit_hi = (hi + 7) >> 3, step = blockDim.x;
    ScanAcc<DT, BIAS> sa;
    auto take = [&](const RawA<DT, BIAS>& r, i64 u) { sa.take(r, u); };
    if (STAGED) {
        // A 16-byte aligned row: whole units come through the ring,
        // TR_RACE_STAGES - 1 ahead; the row's last, partial unit is loaded.
        constexpr int D = STAGED ? TR_RACE_STAGES : 2;
        const i64 whole_hi = ((i64)(vocab >> 3) < unit_hi) ? (i64)(vocab >> 3) : unit_hi;
        const u32 ring = tr_ring_lane<DT>(cap);
        auto stage = [&](i64 u, int d) {
            if (u < whole_hi) tr_ring_put<DT>(ring + (u32)d * Ring<DT>::slot, row, u);
            tr_cp_commit();
        };
#pragma unroll
        for (int d = 0; d < D - 1; d++) stage(unit_lo + threadIdx.x + d * step, d);
        int slot = 0;
        for (i64 u = unit_lo + threadIdx.x; u < unit_hi; u += step) {
            tr_cp_wait<D - 2>();
            RawA<DT, BIAS> r;
            if (u < whole_hi)
                r.x = tr_ring_get<DT>(ring + (u32)slot * Ring<DT>::slot);
            else
                r = tr_fetch_a<DT, BIAS, POL>(row, brow, u * 8, vocab, al, bal, true);
            stage(u + (D - 1) * step, slot == 0 ? D - 1 : slot - 1);
            slot = (slot == D - 1) ? 0 : slot + 1;
            take(r, u);
        }
    } else {
        for (i64 u0 = unit_lo + threadIdx.x; u0 < unit_hi; u0 += N * step) {
            RawA<DT, BIAS> r[N];
#pragma unroll
            for (int n = 0; n < N; n++) {
                const i64 u = u0 + n * step;
                r[n] = tr_fetch_a<DT, BIAS, POL>(row, brow, u * 8, vocab, al, bal, u < unit_hi);
            }
#pragma unroll
            for (int n = 0; n < N; n++) take(r[n], u0 + n * step);
        }
    }
    sa.into(acc);
}

// ---- the race with a non-exact profile: every survivor evaluated ----
template <int DT, bool BIAS>
__device__ void tr_race_direct(const typename Elem<DT>::T* row, const float* brow, bool al,
                               bool bal, u32 vocab, i64 lo, i64 hi, double neg_t, u32 profile,
                               u64 seed, u64 pos, double cut_a, u32 cut_i, Acc& acc) {
    typedef typename AType<BIAS>::T AT;
    const i64 unit_lo = lo >> 3, unit_hi = (hi + 7) >> 3;
    bool bad = false, any = false;
    double bs = tr_ninf();
    u32 bi = TR_NO_TOKEN;
    for (i64 u = unit_lo + threadIdx.x; u < unit_hi; u += blockDim.x) {
        AT a[8];
        tr_load_a<DT, BIAS>(row, brow, u * 8, vocab, al, bal, true, a);
#pragma unroll
        for (int k = 0; k < 8; k++) {
            bad |= !(a[k] < (AT)tr_inf());
            any |= a[k] > (AT)tr_ninf();
            double av = (double)a[k];
            u32 i = (u32)(u * 8 + k);
            if (av > tr_ninf() && tr_keeps(av, i, cut_a, cut_i)) {
                const uint4 b = tr_block(seed, i, pos, tr_direct_tag(profile));
                // Word 0 bounds ln E from below: skip the logarithms when even the
                // bound cannot beat this thread's best (earlier index on ties).
                // The first survivor is always admitted: scores may all be -inf
                // when T * ln E overflows (the model's `Best::admits`).
                const double bound = __fma_rn(neg_t, tr_direct_lower_bound(profile, b.x), av);
                if (!(bound > bs || bi == TR_NO_TOKEN)) continue;
                double s = __fma_rn(neg_t, tr_ln_variate_block(profile, b), av);
                if (tr_better(s, i, bs, bi)) {
                    bs = s;
                    bi = i;
                }
            }
        }
    }
    acc.bad = bad;
    acc.any = any;
    acc.best_s = bs;
    acc.best_i = bi;
}

// 1: the non-exact profiles race with tr_race_direct_words (the default);
// 0: tr_race_direct, a timing knob (docs/cuda-notes.md, run 47).
#ifndef TR_DIRECT_WORDS
#define TR_DIRECT_WORDS 1
#endif

// 1: the lanes of a warp share a threshold in tr_race_direct_words (the
// default); 0: each lane prunes with its own best alone, a timing knob
// (docs/cuda-notes.md, run 47).
#ifndef TR_DIRECT_WARP
#define TR_DIRECT_WARP 1
#endif

// 1: tr_race_direct_words loads a step's units one step ahead (call F of
// run 47 put 17% of its stall samples on the first use of the step's own
// load); 0: each step loads its own, a timing knob.
#ifndef TR_DIRECT_PREFETCH
#define TR_DIRECT_PREFETCH 1
#endif

// 1: on a row with a cut (top-p, min-p, top-k outside the fused path)
// tr_race_direct_words computes the noise of a unit's elements at or above
// the cut alone, one after another (the default); 0: of all eight, as on a
// row without one, a timing knob. The warp's live elements spread over its
// lanes, 32 a round (ballots, a rank search and eight shuffles a round),
// measured faster at B <= 8 but slower from B = 64 on (docs/cuda-notes.md,
// run 48, item 1).
#ifndef TR_DIRECT_LIVE
#define TR_DIRECT_LIVE 1
#endif

// 1: the eight chains' passing elements take tr_direct_try through one
// inlined copy, each element's value and word picked from the unit's (the
// generic kernel's sm_90 SASS 22,000 instructions instead of 24,500); 0:
// an unrolled copy for each of the eight, a timing knob.
#ifndef TR_DIRECT_TRY_ONCE
#define TR_DIRECT_TRY_ONCE 1
#endif

// 1: a warp with no best yet (its first step; at B = 1 its only one) on a
// row without a cut first scores the element of the largest bound among
// its lanes' candidates, one lane's binary64 logarithms, and prunes the
// step with a threshold just below that score (at B = 1 the step ran the
// logarithms of about every element slot of its unit in turn, since some
// lane of 32 had a record there: run 49's source view, 62% of the
// instructions in tr_ln); 0: none, a timing knob.
#ifndef TR_DIRECT_PILOT
#define TR_DIRECT_PILOT 1
#endif

// x[k] for a k known at run time only, by selects (an indexed register
// array would go to local memory).
template <typename T> __device__ __forceinline__ T tr_pick8(const T (&x)[8], int k) {
    T v = x[0];
#pragma unroll
    for (int j = 1; j < 8; j++)
        if (k == j) v = x[j];
    return v;
}

// One element of tr_race_direct_words that its unit's filter let through:
// tr_race_direct's test and score for it, word 0 already at hand, and the
// warp's threshold thr (below some lane's best score; -inf: none yet).
template <u32 PROF>
__device__ __forceinline__ void tr_direct_try(double av, u32 i, u32 w0, double neg_t, u64 seed,
                                              u64 pos, u32 tag, double cut_a, u32 cut_i, double thr,
                                              double& bs, u32& bi) {
    if (!(av > tr_ninf() && tr_keeps(av, i, cut_a, cut_i))) return;
    const double bound = __fma_rn(neg_t, tr_direct_lower_bound(PROF, w0), av);
    if (!(bound > bs || bi == TR_NO_TOKEN)) return;
    if (!(bound > thr || thr == tr_ninf())) return;
    const uint4 b = PROF == TR_PROFILE_F64 ? tr_block(seed, i, pos, tag) : make_uint4(w0, 0, 0, 0);
    const double s = __fma_rn(neg_t, tr_ln_variate_block(PROF, b), av);
    if (tr_better(s, i, bs, bi)) {
        bs = s;
        bi = i;
    }
}

// The race of a non-exact profile (tr_race_direct's result for the chunk).
// Each element needs its own Philox block: a unit's eight are independent
// chains, computed together, and of each only word 0 is kept. Two
// thresholds prune: the lane's own best (an element must beat it, as in
// tr_race_direct: a lane visits its elements in index order) and, with
// TR_DIRECT_WARP, thr, refreshed every step from the warp's best scores
// (the largest high word of their keys, less one: strictly below some
// lane's best, so an element whose bound is at most thr can neither win nor
// tie). An element's bound fma(-T, LB(d), a') exceeds a threshold only
// where its exact value does, so a candidate has LB(d) < (a - eff) / T <=
// y (tr_direct_y), a the unit's largest value, eff the larger threshold; the
// unit-wide limit on the word's distance (tr_direct_limit) lets every such
// element through to tr_race_direct's own tests (tr_direct_try). A unit
// whose y is at most the floor F has no candidate and computes no noise.
// Without the warp's threshold each lane evaluated about ln(elements) + 1
// record scores, each a chain of binary64 logarithms that stalled its warp
// (docs/cuda-notes.md, run 47).
template <int DT, bool BIAS, u32 PROF>
__device__ void tr_race_direct_words(const typename Elem<DT>::T* row, const float* brow, bool al,
                                     bool bal, u32 vocab, i64 lo, i64 hi, double neg_t, u64 seed,
                                     u64 pos, double cut_a, u32 cut_i, Acc& acc) {
    typedef typename AType<BIAS>::T AT;
    const u32 tag = PROF == TR_PROFILE_F64 ? TR_TAG_F64 : (PROF == TR_PROFILE_F32 ? TR_TAG_F32 : TR_TAG_TRITON);
    const double floor_lb = PROF == TR_PROFILE_F64 ? TR_LB_F64_FLOOR : TR_LB_F32_FLOOR;
    const double inv_t = -1.0 / neg_t;  // T > 0 on a racing row
    const i64 unit_lo = lo >> 3, unit_hi = (hi + 7) >> 3;
    const u32 lane = threadIdx.x & 31;
    // A row with a cut (cut_a > -inf) and its value as a logit of this
    // kernel's type, rounded down (a[k] >= cut_a implies a[k] >= cut_lo).
    const bool cut = cut_a > tr_ninf();
    const AT cut_lo = BIAS ? (AT)cut_a : (AT)__double2float_rd(cut_a);
    bool bad = false, any = false;
    double bs = tr_ninf();
    u32 bi = TR_NO_TOKEN;
    // Whole warps step together (the threshold's reduction needs them all).
    // With TR_DIRECT_PREFETCH each step loads the next step's unit first.
    const i64 u0 = unit_lo + threadIdx.x;
    RawA<DT, BIAS> next;
    if (TR_DIRECT_PREFETCH) next = tr_fetch_a<DT, BIAS>(row, brow, u0 * 8, vocab, al, bal, u0 < unit_hi);
    for (i64 ub = unit_lo + (threadIdx.x & ~31u); ub < unit_hi; ub += blockDim.x) {
        const i64 u = ub + lane;
        double thr = tr_ninf();
#if TR_DIRECT_WARP
        // (Keys at or below -inf's high word give -inf.)
        const u32 top = __reduce_max_sync(TR_FULL, (u32)(tr_dkey(bs) >> 32));
        if (top > (u32)(tr_dkey(tr_ninf()) >> 32)) thr = tr_dbelow(((u64)top << 32) - 1);
#endif
        AT a[8];
        if (TR_DIRECT_PREFETCH) {
            const RawA<DT, BIAS> cur = next;
            const i64 un = u + blockDim.x;
            next = tr_fetch_a<DT, BIAS>(row, brow, un * 8, vocab, al, bal, un < unit_hi);
            tr_convert_a<DT, BIAS>(cur, a);
        } else {
            tr_load_a<DT, BIAS>(row, brow, u * 8, vocab, al, bal, u < unit_hi, a);
        }
        AT amax = a[0];
        if (BIAS) {
#pragma unroll
            for (int k = 0; k < 8; k++) {
                bad |= !(a[k] < (AT)tr_inf());
                amax = fmax(amax, a[k]);
            }
        } else {
            float anan = (float)a[0];
#pragma unroll
            for (int k = 1; k < 8; k++) {
                anan = tr_fmax_nan(anan, (float)a[k]);
                amax = fmaxf((float)amax, (float)a[k]);
            }
            bad |= !(anan < tr_finf());
        }
        // (fmax ignores NaN: amax > -inf exactly where some element is.)
        // A lane with no candidate in this step drops out (go = false), but
        // only after the warp's choice below on a row with a cut.
        bool go = amax > (AT)tr_ninf();
        any |= go;
        // On a row with a cut, the unit's live elements: those at or above
        // cut_lo (<= cut_a), a superset of the kept ones, whose largest
        // value bounds the unit's candidates instead.
        u32 live = 0xffu;
        if (TR_DIRECT_LIVE && cut) {
            live = 0;
            amax = (AT)tr_ninf();
#pragma unroll
            for (int k = 0; k < 8; k++)
                if (a[k] >= cut_lo) {
                    live |= 1u << k;
                    amax = a[k] > amax ? a[k] : amax;  // (a live element is no NaN)
                }
            go = live != 0;
        }
        const double eff = (bi != TR_NO_TOKEN && bs > thr) ? bs : thr;
        u32 lim = 0xffffffffu;
        if (go && eff != tr_ninf()) {
            const double y = tr_direct_y((double)amax, eff, inv_t);  // NaN: every element
            if (y <= floor_lb)
                go = false;
            else
                lim = tr_direct_limit<PROF>(y);
        }
        if (TR_DIRECT_LIVE && cut) {
            if (!go) live = 0;
            // The live elements' blocks one by one, in index order (a lane
            // meets its elements so, as tr_direct_try needs): a min-p row's
            // are a few in a row, a top-p 0.9 row's about a quarter of the
            // benchmark's normal(0, 2) logits; its warp takes as many rounds
            // as its lane of most.
            while (live) {
                const int k = __ffs(live) - 1;
                live &= live - 1;
                const u32 i = (u32)(u * 8 + k);
                const u32 w0 = tr_block(seed, i, pos, tag).x;
                if (tr_direct_dist<PROF>(w0) <= lim)
                    tr_direct_try<PROF>((double)tr_pick8(a, k), i, w0, neg_t, seed, pos, tag, cut_a, cut_i, thr, bs,
                                        bi);
            }
            continue;
        }
        // (thr is the warp's and cut the row's: the whole warp pilots.)
        const bool pilot = TR_DIRECT_PILOT && TR_DIRECT_WARP && !(TR_DIRECT_LIVE && cut) && thr == tr_ninf();
        if (!go && !pilot) continue;
        u32 w[8], pass = 0;
#pragma unroll
        for (int k = 0; k < 8; k++) {
            w[k] = tr_block(seed, (u32)(u * 8 + k), pos, tag).x;
            pass |= (tr_direct_dist<PROF>(w[k]) <= lim ? 1u : 0u) << k;
        }
        if (pilot) {
            // The lane's candidate of largest bound (none where !go), the
            // warp's largest of those (the first lane of the largest high
            // word of its key: any candidate serves), its exact score, and
            // thr just below it: a real candidate's score, so what it
            // prunes can neither win nor tie. Its lane scores it again in
            // tr_direct_try.
            double pb = tr_ninf(), pa = tr_ninf();
            u32 pi = TR_NO_TOKEN, pw = 0;
            for (u32 m = go ? pass : 0u; m != 0; m &= m - 1) {
                const int k = __ffs(m) - 1;
                const double av = (double)tr_pick8(a, k);
                const u32 wk = tr_pick8(w, k);
                const u32 i = (u32)(u * 8 + k);
                if (av > tr_ninf() && tr_keeps(av, i, cut_a, cut_i)) {
                    const double b = __fma_rn(neg_t, tr_direct_lower_bound(PROF, wk), av);
                    if (pi == TR_NO_TOKEN || b > pb) {
                        pb = b;
                        pa = av;
                        pi = i;
                        pw = wk;
                    }
                }
            }
            const u32 hi = (u32)(tr_dkey(pb) >> 32);
            const u32 top = __reduce_max_sync(TR_FULL, pi == TR_NO_TOKEN ? 0u : hi);
            const u32 owners = __ballot_sync(TR_FULL, pi != TR_NO_TOKEN && hi == top);
            if (owners != 0) {
                double sc = 0.0;
                if (lane == (u32)(__ffs(owners) - 1)) {
                    const uint4 b = PROF == TR_PROFILE_F64 ? tr_block(seed, pi, pos, tag) : make_uint4(pw, 0, 0, 0);
                    sc = __fma_rn(neg_t, tr_ln_variate_block(PROF, b), pa);
                }
                sc = __shfl_sync(TR_FULL, sc, __ffs(owners) - 1);
                thr = tr_dbelow(tr_dkey(sc) - 1);
                if (go) {
                    const double y = tr_direct_y((double)amax, thr, inv_t);
                    if (y <= floor_lb) {
                        pass = 0;
                    } else {
                        lim = tr_direct_limit<PROF>(y);
#pragma unroll
                        for (int k = 0; k < 8; k++)
                            if (tr_direct_dist<PROF>(w[k]) > lim) pass &= ~(1u << k);
                    }
                }
            }
        }
        if (!go || pass == 0) continue;
#if TR_DIRECT_TRY_ONCE
        // The passing elements in index order through one copy of the tests
        // and the score.
        while (pass) {
            const int k = __ffs(pass) - 1;
            pass &= pass - 1;
            tr_direct_try<PROF>((double)tr_pick8(a, k), (u32)(u * 8 + k), tr_pick8(w, k), neg_t, seed, pos, tag,
                                cut_a, cut_i, thr, bs, bi);
        }
#else
#pragma unroll
        for (int k = 0; k < 8; k++)
            if (pass & (1u << k))
                tr_direct_try<PROF>((double)a[k], (u32)(u * 8 + k), w[k], neg_t, seed, pos, tag, cut_a,
                                    cut_i, thr, bs, bi);
#endif
    }
    acc.bad = bad;
    acc.any = any;
    acc.best_s = bs;
    acc.best_i = bi;
}

template <int DT, bool BIAS>
__device__ __forceinline__ void tr_race_direct_any(const typename Elem<DT>::T* row, const float* brow,
                                                   bool al, bool bal, u32 vocab, i64 lo, i64 hi,
                                                   double neg_t, u32 profile, u64 seed, u64 pos,
                                                   double cut_a, u32 cut_i, Acc& acc) {
#if TR_DIRECT_WORDS
    if (profile == TR_PROFILE_F64)
        tr_race_direct_words<DT, BIAS, TR_PROFILE_F64>(row, brow, al, bal, vocab, lo, hi, neg_t, seed, pos,
                                                       cut_a, cut_i, acc);
    else if (profile == TR_PROFILE_F32)
        tr_race_direct_words<DT, BIAS, TR_PROFILE_F32>(row, brow, al, bal, vocab, lo, hi, neg_t, seed, pos,
                                                       cut_a, cut_i, acc);
    else
        tr_race_direct_words<DT, BIAS, TR_PROFILE_TRITON>(row, brow, al, bal, vocab, lo, hi, neg_t, seed,
                                                          pos, cut_a, cut_i, acc);
#else
    tr_race_direct<DT, BIAS>(row, brow, al, bal, vocab, lo, hi, neg_t, profile, seed, pos, cut_a, cut_i, acc);
#endif
}

// ---- the exact race with the lead bound (spec: NOISE.md §4.4) ----
//
// A lane's unit of eight elements takes its eight 16-bit leads from one lead
// block (NOISE.md §4.1), each held as its prefix lead·2^16. Each warp keeps a
// running threshold `thr`, a lower bound of the row's best score (from lower
// bounds of candidates' scores, from exact scores, and from the other warps
// through shared memory; at -inf at first, when every element is a
// candidate, so a warp's first step raises it with no separate pilot). An
// element is a candidate when its score upper bound fma(-T, lb(lead), a) can
// reach thr; the hot path tests this as a >= cutoff[class(lead)], class =
// position of the highest set bit, where lane j holds the smallest a whose
// bound with the class bound lb(2^j) (lb(0) for class 0, which also takes
// prefix 0) reaches thr. lb is monotone in the prefix, so the class test is
// weaker than the element test: it never drops a candidate. Candidates go to
// a per-warp queue and are evaluated exactly when it fills and at the end,
// after re-checking their bound against the final threshold. Pruning is strict (bound < thr), so every element whose score
// equals the best is evaluated and ties go to the smaller index: the result is
// the exact argmax.

// 1: the binary32 race's class cutoffs in closed form (tr_cutoff_f32_closed,
// a few operations, possibly an ulp or so below the exact cutoff); 0: the
// exact smallest cutoff by bisection (tr_cutoff_f32, a call with about seven
// dependent binary64 tests), a timing knob. Either is conservative. A warp
// raises its threshold about four times a row, and each raise waited for the
// bisection: 766 SM cycles against 158 in closed form (warp clock, plain B =
// 256); plain bf16 V = 131072 B = 1 / 8 / 64 / 256 / 1024 per call 14.0 /
// 17.2 / 26.1 / 44.4 / 118.9 -> 12.7 / 15.8 / 23.8 / 42.1 / 115.7 us
// (docs/cuda-notes.md, run 19).
#ifndef TR_CUTOFF_CLOSED
#define TR_CUTOFF_CLOSED 1
#endif

// Smallest binary32 x with fma(neg_t, lbc, x) >= thr (-FLT_MAX if all finite x
// qualify, +inf if none does).
__device__ __noinline__ float tr_cutoff_f32(double neg_t, double lbc, double thr) {
    if (thr == tr_ninf()) return -tr_flt_max();
#define TR_PRED_F(xf) (__fma_rn(neg_t, lbc, (double)(xf)) >= thr)
    if (TR_PRED_F(-tr_flt_max())) return -tr_flt_max();
    if (!TR_PRED_F(tr_flt_max())) return tr_finf();
    const u32 kmin = tr_fkey(-tr_flt_max()), kmax = tr_fkey(tr_flt_max());
    double y = __dsub_rn(thr, __dmul_rn(neg_t, lbc));
    float x0 = __double2float_rn(y);
    if (!(x0 >= -tr_flt_max())) x0 = -tr_flt_max();
    if (!(x0 <= tr_flt_max())) x0 = tr_flt_max();
    u32 k0 = tr_fkey(x0);
    u32 l = (k0 - kmin > 2) ? k0 - 2 : kmin;
    u32 h = (kmax - k0 > 2) ? k0 + 2 : kmax;
    if (TR_PRED_F(tr_funkey(l))) l = kmin;
    if (!TR_PRED_F(tr_funkey(h))) h = kmax;
    while (h - l > 1) {
        u32 m = l + (h - l) / 2;
        if (TR_PRED_F(tr_funkey(m)))
            h = m;
        else
            l = m;
    }
#undef TR_PRED_F
    return tr_funkey(h);
}

// A binary32 c no larger than tr_cutoff_f32's answer, in closed form: every
// x with fma(neg_t, lbc, x) >= thr has x >= c. That fma rounds neg_t * lbc +
// x once, so it reaches thr only if neg_t * lbc + x >= thr - 2^-53 |thr|;
// thr - RN(neg_t * lbc) rounded down, less margin (which covers that and
// the product's rounding, 2^-53 |neg_t * lbc|, with |lbc| <= 128; 2^-1000
// covers subnormal thresholds), is a lower bound of x, and so is its
// binary32 rounding down. margin depends on thr and neg_t only, so c does
// not decrease as lbc rises with the class (the unit test needs that). A
// cutoff below the exact one only lets more elements reach the rare step's
// exact bound tests. scripts/check_cutoff_margin.py checks both properties
// against the bisection in exact rationals.
__device__ __forceinline__ float tr_cutoff_f32_closed(double neg_t, double lbc, double thr) {
    if (thr == tr_ninf()) return -tr_flt_max();
    // thr = +inf (a row with +inf logits, or T so large that scores
    // overflow): the bisection, whose answer is +inf where the product does
    // not overflow and -FLT_MAX where it does (every element's bound is
    // +inf then, and such elements tie at +inf).
    if (thr == tr_inf()) return tr_cutoff_f32(neg_t, lbc, thr);
    const double margin =
        __dadd_ru(__dmul_ru(__dadd_ru(fabs(thr), __dmul_ru(fabs(neg_t), 128.0)), 0x1p-51), 0x1p-1000);
    const double m = __dsub_rd(__dsub_rd(thr, __dmul_rn(neg_t, lbc)), margin);
    if (!(m >= -(double)tr_flt_max())) return -tr_flt_max();  // NaN too (T * lbc overflowed)
    return __double2float_rd(m);
}

// The same in binary64.
__device__ __noinline__ double tr_cutoff_f64(double neg_t, double lbc, double thr) {
    if (thr == tr_ninf()) return -tr_dbl_max();
#define TR_PRED_D(xd) (__fma_rn(neg_t, lbc, (xd)) >= thr)
    if (TR_PRED_D(-tr_dbl_max())) return -tr_dbl_max();
    if (!TR_PRED_D(tr_dbl_max())) return tr_inf();
    const u64 kmin = tr_dkey(-tr_dbl_max()), kmax = tr_dkey(tr_dbl_max());
    double x0 = __dsub_rn(thr, __dmul_rn(neg_t, lbc));
    if (!(x0 >= -tr_dbl_max())) x0 = -tr_dbl_max();
    if (!(x0 <= tr_dbl_max())) x0 = tr_dbl_max();
    u64 k0 = tr_dkey(x0);
    u64 l = (k0 - kmin > 4) ? k0 - 4 : kmin;
    u64 h = (kmax - k0 > 4) ? k0 + 4 : kmax;
    if (TR_PRED_D(tr_dunkey(l))) l = kmin;
    if (!TR_PRED_D(tr_dunkey(h))) h = kmax;
    while (h - l > 1) {
        u64 m = l + (h - l) / 2;
        if (TR_PRED_D(tr_dunkey(m)))
            h = m;
        else
            l = m;
    }
#undef TR_PRED_D
    return tr_dunkey(h);
}

// The class of a lead prefix: the position of its highest set bit, with
// prefix 0 joining 1 in class 0 (whose cutoff uses lb(0), the smallest bound).
__device__ __forceinline__ u32 tr_lead_class(u32 lead) {
    u32 r;
    asm("bfind.u32 %0, %1;" : "=r"(r) : "r"(lead | 1u));
    return r;
}

// Lane j holds the cutoff of lead class j: lb(2^j) for j >= 1, lb(0) for j = 0.
// Leads are prefixes h·2^16, so only classes 0 (h = 0) and 16 to 31 occur.
__device__ __forceinline__ double tr_class_bound(u32 lane) {
    return tr_lead_lower_bound(lane == 0 ? 0u : (1u << lane));
}

template <bool BIAS> struct Cutoffs;
template <> struct Cutoffs<false> {
    float lane;
    __device__ __forceinline__ void compute(double neg_t, double lbc_lane, double thr, double cut_a) {
        float fl = __double2float_rd(cut_a);  // <= cut_a: a weaker floor, still conservative
        lane = TR_CUTOFF_CLOSED ? tr_cutoff_f32_closed(neg_t, lbc_lane, thr)
                                : tr_cutoff_f32(neg_t, lbc_lane, thr);
        lane = (fl > lane) ? fl : lane;
    }
    __device__ __forceinline__ float get(u32 lead) const {
        return __shfl_sync(TR_FULL, lane, tr_lead_class(lead));
    }
};
template <> struct Cutoffs<true> {
    double lane;
    __device__ __forceinline__ void compute(double neg_t, double lbc_lane, double thr, double cut_a) {
        lane = tr_cutoff_f64(neg_t, lbc_lane, thr);
        lane = (cut_a > lane) ? cut_a : lane;
    }
    __device__ __forceinline__ double get(u32 lead) const {
        return __shfl_sync(TR_FULL, lane, tr_lead_class(lead));
    }
};

// A warp's candidate queue in dynamic shared memory: cap entries of (a,
// index, lead prefix), three arrays at one base address.
struct WarpQueue {
    u8* base;
    u32 cap;
    __device__ __forceinline__ double& a(u32 e) const { return ((double*)base)[e]; }
    __device__ __forceinline__ u32& idx(u32 e) const { return ((u32*)(base + (u64)cap * 8))[e]; }
    __device__ __forceinline__ u32& lead(u32 e) const { return ((u32*)(base + (u64)cap * 12))[e]; }
};

// The exact score of candidate i from its lead prefix (cold: kept out of line
// so its registers do not count against the hot loop).
__device__ __noinline__ double tr_exact_score(double neg_t, u64 seed, u64 pos, u32 i, u32 lead,
                                              double a) {
    uint4 tail = tr_block(seed, i, pos, TR_TAG_EXACT_TAIL);
    return __fma_rn(neg_t, tr_exact_ln_variate(tr_grid_point(lead, tail)), a);
}

// Evaluates the queued candidates whose bound still reaches thr; empties the queue.
__device__ __forceinline__ void tr_flush(const WarpQueue& q, u32& qn, double neg_t, u64 seed, u64 pos,
                                         double thr, double& bs, u32& bi) {
    __syncwarp();
    const u32 lane = threadIdx.x & 31;
    for (u32 e = lane; e < qn; e += 32) {
        u32 i = q.idx(e);
        u32 lead = q.lead(e);
        double a = q.a(e);
        if (__fma_rn(neg_t, tr_lead_lower_bound(lead), a) >= thr) {
            double s = tr_exact_score(neg_t, seed, pos, i, lead, a);
            // -inf scores count (T * ln E may overflow): the smaller index wins ties.
            if (tr_better(s, i, bs, bi)) {
                bs = s;
                bi = i;
            }
        }
    }
    __syncwarp();
    qn = 0;
}

// Units (8 elements each) per lane per step of the exact race. 2 puts two
// independent Philox chains in flight per thread, but measured slower on the
// H200, with the ring too (B = 256: 69.2 us against 51.8 with 1;
// docs/cuda-notes.md, runs 3, 11 and 14).
#ifndef TR_UNITS
#define TR_UNITS 1
#endif
// Two code shapes of the binary32 race, chosen per logit type (bit DT of
// each mask; docs/cuda-notes.md, runs 9 and 11). TR_RACE_UNIT_DT: the lane's
// units are tested as a whole before their elements. TR_RACE_I64_DT: 64-bit
// unit indices (else 32-bit; vocab <= 2^31). Measured on the H200: bf16 and
// f16 rows are fastest with the unit test and 32-bit indices (bf16 B = 1024
// 227 -> 207 us, run 9). f32 rows were fastest with neither while a unit took
// two lead blocks (B = 256: 75 us against 98); with one lead block a unit
// they take the unit test too (B = 256: 77.8 us against 93.2, run 11).
#ifndef TR_RACE_UNIT_DT
#define TR_RACE_UNIT_DT 7
#endif
#ifndef TR_RACE_I64_DT
#define TR_RACE_I64_DT 1
#endif
// The fused top-k scan's unit indices: 64-bit with TR_FUSED_I64 = 1 (a
// timing knob, as TR_RACE_I64_DT).
#ifndef TR_FUSED_I64
#define TR_FUSED_I64 0
#endif
template <bool W> struct UnitIdx { typedef u32 T; };
template <> struct UnitIdx<true> { typedef i64 T; };
// 1: a step computes the lead blocks of the next step before it tests its
// own units, so the warp has two independent chains in flight (the Philox
// rounds of step s + 1 and the tests of step s, whose shuffle, compare and
// vote end in a branch) with no more code a step than one unit's (in the
// SASS only with TR_RACE_PIN_LEADS: without it the compiler sinks the rounds
// past the vote, run 18). 0: a step computes its own lead blocks first (a
// timing knob).
#ifndef TR_RACE_PIPE
#define TR_RACE_PIPE 1
#endif
// Bit 0: in the builds with the pilot (tr_fast_*; tr_fast_wide_* too with
// TR_FAST_WIDE_PILOT), the next step's lead blocks are pinned before this
// step's tests (see the loop), so their Philox rounds interleave with the
// tests, and ptxas forms each product with one IMAD.WIDE (about 93
// instructions a step instead of 104); bit 1: the same in the builds without
// it (in tr_fast_wide_* it spilled 188 bytes at 80 registers, plain B = 1024
// 123.2 -> 145.4 us); 0: the compiler sinks them past the vote into the
// loop's latch (a timing knob; docs/cuda-notes.md, run 18).
#ifndef TR_RACE_PIN_LEADS
#define TR_RACE_PIN_LEADS 1
#endif
// The lean loop of the staged race, in the builds that take it (the LEAN
// template argument: tr_fast_bf16, tr_fast_f16, tr_fast_pend_bf16, 128
// registers). Nsight's source view of plain bf16 B = 256 put 4.8% of
// tr_fast_bf16's stall samples on the loop head's branch resolution after
// the back edge and its YIELD, and each step took a branch to its ring read
// (docs/cuda-notes.md, run 35). TR_RACE_STEP_PAIRS=1 (with TR_RACE_PIPE): the
// loop takes two steps an iteration, the second with the lead blocks' roles
// swapped (one back edge and one YIELD every two steps, no lead block
// copied). TR_RACE_RING_ALL=1: the units that are not whole go through the
// ring too (the refill stores them, by selects), so a step reads its slot
// with no branch. Measured on the H200 (run 35, call 3, one process), plain
// bf16 V = 131072 per call: B = 256 41.3 -> 40.2 us (RING_ALL alone 40.9),
// B <= 64 within 0.2 us; both in every build made B = 1024 (80 registers)
// 113.9 -> 118.2 and f32 B = 256 49.6 -> 51.8, hence only these builds.
// 0: the loop as before (timing knobs).
#ifndef TR_RACE_STEP_PAIRS
#define TR_RACE_STEP_PAIRS 1
#endif
#ifndef TR_RACE_RING_ALL
#define TR_RACE_RING_ALL 1
#endif
// 1: a pilot threshold before the first step, in the builds whose PILOT
// template argument is true. Each lane takes the largest logit of its first
// unit (the first of equal ones) with the upper bound of its lead, a lower
// bound of that element's score, and the warp's largest raises thr; the
// first step then has the few elements that can beat it as candidates, where
// with thr = -inf all 256 are. Measured on the H200 (docs/cuda-notes.md, run
// 15, items 5 and 7): in tr_fast_* no slower at B <= 256 (a first call put
// B = 1 / 8 / 64 at 15.4 / 19.4 / 30.1 -> 14.4 / 18.0 / 27.9 us, but a
// control with the same build timed twice spread by as much), and ptxas no
// longer spills in the loop of tr_fast_bf16 and _f16; in tr_fast_wide_* B =
// 1024 144.3 -> 148.0 (run 15) and 123.9 -> 126.9 (run 17) with each warp's
// own pilot, but 123.6 -> 117.5 with the block's (TR_RACE_BLOCK_PILOT) and
// the pinned lead blocks (run 18, call 6; run 19, call 1: 124.5 -> 120.7,
// queued 121.9 -> 115.8), so tr_fast_wide_* has it too (TR_FAST_WIDE_PILOT;
// false, a timing knob, is the shape before). The generic and fused builds
// go without (not measured with it). 0: no pilot in any build (a timing
// knob).
#ifndef TR_RACE_PILOT
#define TR_RACE_PILOT 1
#endif
// Steps whose unit n = 0 the pilot takes (1: the first step's only; up to
// the steps the staging ring holds ahead; a timing knob: 3 measured no
// faster, plain B = 256 45.2 -> 45.4 us; docs/cuda-notes.md, run 18).
#ifndef TR_RACE_PILOT_STEPS
#define TR_RACE_PILOT_STEPS 1
#endif
// 1: after the pilot, a block barrier, and every warp starts from the
// block's best pilot instead of its own (fewer candidates in its first
// steps); 0: each warp's own (a timing knob). With the two knobs above,
// plain B = 1 / 8 / 64 / 256 14.0 / 16.8 / 25.6 / 43.9 -> 13.5 / 16.5 /
// 25.4 / 43.8 us (docs/cuda-notes.md, run 18).
#ifndef TR_RACE_BLOCK_PILOT
#define TR_RACE_BLOCK_PILOT 1
#endif
// K > 0: in the builds with the pilot, every K-th step a warp compares its
// threshold with the block's (s_thr) in the unit test's vote and raises it
// where the block's is higher; 0: a warp reads the block's threshold only in
// its rare steps (a timing knob). Without it every warp climbs from the
// pilot through its own records, each a rare step, and a warp's rare steps
// set how long it runs.
#ifndef TR_RACE_REFRESH
#define TR_RACE_REFRESH 0
#endif
// K > 0: the refresh every K-th step in the lean builds (LEAN below) only,
// whatever TR_RACE_REFRESH says; 0: they follow TR_RACE_REFRESH. With the
// shorter rare step the refresh measured plain B = 256 0.7 us faster and B =
// 1024 (an 80-register build) 4% slower (docs/cuda-notes.md, run 34, item 3).
#ifndef TR_RACE_REFRESH_LEAN
#define TR_RACE_REFRESH_LEAN 0
#endif
#ifndef TR_FAST_PILOT
#define TR_FAST_PILOT true
#endif
#ifndef TR_FAST_WIDE_PILOT
#define TR_FAST_WIDE_PILOT true
#endif
// 1: the element tests of a step leave each lane's candidates as a bit mask,
// and the rare step walks the set bits only (a lane's element is picked by a
// tree of selects), once to raise thr and once to queue. A step with a
// candidate usually holds one in one lane, where the unrolled shape (0, a
// timing knob) recomputes the tests and runs the bound, keep test and ballot
// of all 8N elements, with a flush in each ballot branch. Measured on the
// H200 (docs/cuda-notes.md, run 17, item 1): plain bf16 V = 131072 B = 256
// 47.2 -> 44.4 us, B = 1024 130.9 -> 123.9; half the SASS, no spills in
// tr_fast_bf16, about as many instructions executed.
#ifndef TR_RACE_RARE_BITS
#define TR_RACE_RARE_BITS 1
#endif
// A shorter rare step (with TR_RACE_RARE_BITS; docs/cuda-notes.md, runs 33
// and 34). Measured on the H200 (run 34): a rare step 2,565 -> 2,155 SM
// cycles (warp clock, plain B = 256); plain bf16 V = 131072 per call B = 1
// 13.9 -> 12.4 us, B = 64 23.7 -> 22.8, B = 256 40.7 -> 40.1, B = 1024
// 114.4 -> 112.5 (7 against 0, one process); 3 (without bit 2) was slower
// than 7 at every B. 0 is the rare step as it was, a timing knob. Bit 0: the warp's
// best score lower bound by two 32-bit warp reductions over its order key
// (REDUX) instead of five rounds of two shuffles and a binary64 compare.
// Bit 1: the block's threshold is the upper word of the key only, raised by
// a native 32-bit shared atomic maximum that the warp does not wait for
// (the 64-bit maximum is a compare-and-swap loop in lane 0, which the warp
// waits for); the block's value read back is the key with its lower word
// cleared, a lower bound of the one raised (tr_block_thr), which only costs
// pruning. Bit 2: the turns queue by the lane's class cutoffs (one shuffle)
// instead of each element's exact bound (a chain of about ten binary64
// operations): the class test passes every element the exact one does, and
// the flush applies the exact one before it scores.
#ifndef TR_RACE_RARE_SHORT
#define TR_RACE_RARE_SHORT 7
#endif

// The warp's largest v through its order key: the largest upper word, then
// the largest lower word among the lanes holding it (v is never a NaN here:
// the walk and the flush take a value only by a compare that a NaN fails).
__device__ __forceinline__ double tr_warp_max_key(double v) {
    const u64 k = tr_dkey(v);
    const u32 hi = __reduce_max_sync(TR_FULL, (u32)(k >> 32));
    const u32 lo = __reduce_max_sync(TR_FULL, (u32)(k >> 32) == hi ? (u32)k : 0u);
    return tr_dunkey(((u64)hi << 32) | lo);
}
// The block's threshold (s_thr, the order key of a lower bound of the row's
// best score). With TR_RACE_RARE_SHORT bit 1 only its upper word is raised,
// so the value read is that word's key with the lower word cleared: no
// larger than the value raised, and never a NaN (a cleared negative key
// keeps its exponent short of all ones) except from the key of -inf, the
// start, whose upper word no other value shares.
__device__ __forceinline__ double tr_block_thr(const u64* s_thr) {
    if ((TR_RACE_RARE_SHORT & 2) == 0) return tr_dunkey(*(const volatile u64*)s_thr);
    const u32 hi = ((const volatile u32*)s_thr)[1];
    return hi <= (u32)(tr_dkey(tr_ninf()) >> 32) ? tr_ninf() : tr_dunkey((u64)hi << 32);
}
__device__ __forceinline__ void tr_block_thr_raise(u64* s_thr, u64 key) {
    if ((TR_RACE_RARE_SHORT & 2) == 0)
        atomicMax((unsigned long long*)s_thr, (unsigned long long)key);
    else
        atomicMax((u32*)s_thr + 1, (u32)(key >> 32));
}

// Element `bit` (8n + k) of a lane's N units of 8, without indexing the
// register array at run time (which would put it in local memory): bias rows
// from their a values, other rows from the raw unit words, so the rare step
// keeps 4 (bf16, f16) or 8 (f32) words live instead of 8 converted values.
template <int N, typename T> __device__ __forceinline__ T tr_pick(const T (&v)[N][8], u32 bit) {
    T r[N];
#pragma unroll
    for (int n = 0; n < N; n++) {
        const T l0 = (bit & 1) ? v[n][1] : v[n][0], l1 = (bit & 1) ? v[n][3] : v[n][2];
        const T l2 = (bit & 1) ? v[n][5] : v[n][4], l3 = (bit & 1) ? v[n][7] : v[n][6];
        const T m0 = (bit & 2) ? l1 : l0, m1 = (bit & 2) ? l3 : l2;
        r[n] = (bit & 4) ? m1 : m0;
    }
    T x = r[0];
#pragma unroll
    for (int n = 1; n < N; n++) x = ((bit >> 3) == (u32)n) ? r[n] : x;
    return x;
}
template <int DT, int N> __device__ __forceinline__ float tr_pick_raw(const Raw8 (&rx)[N], u32 bit) {
    Raw8 r = rx[0];
#pragma unroll
    for (int n = 1; n < N; n++) r = ((bit >> 3) == (u32)n) ? rx[n] : r;
    const u32 k = bit & 7;
    if (DT == 0) return __uint_as_float(tr_word((k & 4) ? r.v1 : r.v0, k & 3));
    const u32 w = tr_word(r.v0, k >> 1);
    if (DT == 1) return __uint_as_float((k & 1) ? (w & 0xffff0000u) : (w << 16));
    return tr_f16_to_f32((u16)((k & 1) ? (w >> 16) : (w & 0xffffu)));
}
// The lead prefix of element `bit` of the lane's N lead blocks.
template <int N> __device__ __forceinline__ u32 tr_pick_lead(const uint4 (&lw)[N], u32 bit) {
    uint4 b = lw[0];
#pragma unroll
    for (int n = 1; n < N; n++) b = ((bit >> 3) == (u32)n) ? lw[n] : b;
    return tr_lead_prefix(b, bit & 7);
}

// The binned top-p path's pending rows: at most TR_TOPP_PEND_CAP elements of
// the cut's value in the row (topp.cu, tr_topp_pend).
#ifndef TR_TOPP_PEND_CAP
#define TR_TOPP_PEND_CAP 512u
#endif
// Words of a pending row's list (its bin list's place in the top-p
// workspace): a region of TR_PEND_WORDS / (nchunks * warps) words for each
// warp of the race, its count first, then an entry (unit << 8 | mask of the
// unit's elements of value v*) for each of its units that holds one.
#ifndef TR_PEND_WORDS
#define TR_PEND_WORDS 8192u
#endif
// The fused scan's pilot count (tr_scan_topk): each lane counts the lanes
// whose largest value reaches its own, 256 x 256 compares a block on the
// row's chain at small B. 0: 64 rounds of a 16-byte shared load and four
// 32-bit order-key compares feeding one running count (before run 59; a
// timing knob). 1: bf16 rows store each lane's largest value as bf16 and
// compare two values an instruction (set.ge.u32.bf16x2), 32 lanes an
// iteration with four loads issued together and two sums; other dtypes as
// 0. 2: the order keys, 32 lanes an iteration with eight loads together and
// two sums (every dtype; a timing knob). 3: 1 on bf16 rows, 2 on the others
// (not yet checked on a device). The same counts, so the same pilot and
// tokens. Measured on an H100 (docs/cuda-notes.md, run 59): the pilot's
// stretch 5.3k -> 1.9k cycles at B = 1; queued, top-k 50 (+ top-p 0.9) on
// bf16 rows 1.4-1.9 us faster at B = 1 to 256; 2 took 0.9-1.4 us off bf16
// rows and 1.2-1.7 off f32 and f16 rows at B = 256.
#ifndef TR_FUSED_PILOT_X2
#define TR_FUSED_PILOT_X2 1
#endif
#if TR_FUSED_PILOT_X2 == 1 || TR_FUSED_PILOT_X2 == 3
// 0xffff in each 16-bit half of w whose bf16 value is >= that half of h2
// (neither a NaN here), 0 in the others.
__device__ __forceinline__ u32 tr_ge_bf16x2(u32 w, u32 h2) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    u32 e;
    asm("set.ge.u32.bf16x2 %0, %1, %2;" : "=r"(e) : "r"(w), "r"(h2));
    return e;
#else
    const float a0 = __uint_as_float(w << 16), a1 = __uint_as_float(w & 0xffff0000u);
    const float b0 = __uint_as_float(h2 << 16), b1 = __uint_as_float(h2 & 0xffff0000u);
    return (a0 >= b0 ? 0xffffu : 0u) | (a1 >= b1 ? 0xffff0000u : 0u);
#endif
}
#endif
// Each half of w that equals v* (h2: its bits in both halves; v* is finite,
// normal and nonzero, so equal values have equal bits) as 0xffff.
__device__ __forceinline__ u32 tr_eq_bf16x2(u32 w, u32 h2) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    u32 e;
    asm("set.eq.u32.bf16x2 %0, %1, %2;" : "=r"(e) : "r"(w), "r"(h2));
    return e;
#else
    return (((w ^ h2) & 0xffffu) == 0 ? 0xffffu : 0u) | (((w ^ h2) >> 16) == 0 ? 0xffff0000u : 0u);
#endif
}
// The arguments the pending top-p finish reads (topp.cu, tr_pend_finish).
// The finish is a call (noinline) and took the kernel's arguments by
// reference: each field it reads is then a load through a generic address of
// the kernel's parameter space, one after another where they depend on each
// other. TR_PEND_ARGS_COPY 1: the kernel copies these fields (from its
// constant bank) into a struct of its own stack instead, which the finish
// reads; 0: the kernel's arguments themselves. A timing knob, written in run
// 40 to tell whether those loads are what the finish's stretches wait on.
#ifndef TR_PEND_ARGS_COPY
#define TR_PEND_ARGS_COPY 0
#endif
struct PendArgs {
    const void* logits;
    u64 row_stride;
    u64* topp;
    u32* counters;
    RowState* rowstate;
    u32* out_token;
    u8* out_status;
    u32 vocab;
    u32 nchunks;
};
#if TR_PEND_ARGS_COPY
typedef PendArgs PendA;
__device__ __forceinline__ PendArgs tr_pend_args(const SampleArgs& A) {
    return PendArgs{A.logits,   A.row_stride, A.topp,  A.counters, A.rowstate,
                    A.out_token, A.out_status, A.vocab, A.nchunks};
}
#else
typedef SampleArgs PendA;
__device__ __forceinline__ const SampleArgs& tr_pend_args(const SampleArgs& A) { return A; }
#endif
// Pending rows of several chunks settled chunk by chunk (TR_PEND_LOCAL): 1,
// each block of the race, after its own best, ranks its chunk's elements of
// value v* by index and keeps those whose score beats that best
// (tr_pend_local); the row's last block then finds the chunk holding the
// cut from the chunks' counts and compares its best with the kept scores of
// the chunks up to it (tr_pend_finish_local), in place of reading every
// warp's region and ranking the row's list (tr_pend_finish). 0: the row's
// last block settles them all (tr_pend_finish). The tokens and cuts are the
// same either way. Rows of more than TR_PEND_LOCAL_CHUNKS chunks, or of one,
// take tr_pend_finish. Measured on an H100 (docs/cuda-notes.md, run 58): the
// check passed, but top-p 0.9 at B = 1-1024 was within the A/A (the last
// block's 4.4 us finish became about 2 us in every block before its partial
// and about 2 us after the combine), so it stays off, a timing knob.
#ifndef TR_PEND_LOCAL
#define TR_PEND_LOCAL 0
#endif
#define TR_PEND_LOCAL_CHUNKS 256u
// Defined in topp.cu.
__device__ u32* tr_pend_list_at(u64* topp, u32 row);
// (force_row, TR_PEND_LOCAL builds only: see tr_pend_finish.)
#if TR_PEND_LOCAL
#define TR_PEND_FORCE_ROW_PARAM , bool force_row = false
#else
#define TR_PEND_FORCE_ROW_PARAM
#endif
__device__ void tr_pend_finish(const PendA& A, u32 row, const RowState& st, double bs, u32 bi,
                               double neg_t, u64 seed, u64 pos, double* s_s,
                               u32* s_i TR_PEND_FORCE_ROW_PARAM);
__device__ void tr_pend_local(const SampleArgs& A, u32 row, u32 chunk, const RowState& st, double bs,
                              u32 bi, double neg_t, u64 seed, u64 pos, u32& out_n, u32& out_p);
__device__ void tr_pend_finish_local(const SampleArgs& A, u32 row, const RowState& st, double bs,
                                     u32 bi, double neg_t, u64 seed, u64 pos, double* s_s, u32* s_i);
// Whether a pending row settles chunk by chunk (TR_PEND_LOCAL).
__device__ __forceinline__ bool tr_pend_by_chunk(const SampleArgs& A) {
    return TR_PEND_LOCAL && A.nchunks > 1 && A.nchunks <= TR_PEND_LOCAL_CHUNKS;
}

// One step's copies into the staging ring (its slot d; one commit group,
// empty where the step holds no whole unit): lane unit n of the step is s0 +
// 32 n + lane; units below whole_hi are whole and copied, and with RING_ALL
// the others are stored from registers (the row's partial unit whole_hi,
// -inf past the chunk). The staged race's steps (tr_race_exact) and its
// first steps issued before a dependency wait (tr_pass_prestage) both stage
// through this.
template <int DT, int N, bool RING_ALL, class UT>
__device__ __forceinline__ void tr_ring_stage(const typename Elem<DT>::T* row, u32 ring, UT s0, int d,
                                              UT whole_hi, const Raw8& part, const Raw8& dead) {
    const u32 lane = threadIdx.x & 31;
#pragma unroll
    for (int n = 0; n < N; n++) {
        const UT u = s0 + 32 * n + lane;
        const u32 dst = ring + (u32)(d * N + n) * Ring<DT>::slot;
        if (u < whole_hi)
            tr_ring_put<DT>(dst, row, (i64)u);
        else if (RING_ALL)
            tr_ring_store<DT>(dst, u == whole_hi ? part : dead);
    }
    tr_cp_commit();
}

// 1: a launch of the staged race that follows another kernel of the same
// call (A.phase 1: after the top-p histogram, the filter kernel or the first
// pass) issues its ring's first steps (tr_ring_stage) before its dependency
// wait (griddepcontrol.wait), so that their copies overlap the kernel before
// it instead of following its end. The logits are an input of the call that
// no kernel of the call writes, and every kernel of the call executes its
// own wait before it lets the next one be scheduled (tr_grid_begin; the
// top-p histogram's late trigger comes later still), so when such a launch
// begins, whatever wrote the logits before the call has completed; what
// the kernel before wrote (the row states) is read after the wait, as
// before. 0: the copies are issued after the wait (the tokens are the same
// either way). Measured on an H200 (docs/cuda-notes.md, run 57): the check
// passed, but top-p 0.9 and min-p 0.05 at B = 1-256 were within the A/A
// (top-p B = 1 -0.1 us queued; the race's first stretch 0.1-0.3 us shorter
// by the phase clock), so it stays off, a timing knob.
#ifndef TR_RACE_PRESTAGE
#define TR_RACE_PRESTAGE 0
#endif

// PEND (bf16 only): where pend_h2 is not 0 (a row whose top-p cut has a
// known value v* and an index still to find: topp.cu, tr_topp_pend), the
// race also lists the units holding elements whose bits are v*'s (pend_h2:
// those 16 bits in both halves) in the warp's region of the row's list:
// entries at pend_list[0 .. pend_cap), the count at pend_list[-1] (every
// unit counted, so that a region that fills shows). No atomics: a warp
// ballot gives the slots. The caller excludes v* itself from the race by its
// cut (tr_pass).
template <int DT, bool BIAS, bool STAGED, bool PILOT, bool PEND = false, bool LEAN = false>
__device__ void tr_race_exact(const typename Elem<DT>::T* row, const float* brow, bool al,
                              bool bal, u32 vocab, i64 lo, i64 hi, double neg_t, u64 seed, u64 pos,
                              double cut_a, u32 cut_i, u32 cap, u64* s_thr, Acc& acc,
                              u32 pend_h2 = 0, u32* pend_list = nullptr, u32 pend_cap = 0,
                              bool prestaged = false) {
    static_assert(!STAGED || (!BIAS && TR_RACE_STAGES > 0), "staged: no bias, stages on");
    static_assert(!PEND || (DT == 1 && !BIAS), "PEND: bf16 rows without bias");
    typedef typename AType<BIAS>::T AT;
    constexpr int N = TR_UNITS;
    extern __shared__ u64 tr_dyn_smem[];
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    const WarpQueue q = {(u8*)tr_dyn_smem + (u64)warp * cap * 16, cap};
    u32 qn = 0;
    u32 pend_n = 0;  // PEND: units of the warp holding v*
    const double lbc_lane = tr_class_bound(lane);
    double thr = tr_ninf();
    Cutoffs<BIAS> cut;
    cut.compute(neg_t, lbc_lane, thr, cut_a);
    bool bad = false, any = false;
    double bs = tr_ninf();
    u32 bi = TR_NO_TOKEN;
    WarpClock wclk;
    wclk.start();

    // The order key of thr (kept for the refresh's compare).
    u64 tkey = tr_dkey(thr);
    auto raise = [&](double v) {
        if (v > thr) {
            thr = v;
            tkey = tr_dkey(thr);
            if (lane == 0) tr_block_thr_raise(s_thr, tkey);
            wclk.raise_begin();
            cut.compute(neg_t, lbc_lane, thr, cut_a);
            wclk.raise_done();
        }
    };

    auto warp_max = [](double v) { return (TR_RACE_RARE_SHORT & 1) ? tr_warp_max_key(v) : tr_warp_max(v); };

    // Appends the lane's entry where push is set, after the entries queued
    // so far and those of lower lanes (bal: the warp's ballot of push).
    auto enqueue = [&](bool push, u32 bal, u32 i, u32 ld, double av) {
        if (push) {
            const u32 e = qn + __popc(bal & ((1u << lane) - 1));
            q.idx(e) = i;
            q.lead(e) = ld;
            q.a(e) = av;
        }
        qn += __popc(bal);
        wclk.queue(__popc(bal));
    };

    // N units per lane: unit n is u0 + 32 n + lane (dead past the chunk).
    typedef typename UnitIdx<((TR_RACE_I64_DT >> DT) & 1) != 0>::T UT;
    const UT unit_lo = (UT)(lo >> 3), unit_hi = (UT)((hi + 7) >> 3);
    const UT step = (UT)nwarps * 32 * N;
    UT u0 = unit_lo + (UT)warp * 32 * N;
    // Below whole_hi a unit is whole and the row 16-byte aligned: plain
    // 16-byte loads, no bounds tests (bias rows take tr_fetch_a throughout).
    const UT vocab_units = (UT)(vocab >> 3);
    const UT whole_hi = (!BIAS && al) ? (vocab_units < unit_hi ? vocab_units : unit_hi) : (UT)0;
    auto fetch = [&](UT u) {
        RawA<DT, BIAS> r;
        if (!BIAS && u < whole_hi)
            r.x = tr_fetch8_whole<DT>(row, (i64)u * 8);
        else
            r = tr_fetch_a<DT, BIAS>(row, brow, (i64)u * 8, vocab, al, bal, u < unit_hi);
        return r;
    };
    constexpr bool UNIT_TEST = !BIAS && ((TR_RACE_UNIT_DT >> DT) & 1);
    // With the unit test, the status flags come from one running
    // NaN-propagating maximum of every a (bad: NaN or +inf; any: > -inf).
    float fm = tr_fninf();
    RawA<DT, BIAS> raw[N];
    // The staging ring: a step takes N slots; the lane's unit n of step slot
    // d is at ring + (d * N + n) * Ring<DT>::slot.
    constexpr int D = STAGED ? TR_RACE_STAGES / N : 1;
    static_assert(!STAGED || (TR_RACE_STAGES % N == 0 && TR_RACE_STAGES / N >= 2),
                  "the ring holds at least two steps of N units");
    const u32 ring = STAGED ? tr_ring_lane<DT>(cap) : 0;
    // RING_ALL: a staged row is 16-byte aligned, so its units that are not
    // whole are the partial unit whole_hi (where the row ends inside the
    // chunk: every lane loads it here, once) and the units past the chunk
    // (-inf); the refill stores one or the other, by selects.
    constexpr bool RING_ALL = LEAN && STAGED && TR_RACE_RING_ALL;
    const Raw8 dead = tr_fetch8<DT>(row, 0, vocab, al, false);
    Raw8 part = dead;
    if (RING_ALL && whole_hi < unit_hi) part = fetch(whole_hi).x;
    auto stage = [&](UT s0, int d) { tr_ring_stage<DT, N, RING_ALL>(row, ring, s0, d, whole_hi, part, dead); };
    int slot = 0;
    if (STAGED) {
        // (Where prestaged, the first D - 1 steps' groups were committed
        // before the dependency wait: tr_pass_prestage.)
        if (!prestaged) {
#pragma unroll
            for (int d = 0; d < D - 1; d++) stage(u0 + (UT)d * step, d);
        }
    } else if (u0 < unit_hi) {
#pragma unroll
        for (int n = 0; n < N; n++) raw[n] = fetch(u0 + 32 * n + lane);
    }
    // One lead block a unit: element 8u + 2j + h takes half h of word j
    // (NOISE.md §4.1), used as its prefix (lead(n, k), computed where needed).
    auto leads = [&](UT s0, uint4 lw[N]) {
#pragma unroll
        for (int n = 0; n < N; n++) lw[n] = tr_block(seed, (u32)(s0 + 32 * n + lane), pos, TR_TAG_EXACT_LEAD);
    };
    uint4 lw_next[N];
    if (TR_RACE_PIPE) leads(u0, lw_next);
    constexpr bool PILOTED = PILOT && TR_RACE_PILOT && TR_RACE_PIPE && !BIAS;
    if (PILOTED) {
        // The first P steps' unit n = 0 (P = TR_RACE_PILOT_STEPS, at most the
        // steps the ring holds), as the loop will read them: their copies are
        // waited for here, so the loop's first waits return at once. Steps
        // past the first take their lead blocks here (the loop computes them
        // again: P - 1 Philox blocks a lane, once).
        constexpr int P0 = STAGED ? (TR_RACE_PILOT_STEPS < D - 1 ? TR_RACE_PILOT_STEPS : D - 1) : 1;
        constexpr int P = P0 < 1 ? 1 : P0;
        if (STAGED) tr_cp_wait<(D - 1 - P >= 0 ? D - 1 - P : 0)>();
        double pilot = tr_ninf();
#pragma unroll
        for (int s = 0; s < P; s++) {
            const UT us = u0 + (UT)s * step;
            if (us >= unit_hi) break;
            const UT u = us + lane;
            Raw8 r0;
            if (STAGED && (RING_ALL || u < whole_hi))
                r0 = tr_ring_get<DT>(ring + (u32)(s * N) * Ring<DT>::slot);
            else
                r0 = (STAGED || s > 0) ? fetch(u).x : raw[0].x;
            const uint4 lw0 = s == 0 ? lw_next[0] : tr_block(seed, (u32)u, pos, TR_TAG_EXACT_LEAD);
            float x[8];
            tr_convert8<DT>(r0, x);
            const float um = tr_unit_max<DT>(r0);
            if (um > tr_fninf() && um < tr_finf()) {
                u32 k = 7;
#pragma unroll
                for (int j = 6; j >= 0; j--) k = (x[j] == um) ? (u32)j : k;
                const double av = (double)x[k];
                if (tr_keeps(av, (u32)(u * 8) + k, cut_a, cut_i)) {
                    const double v = __fma_rn(neg_t, tr_lead_upper_bound(tr_lead_prefix(lw0, k)), av);
                    pilot = v > pilot ? v : pilot;
                }
            }
        }
        raise(warp_max(pilot));
    }
    if (PILOTED && TR_RACE_BLOCK_PILOT) {
        // Every warp starts from the block's best pilot (every thread of
        // the block races the same row here, so the barrier is uniform).
        __syncthreads();
        raise(tr_block_thr(s_thr));
    }
    // The refresh (TR_RACE_REFRESH): the upper word of the block's key,
    // read just before a step's unit-test vote, joins that vote, so a
    // step whose warp finds the block ahead of it leaves the common path
    // (whose code stays as it is) and raises thr there. Any earlier value
    // of s_thr is a lower bound of the row's best score, and so is the key
    // with its lower word cleared (keys are ordered as the values; the upper
    // word holds the exponent, so the cleared key of a finite value or of
    // +inf is a value of that kind too); a raise that only the lower word
    // shows is skipped, which only costs pruning. s_thr starts at the key of
    // -inf, whose cleared key would be a NaN: the strict compare never takes
    // it (thr starts there too, and every other key's upper word is larger).
    constexpr u32 REFRESH_K = (LEAN && TR_RACE_REFRESH_LEAN) ? (u32)TR_RACE_REFRESH_LEAN : (u32)TR_RACE_REFRESH;
    constexpr u32 REFRESH = (PILOT && !BIAS && UNIT_TEST) ? REFRESH_K : 0u;
    static_assert((REFRESH & (REFRESH - 1)) == 0, "TR_RACE_REFRESH: 0 or a power of two");
    u32 rc = 0, kblk = 0;
    auto block_ahead = [&]() -> bool {
        if (REFRESH == 0) return false;
        if (REFRESH > 1 && ((++rc) & (REFRESH - 1)) != 0) return false;
        kblk = ((const volatile u32*)s_thr)[1];
        return kblk > (u32)(tkey >> 32);
    };
    auto refresh = [&]() {
        tkey = (u64)kblk << 32;
        thr = tr_dunkey(tkey);
        wclk.raise_begin();
        cut.compute(neg_t, lbc_lane, thr, cut_a);
        wclk.raise_done();
    };
    // One step of the race: unit n of the lane is u0 + 32 n + lane; lw holds
    // its lead blocks, and with TR_RACE_PIPE the next step's go to lw_next.
    // A return ends the step (most steps end at the unit test's vote).
    auto race_step = [&](const UT u0, uint4 (&lw)[N], uint4 (&lw_next)[N]) {
        AT a[N][8];
        Raw8 rx[N];
        wclk.step();
        if (STAGED) {
            // This step's copies are done once at most D - 2 groups are pending.
            tr_cp_wait<(D >= 2 ? D - 2 : 0)>();
#pragma unroll
            for (int n = 0; n < N; n++) {
                const UT u = u0 + 32 * n + lane;
                RawA<DT, BIAS> r;
                if (STAGED && (RING_ALL || u < whole_hi))
                    r.x = tr_ring_get<DT>(ring + (u32)(slot * N + n) * Ring<DT>::slot);
                else
                    r = fetch(u);
                rx[n] = r.x;
                tr_convert_a<DT, BIAS>(r, a[n]);
            }
            // Refill the slot the previous step read (its values are used
            // up) with the step D - 1 ahead.
            stage(u0 + (UT)(D - 1) * step, slot == 0 ? D - 1 : slot - 1);
            slot = (slot == D - 1) ? 0 : slot + 1;
        } else {
#pragma unroll
            for (int n = 0; n < N; n++) {
                rx[n] = raw[n].x;
                tr_convert_a<DT, BIAS>(raw[n], a[n]);
            }
            if (u0 + step < unit_hi) {
                // Issue the next step's loads now; they complete while this one
                // computes (two steps ahead measured no faster, run 11).
#pragma unroll
                for (int n = 0; n < N; n++) raw[n] = fetch(u0 + step + 32 * n + lane);
            }
        }
        if (PEND && pend_h2 != 0) {
            // The units holding elements of value v* (positions past the
            // chunk read as -inf, never v*).
#pragma unroll
            for (int n = 0; n < N; n++) {
                const u32 w[4] = {rx[n].v0.x, rx[n].v0.y, rx[n].v0.z, rx[n].v0.w};
                const u32 any = tr_eq_bf16x2(w[0], pend_h2) | tr_eq_bf16x2(w[1], pend_h2) |
                                tr_eq_bf16x2(w[2], pend_h2) | tr_eq_bf16x2(w[3], pend_h2);
                const u32 bal = __ballot_sync(TR_FULL, any != 0);
                if (bal != 0) {
                    if (any != 0) {
                        u32 m = 0;
#pragma unroll
                        for (int j = 0; j < 4; j++) {
                            const u32 e = tr_eq_bf16x2(w[j], pend_h2);
                            m |= ((e & 1u) << (2 * j)) | (((e >> 16) & 1u) << (2 * j + 1));
                        }
                        const u32 slot = pend_n + __popc(bal & ((1u << lane) - 1));
                        if (slot < pend_cap) pend_list[slot] = ((u32)(u0 + 32 * n + lane) << 8) | m;
                    }
                    pend_n += __popc(bal);
                }
            }
        }
        if (TR_RACE_PIPE) {
            // This step's blocks came from the step before (lw); the next
            // step's are computed now (past the chunk on the last step:
            // unused).
            leads(u0 + step, lw_next);
            if (PILOT ? (TR_RACE_PIN_LEADS & 1) != 0 : (TR_RACE_PIN_LEADS & 2) != 0) {
                // Keep the next step's Philox rounds ahead of this step's
                // vote: without this the compiler sinks them past the branch
                // into the loop's latch, and the warp runs the two chains one
                // after the other.
#pragma unroll
                for (int n = 0; n < N; n++)
                    asm volatile("" ::"r"(lw_next[n].x), "r"(lw_next[n].y), "r"(lw_next[n].z),
                                 "r"(lw_next[n].w));
            }
        } else {
            leads(u0, lw);
        }
        auto lead = [&](int n, int k) -> u32 { return tr_lead_prefix(lw[n], (u32)k); };
        bool anyc = false;
        // With TR_RACE_RARE_BITS: bit 8n + k set where element k of unit n
        // reaches its cutoff.
        u32 cand = 0;
        constexpr bool BITS = TR_RACE_RARE_BITS != 0;
        if (UNIT_TEST) {
            // One test for the lane's N units first: their largest a against
            // the cutoff of their smallest lead. Cutoffs do not decrease with
            // the lead class, so an element that passes its own test passes
            // this one; the elements' tests run only where it passes.
            float um = tr_unit_max<DT>(rx[0]);
            // The smallest leads, two 16-bit lanes.
            u32 lm2 = __vminu2(__vminu2(lw[0].x, lw[0].y), __vminu2(lw[0].z, lw[0].w));
#pragma unroll
            for (int n = 1; n < N; n++) {
                um = tr_fmax_nan(um, tr_unit_max<DT>(rx[n]));
                lm2 = __vminu2(lm2, __vminu2(__vminu2(lw[n].x, lw[n].y), __vminu2(lw[n].z, lw[n].w)));
            }
            fm = tr_fmax_nan(fm, um);
            const u32 lm_lo = lm2 << 16, lm_hi = lm2 & 0xffff0000u;
            const u32 lmin = lm_lo < lm_hi ? lm_lo : lm_hi;
            const bool ahead = block_ahead();
            if (!__any_sync(TR_FULL, (um >= cut.get(lmin)) | ahead)) return;
            if (REFRESH && ahead) {
                refresh();
                if (!__any_sync(TR_FULL, um >= cut.get(lmin))) return;
            }
#pragma unroll
            for (int n = 0; n < N; n++)
#pragma unroll
                for (int k = 0; k < 8; k++) {
                    const bool c = a[n][k] >= cut.get(lead(n, k));
                    if (BITS)
                        cand |= (c ? 1u : 0u) << (8 * n + k);
                    else
                        anyc |= c;
                }
        } else {
#pragma unroll
            for (int n = 0; n < N; n++) {
#pragma unroll
                for (int k = 0; k < 8; k++) {
                    bad |= !(a[n][k] < (AT)tr_inf());
                    any |= a[n][k] > (AT)tr_ninf();
                    const bool c = a[n][k] >= cut.get(lead(n, k));
                    if (BITS)
                        cand |= (c ? 1u : 0u) << (8 * n + k);
                    else
                        anyc |= c;
                }
            }
        }
        if (BITS) {
            if (!__any_sync(TR_FULL, cand != 0)) return;
            wclk.rare_step();
            // Rare: some lane holds a candidate. Raise thr from the score
            // lower bounds of the lane's candidates, then queue those whose
            // upper bound reaches it, walking the set bits of cand.
            double lo_best = tr_block_thr(s_thr);
            const u32 ib0 = (u32)((u0 + lane) * 8);
            auto elem = [&](u32 bit) -> double {
                if (BIAS) return (double)tr_pick<N>(a, bit);
                return (double)tr_pick_raw<DT, N>(rx, bit);
            };
            for (u32 c = cand; c != 0; c &= c - 1) {
                const u32 bit = __ffs(c) - 1;
                const double av = elem(bit);
                if (tr_keeps(av, ib0 + (bit >> 3) * 256 + (bit & 7), cut_a, cut_i)) {
                    const double s = __fma_rn(neg_t, tr_lead_upper_bound(tr_pick_lead<N>(lw, bit)), av);
                    lo_best = (s > lo_best) ? s : lo_best;
                }
            }
            raise(warp_max(lo_best));
            // Each turn takes every lane's next candidate, until no lane has
            // one left, so the ballots see the whole warp. A turn queues at
            // most 32, so the queue is flushed before a turn that might not
            // fit, not inside one: a flush in the ballot branch made ptxas
            // spill round keys of the loop (run 17, item 1).
            for (u32 c = cand; __any_sync(TR_FULL, c != 0); c &= c - 1) {
                if (qn + 32 > cap) {
                    tr_flush(q, qn, neg_t, seed, pos, thr, bs, bi);
                    raise(warp_max(bs));
                }
                const u32 bit = c != 0 ? (u32)(__ffs(c) - 1) : 0u;
                const double av = elem(bit);
                const u32 i = ib0 + (bit >> 3) * 256 + (bit & 7);
                const u32 ld = tr_pick_lead<N>(lw, bit);
                bool push;
                if (TR_RACE_RARE_SHORT & 4) {
                    const double cl = (double)cut.get(ld);  // a shuffle: every lane takes it
                    push = c != 0 && tr_keeps(av, i, cut_a, cut_i) && av >= cl;
                } else {
                    push = c != 0 && tr_keeps(av, i, cut_a, cut_i) &&
                           __fma_rn(neg_t, tr_lead_lower_bound(ld), av) >= thr;
                }
                const u32 bal = __ballot_sync(TR_FULL, push);
                if (bal) enqueue(push, bal, i, ld, av);
            }
            wclk.rare_done();
            return;
        }
        if (!__any_sync(TR_FULL, anyc)) return;
        // Rare: some lane holds a candidate. Recompute which, raise thr from
        // their score lower bounds, queue those whose upper bound reaches it.
#pragma unroll
        for (int n = 0; n < N; n++)
#pragma unroll
            for (int k = 0; k < 8; k++) cand |= (a[n][k] >= cut.get(lead(n, k)) ? 1u : 0u) << (8 * n + k);
        double lo_best = tr_block_thr(s_thr);
#pragma unroll
        for (int n = 0; n < N; n++) {
            const u32 ib = (u32)((u0 + 32 * n + lane) * 8);
#pragma unroll
            for (int k = 0; k < 8; k++) {
                double av = (double)a[n][k];
                if (((cand >> (8 * n + k)) & 1) && tr_keeps(av, ib + k, cut_a, cut_i)) {
                    double s = __fma_rn(neg_t, tr_lead_upper_bound(lead(n, k)), av);
                    lo_best = (s > lo_best) ? s : lo_best;
                }
            }
        }
        raise(warp_max(lo_best));
#pragma unroll
        for (int n = 0; n < N; n++) {
            const u32 ib = (u32)((u0 + 32 * n + lane) * 8);
#pragma unroll
            for (int k = 0; k < 8; k++) {
                double av = (double)a[n][k];
                u32 i = ib + k;
                bool push = ((cand >> (8 * n + k)) & 1) && tr_keeps(av, i, cut_a, cut_i) &&
                            __fma_rn(neg_t, tr_lead_lower_bound(lead(n, k)), av) >= thr;
                u32 bal_k = __ballot_sync(TR_FULL, push);
                if (bal_k) {
                    if (qn + __popc(bal_k) > cap) {
                        tr_flush(q, qn, neg_t, seed, pos, thr, bs, bi);
                        raise(warp_max(bs));
                    }
                    enqueue(push, bal_k, i, lead(n, k), av);
                }
            }
        }
    };
    // PAIRS: the loop takes two steps an iteration, the second with the lead
    // blocks' roles swapped, so no lead block is copied and the loop's latch,
    // branch and yield come once every two steps; otherwise one step an
    // iteration, the next step's blocks copied into this step's at its end.
    constexpr bool PAIRS = LEAN && TR_RACE_PIPE && TR_RACE_STEP_PAIRS;
    uint4 lw_cur[N];
    if (TR_RACE_PIPE) {
#pragma unroll
        for (int n = 0; n < N; n++) lw_cur[n] = lw_next[n];
    }
    if (PAIRS) {
        while (u0 < unit_hi) {
            race_step(u0, lw_cur, lw_next);
            u0 += step;
            if (u0 >= unit_hi) break;
            race_step(u0, lw_next, lw_cur);
            u0 += step;
        }
    } else {
        for (; u0 < unit_hi; u0 += step) {
            race_step(u0, lw_cur, lw_next);
            if (TR_RACE_PIPE) {
#pragma unroll
                for (int n = 0; n < N; n++) lw_cur[n] = lw_next[n];
            }
        }
    }
    // No copy is left in flight: each one was for a step the loop ran.
    // Final: the block's best threshold, then the queue.
    wclk.loop_done();
    if (PEND && pend_list != nullptr && lane == 0) pend_list[-1] = pend_n;
    __syncthreads();
    double bt = tr_block_thr(s_thr);
    thr = (bt > thr) ? bt : thr;
    const u32 final_q = qn;
    tr_flush(q, qn, neg_t, seed, pos, thr, bs, bi);
    wclk.print(final_q);
    if (UNIT_TEST) {
        bad = !(fm < tr_finf());
        any = fm > tr_fninf();
    }
    acc.bad = bad;
    acc.any = any;
    acc.best_s = bs;
    acc.best_i = bi;
}

// ---- fused top-k (spec: SAMPLER.md §4; docs/cuda-notes.md, run 4) ----
//
// A row with 2 <= top_k <= TR_FUSED_K_MAX, no bias and T > 0 is filtered and
// raced inside the pass kernel itself: each warp keeps the top_k elements it
// has seen in rank order (a shared-memory buffer of 64-bit rank keys above a
// rising threshold, compacted by an exact radix select when it fills), warp 0
// merges the warps' lists into the chunk's list, and the last block of the
// row merges the chunks' lists into the row's top_k. The row's survivors of
// min-p, top-k and top-p all lie in that list (each filter keeps a prefix of
// the rank order, and min-p comes first), so the last block applies the
// filters to the sorted list and races the few survivors with their full
// noise. No filter kernel and no second pass over the row.
//
// Rank key of a binary32 a at index i: (order key of a + 0, ~i). Larger key =
// earlier in rank order (larger a, then the smaller index); -0 and +0 share a
// key (rank order treats them as equal). Keys of one row are distinct, so the
// top k is one set whatever the order of the pushes, and any key below some
// warp's k-th best can be dropped by every warp of the block: the shared
// threshold only speeds things up, it never changes a list.

#ifndef TR_FUSED_K_MAX
#define TR_FUSED_K_MAX 256
#endif
// Keys per warp buffer; a round pushes at most 256 (8 per lane) onto at most
// TR_FUSED_WCAP - 256, so the buffer never overflows.
#ifndef TR_FUSED_WCAP
#define TR_FUSED_WCAP 512
#endif
#define TR_FUSED_WLIMIT (TR_FUSED_WCAP - 256)
// Units a lane of the fused top-k scan has in flight: TR_TOPK_UNITS, or
// TR_TOPK_UNITS_BF16 for bf16 rows (timing knobs; with more than one, f32
// rows at B = 256 ran 44% slower, docs/cuda-notes.md, run 52), and for bf16
// chunks of at most TR_TOPK_SHORT_STEPS steps a lane TR_TOPK_UNITS_BF16_SHORT
// (two, with the pilot over both: top-k 50 + top-p 0.9 at B = 8 1.0 us
// faster per call, at B = 256 and 1,024, 64 steps and more, 1.6 and 4.9 us
// slower when every chunk took two; run 53). The choice is the block's (its
// chunk's length), so each chunk runs one of two copies of the scan; only
// tr_fused_bf16 holds both (short chunks come with small batches, whose
// blocks never queue for the 64-register build, and the generic kernel
// keeps its registers for the other paths).
#ifndef TR_TOPK_UNITS
#define TR_TOPK_UNITS 1
#endif
#ifndef TR_TOPK_UNITS_BF16
#define TR_TOPK_UNITS_BF16 TR_TOPK_UNITS
#endif
#ifndef TR_TOPK_UNITS_BF16_SHORT
#define TR_TOPK_UNITS_BF16_SHORT 2
#endif
#ifndef TR_TOPK_SHORT_STEPS
#define TR_TOPK_SHORT_STEPS 16
#endif
// Keys offered between two shrinks of a warp's buffer (at most; WarpTopk::lim).
#ifndef TR_FUSED_REFRESH
#define TR_FUSED_REFRESH 32
#endif

struct TopkCtl {
    u64 thr;                  // the block's pruning threshold (WarpTopk::shrink)
    u64 rt;                   // last block: the row's threshold (tr_fused_finish); in
                              // the chunk scan, its list's first key (TR_FUSED_LIST_MAX)
    u32 wcnt[TR_MAX_WARPS];   // block select: keys in each warp's buffer
    u32 wkeep[TR_MAX_WARPS];  // block keep: keys each warp keeps
    u64 sel_an[TR_MAX_WARPS]; // block select: AND and OR of each warp's keys
    u64 sel_or[TR_MAX_WARPS];
    u64 min_key;              // block keep: the smallest key kept
    u32 sel_digit;            // block select: the level's digit, its count and
    u32 sel_dcnt;             // the rank left inside it
    u32 sel_krem;
    u32 n3;                   // last block: survivors raced
    u32 gn;                   // last block: keys gathered (tr_fused_gather_fast)
    u32 nmore;                // last block: lists read past their first slots
    u32 pilot;                // chunk scan: the pilot's order key (tr_scan_topk)
    u32 go;                   // last block: 1 when the row's finish runs (status 0)
    double a_max;
};

__device__ __forceinline__ bool tr_fused_row(const SampleArgs& A, u32 row, double t, u32 top_k) {
    return A.fused_on != 0 && t != 0.0 && top_k >= 2 && top_k <= TR_FUSED_K_MAX &&
           A.bias_kind[row] == TR_BIAS_NONE;
}
// The same test with the row's bias kind already loaded (no short circuit).
__device__ __forceinline__ bool tr_fused_row_of(const SampleArgs& A, double t, u32 top_k, u8 bias_kind) {
    return (A.fused_on != 0) & (t != 0.0) & (top_k >= 2) & (top_k <= TR_FUSED_K_MAX) &
           (bias_kind == TR_BIAS_NONE);
}

__device__ __forceinline__ u64 tr_rank_key32(float x, u32 i) {
    return ((u64)tr_fkey(__fadd_rn(x, 0.0f)) << 32) | (u64)(~i);
}

__device__ __forceinline__ u64 tr_shfl_u64(u64 v, u32 src) {
    return (u64)__shfl_sync(TR_FULL, (unsigned long long)v, src);
}
__device__ __forceinline__ u64 tr_shfl_xor_u64(u64 v, int off) {
    return (u64)__shfl_xor_sync(TR_FULL, (unsigned long long)v, off);
}
__device__ __forceinline__ u128 tr_shfl_u128(u128 v, u32 src) {
    const u64 lo = tr_shfl_u64((u64)v, src), hi = tr_shfl_u64((u64)(v >> 64), src);
    return ((u128)hi << 64) | lo;
}
__device__ __forceinline__ u128 tr_shfl_up_u128(u128 v, int off) {
    const u64 lo = (u64)__shfl_up_sync(TR_FULL, (unsigned long long)(u64)v, off);
    const u64 hi = (u64)__shfl_up_sync(TR_FULL, (unsigned long long)(u64)(v >> 64), off);
    return ((u128)hi << 64) | lo;
}

// Keys a fused threshold may keep above k - 1: lists stay within
// TR_FUSED_K_MAX keys.
__device__ __forceinline__ u32 tr_fused_slack(u32 k) {
    return (TR_FUSED_K_MAX + 1 - k) < 32u ? (TR_FUSED_K_MAX + 1 - k) : 32u;
}

// The selects below are radix selects. The block select takes 4-bit digits
// counted in registers: a lane counts its keys of each digit in one byte of
// two 64-bit words, the warp sums them in 16-bit halves with
// __reduce_add_sync, so every lane knows all sixteen counts and a level needs
// one barrier (the 8-bit shared histogram needed three, and a quarter of the
// fused kernel's stall samples at B = 1 waited on its match.any;
// docs/cuda-notes.md, run 12). The warp select takes either.

// Warp-collective: for each value d of the 4-bit digit at `shift`, the number
// of keys of buf[0..n) (n <= 8160: at most 255 a lane) whose bits above it
// equal `prefix`, in every lane: digit d in half d & 1 (the low half for even
// d) of c[d >> 1].
__device__ __forceinline__ void tr_count_nibbles(const u64* buf, u32 n, int shift, u64 prefix,
                                                 u32 c[8]) {
    const u64 hi_mask = (shift == 60) ? 0 : (~0ULL << (shift + 4));
    u64 lo8 = 0, hi8 = 0;  // byte d & 7 of lo8 (d < 8) or hi8 (d >= 8): the lane's count of d
    for (u32 j = threadIdx.x & 31; j < n; j += 32) {
        const u64 v = buf[j];
        const u32 d = (u32)(v >> shift) & 15u;
        const u64 inc = ((v & hi_mask) == prefix) ? (1ULL << ((d & 7) * 8)) : 0;
        if (d & 8)
            hi8 += inc;
        else
            lo8 += inc;
    }
    const u32 w[4] = {(u32)lo8, (u32)(lo8 >> 32), (u32)hi8, (u32)(hi8 >> 32)};
#pragma unroll
    for (int q = 0; q < 4; q++) {
        // bytes 0, 1 and 2, 3 of w[q] to the halves of a word: digits 4q .. 4q + 3
        c[2 * q] = __reduce_add_sync(TR_FULL, __byte_perm(w[q], 0, 0x4140));
        c[2 * q + 1] = __reduce_add_sync(TR_FULL, __byte_perm(w[q], 0, 0x4342));
    }
}

// The digit holding the krem-th largest key (1 <= krem <= the counts' sum) of
// the counts c (tr_count_nibbles' layout), its count and the rank left inside
// it. Every lane computes the same.
__device__ __forceinline__ void tr_pick_nibble(const u32 c[8], u32 krem, u32& digit, u32& dcnt,
                                               u32& kr) {
    u32 before = 0, dg = 0, dc = 0, r = 0;
    bool found = false;
#pragma unroll
    for (int d = 15; d >= 0; d--) {
        const u32 cd = (c[d >> 1] >> ((d & 1) * 16)) & 0xffffu;
        const bool here = !found && before + cd >= krem;
        if (here) {
            dg = (u32)d;
            dc = cd;
            r = krem - before;
        }
        found |= here;
        before += cd;
    }
    digit = dg;
    dcnt = dc;
    kr = r;
}

// The AND and the OR of a warp's buffer buf[0..n), in every lane: the bits
// all its keys share are those set in `an` or clear in `o`.
__device__ __forceinline__ void tr_warp_and_or(const u64* buf, u32 n, u64& an, u64& o) {
    an = ~0ULL;
    o = 0;
    for (u32 j = threadIdx.x & 31; j < n; j += 32) {
        const u64 v = buf[j];
        an &= v;
        o |= v;
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        an &= tr_shfl_xor_u64(an, off);
        o |= tr_shfl_xor_u64(o, off);
    }
}

// Warp-collective step of a radix select level over the 256 counters `hist`
// (16-byte aligned): the digit holding the krem-th largest key, its count and
// the rank left inside it, in every lane. Lane l reads bins 255 - 8l down to
// 248 - 8l as two 16-byte words (no bank conflict) and the scan runs from the
// top.
__device__ __forceinline__ void tr_pick_digit(const u32* hist, u32 krem, u32& digit, u32& dcnt,
                                              u32& kr) {
    const u32 lane = threadIdx.x & 31;
    const uint4 lo4 = *(const uint4*)&hist[248 - 8 * lane];
    const uint4 hi4 = *(const uint4*)&hist[252 - 8 * lane];
    const u32 c[8] = {hi4.w, hi4.z, hi4.y, hi4.x, lo4.w, lo4.z, lo4.y, lo4.x};
    u32 sum = 0;
#pragma unroll
    for (int q = 0; q < 8; q++) sum += c[q];
    const u32 incl = tr_warp_scan_u32(sum);
    const u32 excl = incl - sum;
    const bool mine = excl < krem && incl >= krem;
    u32 d = 0, dc = 0, r = 0;
    if (mine) {
        u32 before = excl;
#pragma unroll
        for (int q = 0; q < 8; q++) {
            if (before + c[q] >= krem) {
                d = 255 - 8 * lane - q;
                dc = c[q];
                r = krem - before;
                break;
            }
            before += c[q];
        }
    }
    const u32 src = __ffs(__ballot_sync(TR_FULL, mine)) - 1;
    digit = __shfl_sync(TR_FULL, d, src);
    dcnt = __shfl_sync(TR_FULL, dc, src);
    kr = __shfl_sync(TR_FULL, r, src);
}

// Warp-collective: adds the digits at `shift` of the keys of buf[0..n) whose
// bits above it equal `prefix` to `hist` (lanes with one digit add once).
__device__ __forceinline__ void tr_count_digits(const u64* buf, u32 n, int shift, u64 prefix,
                                                u32* hist) {
    const u32 lane = threadIdx.x & 31;
    const u64 hi_mask = (shift == 56) ? 0 : (~0ULL << (shift + 8));
    for (u32 j0 = 0; j0 < n; j0 += 32) {
        const u32 j = j0 + lane;
        const u64 v = (j < n) ? buf[j] : 0;
        const bool part = j < n && (v & hi_mask) == prefix;
        const u32 d = (u32)(v >> shift) & 255u;
        const u32 grp = __match_any_sync(TR_FULL, part ? d : 256u + lane);
        if (part && lane == (u32)(__ffs(grp) - 1)) atomicAdd(&hist[d], (u32)__popc(grp));
    }
}

// Warp-collective: a threshold t for the n distinct keys buf[0..n) with
// k <= #(keys >= t) <= k - 1 + slack (1 <= k <= n, slack >= 1; slack 1 gives
// the k-th largest key's digits, exactly k keys at or above). Radix select,
// TR_WARP_SELECT_BITS (8 or 4) bits a level from the top, stopping at the
// first level whose chosen digit holds at most `slack` keys; t is the prefix
// chosen so far (lower bits 0). Digits that every key shares are skipped.
// `hist`: this warp's 256 counters (16-byte aligned; 8-bit digits only). Both
// widths keep the same top k, so the choice is one of speed.
// 4 was 2-7% faster than 8 at B = 8 to 1024 (top-k 50 + top-p 0.9, run 12).
#ifndef TR_WARP_SELECT_BITS
#define TR_WARP_SELECT_BITS 4
#endif
// One level of it: the digit at `shift` holding the krem-th largest key of
// those with bits above equal to `prefix`, its count, and krem updated to the
// rank left inside it.
template <int BITS> struct WarpSelectLevel;
template <> struct WarpSelectLevel<8> {
    static __device__ __forceinline__ void run(const u64* buf, u32 n, int shift, u64 prefix,
                                               u32* hist, u32& krem, u32& digit, u32& dcnt) {
        const u32 lane = threadIdx.x & 31;
        const uint4 zero = make_uint4(0, 0, 0, 0);
        ((uint4*)hist)[lane] = zero;
        ((uint4*)hist)[lane + 32] = zero;
        __syncwarp();
        tr_count_digits(buf, n, shift, prefix, hist);
        __syncwarp();
        tr_pick_digit(hist, krem, digit, dcnt, krem);
        __syncwarp();  // every lane read the bins before the next level clears them
    }
};
template <> struct WarpSelectLevel<4> {
    static __device__ __forceinline__ void run(const u64* buf, u32 n, int shift, u64 prefix,
                                               u32*, u32& krem, u32& digit, u32& dcnt) {
        u32 c[8];
        tr_count_nibbles(buf, n, shift, prefix, c);
        tr_pick_nibble(c, krem, digit, dcnt, krem);
    }
};

__device__ __noinline__ u64 tr_warp_threshold(const u64* buf, u32 n, u32 k, u32 slack, u32* hist) {
    constexpr int BITS = TR_WARP_SELECT_BITS;
    constexpr u64 MASK = (1ULL << BITS) - 1;
    u64 an, o;
    tr_warp_and_or(buf, n, an, o);
    const u64 diff = an ^ o;
    u64 prefix = 0;
    u32 krem = k;
    for (int shift = 64 - BITS; shift >= 0; shift -= BITS) {
        if (((diff >> shift) & MASK) == 0) {
            prefix |= an & (MASK << shift);
            continue;
        }
        u32 digit, dcnt;
        WarpSelectLevel<BITS>::run(buf, n, shift, prefix, hist, krem, digit, dcnt);
        prefix |= (u64)digit << shift;
        if (dcnt <= slack) break;
    }
    return prefix;
}

// Warp-collective: keeps the keys >= thr of buf[0..n) at the front, returns
// their number (writes never pass the entries already read).
__device__ __noinline__ u32 tr_warp_keep(u64* buf, u32 n, u64 thr) {
    const u32 lane = threadIdx.x & 31;
    u32 out = 0;
    for (u32 j0 = 0; j0 < n; j0 += 32) {
        const u32 j = j0 + lane;
        const u64 v = (j < n) ? buf[j] : 0;
        const bool keep = j < n && v >= thr;
        const u32 bal = __ballot_sync(TR_FULL, keep);
        __syncwarp();
        if (keep) buf[out + __popc(bal & ((1u << lane) - 1))] = v;
        out += __popc(bal);
        __syncwarp();
    }
    return out;
}

// One warp's top-k buffer: keys in shared memory, count and threshold in
// (warp-uniform) registers.
struct WarpTopk {
    u64* buf;
    u32* hist;
    u32 n;
    u32 k;
    u32 lim;  // offers shrink the buffer when it holds more keys
    u64 thr;  // no key at or below it is in the top k (0: none yet; real keys are > 0)

    // Keeps at least the k largest keys and at most k - 1 + slack; raises thr
    // and the block's threshold. A later key equal to the threshold ranks
    // below k kept keys, so pushes need key > thr.
    __device__ __forceinline__ void shrink(TopkCtl& C) {
        const u64 t = tr_warp_threshold(buf, n, k, tr_fused_slack(k), hist);
        n = tr_warp_keep(buf, n, t);
        thr = t > thr ? t : thr;
        if ((threadIdx.x & 31) == 0) atomicMax((unsigned long long*)&C.thr, (unsigned long long)t);
    }

    // Appends the rank keys of the elements x[q] (index ib + q) with bit q of
    // ok (warp-collective), shrinking when the buffer passes `lim` (with more
    // to come) or TR_FUSED_WLIMIT. Keys are built only for the elements
    // appended.
    __device__ __forceinline__ void offer(const float x[8], u32 ib, u32 ok, bool more,
                                          TopkCtl& C) {
        const u32 lane = threadIdx.x & 31;
        const u32 cnt = __popc(ok);
        if (__all_sync(TR_FULL, cnt <= 1)) {
            // Common: at most one key per lane; a ballot gives the slots.
            const u32 bal = __ballot_sync(TR_FULL, cnt != 0);
            if (cnt) {
                float one = x[0];
                u32 qi = 0;
#pragma unroll
                for (int q = 1; q < 8; q++)
                    if ((ok >> q) & 1) {
                        one = x[q];
                        qi = q;
                    }
                buf[n + __popc(bal & ((1u << lane) - 1))] = tr_rank_key32(one, ib + qi);
            }
            n += __popc(bal);
        } else {
            const u32 incl = tr_warp_scan_u32(cnt);
            u32 at = n + incl - cnt;
#pragma unroll
            for (int q = 0; q < 8; q++)
                if ((ok >> q) & 1) buf[at++] = tr_rank_key32(x[q], ib + q);
            n += __shfl_sync(TR_FULL, incl, 31);
        }
        __syncwarp();
        if (n > (more ? lim : TR_FUSED_WLIMIT)) shrink(C);
    }
};

// The fused path's dynamic shared memory: for each warp its buffer of
// TR_FUSED_WCAP keys and 256 counters (the 8-bit warp select's histogram),
// the block select's 256 counters (their own: a warp may shrink its buffer
// while others still read the block's counts), then in a row's last block two
// lists of TR_FUSED_K_MAX keys (launch.rs: fused_smem).
__device__ __forceinline__ u32* tr_fused_counts(u64* smem) {
    return (u32*)((u8*)smem + (u64)(blockDim.x >> 5) * (TR_FUSED_WCAP * 8 + 1024));
}

__device__ __forceinline__ WarpTopk tr_warp_topk(u64* smem, u32 k) {
    const u32 warp = threadIdx.x >> 5;
    WarpTopk w;
    u8* base = (u8*)smem + (u64)warp * (TR_FUSED_WCAP * 8 + 1024);
    w.buf = (u64*)base;
    w.hist = (u32*)(base + TR_FUSED_WCAP * 8);
    w.n = 0;
    w.k = k;
    // Shrinking at about 32 keys past a shrunk buffer (k - 1 + slack) keeps the
    // thresholds fresh: a stale one let most warp-steps offer keys (run 8).
    // At most TR_FUSED_WLIMIT, so that an offer of 256 keys always fits.
    const u32 lim = k + tr_fused_slack(k) + TR_FUSED_REFRESH;
    w.lim = lim < TR_FUSED_WLIMIT ? lim : TR_FUSED_WLIMIT;
    w.thr = 0;
    return w;
}

// Block-collective start of tr_block_threshold: the AND and the OR of all
// the warps' keys (in every thread) and their number.
__device__ __forceinline__ u32 tr_block_and_or(const u64* buf, u32 n, TopkCtl& C, u64& an, u64& o) {
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    tr_warp_and_or(buf, n, an, o);
    __syncthreads();  // the block's reads of an earlier call's counts are done
    if (lane == 0) {
        C.sel_an[warp] = an;
        C.sel_or[warp] = o;
        C.wcnt[warp] = n;
    }
    __syncthreads();
    u32 total = 0;
    an = ~0ULL;
    o = 0;
    for (u32 w2 = 0; w2 < nwarps; w2++) {
        total += C.wcnt[w2];
        an &= C.sel_an[w2];
        o |= C.sel_or[w2];
    }
    return total;
}

// Block-collective (every thread calls it, each warp with its own buffer
// buf[0..n)): a threshold t over the distinct keys of all the warps' buffers
// with k <= #(keys >= t) <= k - 1 + slack, or 0 (keep every key) when they hold
// at most k - 1 + slack keys: tr_warp_threshold's radix select over the whole
// block, TR_BLOCK_SELECT_BITS (8 or 4) bits a level. `cnt`: the block's 256
// counters (16-byte aligned). 8 bits: one shared histogram that every warp
// adds its buffer's digits to and warp 0 reads, three barriers a level. 4
// bits: every warp writes its register counts to one of two sets of 16 warps
// x 8 words in `cnt`, used in turn, and after one barrier sums all the warps'
// counts and picks the digit itself, so every warp takes the same path (a set
// is written again two levels later, when every warp has passed the barrier
// after its reads).
// 8: 4 took top-k 50 + top-p 0.9 at B = 1024 from 236 to 271 us (run 12).
#ifndef TR_BLOCK_SELECT_BITS
#define TR_BLOCK_SELECT_BITS 8
#endif
// One level of it (block-collective, the same in every thread): the digit at
// `shift` holding the krem-th largest key of those with bits above equal to
// `prefix`, its count, and krem updated to the rank left inside it. `set`:
// the 4-bit level's count set, flipped each level.
template <int BITS> struct BlockSelectLevel;
template <> struct BlockSelectLevel<8> {
    static __device__ __forceinline__ void run(const u64* buf, u32 n, int shift, u64 prefix,
                                               u32* hist, TopkCtl& C, u32&, u32& krem,
                                               u32& digit, u32& dcnt) {
        const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
        for (u32 b = threadIdx.x; b < 256; b += blockDim.x) hist[b] = 0;
        __syncthreads();
        tr_count_digits(buf, n, shift, prefix, hist);
        __syncthreads();
        if (warp == 0) {
            u32 dg, dc, kr;
            tr_pick_digit(hist, krem, dg, dc, kr);
            if (lane == 0) {
                C.sel_digit = dg;
                C.sel_dcnt = dc;
                C.sel_krem = kr;
            }
        }
        __syncthreads();  // also: warp 0 read the bins before the next level clears them
        dcnt = C.sel_dcnt;
        digit = C.sel_digit;
        krem = C.sel_krem;
    }
};
template <> struct BlockSelectLevel<4> {
    static __device__ __forceinline__ void run(const u64* buf, u32 n, int shift, u64 prefix,
                                               u32* cnt, TopkCtl&, u32& set, u32& krem,
                                               u32& digit, u32& dcnt) {
        const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
        u32 c[8];
        tr_count_nibbles(buf, n, shift, prefix, c);
        uint4* const counts = (uint4*)(cnt + set * (16 * 8));
        if (lane == 0) {
            counts[2 * warp] = make_uint4(c[0], c[1], c[2], c[3]);
            counts[2 * warp + 1] = make_uint4(c[4], c[5], c[6], c[7]);
        }
        __syncthreads();
        uint4 x = make_uint4(0, 0, 0, 0), y = make_uint4(0, 0, 0, 0);
        if (lane < (blockDim.x >> 5)) {
            x = counts[2 * lane];
            y = counts[2 * lane + 1];
        }
        const u32 mine[8] = {x.x, x.y, x.z, x.w, y.x, y.y, y.z, y.w};
#pragma unroll
        for (int q = 0; q < 8; q++) c[q] = __reduce_add_sync(TR_FULL, mine[q]);
        tr_pick_nibble(c, krem, digit, dcnt, krem);
        set ^= 1;
    }
};

__device__ __noinline__ u64 tr_block_threshold(const u64* buf, u32 n, u32 k, u32 slack, u32* cnt,
                                  TopkCtl& C) {
    constexpr int BITS = TR_BLOCK_SELECT_BITS;
    constexpr u64 MASK = (1ULL << BITS) - 1;
    u64 an, o;
    if (tr_block_and_or(buf, n, C, an, o) <= k - 1 + slack) return 0;
    const u64 diff = an ^ o;
    u64 prefix = 0;
    u32 krem = k, set = 0;
    for (int shift = 64 - BITS; shift >= 0; shift -= BITS) {
        if (((diff >> shift) & MASK) == 0) {
            prefix |= an & (MASK << shift);
            continue;
        }
        u32 digit, dcnt;
        BlockSelectLevel<BITS>::run(buf, n, shift, prefix, cnt, C, set, krem, digit, dcnt);
        prefix |= (u64)digit << shift;
        if (dcnt <= slack) break;
    }
    return prefix;
}

// Block-collective: writes the keys >= t of every warp's buffer buf[0..n) to
// out (warp 0's first, each warp's in buffer order), sets lo to the smallest
// (~0 when none) and returns their number. `out` must not overlap a buffer.
__device__ __noinline__ u32 tr_block_keep(const u64* buf, u32 n, u64 t, u64* out, TopkCtl& C, u64& lo) {
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    u32 mine = 0;
    for (u32 j0 = 0; j0 < n; j0 += 32) {
        const u32 j = j0 + lane;
        mine += __popc(__ballot_sync(TR_FULL, j < n && buf[j] >= t));
    }
    if (lane == 0) C.wkeep[warp] = mine;
    if (threadIdx.x == 0) C.min_key = ~0ULL;
    __syncthreads();
    u32 at = 0, total = 0;
    for (u32 w2 = 0; w2 < nwarps; w2++) {
        const u32 c = C.wkeep[w2];
        at += w2 < warp ? c : 0;
        total += c;
    }
    u64 m = ~0ULL;
    for (u32 j0 = 0; j0 < n; j0 += 32) {
        const u32 j = j0 + lane;
        const u64 v = (j < n) ? buf[j] : 0;
        const bool keep = j < n && v >= t;
        const u32 bal = __ballot_sync(TR_FULL, keep);
        if (keep) {
            out[at + __popc(bal & ((1u << lane) - 1))] = v;
            m = v < m ? v : m;
        }
        at += __popc(bal);
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        const u64 y = tr_shfl_xor_u64(m, off);
        m = y < m ? y : m;
    }
    if (lane == 0 && mine != 0) atomicMin((unsigned long long*)&C.min_key, (unsigned long long)m);
    __syncthreads();
    lo = C.min_key;
    return total;
}

// 1 (the default): the chunk's largest x and its first index are read off
// its list's first key (the chunk's largest rank key, always in its top k;
// keys of x = -0 and +0 are equal, as the compares were), and the chunk's
// NaN/inf flag is reduced by the barrier after the list's writes, so the scan
// keeps no running maximum, its block needs no reduction of the accumulators
// and tr_pass writes the partial at once; the row's last block skips the
// best score's reduction (fused rows race in the finish: every partial's
// score is -inf). 0: the scan keeps the lane's largest x and its unit, reads
// that unit again after the loop for the index, and the block reduces its
// accumulators as for the other paths. The same partials (a chunk's largest
// x as +0 where it was -0, which no subtraction from a rank key's a tells
// apart) and tokens. On an H100 (docs/cuda-notes.md, run 54) top-k 50 +
// top-p 0.9 bf16 0.5-1.5 us faster per call at B = 1 to 256 and 3.3 at B =
// 1024; f32 B = 256 8.7 us (the f32 build spills less). Not in the
// 64-register builds (`tr_fused_wide_*`, for launches whose blocks queue)
// unless TR_FUSED_LIST_MAX_WIDE: there ptxas moved spills into the scan loop
// (V = 262144, B = 1024: 1.1 GB of local stores against 45 MB, 484 us
// against 284; run 54, call F).
#ifndef TR_FUSED_LIST_MAX
#define TR_FUSED_LIST_MAX 1
#endif
#ifndef TR_FUSED_LIST_MAX_WIDE
#define TR_FUSED_LIST_MAX_WIDE 0
#endif

// One chunk of a fused row: status, the largest a (first index) and the
// chunk's top-k rank keys, written to `list` (their count to list_n). With
// LM (TR_FUSED_LIST_MAX in this build), acc's flags and maximum are the
// block's.
template <int DT, int NU, bool LM>
__device__ void tr_scan_topk(const typename Elem<DT>::T* row, bool al, u32 vocab, i64 lo, i64 hi,
                             u32 k, u32 nchunks, u64* smem, TopkCtl& C, u64* list, u32& list_n,
                             u64& list_lo, Acc& acc) {
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    // 32-bit unit indices (vocab <= 2^31) unless TR_FUSED_I64 (a timing knob).
    typedef typename UnitIdx<TR_FUSED_I64 != 0>::T UT;
    const UT unit_lo = (UT)(lo >> 3), unit_hi = (UT)((hi + 7) >> 3);
    if (threadIdx.x == 0) {
        C.thr = 0;
        C.pilot = 0;
        if (LM) C.rt = 0;
    }
    __syncthreads();
    WarpTopk w = tr_warp_topk(smem, k);
    float m = tr_fninf();
    UT mu = 0;  // the unit of the lane's first largest x
    u32 mi = TR_NO_TOKEN;
    bool bad = false;
    // Warp-contiguous units: unit u0 + lane, u0 stepping by the block.
    // NU units a lane are loaded ahead (a ring: the oldest is converted, the
    // next one is fetched into its place).
    static_assert(NU >= 1, "at least one unit in flight");
    UT u = unit_lo + (UT)warp * 32 + lane;
    const UT step = (UT)nwarps * 32;
    Raw8 raw[NU];
#pragma unroll
    for (int s = 0; s < NU; s++) {
        const UT us = u + s * step;
        raw[s] = tr_fetch8<DT>(row, (i64)us * 8, vocab, al, us < unit_hi);
    }
    u32* const counts = tr_fused_counts(smem);
    // The pilot (TR_FUSED_PILOT, for k <= half the block): the largest x of
    // every lane's first unit, and y, the largest of them that at least k
    // of them reach. The chunk has k elements with x >= y, so no key of an
    // element with x < y is in its top k, and every warp starts from the
    // threshold (order key of y, 0): keys of x = y lie above it, as indices
    // are below 2^32 - 1. Without it the first step offers every element
    // (all of the chunk at B = 1: 256 keys a warp, and the chunk select then
    // ran over 2,048 keys; with it about 55 are offered on normal logits,
    // docs/cuda-notes.md, run 13). Elements with x < -FLT_MAX (-inf, the
    // padding) are never offered, and take no part.
#ifndef TR_FUSED_PILOT
#define TR_FUSED_PILOT 1
#endif
    // With TR_FUSED_PILOT_ALL (for NU > 1; 0, the first unit alone, is a
    // timing knob) a lane's largest x is taken over every unit it has loaded
    // ahead: still one element a lane, from a larger set, so y can only rise.
#ifndef TR_FUSED_PILOT_ALL
#define TR_FUSED_PILOT_ALL 1
#endif
    if (TR_FUSED_PILOT && 2 * k <= blockDim.x) {
        u32* const pk = (u32*)(counts + 256);  // the last block's lists, free here
        u32 best = 0;  // an order key; 0 is none (no x >= -FLT_MAX has key 0)
        constexpr int PU = TR_FUSED_PILOT_ALL ? NU : 1;
#pragma unroll
        for (int s = 0; s < PU; s++) {
            if (u + (UT)s * step < unit_hi) {
                float x[8];
                tr_convert8<DT>(raw[s], x);
#pragma unroll
                for (int q = 0; q < 8; q++) {
                    const u32 kq = tr_fkey(__fadd_rn(x[q], 0.0f));
                    best = (x[q] >= -tr_flt_max() && kq > best) ? kq : best;
                }
            }
        }
#if TR_FUSED_PILOT_X2 == 1 || TR_FUSED_PILOT_X2 == 3
        if (DT == 1) {
            // The lanes' largest values as bf16 (-inf for none, which reaches
            // no finite value), counted two a compare: the same counts as the
            // order keys' (value order, -0 = +0), so the same pilot.
            u16* const pk16 = (u16*)pk;
            pk16[threadIdx.x] = best != 0 ? (u16)(__float_as_uint(tr_funkey(best)) >> 16) : (u16)0xff80u;
        } else {
            pk[threadIdx.x] = best;
        }
#else
        pk[threadIdx.x] = best;
#endif
        tr_phase(14);
        __syncthreads();
        if (best != 0) {
            u32 ge = 0;
#if TR_FUSED_PILOT_X2 == 1 || TR_FUSED_PILOT_X2 == 3
            if (DT == 1) {
                // 32 lanes' values an iteration (blockDim.x is a multiple of
                // 32), four 16-byte loads issued together, two sums: each a
                // pair of 16-bit counts (at most 512 each), of the low and the
                // high halves.
                const u32 b16 = __float_as_uint(tr_funkey(best)) >> 16;
                const u32 mine2 = b16 | (b16 << 16);
                const uint4* const p4 = (const uint4*)pk;
                auto c8 = [&](uint4 q) -> u32 {
                    return (tr_ge_bf16x2(q.x, mine2) & 0x00010001u) + (tr_ge_bf16x2(q.y, mine2) & 0x00010001u) +
                           (tr_ge_bf16x2(q.z, mine2) & 0x00010001u) + (tr_ge_bf16x2(q.w, mine2) & 0x00010001u);
                };
                u32 a0 = 0, a1 = 0;
                for (u32 l = 0; l < blockDim.x; l += 32) {
                    const uint4 q0 = p4[l / 8], q1 = p4[l / 8 + 1], q2 = p4[l / 8 + 2], q3 = p4[l / 8 + 3];
                    a0 += c8(q0) + c8(q1);
                    a1 += c8(q2) + c8(q3);
                }
                const u32 acc = a0 + a1;
                ge = (acc & 0xffffu) + (acc >> 16);
            } else
#endif
#if TR_FUSED_PILOT_X2 == 2 || TR_FUSED_PILOT_X2 == 3
            if (true) {
                // The order keys as by default, 32 lanes an iteration (eight
                // 16-byte loads issued together) into two sums.
                u32 g0 = 0, g1 = 0;
                for (u32 l = 0; l < blockDim.x; l += 32) {
#pragma unroll
                    for (u32 j = 0; j < 8; j++) {
                        const uint4 q = *(const uint4*)&pk[l + 4 * j];
                        const u32 c = (q.x >= best ? 1u : 0u) + (q.y >= best ? 1u : 0u) +
                                      (q.z >= best ? 1u : 0u) + (q.w >= best ? 1u : 0u);
                        if (j & 1)
                            g1 += c;
                        else
                            g0 += c;
                    }
                }
                ge = g0 + g1;
            } else
#endif
            {
#pragma unroll 4
                for (u32 l = 0; l < blockDim.x; l += 4) {
                    const uint4 q = *(const uint4*)&pk[l];
                    ge += (q.x >= best ? 1u : 0u) + (q.y >= best ? 1u : 0u) +
                          (q.z >= best ? 1u : 0u) + (q.w >= best ? 1u : 0u);
                }
            }
            if (ge >= k) atomicMax(&C.pilot, best);
        }
        __syncthreads();
        w.thr = (u64)C.pilot << 32;
        tr_phase(15);
    }
    const UT full = (unit_hi - unit_lo) / step;  // steps every warp makes
    UT it = 0, next_sync = 2;
    for (UT u0 = unit_lo + (UT)warp * 32; u0 < unit_hi; u0 += step) {
        float x[8];
        tr_convert8<DT>(raw[0], x);
        const u32 ib = (u32)(u * 8);
#pragma unroll
        for (int s = 0; s + 1 < NU; s++) raw[s] = raw[s + 1];
        if (u0 + NU * step < unit_hi) {
            const UT un = u + NU * step;
            raw[NU - 1] = tr_fetch8<DT>(row, (i64)un * 8, vocab, al, un < unit_hi);
        }
        // A shrink only to refresh the thresholds is of no use on the last step.
        const bool more = u0 + step < unit_hi;
        const u64 bt = *(volatile u64*)&C.thr;
        const u64 thr = bt > w.thr ? bt : w.thr;
        // x >= the threshold's a (or > -inf before there is one) is necessary
        // for key > thr. Elements that tie with it in a and are below it in
        // index are offered too: a key below the threshold in a buffer is only
        // dropped later, and this leaves one compare per element.
        const float thr_x = thr == 0 ? -tr_flt_max() : tr_funkey((u32)(thr >> 32));
        // The unit's largest x (the first of equal ones; never NaN) decides
        // both whether the unit holds a candidate and whether it holds the
        // lane's largest x so far; the index inside that unit is found after
        // the loop. One compare a unit where an argmax step and a mask bit an
        // element were (docs/cuda-notes.md, run 8).
        float ux = tr_fninf();
#pragma unroll
        for (int q = 0; q < 8; q++) {
            bad |= !(x[q] < tr_finf());
            ux = x[q] > ux ? x[q] : ux;
        }
        if (!LM && ux > m) {
            m = ux;
            mu = u;
        }
        const bool cand = ux >= thr_x;
        if (__any_sync(TR_FULL, cand)) {
            u32 ok = 0;
            if (cand) {
#pragma unroll
                for (int q = 0; q < 8; q++) ok |= (x[q] >= thr_x ? 1u : 0u) << q;
            }
            w.offer(x, ib, ok, more, C);
        }
        u += step;
        // After 2, 4, 8, ... steps (while every warp has steps left) the block
        // selects the k-th key of all its buffers together: the warps' own
        // k-th keys rank about `warps` times lower in the chunk, and with them
        // most warp-steps held a candidate (run 8). Keys below the block's
        // threshold leave every buffer.
        if (++it == next_sync && it < full) {
            next_sync *= 2;
            const u64 bt = tr_block_threshold(w.buf, w.n, k, tr_fused_slack(k), counts, C);
            if (bt != 0) {
                w.n = tr_warp_keep(w.buf, w.n, bt);
                w.thr = bt > w.thr ? bt : w.thr;
                if (threadIdx.x == 0) atomicMax((unsigned long long*)&C.thr, (unsigned long long)bt);
            }
        }
    }
    const bool any = m > tr_fninf();  // NaN never becomes m
    if (!LM && any) {
        // The first element of unit mu equal to m (-0 and +0 are equal, as in
        // the compares that chose m): the lane's first largest x.
        float x[8];
        tr_convert8<DT>(tr_fetch8<DT>(row, (i64)mu * 8, vocab, al, true), x);
#pragma unroll
        for (int q = 7; q >= 0; q--)
            if (x[q] == m) mi = (u32)(mu * 8) + q;
    }
    // A warp whose buffer holds more than its limit shrinks it first
    // (TR_FUSED_FINAL_SHRINK, a timing knob): warps select in parallel, with
    // no barrier, and the block's select reads fewer keys (top-k 50 + top-p
    // 0.9, B = 1024: 207.8 -> 202.6 us, B = 64: 48.4 -> 47.6, the others
    // unchanged; docs/cuda-notes.md, run 13).
#ifndef TR_FUSED_FINAL_SHRINK
#define TR_FUSED_FINAL_SHRINK 1
#endif
    if (TR_FUSED_FINAL_SHRINK && w.n > w.lim) w.shrink(C);
    // The chunk's list: the keys at or above a block-wide threshold of the
    // warps' buffers (at least the chunk's top k, at most k - 1 + slack keys).
    tr_phase(1);
    const u64 t = tr_block_threshold(w.buf, w.n, k, tr_fused_slack(k), counts, C);
    tr_phase(2);
    u64 lo_key;
    u64* const staged = (u64*)(tr_fused_counts(smem) + 256);  // the last block's lists, free here
    list_n = tr_block_keep(w.buf, w.n, t, staged, C, lo_key);
    // Written in rank order (largest first): the row's last block reads the
    // j-th key of every list (tr_fused_finish).
    for (u32 j = threadIdx.x; j < list_n; j += blockDim.x) {
        const u64 v = staged[j];
        u32 r = 0;
#pragma unroll 8
        for (u32 l = 0; l < list_n; l++) r += staged[l] > v ? 1u : 0u;
        list[r] = v;
        if (LM && r == 0) C.rt = v;
    }
    if (LM) {
        // The barrier that publishes the first key also ORs the flags.
        acc.bad = __syncthreads_or(bad) != 0;
        const u64 top = *(volatile u64*)&C.rt;
        acc.any = top != 0;  // a finite or +inf x is offered, and the largest is kept
        acc.max_a = top != 0 ? (double)tr_funkey((u32)(top >> 32)) : tr_ninf();
        acc.max_i = top != 0 ? ~(u32)top : TR_NO_TOKEN;
    }
    tr_phase(3);
    // The list is read by the row's last block. With more than one chunk,
    // thread 0 of the block releases it (tr_pass: the partial's
    // __threadfence and atomicAdd after a block barrier, the pattern of a grid
    // barrier), so the writers need no fence of their own.
    if (nchunks == 1) __threadfence();
    // A chunk list of at least k keys reports its smallest: the row has k keys
    // at or above it, so the row's last block drops every key below.
    list_lo = list_n >= k ? lo_key : 0;
    if (!LM) {
        acc.bad = bad;
        acc.any = any;
        acc.max_a = (double)m;
        acc.max_i = mi;
    }
}

// Block-collective: the best (score, index) of the block's (s, i), in every
// thread (ties to the smaller index; s_s and s_i: one slot a warp).
__device__ __forceinline__ void tr_block_best(double& s, u32& i, double* s_s, u32* s_i) {
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    tr_warp_best(s, i);
    if (lane == 0) {
        s_s[warp] = s;
        s_i[warp] = i;
    }
    __syncthreads();
    s = tr_ninf();
    i = TR_NO_TOKEN;
    if (lane < nwarps) {
        s = s_s[lane];
        i = s_i[lane];
    }
    tr_warp_best(s, i);
}

// Block-collective race of the exact profile among sorted[0..n) (n <=
// blockDim.x; rank keys), returning the winner in every thread. Thread j
// bounds the score of survivor j from its lead: hi = a - t lb(lead) and
// lo = a - t ub(lead) (fma is monotone in its product, so the computed score
// lies in [lo, hi]). A survivor whose hi is below the largest lo cannot win;
// when only one survivor reaches it, that one (the largest lo's) wins, else
// those that reach it are scored exactly.
__device__ __noinline__ u32 tr_fused_race_exact(const u64* sorted, u32 n, double t, u64 seed,
                                                u64 pos, double* s_s, u32* s_i) {
    const u32 j = threadIdx.x;
    const bool have = j < n;
    const double neg_t = -t;
    double a = 0.0, lo = tr_ninf(), hi = tr_ninf();
    u32 i = TR_NO_TOKEN, lead = 0;
    if (have) {
        const u64 v = sorted[j];
        a = (double)tr_funkey((u32)(v >> 32));
        i = ~(u32)v;
        lead = tr_lead_prefix(tr_block(seed, i >> 3, pos, TR_TAG_EXACT_LEAD), i);
        hi = __fma_rn(neg_t, tr_lead_lower_bound(lead), a);
        lo = __fma_rn(neg_t, tr_lead_upper_bound(lead), a);
    }
    double best_lo = lo;
    u32 best_i = i;
    tr_block_best(best_lo, best_i, s_s, s_i);
    const bool reach = have && hi >= best_lo;
    // (also: every thread has read the slots before they are written again)
    if (__syncthreads_count(reach) == 1) return best_i;
    double s = tr_ninf();
    u32 si = TR_NO_TOKEN;
    if (reach) {
        s = tr_exact_score(neg_t, seed, pos, i, lead, a);
        si = i;
    }
    tr_block_best(s, si, s_s, s_i);
    return si;
}

// The fast gather of a fused row's last block: the keys of the row that its
// top k lies among, by two reads of the lists and no select. Lists are in
// rank order, so the first J keys of every list are distinct row keys, and
// their k-th largest rt is at most the row's k-th key (J >= ceil(k /
// chunks) makes them at least k). The first S >= J slots of every list are
// read at once (one L2 round for all chunks, while warp 0 combines the
// partials: tr_fused_gather_load); those at or above rt are kept, and a list
// whose S-th key is at or above rt is read on by one warp until its keys fall
// below rt. Every key of the row's top k is in the lists and at or above rt,
// so the keys kept hold it, and a key's rank among them is its rank in the
// row for the top k. On normal(0, 2) logits at B = 1 (64 chunks, k = 50: J =
// 2, S = 8) about 60 keys are kept (docs/cuda-notes.md, run 13). It does not
// apply when 2k > TR_FUSED_K_MAX, with more than TR_FUSED_GATHER_CHUNKS
// chunks, or when the first slots do not fit the warps' buffers, and gives
// up when more than TR_FUSED_K_MAX keys are at or above rt; the caller then
// takes the select path.
#ifndef TR_FUSED_FAST_GATHER
#define TR_FUSED_FAST_GATHER 1
#endif
#define TR_FUSED_GATHER_CHUNKS 512
// Whether the first slots are read before the combine, by warps 1 and up
// (1), or by the whole block in the finish (0; a timing knob).
#ifndef TR_FUSED_PRELOAD
#define TR_FUSED_PRELOAD 1
#endif

// 1 (the default): J is cut to what lets the head's rank count
// (tr_rank_pairs, two threads a key) run in one round of the block, where
// that still leaves J >= ceil(k / chunks); 0: J = 2 ceil(k / chunks). At B =
// 8 (33 chunks, k = 50) the head is 132 keys, two rounds of 66 compares a
// pair; with the cut J = 3, 99 keys, one round of 50 (on an H100, top-k 50 +
// top-p 0.9 B = 8 0.7 us faster per call, 0.8 queued; other batch sizes keep
// their J; docs/cuda-notes.md, run 54). Any J >= ceil(k / chunks) keeps the
// row's top k, so the same token.
#ifndef TR_FUSED_HEAD_FIT
#define TR_FUSED_HEAD_FIT 1
#endif

struct GatherShape {
    bool on;
    u32 J;  // slots of every list the threshold is taken from
    u32 S;  // slots of every list read at first (S >= J)
    u32 L;  // no list is longer
};

__device__ __forceinline__ GatherShape tr_gather_shape(u32 nch, u32 k) {
    GatherShape g;
    const u32 nwarps = blockDim.x >> 5;
    g.L = k - 1 + tr_fused_slack(k);
    const u32 jq = (k + nch - 1) / nch;
    g.J = 2 * jq < g.L ? 2 * jq : g.L;
    if (TR_FUSED_HEAD_FIT) {
        const u32 fit = blockDim.x / (2 * nch);
        if (fit >= jq && fit < g.J) g.J = fit;
    }
    g.S = g.J + 6 < g.L ? g.J + 6 : g.L;
    // The slots go after the top-p masses' (smem[0..256)), in the warps'
    // buffers, which the fast path does not use.
    const u32 ucap = nwarps * (TR_FUSED_WCAP * 8 + 1024) / 8 - TR_FUSED_K_MAX;
    g.on = TR_FUSED_FAST_GATHER && 2 * k <= TR_FUSED_K_MAX && nch <= TR_FUSED_GATHER_CHUNKS &&
           nch * (g.S + g.J) <= ucap;
    return g;
}

// The first slots of every list of the row: slot f = r * S + j holds list
// r's j-th key (0 past its end; real keys are > 0) at smem[256 + f], and the
// first J of every list again after them, in one run (the head) for the rank
// count; and zeroes C.rt, C.gn and C.nmore. Threads from `first` on take
// part (TR_FUSED_PRELOAD: every warp but warp 0, which combines the partials
// meanwhile); four slots a thread are loaded before any is stored (one L2
// round).
__device__ __noinline__ void tr_fused_gather_load(const u64* lists, const Partial* pp, u32 nch,
                                                  u32 k, u64* smem, TopkCtl& C, u32 first) {
    const GatherShape g = tr_gather_shape(nch, k);
    if (!g.on) return;
    if (threadIdx.x == first) {
        C.rt = 0;
        C.gn = 0;
        C.nmore = 0;
    }
    const u32 S = g.S, J = g.J, nslots = nch * S;
    const u32 t = threadIdx.x - first, nt = blockDim.x - first;
    u64* const uni = smem + TR_FUSED_K_MAX;
    u64* const head = uni + nslots;
    for (u32 f0 = 0; f0 < nslots; f0 += 4 * nt) {
        u64 v[4];
        u32 cn[4];
#pragma unroll
        for (int q = 0; q < 4; q++) {
            const u32 f = f0 + q * nt + t;
            const u32 r = f / S, j = f - r * S;
            v[q] = 0;
            cn[q] = 0;
            if (f < nslots) {
                cn[q] = __ldcg(&pp[r].pad);
                v[q] = __ldcg(&lists[(u64)r * TR_FUSED_K_MAX + j]);
            }
        }
#pragma unroll
        for (int q = 0; q < 4; q++) {
            const u32 f = f0 + q * nt + t;
            const u32 r = f / S, j = f - r * S;
            if (f < nslots) {
                const u64 key = j < cn[q] ? v[q] : 0;
                uni[f] = key;
                if (j < J) head[r * J + j] = key;
            }
        }
    }
}

// Block-collective rank count: for every key v = keys[f] (f < n, keys
// distinct), visit(f, v, r) with r the number of keys of keys[0..n) larger
// than v. Two threads count a key, each over half of the keys, and a shuffle
// adds their counts (half the latency of one thread a key); the even one
// visits.
template <class F>
__device__ __forceinline__ void tr_rank_pairs(const u64* keys, u32 n, F visit) {
    const u32 half = (n + 1) / 2;
    for (u32 t0 = 0; t0 < 2 * n; t0 += blockDim.x) {
        const u32 t = t0 + threadIdx.x, f = t >> 1, h = t & 1;
        u64 v = 0;
        u32 above = 0;
        if (f < n) {
            v = keys[f];
            const u32 l0 = h ? half : 0, l1 = h ? n : half;
#pragma unroll 8
            for (u32 l = l0; l < l1; l++) above += keys[l] > v ? 1u : 0u;
        }
        above += __shfl_xor_sync(TR_FULL, above, 1);
        if (f < n && h == 0) visit(f, v, above);
    }
}

// Warp-collective: appends v (where keep) to out at slots from the shared
// counter *n; slots past TR_FUSED_K_MAX are counted, not written.
__device__ __forceinline__ void tr_gather_append(u64* out, u32* n, bool keep, u64 v) {
    const u32 lane = threadIdx.x & 31;
    const u32 bal = __ballot_sync(TR_FULL, keep);
    u32 base = 0;
    if (lane == 0 && bal != 0) base = atomicAdd(n, (u32)__popc(bal));
    base = __shfl_sync(TR_FULL, base, 0);
    const u32 at = base + __popc(bal & ((1u << lane) - 1));
    if (keep && at < TR_FUSED_K_MAX) out[at] = v;
}

// Block-collective, after tr_fused_gather_load and a barrier, with C.rt,
// C.gn and C.nmore zero: writes the keys kept to out (unordered: shared
// atomics give the slots, and the rank count that sorts them does not depend
// on their order) and returns their number, or TR_NO_TOKEN when there are
// more than TR_FUSED_K_MAX. `more`: TR_FUSED_GATHER_CHUNKS words.
__device__ __noinline__ u32 tr_fused_gather_fast(const u64* lists, const Partial* pp, u32 nch,
                                                 u32 k, u64* smem, u64* out, u32* more,
                                                 TopkCtl& C) {
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    const GatherShape g = tr_gather_shape(nch, k);
    if (!g.on) return TR_NO_TOKEN;
    const u32 S = g.S, J = g.J, L = g.L, nslots = nch * S;
    const u64* const uni = smem + TR_FUSED_K_MAX;
    const u64* const head = uni + nslots;
    // rt: the key of the head with exactly k - 1 larger ones there (keys are
    // distinct: at most one; none when the head holds fewer than k, and rt
    // stays 0).
    tr_rank_pairs(head, nch * J, [&](u32, u64 v, u32 above) {
        if (v != 0 && above == k - 1) C.rt = v;
    });
    __syncthreads();
    const u64 rt = C.rt;
    tr_phase(7);
    for (u32 f0 = 0; f0 < nslots; f0 += blockDim.x) {
        const u32 f = f0 + threadIdx.x;
        const u64 v = f < nslots ? uni[f] : 0;
        const bool keep = v != 0 && v >= rt;
        tr_gather_append(out, &C.gn, keep, v);
        // The list may hold more keys at or above rt past its first S.
        if (keep && f % S == S - 1 && S < L) more[atomicAdd(&C.nmore, 1u)] = f / S;
    }
    __syncthreads();
    const u32 nmore = C.nmore;
    if (nmore != 0) {
        for (u32 e = warp; e < nmore; e += nwarps) {
            const u32 r = more[e];
            const u32 cn = __ldcg(&pp[r].pad);
            for (u32 j0 = S; j0 < cn; j0 += 32) {
                const u32 j = j0 + lane;
                const u64 v = j < cn ? __ldcg(&lists[(u64)r * TR_FUSED_K_MAX + j]) : 0;
                const bool keep = j < cn && v >= rt;
                tr_gather_append(out, &C.gn, keep, v);
                // Rank order: past the first key below rt (or the end) none is kept.
                if (__ballot_sync(TR_FULL, !keep) != 0) break;
            }
        }
        __syncthreads();
    }
    tr_phase(8);
    const u32 n = C.gn;
    return n <= TR_FUSED_K_MAX ? n : TR_NO_TOKEN;
}

// The last block of a fused row with status 0: merges the chunks' lists,
// applies min-p, top-k and top-p to the row's top k in rank order, races the
// survivors and writes the token.
__device__ void tr_fused_finish(const SampleArgs& A, u32 row, u64* smem, TopkCtl& C,
                                double* s_best_s, u32* s_best_i) {
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    const u32 k = A.top_k[row];
    const double t = A.temperature[row], top_p = A.top_p[row], min_p = A.min_p[row];
    const double a_max = C.a_max;
    const u64* lists = A.cand + (u64)row * A.nchunks * TR_FUSED_K_MAX;
    const Partial* pp = A.partials + (u64)row * A.nchunks;
    u64* const sorted = (u64*)(tr_fused_counts(smem) + 256);
    u64* const kept = sorted + TR_FUSED_K_MAX;  // the block select's keys, unsorted
    // The row's top k, by rank count among the keys >= a threshold that
    // the lists' first slots give (tr_fused_gather_fast), or where that does
    // not apply or keeps too many keys, by block-wide selects.
    if (!TR_FUSED_PRELOAD) {
        tr_fused_gather_load(lists, pp, A.nchunks, k, smem, C, 0);
        __syncthreads();
    }
    u32 m = tr_fused_gather_fast(lists, pp, A.nchunks, k, smem, kept, (u32*)sorted, C);
    if (m == TR_NO_TOKEN) {
        // The row's threshold rt <= its k-th key (0: none); keys at it stay in.
        // Two bounds, by warp 0: the largest of the chunks' k-th keys (lo_key),
        // and from the lists' jq-th keys (lists are in rank order), jq =
        // ceil(k / chunks): when rq = ceil(k / jq) chunks have their jq-th key at
        // or above x, the row has rq * jq >= k keys at or above x, so the rq-th
        // largest of those keys is a bound. On normal(0, 2) logits at B = 1 it
        // leaves ~90 of 64 x 50 list keys at or above rt, where the first alone
        // left ~2,200 (docs/cuda-notes.md, run 12). The jq-th keys go to warp 0's
        // buffer, so the second bound needs chunks <= TR_FUSED_WCAP.
        __syncthreads();
        if (warp == 0) {
            const u32 jq = (k + A.nchunks - 1) / A.nchunks, rq = (k + jq - 1) / jq;
            const bool by_q = A.nchunks <= TR_FUSED_WCAP;
            WarpTopk w0 = tr_warp_topk(smem, k);
            u64 rt = 0;
            u32 nq = 0;
            for (u32 c0 = 0; c0 < A.nchunks; c0 += 32) {
                const u32 c = c0 + lane;
                u64 q = 0;
                if (c < A.nchunks) {
                    const u64 lk = __ldcg(&pp[c].lo_key);
                    const u32 cn = __ldcg(&pp[c].pad);
                    // (the slot holds an older list's key when cn < jq: not used)
                    const u64 qj = __ldcg(&lists[(u64)c * TR_FUSED_K_MAX + jq - 1]);
                    rt = lk > rt ? lk : rt;
                    q = (by_q && cn >= jq) ? qj : 0;
                }
                const u32 bal = __ballot_sync(TR_FULL, q != 0);
                if (q != 0) w0.buf[nq + __popc(bal & ((1u << lane) - 1))] = q;
                nq += __popc(bal);
            }
#pragma unroll
            for (int off = 16; off > 0; off >>= 1) {
                const u64 y = tr_shfl_xor_u64(rt, off);
                rt = y > rt ? y : rt;
            }
            __syncwarp();
            if (nq >= rq) {
                // At or above tq: between rq and rq + 7 of the keys, so at least
                // rq chunks (slack 8: fewer select levels than the exact rq-th).
                const u64 tq = tr_warp_threshold(w0.buf, nq, rq, 8, w0.hist);
                rt = tq > rt ? tq : rt;
            }
            if (lane == 0) {
                C.rt = rt;
                C.thr = 0;
            }
        }
        __syncthreads();
        const u64 rt = C.rt;
        tr_phase(7);
        // Warp w gathers the keys >= rt of chunks w, w + nwarps, ... into its
        // buffer: up to 32 chunks a sweep, their lists read as one run of slots
        // (list r's j-th key at slot r * L + j) so that a lane has eight loads in
        // flight. A buffer about to overflow keeps its own top k (tr_warp_threshold:
        // a key below a warp's k-th is not in the row's top k).
        const u32 slack = tr_fused_slack(k);
        const u32 L = k - 1 + slack;  // no chunk list is longer
        WarpTopk w = tr_warp_topk(smem, k);
        for (u32 s0 = warp; s0 < A.nchunks; s0 += 32 * nwarps) {
            const u32 c_l = s0 + lane * nwarps;  // lane l: the sweep's l-th chunk of this warp
            const u32 cn_l = (c_l < A.nchunks) ? __ldcg(&pp[c_l].pad) : 0;
            const u32 left = (A.nchunks - s0 + nwarps - 1) / nwarps;
            const u32 slots = (left < 32 ? left : 32) * L;
            for (u32 f0 = 0; f0 < slots; f0 += 256) {
                u64 v[8];
#pragma unroll
                for (int q = 0; q < 8; q++) {
                    const u32 f = f0 + q * 32 + lane;
                    const u32 r = f / L, j = f - r * L;
                    const u32 cn = __shfl_sync(TR_FULL, cn_l, r & 31);
                    v[q] = (f < slots && j < cn)
                               ? __ldcg(&lists[(u64)(s0 + r * nwarps) * TR_FUSED_K_MAX + j])
                               : 0;
                }
#pragma unroll
                for (int q = 0; q < 8; q++) {
                    const bool keep = v[q] >= rt && v[q] > w.thr;  // real keys are > 0
                    const u32 bal = __ballot_sync(TR_FULL, keep);
                    if (keep) w.buf[w.n + __popc(bal & ((1u << lane) - 1))] = v[q];
                    w.n += __popc(bal);
                    if (w.n > TR_FUSED_WCAP - 32) {
                        __syncwarp();
                        w.shrink(C);
                    }
                }
            }
        }
        __syncwarp();
        tr_phase(8);
        // The row's top k (and at most slack - 1 more) by one block-wide select.
        const u64 thr = tr_block_threshold(w.buf, w.n, k, slack, tr_fused_counts(smem), C);
        tr_phase(9);
        u64 lo_unused;
        m = tr_block_keep(w.buf, w.n, thr, kept, C, lo_unused);
        tr_phase(10);
    }
    // Sorted by rank (position = number of larger keys), the first k are the
    // top k; with top-p, each also gets its mass (in warp 0's buffer, free
    // since the keep).
    u64* const mass = smem;
    tr_rank_pairs(kept, m, [&](u32, u64 v, u32 r) {
        if (r < k) {
            sorted[r] = v;
            if (top_p < 1.0) mass[r] = tr_top_p_mass((double)tr_funkey((u32)(v >> 32)), a_max, t);
        }
    });
    __syncthreads();
    tr_phase(11);
    if (warp == 0) {
        const u32 n = m < k ? m : k;
        // min-p keeps a prefix (it always keeps the top element); top-k keeps all n.
        u32 n2 = n;
        if (min_p > 0.0) {
            const double mthr = tr_min_p_threshold(t, min_p);
            u32 pass = 0;
            for (u32 j0 = 0; j0 < n; j0 += 32) {
                const u32 j = j0 + lane;
                bool keep = false;
                if (j < n) {
                    const double a = (double)tr_funkey((u32)(sorted[j] >> 32));
                    keep = __dsub_rn(a, a_max) >= mthr;
                }
                pass += __popc(__ballot_sync(TR_FULL, keep));
            }
            n2 = pass;
        }
        // top-p: the first survivor at which the running mass reaches ceil(p * Q).
        // Lane l takes survivors [l * L, l * L + L); one scan gives each lane
        // the mass before its run and Q (sums of at most 256 masses < 2^63).
        u32 n3 = n2;
        if (top_p < 1.0) {
            const u32 L = (n2 + 31) / 32, j0 = lane * L;
            const u32 j1 = j0 + L < n2 ? j0 + L : n2;
            u128 part = 0;
            for (u32 j = j0; j < j1; j++) part += mass[j];
            u128 incl = part;
#pragma unroll
            for (int off = 1; off < 32; off <<= 1) {
                const u128 y = tr_shfl_up_u128(incl, off);
                if (lane >= (u32)off) incl += y;
            }
            const u128 target = tr_top_p_target(top_p, tr_shfl_u128(incl, 31));
            u128 run = incl - part;
            u32 below = 0;
            for (u32 j = j0; j < j1; j++) {
                run += mass[j];
                below += run < target ? 1u : 0u;
            }
            n3 = __reduce_add_sync(TR_FULL, below) + 1;
        }
        if (lane == 0) C.n3 = n3;
    }
    __syncthreads();
    tr_phase(12);
    // The race among the n3 survivors: full noise, ties to the smaller index.
    const u32 n3 = C.n3;
    const u32 profile = A.profile[row];
    const u64 seed = A.seed[row], pos = A.position[row];
    if (profile == TR_PROFILE_EXACT && n3 <= blockDim.x) {
        // One survivor a thread, first by the bounds of its lead (one Philox
        // block): when a single survivor's best score reaches the largest
        // worst score, it is the winner and no ln E is evaluated.
        const u32 tok = tr_fused_race_exact(sorted, n3, t, seed, pos, s_best_s, s_best_i);
        if (threadIdx.x == 0) A.out_token[row] = tok;
        tr_phase(13);
        return;
    }
    double bs = tr_ninf();
    u32 bi = TR_NO_TOKEN;
    for (u32 j = threadIdx.x; j < n3; j += blockDim.x) {
        const u64 v = sorted[j];
        const double a = (double)tr_funkey((u32)(v >> 32));
        const u32 i = ~(u32)v;
        const double s = __fma_rn(-t, tr_ln_variate(profile, seed, pos, i), a);
        if (tr_better(s, i, bs, bi)) {
            bs = s;
            bi = i;
        }
    }
    tr_warp_best(bs, bi);
    if (lane == 0) {
        s_best_s[warp] = bs;
        s_best_i[warp] = bi;
    }
    __syncthreads();
    if (warp == 0) {
        bs = tr_ninf();
        bi = TR_NO_TOKEN;
        if (lane < nwarps) {
            bs = s_best_s[lane];
            bi = s_best_i[lane];
        }
        tr_warp_best(bs, bi);
        if (lane == 0) A.out_token[row] = bi;
    }
    tr_phase(13);
}

// The first pass's record of a row from its combined flags (1: NaN or +inf,
// 2: something above -inf) and maxima: the row state (a_max; need_race for a
// filter row raced in phase 1), the status and the token (greedy and plain
// rows; TR_NO_TOKEN otherwise). A function of its arguments alone, so every
// block that combined the same partials computes the same record
// (kernels/topp.cu, tr_topp_own_max).
__device__ __forceinline__ RowState tr_row_state(u32 flags, double ma, u32 mi, u32 bi, bool greedy,
                                                 bool filt, bool fused, u8& status, u32& token) {
    status = (flags & 1) ? 1 : ((flags & 2) ? 0 : 2);
    RowState st;
    st.a_max = ma;
    st.cut_a = tr_ninf();
    st.cut_index = TR_NO_TOKEN;
    st.need_race = 0;
    st.pad0 = 0;
    st.pad1 = 0;
    token = TR_NO_TOKEN;
    if (status == 0) {
        if (greedy)
            token = mi;
        else if (!filt)
            token = bi;
        else if (!fused)
            st.need_race = 1;
    }
    return st;
}

// The row's outputs from its combined partials (one thread). Fused rows with
// status 0 get their token from tr_fused_finish.
__device__ __forceinline__ void tr_row_result(const SampleArgs& A, u32 row, u32 flags, double ma,
                                              u32 mi, u32 bi, bool greedy, bool filt, bool fused,
                                              TopkCtl& C) {
    if (A.nchunks > 1) A.counters[row] = 0;  // ready for the next launch (graph replays)
    if (A.phase == 1) {
        A.out_token[row] = bi;
        A.out_status[row] = 0;
        return;
    }
    u8 status;
    u32 token;
    const RowState st = tr_row_state(flags, ma, mi, bi, greedy, filt, fused, status, token);
    C.go = (fused && status == 0) ? 1u : 0u;
    C.a_max = ma;
    A.rowstate[row] = st;
    A.out_token[row] = token;
    A.out_status[row] = status;
}

// ---- the pass kernel ----
// 1 (the default): the pass loads the row's parameters in one round trip:
// every load (with the bias kind in the fused builds) comes before any test
// of a loaded value, and the tests do not short-circuit. 0: the tests
// short-circuit, so the loads of top_p, min_p and then seed and position
// each wait for the test before them, four round trips before the first
// read of the logits (SASS of tr_fast_bf16; five in tr_fused_*, whose bias
// kind waits for the top-k test). Measured on the H200 (docs/cuda-notes.md,
// run 16, item 3): plain B = 1 / 8 / 256 / 1024 14.8 / 18.4 / 48.3 / 144.2
// -> 14.2 / 17.6 / 47.1 / 141.5 us, the same build timed again as a control
// 14.5 / 17.9 / 47.8 / 144.3. An L2 prefetch of each thread's first unit
// ahead of these loads made B = 1024 slower (141.5 -> 208.4 us) and is gone.
// The values and tokens are the same either way.
#ifndef TR_PASS_PARAMS_AT_ONCE
#define TR_PASS_PARAMS_AT_ONCE 1
#endif

// 1 (the default): a block that is its row's only chunk and not a fused row
// hands warp 0's reduction to tr_row_result directly; 0: it writes its
// partial, fences and reads it back as the last block of a row of many
// chunks does (the shape before run 20). The same values either way.
// Measured on the H200 (docs/cuda-notes.md, run 20, items 7 and 9): plain
// bf16 B = 256 41.9 -> 40.7 us, B = 1024 116.6 -> 114.1 in one process;
// greedy B = 256 0.966 of the old build's time over two grids each.
#ifndef TR_PASS_LOCAL_COMBINE
#define TR_PASS_LOCAL_COMBINE 1
#endif

// Whether a launch of tr_pass<DT, FAST, FUSED, STAGE, ...> races its block's
// chunk from the staging ring in phase 1, where TR_RACE_PRESTAGE has it stage
// the ring's first steps before the dependency wait: the ring is in this
// build and allocated for the launch, and the row is 16-byte aligned (what
// tr_pass's phase-1 race takes the ring for). al: the row's alignment.
// Builds with the fused path (FUSED) never prestage: their entries do not
// call tr_pass_prestage, so this must be false for them whatever their
// staging (TR_FUSED_STAGED).
template <bool FAST, bool FUSED, bool STAGE>
__device__ __forceinline__ bool tr_prestaged(const SampleArgs& A, bool al) {
    return TR_RACE_PRESTAGE && FAST && !FUSED && STAGE && TR_RACE_STAGES > 0 && A.phase == 1 &&
           A.race_stages != 0 && al;
}
// Before the dependency wait of a tr_pass launch (TR_RACE_PRESTAGE): where
// tr_prestaged, the ring's first D - 1 steps of the block's chunk, as
// tr_race_exact would stage them (the same units, slots and commit groups).
// Reads the call's logits and its host arguments only.
template <int DT, bool FAST, bool FUSED, bool STAGE, bool LEAN>
__device__ __forceinline__ void tr_pass_prestage(const SampleArgs& A) {
    typedef typename Elem<DT>::T ET;
    const u32 row = blockIdx.x / A.nchunks, chunk = blockIdx.x % A.nchunks;
    const ET* xrow = (const ET*)A.logits + (u64)row * A.row_stride;
    const bool al = (((u64)xrow) & 15) == 0;
    if (!tr_prestaged<FAST, FUSED, STAGE>(A, al)) return;
    constexpr int N = TR_UNITS;
    constexpr int D = TR_RACE_STAGES / N;
    constexpr bool RING_ALL = LEAN && TR_RACE_RING_ALL;
    typedef typename UnitIdx<((TR_RACE_I64_DT >> DT) & 1) != 0>::T UT;
    const i64 lo = (i64)chunk * A.chunk_len;
    const i64 hi = (lo + A.chunk_len < (i64)A.vocab) ? lo + A.chunk_len : (i64)A.vocab;
    const u32 warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    const UT unit_lo = (UT)(lo >> 3), unit_hi = (UT)((hi + 7) >> 3);
    const UT step = (UT)nwarps * 32 * N;
    const UT u0 = unit_lo + (UT)warp * 32 * N;
    const UT vocab_units = (UT)(A.vocab >> 3);
    const UT whole_hi = vocab_units < unit_hi ? vocab_units : unit_hi;
    const u32 ring = tr_ring_lane<DT>(A.queue_cap);
    const Raw8 dead = tr_fetch8<DT>(xrow, 0, A.vocab, al, false);
    Raw8 part = dead;
    if (RING_ALL && whole_hi < unit_hi) part = tr_fetch8<DT>(xrow, (i64)whole_hi * 8, A.vocab, al, true);
#pragma unroll
    for (int d = 0; d < D - 1; d++) tr_ring_stage<DT, N, RING_ALL>(xrow, ring, u0 + (UT)d * step, d, whole_hi, part, dead);
}

// FAST: the batch has no bias and every racing row uses the exact profile (the
// host knows from the parameters), so the bias and direct paths are compiled
// out and the hot loop gets the registers. FUSED: the fused top-k path is
// compiled in; the host launches a kernel without it when no row of the
// launch takes that path (phase 1 always), so its code cannot move the
// race's (docs/cuda-notes.md, run 9).
template <int DT, bool FAST, bool FUSED, bool STAGE, bool PILOT, bool PEND = false, bool LEAN = false,
          bool SHORT_TOPK = false, bool WIDE = false>
__device__ void tr_pass(const SampleArgs& A) {
    // The fused chunk's maximum from its list (TR_FUSED_LIST_MAX) in this build.
    constexpr bool LM = TR_FUSED_LIST_MAX && (!WIDE || TR_FUSED_LIST_MAX_WIDE);
    static_assert(!PEND || (DT == 1 && FAST && !FUSED), "PEND: the bf16 race without the fused path");
    typedef typename Elem<DT>::T ET;
    __shared__ u64 s_thr;
    __shared__ u32 s_flags[TR_MAX_WARPS];
    __shared__ double s_max_a[TR_MAX_WARPS], s_best_s[TR_MAX_WARPS];
    __shared__ u32 s_max_i[TR_MAX_WARPS], s_best_i[TR_MAX_WARPS];
    __shared__ bool s_last;

    __shared__ TopkCtl s_ctl;

    const u32 row = blockIdx.x / A.nchunks, chunk = blockIdx.x % A.nchunks;
    const double t = A.temperature[row];
    const u32 top_k = A.top_k[row];
#if TR_PASS_PARAMS_AT_ONCE
    const double top_p = A.top_p[row], min_p = A.min_p[row];
    const u32 profile = A.profile[row];
    const u64 seed = A.seed[row], pos = A.position[row];
    RowState st;
    if (A.phase != 0) st = A.rowstate[row];
    const u8 bias_kind = (FUSED && A.phase == 0) ? A.bias_kind[row] : (u8)TR_BIAS_NONE;
    const bool greedy = (t == 0.0) | (top_k == 1);
    const bool filt = (top_k != 0) | (top_p < 1.0) | (min_p > 0.0);
    const bool fused = FUSED && A.phase == 0 && tr_fused_row_of(A, t, top_k, bias_kind);
#else
    RowState st;
    const bool greedy = (t == 0.0) || top_k == 1;
    const bool filt = top_k != 0 || A.top_p[row] < 1.0 || A.min_p[row] > 0.0;
    const bool fused = FUSED && A.phase == 0 && tr_fused_row(A, row, t, top_k);
#endif
    double cut_a = tr_ninf();
    u32 cut_i = TR_NO_TOKEN;
    bool race;
    if (A.phase == 0) {
        race = !(greedy || filt);
    } else {
#if !TR_PASS_PARAMS_AT_ONCE
        st = A.rowstate[row];
#endif
        if (!st.need_race) {
            // (Copies staged before the wait, tr_pass_prestage, end first.)
            if (TR_RACE_PRESTAGE) tr_cp_wait<0>();
            return;
        }
        race = true;
        cut_a = st.cut_a;
        cut_i = st.cut_index;
    }
    // A pending top-p row (topp.cu, tr_topp_pend): the race takes the
    // elements above v* = st.cut_a (those from the next bf16 value up, every
    // index), lists those of value v*, and tr_pend_finish settles them.
    u32 pend_h2 = 0;
    if (PEND && A.phase == 1 && st.pad0 == 2) {
        const u32 h = __float_as_uint((float)st.cut_a) >> 16;  // v* != 0: a value entry
        pend_h2 = h | (h << 16);
        const u32 up = (h & 0x8000u) ? h - 1 : h + 1;  // toward +inf (v* below +inf)
        cut_a = (double)__uint_as_float(up << 16);
        cut_i = TR_NO_TOKEN;
    }
    const bool pend = PEND && pend_h2 != 0;
    // The warp's region of the row's list (TR_PEND_WORDS): its count, then
    // its entries.
    u32* pend_list = nullptr;
    u32 pend_cap = 0;
    if (pend) {
        // (A multiple of four words, for the finish's 16-byte loads; regions
        // of fewer than four words, which the host never launches, list
        // nothing: tr_pend_finish then reads the row.)
        const u32 nw = blockDim.x >> 5, rw = (TR_PEND_WORDS / (A.nchunks * nw)) & ~3u;
        if (rw >= 4) {
            pend_list = tr_pend_list_at(A.topp, row) + (u64)(chunk * nw + (threadIdx.x >> 5)) * rw + 1;
            pend_cap = rw - 1;
        }
    }
    const ET* xrow = (const ET*)A.logits + (u64)row * A.row_stride;
    const float* brow = tr_bias_row(A, row);
    const bool al = (((u64)xrow) & 15) == 0;
    const bool bal = brow != 0 && (((u64)brow) & 15) == 0;
    const i64 lo = (i64)chunk * A.chunk_len;
    const i64 hi = (lo + A.chunk_len < (i64)A.vocab) ? lo + A.chunk_len : (i64)A.vocab;
#if !TR_PASS_PARAMS_AT_ONCE
    const u32 profile = A.profile[row];
    const u64 seed = A.seed[row], pos = A.position[row];
#endif
    const double neg_t = -t;

    if (threadIdx.x == 0) s_thr = tr_dkey(tr_ninf());
    tr_phase_clear();
    tr_phase(0);
    __syncthreads();

    // The fused top-k buffers alias the race queues (a block uses one or the other).
    u64* const f_smem = tr_dyn_smem_pass();
    u32 list_n = 0;
    u64 list_lo = 0;

    Acc acc = tr_acc_empty();
    if (fused) {
        constexpr int NU = DT == 1 ? TR_TOPK_UNITS_BF16 : TR_TOPK_UNITS;
        constexpr int NU_SHORT = (SHORT_TOPK && DT == 1) ? TR_TOPK_UNITS_BF16_SHORT : NU;
        u64* const list = A.cand + ((u64)row * A.nchunks + chunk) * TR_FUSED_K_MAX;
        // Units of the chunk against those of TR_TOPK_SHORT_STEPS block steps.
        if (NU_SHORT != NU && ((hi + 7) >> 3) - (lo >> 3) <= (i64)TR_TOPK_SHORT_STEPS * blockDim.x)
            tr_scan_topk<DT, NU_SHORT, LM>(xrow, al, A.vocab, lo, hi, top_k, A.nchunks, f_smem, s_ctl,
                                       list, list_n, list_lo, acc);
        else
            tr_scan_topk<DT, NU, LM>(xrow, al, A.vocab, lo, hi, top_k, A.nchunks, f_smem, s_ctl, list,
                                 list_n, list_lo, acc);
    } else if (FAST) {
        // The staging ring where this build has it (RACE_RING, for the scan
        // SCAN_RING), the host allocated it for this launch and the row is
        // 16-byte aligned; other rows load in registers.
        constexpr bool RACE_RING = STAGE && TR_RACE_STAGES > 0;
        constexpr bool SCAN_RING = RACE_RING && ((TR_SCAN_STAGED_DT >> DT) & 1);
        if (!race && SCAN_RING && A.race_stages && al)
            tr_scan<DT, false, SCAN_RING>(xrow, brow, al, bal, A.vocab, lo, hi, A.queue_cap, acc);
        else if (!race)
            tr_scan<DT, false, false>(xrow, brow, al, bal, A.vocab, lo, hi, A.queue_cap, acc);
        else if (RACE_RING && A.race_stages && al)
            tr_race_exact<DT, false, RACE_RING, PILOT, PEND, LEAN>(xrow, brow, al, bal, A.vocab, lo, hi, neg_t,
                                                             seed, pos, cut_a, cut_i, A.queue_cap, &s_thr,
                                                             acc, pend_h2, pend_list, pend_cap,
                                                             tr_prestaged<FAST, FUSED, STAGE>(A, al));
        else
            tr_race_exact<DT, false, false, PILOT, PEND>(xrow, brow, al, bal, A.vocab, lo, hi, neg_t, seed,
                                                         pos, cut_a, cut_i, A.queue_cap, &s_thr, acc,
                                                         pend_h2, pend_list, pend_cap);
    } else if (!race) {
        if (brow)
            tr_scan<DT, true, false>(xrow, brow, al, bal, A.vocab, lo, hi, A.queue_cap, acc);
        else
            tr_scan<DT, false, false>(xrow, brow, al, bal, A.vocab, lo, hi, A.queue_cap, acc);
    } else if (profile == TR_PROFILE_EXACT) {
        if (brow)
            tr_race_exact<DT, true, false, PILOT>(xrow, brow, al, bal, A.vocab, lo, hi, neg_t, seed, pos,
                                           cut_a, cut_i, A.queue_cap, &s_thr, acc);
        else
            tr_race_exact<DT, false, false, PILOT>(xrow, brow, al, bal, A.vocab, lo, hi, neg_t, seed, pos,
                                            cut_a, cut_i, A.queue_cap, &s_thr, acc);
    } else {
        if (brow)
            tr_race_direct_any<DT, true>(xrow, brow, al, bal, A.vocab, lo, hi, neg_t, profile, seed, pos,
                                         cut_a, cut_i, acc);
        else
            tr_race_direct_any<DT, false>(xrow, brow, al, bal, A.vocab, lo, hi, neg_t, profile, seed, pos,
                                          cut_a, cut_i, acc);
    }

    tr_phase(4);
    // Block reduction. A row of one chunk whose row's last block needs no
    // partial (not fused) takes its result from warp 0's reduction itself.
    // With LM a fused chunk's acc is its block's already, and
    // its score none (the finish races).
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    const bool local = TR_PASS_LOCAL_COMBINE && A.nchunks == 1 && !fused;
    const bool quick = LM && fused;
    u32 flags;
    double ma, bs;
    u32 mi, bi;
    if (quick) {
        flags = (acc.bad ? 1u : 0u) | (acc.any ? 2u : 0u);
        ma = acc.max_a;
        mi = acc.max_i;
        bs = tr_ninf();
        bi = TR_NO_TOKEN;
    } else {
        flags = (__any_sync(TR_FULL, acc.bad) ? 1u : 0u) | (__any_sync(TR_FULL, acc.any) ? 2u : 0u);
        ma = acc.max_a;
        mi = acc.max_i;
        tr_warp_best(ma, mi);
        bs = acc.best_s;
        bi = acc.best_i;
        tr_warp_best(bs, bi);
        if (lane == 0) {
            s_flags[warp] = flags;
            s_max_a[warp] = ma;
            s_max_i[warp] = mi;
            s_best_s[warp] = bs;
            s_best_i[warp] = bi;
        }
        __syncthreads();
        if (warp == 0) {
            flags = 0;
            ma = tr_ninf();
            mi = TR_NO_TOKEN;
            bs = tr_ninf();
            bi = TR_NO_TOKEN;
            if (lane < nwarps) {
                flags = s_flags[lane];
                ma = s_max_a[lane];
                mi = s_max_i[lane];
                bs = s_best_s[lane];
                bi = s_best_i[lane];
            }
            flags = __reduce_or_sync(TR_FULL, flags);
            tr_warp_best(ma, mi);
            tr_warp_best(bs, bi);
        }
    }
    // A pending row settled chunk by chunk: this chunk's elements of value v*
    // against the block's best (every thread takes it from slot 0; warp 0
    // has read the slots), before the partial that carries their count.
    // (Preprocessor guards: builds without it compile as before.)
#if TR_PEND_LOCAL
    u32 pl_n = 0, pl_p = 0;
    const bool by_chunk = PEND && pend && !local && tr_pend_by_chunk(A);
    if (by_chunk) {
        if (threadIdx.x == 0) {
            s_best_s[0] = bs;
            s_best_i[0] = bi;
        }
        __syncthreads();
        tr_pend_local(A, row, chunk, st, s_best_s[0], s_best_i[0], neg_t, seed, pos, pl_n, pl_p);
    }
#endif
    if (warp == 0) {
        if (local) {
            if (pend) {
                if (lane == 0) {
                    s_best_s[0] = bs;  // every lane has read the slots (the reductions' shuffles)
                    s_best_i[0] = bi;
                }
            } else if (lane == 0) {
                tr_row_result(A, row, flags, ma, mi, bi, greedy, filt, fused, s_ctl);
            }
        } else if (lane == 0) {
            Partial p;
            p.score = bs;
            p.max_a = ma;
            p.index = bi;
            p.max_index = mi;
            p.flags = flags;
#if TR_PEND_LOCAL
            p.pad = by_chunk ? pl_n : list_n;
            p.lo_key = by_chunk ? (u64)pl_p : list_lo;
#else
            p.pad = list_n;
            p.lo_key = list_lo;
#endif
            A.partials[blockIdx.x] = p;
            if (A.nchunks == 1) {
                s_last = true;
            } else {
                __threadfence();
                u32 prev = atomicAdd(&A.counters[row], 1u);
                s_last = (prev == A.nchunks - 1);
            }
        }
    }
    if (local) {
        if (pend) {
            __syncthreads();
            tr_pend_finish(tr_pend_args(A), row, st, s_best_s[0], s_best_i[0], neg_t, seed, pos, s_best_s,
                       s_best_i);
        }
        tr_phase_print();
        return;
    }
    __syncthreads();
    tr_phase(5);
    if (!s_last) {
        tr_phase_print();
        return;
    }
    // The last block of the row combines the partials (order-free). A fused
    // row's last block reads the first slots of the lists meanwhile, in its
    // other warps (tr_fused_gather_load: for the finish, unused when the
    // row's status is not 0).
    __threadfence();
    if (TR_FUSED_PRELOAD && fused && (nwarps == 1 || warp != 0))
        tr_fused_gather_load(A.cand + (u64)row * A.nchunks * TR_FUSED_K_MAX,
                             A.partials + (u64)row * A.nchunks, A.nchunks, top_k, f_smem, s_ctl,
                             nwarps == 1 ? 0 : 32);
    if (warp == 0) {
        flags = 0;
        ma = tr_ninf();
        mi = TR_NO_TOKEN;
        bs = tr_ninf();
        bi = TR_NO_TOKEN;
        const Partial* pp = A.partials + (u64)row * A.nchunks;
        for (u32 c = lane; c < A.nchunks; c += 32) {
            double s2 = quick ? tr_ninf() : __ldcg(&pp[c].score);
            double m2 = __ldcg(&pp[c].max_a);
            u32 i2 = quick ? TR_NO_TOKEN : __ldcg(&pp[c].index);
            u32 mi2 = __ldcg(&pp[c].max_index);
            flags |= __ldcg(&pp[c].flags);
#if TR_PEND_LOCAL
            if (by_chunk) {
                // The chunks' counts of value v* and of kept scores, for
                // tr_pend_finish_local (the race's queues are used up).
                u32* const s_pc = (u32*)tr_dyn_smem_pass();
                s_pc[c] = __ldcg(&pp[c].pad);
                s_pc[TR_PEND_LOCAL_CHUNKS + c] = (u32)__ldcg(&pp[c].lo_key);
            }
#endif
            if (tr_better(s2, i2, bs, bi)) {
                bs = s2;
                bi = i2;
            }
            if (tr_better(m2, mi2, ma, mi)) {
                ma = m2;
                mi = mi2;
            }
        }
        flags = __reduce_or_sync(TR_FULL, flags);
        tr_warp_best(ma, mi);
        if (!quick) tr_warp_best(bs, bi);
        if (pend) {
            if (lane == 0) {
                s_best_s[0] = bs;
                s_best_i[0] = bi;
            }
        } else if (lane == 0) {
            tr_row_result(A, row, flags, ma, mi, bi, greedy, filt, fused, s_ctl);
        }
    }
    tr_phase(6);
    if (pend) {
        __syncthreads();
#if TR_PEND_LOCAL
        if (by_chunk)
            tr_pend_finish_local(A, row, st, s_best_s[0], s_best_i[0], neg_t, seed, pos, s_best_s, s_best_i);
        else
#endif
            tr_pend_finish(tr_pend_args(A), row, st, s_best_s[0], s_best_i[0], neg_t, seed, pos, s_best_s,
                           s_best_i);
        tr_phase_print();
        return;
    }
    if (!fused) {
        tr_phase_print();
        return;
    }
    __syncthreads();
    if (s_ctl.go) tr_fused_finish(A, row, f_smem, s_ctl, s_best_s, s_best_i);
    tr_phase_print();
}

extern "C" __global__ void TR_PASS_BOUNDS tr_pass_f32(const SampleArgs A) { tr_grid_begin(); tr_pass<0, false, true, false, false>(A); }
extern "C" __global__ void TR_PASS_BOUNDS tr_pass_bf16(const SampleArgs A) { tr_grid_begin(); tr_pass<1, false, true, false, false>(A); }
extern "C" __global__ void TR_PASS_BOUNDS tr_pass_f16(const SampleArgs A) { tr_grid_begin(); tr_pass<2, false, true, false, false>(A); }
extern "C" __global__ void TR_FAST_BOUNDS tr_fast_f32(const SampleArgs A) { tr_pass_prestage<0, true, TR_FAST_FUSED, TR_FAST_STAGED, false>(A); tr_grid_begin(); tr_pass<0, true, TR_FAST_FUSED, TR_FAST_STAGED, TR_FAST_PILOT>(A); }
extern "C" __global__ void TR_FAST_BOUNDS tr_fast_bf16(const SampleArgs A) { tr_pass_prestage<1, true, TR_FAST_FUSED, TR_FAST_STAGED, true>(A); tr_grid_begin(); tr_pass<1, true, TR_FAST_FUSED, TR_FAST_STAGED, TR_FAST_PILOT, false, true>(A); }
extern "C" __global__ void TR_FAST_BOUNDS tr_fast_f16(const SampleArgs A) { tr_pass_prestage<2, true, TR_FAST_FUSED, TR_FAST_STAGED, true>(A); tr_grid_begin(); tr_pass<2, true, TR_FAST_FUSED, TR_FAST_STAGED, TR_FAST_PILOT, false, true>(A); }
extern "C" __global__ void TR_FAST_WIDE_BOUNDS tr_fast_wide_f32(const SampleArgs A) { tr_pass_prestage<0, true, TR_FAST_FUSED, TR_FAST_WIDE_STAGED, false>(A); tr_grid_begin(); tr_pass<0, true, TR_FAST_FUSED, TR_FAST_WIDE_STAGED, TR_FAST_WIDE_PILOT>(A); }
extern "C" __global__ void TR_FAST_WIDE_BOUNDS tr_fast_wide_bf16(const SampleArgs A) { tr_pass_prestage<1, true, TR_FAST_FUSED, TR_FAST_WIDE_STAGED, false>(A); tr_grid_begin(); tr_pass<1, true, TR_FAST_FUSED, TR_FAST_WIDE_STAGED, TR_FAST_WIDE_PILOT>(A); }
extern "C" __global__ void TR_FAST_WIDE_BOUNDS tr_fast_wide_f16(const SampleArgs A) { tr_pass_prestage<2, true, TR_FAST_FUSED, TR_FAST_WIDE_STAGED, false>(A); tr_grid_begin(); tr_pass<2, true, TR_FAST_FUSED, TR_FAST_WIDE_STAGED, TR_FAST_WIDE_PILOT>(A); }
extern "C" __global__ void TR_FUSED_BOUNDS tr_fused_f32(const SampleArgs A) { tr_grid_begin(); tr_pass<0, true, true, TR_FUSED_STAGED, false>(A); }
extern "C" __global__ void TR_FUSED_BOUNDS tr_fused_bf16(const SampleArgs A) { tr_grid_begin(); tr_pass<1, true, true, TR_FUSED_STAGED, false, false, false, true>(A); }
extern "C" __global__ void TR_FUSED_BOUNDS tr_fused_f16(const SampleArgs A) { tr_grid_begin(); tr_pass<2, true, true, TR_FUSED_STAGED, false>(A); }
extern "C" __global__ void TR_FUSED_WIDE_BOUNDS tr_fused_wide_f32(const SampleArgs A) { tr_grid_begin(); tr_pass<0, true, true, TR_FUSED_STAGED, false, false, false, false, true>(A); }
extern "C" __global__ void TR_FUSED_WIDE_BOUNDS tr_fused_wide_bf16(const SampleArgs A) { tr_grid_begin(); tr_pass<1, true, true, TR_FUSED_STAGED, false, false, false, false, true>(A); }
extern "C" __global__ void TR_FUSED_WIDE_BOUNDS tr_fused_wide_f16(const SampleArgs A) { tr_grid_begin(); tr_pass<2, true, true, TR_FUSED_STAGED, false, false, false, false, true>(A); }

// ---- sparse bias rows expanded to dense rows ----
extern "C" __global__ void tr_expand_sparse(const SampleArgs A) {
    tr_grid_begin();
    const u32 row = blockIdx.x;
    if (A.bias_kind[row] != TR_BIAS_SPARSE) return;
    float* dst = A.sparse_dense + (u64)A.bias_slot[row] * (u64)A.vocab;
    for (u64 i = threadIdx.x; i < A.vocab; i += blockDim.x) dst[i] = 0.0f;
    __syncthreads();
    const u32 s = A.sparse_offsets[row], e = A.sparse_offsets[row + 1];
    for (u32 j = s + threadIdx.x; j < e; j += blockDim.x) dst[A.sparse_index[j]] = A.sparse_value[j];
}

// ---- the rank-order filters: one block per filter row (spec: SAMPLER.md §4) ----

struct FilterShared {
    u32 cnt[256];
    u64 w_lo[256];
    u64 w_hi[256];
    u64 scratch[TR_MAX_WARPS][32];
    u64 red_lo, red_hi, red_cnt, kmin, kmax, dmin;
    u64 and_rest[2], or_rest[2];  // AND / OR of the key bits under the current digit
    u32 digit, digit_cnt, level;
    u64 prefix_lo, prefix_hi;
    u64 found_key;
    u32 found_index;
};

// Rank key of a: the order key of a + 0.0, so -0.0 and +0.0 (equal in rank
// order, where the index decides) get the same key.
__device__ __forceinline__ u64 tr_rkey(double a) { return tr_dkey(__dadd_rn(a, 0.0)); }

__device__ __forceinline__ void tr_atomic_add128(u64* lo, u64* hi, u128 v) {
    u64 vl = (u64)v, vh = (u64)(v >> 64);
    unsigned long long old = atomicAdd((unsigned long long*)lo, (unsigned long long)vl);
    if ((u64)old + vl < (u64)old) vh += 1;
    if (vh) atomicAdd((unsigned long long*)hi, (unsigned long long)vh);
}

// Calls f(a[8], first index) for every 8-element unit of a row, 16-byte loads
// where aligned; the trip count is warp-uniform (warp collectives allowed in f),
// and positions past the row read as -inf (never survivors).
template <int DT, bool BIAS, class F>
__device__ __forceinline__ void tr_for_units(const typename Elem<DT>::T* row, const float* brow,
                                             u32 vocab, F f) {
    typedef typename AType<BIAS>::T AT;
    const bool al = (((u64)row) & 15) == 0;
    const bool bal = BIAS && ((((u64)brow) & 15) == 0);
    const u64 units = ((u64)vocab + 7) / 8;
    for (u64 u0 = threadIdx.x & ~31u; u0 < units; u0 += blockDim.x) {
        const u64 u = u0 + (threadIdx.x & 31);
        RawA<DT, BIAS> r = tr_fetch_a<DT, BIAS>(row, brow, (i64)u * 8, vocab, al, bal, u < units);
        AT a[8];
        tr_convert_a<DT, BIAS>(r, a);
        f(a, (u32)(u * 8));
    }
}

// The element of the survivors of (cut_a, cut_i) at which the running weight in
// rank order first reaches `target` (weights: 1, or the top-p masses).
// Exact radix selection over the 96-bit key (rank key of a, ~index), 8 bits a
// level; levels whose bits are the same for every remaining element are skipped.
template <int DT, bool BIAS>
__device__ void tr_select(FilterShared& S, const typename Elem<DT>::T* row, const float* brow,
                          u32 vocab, double cut_a, u32 cut_i, bool masses, double a_max, double t,
                          u128 target, u64 kmin, u64 kmax, double& out_a, u32& out_i) {
    typedef typename AType<BIAS>::T AT;
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int common = (kmin == kmax) ? 64 : __clzll((i64)(kmin ^ kmax));
    if (threadIdx.x == 0) {
        int level = common / 8;  // digits of the key known to all survivors
        u128 prefix = (level == 0) ? (u128)0 : (u128)(kmin >> (64 - 8 * level));
        S.level = (u32)level;
        S.prefix_lo = (u64)prefix;
        S.prefix_hi = (u64)(prefix >> 64);
        S.digit_cnt = 2;
    }
    u128 rem = target;  // meaningful in thread 0, the only reader
    __syncthreads();
    while (true) {
        const int level = (int)S.level;
        const u128 prefix = ((u128)S.prefix_hi << 64) | (u128)S.prefix_lo;
        if (level == 12) {
            out_a = tr_dunkey((u64)(prefix >> 32));
            out_i = ~(u32)prefix;
            return;
        }
        if (S.digit_cnt == 1) {
            // One element left under the prefix: find it.
            const int sh = 96 - 8 * level;
            tr_for_units<DT, BIAS>(row, brow, vocab, [&](const AT a[8], u32 ib) {
#pragma unroll
                for (int k = 0; k < 8; k++) {
                    double av = (double)a[k];
                    if (av > tr_ninf() && tr_keeps(av, ib + k, cut_a, cut_i)) {
                        u128 key = (((u128)tr_rkey(av)) << 32) | (u128)(~(ib + k));
                        if ((key >> sh) == prefix) {
                            S.found_key = tr_rkey(av);
                            S.found_index = ib + k;
                        }
                    }
                }
            });
            __syncthreads();
            out_a = tr_dunkey(S.found_key);
            out_i = S.found_index;
            return;
        }
        for (u32 d = threadIdx.x; d < 256; d += blockDim.x) {
            S.cnt[d] = 0;
            S.w_lo[d] = 0;
            S.w_hi[d] = 0;
        }
        if (threadIdx.x == 0) {
            S.and_rest[0] = ~0ULL;
            S.and_rest[1] = ~0ULL;
            S.or_rest[0] = 0;
            S.or_rest[1] = 0;
        }
        __syncthreads();
        const int shift = 88 - 8 * level;
        const u128 rest_mask = (((u128)1) << shift) - 1;
        u128 and_r = ~(u128)0, or_r = 0;
        tr_for_units<DT, BIAS>(row, brow, vocab, [&](const AT a[8], u32 ib) {
#pragma unroll
            for (int k = 0; k < 8; k++) {
                double av = (double)a[k];
                bool part = false;
                u32 d = 0;
                u64 w = 0;
                if (av > tr_ninf() && tr_keeps(av, ib + k, cut_a, cut_i)) {
                    u128 key = (((u128)tr_rkey(av)) << 32) | (u128)(~(ib + k));
                    if ((key >> (shift + 8)) == prefix) {
                        part = true;
                        d = (u32)(key >> shift) & 255u;
                        and_r &= key & rest_mask;
                        or_r |= key & rest_mask;
                        if (masses) w = tr_top_p_mass(av, a_max, t);
                    }
                }
                if (!__any_sync(TR_FULL, part)) continue;
                // Warp aggregation: lanes with the same digit add once.
                u32 grp = __match_any_sync(TR_FULL, part ? d : (256u + lane));
                bool leader = part && lane == (u32)(__ffs(grp) - 1);
                if (!masses) {
                    if (leader) atomicAdd(&S.cnt[d], (u32)__popc(grp));
                } else {
                    S.scratch[warp][lane] = w;
                    __syncwarp();
                    if (leader) {
                        u128 sum = 0;
                        u32 m = grp;
                        while (m) {
                            int l = __ffs(m) - 1;
                            m &= m - 1;
                            sum += S.scratch[warp][l];
                        }
                        atomicAdd(&S.cnt[d], (u32)__popc(grp));
                        tr_atomic_add128(&S.w_lo[d], &S.w_hi[d], sum);
                    }
                    __syncwarp();
                }
            }
        });
        {
            u64 al = (u64)and_r, ah = (u64)(and_r >> 64), ol = (u64)or_r, oh = (u64)(or_r >> 64);
            atomicAnd((unsigned long long*)&S.and_rest[0], (unsigned long long)al);
            atomicAnd((unsigned long long*)&S.and_rest[1], (unsigned long long)ah);
            atomicOr((unsigned long long*)&S.or_rest[0], (unsigned long long)ol);
            atomicOr((unsigned long long*)&S.or_rest[1], (unsigned long long)oh);
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            u128 before = 0;
            int chosen = -1;
            for (int d = 255; d >= 0; d--) {
                u128 wd = masses ? (((u128)S.w_hi[d] << 64) | (u128)S.w_lo[d]) : (u128)S.cnt[d];
                if (wd != 0 && rem <= before + wd) {
                    chosen = d;
                    break;
                }
                before += wd;
            }
            // The invariant (0 < rem <= weight under the prefix) makes chosen >= 0.
            if (chosen < 0) chosen = 0;
            rem -= before;
            u128 p = (prefix << 8) | (u128)(u32)chosen;
            int lv = level + 1;
            // Skip digits that every remaining element shares.
            const u128 and_all = ((u128)S.and_rest[1] << 64) | (u128)S.and_rest[0];
            const u128 or_all = ((u128)S.or_rest[1] << 64) | (u128)S.or_rest[0];
            while (lv < 12) {
                const int sh = 88 - 8 * lv;
                if ((((and_all ^ or_all) >> sh) & 255) != 0) break;
                p = (p << 8) | ((and_all >> sh) & 255);
                lv++;
            }
            S.level = (u32)lv;
            S.prefix_lo = (u64)p;
            S.prefix_hi = (u64)(p >> 64);
            S.digit_cnt = S.cnt[chosen];
        }
        __syncthreads();
    }
}

__device__ __forceinline__ void tr_tighter(double& ca, u32& ci, double oa, u32 oi) {
    if (oa > ca || (oa == ca && oi < ci)) {
        ca = oa;
        ci = oi;
    }
}

template <int DT, bool BIAS>
__device__ void tr_filter_row(FilterShared& S, const SampleArgs& A, u32 row, const RowState& st,
                              const float* brow) {
    typedef typename Elem<DT>::T ET;
    typedef typename AType<BIAS>::T AT;
    const double t = A.temperature[row];
    const u32 top_k = A.top_k[row];
    const double top_p = A.top_p[row], min_p = A.min_p[row];
    const ET* xrow = (const ET*)A.logits + (u64)row * A.row_stride;
    const u32 vocab = A.vocab;
    const double a_max = st.a_max;
    double cut_a = tr_ninf();
    u32 cut_i = TR_NO_TOKEN;

    if (min_p > 0.0) {
        const double thr = tr_min_p_threshold(t, min_p);
        if (threadIdx.x == 0) S.dmin = tr_dkey(a_max);
        __syncthreads();
        double lowest = a_max;
        tr_for_units<DT, BIAS>(xrow, brow, vocab, [&](const AT a[8], u32) {
#pragma unroll
            for (int k = 0; k < 8; k++) {
                double av = (double)a[k];
                if (av > tr_ninf() && __dsub_rn(av, a_max) >= thr && av < lowest) lowest = av;
            }
        });
        atomicMin((unsigned long long*)&S.dmin, (unsigned long long)tr_dkey(lowest));
        __syncthreads();
        tr_tighter(cut_a, cut_i, tr_dunkey(S.dmin), TR_NO_TOKEN);
        __syncthreads();
    }
    for (int stage = 0; stage < 2; stage++) {
        const bool masses = stage == 1;
        if (stage == 0 && top_k == 0) continue;
        if (stage == 1 && !(top_p < 1.0)) continue;
        // Count, total mass and key range of the current survivors.
        if (threadIdx.x == 0) {
            S.red_lo = 0;
            S.red_hi = 0;
            S.red_cnt = 0;
            S.kmin = ~0ULL;
            S.kmax = 0;
        }
        __syncthreads();
        u64 cnt = 0;
        u128 tot = 0;
        u64 kmn = ~0ULL, kmx = 0;
        tr_for_units<DT, BIAS>(xrow, brow, vocab, [&](const AT a[8], u32 ib) {
#pragma unroll
            for (int k = 0; k < 8; k++) {
                double av = (double)a[k];
                if (av > tr_ninf() && tr_keeps(av, ib + k, cut_a, cut_i)) {
                    cnt++;
                    if (masses) tot += tr_top_p_mass(av, a_max, t);
                    u64 key = tr_rkey(av);
                    kmn = key < kmn ? key : kmn;
                    kmx = key > kmx ? key : kmx;
                }
            }
        });
        atomicAdd((unsigned long long*)&S.red_cnt, (unsigned long long)cnt);
        if (masses) tr_atomic_add128(&S.red_lo, &S.red_hi, tot);
        atomicMin((unsigned long long*)&S.kmin, (unsigned long long)kmn);
        atomicMax((unsigned long long*)&S.kmax, (unsigned long long)kmx);
        __syncthreads();
        const u64 n = S.red_cnt;
        const u128 total = ((u128)S.red_hi << 64) | (u128)S.red_lo;
        const u64 kmin = S.kmin, kmax = S.kmax;
        __syncthreads();
        u128 target;
        if (!masses) {
            if (n <= (u64)top_k) continue;  // top-k keeps them all
            target = top_k;
        } else {
            target = tr_top_p_target(top_p, total);
        }
        double ea;
        u32 ei;
        tr_select<DT, BIAS>(S, xrow, brow, vocab, cut_a, cut_i, masses, a_max, t, target, kmin, kmax,
                            ea, ei);
        tr_tighter(cut_a, cut_i, ea, ei);
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        A.rowstate[row].cut_a = cut_a;
        A.rowstate[row].cut_index = cut_i;
    }
}

template <int DT>
__device__ void tr_filter(const SampleArgs& A) {
    __shared__ FilterShared S;
    const u32 row = blockIdx.x;
    RowState st = A.rowstate[row];
    if (!st.need_race || st.pad0 != 0) return;  // the top-p kernels took the row
    const float* brow = tr_bias_row(A, row);
    if (brow)
        tr_filter_row<DT, true>(S, A, row, st, brow);
    else
        tr_filter_row<DT, false>(S, A, row, st, brow);
}

extern "C" __global__ void __launch_bounds__(512) tr_filter_f32(const SampleArgs A) { tr_grid_begin(); tr_filter<0>(A); }
extern "C" __global__ void __launch_bounds__(512) tr_filter_bf16(const SampleArgs A) { tr_grid_begin(); tr_filter<1>(A); }
extern "C" __global__ void __launch_bounds__(512) tr_filter_f16(const SampleArgs A) { tr_grid_begin(); tr_filter<2>(A); }
