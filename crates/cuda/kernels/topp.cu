// Top-p without top-k, many blocks per row (spec: SAMPLER.md §4.4;
// docs/cuda-notes.md, run 5). Four kernels between the first pass (which
// found a_max) and the race of the second pass:
//
//  1. tr_topp_hist: every chunk adds the fixed-point masses of its min-p
//     survivors into a per-row histogram of TR_TOPP_BINS bins over
//     (a_max - a) / T in [0, 44) (exact u128 sums, integer atomics).
//  2. tr_topp_select: the row's total Q, the target ceil(p * Q), the bin b*
//     where the running mass (bins in rank order) reaches it and the mass r
//     still needed inside it. Resets the histogram.
//  3. tr_topp_gather: every element of bin b* (rank key and mass) into a
//     per-row list.
//  4. tr_topp_cut: sorts the list by rank and walks it to the element where
//     the running mass reaches r: the cut, as the filter kernel would find it.
//
// The bin function is monotone in a (ties share a bin), so bins are
// contiguous pieces of the rank order and the cut lies in b*. Elements with
// zero mass never reach a target and are left out, as in the CPU model. A
// row whose bin b* holds more than TR_TOPP_CAP elements (heavy ties) goes to
// the filter kernel instead (RowState::pad0 stays 0).

#ifndef TR_TOPP_BINS
#define TR_TOPP_BINS 1024u
#endif
#ifndef TR_TOPP_CAP
#define TR_TOPP_CAP 2048u
#endif

struct ToppRow {
    u64 r_lo, r_hi;  // mass still needed inside bin b*
    u32 bstar;
    u32 count;       // elements gathered from bin b*
    u32 active;      // 1 between select and cut
    u32 pad;
};
struct ToppBin {
    u64 lo, hi;  // mass sum
    u32 cnt;
    u32 pad;
};

__device__ __forceinline__ bool tr_topp_row(const SampleArgs& A, u32 row) {
    return A.topp_on != 0 && A.temperature[row] != 0.0 && A.top_k[row] == 0 &&
           A.top_p[row] < 1.0 && A.bias_kind[row] == TR_BIAS_NONE;
}
// The workspace holds one record per row, at a place that depends on the row
// alone (never on the batch size: a row's histogram must be the zeroed one
// the previous call left, whatever its shape): its ToppRow, its histogram,
// its bin list.
#define TR_TOPP_ROW_U64 (4 + TR_TOPP_BINS * 3 + TR_TOPP_CAP * 2)
__device__ __forceinline__ ToppRow* tr_topp_state(const SampleArgs& A, u32 row) {
    return (ToppRow*)(A.topp + (u64)row * TR_TOPP_ROW_U64);
}
__device__ __forceinline__ ToppBin* tr_topp_bins(const SampleArgs& A, u32 row) {
    return (ToppBin*)(A.topp + (u64)row * TR_TOPP_ROW_U64 + 4);
}
__device__ __forceinline__ u64* tr_topp_list(const SampleArgs& A, u32 row) {
    return A.topp + (u64)row * TR_TOPP_ROW_U64 + 4 + TR_TOPP_BINS * 3;
}

// The bin of a (a <= a_max): monotone non-increasing in a; TR_TOPP_BINS means
// (a_max - a) / T >= 44 up to rounding, where the mass is 0 for sure.
__device__ __forceinline__ u32 tr_topp_bin(double a, double a_max, double scale) {
    const double d = __dsub_rn(a_max, a);
    if (d == 0.0) return 0;
    const double z = __dmul_rn(d, scale);
    return z < (double)TR_TOPP_BINS ? (u32)z : TR_TOPP_BINS;
}

__device__ __forceinline__ double tr_topp_scale(double t) {
    return __ddiv_rn((double)TR_TOPP_BINS, __dmul_rn(44.0, t));
}

