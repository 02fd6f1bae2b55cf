// Top-p without top-k, many blocks per row (spec: SAMPLER.md §4.4;
// docs/cuda-notes.md, runs 5 and 6). Two kernels between the first pass
// (which found a_max) and the race of the second pass:
//
//  1. tr_topp_hist: every chunk adds the masses of its min-p survivors into a
//     per-row histogram; the row's last chunk block then finds the row's
//     total Q, the target ceil(p * Q), the bin b* where the running mass (bins
//     in rank order) reaches it and the mass r still needed inside it, and
//     resets the histogram. (A bf16 row whose blocks run as one cluster, in
//     a batch without a first pass, selects in distributed shared memory
//     instead: tr_topp_cluster_select.)
//  2. tr_topp_gather: every element of bin b* (rank key and mass) into a
//     per-row list; the row's last chunk block sorts the list by rank and
//     walks it to the element where the running mass reaches r: the cut, as
//     the filter kernel would find it.
//
// Bins. bf16 rows bin by value: one bin per bf16 value in [a_max - 45 T,
// a_max] (a "value entry"), plus one "middle" bin for |a| < Z (Z = 2^-8, or
// larger where the row would need more than TR_TOPP_VALUES entries). Equal
// values have equal masses, so a chunk only counts the elements of a value
// entry, and the last block adds count * mass(value) exactly: the binary64
// mass (a division and an exp) is computed once per value, not per element.
// Middle elements (tiny magnitudes, all distinct masses) add their masses one
// by one. f32 and f16 rows (too many values to count) bin by
// (a_max - a) / T over [0, 44) in TR_TOPP_BINS bins and add every element's
// mass (exact u128 sums, integer atomics).
//
// Every bin function is monotone in a (ties share a bin), so bins are
// contiguous pieces of the rank order and the cut lies in b*. Elements with
// zero mass never reach a target and are left out, as in the CPU model. A row
// whose bin b* holds more than TR_TOPP_CAP elements (heavy ties) goes to the
// filter kernel instead (RowState::pad0 stays 0).

#ifndef TR_TOPP_BINS
#define TR_TOPP_BINS 1024u
#endif
#ifndef TR_TOPP_CAP
#define TR_TOPP_CAP 2048u
#endif
#ifndef TR_TOPP_VALUES
#define TR_TOPP_VALUES 4096u
#endif
// The histogram area of a row's record: an f32/f16 row's bins, or in the same
// place a bf16 row's value counts (u32; both are all zero between calls),
// then a bf16 row's value masses (u64; written before they are read in every
// call, so they must not overlap the bins a later f32/f16 call expects zeroed).
#define TR_TOPP_HIST_U64 (TR_TOPP_BINS * 3 + TR_TOPP_VALUES)
static_assert(TR_TOPP_VALUES / 2 <= TR_TOPP_BINS * 3, "value counts must fit the bin area");
#define TR_TOPP_NONE 0xffffffffu
// Middle-bin elements a chunk block lists in shared memory.
#ifndef TR_TOPP_MIDCAP
#define TR_TOPP_MIDCAP 1024u
#endif
// 1: a bf16 histogram block of a row of one chunk (B >= 265 on an H200 at
// V = 131072) counts its chunk in segments (A.topp_seg_units), so that the
// gather reads the segment holding the cut; 0: one segment (the gather
// reads the row; a tuning variant, the same cut).
#ifndef TR_TOPP_SEGS
#define TR_TOPP_SEGS 1
#endif

struct ToppRow {
    u64 r_lo, r_hi;      // mass still needed inside bin b*
    u64 mid_lo, mid_hi;  // bf16 rows: the middle bin's summed masses
    u32 bstar;
    u32 count;           // elements gathered from bin b*
    u32 active;          // 1 between the select and the cut
    u32 arrive_hist;     // chunk blocks of the row done with the histogram
    u32 arrive_gather;   // ... with the gather
    u32 loc_lo, loc_hi;  // bf16 rows: the units [loc_lo, loc_hi) where the cut lies
                         // (a chunk, or a segment of a row of one chunk); loc_hi = 0:
                         // every chunk is gathered
    u32 pad;
};
static_assert(sizeof(ToppRow) == 64, "ToppRow is the record's 8-word header");
struct ToppBin {
    u64 lo, hi;  // mass sum
    u64 pad;
};

__device__ __forceinline__ bool tr_topp_row(const SampleArgs& A, u32 row) {
    return A.topp_on != 0 && A.temperature[row] != 0.0 && A.top_k[row] == 0 &&
           A.top_p[row] < 1.0 && A.bias_kind[row] == TR_BIAS_NONE;
}
// The workspace holds one record per row, at a place that depends on the row
// alone (never on the batch size: a row's histogram must be the zeroed one
// the previous call left, whatever its shape): its ToppRow, its histogram
// (bins, or a bf16 row's value counts), its bin list.
#define TR_TOPP_ROW_U64 (8 + TR_TOPP_HIST_U64 + TR_TOPP_CAP * 2)
__device__ __forceinline__ ToppRow* tr_topp_state(const SampleArgs& A, u32 row) {
    return (ToppRow*)(A.topp + (u64)row * TR_TOPP_ROW_U64);
}
__device__ __forceinline__ ToppBin* tr_topp_bins(const SampleArgs& A, u32 row) {
    return (ToppBin*)(A.topp + (u64)row * TR_TOPP_ROW_U64 + 8);
}
__device__ __forceinline__ u32* tr_topp_counts(const SampleArgs& A, u32 row) {
    return (u32*)(A.topp + (u64)row * TR_TOPP_ROW_U64 + 8);
}
__device__ __forceinline__ u64* tr_topp_masses(const SampleArgs& A, u32 row) {
    return A.topp + (u64)row * TR_TOPP_ROW_U64 + 8 + TR_TOPP_BINS * 3;
}
__device__ __forceinline__ u64* tr_topp_list(const SampleArgs& A, u32 row) {
    return A.topp + (u64)row * TR_TOPP_ROW_U64 + 8 + TR_TOPP_HIST_U64;
}

// 2: the f32/f16 histogram's element loop evaluates each element's mass
// in tr_topp_hist_float (tr_top_p_mass_exp: the exp inlined without the
// special cases its elements never reach, its constants from the constant
// bank; no branch but the one around the shared additions); 1: with the
// exp inlined (tr_top_p_mass_inline), 0: as a call, both in the loop of
// early returns (tuning variants; the same counts and masses).
#ifndef TR_TOPP_MASS_INLINE
#define TR_TOPP_MASS_INLINE 2
#endif
// 1: an f32/f16 histogram block whose chunk holds at most 2^16 elements
// sums a bin's masses as four 32-bit sums of their 16-bit pieces (native
// 32-bit shared additions whose old values are not needed; no sum can
// wrap); 0, or a longer chunk: one 128-bit sum a bin, whose 64-bit shared
// addition sm_90 compiles to a compare-and-swap loop (ATOMS.CAST.SPIN.64)
// and whose low word's old value decides a carry (a tuning variant; the
// same sums). H200, run 29: f32 top-p 0.9 at B = 256 486 -> 446 us, f16
// 461 -> 414; B = 1024 (chunks of 131072) 1679 -> 1724.
#ifndef TR_TOPP_SUM16
#define TR_TOPP_SUM16 1
#endif
// With TR_TOPP_MASS_INLINE = 2, the shortest chunk that takes
// tr_topp_hist_float; shorter ones take the loop of TR_TOPP_MASS_INLINE = 1.
// Run 44 (H100, f32 top-p 0.9 per call): with the new loop for every chunk,
// B = 8 (chunks of about 2,000 elements) ran 8.9 us slower than the old
// loop; the gate at 16,384 took 5.5 of them back and left B = 64 (chunks of
// 16,384) within the A/A. 0: the new loop everywhere (the old one compiled
// out; a tuning variant).
#ifndef TR_TOPP_LEAN_MIN
#define TR_TOPP_LEAN_MIN 16384u
#endif
// 1: with TR_TOPP_MASS_INLINE = 2, an f32/f16 histogram block whose chunk
// holds more than 2^16 and at most 2^17 elements sums a bin's masses as five
// 32-bit sums of their 15-bit pieces (2^17 pieces below 2^15 cannot wrap;
// the fifth piece holds bits 60-63) instead of one 128-bit sum (B = 1024 at
// V = 131072); 0: the 128-bit sum there (a tuning variant; the same sums).
#ifndef TR_TOPP_SUM15
#define TR_TOPP_SUM15 1
#endif
// 1: the f32/f16 gather tests each element against float bounds of bin b*
// (tr_topp_bin_bounds) before the exact binary64 bin test; 0: the exact
// test alone (a tuning variant; the same list).
#ifndef TR_TOPP_GATHER_PREFILTER
#define TR_TOPP_GATHER_PREFILTER 1
#endif

// The scaled bin of a (a <= a_max), f32/f16 rows: monotone non-increasing in
// a; TR_TOPP_BINS means (a_max - a) / T >= 44 up to rounding, where the mass
// is 0 for sure.
__device__ __forceinline__ u32 tr_topp_bin(double a, double a_max, double scale) {
    const double d = __dsub_rn(a_max, a);
    if (d == 0.0) return 0;
    const double z = __dmul_rn(d, scale);
    return z < (double)TR_TOPP_BINS ? (u32)z : TR_TOPP_BINS;
}

__device__ __forceinline__ double tr_topp_scale(double t) {
    return __ddiv_rn((double)TR_TOPP_BINS, __dmul_rn(44.0, t));
}

// Float bounds [lo, hi] of the f32/f16 elements whose scaled bin can be b:
// tr_topp_bin(a) == b needs b <= (a_max - a) * scale < b + 1 up to the two
// roundings of its binary64 steps (relative 2^-53 each), so a lies in
// (a_max - (b + 1) / scale, a_max - b / scale] up to a margin far wider
// than those (2^-40 of |a_max| and the distance), rounded outward to float.
// An element outside cannot be in b; one inside still takes the exact test.
// Where the bounds overflow or are not numbers, every element is inside.
__device__ __forceinline__ void tr_topp_bin_bounds(u32 b, double a_max, double scale, float& lo,
                                                   float& hi) {
    const double w = __ddiv_rn(1.0, scale);
    const double dlo = __dmul_rn((double)b + 1.0, w), dhi = __dmul_rn((double)b, w);
    const double mrg = __dadd_rn(__dmul_rn(__dadd_rn(fabs(a_max), dlo), 0x1p-40), 0x1p-1000);
    lo = __double2float_rd(__dsub_rn(__dsub_rn(a_max, dlo), mrg));
    hi = __double2float_ru(__dadd_rn(__dsub_rn(a_max, dhi), mrg));
    if (!(lo <= hi)) {
        lo = tr_fninf();
        hi = -tr_fninf();
    }
}

