// The map's definition: positive values from a_max down to wp1 (entries
// 0 .. np - 1), |x| < Z pooled in entry np, negative values from wn0 to wl
// after it; TR_TOPP_NONE for the rest (mass 0 for sure).
static u32 tr_topp_entry_ref(float x, const ToppMap& M) {
    const u32 h = __float_as_uint(x) >> 16, w = h & 0x7fffu;
    if (w < M.wz) return M.np;
    if ((h >> 15) == 0) return w >= M.wp1 ? M.wa - w : TR_TOPP_NONE;
    return (w >= M.wn0 && w <= M.wl) ? M.np + 1 + (w - M.wn0) : TR_TOPP_NONE;
}

static bool row_value(u32 h, float af) {
    const u32 w = h & 0x7fff;
    if (w > 0x7f80 || h == 0x7f80) return false;  // NaN, +inf: error rows
    return __uint_as_float(h << 16) <= af;
}

// The provisional map of a row counted before its maximum is known
// (tr_topp_fuse_window, TR_TOPP_FUSE): for sample maxima s over a grid of
// bf16 values and temperatures, and row maxima a_max from s up to the top
// (and one octave short of it), every value of the row (at or below a_max)
// that the row's own map counts must count under the provisional map in the
// entry of its own value or in the middle entry (|x| < Z), and no value may
// count in the entry of another value; the window's entries fit the table and
// its top holds s.
static u32 entry_bits(u32 e, const ToppMap& M) {
    return e < M.np ? M.wa - e : 0x8000u | (M.wn0 + (e - M.np - 1));
}
static void fuse_windows(const double* ts, int nts, long& checked, long& windows, long& bad) {
    for (u32 hs = 0; hs < 0x10000; hs += (hs < 0x100 || (hs > 0x7f00 && hs < 0x8100) || hs > 0xff00) ? 3 : 331) {
        if ((hs & 0x7fff) >= 0x7f80) continue;
        const float s = __uint_as_float(hs << 16);
        for (int it = 0; it < nts; it++) {
            const double t = ts[it];
            double a_top, lo;
            if (!tr_topp_fuse_window(s, t, a_top, lo)) continue;
            windows++;
            const ToppMap P = tr_topp_map_lo(a_top, lo);
            const ToppKeys QP = tr_topp_keys(P, a_top);
            const u32 ht = __float_as_uint((float)a_top) >> 16;
            if (P.e > TR_TOPP_VALUES || !((double)s <= a_top) || (ht & 0x7fff) >= 0x7f80) {
                if (bad++ < 10) printf("window of s %g T %g: top %g, %u entries\n", (double)s, t, a_top, P.e);
                continue;
            }
            // Row maxima: s, the top, halfway (in bits) and one octave below the top.
            const u32 hi = ht, hm = (hs >> 15) ? ht / 2 : hs + (ht - hs) / 2;
            const u32 cands[4] = {hs, hi, hm, ht >= 0x80 ? ht - 0x80 : ht};
            for (u32 ha : cands) {
                const float af = __uint_as_float(ha << 16);
                if (!(af >= s) || !((double)af <= a_top)) continue;
                const ToppMap M = tr_topp_map(af, t);
                for (u32 h = 0; h < 0x10000; h++) {
                    if (!row_value(h, af)) continue;
                    const float x = __uint_as_float(h << 16);
                    const u32 ref = tr_topp_entry_ref(x, M);
                    const u32 e2 = tr_topp_entries2(h | (h << 16), QP);
                    const u32 e = std::min(e2 & 0xffff, QP.ec);
                    checked++;
                    bool ok;
                    if (e == QP.mid) ok = (h & 0x7fff) < P.wz;
                    else if (e < QP.ec) ok = entry_bits(e, P) == h || ((h & 0x7fff) == 0 && entry_bits(e, P) == (h ^ 0x8000));
                    else ok = ref == TR_TOPP_NONE || (ref == M.np && M.wp1 > M.wz && (double)x < lo);
                    if (!ok && bad++ < 10)
                        printf("s %g T %g a_max %g x %g: row's entry %u, provisional %u (ec %u, mid %u)\n", (double)s, t,
                               (double)af, (double)x, ref, e, QP.ec, QP.mid);
                }
            }
        }
    }
}

