// Host harness for the f32/f16 top-p histogram's mass arithmetic (run by
// tests/topp_mass_lean.rs, which appends the kernel's prelude of constants,
// math.cuh's exp and mass functions and topp.cu's exact reciprocal to this
// file, then main.cpp). Built with -ffp-contract=off: every operation below
// is one correctly rounded IEEE binary64 operation, as the kernel's
// intrinsics are.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
typedef uint32_t u32;
typedef int32_t i32;
typedef int64_t i64;
typedef uint64_t u64;
#define __device__
#define __forceinline__ inline
#define __noinline__
#define __constant__ static const
static inline double __longlong_as_double(i64 v) { double d; memcpy(&d, &v, 8); return d; }
static inline i64 __double_as_longlong(double d) { i64 v; memcpy(&v, &d, 8); return v; }
static inline double __dsub_rn(double a, double b) { return a - b; }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __ddiv_rn(double a, double b) { return a / b; }
static inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
static inline int __double2int_rz(double x) { return (int)x; }
static inline u64 __double2ull_rz(double x) { return (u64)x; }
static inline double tr_nan() { return __longlong_as_double(0x7ff8000000000000LL); }