// The value entries of a bf16 row, in rank order: positive values from a_max
// down (magnitude bits wa .. wp1), the middle bin (|a| < Z, magnitude bits
// below wz), negative values from -Z (or a_max) down (magnitude bits
// wn0 .. wl). Values below a_max - 45 T, whose masses are 0 for sure, have no
// entry. A function of (a_max, T) alone: every block computes the same map.
struct ToppMap {
    u32 wa, wp1, wz, wn0, wl;
    u32 np;  // positive entries: 0 .. np - 1; the middle bin is entry np
    u32 e;   // entries in all
};
// tr_topp_map_lo: the same map from a top a_max (a bf16 value) down to any
// window bottom lo (the row's map has lo = a_max - 45 T).
__device__ ToppMap tr_topp_map_lo(double a_max, double lo) {
    const u32 ha = __float_as_uint((float)a_max) >> 16;  // a_max is a bf16 value
    const bool apos = (ha >> 15) == 0;
    const u32 wa = ha & 0x7fffu;
    // Positive magnitudes below wlo and negative ones above wl have mass 0.
    const u32 wlo = lo > 0.0 ? __float_as_uint(__double2float_rz(lo)) >> 16 : 0u;
    u32 wl = 0;
    if (lo < 0.0) {
        const u32 b = __float_as_uint(__double2float_ru(__dmul_rn(-1.0, lo)));
        wl = min((b >> 16) + ((b & 0xffffu) != 0 ? 1u : 0u), 0x7f7fu);
    }
    ToppMap M;
    M.wa = wa;
    M.wl = wl;
    M.wz = 0x3B80u;  // Z = 2^-8
    for (;;) {
        M.wp1 = max(M.wz, wlo);
        M.np = (apos && wa >= M.wp1) ? wa - M.wp1 + 1 : 0;
        M.wn0 = apos ? M.wz : max(M.wz, wa);
        const u32 nn = (lo < 0.0 && wl >= M.wn0) ? wl - M.wn0 + 1 : 0;
        M.e = M.np + 1 + nn;
        if (M.e <= TR_TOPP_VALUES || M.wz >= 0x7f80u) return M;
        M.wz += 0x80u;  // Z doubles: one binade fewer on each side
    }
}
__device__ __forceinline__ ToppMap tr_topp_map(double a_max, double t) {
    return tr_topp_map_lo(a_max, __dsub_rn(a_max, __dmul_rn(45.0, t)));
}
// 1 (test builds only): tr_topp_fuse_window puts the top at the sample's
// largest value where it can, so that every row whose maximum the sample
// misses takes the second count (the CUDA check runs it).
#ifndef TR_TOPP_FUSE_TOP_AT_SAMPLE
#define TR_TOPP_FUSE_TOP_AT_SAMPLE 0
#endif
// The window of a map under which a row can be counted before its maximum is
// known (TR_TOPP_FUSE: the scan and the count in one read of the row). s is
// the largest value of a sample of the row, so a_max >= s. The bottom lo = s
// - 45 T lies at or below the row's own (a_max - 45 T, the same binary64
// steps, which are monotone); the top a_top is as high as TR_TOPP_VALUES
// entries allow with the middle bin at its least (Z = 2^-8): each octave of
// magnitudes above Z takes 128 entries, so the top can lie far above s for a
// few hundred empty entries. Under tr_topp_map_lo(a_top, lo), each element of
// a row with a_max <= a_top counts in the entry of its own value or in the
// middle entry, as under the row's own map; values the row's map leaves out
// (mass 0) may take entries, whose masses are then 0. The caller counts
// again under the row's map where a_max > a_top. False where s is not
// finite, or the window cannot reach s.
__device__ __forceinline__ bool tr_topp_fuse_window(float s, double t, double& a_top, double& lo) {
    const u32 hs = __float_as_uint(s) >> 16;  // s is a bf16 value
    if ((hs & 0x7f80u) == 0x7f80u) return false;  // +-inf or NaN
    lo = __dsub_rn((double)s, __dmul_rn(45.0, t));
    // tr_topp_map_lo's first round (Z = 2^-8) for a positive top: positive
    // entries from magnitude bits wp1 up, the middle one, nn negative ones.
    const u32 wz = 0x3B80u;
    const u32 wlo = lo > 0.0 ? __float_as_uint(__double2float_rz(lo)) >> 16 : 0u;
    u32 wl = 0;
    if (lo < 0.0) {
        const u32 b = __float_as_uint(__double2float_ru(__dmul_rn(-1.0, lo)));
        wl = min((b >> 16) + ((b & 0xffffu) != 0 ? 1u : 0u), 0x7f7fu);
    }
    const u32 wp1 = max(wz, wlo);
    const u32 nn = (lo < 0.0 && wl >= wz) ? wl - wz + 1 : 0;
    if (nn + 2 > TR_TOPP_VALUES) return false;
    // (wa - wp1 + 1) + 1 + nn <= TR_TOPP_VALUES.
    u32 wa = min(TR_TOPP_VALUES - 2 - nn + wp1, 0x7f7fu);
    const bool spos = (hs >> 15) == 0;
    if (wa < wp1 || (spos && (hs & 0x7fffu) > wa)) return false;
    if (TR_TOPP_FUSE_TOP_AT_SAMPLE && spos && (hs & 0x7fffu) >= wp1) wa = hs & 0x7fffu;
    a_top = (double)__uint_as_float(wa << 16);
    return true;
}
// The entry map of a bf16 row as integer steps on raw bits, two values a
// word. The order key of bf16 bits h (h ^ 0xffff for negative h, h | 0x8000
// otherwise) is monotone in the value, and every entry is a run of keys below
// K: with d = K - key, the entry is d - min(max(d, P) - P, G). P positive
// entries (d < P) come first, then the G + 1 keys of the middle bin share
// entry P, then one entry a key below. Valid entries are those below `ec`.
// K is the key of a_max, raised to the top of the middle bin when a_max lies
// in it, or plus one (the empty middle entry 0 then comes first) when a_max
// is negative below it, so that no element has a key above K: the 16-bit
// differences never borrow from the upper half. Where the window ends above
// Z (lo > Z: positive values in [Z, lo) have no entry), G = 0 and only the
// positive entries are valid; the middle bin is then empty, and the values
// left out (all below a_max - 45 T) have mass 0, so the sums are those of the
// map above.
struct ToppKeys {
    u32 k2, p2, g2;  // K, P and G in both 16-bit halves
    u32 ec;          // entries below ec are counted
    u32 mid;         // the middle entry, or TR_TOPP_NONE where it is empty
};
__device__ __forceinline__ ToppKeys tr_topp_keys(const ToppMap& M, double a_max) {
    const u32 ha = __float_as_uint((float)a_max) >> 16;
    const bool apos = (ha >> 15) == 0;
    u32 k, p, g;
    ToppKeys Q;
    Q.ec = M.e;
    Q.mid = M.np;
    if (M.wp1 > M.wz) {
        // lo > Z: positive entries only.
        k = 0x8000u | M.wa;
        p = M.np;
        g = 0;
        Q.ec = M.np;
        Q.mid = TR_TOPP_NONE;
    } else if (apos && M.wa >= M.wz) {
        k = 0x8000u | M.wa;
        p = M.np;
        g = 2 * M.wz - 1;
    } else if (M.wa < M.wz) {
        k = 0x8000u + M.wz - 1;  // a_max in the middle bin: its top key
        p = 0;
        g = 2 * M.wz - 1;
    } else {
        k = 0x8000u - M.wa;  // a_max negative below -Z: key(a_max) + 1
        p = 0;
        g = 0;
    }
    Q.k2 = k | (k << 16);
    Q.p2 = p | (p << 16);
    Q.g2 = g | (g << 16);
    return Q;
}
// 1: the histogram's count loop takes the order keys from the sign bits in
// one byte permute, and its increments address the table by 32-bit shared
// byte offsets (the table's base computed once, the entries scaled by 4 in
// both halves at once); 0: the keys by a multiply, the increments through
// generic pointers (a tuning variant; the same counts).
#ifndef TR_TOPP_LEAN_COUNT
#define TR_TOPP_LEAN_COUNT 1
#endif
// Unsigned max / min of each 16-bit half (one instruction on sm_90).
__device__ __forceinline__ u32 tr_max_u16x2(u32 a, u32 b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    u32 r;
    asm("max.u16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
#else
    return __vmaxu2(a, b);
#endif
}
__device__ __forceinline__ u32 tr_min_u16x2(u32 a, u32 b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    u32 r;
    asm("min.u16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
#else
    return __vminu2(a, b);
#endif
}
// prmt.b32 d, a, B, SEL with immediate B and SEL (PTX): byte i of d is the
// byte of the pair {B, a} (a is bytes 0-3) that nibble i of SEL names in its
// bits 0-2, or, where the nibble's bit 3 is set, that byte's sign bit
// replicated over the byte. The host build (tests/topp_map) runs the
// emulation below.
template <u32 B, u32 SEL>
__device__ __forceinline__ u32 tr_prmt(u32 a) {
#if defined(__CUDA_ARCH__)
    u32 d;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "n"(B), "n"(SEL));
    return d;
#else
    const u64 pair = ((u64)B << 32) | a;
    u32 d = 0;
    for (int i = 0; i < 4; i++) {
        const u32 c = (SEL >> (4 * i)) & 0xfu;
        u32 byte = (u32)(pair >> (8 * (c & 7u))) & 0xffu;
        if (c & 8u) byte = (byte & 0x80u) != 0 ? 0xffu : 0u;
        d |= byte << (8 * i);
    }
    return d;
#endif
}
// One increment of the u32 at a shared address (no result: the lanes of one
// address add in one step).
__device__ __forceinline__ void tr_red_shared_inc(u32 addr) {
    asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(addr) : "memory");
}
// v added to the u32 at a shared address (no result).
__device__ __forceinline__ void tr_red_shared_add(u32 addr, u32 v) {
    asm volatile("red.shared.add.u32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}
// The entries of the two bf16 values of word w (low half first): branch-free,
// 16-bit SIMD. Elements of the row (<= a_max, -inf included) only.
__device__ __forceinline__ u32 tr_topp_entries2(u32 w, const ToppKeys& Q) {
#if TR_TOPP_LEAN_COUNT
    // Each half's sign bit replicated over the half (prmt's sign mode: bytes
    // 0 and 1 from byte 1's sign, 2 and 3 from byte 3's): the key is
    // w ^ 0xffff for a negative half, w ^ 0x8000 otherwise.
    const u32 sgn = tr_prmt<0u, 0xBB99u>(w);
    const u32 key = w ^ (sgn | 0x80008000u);
#else
    const u32 s = (w >> 15) & 0x00010001u;
    const u32 key = w ^ (s * 0x7fffu + 0x80008000u);
#endif
    const u32 d = Q.k2 - key;
    const u32 t = tr_max_u16x2(d, Q.p2) - Q.p2;
    return d - tr_min_u16x2(t, Q.g2);
}
// The value of a value entry (e != np).
__device__ __forceinline__ double tr_topp_value(u32 e, const ToppMap& M) {
    const u32 h = e < M.np ? M.wa - e : 0x8000u | (M.wn0 + (e - M.np - 1));
    return (double)__uint_as_float(h << 16);
}

// Whether a top-p row of this batch runs the binned path now.
__device__ __forceinline__ bool tr_topp_live(const SampleArgs& A, u32 row, RowState& st) {
    if (!tr_topp_row(A, row)) return false;
    st = A.rowstate[row];
    return st.need_race != 0;
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

// u128 inclusive scan over the block (thread order); *total gets the sum.
// Every thread of the block calls it.
__device__ u128 tr_block_scan_u128(u128 v, u128* total) {
    __shared__ u64 w_lo[32], w_hi[32];
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
    const u128 incl = tr_warp_scan_u128(v);
    if (lane == 31) {
        w_lo[warp] = (u64)incl;
        w_hi[warp] = (u64)(incl >> 64);
    }
    __syncthreads();
    u128 before = 0, all = 0;
    for (u32 w = 0; w < nw; w++) {
        const u128 s = ((u128)w_hi[w] << 64) | (u128)w_lo[w];
        if (w < warp) before += s;
        all += s;
    }
    __syncthreads();  // w_lo/w_hi may be reused by the next call
    *total = all;
    return before + incl;
}

// Arrival of a chunk block of a row (every thread calls it after its global
// writes); true in the row's last block, which resets the counter.
__device__ __forceinline__ bool tr_topp_last(const SampleArgs& A, u32* arrive) {
    __shared__ bool s_last;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
        if (A.nchunks == 1) {
            s_last = true;
        } else {
            s_last = atomicAdd(arrive, 1u) == A.nchunks - 1;
            if (s_last) *arrive = 0;  // ready for the next call
        }
    }
    __syncthreads();
    if (s_last) __threadfence();
    return s_last;
}

// Records b* and the mass r still needed inside it.
__device__ __forceinline__ void tr_topp_found(const SampleArgs& A, u32 row, u32 b, u128 r) {
    ToppRow* R = tr_topp_state(A, row);
    R->r_lo = (u64)r;
    R->r_hi = (u64)(r >> 64);
    R->bstar = b;
    R->count = 0;
    R->active = 1;
    R->loc_lo = 0;
    R->loc_hi = 0;
}

// The mass of one element of value entry e (e != np): 0 where min-p drops it.
__device__ __forceinline__ u64 tr_topp_value_mass(u32 e, const ToppMap& M, double a_max, double t,
                                                  double min_p, double mthr) {
    const double a = tr_topp_value(e, M);
    if (min_p > 0.0 && !(__dsub_rn(a, a_max) >= mthr)) return 0;
    return tr_top_p_mass(a, a_max, t);
}

// Pending rows (A.topp_pend: the launch's race kernel is built for them).
// Where the cut's bin b* is a value entry, its elements share the value v* and
// the mass m, so the cut is the q-th of them by index, q = ceil(r / m) (rank
// order among equal values is index order; tr_topp_cut's one-mass path finds
// the same element). Where the row holds at most TR_TOPP_PEND_CAP of them,
// the row's last histogram block records v* and q (RowState pad0 = 2): the
// race takes the elements above v*, lists the units holding v* as it reads
// them, and its row's last block finds the cut among them and races the kept
// ones against its best (tr_pend_finish). No gather is launched; the row is
// read once less. tr_topp_pend_record: the record of b* (a value entry of
// nstar elements of mass m each, r the mass still needed inside it), or false
// where it cannot be pending: the select stops where 0 < r <= nstar m, and
// anything else takes the histogram's fallback (tr_topp_hist_fallback). One
// thread; b != M.np.
__device__ __forceinline__ bool tr_topp_pend_record(const SampleArgs& A, u32 row, const ToppMap& M,
                                                    u32 b, u32 nstar, u64 m, u128 r) {
    if (nstar == 0 || nstar > TR_TOPP_PEND_CAP) return false;
    if (m == 0 || r == 0 || r > (u128)nstar * (u128)m) return false;
    // q: the least q with q m >= r, by bisection on exact products.
    u32 lo = 1, hi = nstar;
    while (lo < hi) {
        const u32 mid = lo + (hi - lo) / 2;
        if ((u128)mid * (u128)m >= r)
            hi = mid;
        else
            lo = mid + 1;
    }
    RowState* S = &A.rowstate[row];
    S->cut_a = tr_topp_value(b, M);
    S->pad1 = lo;
    S->pad0 = 2;
    return true;
}
// The same for the row's last block, which recorded b* and r (tr_topp_found).
__device__ __noinline__ bool tr_topp_pend(const SampleArgs& A, u32 row, const ToppMap& M, u32 b,
                                          u32 nstar, double a_max, double t, double min_p,
                                          double mthr) {
    if (nstar == 0 || nstar > TR_TOPP_PEND_CAP) return false;
    ToppRow* R = tr_topp_state(A, row);
    const u64 m = tr_topp_value_mass(b, M, a_max, t, min_p, mthr);
    const u128 r = ((u128)__ldcg(&R->r_hi) << 64) | (u128)__ldcg(&R->r_lo);
    if (!tr_topp_pend_record(A, row, M, b, nstar, m, r)) return false;
    R->active = 0;  // ready for the next call (no gather resets it)
    return true;
}
// Block-collective, after the select (and a barrier): whether the row is now
// pending; count(b) is the row's count of value entry b.
template <class C>
__device__ __forceinline__ bool tr_topp_pend_block(const SampleArgs& A, u32 row, const ToppMap& M,
                                                   C count, double a_max, double t, double min_p,
                                                   double mthr) {
    __shared__ u32 s_pend;
    if (threadIdx.x == 0) {
        u32 p = 0;
        ToppRow* R = tr_topp_state(A, row);
        if (A.topp_pend != 0 && __ldcg(&R->active) != 0) {
            const u32 b = __ldcg(&R->bstar);
            if (b != M.np && tr_topp_pend(A, row, M, b, count(b), a_max, t, min_p, mthr)) p = 1;
        }
        s_pend = p;
    }
    __syncthreads();
    return s_pend != 0;
}
// A pending row's list: its bin list's place, TR_PEND_WORDS words in regions
// of TR_PEND_WORDS / (nchunks * warps) words rounded down to a multiple of
// four, one for each warp of the race.
__device__ u32* tr_pend_list_at(u64* topp, u32 row) {
    return (u32*)(topp + (u64)row * TR_TOPP_ROW_U64 + 8 + TR_TOPP_HIST_U64);
}
static_assert(TR_PEND_WORDS * 4 <= TR_TOPP_CAP * 16, "a pending row's list fits the bin list");
// Index ranges the finish counts the pending row's elements in (a multiple of
// 32). The finish takes TR_TOPP_PEND_CAP + 4 + TR_PEND_BUCKETS words of the
// pass's dynamic shared memory (launch.rs, PEND_SMEM_BYTES).
#define TR_PEND_BUCKETS 128u
// The finish's ranks by direct counts: R > 0, where the row's elements of
// value v* are at most R a thread (n <= R * blockDim.x), each thread counts,
// for each of its elements, the smaller indices over the whole list
// (tr_pend_rank: broadcast reads, no bucket counts, no 64-bit division, five
// barriers fewer); 0, or longer lists, the bucket counts and ranks inside a
// bucket. Both give the same cut. 1 since run 40 (docs/cuda-notes.md): the
// ranked stretch 0.7 us shorter at B = 1 and 64 (phase clock); 2, where
// 96-thread blocks (B = 1024) rank two elements a thread, was slower there
// in three calls of three.
#ifndef TR_PEND_RANK_DIRECT
#define TR_PEND_RANK_DIRECT 1
#endif
// The pending finish's regions read: 1, up to TR_PEND_TURNS_AHEAD turns'
// first loads issued together, each thread's elements placed by a warp scan
// (one shared atomic a warp and turn); 0, a turn's load after the previous
// turn's elements, each element placed by its own shared atomic. 1 since run
// 40 (docs/cuda-notes.md: with the direct ranks, top-p 0.9 B = 1 1.66 us
// per call faster on an H200, beyond the A/A).
#ifndef TR_PEND_GATHER_FLAT
#define TR_PEND_GATHER_FLAT 1
#endif
#ifndef TR_PEND_TURNS_AHEAD
#define TR_PEND_TURNS_AHEAD 4u
#endif
// The direct counts read the list 16 entries at a time: the slots from n up
// to a multiple of 16 hold TR_PEND_SENTINEL, above every index. They take
// rows of fewer than 2^31 elements, where entry e is below index i exactly
// when the sign bit of e - i is set (both below 2^31).
#define TR_PEND_SENTINEL 0x7fffffffu
static_assert(TR_TOPP_PEND_CAP % 16 == 0, "the direct counts read whole groups of 16");
// The rank of index i in a pending row's list of n16 entries (a multiple of
// 16, 16-byte aligned; entries distinct and below 2^31, sentinels past the
// list): how many entries are below i. Two instructions an entry (the
// difference, its sign bit added); four 16-byte loads an iteration (one
// broadcast each where a warp's threads read the same entries), each into
// its own sum, so that the loads are in flight together and no addition
// waits on another group's.
__device__ __forceinline__ u32 tr_pend_rank(const u32* list, u32 n16, u32 i) {
    const uint4* v = (const uint4*)list;
    auto below = [i](const uint4 e) {
        return ((e.x - i) >> 31) + ((e.y - i) >> 31) + ((e.z - i) >> 31) + ((e.w - i) >> 31);
    };
    u32 c0 = 0, c1 = 0, c2 = 0, c3 = 0;
    for (u32 k = 0; k < n16 / 4; k += 4) {
        c0 += below(v[k]);
        c1 += below(v[k + 1]);
        c2 += below(v[k + 2]);
        c3 += below(v[k + 3]);
    }
    return c0 + c1 + c2 + c3;
}
// (end of tr_pend_rank)

// The end of a pending row's race (its last block, every thread): (bs, bi) is
// the row's best among the elements above v*. Each warp of the race listed
// the units holding elements of value v* in its region of the row's list;
// where a region filled, this block finds the row's elements of value v*
// itself (one read of the row). The cut is the q-th smallest of their
// indices (q = st.pad1; indices are distinct), found by counts over
// TR_PEND_BUCKETS ranges of the index and ranks inside the range holding it,
// and the elements of value v* up to it race against (bs, bi): first by the
// bound of their lead, then exactly, ties to the smaller index. Writes the
// row's token and its cut (pad0 = 1, as the gather would have).
//
// force_row (a parameter of TR_PEND_LOCAL builds alone, so that the others
// compile as before): the regions are not read (tr_pend_local wrote over
// them, and one of the row's chunks did not fit), the row is.
#if TR_PEND_LOCAL
#define TR_PEND_FORCE_ROW_DEF , bool force_row
#else
#define TR_PEND_FORCE_ROW_DEF
#endif
__device__ __noinline__ void tr_pend_finish(const PendA& A, u32 row, const RowState& st,
                                            double bs, u32 bi, double neg_t, u64 seed, u64 pos,
                                            double* s_s, u32* s_i TR_PEND_FORCE_ROW_DEF) {
    // In the pass's dynamic shared memory (its race queues, used up; the host
    // asks for pending rows only where they hold these words, launch.rs,
    // PEND_SMEM_BYTES): the indices, four words, the bucket counts.
    u32* const s_idx = (u32*)tr_dyn_smem_pass();
    u32& s_n = s_idx[TR_TOPP_PEND_CAP];
    u32& s_cut = s_idx[TR_TOPP_PEND_CAP + 1];
    u32& s_over = s_idx[TR_TOPP_PEND_CAP + 2];
    u32& s_m = s_idx[TR_TOPP_PEND_CAP + 3];
    u32* const s_bk = s_idx + TR_TOPP_PEND_CAP + 4;
    const u32 h16 = __float_as_uint((float)st.cut_a) >> 16;
    // Phase clock (TR_PHASE_PRINT): 7 finish begun, 8 regions read, 9 the
    // row read again where a region filled, 10 ranked, 11 raced, 12 the
    // block's best. Profiling only, TR_PEND_FINISH_TWICE: the regions read
    // and ranked a second time, their code now warm (the lists, read through
    // L2, as the first time; the same list and cut), stamping 9 for the
    // regions read (rows whose regions did not fill) and 13 for ranked; the
    // first time's stretches less the second's are the cold code's cost.
    // Slots 11 and 12 then mark, in the first time, the cleared counts
    // passing their barrier and thread 0's first region load returned (and
    // the race and the block's best go unstamped).
    tr_phase(7);
#ifdef TR_PEND_FINISH_TWICE
    u32 n = 0;
    for (int again = 0; again < 2; again++) {
#else
    u32 n = 0;
    {
        constexpr int again = 0;
#endif
        if (threadIdx.x == 0) {
            s_n = 0;
            s_cut = TR_NO_TOKEN;
            s_over = 0;
            s_m = 0;
        }
        for (u32 b = threadIdx.x; b < TR_PEND_BUCKETS; b += blockDim.x) s_bk[b] = 0;
        if (TR_PEND_RANK_DIRECT)
            for (u32 j = threadIdx.x; j < TR_TOPP_PEND_CAP; j += blockDim.x) s_idx[j] = TR_PEND_SENTINEL;
        __syncthreads();
#ifdef TR_PEND_FINISH_TWICE
        if (!again) tr_phase(11);
#endif
        // The regions, a group of g threads each (g: a power of two up to 32,
        // as many as the block has for each region), each thread four words at
        // once (the count and the first entries come in one round trip).
        const u32 nreg = A.nchunks * (blockDim.x >> 5), rw = (TR_PEND_WORDS / nreg) & ~3u;
        u32 g = 32;
        while (g > 1 && g * nreg > blockDim.x) g >>= 1;
        const u32* list = tr_pend_list_at(A.topp, row);
#if TR_PEND_LOCAL
        if ((rw < 4 || force_row) && threadIdx.x == 0) s_over = 1;  // no regions (see tr_pass)
        const u32 gm = threadIdx.x % g;
        // Every thread takes the same number of turns, so that the group's
        // shuffles see all its threads.
        const u32 turns = (rw >= 4 && !force_row) ? (nreg + blockDim.x / g - 1) / (blockDim.x / g) : 0;
#else
        if (rw < 4 && threadIdx.x == 0) s_over = 1;  // no regions (see tr_pass)
        const u32 gm = threadIdx.x % g;
        const u32 turns = rw >= 4 ? (nreg + blockDim.x / g - 1) / (blockDim.x / g) : 0;
#endif
#ifdef TR_PEND_REGION_CLOCK
        // Profiling only (with TR_PEND_FINISH_TWICE): each thread's clock, in
        // the first time, when its first two turns' counts arrived and when
        // its regions were taken, since the cleared counts' barrier; each
        // warp's largest and sum in shared memory (the pass leaves little
        // static shared memory), thread 0 prints the block's largest and
        // mean after the regions' barrier.
        __shared__ u32 s_rclk[2][3][32];
        __shared__ u32 s_rlive[32];
        const long long rc0 = clock64();
        u32 rc[3] = {0, 0, 0};
        u32 rlive = 0;
#endif
        const u32 lane = threadIdx.x & 31;
        // An entry's elements, each placed by its own shared atomic (the
        // entries past a region's first load; every entry without
        // TR_PEND_GATHER_FLAT).
        auto take = [&](u32 e) {
            const u32 ib = (e >> 8) * 8;
            for (u32 m = e & 0xffu; m != 0; m &= m - 1) {
                const u32 slot = atomicAdd(&s_n, 1u);
                if (slot < TR_TOPP_PEND_CAP) s_idx[slot] = ib + (u32)(__ffs(m) - 1);
            }
        };
        // A turn's profiling stamps, once its counts arrived (nothing without
        // TR_PEND_FINISH_TWICE and TR_PEND_REGION_CLOCK).
        auto turn_stamps = [&](u32 t, bool live, u32 cnt) {
            (void)t;
            (void)live;
            (void)cnt;
#ifdef TR_PEND_FINISH_TWICE
            if (!again && t == 0) tr_phase(12);
#endif
#ifdef TR_PEND_REGION_CLOCK
            if (!again && t < 2) rc[t] = (u32)(clock64() - rc0);
            rlive += live && cnt != 0 ? 1u : 0u;
#endif
        };
#if TR_PEND_GATHER_FLAT
        // Up to TR_PEND_TURNS_AHEAD turns' first loads at once, then each
        // thread's elements placed after those of the warp's lower lanes (a
        // warp scan of their counts, one shared atomic a warp and turn).
        constexpr u32 TA = TR_PEND_TURNS_AHEAD;
        for (u32 t0 = 0; t0 < turns; t0 += TA) {
            uint4 vt[TA];
#pragma unroll
            for (u32 k = 0; k < TA; k++) {
                const u32 r = threadIdx.x / g + (t0 + k) * (blockDim.x / g);
                vt[k] = make_uint4(0, 0, 0, 0);
                if (t0 + k < turns && r < nreg && 4 * gm < rw) vt[k] = __ldcg((const uint4*)(list + (u64)r * rw) + gm);
            }
#pragma unroll
            for (u32 k = 0; k < TA; k++) {
                const u32 t = t0 + k;
                if (t >= turns) break;  // the same for every thread
                const u32 r = threadIdx.x / g + t * (blockDim.x / g);
                const bool live = r < nreg;
                const uint4 v = vt[k];
                const u32 cnt = __shfl_sync(TR_FULL, v.x, lane & ~(g - 1));
                turn_stamps(t, live, cnt);
                if (live && cnt > rw - 1) s_over = 1;
                const bool ok = live && cnt != 0 && cnt <= rw - 1;
                // Words 4 gm .. 4 gm + 3 of the region: word 0 is the count,
                // word 1 + j entry j.
                const u32 w0 = 4 * gm;
                const u32 e[4] = {v.x, v.y, v.z, v.w};
                u32 mine = 0;
#pragma unroll
                for (u32 q4 = 0; q4 < 4; q4++)
                    if (ok && w0 + q4 >= 1 && w0 + q4 <= cnt) mine += __popc(e[q4] & 0xffu);
                const u32 incl = tr_warp_scan_u32(mine);
                const u32 total = __shfl_sync(TR_FULL, incl, 31);
                u32 base = 0;
                if (lane == 31 && total != 0) base = atomicAdd(&s_n, total);
                u32 slot = __shfl_sync(TR_FULL, base, 31) + incl - mine;
#pragma unroll
                for (u32 q4 = 0; q4 < 4; q4++) {
                    if (!(ok && w0 + q4 >= 1 && w0 + q4 <= cnt)) continue;
                    const u32 ib = (e[q4] >> 8) * 8;
                    for (u32 m = e[q4] & 0xffu; m != 0; m &= m - 1) {
                        if (slot < TR_TOPP_PEND_CAP) s_idx[slot] = ib + (u32)(__ffs(m) - 1);
                        slot++;
                    }
                }
                if (ok) {
                    const u32* reg = list + (u64)r * rw;
                    for (u32 w = 4 * g + gm; w <= cnt; w += g) take(__ldcg(&reg[w]));  // past the first load
                }
            }
        }
#else
        for (u32 t = 0; t < turns; t++) {
            const u32 r = threadIdx.x / g + t * (blockDim.x / g);
            const bool live = r < nreg;
            const u32* reg = list + (u64)(live ? r : 0) * rw;
            uint4 v = make_uint4(0, 0, 0, 0);
            if (live && 4 * gm < rw) v = __ldcg((const uint4*)reg + gm);
            const u32 cnt = __shfl_sync(TR_FULL, v.x, lane & ~(g - 1));
            turn_stamps(t, live, cnt);
            if (!live || cnt == 0) continue;
            if (cnt > rw - 1) {
                s_over = 1;
                continue;
            }
            // Words 4 gm .. 4 gm + 3 of the region: word 0 is the count, word
            // 1 + j entry j.
            const u32 w0 = 4 * gm;
            if (w0 >= 1 && w0 <= cnt) take(v.x);
            if (w0 + 1 <= cnt) take(v.y);
            if (w0 + 2 <= cnt) take(v.z);
            if (w0 + 3 <= cnt) take(v.w);
            for (u32 w = 4 * g + gm; w <= cnt; w += g) take(__ldcg(&reg[w]));  // past the first load
        }
#endif
#ifdef TR_PEND_REGION_CLOCK
        if (!again) {
            rc[2] = (u32)(clock64() - rc0);
            const u32 w = threadIdx.x >> 5;
            for (int k = 0; k < 3; k++) {
                const u32 mx = __reduce_max_sync(TR_FULL, rc[k]), sm = __reduce_add_sync(TR_FULL, rc[k] >> 5);
                if ((threadIdx.x & 31) == 0) {
                    s_rclk[0][k][w] = mx;
                    s_rclk[1][k][w] = sm;
                }
            }
            const u32 lv = __reduce_add_sync(TR_FULL, rlive != 0 ? 1u : 0u);
            if ((threadIdx.x & 31) == 0) s_rlive[w] = lv;
        }
#endif
        __syncthreads();
#ifdef TR_PEND_REGION_CLOCK
        if (!again && threadIdx.x == 0) {
            // Cycles: the block's largest, its mean (from sums of the
            // clocks / 32) and the warp holding the largest.
            u32 mx[3] = {0, 0, 0}, at[3] = {0, 0, 0}, lv = 0;
            u64 sum[3] = {0, 0, 0};
            for (u32 w = 0; w < (blockDim.x >> 5); w++) {
                for (int k = 0; k < 3; k++) {
                    sum[k] += (u64)s_rclk[1][k][w] * 32;
                    if (s_rclk[0][k][w] > mx[k]) {
                        mx[k] = s_rclk[0][k][w];
                        at[k] = w;
                    }
                }
                lv += s_rlive[w];
            }
            printf("tr_pend_regions %u turns %u g %u nreg %u live_threads %u first %u %u warp %u second %u %u "
                   "warp %u taken %u %u warp %u\n",
                   blockIdx.x, turns, g, nreg, lv, mx[0], (u32)(sum[0] / blockDim.x), at[0], mx[1],
                   (u32)(sum[1] / blockDim.x), at[1], mx[2], (u32)(sum[2] / blockDim.x), at[2]);
        }
#endif
        tr_phase(again ? 9 : 8);
        if (s_over != 0 || s_n > TR_TOPP_PEND_CAP) {
            // A region filled (more units holding v* in one warp's share of the
            // row than its region holds): the row's elements of value v* from the
            // row itself. The histogram counted at most TR_TOPP_PEND_CAP of them.
            __syncthreads();
            if (threadIdx.x == 0) s_n = 0;
            if (TR_PEND_RANK_DIRECT)
                for (u32 j = threadIdx.x; j < TR_TOPP_PEND_CAP; j += blockDim.x) s_idx[j] = TR_PEND_SENTINEL;
            __syncthreads();
            const u16* xrow = (const u16*)A.logits + (u64)row * A.row_stride;
            const bool al = (((u64)xrow) & 15) == 0;
            const i64 units = ((i64)A.vocab + 7) >> 3;
            for (i64 u = threadIdx.x; u < units; u += blockDim.x) {
                const Raw8 r = tr_fetch8<1>(xrow, u * 8, A.vocab, al, true);
                const u32 w[4] = {r.v0.x, r.v0.y, r.v0.z, r.v0.w};
#pragma unroll
                for (int k = 0; k < 8; k++) {
                    if (((w[k >> 1] >> (16 * (k & 1))) & 0xffffu) != h16) continue;
                    const u32 slot = atomicAdd(&s_n, 1u);
                    if (slot < TR_TOPP_PEND_CAP) s_idx[slot] = (u32)(u * 8 + k);
                }
            }
            __syncthreads();
            tr_phase(9);
        }
        n = min(s_n, TR_TOPP_PEND_CAP);
        const u32 q = st.pad1;
        // The q-th smallest index (indices are distinct). Where each thread
        // holds at most TR_PEND_RANK_DIRECT elements (and the row is shorter
        // than 2^31), an element's rank is the count of smaller indices among the
        // n (tr_pend_rank, over the list and its sentinels): no barrier, no
        // atomic.
        if (TR_PEND_RANK_DIRECT && n <= TR_PEND_RANK_DIRECT * blockDim.x && A.vocab <= TR_PEND_SENTINEL) {
            const u32 n16 = (n + 15) & ~15u;
            for (u32 j = threadIdx.x; j < n; j += blockDim.x) {
                const u32 i = s_idx[j];
                if (tr_pend_rank(s_idx, n16, i) + 1 == q) s_cut = i;  // s_cut: TR_NO_TOKEN until here
            }
        } else {
            // Otherwise: counts of the buckets (ranges of the index, in order),
            // the bucket holding it, then ranks among that bucket's elements
            // alone (listed after the counts where they fit, else counted over
            // all n).
            auto bucket = [&](u32 i) { return (u32)(((u64)i * TR_PEND_BUCKETS) / A.vocab); };
            for (u32 j = threadIdx.x; j < n; j += blockDim.x) atomicAdd(&s_bk[bucket(s_idx[j])], 1u);
            __syncthreads();
            if (threadIdx.x < 32) {
                constexpr u32 PER = TR_PEND_BUCKETS / 32;
                const u32 lane = threadIdx.x;
                u32 c[PER], sum = 0;
#pragma unroll
                for (u32 k = 0; k < PER; k++) {
                    c[k] = s_bk[lane * PER + k];
                    sum += c[k];
                }
                const u32 incl = tr_warp_scan_u32(sum);
                u32 before = incl - sum;
                if (before < q && incl >= q) {
#pragma unroll
                    for (u32 k = 0; k < PER; k++) {
                        if (before < q && before + c[k] >= q) {
                            s_m = lane * PER + k;     // the bucket
                            s_cut = q - before;       // the rank inside it, from 1
                        }
                        before += c[k];
                    }
                }
            }
            __syncthreads();
            const u32 qb = s_cut, sel = s_m;
            __syncthreads();
            if (threadIdx.x == 0) {
                s_cut = TR_NO_TOKEN;
                s_m = 0;
            }
            __syncthreads();
            u32* const s_in = s_bk;  // the bucket's elements, where they fit
            for (u32 j = threadIdx.x; j < n; j += blockDim.x) {
                const u32 i = s_idx[j];
                if (bucket(i) != sel) continue;
                const u32 slot = atomicAdd(&s_m, 1u);
                if (slot < TR_PEND_BUCKETS) s_in[slot] = i;
            }
            __syncthreads();
            const u32 m = s_m;
            if (m <= TR_PEND_BUCKETS) {
                for (u32 j = threadIdx.x; j < n; j += blockDim.x) {
                    const u32 i = s_idx[j];
                    if (bucket(i) != sel) continue;
                    u32 below = 0;
                    for (u32 k = 0; k < m; k++) below += s_in[k] < i ? 1u : 0u;
                    if (below + 1 == qb) s_cut = i;
                }
            } else {
                // The bucket's elements did not fit: ranks over all n.
                for (u32 j = threadIdx.x; j < n; j += blockDim.x) {
                    const u32 i = s_idx[j];
                    u32 below = 0;
                    for (u32 k = 0; k < n; k++) below += s_idx[k] < i ? 1u : 0u;
                    if (below + 1 == q) s_cut = i;
                }
            }
        }
        __syncthreads();
        tr_phase(again ? 13 : 10);
    }
    // The race lists exactly the row's elements of value v*, at least q of
    // them (tr_topp_pend); were the q-th missing, every listed one is kept.
    const u32 cut_i = s_cut;
    const double v = st.cut_a;
    for (u32 j = threadIdx.x; j < n; j += blockDim.x) {
        const u32 i = s_idx[j];
        if (i > cut_i) continue;
        const u32 lead = tr_lead_prefix(tr_block(seed, i >> 3, pos, TR_TAG_EXACT_LEAD), i);
        // Only where the score's upper bound reaches the best (fma is
        // monotone in its product, as in the race's queue test).
        if (__fma_rn(neg_t, tr_lead_lower_bound(lead), v) >= bs) {
            const double s = tr_exact_score(neg_t, seed, pos, i, lead, v);
            if (tr_better(s, i, bs, bi)) {
                bs = s;
                bi = i;
            }
        }
    }
#ifndef TR_PEND_FINISH_TWICE
    tr_phase(11);
#endif
    tr_block_best(bs, bi, s_s, s_i);
#ifndef TR_PEND_FINISH_TWICE
    tr_phase(12);
#endif
    if (threadIdx.x == 0) {
        if (A.nchunks > 1) A.counters[row] = 0;  // ready for the next launch (as tr_row_result)
        A.out_token[row] = bi;
        A.out_status[row] = 0;
        A.rowstate[row].cut_index = cut_i;
        A.rowstate[row].pad0 = 1;
    }
}

// TR_PEND_LOCAL (sample.cu): a chunk's count of value v* that did not fit
// its span, in its partial's pad; the row's last block then takes
// tr_pend_finish, reading the row.
#define TR_PEND_OVER 0xffffffffu

#if TR_PEND_LOCAL
// A pending row of several chunks, each block of the race after its
// reduction (every thread; (bs, bi): the block's best among its elements
// above v*). The block's warps listed the units of its chunk holding
// elements of value v* in their regions, which together are the chunk's span
// of the row's list (nw * rw words). The block takes those elements (at most
// TR_TOPP_PEND_CAP), ranks them by index, and writes over the span: the
// indices in rank order (word r: the element of rank r, from 0), then, from
// the first multiple of four words past them, a record {rank, index, score
// low word, score high word} for each element whose score beats (bs, bi)
// (first by the bound of its lead, then exactly, as tr_pend_finish races).
// Only those can beat the row's best, which is at least the block's, so the
// row's last block needs no other score of the chunk. out_n: the count (the
// partial's pad), TR_PEND_OVER where a region filled or the span is too
// short; out_p: the records (the partial's lo_key).
__device__ __noinline__ void tr_pend_local(const SampleArgs& A, u32 row, u32 chunk, const RowState& st,
                                           double bs, u32 bi, double neg_t, u64 seed, u64 pos,
                                           u32& out_n, u32& out_p) {
    // In the pass's dynamic shared memory (its race queues, used up: the
    // caller's reduction passed a barrier after every warp's race): the
    // elements, then three words (PEND_SMEM_BYTES holds them).
    u32* const s_idx = (u32*)tr_dyn_smem_pass();
    u32& s_n = s_idx[TR_TOPP_PEND_CAP];
    u32& s_p = s_idx[TR_TOPP_PEND_CAP + 1];
    u32& s_over = s_idx[TR_TOPP_PEND_CAP + 2];
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    const u32 rw = (TR_PEND_WORDS / (A.nchunks * nw)) & ~3u, span_words = nw * rw;
    if (threadIdx.x == 0) {
        s_n = 0;
        s_p = 0;
        s_over = rw < 4 ? 1u : 0u;  // no regions: the race listed nothing (tr_pass)
    }
    for (u32 j = threadIdx.x; j < TR_TOPP_PEND_CAP; j += blockDim.x) s_idx[j] = TR_PEND_SENTINEL;
    __syncthreads();
    u32* const span = tr_pend_list_at(A.topp, row) + (u64)chunk * span_words;
    if (rw >= 4) {
        // The warp's own region: word 0 its count, word 1 + j entry j; the
        // count and the first 31 entries in one load a lane.
        const u32* reg = span + (u64)warp * rw;
        const u32 v = lane < rw ? __ldcg(reg + lane) : 0u;
        const u32 cnt = __shfl_sync(TR_FULL, v, 0);
        if (cnt > rw - 1) {
            if (lane == 0) s_over = 1;
        } else {
            for (u32 w0 = 0; w0 <= cnt; w0 += 32) {
                const u32 w = w0 + lane;
                u32 e = 0;
                if (w >= 1 && w <= cnt) e = w0 == 0 ? v : __ldcg(reg + w);
                const u32 mine = __popc(e & 0xffu);
                const u32 incl = tr_warp_scan_u32(mine);
                const u32 total = __shfl_sync(TR_FULL, incl, 31);
                u32 base = 0;
                if (lane == 31 && total != 0) base = atomicAdd(&s_n, total);
                u32 slot = __shfl_sync(TR_FULL, base, 31) + incl - mine;
                const u32 ib = (e >> 8) * 8;
                for (u32 m = e & 0xffu; m != 0; m &= m - 1) {
                    if (slot < TR_TOPP_PEND_CAP) s_idx[slot] = ib + (u32)(__ffs(m) - 1);
                    slot++;
                }
            }
        }
    }
    __syncthreads();
    const u32 n = s_n, rec0 = (n + 3) & ~3u;
    const bool over = s_over != 0 || n > TR_TOPP_PEND_CAP || rec0 > span_words;
    if (!over) {
        // Ranks by direct counts over the list and its sentinels (tr_pend_rank:
        // indices below 2^27 on this path, distinct).
        const u32 n16 = (n + 15) & ~15u;
        const double v = st.cut_a;
        for (u32 j = threadIdx.x; j < n; j += blockDim.x) {
            const u32 i = s_idx[j];
            const u32 r = tr_pend_rank(s_idx, n16, i);
            span[r] = i;
            const u32 lead = tr_lead_prefix(tr_block(seed, i >> 3, pos, TR_TAG_EXACT_LEAD), i);
            if (__fma_rn(neg_t, tr_lead_lower_bound(lead), v) >= bs) {
                const double s = tr_exact_score(neg_t, seed, pos, i, lead, v);
                if (tr_better(s, i, bs, bi)) {
                    const u32 k = atomicAdd(&s_p, 1u);
                    const u32 at = rec0 + 4 * k;
                    if (at + 4 <= span_words) {
                        const u64 b = (u64)__double_as_longlong(s);
                        *(uint4*)(span + at) = make_uint4(r, i, (u32)b, (u32)(b >> 32));
                    } else {
                        s_over = 1;
                    }
                }
            }
        }
    }
    __syncthreads();
    out_n = (over || s_over != 0) ? TR_PEND_OVER : n;
    out_p = s_p;
}

// The end of a pending row settled chunk by chunk (its last block, every
// thread; (bs, bi): the row's best among the elements above v*). The
// combine left each chunk's count of value v* at word c of the pass's
// dynamic shared memory and its records' count at word
// TR_PEND_LOCAL_CHUNKS + c (tr_pass). The chunks are in index order, so the
// cut, the q-th element of value v* by index (q = st.pad1), is the element
// of rank q - (the counts before it) in the first chunk whose counts reach
// q; the elements of value v* up to it are kept: every record of the chunks
// before it and those of its own below that rank. Writes what
// tr_pend_finish writes; where a chunk did not fit (TR_PEND_OVER), takes it,
// reading the row.
__device__ __noinline__ void tr_pend_finish_local(const SampleArgs& A, u32 row, const RowState& st,
                                                  double bs, u32 bi, double neg_t, u64 seed, u64 pos,
                                                  double* s_s, u32* s_i) {
    u32* const s_pc = (u32*)tr_dyn_smem_pass();
    u32& s_fall = s_pc[2 * TR_PEND_LOCAL_CHUNKS];
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    const u32 nch = A.nchunks, span_words = nw * ((TR_PEND_WORDS / (nch * nw)) & ~3u);
    if (warp == 0) {
        const u32 q = st.pad1;
        // The chunk holding the q-th (at most one lane finds it: the counts'
        // running sums rise through q once), by rounds of 32 chunks.
        u32 carry = 0, my_c = TR_NO_TOKEN, my_q = 0;
        bool over = false;
        for (u32 c0 = 0; c0 < nch; c0 += 32) {
            const u32 c = c0 + lane;
            const u32 cn = c < nch ? s_pc[c] : 0u;
            over |= cn == TR_PEND_OVER;
            const u32 nn = cn == TR_PEND_OVER ? 0u : cn;
            const u32 incl = tr_warp_scan_u32(nn) + carry;
            if (incl - nn < q && q <= incl) {
                my_c = c;
                my_q = q - (incl - nn);
            }
            carry = __shfl_sync(TR_FULL, incl, 31);
        }
        over = __any_sync(TR_FULL, over);
        if (!over) {
            const u32 hb = __ballot_sync(TR_FULL, my_c != TR_NO_TOKEN);
            const u32 src = hb != 0 ? (u32)(__ffs(hb) - 1) : 0u;
            const u32 cstar = hb != 0 ? __shfl_sync(TR_FULL, my_c, src) : TR_NO_TOKEN;
            const u32 qloc = __shfl_sync(TR_FULL, my_q, src);
            const u32* list = tr_pend_list_at(A.topp, row);
            // The cut (none where the chunks list fewer than q: as in
            // tr_pend_finish, every listed element is then kept).
            u32 cut_i = TR_NO_TOKEN;
            if (lane == 0 && cstar != TR_NO_TOKEN) cut_i = __ldcg(list + (u64)cstar * span_words + qloc - 1);
            for (u32 c = lane; c < nch; c += 32) {
                if (cstar != TR_NO_TOKEN && c > cstar) break;
                const u32 np = s_pc[TR_PEND_LOCAL_CHUNKS + c];
                const uint4* rec = (const uint4*)(list + (u64)c * span_words + ((s_pc[c] + 3) & ~3u));
                for (u32 k = 0; k < np; k++) {
                    const uint4 r = __ldcg(rec + k);
                    if (c == cstar && r.x >= qloc) continue;
                    const double s = __longlong_as_double((long long)(((u64)r.w << 32) | r.z));
                    if (tr_better(s, r.y, bs, bi)) {
                        bs = s;
                        bi = r.y;
                    }
                }
            }
            tr_warp_best(bs, bi);
            cut_i = __shfl_sync(TR_FULL, cut_i, 0);
            if (lane == 0) {
                A.counters[row] = 0;  // ready for the next launch (nchunks > 1)
                A.out_token[row] = bi;
                A.out_status[row] = 0;
                A.rowstate[row].cut_index = cut_i;
                A.rowstate[row].pad0 = 1;
            }
        }
        if (lane == 0) s_fall = over ? 1u : 0u;
    }
    __syncthreads();
    if (s_fall != 0) {
        __syncthreads();  // every thread has read s_fall before the finish clears the words
        tr_pend_finish(tr_pend_args(A), row, st, bs, bi, neg_t, seed, pos, s_s, s_i, true);
    }
}
#endif  // TR_PEND_LOCAL

// How a histogram block splits its chunk into segments (tr_topp_hist).
struct SegShape {
    u32 segs;   // segments, each with its own table of counts (1: the chunk)
    u32 units;  // units a segment (the last one may be shorter); 0 with one segment
};
// The value-count tables of a bf16 histogram block: dynamic shared memory,
// as many tables of TR_TOPP_VALUES + 1 counts as the launch gave room for
// (the host: Geometry::topp_hist_smem, one, or TOPP_SEG_TABLES for a row of
// one chunk).
// Bytes of dynamic shared memory the launch gave this block.
__device__ __forceinline__ u32 tr_dyn_smem_bytes() {
    u32 bytes;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
    return bytes;
}
__device__ __forceinline__ u32* tr_topp_tables(u32& fit) {
    extern __shared__ u64 tr_dyn_smem[];
    fit = tr_dyn_smem_bytes() / ((TR_TOPP_VALUES + 1) * 4);
    return (u32*)tr_dyn_smem;
}
// The shared (::cta) address of the first table: a link-time constant, so
// that the count loop's increments can take it as an immediate or a uniform
// register.
__device__ __forceinline__ u32 tr_topp_tables32() {
    u32 a;
    asm("mov.u32 %0, tr_dyn_smem;" : "=r"(a));
    return a;
}
// A bf16 row that a launch with pending rows (A.topp_pend, which has no
// gather) does not settle as pending (its cut in the middle bin, more than
// TR_TOPP_PEND_CAP elements of its cut's value, or no cut's bin found): the
// filter kernel's exact radix selection over the row, run by its last
// histogram block, its shared state in the count tables (used up).
static_assert(sizeof(FilterShared) <= (TR_TOPP_VALUES + 1) * 4, "the filter state fits a count table");
__device__ __noinline__ void tr_topp_hist_fallback(const SampleArgs& A, u32 row, const RowState& st) {
    u32 fit;
    FilterShared& S = *(FilterShared*)tr_topp_tables(fit);
    __syncthreads();
    tr_filter_row<1, false>(S, A, row, st, nullptr);
    __syncthreads();
    if (threadIdx.x == 0) {
        ToppRow* R = tr_topp_state(A, row);
        R->active = 0;  // ready for the next call (no gather resets it)
        A.rowstate[row].pad0 = 1;
    }
}

// The segments of a chunk of `units` units: where the row is one chunk and
// the host asked for them (A.topp_seg_units, Geometry::topp_seg_units), runs
// of that many units, each counted in a table of its own. A split the
// tables cannot hold gives one segment.
__device__ __forceinline__ SegShape tr_topp_segs(const SampleArgs& A, i64 units, u32 fit) {
    const SegShape one = {1, 0};
#if TR_TOPP_SEGS
    const u32 segu = A.nchunks == 1 ? A.topp_seg_units : 0u;
    if (segu == 0 || units <= (i64)segu) return one;
    const u32 segs = (u32)((units + segu - 1) / segu);
    if (segs > fit) return one;
    return SegShape{segs, segu};
#else
    return one;
#endif
}
// A block's value counts: entry e summed over the segments, or segment s's.
struct SegCounts {
    const u32* c;
    u32 segs;
    __device__ __forceinline__ u32 total(u32 e) const {
        u32 n = 0;
        for (u32 s = 0; s < segs; s++) n += c[s * (TR_TOPP_VALUES + 1) + e];
        return n;
    }
    __device__ __forceinline__ u32 seg(u32 s, u32 e) const { return c[s * (TR_TOPP_VALUES + 1) + e]; }
};

// Entries a thread sums per step in tr_topp_select_values (a tuning knob).
#ifndef TR_TOPP_SELECT_UNROLL
#define TR_TOPP_SELECT_UNROLL 8
#endif
// The select of a bf16 row (its last chunk block). G: a row of many chunks,
// whose value counts (one table) and value masses (every chunk block
// computed a share of them) are in the workspace; else a row of one chunk,
// whose counts are in shared memory and whose masses are computed here.
template <bool G>
__device__ __noinline__ void tr_topp_select_values(const SampleArgs& A, u32 row, const RowState& st,
                                                   const ToppMap& M, SegCounts cnt, u128 mid) {
    const double t = A.temperature[row], min_p = A.min_p[row], a_max = st.a_max;
    const double mthr = min_p > 0.0 ? tr_min_p_threshold(t, min_p) : 0.0;
    const u64* masses = tr_topp_masses(A, row);
    const u32 per = (M.e + blockDim.x - 1) / blockDim.x;
    const u32 e0 = min(threadIdx.x * per, M.e), e1 = min(e0 + per, M.e);
    // Branch-free where the masses are in the table (the middle entry's count
    // and table mass are 0), so that the loads of a segment overlap.
    auto mass = [&](u32 e) -> u128 {
        if (G) {
            const u128 cm = (u128)__ldcg(&cnt.c[e]) * (u128)__ldcg(&masses[e]);
            return e == M.np ? mid : cm;
        }
        if (e == M.np) return mid;
        const u32 c = cnt.total(e);
        if (c == 0) return 0;
        return (u128)c * (u128)tr_topp_value_mass(e, M, a_max, t, min_p, mthr);
    };
    __shared__ u32 s_seg;
    __shared__ u64 s_before_lo, s_before_hi;
    if (threadIdx.x == 0) s_seg = TR_TOPP_NONE;  // ordered by the scan's barriers
    u128 sum = 0;
    constexpr int UNROLL = TR_TOPP_SELECT_UNROLL;
#pragma unroll UNROLL
    for (u32 e = e0; e < e1; e++) sum += mass(e);
    tr_phase(11);
    u128 total;
    const u128 incl = tr_block_scan_u128(sum, &total);
    const u128 target = tr_top_p_target(A.top_p[row], total);
    const u128 before = incl - sum;
    if (before < target && incl >= target) {  // exactly one thread: 0 < target <= total
        s_seg = threadIdx.x;
        s_before_lo = (u64)before;
        s_before_hi = (u64)(before >> 64);
    }
    __syncthreads();
    tr_phase(12);
    // The entry inside that thread's segment, found by one warp: a lane an
    // entry and a warp scan, not a walk of dependent loads.
    if (threadIdx.x >= 32 || s_seg == TR_TOPP_NONE) return;
    const u32 lane = threadIdx.x;
    const u32 s0 = min(s_seg * per, M.e), s1 = min(s0 + per, M.e);
    u128 run = ((u128)s_before_hi << 64) | (u128)s_before_lo;
    for (u32 b = s0; b < s1; b += 32) {
        const u32 e = b + lane;
        const u128 m = e < s1 ? mass(e) : 0;
        const u128 at = run + tr_warp_scan_u128(m);
        const u32 hit = __ballot_sync(TR_FULL, at >= target);
        if (hit != 0) {
            if (lane == (u32)(__ffs(hit) - 1)) tr_topp_found(A, row, e, target - (at - m));
            tr_phase(13);
            return;
        }
        run = ((u128)__shfl_sync(TR_FULL, (unsigned long long)(u64)(at >> 64), 31) << 64) |
              (u128)__shfl_sync(TR_FULL, (unsigned long long)(u64)at, 31);
    }
}

// The unit range of a chunk.
__device__ __forceinline__ void tr_topp_chunk_units(const SampleArgs& A, u32 chunk, i64& ulo, i64& uhi) {
    const i64 lo = (i64)chunk * A.chunk_len;
    const i64 hi = (lo + A.chunk_len < (i64)A.vocab) ? lo + A.chunk_len : (i64)A.vocab;
    ulo = lo >> 3;
    uhi = (hi + 7) >> 3;
}

// The run of a bf16 row's units (a chunk of a row of many chunks, or a
// segment of a row of one chunk) where the cut lies, for a value entry b*.
// The elements of b* share one mass m, and rank order among them is index
// order, so the cut is the ceil(r / m)-th of them by index: in the first run
// whose count of b* elements, added to those of the runs before it, times m
// reaches r. Records that run's units and the mass still needed inside it;
// the gather then reads that run alone. One warp: count(c) is run c's count
// of b*, range(c, lo, hi) its units.
template <class C, class U>
__device__ __forceinline__ void tr_topp_locate_runs(ToppRow* R, u64 m, u32 nruns, C count, U range) {
    const u32 lane = threadIdx.x;
    const u128 r = ((u128)__ldcg(&R->r_hi) << 64) | (u128)__ldcg(&R->r_lo);
    u32 run = 0;  // b* elements in the runs before this step's
    for (u32 c0 = 0; c0 < nruns; c0 += 32) {
        const u32 c = c0 + lane;
        const u32 n = c < nruns ? count(c) : 0;
        const u32 incl = run + tr_warp_scan_u32(n);
        const u32 hit = __ballot_sync(TR_FULL, (u128)incl * m >= r);
        if (hit != 0) {
            if (lane == (u32)(__ffs(hit) - 1)) {
                const u128 rest = r - (u128)(incl - n) * m;
                u32 lo, hi;
                range(c, lo, hi);
                R->r_lo = (u64)rest;
                R->r_hi = (u64)(rest >> 64);
                R->loc_lo = lo;
                R->loc_hi = hi;
            }
            return;
        }
        run = __shfl_sync(TR_FULL, incl, 31);
    }
    // Not reached (the counts always reach r): every chunk is gathered.
}

// The chunk of a bf16 row of many chunks where the cut lies, from each
// chunk's value counts (A.topp_cnt). One warp of the row's last histogram
// block.
__device__ __noinline__ void tr_topp_locate(const SampleArgs& A, u32 row, const ToppMap& M) {
    ToppRow* R = tr_topp_state(A, row);
    if (threadIdx.x >= 32 || __ldcg(&R->active) == 0) return;
    const u32 b = __ldcg(&R->bstar);
    if (b == M.np) return;  // the middle bin: masses differ, every chunk is gathered
    const u64 m = __ldcg(&tr_topp_masses(A, row)[b]);
    const u32* counts = A.topp_cnt + (u64)row * A.nchunks * TR_TOPP_VALUES + b;
    tr_topp_locate_runs(
        R, m, A.nchunks, [&](u32 c) { return __ldcg(&counts[(u64)c * TR_TOPP_VALUES]); },
        [&](u32 c, u32& lo, u32& hi) {
            i64 ulo, uhi;
            tr_topp_chunk_units(A, c, ulo, uhi);
            lo = (u32)ulo;
            hi = (u32)uhi;
        });
}

// The segment of a bf16 row of one chunk where the cut lies, from the
// block's segment counts. One warp of the row's (only) histogram block.
__device__ __noinline__ void tr_topp_locate_segs(const SampleArgs& A, u32 row, const ToppMap& M,
                                                 SegCounts cnt, u32 segu, i64 ulo, i64 uhi,
                                                 double a_max, double t, double min_p, double mthr) {
    ToppRow* R = tr_topp_state(A, row);
    if (threadIdx.x >= 32 || __ldcg(&R->active) == 0) return;
    const u32 b = __ldcg(&R->bstar);
    if (b == M.np) return;  // the middle bin: masses differ, the chunk is gathered
    // The mass the select multiplied b*'s count by.
    const u64 m = tr_topp_value_mass(b, M, a_max, t, min_p, mthr);
    tr_topp_locate_runs(
        R, m, cnt.segs, [&](u32 c) { return cnt.seg(c, b); },
        [&](u32 c, u32& lo, u32& hi) {
            const i64 s0 = ulo + (i64)c * segu;
            lo = (u32)s0;
            hi = (u32)min(s0 + (i64)segu, uhi);
        });
}

// The select of an f32/f16 row over its TR_TOPP_BINS bins (its last chunk
// block); resets the bins.
// The row's last block copies its bins into shared memory with every thread
// (a few loads a thread, all in flight at once), and one warp selects from
// there (run 45: its lanes had read their 32 bins each from L2, one load
// after another, 6-15 us of the block at B = 1-256; TR_TOPP_SELECT_SMEM up
// to commit 9db31ea). sbuf: 2 TR_TOPP_BINS words of shared memory free for
// the select (the block's mass sums, flushed).
__device__ __noinline__ void tr_topp_select_bins(const SampleArgs& A, u32 row, u64* sbuf) {
    ToppBin* bins = tr_topp_bins(A, row);
    const u32 lane = threadIdx.x & 31;
    constexpr u32 PER = TR_TOPP_BINS / 32;
    for (u32 b = threadIdx.x; b < TR_TOPP_BINS; b += blockDim.x) {
        sbuf[2 * b] = __ldcg(&bins[b].lo);
        sbuf[2 * b + 1] = __ldcg(&bins[b].hi);
    }
    __syncthreads();
    if (threadIdx.x < 32) {
        // Lane l: bins [PER l, PER (l + 1)), in rank order.
        const u64* sb = sbuf + 2 * lane * PER;
        u128 sum = 0;
#pragma unroll 8
        for (u32 q = 0; q < PER; q++) sum += ((u128)sb[2 * q + 1] << 64) | (u128)sb[2 * q];
        const u128 incl = tr_warp_scan_u128(sum);
        const u128 total = ((u128)__shfl_sync(TR_FULL, (unsigned long long)(u64)(incl >> 64), 31) << 64) |
                           (u128)__shfl_sync(TR_FULL, (unsigned long long)(u64)incl, 31);
        const u128 target = tr_top_p_target(A.top_p[row], total);
        const u128 excl = incl - sum;
        if (excl < target && incl >= target) {
            u128 before = excl;
            for (u32 q = 0; q < PER; q++) {
                const u128 m = ((u128)sb[2 * q + 1] << 64) | (u128)sb[2 * q];
                if (before + m >= target) {
                    tr_topp_found(A, row, lane * PER + q, target - before);
                    break;
                }
                before += m;
            }
        }
    }
    __syncthreads();
    for (u32 b = threadIdx.x; b < TR_TOPP_BINS; b += blockDim.x) {
        bins[b].lo = 0;
        bins[b].hi = 0;
    }
}

// The units of one chunk of a row: g(raw, u) for every unit u (8 elements
// from index 8 u, raw as loaded; positions past the row read as -inf). A
// thread loads UNITS units before it looks at any, so that enough loads are in
// flight to keep the memory busy.
#ifndef TR_TOPP_UNITS
#define TR_TOPP_UNITS 2
#endif
// 1: the gather reads the cut's chunk alone where the histogram located it
// (tr_topp_locate); 0: every chunk (a tuning variant; same results).
#ifndef TR_TOPP_LOCATE
#define TR_TOPP_LOCATE 1
#endif
// Value counts a thread flushes per step (a tuning knob).
#ifndef TR_TOPP_FLUSH
#define TR_TOPP_FLUSH 4
#endif
#ifndef TR_TOPP_GATHER_UNITS
#define TR_TOPP_GATHER_UNITS TR_TOPP_UNITS
#endif
// Units a thread loads before it counts them in a bf16 row's histogram:
// in runs of fewer than 8 units a thread, and in longer runs.
#ifndef TR_TOPP_VALUE_UNITS
#define TR_TOPP_VALUE_UNITS TR_TOPP_UNITS
#endif
#ifndef TR_TOPP_VALUE_UNITS_LONG
#define TR_TOPP_VALUE_UNITS_LONG 4
#endif
// 1: the gather of a value entry tests a unit's raw bits against b*'s
// before it looks at its elements; 0: every element converted and
// compared (a tuning variant; the same list).
#ifndef TR_TOPP_GATHER_LEAN
#define TR_TOPP_GATHER_LEAN 1
#endif
// 1: the histogram tests a unit for middle elements with one borrow test
// a word before it flags them exactly; 0: it flags them in every unit (a
// tuning variant; the same list).
#ifndef TR_TOPP_MID_ANY
#define TR_TOPP_MID_ANY 1
#endif
// The f32/f16 histogram's new loop and the f32/f16 gather's late loop: how
// many iterations ahead each prefetches its units into L1 (0: none; the
// histogram's profile in run 45 put 10% of its stall samples on its loads).
#ifndef TR_TOPP_HIST_PF
#define TR_TOPP_HIST_PF 0
#endif
#ifndef TR_TOPP_GATHER_PF
#define TR_TOPP_GATHER_PF 0
#endif
// Units [ulo, uhi) of a row (a piece of one chunk). PF > 0: each iteration
// first asks L1 for the lines of the units PF iterations on (a prefetch,
// no registers held: a hint only, the loads are the same).
template <int DT, int UNITS = TR_TOPP_UNITS, int POL = 0, int PF = 0, class G>
__device__ __forceinline__ void tr_topp_range(const SampleArgs& A, u32 row, i64 ulo, i64 uhi, G g) {
    typedef typename Elem<DT>::T ET;
    const ET* xrow = (const ET*)A.logits + (u64)row * A.row_stride;
    const bool al = (((u64)xrow) & 15) == 0;
    const i64 step = blockDim.x;
    for (i64 u0 = ulo + threadIdx.x; u0 < uhi; u0 += UNITS * step) {
        if constexpr (PF > 0) {
            // One lane in four: a line holds four f32 units (eight bf16).
            if ((threadIdx.x & (DT == 0 ? 3u : 7u)) == 0) {
#pragma unroll
                for (int k = 0; k < UNITS; k++) {
                    const i64 u = u0 + ((i64)PF * UNITS + k) * step;
                    if (u < uhi) asm volatile("prefetch.global.L1 [%0];" ::"l"(xrow + u * 8));
                }
            }
        }
        Raw8 r[UNITS];
        const i64 ulast = u0 + (UNITS - 1) * step;
        if (al && ulast < uhi && ulast * 8 + 8 <= (i64)A.vocab) {
            // Interior: whole aligned units of this range, 16-byte loads only.
#pragma unroll
            for (int k = 0; k < UNITS; k++) {
                const uint4* p = (const uint4*)(xrow + (u0 + k * step) * 8);
                r[k].v0 = tr_ldg16<POL>(p);
                r[k].v1 = DT == 0 ? tr_ldg16<POL>(p + 1) : make_uint4(0, 0, 0, 0);
            }
        } else {
#pragma unroll
            for (int k = 0; k < UNITS; k++) {
                const i64 u = u0 + k * step;
                r[k] = tr_fetch8<DT, POL>(xrow, u * 8, A.vocab, al, u < uhi);
            }
        }
#pragma unroll
        for (int k = 0; k < UNITS; k++) g(r[k], u0 + k * step);
    }
}
template <int DT, int UNITS = TR_TOPP_UNITS, class G>
__device__ __forceinline__ void tr_topp_units(const SampleArgs& A, u32 row, u32 chunk, G g) {
    i64 ulo, uhi;
    tr_topp_chunk_units(A, chunk, ulo, uhi);
    tr_topp_range<DT, UNITS>(A, row, ulo, uhi, g);
}

// The elements of units [ulo, uhi) of a row: f(x, index) for every element,
// -inf included.
template <int DT, int UNITS = TR_TOPP_UNITS, int PF = 0, class F>
__device__ __forceinline__ void tr_topp_elems(const SampleArgs& A, u32 row, i64 ulo, i64 uhi, F f) {
    tr_topp_range<DT, UNITS, 0, PF>(A, row, ulo, uhi, [&](const Raw8& r, i64 u) {
        float x[8];
        tr_convert8<DT>(r, x);
#pragma unroll
        for (int q = 0; q < 8; q++) f(x[q], (u32)(u * 8 + q));
    });
}
// The elements of one chunk of a row.
template <int DT, int UNITS = TR_TOPP_UNITS, int PF = 0, class F>
__device__ __forceinline__ void tr_topp_chunk(const SampleArgs& A, u32 row, u32 chunk, F f) {
    i64 ulo, uhi;
    tr_topp_chunk_units(A, chunk, ulo, uhi);
    tr_topp_elems<DT, UNITS, PF>(A, row, ulo, uhi, f);
}

// The value entries of the eight bf16 values of a unit, each clamped to at
// most Q.ec (the slot where the elements without a counted entry go): f(x, e)
// for each.
template <class F>
__device__ __forceinline__ void tr_topp_entries8(const Raw8& r, const ToppKeys& Q, F f) {
    const u32 w[4] = {r.v0.x, r.v0.y, r.v0.z, r.v0.w};
    const u32 ec2 = Q.ec | (Q.ec << 16);
#pragma unroll
    for (int j = 0; j < 4; j++) {
        const u32 e2 = tr_min_u16x2(tr_topp_entries2(w[j], Q), ec2);
        f(__uint_as_float(w[j] << 16), e2 & 0xffffu);
        f(__uint_as_float(w[j] & 0xffff0000u), e2 >> 16);
    }
}

// The count of one unit of a bf16 row (tr_topp_hist): each element adds one
// to the count of its entry under Q, clamped to Q.ec (the slot the select
// never reads), in the table at shared address tbl32 (tbl by pointer where
// TR_TOPP_LEAN_COUNT is 0); the elements of the middle entry (mid2: its
// entry, scaled as the increments', in both halves) go into the list s_mid,
// *s_nmid its length (a slot past TR_TOPP_MIDCAP is counted, not written).
__device__ __forceinline__ void tr_topp_count8(const Raw8& r, const ToppKeys& Q, u32 ec2, u32 mid2, u32 tbl32,
                                               u32* tbl, float* s_mid, u32* s_nmid) {
    const u32 w[4] = {r.v0.x, r.v0.y, r.v0.z, r.v0.w};
    u32 e2[4], zany = 0;
#pragma unroll
    for (int j = 0; j < 4; j++) {
        e2[j] = tr_min_u16x2(tr_topp_entries2(w[j], Q), ec2);
        if (TR_TOPP_LEAN_COUNT) {
            asm("shl.b32 %0, %0, 2;" : "+r"(e2[j]));
            tr_red_shared_inc(tbl32 + (e2[j] & 0xffffu));
            tr_red_shared_inc(tbl32 + (e2[j] >> 16));
        } else {
            atomicAdd(&tbl[e2[j] & 0xffffu], 1u);
            atomicAdd(&tbl[e2[j] >> 16], 1u);
        }
        // A zero 16-bit half of h = e2 ^ mid2 (a middle element)
        // sets bit 15 or 31 of (h - 0x10001) & ~h; a borrow can
        // set a bit beside a zero half, never without one.
        const u32 h = e2[j] ^ mid2;
        if (TR_TOPP_MID_ANY) zany |= (h - 0x00010001u) & ~h;
    }
    if (TR_TOPP_MID_ANY && (zany & 0x80008000u) == 0) return;
    // Bit 15 (31) set exactly where the low (high) half of h is 0:
    // a middle element. Element 2j's flag goes to bit 15 - j, element
    // 2j + 1's to bit 31 - j.
    u32 z = 0;
#pragma unroll
    for (int j = 0; j < 4; j++) {
        const u32 h = e2[j] ^ mid2;
        z |= (~(((h & 0x7fff7fffu) + 0x7fff7fffu) | h) & 0x80008000u) >> j;
    }
    if (z == 0) return;
    // The unit's middle elements into the list: one shared atomic.
    u32 slot = atomicAdd(s_nmid, (u32)__popc(z));
    do {
        const u32 b = 31 - __clz(z);
        z ^= 1u << b;
        const u32 j = 15 - (b & 15);
        const u32 wj = j == 0 ? w[0] : j == 1 ? w[1] : j == 2 ? w[2] : w[3];
        const u32 v = b >= 16 ? wj & 0xffff0000u : wj << 16;
        if (slot < TR_TOPP_MIDCAP) s_mid[slot] = __uint_as_float(v);
        slot++;
    } while (z != 0);
}

// L2 eviction priorities of the bf16 histogram's reads of its chunk
// (tr_ldg16): a block without a first pass scans its chunk and then counts
// it, so the scan's lines are kept (1: evict_last) and the count's, read for
// the last time, go first (2: evict_first); at B = 256 on the H200 the
// chunks of the resident blocks (about 64 MB) exceed the L2. 0: no hint (a
// timing variant; the same results).
#ifndef TR_TOPP_SCAN_POL
#define TR_TOPP_SCAN_POL 1
#endif
#ifndef TR_TOPP_COUNT_POL
#define TR_TOPP_COUNT_POL 2
#endif
// 2: a bf16 histogram block without a first pass that does not stage its
// chunk scans and counts it in one read, under a provisional map from a
// sample of the row (tr_topp_fuse_count; every block of a row takes the
// same sample of the whole row, so the row's blocks count under one map);
// 1: only blocks whose row is their one chunk (B >= 265 at V = 131072);
// 0: the scan and then a second read to count (timing variants; the same
// results). Run 46 (docs/cuda-notes.md), H100, top-p 0.9 per call: B =
// 1024 -62 us with 1 or 2, B = 256 -15.6 us with 2 (none with 1).
#ifndef TR_TOPP_FUSE
#define TR_TOPP_FUSE 2
#endif
// Most units a thread of a bf16 histogram block without a first pass copies
// into shared memory (cp.async, all of them in flight at once) and scans
// there, so that its count reads them there too and not from L2 again, where
// its chunk has at most that many a thread and the launch (of
// tr_topp_hist_stage_bf16) gave it the room for them (the host's
// TOPP_STAGE_UNITS and launch::topp_stage_smem; the host stages only where
// every row's cluster is resident at once with that room: B <= 32 at V =
// 131072 on the H200, 8 units a thread and 32 KiB at B = 32). 0: the scan
// loads its chunk and the count reads it again (a timing variant; the same
// results).
#ifndef TR_TOPP_STAGE
#define TR_TOPP_STAGE 16
#endif
// Units of one cp.async group of the staging: the scan takes a group's units
// as soon as they have landed, while the later groups are in flight.
#define TR_TOPP_STAGE_GROUP 4
// The staging area's byte offset from the tables' base: past the first table,
// 16-byte aligned (the host's TOPP_STAGE_AT).
#define TR_TOPP_STAGE_AT ((((TR_TOPP_VALUES + 1) * 4) + 15) & ~15u)
// A 16-byte copy into shared memory (cp.async, bypassing L1) with the L2
// priority POL of tr_ldg16; and a wait for all but at most n of this
// thread's committed groups (n clamped to 3).
template <int POL>
__device__ __forceinline__ void tr_cp16_pol(u32 saddr, const void* g) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if (POL == 0) {
        tr_cp16(saddr, g);
        return;
    }
    u64 pol;
    if (POL == 1)
        asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
    else
        asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
    asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;" ::"r"(saddr), "l"(g), "l"(pol)
                 : "memory");
#else
    tr_cp16(saddr, g);
#endif
}
// A copy of N (4 or 8) bytes into shared memory (cp.async, through L1).
template <int N>
__device__ __forceinline__ void tr_cp_small(void* dst, const void* g) {
    const u32 saddr = (u32)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(saddr), "l"(g), "n"(N) : "memory");
}
__device__ __forceinline__ void tr_cp_wait_upto(u32 n) {
    if (n == 0)
        tr_cp_wait<0>();
    else if (n == 1)
        tr_cp_wait<1>();
    else if (n == 2)
        tr_cp_wait<2>();
    else
        tr_cp_wait<3>();
}

