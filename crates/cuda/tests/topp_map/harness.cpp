// Host harness for the bf16 top-p entry map of kernels/topp.cu (run by
// tests/topp_map.rs, which appends the kernel's map functions to this file).
// It checks the branch-free 16-bit SIMD map (tr_topp_keys, tr_topp_entries2)
// against the map's definition by sign and magnitude (tr_topp_entry_ref) for
// every bf16 value at or below a_max, over a grid of a_max and T, and that the
// two halves of a word never interact.
#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
typedef uint32_t u32;
typedef uint64_t u64;
#define __device__
#define __forceinline__ inline
#define TR_TOPP_VALUES 4096u
#define TR_TOPP_NONE 0xffffffffu
using std::max;
using std::min;
static inline u32 __float_as_uint(float f) { u32 u; memcpy(&u, &f, 4); return u; }
static inline float __uint_as_float(u32 u) { float f; memcpy(&f, &u, 4); return f; }
static inline double __dsub_rn(double a, double b) { return a - b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline float rounded(double x, int mode) {
    fesetround(mode);
    volatile double v = x;
    volatile float f = (float)v;
    fesetround(FE_TONEAREST);
    return f;
}
static inline float __double2float_rz(double x) { return rounded(x, FE_TOWARDZERO); }
static inline float __double2float_ru(double x) { return rounded(x, FE_UPWARD); }
static inline u32 __vmaxu2(u32 a, u32 b) { return max(a & 0xffff, b & 0xffff) | (max(a >> 16, b >> 16) << 16); }
static inline u32 __vminu2(u32 a, u32 b) { return min(a & 0xffff, b & 0xffff) | (min(a >> 16, b >> 16) << 16); }