// Whether a top-p row of this batch runs the binned path now.
__device__ __forceinline__ bool tr_topp_live(const SampleArgs& A, u32 row, RowState& st) {
    if (!tr_topp_row(A, row)) return false;
    st = A.rowstate[row];
    return st.need_race != 0;
}

template <int DT>
__device__ void tr_topp_hist(const SampleArgs& A) {
    typedef typename Elem<DT>::T ET;
    __shared__ u32 h_cnt[TR_TOPP_BINS];
    __shared__ u64 h_lo[TR_TOPP_BINS], h_hi[TR_TOPP_BINS];
    const u32 row = blockIdx.x / A.nchunks, chunk = blockIdx.x % A.nchunks;
    RowState st;
    if (!tr_topp_live(A, row, st)) return;
    const double t = A.temperature[row], min_p = A.min_p[row];
    const double a_max = st.a_max, scale = tr_topp_scale(t);
    const double mthr = min_p > 0.0 ? tr_min_p_threshold(t, min_p) : 0.0;
    for (u32 b = threadIdx.x; b < TR_TOPP_BINS; b += blockDim.x) {
        h_cnt[b] = 0;
        h_lo[b] = 0;
        h_hi[b] = 0;
    }
    __syncthreads();
    const ET* xrow = (const ET*)A.logits + (u64)row * A.row_stride;
    const bool al = (((u64)xrow) & 15) == 0;
    const i64 lo = (i64)chunk * A.chunk_len;
    const i64 hi = (lo + A.chunk_len < (i64)A.vocab) ? lo + A.chunk_len : (i64)A.vocab;
    for (i64 u = (lo >> 3) + threadIdx.x; u < ((hi + 7) >> 3); u += blockDim.x) {
        float x[8];
        tr_convert8<DT>(tr_fetch8<DT>(xrow, u * 8, A.vocab, al, true), x);
#pragma unroll
        for (int q = 0; q < 8; q++) {
            if (!(x[q] > tr_fninf())) continue;
            const double a = (double)x[q];
            if (min_p > 0.0 && !(__dsub_rn(a, a_max) >= mthr)) continue;
            const u32 b = tr_topp_bin(a, a_max, scale);
            if (b >= TR_TOPP_BINS) continue;
            const u64 m = tr_top_p_mass(a, a_max, t);
            if (m == 0) continue;
            atomicAdd(&h_cnt[b], 1u);
            tr_atomic_add128(&h_lo[b], &h_hi[b], (u128)m);
        }
    }
    __syncthreads();
    ToppBin* bins = tr_topp_bins(A, row);
    for (u32 b = threadIdx.x; b < TR_TOPP_BINS; b += blockDim.x) {
        if (h_cnt[b] == 0) continue;
        atomicAdd(&bins[b].cnt, h_cnt[b]);
        tr_atomic_add128(&bins[b].lo, &bins[b].hi, ((u128)h_hi[b] << 64) | (u128)h_lo[b]);
    }
}

// u128 inclusive scan over a warp (lane order).
__device__ __forceinline__ u128 tr_warp_scan_u128(u128 v) {
    const u32 lane = threadIdx.x & 31;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
        const u64 ylo = __shfl_up_sync(TR_FULL, (unsigned long long)(u64)v, off);
        const u64 yhi = __shfl_up_sync(TR_FULL, (unsigned long long)(u64)(v >> 64), off);
        if (lane >= (u32)off) v += ((u128)yhi << 64) | (u128)ylo;
    }
    return v;
}