// Thread block clusters (sm_90): a row's histogram blocks as one cluster
// (A.topp_own_max with A.nchunks > 1; the host launches them so). Every
// thread of every block of the cluster calls each barrier.
__device__ __forceinline__ void tr_cluster_arrive_relaxed() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
#endif
}
__device__ __forceinline__ void tr_cluster_arrive() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
#endif
}
__device__ __forceinline__ void tr_cluster_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
#endif
}
// The same shared variable in block `rank` of the cluster (its shared::cluster
// address).
__device__ __forceinline__ u32 tr_cluster_peer(const void* p, u32 rank) {
    u32 r = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const u32 a = (u32)__cvta_generic_to_shared(p);
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank));
#endif
    return r;
}
__device__ __forceinline__ void tr_cluster_st_u64(u32 addr, u64 v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("st.shared::cluster.u64 [%0], %1;" ::"r"(addr), "l"(v) : "memory");
#endif
}

__device__ __forceinline__ u32 tr_cluster_ld_u32(u32 addr) {
    u32 v = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(addr));
#endif
    return v;
}

// Most blocks of a row's cluster (the host's TOPP_CLUSTER_MAX: 16, the
// largest cluster an H100/H200 launches, with the non-portable opt-in).
#define TR_TOPP_CLUSTER_MAX 16u

