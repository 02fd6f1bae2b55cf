// Host harness for the direct race's word filter of kernels/noise.cuh (run by
// tests/direct_filter.rs, which puts the kernels' generated constants, the
// profile codes and the filter's functions after this file, then main.cpp).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t i32;
typedef int64_t i64;
#define __device__
#define __forceinline__ inline
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dsub_rn(double a, double b) { return a - b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
static inline int __double2int_rd(double x) { return (int)std::floor(x); }
static inline u64 __double2ull_rd(double x) { return (u64)std::floor(x); }
static inline double __longlong_as_double(i64 v) { double d; memcpy(&d, &v, 8); return d; }