__device__ void tr_topp_select(const SampleArgs& A) {
    const u32 row = blockIdx.x, lane = threadIdx.x & 31;
    RowState st;
    if (!tr_topp_live(A, row, st)) return;
    ToppBin* bins = tr_topp_bins(A, row);
    constexpr u32 PER = TR_TOPP_BINS / 32;
    if (threadIdx.x < 32) {
        // Lane l: bins [PER l, PER (l + 1)), in rank order.
        u128 sum = 0;
        for (u32 q = 0; q < PER; q++) {
            const ToppBin& bn = bins[lane * PER + q];
            sum += ((u128)bn.hi << 64) | (u128)bn.lo;
        }
        const u128 incl = tr_warp_scan_u128(sum);
        const u128 total = ((u128)__shfl_sync(TR_FULL, (unsigned long long)(u64)(incl >> 64), 31) << 64) |
                           (u128)__shfl_sync(TR_FULL, (unsigned long long)(u64)incl, 31);
        const u128 target = tr_top_p_target(A.top_p[row], total);
        const u128 excl = incl - sum;
        if (excl < target && incl >= target) {
            u128 before = excl;
            for (u32 q = 0; q < PER; q++) {
                const ToppBin& bn = bins[lane * PER + q];
                const u128 m = ((u128)bn.hi << 64) | (u128)bn.lo;
                if (before + m >= target) {
                    ToppRow R;
                    const u128 r = target - before;
                    R.r_lo = (u64)r;
                    R.r_hi = (u64)(r >> 64);
                    R.bstar = lane * PER + q;
                    R.count = 0;
                    R.active = 1;
                    R.pad = 0;
                    *tr_topp_state(A, row) = R;
                    break;
                }
                before += m;
            }
        }
    }
    __syncthreads();
    // Ready for the next call (graph replays included).
    for (u32 b = threadIdx.x; b < TR_TOPP_BINS; b += blockDim.x) {
        bins[b].lo = 0;
        bins[b].hi = 0;
        bins[b].cnt = 0;
    }
}

template <int DT>
__device__ void tr_topp_gather(const SampleArgs& A) {
    typedef typename Elem<DT>::T ET;
    const u32 row = blockIdx.x / A.nchunks, chunk = blockIdx.x % A.nchunks;
    RowState st;
    if (!tr_topp_live(A, row, st)) return;
    ToppRow* R = tr_topp_state(A, row);
    if (!R->active) return;
    const u32 bstar = R->bstar;
    const double t = A.temperature[row], min_p = A.min_p[row];
    const double a_max = st.a_max, scale = tr_topp_scale(t);
    const double mthr = min_p > 0.0 ? tr_min_p_threshold(t, min_p) : 0.0;
    u64* list = tr_topp_list(A, row);
    const ET* xrow = (const ET*)A.logits + (u64)row * A.row_stride;
    const bool al = (((u64)xrow) & 15) == 0;
    const i64 lo = (i64)chunk * A.chunk_len;
    const i64 hi = (lo + A.chunk_len < (i64)A.vocab) ? lo + A.chunk_len : (i64)A.vocab;
    for (i64 u = (lo >> 3) + threadIdx.x; u < ((hi + 7) >> 3); u += blockDim.x) {
        float x[8];
        tr_convert8<DT>(tr_fetch8<DT>(xrow, u * 8, A.vocab, al, true), x);
#pragma unroll
        for (int q = 0; q < 8; q++) {
            if (!(x[q] > tr_fninf())) continue;
            const double a = (double)x[q];
            if (min_p > 0.0 && !(__dsub_rn(a, a_max) >= mthr)) continue;
            if (tr_topp_bin(a, a_max, scale) != bstar) continue;
            const u32 i = (u32)(u * 8 + q);
            const u32 slot = atomicAdd(&R->count, 1u);
            if (slot < TR_TOPP_CAP) {
                list[2 * slot] = ((u64)tr_fkey(__fadd_rn(x[q], 0.0f)) << 32) | (u64)(~i);
                list[2 * slot + 1] = tr_top_p_mass(a, a_max, t);
            }
        }
    }
}

