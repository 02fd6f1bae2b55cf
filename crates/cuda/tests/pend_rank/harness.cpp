// Host harness for the pending top-p finish's direct ranks of kernels/topp.cu
// (run by tests/pend_rank.rs, which appends the kernel's tr_pend_rank and its
// sentinel to this file, then main.cpp). The kernel runs the same function in
// each thread of a pending row's last block; here it runs over lists built
// as the block builds them (distinct indices in any order, sentinels up to a
// multiple of 16) and is checked against a plain count of the smaller
// indices and against the sorted list's q-th entry.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>
typedef uint32_t u32;
typedef uint64_t u64;
#define __device__
#define __forceinline__ inline
struct uint4 {
    u32 x, y, z, w;
};