int main() {
    const double ts[] = {1e-4, 1e-3, 0.01, 0.1, 0.3, 0.5, 1, 1.7, 2, 5, 10, 100, 1e4, 1e10, 1e30};
    long checked = 0, bad = 0, dropped = 0;
    for (u32 ha = 0; ha < 0x10000; ha += (ha < 0x100 || (ha > 0x7f00 && ha < 0x8100) || ha > 0xff00) ? 1 : 97) {
        if ((ha & 0x7fff) >= 0x7f80) continue;  // a finite a_max
        const float af = __uint_as_float(ha << 16);
        for (double t : ts) {
            const ToppMap M = tr_topp_map(af, t);
            const ToppKeys Q = tr_topp_keys(M, af);
            const double lo = (double)af - 45.0 * t;
            for (u32 h = 0; h < 0x10000; h++) {
                if (!row_value(h, af)) continue;
                const float x = __uint_as_float(h << 16);
                const u32 ref = tr_topp_entry_ref(x, M);
                const u32 e2 = tr_topp_entries2(h | (h << 16), Q);
                const u32 e = e2 & 0xffff;
                checked++;
                if ((e2 >> 16) != e) { bad++; continue; }
                const bool counted = e < Q.ec, mid = e == Q.mid;
                bool ok;
                if (ref == TR_TOPP_NONE) ok = !counted && !mid;
                else if (ref == M.np) {
                    ok = counted && mid;
                    // lo > Z: the middle bin lies below the window (mass 0).
                    if (!ok && !counted && !mid && M.wp1 > M.wz && (double)x < lo) { ok = true; dropped++; }
                } else ok = counted && !mid && e == ref;
                if (!ok && bad++ < 10)
                    printf("a_max %g T %g x %g: reference %u, SIMD %u (ec %u, mid %u)\n", (double)af, t, (double)x, ref, e, Q.ec, Q.mid);
            }
        }
    }
    // Two different values a word: the halves never borrow from each other.
    unsigned long long r = 88172645463325252ull;
    auto rnd = [&]() { r ^= r << 13; r ^= r >> 7; r ^= r << 17; return r; };
    long pairs = 0;
    for (int it = 0; it < 4000; it++) {
        const u32 ha = rnd() & 0xffff;
        if ((ha & 0x7fff) >= 0x7f80) continue;
        const float af = __uint_as_float(ha << 16);
        const ToppMap M = tr_topp_map(af, ts[rnd() % 15]);
        const ToppKeys Q = tr_topp_keys(M, af);
        for (int k = 0; k < 4000; k++) {
            const u32 h0 = rnd() & 0xffff, h1 = rnd() & 0xffff;
            if (!row_value(h0, af) || !row_value(h1, af)) continue;
            pairs++;
            const u32 both = tr_topp_entries2(h0 | (h1 << 16), Q);
            const u32 a = tr_topp_entries2(h0 | (h0 << 16), Q) & 0xffff;
            const u32 b = tr_topp_entries2(h1 | (h1 << 16), Q) >> 16;
            if (both != (a | (b << 16)) && bad++ < 10) printf("pair %x %x under a_max %g\n", h0, h1, (double)af);
        }
    }
    long fchecked = 0, windows = 0;
    fuse_windows(ts, 15, fchecked, windows, bad);
    printf("checked %ld values, %ld pairs, %ld values under %ld provisional windows: %ld wrong (%ld middle values below the window left out)\n",
           checked, pairs, fchecked, windows, bad, dropped);
    return bad == 0 && checked > 100000000 && pairs > 1000000 && fchecked > 10000000 ? 0 : 1;
}
