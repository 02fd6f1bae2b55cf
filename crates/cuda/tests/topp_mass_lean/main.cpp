
// ---- the checks ----
static u64 g_state = 0x9e3779b97f4a7c15ULL;
static u64 next_u64() {  // splitmix64
    u64 z = (g_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static double unit() { return (double)(next_u64() >> 11) * 0x1p-53; }
static u64 bits(double x) { return (u64)__double_as_longlong(x); }

// The mass of tr_top_p_mass_inline once y is known (y >= -44).
static u64 mass_ref(double y) { return __double2ull_rz(__dmul_rn(tr_exp_nonpositive_inline(y), 0x1p63)); }

// The histogram element's mass as tr_topp_hist_float computes it.
static u64 mass_lean(double a, double a_max, double t, double rt) {
    const double num = __dsub_rn(a, a_max);
    const double y = rt != 0.0 ? __dmul_rn(num, rt) : __ddiv_rn(num, t);
    const bool has_mass = y >= -44.0;
    const u64 m = tr_top_p_mass_exp(has_mass ? y : -44.0);
    return has_mass ? m : 0;
}

int main() {
    long checked = 0, bad = 0;
    auto expect_mass = [&](double y) {
        checked++;
        const u64 a = tr_top_p_mass_exp(y), b = mass_ref(y);
        if (a != b && bad++ < 10) printf("mass y=%a: lean %llu, inline %llu\n", y, (unsigned long long)a, (unsigned long long)b);
    };
    // 1. tr_top_p_mass_exp against the inlined exp on y in [-44, 0]: the
    // ends, tiny and subnormal y, every reduction step's edges (y where
    // y / ln 2 + 1/2 crosses an integer) to 64 ulps either side, and
    // uniform and log-uniform draws.
    expect_mass(-0.0);
    expect_mass(0.0);
    expect_mass(-44.0);
    expect_mass(nextafter(-44.0, 0.0));
    expect_mass(-5e-324);
    expect_mass(-1e-300);
    expect_mass(-0x1p-1022);
    for (int n = -64; n <= 0; n++) {
        double y = ((double)n - 0.5) * 0.6931471805599453;
        for (int k = 0; k < 64; k++) y = nextafter(y, -1e9);
        for (int k = 0; k < 129; k++, y = nextafter(y, 1e9))
            if (y >= -44.0 && y <= 0.0) expect_mass(y);
    }
    for (int i = 0; i < 4000000; i++) expect_mass(-44.0 * unit());
    for (int i = 0; i < 1000000; i++) expect_mass(-std::exp2(-60.0 * unit()) * 44.0);
    printf("masses: %ld y checked, %ld differ\n", checked, bad);

    // 2. tr_exact_reciprocal: 1/t for t = 2^k, k in [-1022, 1022], 0 for
    // every other t; where it is not 0, d * (1/t) == d / t bit for bit for d
    // of every magnitude (subnormal and overflowing results included).
    long rchecked = 0, rbad = 0;
    for (int k = -1074; k <= 1023; k++) {
        const double t = std::ldexp(1.0, k);
        const double rt = tr_exact_reciprocal(t);
        const bool want = k >= -1022 && k <= 1022;
        rchecked++;
        if ((rt != 0.0) != want || (want && bits(rt) != bits(1.0 / t))) {
            if (rbad++ < 10) printf("reciprocal of 2^%d: %a\n", k, rt);
            continue;
        }
        if (!want) continue;
        for (int i = 0; i < 2000; i++) {
            const double d = -std::ldexp(1.0 + unit(), (int)(next_u64() % 2100) - 1075);
            rchecked++;
            if (bits(__dmul_rn(d, rt)) != bits(__ddiv_rn(d, t)) && rbad++ < 10)
                printf("d=%a t=2^%d: %a against %a\n", d, k, __dmul_rn(d, rt), __ddiv_rn(d, t));
        }
    }
    const double others[] = {0.7, 3.0, 1.5, 0.1, 100.0, nextafter(1.0, 2.0), nextafter(1.0, 0.0), 5e-324, 1e-310,
                             1.7e308, -1.0, -0.5, 0.0, -0.0, INFINITY, NAN};
    for (double t : others) {
        rchecked++;
        if (tr_exact_reciprocal(t) != 0.0 && rbad++ < 10) printf("reciprocal of %a should be 0\n", t);
    }
    for (int i = 0; i < 1000000; i++) {
        const double t = __longlong_as_double((i64)(next_u64() >> 1));
        const bool pow2 = (bits(t) & 0x000fffffffffffffULL) == 0;
        rchecked++;
        if (!pow2 && tr_exact_reciprocal(t) != 0.0 && rbad++ < 10) printf("reciprocal of %a should be 0\n", t);
    }
    printf("reciprocals: %ld checked, %ld wrong\n", rchecked, rbad);

    // 3. The element's mass (division or multiplication, the clamp at -44)
    // against tr_top_p_mass_inline for random rows: a_max and a of many
    // magnitudes, temperatures powers of two and not.
    long echecked = 0, ebad = 0;
    const double ts[] = {1.0, 0.5, 2.0, 0.25, 0x1p-1022, 0x1p1022, 0.7, 1.3, 0.01, 100.0, 1e-300, 5e-324, 1.7e308};
    for (double t : ts) {
        const double rt = tr_exact_reciprocal(t);
        for (int i = 0; i < 300000; i++) {
            const double a_max = (unit() - 0.5) * std::exp2(40.0 * unit() - 20.0);
            const double spread = std::exp2(12.0 * unit() - 6.0) * (t < 1e-200 || t > 1e200 ? 1.0 : t) * 60.0;
            const double a = (double)(float)(a_max - spread * unit());
            const double am = a > a_max ? a : a_max;
            echecked++;
            const u64 x = mass_lean(a, am, t, rt), y = tr_top_p_mass_inline(a, am, t);
            if (x != y && ebad++ < 10)
                printf("a=%a a_max=%a t=%a: lean %llu, inline %llu\n", a, am, t, (unsigned long long)x,
                       (unsigned long long)y);
        }
    }
    printf("elements: %ld checked, %ld differ\n", echecked, ebad);
    return bad == 0 && rbad == 0 && ebad == 0 && checked > 5000000 ? 0 : 1;
}