__device__ void tr_topp_cut(const SampleArgs& A) {
    __shared__ u64 key[TR_TOPP_CAP], mass[TR_TOPP_CAP];
    __shared__ u32 s_found;
    if (threadIdx.x == 0) s_found = TR_NO_TOKEN;
    const u32 row = blockIdx.x, lane = threadIdx.x & 31;
    RowState st;
    if (!tr_topp_live(A, row, st)) return;
    ToppRow* R = tr_topp_state(A, row);
    if (!R->active) return;
    const u32 n = R->count;
    const u128 r = ((u128)R->r_hi << 64) | (u128)R->r_lo;
    __syncthreads();
    if (threadIdx.x == 0) {
        R->count = 0;  // ready for the next call
        R->active = 0;
    }
    if (n > TR_TOPP_CAP) return;  // the filter kernel takes the row (pad0 stays 0)
    u32 p2 = 1;
    while (p2 < n) p2 <<= 1;
    const u64* list = tr_topp_list(A, row);
    for (u32 j = threadIdx.x; j < p2; j += blockDim.x) {
        key[j] = j < n ? list[2 * j] : 0;
        mass[j] = j < n ? list[2 * j + 1] : 0;
    }
    __syncthreads();
    // Bitonic sort, descending keys (distinct; the padding 0 sorts last).
    for (u32 size = 2; size <= p2; size <<= 1) {
        for (u32 stride = size >> 1; stride > 0; stride >>= 1) {
            for (u32 j = threadIdx.x; j < p2; j += blockDim.x) {
                const u32 o = j ^ stride;
                if (o > j) {
                    const bool desc = (j & size) == 0;
                    const u64 kj = key[j], ko = key[o];
                    if (desc ? (kj < ko) : (kj > ko)) {
                        key[j] = ko;
                        key[o] = kj;
                        const u64 mj = mass[j];
                        mass[j] = mass[o];
                        mass[o] = mj;
                    }
                }
            }
            __syncthreads();
        }
    }
    // The first position where the running mass reaches r.
    if (threadIdx.x < 32) {
        const u32 per = (n + 31) / 32;
        u128 sum = 0;
        for (u32 q = 0; q < per; q++) {
            const u32 j = lane * per + q;
            if (j < n) sum += mass[j];
        }
        const u128 incl = tr_warp_scan_u128(sum);
        const u128 excl = incl - sum;
        if (excl < r && incl >= r) {
            u128 before = excl;
            for (u32 q = 0; q < per; q++) {
                const u32 j = lane * per + q;
                before += mass[j];
                if (before >= r) {
                    s_found = j;
                    break;
                }
            }
        }
    }
    __syncthreads();
    // The bin's masses always reach r (they are the masses select summed);
    // should they not, the filter kernel takes the row.
    if (threadIdx.x == 0 && s_found != TR_NO_TOKEN) {
        const u64 k = key[s_found];
        A.rowstate[row].cut_a = (double)tr_funkey((u32)(k >> 32));
        A.rowstate[row].cut_index = ~(u32)k;
        A.rowstate[row].pad0 = 1;  // cut found: the filter kernel skips the row
    }
}

extern "C" __global__ void tr_topp_hist_f32(const SampleArgs A) { tr_topp_hist<0>(A); }
extern "C" __global__ void tr_topp_hist_bf16(const SampleArgs A) { tr_topp_hist<1>(A); }
extern "C" __global__ void tr_topp_hist_f16(const SampleArgs A) { tr_topp_hist<2>(A); }
extern "C" __global__ void tr_topp_select_k(const SampleArgs A) { tr_topp_select(A); }
extern "C" __global__ void tr_topp_gather_f32(const SampleArgs A) { tr_topp_gather<0>(A); }
extern "C" __global__ void tr_topp_gather_bf16(const SampleArgs A) { tr_topp_gather<1>(A); }
extern "C" __global__ void tr_topp_gather_f16(const SampleArgs A) { tr_topp_gather<2>(A); }
extern "C" __global__ void __launch_bounds__(512) tr_topp_cut_k(const SampleArgs A) { tr_topp_cut(A); }