// The first pass's work for a bf16 top-p row, done by its histogram blocks
// where no first pass ran (A.topp_own_max: every row of the batch a binned
// top-p row with a pending cut; the host knows): each thread's scan of its
// units of the block's chunk (acc: status flags, the first maximum; the
// caller's tr_scan, or its ScanAcc over the units it stages) is combined
// over the block as the pass combines its warps, and the block hands (flags,
// maximum, index) to every block of the row's cluster through distributed
// shared memory; each block
// then combines the row's partials (the order-free combine of the pass:
// flags or'ed, the larger maximum, equal ones to the smaller index) and so
// has the row's record, which chunk 0 writes as the first pass would
// (tr_row_state). The same record, so every later kernel is unchanged. For
// a row of many chunks the caller opened a cluster barrier phase at the
// kernel's start (tr_cluster_arrive_relaxed), whose wait here makes sure
// every block has begun before any writes into another's shared memory.
// Leaves the row's state in *s_st, the index of its maximum (the first in
// index order) in *s_top where given, and returns whether the row goes on
// (status 0). Every thread of the block calls it. Inlined: as a call it
// made the histogram keep more across it (ptxas for sm_90: 156 bytes of
// spill stores in tr_topp_hist_bf16 against 68 inlined, 92 without it).
__device__ __forceinline__ bool tr_topp_own_max(const SampleArgs& A, u32 row, u32 chunk, RowState* s_st,
                                                u32* s_top, const Acc& acc) {
    // Slot c: chunk c's partial, written by that chunk's block (a row of
    // many chunks) or by this block (one chunk).
    __shared__ u64 s_part[TR_TOPP_CLUSTER_MAX][2];
    __shared__ double s_ma[TR_MAX_WARPS];
    __shared__ u32 s_mi[TR_MAX_WARPS], s_flags[TR_MAX_WARPS];
    tr_phase(11);
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    u32 flags = (__any_sync(TR_FULL, acc.bad) ? 1u : 0u) | (__any_sync(TR_FULL, acc.any) ? 2u : 0u);
    double ma = acc.max_a;
    u32 mi = acc.max_i;
    tr_warp_best(ma, mi);
    if (lane == 0) {
        s_flags[warp] = flags;
        s_ma[warp] = ma;
        s_mi[warp] = mi;
    }
    __syncthreads();
    const u32 nc = A.nchunks;
    if (warp == 0) {
        flags = 0;
        ma = tr_ninf();
        mi = TR_NO_TOKEN;
        if (lane < nwarps) {
            flags = s_flags[lane];
            ma = s_ma[lane];
            mi = s_mi[lane];
        }
        flags = __reduce_or_sync(TR_FULL, flags);
        tr_warp_best(ma, mi);
    }
    const u64 w0 = (u64)__double_as_longlong(ma), w1 = ((u64)flags << 32) | mi;
    if (nc == 1) {
        if (threadIdx.x == 0) {
            s_part[0][0] = w0;
            s_part[0][1] = w1;
        }
        __syncthreads();
    } else {
        // Every block has begun (the caller's first phase); lane p of warp 0
        // writes this chunk's partial into block p, then the second phase
        // makes the writes visible to their owners.
        tr_cluster_wait();
        if (warp == 0 && lane < nc) {
            const u32 at = tr_cluster_peer(&s_part[chunk][0], lane);
            tr_cluster_st_u64(at, w0);
            tr_cluster_st_u64(at + 8, w1);
        }
        tr_cluster_arrive();
        tr_cluster_wait();
    }
    tr_phase(12);
    if (warp == 0) {
        flags = 0;
        ma = tr_ninf();
        mi = TR_NO_TOKEN;
        if (lane < nc) {
            ma = __longlong_as_double((long long)s_part[lane][0]);
            flags = (u32)(s_part[lane][1] >> 32);
            mi = (u32)s_part[lane][1];
        }
        flags = __reduce_or_sync(TR_FULL, flags);
        tr_warp_best(ma, mi);
        if (lane == 0) {
            u8 status;
            u32 token;
            const RowState r = tr_row_state(flags, ma, mi, TR_NO_TOKEN, false, true, false, status, token);
            if (chunk == 0) {
                A.rowstate[row] = r;
                A.out_token[row] = token;
                A.out_status[row] = status;
            }
            *s_st = r;
            if (s_top != nullptr) *s_top = mi;
        }
    }
    __syncthreads();
    return s_st->need_race != 0;
}

// Entries of the value map a thread of tr_topp_cluster_select holds: a row
// of at least two chunks gives a block at most TR_TOPP_VALUES / 2 entries,
// eight for each of its 256 threads (TR_TOPP_BOUNDS).
#define TR_TOPP_CSEL_PER 8u
static_assert(TR_TOPP_VALUES <= 2u * 256u * TR_TOPP_CSEL_PER, "a cluster select's share fits");
// Masses of a thread's run in tr_topp_cluster_select computed side by side
// (a divisor of TR_TOPP_CSEL_PER; 1: one call after another, the shape
// before run 30, a timing variant with the same results).
#ifndef TR_TOPP_CSEL_ILP
#define TR_TOPP_CSEL_ILP 4u
#endif
// Runs of at least this many entries (clusters of at most four blocks:
// B >= 64 at V = 131072 on the H200): tr_topp_cluster_select adds its
// chunk's middle masses by warp sums in shared slots; shorter runs, or 0:
// each thread adds its own with a 128-bit shared atomic (two 64-bit
// atomicAdds, each a compare-and-swap loop in the SASS, most of the block's
// threads on one address; the shape before run 30, a timing variant with
// the same results). Measured on the H200 (docs/cuda-notes.md, run 30):
// top-p 0.9 B = 256 115.9 -> 111.6 and 117.5 -> 113.1 us per call in two
// calls, B = 64 63.5 -> 60.8 in the first and no change in the second; at B
// <= 32 the warp sums read 0.9-1.2 us slower per call.
#ifndef TR_TOPP_CSEL_MID_WARP
#define TR_TOPP_CSEL_MID_WARP 4u
#endif
static_assert(TR_TOPP_CSEL_PER % TR_TOPP_CSEL_ILP == 0, "TR_TOPP_CSEL_ILP divides the run");

// ---- The race in the histogram (TR_TOPP_RACE) ----
//
// A batch without a first pass whose rows run as one cluster each (the
// cluster select below) races each exact-profile row in its histogram
// blocks, so that the race kernel, which would read the row once more, has
// nothing left to do for the rows they settle. The cut is not known while
// the blocks count, but a lower bound of the winner's score is: the row's
// first maximum (rank 1) is kept by every top-p and min-p cut, so the
// winner's score is at least its exact score L0, which every block computes
// once the row's maximum is known. Every element whose score's upper bound
// reaches L0 is a survivor (the winner is one): the count tests each unit
// as the race tests a candidate (its largest value against the cutoff of
// its smallest lead's class, the cutoffs computed from L0 as the race's
// are from its threshold), and a unit that passes tests its elements one
// by one (tr_topp_survive), listing each survivor in the block's region of
// the row's list in global memory (TR_TOPP_SURV_ROW). The block that finds
// the cut (its pending record: value v*, the q-th of the row's nstar
// elements of that value by index) races the survivors the cut keeps for
// sure: those above v*, and of value v* every one where q = nstar, else the
// row's first maximum alone (tr_topp_race_settle). Were a survivor of value
// v* that the cut may drop better than their best, only the cut's index,
// which the race kernel finds, would tell: such a row stays pending, as does
// a row whose block listed more survivors than its region holds, and a row
// whose cut is not pending (its fallback). A settled row's record says so
// (need_race 0, pad0 3: the cut's value and q are kept, its index is not
// known) and the race kernel's blocks leave it. The same token as the race
// kernel's: the winner of the same exact scores. tests/topp_race_model.rs
// runs this algorithm on the host against the CPU model;
// examples/topp_race_study.rs counts the survivors and exact scores it
// takes on the benchmark's rows (docs/cuda-notes.md, run 31).
// Off (0: the race kernel races every row). Checked correct on the H200 and
// measured slower (docs/cuda-notes.md, run 34): top-p 0.9 bf16 V = 131072
// per call B = 1 36.2 -> 50.7 us, B = 64 65.0 -> 133.4, B = 256 114.2 ->
// 281.2; the count loop with a Philox block a unit took 26.7 us at B = 64
// against 6.6, and the settling block's exact rounds 12.9 more.
#ifndef TR_TOPP_RACE
#define TR_TOPP_RACE 0
#endif
// Units a thread of a racing block loads at once in the count (not staged).
#ifndef TR_TOPP_RACE_UNITS
#define TR_TOPP_RACE_UNITS 2
#endif
// Survivors a row's list holds, split evenly between the row's blocks: the
// row's bf16 value masses and its bin list, one run of u64 words that a
// batch of this path uses for nothing else (its select keeps the counts in
// the cluster, its race kernel's pending lists come after this kernel; the
// masses are written before they are read wherever they are used, and the
// f32/f16 bins, which must stay zero, lie before them). 8,192 a row: on the
// benchmark's rows the most survivors in one chunk of 48 rows were 3,103,
// 1,592 and 428 at 2, 4 and 16 chunks (examples/topp_race_study.rs).
#define TR_TOPP_SURV_ROW (TR_TOPP_VALUES + TR_TOPP_CAP * 2u)
static_assert(TR_TOPP_BINS * 3 + TR_TOPP_VALUES == TR_TOPP_HIST_U64, "the masses end where the bin list begins");
// Warps of a histogram block (TR_TOPP_BOUNDS), each with its own cutoffs.
#define TR_TOPP_WARPS 8u

// A block's region of its row's survivor list, and the region's size.
__device__ __forceinline__ u32 tr_topp_surv_cap(const SampleArgs& A) { return TR_TOPP_SURV_ROW / A.nchunks; }
__device__ __forceinline__ u64* tr_topp_surv_at(const SampleArgs& A, u32 row, u32 chunk) {
    return tr_topp_masses(A, row) + (u64)chunk * tr_topp_surv_cap(A);
}

// The survivors of a unit that passed the unit test (rare: cold code): each
// element (value bits in w, lead from the unit's lead block lb) whose value
// reaches the cutoff of its lead's class goes to the block's region as
// (index, value bits, lead) in one word; the count n still rises past the
// region's cap (the row is then left to the race kernel).
__device__ __noinline__ void tr_topp_survive(const uint4 w, const uint4 lb, u32 u, const float* cut,
                                             u64* list, u32 cap, u32* n) {
#pragma unroll
    for (u32 k = 0; k < 8; k++) {
        const u32 x = tr_word(w, k >> 1), h = (k & 1) ? x >> 16 : x & 0xffffu;
        const u32 lead = tr_lead_prefix(lb, k);
        if (__uint_as_float(h << 16) >= cut[tr_lead_class(lead)]) {
            const u32 slot = atomicAdd(n, 1u);
            if (slot < cap) list[slot] = ((u64)(lead >> 16) << 48) | ((u64)h << 32) | (u64)(u * 8 + k);
        }
    }
}

// What the count hands the cluster select of a racing row.
struct ToppRace {
    bool row;     // the row races (every block of its cluster knows the same)
    bool on;      // this block listed its survivors (else its count is TR_TOPP_NONE)
    u32 top;      // the row's first maximum
    u64 seed, pos;
    u32 n;        // the block's survivors (more than its region's cap: too many)
};

