
// splitmix64: a seeded stream for the lists (any fixed generator would do).
static u64 mix_state = 0x5eed0f7a11ace5ULL;
static u64 next_u64() {
    u64 z = (mix_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static u32 below_u32(u32 bound) { return (u32)(next_u64() % bound); }

static u32 failures = 0, lists = 0, ranks = 0;
static void fail(const char* what, u32 vocab, u32 n, u32 j, u32 got, u32 want) {
    if (failures++ < 20)
        printf("FAIL %s: vocab %u n %u entry %u: got %u, want %u\n", what, vocab, n, j, got, want);
}

// One list of n distinct indices below vocab, in the order given, checked
// as the finish uses it: every entry's rank, and the cut for every q from 1
// to n + 1 (q = n + 1: no entry has that rank, the cut stays TR_NO_TOKEN).
static void check_list(const std::vector<u32>& idx, u32 vocab) {
    const u32 n = (u32)idx.size();
    alignas(16) u32 list[TR_TOPP_PEND_CAP];
    for (u32 j = 0; j < TR_TOPP_PEND_CAP; j++) list[j] = j < n ? idx[j] : TR_PEND_SENTINEL;
    const u32 n16 = (n + 15) & ~15u;
    std::vector<u32> rank(n);
    for (u32 j = 0; j < n; j++) {
        u32 want = 0;
        for (u32 k = 0; k < n; k++) want += idx[k] < idx[j] ? 1u : 0u;
        rank[j] = tr_pend_rank(list, n16, idx[j]);
        if (rank[j] != want) fail("rank", vocab, n, j, rank[j], want);
        ranks++;
    }
    std::vector<u32> sorted(idx);
    std::sort(sorted.begin(), sorted.end());
    for (u32 q = 1; q <= n + 1; q++) {
        u32 cut = 0xffffffffu;
        for (u32 j = 0; j < n; j++)
            if (rank[j] + 1 == q) cut = idx[j];
        const u32 want = q <= n ? sorted[q - 1] : 0xffffffffu;
        if (cut != want) fail("cut", vocab, n, q, cut, want);
    }
    lists++;
}

// n distinct indices below vocab in random order; with ends, the first and
// the last index are among them (where n allows).
static std::vector<u32> draw(u32 vocab, u32 n, bool ends) {
    std::vector<u32> v;
    if (ends && n >= 1) v.push_back(0);
    if (ends && n >= 2 && vocab > 1) v.push_back(vocab - 1);
    while (v.size() < n) {
        const u32 i = below_u32(vocab);
        if (std::find(v.begin(), v.end(), i) == v.end()) v.push_back(i);
    }
    for (u32 j = n; j > 1; j--) std::swap(v[j - 1], v[below_u32(j)]);
    return v;
}

int main() {
    // Rows as short as one element and as long as the direct counts take
    // (2^31 - 1 elements: the largest index is one below the sentinel).
    const u32 vocabs[] = {1, 8, 600, 32000, 131072, 262144, 0x7fffffffu};
    for (u32 vocab : vocabs) {
        for (u32 n = 0; n <= TR_TOPP_PEND_CAP && n <= vocab; n++) {
            const u32 trials = n <= 32 ? 4 : 1;
            for (u32 t = 0; t < trials; t++) check_list(draw(vocab, n, t % 2 == 0), vocab);
        }
    }
    // A row of n consecutive indices (a run of equal logits), ascending and
    // descending.
    for (u32 n = 1; n <= TR_TOPP_PEND_CAP; n *= 2) {
        std::vector<u32> up(n), down(n);
        for (u32 j = 0; j < n; j++) up[j] = 1000 + j, down[j] = 1000 + n - 1 - j;
        check_list(up, 1000 + n);
        check_list(down, 1000 + n);
    }
    printf("%u lists, %u ranks checked, %u failures\n", lists, ranks, failures);
    return failures == 0 && lists > 0 && ranks > 0 ? 0 : 1;
}