// The row's token from its blocks' survivors (every thread of the block that
// found the pending cut of value vs; nsurv[k]: chunk k's count, TR_TOPP_NONE
// where it listed too many or none): the best survivor the cut keeps for sure
// (above vs; of value vs where all, every element of that value is kept, or
// the row's first maximum). Each thread's survivors in two rounds: its
// largest bound first, exactly (the block's best of those is a high
// threshold at once), then those whose bound reaches the block's best. Not
// settled where some chunk's count is missing, or a survivor of value vs the
// cut may drop would beat the best (the race kernel then settles the row).
__device__ __noinline__ void tr_topp_race_settle(const SampleArgs& A, u32 row, const ToppRace& R, float vs,
                                                 bool all, const u32* nsurv) {
    __shared__ double s_s[TR_MAX_WARPS];
    __shared__ u32 s_i[TR_MAX_WARPS];
    const u32 nc = A.nchunks, cap = tr_topp_surv_cap(A);
    u32 total = 0;
    for (u32 k = 0; k < nc; k++) {
        if (nsurv[k] > cap) return;  // the same in every thread
        total += nsurv[k];
    }
    const double neg_t = -A.temperature[row];
    // Survivor x of the row: chunk k's j-th, in chunk order.
    auto at = [&](u32 x) {
        u32 k = 0;
        while (x >= nsurv[k]) x -= nsurv[k++];
        return __ldcg(tr_topp_surv_at(A, row, k) + x);
    };
    auto value = [](u64 w) { return __uint_as_float(((u32)(w >> 32) & 0xffffu) << 16); };
    auto bound = [&](u64 w) {
        return __fma_rn(neg_t, tr_lead_lower_bound((u32)(w >> 48) << 16), (double)value(w));
    };
    auto exact = [&](u64 w) {
        return tr_exact_score(neg_t, R.seed, R.pos, (u32)w, (u32)(w >> 48) << 16, (double)value(w));
    };
    auto kept = [&](u64 w) {
        const float a = value(w);
        return a > vs || (a == vs && (all || (u32)w == R.top));
    };
    // 1. Each thread's kept survivor of the largest bound (the first of
    // equal ones), exactly.
    double bs = tr_ninf();
    u32 bi = TR_NO_TOKEN, first = TR_TOPP_NONE;
    double fb = tr_ninf();
    for (u32 x = threadIdx.x; x < total; x += blockDim.x) {
        const u64 w = at(x);
        if (!kept(w)) continue;
        const double b = bound(w);
        if (b > fb) {
            fb = b;
            first = x;
        }
    }
    if (first != TR_TOPP_NONE) {
        const u64 w = at(first);
        bs = exact(w);
        bi = (u32)w;
    }
    tr_block_best(bs, bi, s_s, s_i);
    __syncthreads();  // s_s and s_i are read before the next best writes them
    // 2. The others whose bound reaches that best (pruning is strict: equal
    // scores are evaluated, and the smaller index wins).
    for (u32 x = threadIdx.x; x < total; x += blockDim.x) {
        if (x == first) continue;
        const u64 w = at(x);
        if (!kept(w) || bound(w) < bs) continue;
        const double sc = exact(w);
        if (tr_better(sc, (u32)w, bs, bi)) {
            bs = sc;
            bi = (u32)w;
        }
    }
    tr_block_best(bs, bi, s_s, s_i);
    // 3. Survivors of value vs the cut may drop: settled only if none beats
    // the best.
    bool open = false;
    for (u32 x = threadIdx.x; x < total; x += blockDim.x) {
        const u64 w = at(x);
        if (kept(w) || value(w) != vs || bound(w) < bs) continue;
        open |= tr_better(exact(w), (u32)w, bs, bi);
    }
    if (__syncthreads_or(open) || bi == TR_NO_TOKEN) return;
    if (threadIdx.x == 0) {
        RowState* S = &A.rowstate[row];
        S->need_race = 0;
        S->pad0 = 3;
        A.out_token[row] = bi;
        A.out_status[row] = 0;
    }
}

// One element's mass of value entry e, as a call: the select below evaluates
// it in a few places, and its code runs cold (once a row).
__device__ __noinline__ u64 tr_topp_value_mass_call(u32 e, const ToppMap& M, double a_max, double t,
                                                    double min_p, double mthr) {
    return tr_topp_value_mass(e, M, a_max, t, min_p, mthr);
}

// ---- The race after the cut, in the cluster (TR_TOPP_SETTLE) ----
//
// 1: a pending row whose histogram blocks run as one cluster (the cluster
// select below) is raced by those blocks once its cut is known, and the race
// kernel, whose blocks then leave the row (need_race 0), neither reads the
// row again nor runs the pending finish. The block that finds the cut hands
// every block c its value v* (entry b*), rank q and n_<c, the count of v*
// in the chunks before c (read from the blocks' count tables, distributed
// shared memory, before the third cluster barrier; no block reads another's
// memory after it). Chunks are index ranges in order, so block c keeps its
// elements of value v* up to the (q - n_<c)-th by index, and the one block
// holding the q-th finds its index (the cut). Each block then runs the race
// kernel's exact race (tr_race_exact, the same code: class cutoffs, a unit
// test a lead block, the block pilot, strict pruning, the smaller index on
// ties) over its chunk with the cut as its filter (tr_keeps: above v*, or
// v* up to the cut's index), its warps' queues in the block's dynamic
// shared memory over its count tables (no longer read). The blocks' bests
// and the cut go to block 0 (a fourth barrier), which writes the token and
// the cut as the pending finish would (pad0 1, cut_index). The same token:
// the winner of the same exact scores among the same kept elements. 0: the
// race kernel races every pending row (its finish finds the cut's index).
// Off: checked correct on an H100 and measured no faster (docs/cuda-notes.md,
// run 43): top-p 0.9 bf16 V = 131072 per call +2.5 / +1.9 / +18.2 / +69.4
// us at B = 1 / 8 / 64 / 256 (B <= 8 within the A/A); at B = 1 the stretch
// from the cut to the token took 10.7 us, what the race kernel's whole pass
// takes (the race at small B is a chain of latencies, wherever it runs).
// Run 42's first form (its own two passes, a binary64 bound an element)
// took 22 us there.
#ifndef TR_TOPP_SETTLE
#define TR_TOPP_SETTLE 0
#endif
static_assert(!(TR_TOPP_SETTLE && TR_TOPP_RACE), "one race of a pending row in the histogram");
static_assert(TR_TOPP_PEND_CAP <= TR_TOPP_MIDCAP, "the cut's elements of a chunk fit the middle list");

// What block 0 collects from each block of a settling row.
struct ToppSettleSlot {
    double s;   // the block's best score (-inf: none)
    u32 i;      // its index (TR_NO_TOKEN: none)
    u32 cut;    // the cut's index, from the block holding it (else TR_NO_TOKEN)
};

// Every thread of every block of the row's cluster, after the third barrier
// (see above): the row's value v* (bf16 bits h), its entry b in the count
// tables, q and n_<c (before); h_cnt this block's table (its own; the race's
// queues overwrite it); vlist TR_TOPP_PEND_CAP words of scratch; staged: the
// chunk's units are in shared memory after the tables.
__device__ __noinline__ void tr_topp_settle(const SampleArgs& A, u32 row, u32 chunk, const u32* h_cnt,
                                            u32 b, u32 h, u32 q, u32 before, bool staged, u32* vlist,
                                            ToppSettleSlot* slots) {
    __shared__ double s_s[TR_MAX_WARPS];
    __shared__ u32 s_i[TR_MAX_WARPS];
    __shared__ u32 s_vn, s_vcut;
    __shared__ u64 s_thr;
    const u64 seed = A.seed[row], pos = A.position[row];
    const double neg_t = -A.temperature[row];
    const float vs = __uint_as_float(h << 16);
    if (threadIdx.x == 0) {
        s_vn = 0;
        s_vcut = TR_NO_TOKEN;
        s_thr = tr_dkey(tr_ninf());
    }
    i64 ulo, uhi;
    tr_topp_chunk_units(A, chunk, ulo, uhi);
    const u16* xrow = (const u16*)A.logits + (u64)row * A.row_stride;
    const bool al = (((u64)xrow) & 15) == 0;
    const i64 elo = (i64)chunk * A.chunk_len, ehi = min(elo + (i64)A.chunk_len, (i64)A.vocab);
    const u32 own = h_cnt[b];
    __syncthreads();
    // v* elements kept here: none (lq <= 0), all (lq > own), or those up to
    // the lq-th by index, whose index is the cut.
    const bool none = q <= before, all = q > before + own;
    if (!none && !all) {
        const uint4* const stage = (const uint4*)((const char*)h_cnt + TR_TOPP_STAGE_AT);
        const u32 lq = q - before, per = (u32)((uhi - ulo + blockDim.x - 1) / blockDim.x);
        for (u32 k = 0; k < per; k++) {
            const i64 u = ulo + threadIdx.x + (i64)k * blockDim.x;
            if (u >= uhi) break;
            Raw8 r;
            if (staged) {
                r.v0 = stage[k * blockDim.x + threadIdx.x];
                r.v1 = make_uint4(0, 0, 0, 0);
            } else {
                r = tr_fetch8<1>(xrow, u * 8, A.vocab, al, true);
            }
            const u32 w[4] = {r.v0.x, r.v0.y, r.v0.z, r.v0.w};
#pragma unroll
            for (u32 j = 0; j < 8; j++) {
                const i64 i = u * 8 + j;
                if (((w[j >> 1] >> (16 * (j & 1))) & 0xffffu) != h || i < elo || i >= ehi) continue;
                const u32 slot = atomicAdd(&s_vn, 1u);
                if (slot < TR_TOPP_PEND_CAP) vlist[slot] = (u32)i;
            }
        }
        __syncthreads();
        const u32 n = min(s_vn, TR_TOPP_PEND_CAP);
        for (u32 j = threadIdx.x; j < n; j += blockDim.x) {
            const u32 i = vlist[j];
            u32 below = 0;
            for (u32 m = 0; m < n; m++) below += vlist[m] < i ? 1u : 0u;
            if (below + 1 == lq) s_vcut = i;
        }
        __syncthreads();
    }
    // The cut as the race's filter: above v* (none: from the next bf16 value
    // up, v* below +inf), v* up to the cut's index, or every v*.
    const u32 vcut = (none || all) ? TR_NO_TOKEN : s_vcut;
    const u32 up = (h & 0x8000u) ? h - 1 : h + 1;
    const double cut_a = (double)__uint_as_float((none ? up : h) << 16);
    // The queues: the block's dynamic shared memory (at least one count
    // table), at most A.queue_cap entries a warp.
    const u32 nwarps = blockDim.x >> 5;
    const u32 cap = min(A.queue_cap, tr_dyn_smem_bytes() / (nwarps * 16));
    Acc acc = tr_acc_empty();
    tr_race_exact<1, false, false, TR_FAST_PILOT, false, true>(xrow, nullptr, al, false, A.vocab, elo, ehi,
                                                               neg_t, seed, pos, cut_a, vcut, cap, &s_thr,
                                                               acc);
    double bs = acc.best_s;
    u32 bi = acc.best_i;
    tr_block_best(bs, bi, s_s, s_i);
    // Into block 0's slots; after the barrier no block reads another's
    // memory.
    if (threadIdx.x == 0) {
        const u32 at = tr_cluster_peer(&slots[chunk], 0);
        tr_cluster_st_u64(at, (u64)__double_as_longlong(bs));
        tr_cluster_st_u64(at + 8, (u64)bi | ((u64)(!none && !all ? vcut : TR_NO_TOKEN) << 32));
    }
    tr_cluster_arrive();
    tr_cluster_wait();
    if (chunk != 0 || threadIdx.x != 0) return;
    double s = tr_ninf();
    u32 i = TR_NO_TOKEN, cut = TR_NO_TOKEN;
    for (u32 k = 0; k < A.nchunks; k++) {
        if (tr_better(slots[k].s, slots[k].i, s, i)) {
            s = slots[k].s;
            i = slots[k].i;
        }
        cut = min(cut, slots[k].cut);
    }
    RowState* S = &A.rowstate[row];
    S->need_race = 0;
    S->cut_index = cut;
    S->pad0 = 1;
    A.out_token[row] = i;
    A.out_status[row] = 0;
}

// ---- The cut's index in the cluster (TR_TOPP_CUT_INDEX) ----
//
// 1: a row that the cluster select records as pending (its cut's value v*,
// entry b*, and rank q among the elements of v* in index order) gets its
// cut's index there too, so that the race kernel races it as a row whose
// cut is known (pad0 1) and neither lists the units of v* nor runs the
// pending finish (about 4-5 us in the race's last block at B = 1 and 64:
// docs/cuda-notes.md, run 40). The other blocks of the cluster wait at a
// third cluster barrier instead of leaving after the second, so that the
// block that found the cut can read every block's count of b* (distributed
// shared memory) before it arrives; that block then reads the chunk holding
// the q-th element of v* (the counts before it are below q, with its own
// they reach q) and takes its element of rank q - n_< by index. The same
// cut as the pending finish finds: chunks are index ranges in order. Where
// the chunk holds more than TR_TOPP_CUT_INDEX_UNITS units a thread the row
// stays pending (the read would cost more than the finish saves). 0: the
// race kernel's pending finish finds the index. Off: checked correct on an
// H100 and measured no faster (docs/cuda-notes.md, run 43): top-p 0.9 bf16
// V = 131072 per call -0.3 / +0.2 / +7.5 / +1.6 us at B = 1 / 8 / 64 / 256
// (B = 1, 8 and 256 within the A/A); at B = 1 the race kernel's last block
// ended 4.7 us sooner and the histogram 4.5 us later (this stretch, one
// block's code run once a call, took what the finish took).
#ifndef TR_TOPP_CUT_INDEX
#define TR_TOPP_CUT_INDEX 0
#endif
#ifndef TR_TOPP_CUT_INDEX_UNITS
#define TR_TOPP_CUT_INDEX_UNITS 16u
#endif
static_assert(!(TR_TOPP_CUT_INDEX && (TR_TOPP_SETTLE || TR_TOPP_RACE)), "one way to finish a pending row");

// Every thread of the block that recorded the row as pending (cut value v*,
// bf16 bits h, entry b, rank q), after the record's barrier: reads every
// block's count of b*, arrives at the cluster barrier the other blocks wait
// at, and where the chunk holding the q-th element of v* is short enough,
// finds that element and records the row's cut (pad0 1, cut_index). vlist:
// TR_TOPP_PEND_CAP words of scratch.
__device__ __noinline__ void tr_topp_cut_index(const SampleArgs& A, u32 row, const u32* h_cnt, u32 b,
                                               u32 h, u32 q, u32* vlist) {
    __shared__ u32 s_cnt[TR_TOPP_CLUSTER_MAX];
    __shared__ u32 s_vn, s_cut;
    const u32 nc = A.nchunks, lane = threadIdx.x & 31;
    if (threadIdx.x < 32) {
        const u32 n = lane < nc ? tr_cluster_ld_u32(tr_cluster_peer(h_cnt + b, lane)) : 0u;
        if (lane < nc) s_cnt[lane] = n;  // (the loads are done before the arrive)
        if (lane == 0) {
            s_vn = 0;
            s_cut = TR_NO_TOKEN;
        }
    }
    __syncthreads();
    tr_cluster_arrive();
    // The chunk holding the q-th element of v*, and its rank there.
    u32 c = 0, before = 0;
    while (c < nc && before + s_cnt[c] < q) before += s_cnt[c++];
    i64 ulo, uhi;
    if (c < nc) tr_topp_chunk_units(A, c, ulo, uhi);
    if (c >= nc || (u64)(uhi - ulo) > (u64)TR_TOPP_CUT_INDEX_UNITS * blockDim.x) return;
    const u32 lq = q - before;
    const u16* xrow = (const u16*)A.logits + (u64)row * A.row_stride;
    const bool al = (((u64)xrow) & 15) == 0;
    const i64 elo = (i64)c * A.chunk_len, ehi = min(elo + (i64)A.chunk_len, (i64)A.vocab);
    for (i64 u = ulo + threadIdx.x; u < uhi; u += blockDim.x) {
        const Raw8 r = tr_fetch8<1>(xrow, u * 8, A.vocab, al, true);
        const u32 w[4] = {r.v0.x, r.v0.y, r.v0.z, r.v0.w};
#pragma unroll
        for (u32 j = 0; j < 8; j++) {
            const i64 i = u * 8 + j;
            if (((w[j >> 1] >> (16 * (j & 1))) & 0xffffu) != h || i < elo || i >= ehi) continue;
            const u32 slot = atomicAdd(&s_vn, 1u);
            if (slot < TR_TOPP_PEND_CAP) vlist[slot] = (u32)i;
        }
    }
    __syncthreads();
    const u32 n = s_vn;
    if (n > TR_TOPP_PEND_CAP) return;  // not reached (n <= the row's count <= the cap)
    for (u32 j = threadIdx.x; j < n; j += blockDim.x) {
        const u32 i = vlist[j];
        u32 below = 0;
        for (u32 m = 0; m < n; m++) below += vlist[m] < i ? 1u : 0u;
        if (below + 1 == lq) s_cut = i;
    }
    __syncthreads();
    if (threadIdx.x == 0 && s_cut != TR_NO_TOKEN) {
        RowState* S = &A.rowstate[row];
        S->cut_index = s_cut;
        S->pad1 = 0xffffffffu;  // the mark of this path (the host's RecordedCut::Clustered)
        S->pad0 = 1;            // the cut known: the race kernel races the row as any filter row
    }
}

// The select of a bf16 row of many chunks whose blocks run as one cluster
// (A.topp_own_max with A.topp_pend: no first pass, pending cuts). The row's
// value counts stay in its blocks' shared memory, and no block waits for the
// others' global writes or for a last block: block c takes the entries
// [c S, (c + 1) S) of the map (S = ceil(M.e / nchunks)), sums their counts
// over every block's table (distributed shared memory), multiplies them by
// their masses, adds up its chunk's middle elements' masses, and hands both
// sums to every block. Each block then has the row's total Q, the target
// ceil(p Q) and the mass before its share (integer sums: the order does not
// matter; the middle entry's mass, the sum of every chunk's middle masses,
// sits at entry M.np of the rank order), so the one block whose share
// reaches the target finds b* and r as tr_topp_select_values does (the
// first entry, in rank order, where the running mass reaches the target)
// and records the row as pending as tr_topp_pend does; where it cannot (b*
// the middle entry, more than TR_TOPP_PEND_CAP elements of v*), or where no
// share reaches the target (block 0 then), that block runs the fallback. The
// same b*, r and record as the row's last block would find (the check
// compares the two: `first_pass_always`). The global count table, the middle
// sums and the arrival counter are not used (they stay zero). h_cnt is this
// block's count table, complete (the caller's barrier); mids its nmid middle
// values (the list), msum the masses of those the caller added itself (a
// full list); R the row's race where the build has one (TR_TOPP_RACE), else
// null. Every thread of every block of the cluster calls it; no block reads
// another's memory after the second barrier, so any block may leave after
// it.
__device__ __noinline__ void tr_topp_cluster_select(const SampleArgs& A, u32 row, u32 chunk,
                                                    const RowState& st, const ToppMap& M,
                                                    const u32* h_cnt, const float* mids, u32 nmid,
                                                    u128 msum, const ToppRace* R) {
    // Chunk c's share of the row's mass without the middle entry, then its
    // middle elements' masses (lo, hi each).
    __shared__ u64 s_share[TR_TOPP_CLUSTER_MAX][4];
    __shared__ u64 s_mid_lo, s_mid_hi;       // this chunk's middle masses
    __shared__ u64 s_wmid[TR_MAX_WARPS][2];  // ... by warp (TR_TOPP_CSEL_MID_WARP)
    __shared__ u32 s_walk[TR_TOPP_CSEL_PER];  // the counts of the run holding the target
    __shared__ u32 s_seg, s_pend;
    __shared__ u64 s_before_lo, s_before_hi;
    // The race (R.row): every block's survivor count (TR_TOPP_NONE: too
    // many, or none listed); the cut's value.
    __shared__ u32 s_nsurv[TR_TOPP_RACE ? TR_TOPP_CLUSTER_MAX : 1];
    __shared__ float s_vstar;
    __shared__ bool s_vall;
    // The race after the cut (TR_TOPP_SETTLE): the cut from the block that
    // found it (pending or not, b*, v*'s bits, q), each block's best.
    __shared__ __align__(16) u32 s_cutmsg[TR_TOPP_SETTLE ? 6 : TR_TOPP_CUT_INDEX ? 4 : 1];
    __shared__ ToppSettleSlot s_slots[TR_TOPP_SETTLE ? TR_TOPP_CLUSTER_MAX : 1];
    const u32 nc = A.nchunks, lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const u32 share = (M.e + nc - 1) / nc;
    const u32 s0 = min(chunk * share, M.e), s1 = min(s0 + share, M.e);
    const u32 per = (share + blockDim.x - 1) / blockDim.x;
    if (per > TR_TOPP_CSEL_PER) {
        // Not reached (M.e <= TR_TOPP_VALUES, nchunks >= 2, 256 threads); the
        // same decision in every block, before any barrier.
        if (chunk == 0) tr_topp_hist_fallback(A, row, st);
        return;
    }
    // The row's parameters (their round trip overlaps the barrier).
    const double t = A.temperature[row], min_p = A.min_p[row], top_p = A.top_p[row];
    if (threadIdx.x == 0) {
        s_seg = TR_TOPP_NONE;
        s_pend = 0;
        s_mid_lo = s_mid_hi = 0;
    }
    // 1. Every block's counts visible to every block.
    tr_cluster_arrive();
    tr_cluster_wait();
    tr_phase(5);
    const double a_max = st.a_max;
    const double mthr = min_p > 0.0 ? tr_min_p_threshold(t, min_p) : 0.0;
    // 2. This thread's run of the block's share: its counts summed over the
    // row's tables (every load issued before the first is used); the chunk's
    // middle masses meanwhile; then the run's mass.
    const u32 e0 = min(s0 + threadIdx.x * per, s1), n = min(e0 + per, s1) - e0;
    u32 c[TR_TOPP_CSEL_PER];
#pragma unroll
    for (u32 j = 0; j < TR_TOPP_CSEL_PER; j++) c[j] = 0;
    if (n != 0) {
        for (u32 k = 0; k < nc; k++) {
            const u32 at = tr_cluster_peer(h_cnt + e0, k);
#pragma unroll
            for (u32 j = 0; j < TR_TOPP_CSEL_PER; j++)
                if (j < n) c[j] += tr_cluster_ld_u32(at + 4 * j);
        }
    }
    for (u32 j = blockDim.x - 1 - threadIdx.x; j < nmid; j += blockDim.x) {
        const double a = (double)mids[j];
        if (min_p > 0.0 && !(__dsub_rn(a, a_max) >= mthr)) continue;
        msum += (u128)tr_top_p_mass(a, a_max, t);
    }
    // Runs of TR_TOPP_CSEL_MID_WARP entries or more (the same in every
    // thread of the block).
    const bool wsum = TR_TOPP_CSEL_MID_WARP > 0 && per >= TR_TOPP_CSEL_MID_WARP;
    if (wsum) {
        // Each warp's sum into its slot (lane 31 of an inclusive scan); warp
        // 0 adds the slots after the block scan's barriers.
        const u128 w = tr_warp_scan_u128(msum);
        if (lane == 31) {
            s_wmid[warp][0] = (u64)w;
            s_wmid[warp][1] = (u64)(w >> 64);
        }
    } else if (msum != 0) {
        tr_atomic_add128(&s_mid_lo, &s_mid_hi, msum);
    }
    u128 sum = 0;
    if (TR_TOPP_CSEL_ILP > 1 && per >= TR_TOPP_CSEL_ILP) {
        // Runs of at least TR_TOPP_CSEL_ILP entries (clusters of at most
        // four blocks): the masses that many at a time, each group's
        // binary64 chains side by side; every mass of a group is computed
        // (entries past the run clamped to its first) and those without a
        // count, the middle entry's and min-p's dropped ones masked to 0.
        // Shorter runs take the calls: at B <= 16 (a run of one entry) the
        // inlined groups measured 1.1 us slower per call, their cold code.
#pragma unroll
        for (u32 j0 = 0; j0 < TR_TOPP_CSEL_PER; j0 += TR_TOPP_CSEL_ILP) {
            if (j0 >= n) break;
            u64 m[TR_TOPP_CSEL_ILP];
#pragma unroll
            for (u32 i = 0; i < TR_TOPP_CSEL_ILP; i++) {
                const u32 j = j0 + i, e = j < n ? e0 + j : e0;
                const double a = tr_topp_value(e, M);
                const u64 v = tr_top_p_mass_inline(a, a_max, t);
                const bool keep = j < n && e != M.np && c[j] != 0 && !(min_p > 0.0 && !(__dsub_rn(a, a_max) >= mthr));
                m[i] = keep ? v : 0;
            }
#pragma unroll
            for (u32 i = 0; i < TR_TOPP_CSEL_ILP; i++) sum += (u128)c[j0 + i] * (u128)m[i];
        }
    } else {
#pragma unroll
        for (u32 j = 0; j < TR_TOPP_CSEL_PER; j++) {
            const u32 e = e0 + j;
            if (j < n && e != M.np && c[j] != 0)
                sum += (u128)c[j] * (u128)tr_topp_value_mass_call(e, M, a_max, t, min_p, mthr);
        }
    }
    tr_phase(11);
    u128 part;
    const u128 incl = tr_block_scan_u128(sum, &part);  // its barriers: s_mid_* complete
    // 3. Both sums into every block; after the barrier no block reads
    // another's memory.
    if (warp == 0 && lane < nc) {
        const u32 at = tr_cluster_peer(&s_share[chunk][0], lane);
        tr_cluster_st_u64(at, (u64)part);
        tr_cluster_st_u64(at + 8, (u64)(part >> 64));
        u128 cm = ((u128)s_mid_hi << 64) | (u128)s_mid_lo;
        if (wsum)
            for (u32 w = 0; w < (blockDim.x >> 5); w++) cm += ((u128)s_wmid[w][1] << 64) | (u128)s_wmid[w][0];
        tr_cluster_st_u64(at + 16, (u64)cm);
        tr_cluster_st_u64(at + 24, (u64)(cm >> 64));
        if (TR_TOPP_RACE && R->row) {
            // (Its survivors, in global memory, are ordered by the barrier's
            // release too; the block that reads them loads them from L2.)
            const u32 n = (!R->on || R->n > tr_topp_surv_cap(A)) ? TR_TOPP_NONE : R->n;
            asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(tr_cluster_peer(&s_nsurv[chunk], lane)), "r"(n)
                         : "memory");
        }
    }
    tr_cluster_arrive();
    tr_cluster_wait();
    tr_phase(12);
    u128 total = 0, before = 0, mid = 0;
    for (u32 k = 0; k < nc; k++) {
        const u128 v = ((u128)s_share[k][1] << 64) | (u128)s_share[k][0];
        if (k < chunk) before += v;
        total += v;
        mid += ((u128)s_share[k][3] << 64) | (u128)s_share[k][2];
    }
    // The middle entry M.np (its mass `mid`) lies in block M.np / share.
    total += mid;
    if (M.np < s0) before += mid;
    const u128 mine = part + (M.np >= s0 && M.np < s1 ? mid : (u128)0);
    const u128 target = tr_top_p_target(top_p, total);
    const bool found = target != 0 && target <= total;
    if (found ? !(before < target && target <= before + mine) : chunk != 0) {
        if (TR_TOPP_CUT_INDEX) {
            // The block that found the cut reads this block's counts.
            tr_cluster_arrive();
            tr_cluster_wait();
        }
        if (TR_TOPP_SETTLE) {
            // The cut from the block that found it, then the race.
            tr_cluster_arrive();
            tr_cluster_wait();
            if (s_cutmsg[0] != 0)
                tr_topp_settle(A, row, chunk, h_cnt, s_cutmsg[1], s_cutmsg[2], s_cutmsg[3], s_cutmsg[4],
                               R->on, const_cast<u32*>((const u32*)mids), s_slots);
        }
        return;
    }
    tr_phase(6);
    if (found) {
        // 4. The run holding the target (exactly one thread), then its entry
        // by one warp: a lane an entry and a warp scan.
        const u128 lo = before + (incl - sum) + (M.np >= s0 && M.np < e0 ? mid : (u128)0);
        const u128 hi = lo + sum + (M.np >= e0 && M.np < e0 + n ? mid : (u128)0);
        if (lo < target && target <= hi) {
            s_seg = threadIdx.x;
            s_before_lo = (u64)lo;
            s_before_hi = (u64)(lo >> 64);
#pragma unroll
            for (u32 j = 0; j < TR_TOPP_CSEL_PER; j++) s_walk[j] = c[j];
        }
        __syncthreads();
        if (warp == 0) {
            const u32 f0 = min(s0 + s_seg * per, s1), fn = min(f0 + per, s1) - f0;
            const u32 e = f0 + lane, cnt = lane < fn ? s_walk[lane] : 0u;
            u64 m = 0;
            u128 p = 0;
            if (lane < fn) {
                if (e == M.np) {
                    p = mid;
                } else if (cnt != 0) {
                    m = tr_topp_value_mass_call(e, M, a_max, t, min_p, mthr);
                    p = (u128)cnt * (u128)m;
                }
            }
            const u128 at = (((u128)s_before_hi << 64) | (u128)s_before_lo) + tr_warp_scan_u128(p);
            const u32 hit = __ballot_sync(TR_FULL, lane < fn && at >= target);
            if (hit != 0 && lane == (u32)(__ffs(hit) - 1)) {
                const bool pend = e != M.np && tr_topp_pend_record(A, row, M, e, cnt, m, target - (at - p));
                s_pend = pend ? 1u : 0u;
                if ((TR_TOPP_SETTLE || TR_TOPP_CUT_INDEX) && pend) {
                    s_cutmsg[1] = e;
                    s_cutmsg[2] = __float_as_uint(__double2float_rn(tr_topp_value(e, M))) >> 16;
                    s_cutmsg[3] = A.rowstate[row].pad1;
                }
                if (TR_TOPP_RACE && pend) {
                    s_vstar = __double2float_rn(tr_topp_value(e, M));
                    s_vall = A.rowstate[row].pad1 == cnt;  // q = nstar: every element of v* kept
                }
            }
        }
        __syncthreads();
        tr_phase(13);
    }
    tr_phase(7);
    if (TR_TOPP_CUT_INDEX) {
        // The other blocks wait for this one's arrive (in tr_topp_cut_index
        // after its reads of their counts where the row is pending).
        if (s_pend != 0)
            tr_topp_cut_index(A, row, h_cnt, s_cutmsg[1], s_cutmsg[2], s_cutmsg[3],
                              const_cast<u32*>((const u32*)mids));
        else
            tr_cluster_arrive();
        tr_phase(8);
    }
    if (TR_TOPP_SETTLE) {
        // The cut to every block (the third barrier), with block c's n_<c
        // (the counts of b* in the tables before its own; every table is
        // complete and its block waits at the barrier); where it is pending,
        // the race.
        if (warp == 0) {
            const u32 pend = s_pend;
            u32 n = 0;
            if (pend != 0 && lane < nc) n = tr_cluster_ld_u32(tr_cluster_peer(h_cnt + s_cutmsg[1], lane));
            const u32 incl = tr_warp_scan_u32(n);
            if (lane < nc) {
                const u32 at = tr_cluster_peer(s_cutmsg, lane);
                tr_cluster_st_u64(at, (u64)pend | ((u64)s_cutmsg[1] << 32));
                tr_cluster_st_u64(at + 8, (u64)s_cutmsg[2] | ((u64)s_cutmsg[3] << 32));
                tr_cluster_st_u64(at + 16, (u64)(incl - n));
            }
        }
        tr_cluster_arrive();
        tr_cluster_wait();
        if (s_pend != 0) {
            tr_topp_settle(A, row, chunk, h_cnt, s_cutmsg[1], s_cutmsg[2], s_cutmsg[3], s_cutmsg[4], R->on,
                           const_cast<u32*>((const u32*)mids), s_slots);
            tr_phase(8);
            return;
        }
    }
    if (s_pend == 0)
        tr_topp_hist_fallback(A, row, st);
    else if (TR_TOPP_RACE && R->row)
        tr_topp_race_settle(A, row, *R, s_vstar, s_vall, s_nsurv);
    tr_phase(8);
}

// The bf16 top-p kernels' next kernel (PDL): scheduled as soon as every
// block has begun (tr_grid_begin), or, where the host sets A.topp_late
// (launch::topp_late_trigger: batches of many rows), only once each row's
// last block has done its select (the histogram) or its cut (the gather),
// so that the next kernel's waiting blocks do not share the
// multiprocessors while those run. The same results either way: the next
// kernel still waits for this one's completion and writes.
template <int DT>
__device__ __forceinline__ void tr_topp_begin(const SampleArgs& A) {
    if (DT == 1 && A.topp_late)
        tr_grid_wait();
    else
        tr_grid_begin();
}
template <int DT>
__device__ __forceinline__ void tr_topp_tail_done(const SampleArgs& A) {
    if (DT == 1 && A.topp_late) tr_grid_trigger();
}

// 1/t where it is exact (t a power of two whose reciprocal is a normal
// number: 2^-1022 <= t <= 2^1022), else 0. Where it is exact, d * (1/t) and
// d / t are the rounding of the same real number, so __dmul_rn(d, 1/t) ==
// __ddiv_rn(d, t) for every d, subnormal results included.
__device__ __forceinline__ double tr_exact_reciprocal(double t) {
    const u64 b = (u64)__double_as_longlong(t);
    const u32 ex = (u32)(b >> 52) & 0x7ffu;
    if ((b & 0x000fffffffffffffULL) != 0 || (b >> 63) != 0 || ex < 1 || ex > 2045) return 0.0;
    return __longlong_as_double((i64)(2046u - ex) << 52);
}

// The f32/f16 histogram's element loop (TR_TOPP_MASS_INLINE = 2): each
// element's bin and mass without a branch but the one around its shared
// additions, and the mass's division a multiplication where 1/t is exact
// (rt != 0; a uniform branch). An element is counted where it is finite,
// passes min-p, lies in a bin and has a mass, as in the loop of
// TR_TOPP_MASS_INLINE = 1 (the same counts and sums):
// - an element of -inf has d = inf, so its bin is TR_TOPP_BINS and y =
//   -inf, so its mass is 0;
// - the bin is tr_topp_bin's, with the truncation moved after the
//   comparison (z < TR_TOPP_BINS ? z : TR_TOPP_BINS, a NaN z going to
//   TR_TOPP_BINS either way);
// - min-p's test reads a - a_max, which is also the mass's numerator;
// - the mass: tr_top_p_mass_exp of y raised to -44 (so that every lane
//   evaluates the same path), set to 0 where y < -44, as tr_top_p_mass does.
template <int DT, int PIECES>
__device__ __forceinline__ void tr_topp_hist_float(const SampleArgs& A, u32 row, u32 chunk, double a_max,
                                                   double t, double rt, double scale, bool minp_on,
                                                   double mthr, u32* h_bins, u64* h_sum) {
    // Shared byte addresses (PIECES sums of 16-bit (4) or 15-bit (5) pieces
    // of the masses, TR_TOPP_BINS words a piece, in h_sum's room; 0: a
    // 128-bit sum a bin, low words then high words), computed once.
    const u32 s_cnt = (u32)__cvta_generic_to_shared(h_bins);
    const u32 s_p16 = (u32)__cvta_generic_to_shared(h_sum);
    u64* const h_lo = h_sum;
    u64* const h_hi = h_sum + TR_TOPP_BINS;
    tr_topp_chunk<DT, TR_TOPP_UNITS, TR_TOPP_HIST_PF>(A, row, chunk, [&](float x, u32) {
        const double a = (double)x;
        const double d = __dsub_rn(a_max, a);
        const double z = __dmul_rn(d, scale);
        const u32 b = d == 0.0 ? 0u : (u32)(z < (double)TR_TOPP_BINS ? z : (double)TR_TOPP_BINS);
        const double num = __dsub_rn(a, a_max);
        const double y = rt != 0.0 ? __dmul_rn(num, rt) : __ddiv_rn(num, t);
        const bool has_mass = y >= -44.0;
        const u64 m = tr_top_p_mass_exp(has_mass ? y : -44.0);
        const bool keep = x > tr_fninf() && (!minp_on || num >= mthr) && b < TR_TOPP_BINS && has_mass && m != 0;
        if (!keep) return;
        tr_red_shared_inc(s_cnt + 4 * b);
        if constexpr (PIECES != 0) {
            // Pieces of 16 bits over at most 2^16 elements, or of 15 bits
            // over at most 2^17: each sum < 2^32.
            constexpr u32 W = PIECES == 4 ? 16u : 15u;
            const u32 pb = s_p16 + 4 * b;
#pragma unroll
            for (u32 k = 0; k < (u32)PIECES; k++)
                tr_red_shared_add(pb + 4 * k * TR_TOPP_BINS, (u32)((m >> (W * k)) & ((1ull << W) - 1)));
        } else {
            tr_atomic_add128(&h_lo[b], &h_hi[b], (u128)m);
        }
    });
}

// The f32/f16 histogram's mass sums in 32-bit words: two u64 a bin, or
// five 32-bit piece sums a bin with TR_TOPP_SUM15.
#define TR_TOPP_HSUM_WORDS ((TR_TOPP_SUM15 && TR_TOPP_MASS_INLINE == 2 ? 5u : 4u) * TR_TOPP_BINS)
// 1: the f32/f16 mass sums in dynamic shared memory, as much as the launch
// gives (launch::topp_float_hist_smem: five pieces' room for chunks of 2^16
// to 2^17 elements, else four), so that a launch whose chunks take four
// pieces or a 128-bit sum leaves the fifth piece's 4 KiB to the L1 cache
// (run 44 timed that static room at 4-6 us a call at B <= 256); five pieces
// only where the room holds them. 0: TR_TOPP_HSUM_WORDS words of static
// shared memory (a tuning variant; the same sums).
#ifndef TR_TOPP_SUM_DYN
#define TR_TOPP_SUM_DYN 1
#endif
// The scan and the count of a bf16 chunk in one read
// (TR_TOPP_FUSE), for a block without a first pass. Each thread loads one
// unit, the units spread evenly over the row (the same in every block of
// the row); their largest value s gives
// the provisional map (tr_topp_fuse_window, the same in every thread), under
// which the loop then counts each unit as tr_topp_hist's count does and
// takes it into the scan's accumulator as tr_scan does (the same units in the
// same order a thread, so acc is tr_scan's). The table and the middle list
// are cleared first (every entry: the map is not known yet). Returns false,
// having loaded only the sample, where the window does not hold (the caller
// scans and counts as before); else true with the window's top and bottom in
// s_win[0] and s_win[1]: the caller compares the top with the row's maximum
// once it is known.
__device__ __forceinline__ bool tr_topp_fuse_count(const SampleArgs& A, u32 row, i64 ulo, i64 uhi, double t,
                                                   Acc& acc, float* s_mid, u32* s_nmid, double* s_win) {
    __shared__ u32 s_wkey[TR_MAX_WARPS];
    const u16* xrow = (const u16*)A.logits + (u64)row * A.row_stride;
    const bool al = (((u64)xrow) & 15) == 0;
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    const i64 nu = ((i64)A.vocab + 7) / 8;
    const i64 u = (i64)threadIdx.x * nu / (i64)blockDim.x;
    const float um = tr_unit_max<1>(tr_fetch8<1, TR_TOPP_SCAN_POL>(xrow, u * 8, A.vocab, al, u < nu));
    // Order keys: NaN above every value.
    const u32 key = __reduce_max_sync(TR_FULL, um != um ? 0xffffffffu : tr_fkey(um));
    if (lane == 0) s_wkey[warp] = key;
    u32 fit;
    u32* const h_cnt = tr_topp_tables(fit);
    for (u32 e = threadIdx.x; e <= TR_TOPP_VALUES; e += blockDim.x) h_cnt[e] = 0;
    if (threadIdx.x == 0) *s_nmid = 0;
    __syncthreads();
    u32 smax = 0;
    for (u32 w = 0; w < nwarps; w++) smax = max(smax, s_wkey[w]);
    double a_top, lo;
    if (smax == 0xffffffffu || !tr_topp_fuse_window(tr_funkey(smax), t, a_top, lo)) return false;
    const ToppMap M = tr_topp_map_lo(a_top, lo);
    const ToppKeys Q = tr_topp_keys(M, a_top);
    const u32 ec2 = Q.ec | (Q.ec << 16);
    const u32 midx = TR_TOPP_LEAN_COUNT ? Q.mid * 4 : Q.mid;
    const u32 mid2 = Q.mid == TR_TOPP_NONE ? 0xffffffffu : midx | (midx << 16);
    const u32 tbl32 = tr_topp_tables32();
    ScanAcc<1, false> sa;
    tr_topp_range<1, TR_TOPP_VALUE_UNITS_LONG, TR_TOPP_COUNT_POL>(A, row, ulo, uhi, [&](const Raw8& r, i64 v) {
        RawA<1, false> ra;
        ra.x = r;
        sa.take(ra, v);
        tr_topp_count8(r, Q, ec2, mid2, tbl32, h_cnt, s_mid, s_nmid);
    });
    sa.into(acc);
    if (threadIdx.x == 0) {
        s_win[0] = a_top;
        s_win[1] = lo;
    }
    return true;
}

// STAGE: the build of tr_topp_hist_stage_bf16, which the host launches for
// batches without a first pass whose chunks it stages (launch::topp_stages);
// the other kernels have none of the staging's code (with it, the count
// loop of large batches ran about 0.7% slower; docs/cuda-notes.md, run 28).
template <int DT, bool STAGE = false>
__device__ void tr_topp_hist(const SampleArgs& A) {
    // bf16 rows: value counts; f32/f16 rows: bin counts and mass sums.
    constexpr bool VALUES = DT == 1;
    constexpr u32 NB = VALUES ? TR_TOPP_VALUES : TR_TOPP_BINS;
    // f32/f16 rows: bin counts here; bf16 rows: value counts in dynamic
    // shared memory (tr_topp_tables).
    __shared__ u32 h_bins[VALUES ? 1 : NB + 1];
    // f32/f16 rows: each bin's mass sum, low words then high words (or,
    // with TR_TOPP_SUM16 or TR_TOPP_SUM15, 32-bit sums of pieces in that
    // room: TR_TOPP_HSUM_WORDS words).
    __shared__ u64 h_sum_static[VALUES || TR_TOPP_SUM_DYN ? 1 : TR_TOPP_HSUM_WORDS / 2];
    extern __shared__ u64 tr_dyn_smem[];
    u64* const h_sum = !VALUES && TR_TOPP_SUM_DYN ? tr_dyn_smem : h_sum_static;
    u64* const h_lo = h_sum;
    u64* const h_hi = h_sum + (VALUES ? 0 : TR_TOPP_BINS);
    __shared__ float s_mid[VALUES ? TR_TOPP_MIDCAP : 1];  // middle-bin values of the chunk
    __shared__ u32 s_nmid;
    const u32 row = blockIdx.x / A.nchunks, chunk = blockIdx.x % A.nchunks;
    RowState st;
    // Whether the chunk's units were staged in shared memory by its scan
    // (TR_TOPP_STAGE), for the count.
    bool staged = false;
    // Whether the scan counted the chunk too, under the provisional map of the
    // window s_fwin (TR_TOPP_FUSE, tr_topp_fuse_count).
    bool fused = false;
    __shared__ double s_fwin[2];
    // Phase clock (TR_PHASE_PRINT; scripts/phase-clock.py --tag
    // tr_phase_hist): 0 start, 1 tables cleared, 2 counted, 3 value masses,
    // 4 middle masses, 5 counts flushed, 6 the row's last block known, 7
    // selected, 8 located, 9 reset, 10 the row's record found without a
    // first pass, or selected again (TR_TOPP_SELECT_TWICE); 11-13 inside the
    // select (in the chunk blocks of a batch without a first pass, 11 the
    // chunk's scan done and 12 the partials exchanged). f32/f16 rows: 0
    // start, 1 tables cleared, 2 counted and summed, 5 flushed, 6 the row's
    // last block known, 7 selected.
    tr_phase_clear();
    tr_phase(0);
    // The race in the histogram (TR_TOPP_RACE): each warp's cutoffs by lead
    // class, the block's survivor count.
    __shared__ float s_rcut[VALUES && TR_TOPP_RACE ? TR_TOPP_WARPS : 1][32];
    __shared__ u32 s_nsurv;
    // The row's first maximum (tr_topp_own_max); the race's parameters
    // (rows of many chunks: the cluster select's path), copied into shared
    // memory by cp.async as the scan begins and read where used: held in
    // registers, they stayed live across the scan and the count, and the
    // kernel spilled (ptxas for sm_90).
    __shared__ u32 s_top;
    __shared__ u64 s_rseed, s_rpos;
    __shared__ double s_rtemp;
    __shared__ u32 s_rprof;
    ToppRace rc{false, false, 0, 0, 0, 0};
    if (VALUES && A.topp_own_max) {
        // No first pass: this row's blocks find its record (one cluster a
        // row of many chunks; every block of it takes this branch). The host
        // sets A.topp_own_max only when every row is a binned top-p row
        // (DeviceParams::all_topp, the host's tr_topp_row), so the row's
        // parameters are not read first: their round trip would delay the
        // scan.
        __shared__ RowState s_st;
        const bool race = TR_TOPP_RACE && A.nchunks > 1 && A.topp_pend != 0 && blockDim.x <= 32 * TR_TOPP_WARPS;
        if (race && threadIdx.x == 0) {
            tr_cp_small<8>(&s_rseed, A.seed + row);
            tr_cp_small<8>(&s_rpos, A.position + row);
            tr_cp_small<8>(&s_rtemp, A.temperature + row);
            tr_cp_small<4>(&s_rprof, A.profile + row);
            s_nsurv = 0;  // before the count: tr_topp_own_max's barriers
        }
        if (A.nchunks > 1) tr_cluster_arrive_relaxed();
        const u16* xrow = (const u16*)A.logits + (u64)row * A.row_stride;
        const bool al = (((u64)xrow) & 15) == 0;
        i64 ulo, uhi;
        tr_topp_chunk_units(A, chunk, ulo, uhi);
        Acc acc = tr_acc_empty();
        // Whole aligned units, at most TR_TOPP_STAGE a thread, one segment
        // (a row of many chunks), and the room the host gave for them.
        const u32 per = (u32)((uhi - ulo + blockDim.x - 1) / blockDim.x);
        staged = STAGE && TR_TOPP_STAGE > 0 && A.nchunks > 1 && al && per <= (u32)TR_TOPP_STAGE &&
                 uhi * 8 <= (i64)A.vocab && tr_dyn_smem_bytes() >= TR_TOPP_STAGE_AT + per * blockDim.x * 16;
        if (staged) {
            // Every copy issued first, in groups of TR_TOPP_STAGE_GROUP units
            // (unit k of this thread to slot k * blockDim.x + threadIdx.x),
            // with the scan's L2 priority; the table (the map's entries are
            // not known yet, so all of it) and the middle list's count
            // cleared while they are in flight (tr_topp_own_max's barriers
            // order both before the count); then each group scanned once it
            // has landed. A thread reads back only its own copies, so
            // cp.async.wait_group is the only wait.
            u32 fit;
            u32* const h_cnt = tr_topp_tables(fit);
            const uint4* const stage = (const uint4*)((const char*)h_cnt + TR_TOPP_STAGE_AT);
            const u32 stage32 = (u32)__cvta_generic_to_shared(stage);
            const u32 groups = (per + TR_TOPP_STAGE_GROUP - 1) / TR_TOPP_STAGE_GROUP;
            for (u32 k = 0; k < per; k++) {
                const i64 u = ulo + threadIdx.x + (i64)k * blockDim.x;
                if (u < uhi) tr_cp16_pol<TR_TOPP_SCAN_POL>(stage32 + (k * blockDim.x + threadIdx.x) * 16, xrow + u * 8);
                if (k % TR_TOPP_STAGE_GROUP == TR_TOPP_STAGE_GROUP - 1 || k + 1 == per) tr_cp_commit();
            }
            for (u32 e = threadIdx.x; e <= NB; e += blockDim.x) h_cnt[e] = 0;
            if (threadIdx.x == 0) s_nmid = 0;
            ScanAcc<1, false> sa;
            for (u32 g = 0; g < groups; g++) {
                tr_cp_wait_upto(groups - 1 - g);
                const u32 k1 = min(per, (g + 1) * TR_TOPP_STAGE_GROUP);
                for (u32 k = g * TR_TOPP_STAGE_GROUP; k < k1; k++) {
                    const i64 u = ulo + threadIdx.x + (i64)k * blockDim.x;
                    if (u < uhi) {
                        RawA<1, false> r;
                        r.x.v0 = stage[k * blockDim.x + threadIdx.x];
                        r.x.v1 = make_uint4(0, 0, 0, 0);
                        sa.take(r, u);
                    }
                }
            }
            sa.into(acc);
        } else {
            if constexpr (VALUES && TR_TOPP_FUSE && !STAGE && !TR_TOPP_RACE) {
                if ((A.nchunks == 1 || TR_TOPP_FUSE >= 2) && A.topp_seg_units == 0)
                    fused = tr_topp_fuse_count(A, row, ulo, uhi, A.temperature[row], acc, s_mid, &s_nmid, s_fwin);
            }
            if (!fused)
                tr_scan<1, false, false, TR_TOPP_SCAN_POL>(xrow, nullptr, al, false, A.vocab, ulo * 8, uhi * 8,
                                                           0, acc);
        }
        // (Staged, the copies joined the thread's first group, complete.)
        if (race && threadIdx.x == 0) {
            tr_cp_commit();
            tr_cp_wait<0>();
        }
        if (!tr_topp_own_max(A, row, chunk, &s_st, TR_TOPP_RACE ? &s_top : nullptr, acc)) return;
        st = s_st;
        if (race && s_rprof == TR_PROFILE_EXACT) {
            // L0, the first maximum's score, and each lane of a warp the
            // cutoff of its lead class (as the race's Cutoffs, no floor).
            const u32 lane = threadIdx.x & 31;
            rc.row = rc.on = true;
            const u32 top = s_top;
            const u32 lead = tr_lead_prefix(tr_block(s_rseed, top >> 3, s_rpos, TR_TAG_EXACT_LEAD), top);
            const double neg_t = -s_rtemp;
            // Its exact score: the lead's bound is loose for leads of half
            // the range (uniforms above 1/2: ln E <= 4.5 only), and L0 from
            // it let thousands of elements survive (tests/topp_race_model.rs).
            const double l0 = tr_exact_score(neg_t, s_rseed, s_rpos, top, lead, st.a_max);
            Cutoffs<false> cut;
            cut.compute(neg_t, tr_class_bound(lane), l0, tr_ninf());
            s_rcut[threadIdx.x >> 5][lane] = cut.lane;
            __syncwarp();
        }
        tr_phase(10);
    } else if (!tr_topp_live(A, row, st)) {
        return;
    }
    const double t = A.temperature[row], min_p = A.min_p[row];
    const double a_max = st.a_max;
    const double mthr = min_p > 0.0 ? tr_min_p_threshold(t, min_p) : 0.0;
    ToppRow* R = tr_topp_state(A, row);
    if constexpr (VALUES) {
        // The count is done where the scan counted under a window that holds
        // the row's maximum; else (and where the window failed) it counts
        // under the row's map.
        const bool counted = fused && a_max <= s_fwin[0];
        const ToppMap M = counted ? tr_topp_map_lo(s_fwin[0], s_fwin[1]) : tr_topp_map(a_max, t);
        const ToppKeys Q = tr_topp_keys(M, counted ? s_fwin[0] : a_max);
        const u32 ec2 = Q.ec | (Q.ec << 16);
        // The middle entry in both halves (scaled as the count loop's
        // entries); all ones, which no entry matches, where it is empty.
        const u32 midx = TR_TOPP_LEAN_COUNT ? Q.mid * 4 : Q.mid;
        const u32 mid2 = Q.mid == TR_TOPP_NONE ? 0xffffffffu : midx | (midx << 16);
        // Segments (a row of one chunk, A.topp_seg_units > 0): the chunk's
        // units in runs of segu, each counted in its own table, so that the
        // select can locate the run holding the cut and the gather reads that
        // run alone.
        u32 fit;
        u32* const h_cnt = tr_topp_tables(fit);
        i64 ulo, uhi;
        tr_topp_chunk_units(A, chunk, ulo, uhi);
        const SegShape SG = tr_topp_segs(A, uhi - ulo, fit);
        const float* const rcut = s_rcut[TR_TOPP_RACE ? threadIdx.x >> 5 : 0];
        // The staging build's chunks that were not staged (rows not 16-byte
        // aligned) are left to the race kernel: its count has no race (the
        // kernel spilled more with it).
        if (TR_TOPP_RACE && STAGE && !staged) rc.on = false;
        if (!staged && !counted) {
            for (u32 sg = 0; sg < SG.segs; sg++)
                for (u32 e = threadIdx.x; e <= M.e; e += blockDim.x) h_cnt[sg * (NB + 1) + e] = 0;
            if (threadIdx.x == 0) s_nmid = 0;
            __syncthreads();
        }
        tr_phase(1);
        // Count the elements of the value entries; the middle bin's (tiny
        // magnitudes, all distinct masses) are listed and their masses added
        // after the loop, or in a second look at the chunk if the list fills.
        // Every element adds to a slot, no branch: those without a counted
        // entry to slot Q.ec, which the select never reads (past the entries,
        // or the middle entry, whose count is never read).
        for (u32 sg = 0; sg < (counted ? 0u : SG.segs); sg++) {
            u32* const tbl = h_cnt + sg * (NB + 1);
            const i64 s0 = ulo + (i64)sg * SG.units;
            const i64 s1 = SG.segs == 1 ? uhi : min(s0 + (i64)SG.units, uhi);
            // TR_TOPP_LEAN_COUNT: entries (at most TR_TOPP_VALUES, so 4e fits
            // a half) as byte offsets from the table's shared address.
            const u32 tbl32 = tr_topp_tables32() + sg * (NB + 1) * 4;
            // The race's test of a unit (rc.on): its largest value against
            // the cutoff of its smallest lead's class (the lead block's),
            // then, rarely, its elements one by one.
            auto race = [&](const uint4& x, i64 u) {
                const uint4 lb = tr_block(s_rseed, (u32)u, s_rpos, TR_TAG_EXACT_LEAD);
                const u32 lm = tr_min_u16x2(tr_min_u16x2(lb.x, lb.y), tr_min_u16x2(lb.z, lb.w));
                const u32 lmin = min(lm & 0xffffu, lm >> 16) << 16;
                Raw8 r;
                r.v0 = x;
                r.v1 = make_uint4(0, 0, 0, 0);
                if (tr_unit_max<1>(r) >= rcut[tr_lead_class(lmin)])
                    tr_topp_survive(x, lb, (u32)u, rcut, tr_topp_surv_at(A, row, chunk), tr_topp_surv_cap(A), &s_nsurv);
            };
            auto count = [&](const Raw8& r, i64) { tr_topp_count8(r, Q, ec2, mid2, tbl32, tbl, s_mid, &s_nmid); };
            if (staged) {
                // One segment (a row of many chunks): the units its scan
                // staged, each thread its own.
                const uint4* const stage = (const uint4*)((const char*)h_cnt + TR_TOPP_STAGE_AT);
                const u32 per = (u32)((uhi - ulo + blockDim.x - 1) / blockDim.x);
                // The race's tests first, in a loop of their own (in the
                // count's, the kernel spilled more: ptxas for sm_90).
                if (TR_TOPP_RACE && rc.on) {
                    for (u32 k = 0; k < per; k++) {
                        const i64 u = ulo + threadIdx.x + (i64)k * blockDim.x;
                        if (u < uhi) race(stage[k * blockDim.x + threadIdx.x], u);
                    }
                }
#pragma unroll 2
                for (u32 k = 0; k < per; k++) {
                    const i64 u = ulo + threadIdx.x + (i64)k * blockDim.x;
                    if (u < uhi) {
                        Raw8 r;
                        r.v0 = stage[k * blockDim.x + threadIdx.x];
                        r.v1 = make_uint4(0, 0, 0, 0);
                        count(r, u);
                    }
                }
            } else if (!STAGE && TR_TOPP_RACE && rc.on) {
                // Racing: the tests in the count's loop, two units at a time
                // (four spilled: ptxas for sm_90). The staging build races
                // only the chunks it stages (rc.on is cleared above).
                tr_topp_range<DT, TR_TOPP_RACE_UNITS, TR_TOPP_COUNT_POL>(A, row, s0, s1, [&](const Raw8& r, i64 u) {
                    race(r.v0, u);
                    count(r, u);
                });
            } else if (TR_TOPP_VALUE_UNITS_LONG != TR_TOPP_VALUE_UNITS && s1 - s0 >= 8 * (i64)blockDim.x)
                // Long runs (at least 8 units a thread) load more units at once.
                tr_topp_range<DT, TR_TOPP_VALUE_UNITS_LONG, TR_TOPP_COUNT_POL>(A, row, s0, s1, count);
            else
                tr_topp_range<DT, TR_TOPP_VALUE_UNITS, TR_TOPP_COUNT_POL>(A, row, s0, s1, count);
        }
        __syncthreads();
        tr_phase(2);
        // A row of many chunks as one cluster: its select in distributed
        // shared memory (tr_topp_cluster_select), no global tables.
        const bool csel = A.topp_own_max != 0 && A.topp_pend != 0 && A.nchunks > 1;
        if (A.nchunks > 1 && !csel) {
            // This chunk's share of the row's value masses (the select's
            // table): a few per block, so no block waits long on them. The
            // first threads take them, the last ones the middle masses below,
            // so that the two chains of binary64 operations overlap where a
            // block has few of each.
            const u32 share = (M.e + A.nchunks - 1) / A.nchunks;
            const u32 s0 = min(chunk * share, M.e), s1 = min(s0 + share, M.e);
            u64* masses = tr_topp_masses(A, row);
            for (u32 e = s0 + threadIdx.x; e < s1; e += blockDim.x)
                masses[e] = e == M.np ? 0 : tr_topp_value_mass(e, M, a_max, t, min_p, mthr);
        }
        tr_phase(3);
        // The middle elements' masses: summed by each thread, then over the
        // block (integer sums: the order does not matter).
        u128 msum = 0;
        auto add_mid = [&](float x) {
            const double a = (double)x;
            if (min_p > 0.0 && !(__dsub_rn(a, a_max) >= mthr)) return;
            msum += (u128)tr_top_p_mass(a, a_max, t);
        };
        // The cluster select adds the listed ones after its first barrier.
        const bool listed = s_nmid <= TR_TOPP_MIDCAP;
        if (!listed) {
            tr_topp_units<DT>(A, row, chunk, [&](const Raw8& r, i64) {
                tr_topp_entries8(r, Q, [&](float x, u32 e) {
                    if (e == Q.mid) add_mid(x);
                });
            });
        } else if (!csel) {
            for (u32 j = blockDim.x - 1 - threadIdx.x; j < s_nmid; j += blockDim.x) add_mid(s_mid[j]);
        }
        if (csel) {
            if (TR_TOPP_RACE && rc.row) {
                rc.top = s_top;
                rc.seed = s_rseed;
                rc.pos = s_rpos;
                rc.n = s_nsurv;
            }
            if (TR_TOPP_SETTLE) rc.on = staged;
            tr_topp_cluster_select(A, row, chunk, st, M, h_cnt, s_mid, listed ? s_nmid : 0u, msum,
                                   (TR_TOPP_RACE || TR_TOPP_SETTLE) ? &rc : nullptr);
            tr_topp_tail_done<DT>(A);
            tr_phase_print("tr_phase_hist");
            return;
        }
        u128 mid_chunk;
        tr_block_scan_u128(msum, &mid_chunk);  // barriers: h_cnt is complete after it
        tr_phase(4);
        if (A.nchunks == 1) {
            tr_phase(6);
            tr_topp_select_values<false>(A, row, st, M, SegCounts{h_cnt, SG.segs}, mid_chunk);
            tr_phase(7);
            tr_topp_tail_done<DT>(A);
            __syncthreads();
            const SegCounts sc{h_cnt, SG.segs};
            const bool pend = tr_topp_pend_block(
                A, row, M, [&](u32 b) { return sc.total(b); }, a_max, t, min_p, mthr);
            if (!pend && A.topp_pend != 0) {
                tr_topp_hist_fallback(A, row, st);
                tr_phase_print("tr_phase_hist");
                return;
            }
            if (!pend && SG.segs > 1) {
                tr_topp_locate_segs(A, row, M, SegCounts{h_cnt, SG.segs}, SG.units, ulo, uhi, a_max, t,
                                    min_p, mthr);
                tr_phase(8);
            }
            tr_phase_print("tr_phase_hist");
            return;
        }
        u32* cnt = tr_topp_counts(A, row);
        u32* own = A.topp_cnt != nullptr ? A.topp_cnt + (u64)blockIdx.x * TR_TOPP_VALUES : nullptr;
        // TR_TOPP_FLUSH entries a thread and step (the shared loads overlap),
        // a warp's 32 consecutive entries an instruction (its atomics coalesce).
        constexpr int FL = TR_TOPP_FLUSH;
        for (u32 e0 = threadIdx.x; e0 < M.e; e0 += FL * blockDim.x) {
            u32 c[FL];
#pragma unroll
            for (int k = 0; k < FL; k++) {
                const u32 e = e0 + k * blockDim.x;
                c[k] = e < M.e ? h_cnt[e] : 0;
            }
#pragma unroll
            for (int k = 0; k < FL; k++) {
                const u32 e = e0 + k * blockDim.x;
                if (e >= M.e) break;
                if (own != nullptr) own[e] = c[k];  // this chunk's counts, for the cut's chunk
                if (c[k] != 0) atomicAdd(&cnt[e], c[k]);
            }
        }
        if (threadIdx.x == 0 && mid_chunk != 0)
            tr_atomic_add128(&R->mid_lo, &R->mid_hi, mid_chunk);
        tr_phase(5);
        if (!tr_topp_last(A, &R->arrive_hist)) {
            tr_phase_print("tr_phase_hist");
            return;
        }
        tr_phase(6);
        const u128 mid_sum = ((u128)__ldcg(&R->mid_hi) << 64) | (u128)__ldcg(&R->mid_lo);
        tr_topp_select_values<true>(A, row, st, M, SegCounts{cnt, 1}, mid_sum);
        __syncthreads();
        tr_phase(7);
        tr_topp_tail_done<DT>(A);
#ifdef TR_TOPP_SELECT_TWICE
        // Profiling only (with TR_PHASE_PRINT): the same select again, its
        // code and data now warm; it records the same b* and r.
        tr_topp_select_values<true>(A, row, st, M, SegCounts{cnt, 1}, mid_sum);
        __syncthreads();
        tr_phase(10);
#endif
        const bool pend = tr_topp_pend_block(
            A, row, M, [&](u32 b) { return __ldcg(&cnt[b]); }, a_max, t, min_p, mthr);
        if (!pend && A.topp_pend == 0 && TR_TOPP_LOCATE && A.topp_cnt != nullptr) tr_topp_locate(A, row, M);
        tr_phase(8);
        // Ready for the next call (graph replays included).
        for (u32 e = threadIdx.x; e < M.e; e += blockDim.x) cnt[e] = 0;
        if (threadIdx.x == 0) R->mid_lo = R->mid_hi = 0;
        tr_phase(9);
        if (!pend && A.topp_pend != 0) tr_topp_hist_fallback(A, row, st);
        tr_phase_print("tr_phase_hist");
    } else {
        const double scale = tr_topp_scale(t);
        // The bins' mass sums: four 32-bit sums of 16-bit pieces in h_sum's
        // room (TR_TOPP_SUM16, chunks of at most 2^16 elements), five of
        // 15-bit pieces (TR_TOPP_SUM15, at most 2^17), else a 128-bit sum.
        const bool sum16 = TR_TOPP_SUM16 && A.chunk_len <= 65536u;
#if TR_TOPP_LEAN_MIN == 0
        const bool lean = TR_TOPP_MASS_INLINE == 2;  // (no comparison of a u32 with 0 to warn about)
#else
        const bool lean = TR_TOPP_MASS_INLINE == 2 && A.chunk_len >= TR_TOPP_LEAN_MIN;
#endif
        const bool room5 = !TR_TOPP_SUM_DYN || tr_dyn_smem_bytes() >= 5u * 4u * TR_TOPP_BINS;
        const u32 pieces = sum16                                                        ? 4u
                           : TR_TOPP_SUM15 && lean && A.chunk_len <= 131072u && room5 ? 5u
                                                                                        : 0u;
        u32* const p16 = (u32*)h_sum;  // the piece sums, TR_TOPP_BINS words a piece
        const u32 words = TR_TOPP_SUM_DYN ? (pieces == 5 ? 5u : 4u) * TR_TOPP_BINS : TR_TOPP_HSUM_WORDS;
        for (u32 b = threadIdx.x; b < TR_TOPP_BINS; b += blockDim.x) h_bins[b] = 0;
        for (u32 w = threadIdx.x; w < words; w += blockDim.x) p16[w] = 0;
        __syncthreads();
        tr_phase(1);
        if (lean) {
            const double rt = tr_exact_reciprocal(t);
            const bool mp = min_p > 0.0;
            if (pieces == 4) {
                tr_topp_hist_float<DT, 4>(A, row, chunk, a_max, t, rt, scale, mp, mthr, h_bins, h_sum);
            } else if (pieces == 5) {
                tr_topp_hist_float<DT, 5>(A, row, chunk, a_max, t, rt, scale, mp, mthr, h_bins, h_sum);
            } else {
                tr_topp_hist_float<DT, 0>(A, row, chunk, a_max, t, rt, scale, mp, mthr, h_bins, h_sum);
            }
        } else {
            tr_topp_chunk<DT>(A, row, chunk, [&](float x, u32) {
                if (!(x > tr_fninf())) return;
                const double a = (double)x;
                if (min_p > 0.0 && !(__dsub_rn(a, a_max) >= mthr)) return;
                const u32 b = tr_topp_bin(a, a_max, scale);
                if (b >= TR_TOPP_BINS) return;
                const u64 m = TR_TOPP_MASS_INLINE ? tr_top_p_mass_inline(a, a_max, t)
                                                  : tr_top_p_mass(a, a_max, t);
                if (m == 0) return;
                atomicAdd(&h_bins[b], 1u);
                if (sum16) {
                    // Pieces of 16 bits, at most 2^16 elements: each sum < 2^32.
                    u32* const pb = p16 + b;  // one address, the pieces at fixed offsets
                    atomicAdd(pb, (u32)(m & 0xffffu));
                    atomicAdd(pb + TR_TOPP_BINS, (u32)((m >> 16) & 0xffffu));
                    atomicAdd(pb + 2 * TR_TOPP_BINS, (u32)((m >> 32) & 0xffffu));
                    atomicAdd(pb + 3 * TR_TOPP_BINS, (u32)(m >> 48));
                } else {
                    tr_atomic_add128(&h_lo[b], &h_hi[b], (u128)m);
                }
            });
        }
        __syncthreads();
        tr_phase(2);
        ToppBin* bins = tr_topp_bins(A, row);
        for (u32 b = threadIdx.x; b < TR_TOPP_BINS; b += blockDim.x) {
            if (h_bins[b] == 0) continue;
            u128 v = ((u128)h_hi[b] << 64) | (u128)h_lo[b];
            if (pieces != 0) {
                const u32 w = pieces == 4 ? 16u : 15u;
                v = 0;
                for (u32 k = 0; k < pieces; k++) v += (u128)p16[k * TR_TOPP_BINS + b] << (w * k);
            }
            tr_atomic_add128(&bins[b].lo, &bins[b].hi, v);
        }
        tr_phase(5);
        if (!tr_topp_last(A, &R->arrive_hist)) {
            tr_phase_print("tr_phase_hist");
            return;
        }
        tr_phase(6);
        tr_topp_select_bins(A, row, h_sum);  // (the mass sums, flushed before tr_topp_last's barrier)
        tr_phase(7);
        tr_phase_print("tr_phase_hist");
    }
}

// Bitonic sort of key[0, p2) (p2 a power of two), descending, masses along;
// every thread of the block calls it.
__device__ void tr_topp_bitonic(u64* key, u64* mass, u32 p2) {
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
}

// Records the cut: the element of rank key k.
__device__ __forceinline__ void tr_topp_set_cut(const SampleArgs& A, u32 row, u64 k) {
    A.rowstate[row].cut_a = (double)tr_funkey((u32)(k >> 32));
    A.rowstate[row].cut_index = ~(u32)k;
    A.rowstate[row].pad0 = 1;  // cut found: the filter kernel skips the row
}

// The first position of the sorted list where the running mass reaches r: the
// cut. Every thread of the block calls it.
__device__ void tr_topp_walk(const SampleArgs& A, u32 row, const u64* key, const u64* mass, u32 n,
                             u128 r) {
    __shared__ u32 s_found;
    const u32 lane = threadIdx.x & 31;
    if (threadIdx.x == 0) s_found = TR_NO_TOKEN;
    __syncthreads();
    if (threadIdx.x < 32) {
        const u32 per = (n + 31) / 32;
        u128 sum = 0;
        for (u32 q = 0; q < per; q++) {
            const u32 j = lane * per + q;
            if (j < n) sum += mass[j];
        }
        const u128 incl = tr_warp_scan_u128(sum);
        const u128 excl = incl - sum;
#ifdef TR_TOPP_WALK_DIAG
        // Diagnostics only: a walk whose list's masses do not reach r (the
        // row then goes to the filter fallback).
        if (lane == 31 && incl < r)
            printf("tr_walk_short row %u n %u r %llu:%llu list %llu:%llu bstar %u\n", row, n,
                   (unsigned long long)(u64)(r >> 64), (unsigned long long)(u64)r,
                   (unsigned long long)(u64)(incl >> 64), (unsigned long long)(u64)incl, tr_topp_state(A, row)->bstar);
#endif
        if (excl < r && incl >= r) {
            u128 before = excl;
            for (u32 q = 0; q < per; q++) {
                const u32 j = lane * per + q;
                if (j >= n) break;
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
    if (threadIdx.x == 0 && s_found != TR_NO_TOKEN) tr_topp_set_cut(A, row, key[s_found]);
}

// 1: the cut counts ranks in slices of TR_TOPP_RANK_SLICE keys, and where
// every mass in the list is equal finds the cut from the ranks alone; 0: a
// thread counts an element's rank over the whole list, and the list is
// always sorted and walked (a tuning variant; the same cut).
#ifndef TR_TOPP_CUT_SPLIT
#define TR_TOPP_CUT_SPLIT 1
#endif
#ifndef TR_TOPP_RANK_SLICE
#define TR_TOPP_RANK_SLICE 32u
#endif
// The longest list the cut sorts by ranks (at most TR_TOPP_CAP / 2); a
// longer one takes the bitonic sort. Above TR_TOPP_CAP / 4 the sorted
// masses go to the keys' first half (the ranks sit in the masses' upper
// quarter). Run 44 tried TR_TOPP_CAP / 2 (an f32 row's bin b* holds about
// 900 elements at B = 256, whose bitonic sort took 37 us on an H100): the
// ranks of 900 keys took longer, f32 top-p 0.9 per call +115 us at B = 256
// and +30 at B = 1 (a tuning variant; the same cut).
#ifndef TR_TOPP_RANK_MAX
#define TR_TOPP_RANK_MAX (TR_TOPP_CAP / 4)
#endif
static_assert(TR_TOPP_RANK_MAX <= TR_TOPP_CAP / 2, "the ranks and the sorted keys fit beside the list");
// 1: an f32/f16 gather block collects its elements of b* in shared memory
// and appends them to the row's list with one global atomic; 0: one global
// atomic an element (a tuning variant; the same list, in another order,
// which the cut sorts).
#ifndef TR_TOPP_GATHER_STAGE
#define TR_TOPP_GATHER_STAGE 1
#endif
// 1 (with TR_TOPP_GATHER_STAGE): the f32/f16 gather's loop stages the
// elements inside b*'s float bounds by key, and tests the bin and min-p and
// computes the masses after the loop; 0: inside the loop (a tuning variant;
// the same list, in another order, and the same cut; a block staging more
// than TR_TOPP_CAP elements sends the row over the cap, where the filter
// kernel's selection gives the same cut).
#ifndef TR_TOPP_GATHER_LATE
#define TR_TOPP_GATHER_LATE 1
#endif
// 1: the cut of a list longer than TR_TOPP_RADIX_MIN elements is a radix
// selection over its keys (tr_topp_cut_radix), no sort; 0: such a list is
// sorted by ranks or by the bitonic sort and walked (the cut before run 45;
// a tuning variant, the same cut).
#ifndef TR_TOPP_CUT_RADIX
#define TR_TOPP_CUT_RADIX 1
#endif
#ifndef TR_TOPP_RADIX_MIN
#define TR_TOPP_RADIX_MIN 64u
#endif
// The radix cut's shared state: a round's buckets and what the next round
// takes.
struct CutRadix {
    u32 cnt[256];
    u32 piece[4][256];
    u64 wmin[TR_MAX_WARPS], wmax[TR_MAX_WARPS];
    u64 cmin, cmax;
    u64 r_lo, r_hi;
    u32 c;
    u32 state;  // 0: another round; 1: cut recorded; 2: no cut; 3: the chosen bucket holds one key
};
// The walk's element without a sort: the first element in descending key
// order at which the running mass reaches r. A round buckets the candidates
// (at first every key of the list) by the 8 bits from the highest bit where
// the least and the greatest candidate differ (the bits above it they
// share), counting each bucket's keys and summing its masses (four 16-bit
// pieces a mass, native 32-bit shared additions: each sum stays below 2^27
// for at most 2^11 elements). One warp then finds, in descending bucket
// order, the first nonempty bucket where the running mass reaches r: it
// holds the walk's element, a pass over its keys gives the next round's
// least and greatest candidate, and r less the masses of the buckets above
// it is the next round's r. A bucket of one key is the cut; r = 0 is the
// greatest key, found before the rounds. The keys are distinct, so every
// round with two or more candidates splits them and at most eight rounds
// run. Integer sums only: the order of the shared additions does not
// matter. Where the list's masses do not reach r, no cut is recorded (as
// after the walk). Every thread of the block calls it. (Run 45 timed a
// first form with 64-bit shared additions and each bucket's least and
// greatest key, which compile to compare-and-swap loops, 2-9 us a call
// slower; commit f2e895f has it as TR_TOPP_CUT_RADIX=1.)
__device__ __noinline__ void tr_topp_cut_radix(const SampleArgs& A, u32 row, const u64* key,
                                               const u64* mass, u32 n, u128 r, CutRadix& S) {
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
    // The least and greatest key of the candidates in [lo, hi] whose digit at
    // sh is c (c = 256: every digit): each warp's through shuffles, then,
    // after a barrier, the block's in thread 0's mn and mx.
    auto range = [&](u64 lo, u64 hi, int sh, u32 c, u64& mn, u64& mx) {
        mn = ~0ULL;
        mx = 0;
        for (u32 j = threadIdx.x; j < n; j += blockDim.x) {
            const u64 k = key[j];
            if (k < lo || k > hi || (c < 256u && ((u32)(k >> sh) & 255u) != c)) continue;
            mn = k < mn ? k : mn;
            mx = k > mx ? k : mx;
        }
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            const u64 omn = __shfl_xor_sync(TR_FULL, (unsigned long long)mn, off);
            const u64 omx = __shfl_xor_sync(TR_FULL, (unsigned long long)mx, off);
            mn = omn < mn ? omn : mn;
            mx = omx > mx ? omx : mx;
        }
        if (lane == 0) {
            S.wmin[warp] = mn;
            S.wmax[warp] = mx;
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            for (u32 w = 1; w < nw; w++) {
                mn = S.wmin[w] < mn ? S.wmin[w] : mn;
                mx = S.wmax[w] > mx ? S.wmax[w] : mx;
            }
        }
    };
    u64 mn, mx;
    range(0, ~0ULL, 0, 256u, mn, mx);
    if (threadIdx.x == 0) {
        S.cmin = mn;
        S.cmax = mx;
        S.r_lo = (u64)r;
        S.r_hi = (u64)(r >> 64);
        S.state = 0;
        // r = 0: the walk stops at the first element, the greatest key.
        if (r == 0) {
            if (n != 0) tr_topp_set_cut(A, row, mx);
            S.state = n != 0 ? 1u : 2u;
        }
    }
    // Phase clock: 11 the range known; 2 and 3 the first round's buckets
    // counted and picked, 4 and 5 the second's, 12 and 13 the last's.
    for (int round = 0;; round++) {
        for (u32 d = threadIdx.x; d < 256; d += blockDim.x) {
            S.cnt[d] = 0;
#pragma unroll
            for (int q = 0; q < 4; q++) S.piece[q][d] = 0;
        }
        __syncthreads();
        if (S.state != 0) return;
        if (round == 0) tr_phase(11);
        const u64 cmin = S.cmin, cmax = S.cmax;
        const u64 diff = cmin ^ cmax;
        const int h = diff != 0 ? 63 - __clzll((long long)diff) : 0;
        const int sh = h > 7 ? h - 7 : 0;
        for (u32 j = threadIdx.x; j < n; j += blockDim.x) {
            const u64 k = key[j];
            if (k < cmin || k > cmax) continue;
            const u32 d = (u32)(k >> sh) & 255u;
            const u64 m = mass[j];
            atomicAdd(&S.cnt[d], 1u);
#pragma unroll
            for (int q = 0; q < 4; q++) atomicAdd(&S.piece[q][d], (u32)(m >> (16 * q)) & 0xffffu);
        }
        __syncthreads();
        tr_phase(round == 0 ? 2 : round == 1 ? 4 : 12);
        if (threadIdx.x < 32) {
            auto bucket = [&](u32 d) {
                u128 v = 0;
#pragma unroll
                for (int q = 0; q < 4; q++) v += (u128)S.piece[q][d] << (16 * q);
                return v;
            };
            // Lane L holds buckets 255 - 8L down to 248 - 8L.
            u128 sum = 0;
            bool any = false;
#pragma unroll
            for (u32 q = 0; q < 8; q++) {
                const u32 d = 255u - 8u * lane - q;
                sum += bucket(d);
                any = any || S.cnt[d] != 0;
            }
            const u128 incl = tr_warp_scan_u128(sum);
            const u128 rr = ((u128)S.r_hi << 64) | (u128)S.r_lo;
            const u32 hit = __ballot_sync(TR_FULL, any && incl >= rr);
            if (hit == 0) {
                if (lane == 0) S.state = 2;
            } else if (lane == (u32)(__ffs(hit) - 1)) {
                u128 before = incl - sum;
                for (u32 q = 0; q < 8; q++) {
                    const u32 d = 255u - 8u * lane - q;
                    const u128 md = bucket(d);
                    if (S.cnt[d] != 0 && before + md >= rr) {
                        const u128 rn = rr - before;
                        S.c = d;
                        S.r_lo = (u64)rn;
                        S.r_hi = (u64)(rn >> 64);
                        S.state = S.cnt[d] == 1 ? 3u : 0u;
                        break;
                    }
                    before += md;
                }
            }
        }
        __syncthreads();
        tr_phase(round == 0 ? 3 : round == 1 ? 5 : 13);
        const u32 st = S.state;
        if (st == 2) return;
        range(cmin, cmax, sh, S.c, mn, mx);
        if (threadIdx.x == 0) {
            if (st == 3) {
                tr_topp_set_cut(A, row, mn);  // the bucket's one key (mn = mx)
                S.state = 1;
            } else {
                S.cmin = mn;
                S.cmax = mx;
            }
        }
    }
}

// The cut inside bin b* (the row's last gather block): sorts the bin's list by
// rank and walks it to the first position where the running mass reaches r
// (a list longer than TR_TOPP_RADIX_MIN: the same element by
// tr_topp_cut_radix, in S).
__device__ __noinline__ void tr_topp_cut(const SampleArgs& A, u32 row, u64* key, u64* mass,
                                         CutRadix& S) {
    ToppRow* R = tr_topp_state(A, row);
    const u32 n = __ldcg(&R->count);
    const u128 r = ((u128)R->r_hi << 64) | (u128)R->r_lo;
    __syncthreads();
    tr_phase(9);
    if (threadIdx.x == 0) {
        R->count = 0;  // ready for the next call
        R->active = 0;
    }
#ifdef TR_TOPP_WALK_DIAG
    if (threadIdx.x == 0 && n > TR_TOPP_CAP) printf("tr_walk_cap row %u n %u\n", row, n);
#endif
    if (n > TR_TOPP_CAP) return;  // the filter kernel takes the row (pad0 stays 0)
    u32 p2 = 1;
    while (p2 < n) p2 <<= 1;
    const u64* list = tr_topp_list(A, row);
    for (u32 j = threadIdx.x; j < p2; j += blockDim.x) {
        key[j] = j < n ? __ldcg(&list[2 * j]) : 0;
        mass[j] = j < n ? __ldcg(&list[2 * j + 1]) : 0;
    }
    __syncthreads();
    tr_phase(10);
    if (TR_TOPP_CUT_RADIX && n > TR_TOPP_RADIX_MIN) {
        tr_topp_cut_radix(A, row, key, mass, n, r, S);
        return;
    }
    // Sorted by rank key, descending (keys are distinct): a short list by
    // counting each key's rank (no barrier per step), placed after the input;
    // a long one by a bitonic sort in place.
    if (n > TR_TOPP_RANK_MAX) {
        tr_topp_bitonic(key, mass, p2);
        tr_topp_walk(A, row, key, mass, n, r);
        return;
    }
    // Ranks: the count of greater keys, in slices of TR_TOPP_RANK_SLICE keys
    // (an item is an element and a slice), the slices' counts added in
    // shared memory (integers: the order does not matter), so that a thread
    // compares about n^2 / blockDim keys rather than n or 2n.
    u32* const rank = (u32*)(mass + TR_TOPP_CAP / 2 + TR_TOPP_CAP / 4);
    const u32 slices = TR_TOPP_CUT_SPLIT ? (n + TR_TOPP_RANK_SLICE - 1) / TR_TOPP_RANK_SLICE : 1;
    const u32 len = TR_TOPP_CUT_SPLIT ? TR_TOPP_RANK_SLICE : n;
    bool same = true;  // every mass equal to the first
    for (u32 j = threadIdx.x; j < n; j += blockDim.x) {
        rank[j] = 0;
        same = same && mass[j] == mass[0];
    }
    same = __syncthreads_and(same) != 0;
    tr_phase(12);
    for (u32 it = threadIdx.x; it < n * slices; it += blockDim.x) {
        const u32 j = it % n, q0 = (it / n) * len, q1 = min(q0 + len, n);
        const u64 k = key[j];
        u32 c = 0;
#pragma unroll 8
        for (u32 q = q0; q < q1; q++) c += key[q] > k ? 1u : 0u;
        if (c != 0) atomicAdd(&rank[j], c);
    }
    tr_phase(13);
    __syncthreads();
    tr_phase(11);
    if (TR_TOPP_CUT_SPLIT && same) {
        // One mass m for all (a value entry of a bf16 row: its elements share
        // a value): the running mass at rank q is (q + 1) m, so the cut is
        // the element whose rank q has q m < r <= (q + 1) m; no sort, no walk.
        // None where the masses do not reach r (the filter kernel then takes
        // the row, as after the walk).
        const u128 m = mass[0];
        for (u32 j = threadIdx.x; j < n; j += blockDim.x) {
            const u128 q = rank[j];
            if (q * m < r && (q + 1) * m >= r) tr_topp_set_cut(A, row, key[j]);
        }
        return;
    }
    const u32 base = TR_TOPP_CAP / 2;
    if (n <= TR_TOPP_CAP / 4) {
        for (u32 j = threadIdx.x; j < n; j += blockDim.x) {
            key[base + rank[j]] = key[j];
            mass[base + rank[j]] = mass[j];
        }
        __syncthreads();
        tr_topp_walk(A, row, key + base, mass + base, n, r);
        return;
    }
    // Longer lists: the sorted masses would cover the ranks, so the keys go
    // to their upper half first, then the masses to the keys' first half.
    for (u32 j = threadIdx.x; j < n; j += blockDim.x) key[base + rank[j]] = key[j];
    __syncthreads();
    for (u32 j = threadIdx.x; j < n; j += blockDim.x) key[rank[j]] = mass[j];
    __syncthreads();
    tr_topp_walk(A, row, key + base, key, n, r);
}

// The elements of bin b* in one chunk, into the row's list.
template <int DT>
__device__ __forceinline__ void tr_topp_gather_chunk(const SampleArgs& A, u32 row, u32 chunk,
                                                     const RowState& st, ToppRow* R, u64* s_key,
                                                     u64* s_mass) {
    const u32 bstar = R->bstar;
    const double t = A.temperature[row], min_p = A.min_p[row];
    const double a_max = st.a_max;
    const double mthr = min_p > 0.0 ? tr_min_p_threshold(t, min_p) : 0.0;
    u64* list = tr_topp_list(A, row);
    auto push = [&](float x, u32 i, u64 m) {
        const u32 slot = atomicAdd(&R->count, 1u);
        if (slot < TR_TOPP_CAP) {
            list[2 * slot] = ((u64)tr_fkey(__fadd_rn(x, 0.0f)) << 32) | (u64)(~i);
            list[2 * slot + 1] = m;
        }
    };
    if constexpr (DT == 1) {
        const ToppMap M = tr_topp_map(a_max, t);
        if (bstar != M.np) {
            // A value entry: its elements are the bits of its value. b* passed
            // min-p and has a positive mass (select stopped in it).
            const double vstar = tr_topp_value(bstar, M);
            const u32 hstar = __float_as_uint((float)vstar);
            const u64 m = tr_top_p_mass(vstar, a_max, t);
            // Where the histogram located the cut (a chunk, or a segment of
            // a row of one chunk), the row's blocks share those units (a
            // piece each); else each reads its own chunk.
            const u32 loc_lo = R->loc_lo, loc_hi = R->loc_hi;
            i64 ulo, uhi;
            if (loc_hi != 0) {
                const i64 per = ((i64)loc_hi - loc_lo + A.nchunks - 1) / A.nchunks;
                const i64 p0 = (i64)loc_lo + (i64)chunk * per;
                ulo = p0 < loc_hi ? p0 : (i64)loc_hi;
                uhi = p0 + per < loc_hi ? p0 + per : (i64)loc_hi;
            } else {
                tr_topp_chunk_units(A, chunk, ulo, uhi);
            }
            if (TR_TOPP_GATHER_LEAN) {
                // On the raw bits: a unit is looked at element by element
                // only where one of its 16-bit halves equals b*'s bits (a zero
                // half of w ^ h2 sets bit 15 or 31 of (x - 0x10001) & ~x; a
                // borrow can set a bit beside a zero half, never without one).
                // Positions past the row read as -inf, never b*'s value.
                const u32 h16 = hstar >> 16, h2 = h16 | (h16 << 16);
                const float xstar = __uint_as_float(hstar);
                tr_topp_range<DT, TR_TOPP_GATHER_UNITS>(A, row, ulo, uhi, [&](const Raw8& r, i64 u) {
                    const u32 w[4] = {r.v0.x, r.v0.y, r.v0.z, r.v0.w};
                    u32 any = 0;
#pragma unroll
                    for (int j = 0; j < 4; j++) {
                        const u32 x = w[j] ^ h2;
                        any |= (x - 0x00010001u) & ~x;
                    }
                    if ((any & 0x80008000u) == 0) return;
#pragma unroll
                    for (int j = 0; j < 4; j++) {
                        if ((w[j] & 0xffffu) == h16) push(xstar, (u32)(u * 8 + 2 * j), m);
                        if ((w[j] >> 16) == h16) push(xstar, (u32)(u * 8 + 2 * j + 1), m);
                    }
                });
            } else {
                tr_topp_elems<DT, TR_TOPP_GATHER_UNITS>(A, row, ulo, uhi, [&](float x, u32 i) {
                    if (__float_as_uint(x) == hstar) push(x, i, m);
                });
            }
        } else {
            // The middle bin: |x| < Z, masses and min-p one by one.
            const u32 zbits = M.wz << 16;
            tr_topp_chunk<DT, TR_TOPP_GATHER_UNITS>(A, row, chunk, [&](float x, u32 i) {
                if ((__float_as_uint(x) & 0x7fffffffu) >= zbits) return;
                const double a = (double)x;
                if (min_p > 0.0 && !(__dsub_rn(a, a_max) >= mthr)) return;
                const u64 m = tr_top_p_mass(a, a_max, t);
                if (m != 0) push(x, i, m);
            });
        }
    } else {
        const double scale = tr_topp_scale(t);
        float xlo = tr_fninf(), xhi = -tr_fninf();
        if (TR_TOPP_GATHER_PREFILTER) tr_topp_bin_bounds(bstar, a_max, scale, xlo, xhi);
        // TR_TOPP_GATHER_STAGE: the block's elements of b* in s_key and
        // s_mass (the cut's arrays, free until the cut), counted in s_n,
        // then appended to the row's list with one global atomic.
        __shared__ u32 s_n, s_base;
        if (TR_TOPP_GATHER_STAGE) {
            if (threadIdx.x == 0) s_n = 0;
            __syncthreads();
        }
        if (TR_TOPP_GATHER_STAGE && TR_TOPP_GATHER_LATE) {
            // The loop stages every element inside b*'s float bounds by its
            // key alone; the tests of the bin, min-p and the mass come after
            // it, a staged element a thread, rather than inside the loop,
            // where a warp ran them for one lane at a time.
            tr_topp_chunk<DT, TR_TOPP_GATHER_UNITS, TR_TOPP_GATHER_PF>(A, row, chunk, [&](float x, u32 i) {
                if (!(x >= xlo && x <= xhi)) return;  // not in b* (nor NaN)
                if (!(x > tr_fninf())) return;
                const u32 slot = atomicAdd(&s_n, 1u);
                if (slot < TR_TOPP_CAP) s_key[slot] = ((u64)tr_fkey(__fadd_rn(x, 0.0f)) << 32) | (u64)(~i);
            });
            __syncthreads();
            const u32 nb = s_n;
            if (nb > TR_TOPP_CAP) {
                // More staged than a list holds: the row goes over the cap,
                // and the filter kernel's selection takes it (the same cut).
                if (threadIdx.x == 0) atomicAdd(&R->count, TR_TOPP_CAP + 1u);
            } else {
                const u32 lane = threadIdx.x & 31;
                for (u32 j0 = 0; j0 < nb; j0 += blockDim.x) {
                    const u32 j = j0 + threadIdx.x;
                    u64 k = 0, m = 0;
                    if (j < nb) {
                        k = s_key[j];
                        const double a = (double)tr_funkey((u32)(k >> 32));
                        if ((min_p <= 0.0 || __dsub_rn(a, a_max) >= mthr) &&
                            tr_topp_bin(a, a_max, scale) == bstar)
                            m = tr_top_p_mass(a, a_max, t);
                    }
                    const u32 keep = __ballot_sync(TR_FULL, m != 0);
                    if (keep == 0) continue;
                    u32 b0 = 0;
                    if (lane == 0) b0 = atomicAdd(&R->count, (u32)__popc(keep));
                    b0 = __shfl_sync(TR_FULL, b0, 0);
                    const u32 at = b0 + (u32)__popc(keep & ((1u << lane) - 1u));
                    if (m != 0 && at < TR_TOPP_CAP) {
                        list[2 * at] = k;
                        list[2 * at + 1] = m;
                    }
                }
            }
            __syncthreads();  // s_key is the cut's next
            return;
        }
        tr_topp_chunk<DT, TR_TOPP_GATHER_UNITS>(A, row, chunk, [&](float x, u32 i) {
            if (!(x >= xlo && x <= xhi)) return;  // not in b* (nor NaN)
            if (!(x > tr_fninf())) return;
            const double a = (double)x;
            if (min_p > 0.0 && !(__dsub_rn(a, a_max) >= mthr)) return;
            if (tr_topp_bin(a, a_max, scale) != bstar) return;
            const u64 m = tr_top_p_mass(a, a_max, t);
            if (m == 0) return;
            if (!TR_TOPP_GATHER_STAGE) {
                push(x, i, m);
                return;
            }
            const u32 slot = atomicAdd(&s_n, 1u);
            if (slot < TR_TOPP_CAP) {
                s_key[slot] = ((u64)tr_fkey(__fadd_rn(x, 0.0f)) << 32) | (u64)(~i);
                s_mass[slot] = m;
            }
        });
        if (TR_TOPP_GATHER_STAGE) {
            __syncthreads();
            const u32 nb = s_n;  // the block's true count: over TR_TOPP_CAP, so is the row's
            if (nb != 0) {
                if (threadIdx.x == 0) s_base = atomicAdd(&R->count, nb);
                __syncthreads();
                const u32 b0 = s_base;
                for (u32 j = threadIdx.x; j < min(nb, (u32)TR_TOPP_CAP); j += blockDim.x) {
                    if (b0 + j < TR_TOPP_CAP) {
                        list[2 * (b0 + j)] = s_key[j];
                        list[2 * (b0 + j) + 1] = s_mass[j];
                    }
                }
            }
            __syncthreads();  // s_key and s_mass are the cut's next
        }
    }
}

// A row the binned path could not finish (its cut's bin holds more than
// TR_TOPP_CAP elements): the filter kernel's exact radix selection over the
// row, run by this block, so that top-p rows never need the filter kernel.
template <int DT>
__device__ __noinline__ void tr_topp_fallback(const SampleArgs& A, u32 row, const RowState& st,
                                              FilterShared& S) {
    tr_filter_row<DT, false>(S, A, row, st, nullptr);
    __syncthreads();
    if (threadIdx.x == 0) A.rowstate[row].pad0 = 1;
}

template <int DT>
__device__ void tr_topp_gather(const SampleArgs& A) {
    const u32 row = blockIdx.x / A.nchunks, chunk = blockIdx.x % A.nchunks;
    RowState st;
    if (!tr_topp_live(A, row, st)) return;
    if (st.pad0 == 2) return;  // pending (a guard: the host launches no gather then)
    // Phase clock (TR_PHASE_PRINT; scripts/phase-clock.py --tag
    // tr_phase_gather): 0 start, 1 gathered, 6 the row's last block known, 7
    // cut, 8 done; 9-13 inside the cut.
    tr_phase_clear();
    tr_phase(0);
    ToppRow* R = tr_topp_state(A, row);
    // Every block reads `active` before it arrives; the last one resets it.
    const bool active = R->active != 0;
    // The cut's list, sorted in the row's last block; before that, an
    // f32/f16 block's staged elements of b* (TR_TOPP_GATHER_STAGE).
    __shared__ u64 s_key[TR_TOPP_CAP], s_mass[TR_TOPP_CAP];
    // The radix cut's buckets, then the fallback's state (one after the other).
    __shared__ union {
        CutRadix radix;
        FilterShared filter;
    } s_aux;
    if (active) tr_topp_gather_chunk<DT>(A, row, chunk, st, R, s_key, s_mass);
    tr_phase(1);
    if (!tr_topp_last(A, &R->arrive_gather)) {
        tr_phase_print("tr_phase_gather");
        return;
    }
    tr_phase(6);
    if (active) tr_topp_cut(A, row, s_key, s_mass, s_aux.radix);
    __syncthreads();
    tr_phase(7);
    tr_topp_tail_done<DT>(A);
#ifdef TR_TOPP_WALK_DIAG
    if (threadIdx.x == 0 && *(volatile u32*)&A.rowstate[row].pad0 != 1)
        printf("tr_gather_fallback row %u active %u\n", row, (u32)active);
#endif
    if (*(volatile u32*)&A.rowstate[row].pad0 != 1) tr_topp_fallback<DT>(A, row, st, s_aux.filter);
    tr_phase(8);
    tr_phase_print("tr_phase_gather");
}

// Four blocks of 256 threads an SM (64 registers): the element loops are
// short; the select and the cut, which run once a row, may spill.
#ifndef TR_TOPP_BOUNDS
#define TR_TOPP_BOUNDS __launch_bounds__(256, 4)
#endif
#ifndef TR_TOPP_GATHER_BOUNDS
#define TR_TOPP_GATHER_BOUNDS TR_TOPP_BOUNDS
#endif
// The f32/f16 histograms may take other bounds (a tuning variant: run 45
// timed five and six blocks an SM, 48 and 40 registers, at 1.2-2.5x the
// histogram's time at B = 256; its loop is bound by the latency of its
// binary64 chains at four).
#ifndef TR_TOPP_FLOAT_BOUNDS
#define TR_TOPP_FLOAT_BOUNDS TR_TOPP_BOUNDS
#endif
extern "C" __global__ void TR_TOPP_FLOAT_BOUNDS tr_topp_hist_f32(__grid_constant__ const SampleArgs A) { tr_topp_begin<0>(A); tr_topp_hist<0>(A); }
extern "C" __global__ void TR_TOPP_BOUNDS tr_topp_hist_bf16(__grid_constant__ const SampleArgs A) { tr_topp_begin<1>(A); tr_topp_hist<1>(A); }
extern "C" __global__ void TR_TOPP_FLOAT_BOUNDS tr_topp_hist_f16(__grid_constant__ const SampleArgs A) { tr_topp_begin<2>(A); tr_topp_hist<2>(A); }
extern "C" __global__ void TR_TOPP_BOUNDS tr_topp_hist_stage_bf16(__grid_constant__ const SampleArgs A) { tr_topp_begin<1>(A); tr_topp_hist<1, true>(A); }
extern "C" __global__ void TR_TOPP_GATHER_BOUNDS tr_topp_gather_f32(__grid_constant__ const SampleArgs A) { tr_topp_begin<0>(A); tr_topp_gather<0>(A); }
extern "C" __global__ void TR_TOPP_GATHER_BOUNDS tr_topp_gather_bf16(__grid_constant__ const SampleArgs A) { tr_topp_begin<1>(A); tr_topp_gather<1>(A); }
extern "C" __global__ void TR_TOPP_GATHER_BOUNDS tr_topp_gather_f16(__grid_constant__ const SampleArgs A) { tr_topp_begin<2>(A); tr_topp_gather<2>(A); }

// The race of phase 1 for batches with bf16 top-p rows, pending rows
// included (tr_topp_pend): tr_fast_bf16 and tr_fast_wide_bf16 with the list
// of the cut's value.
extern "C" __global__ void TR_FAST_BOUNDS tr_fast_pend_bf16(__grid_constant__ const SampleArgs A) { tr_pass_prestage<1, true, false, TR_FAST_STAGED, true>(A); tr_grid_begin(); tr_pass<1, true, false, TR_FAST_STAGED, TR_FAST_PILOT, true, true>(A); }
extern "C" __global__ void TR_FAST_WIDE_BOUNDS tr_fast_wide_pend_bf16(__grid_constant__ const SampleArgs A) { tr_pass_prestage<1, true, false, TR_FAST_WIDE_STAGED, false>(A); tr_grid_begin(); tr_pass<1, true, false, TR_FAST_WIDE_STAGED, TR_FAST_WIDE_PILOT, true>(A); }
