
// Mode "limit": reads binary64 values y from argv[2] and writes, for each,
// the limits of the f64, f32 and triton profiles (three u32) to argv[3];
// mode "dist" the same for 32-bit words and their distances. The Rust test
// checks both against profile::ln_variate_lower_bound.
// Mode "y": checks tr_direct_y against the quotient in binary128 on values
// of a, bs and T drawn here, and prints the number of failures.
static u64 rng_state = 0x9E3779B97F4A7C15ull;
static u64 next_u64() {
    u64 z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static double uniform() { return (double)(next_u64() >> 11) * 0x1p-53; }
static double pick_exp(double lo, double hi) { return std::exp2(lo + (hi - lo) * uniform()); }

static int run_limit(const char* in, const char* out) {
    FILE* f = fopen(in, "rb");
    if (!f) return 2;
    FILE* g = fopen(out, "wb");
    if (!g) return 2;
    double y;
    while (fread(&y, 8, 1, f) == 1) {
        u32 lim[3] = {tr_direct_limit<TR_PROFILE_F64>(y), tr_direct_limit<TR_PROFILE_F32>(y),
                      tr_direct_limit<TR_PROFILE_TRITON>(y)};
        fwrite(lim, 4, 3, g);
    }
    fclose(f);
    fclose(g);
    return 0;
}

static int run_dist(const char* in, const char* out) {
    FILE* f = fopen(in, "rb");
    if (!f) return 2;
    FILE* g = fopen(out, "wb");
    if (!g) return 2;
    u32 w;
    while (fread(&w, 4, 1, f) == 1) {
        u32 d[3] = {tr_direct_dist<TR_PROFILE_F64>(w), tr_direct_dist<TR_PROFILE_F32>(w),
                    tr_direct_dist<TR_PROFILE_TRITON>(w)};
        fwrite(d, 4, 3, g);
    }
    fclose(f);
    fclose(g);
    return 0;
}

static int run_y() {
    long fails = 0, checked = 0;
    for (long n = 0; n < 4000000; n++) {
        // a: a logit or logit + bias (binary32 or binary64 values); bs: a
        // score, near a or far from it; T: 10^-6 to 10^6, and tiny or huge.
        double a = (double)(float)((uniform() - 0.5) * pick_exp(-10, 20));
        if (n % 7 == 0) a = (uniform() - 0.5) * pick_exp(-40, 60);
        double bs = a - (uniform() - 0.3) * pick_exp(-30, 12);
        if (n % 11 == 0) bs = (uniform() - 0.5) * pick_exp(-1000, 1000);
        double t = pick_exp(-20, 20);
        if (n % 13 == 0) t = pick_exp(-1070, 1020);
        const double inv_t = 1.0 / t;
        const double y = tr_direct_y(a, bs, inv_t);
        const __float128 q = ((__float128)a - (__float128)bs) / (__float128)t;
        if (std::isnan(y)) continue;  // NaN: the race lets every element through
        checked++;
        // (Where the quotient underflows, tr_direct_limit's margin covers y.)
        const __float128 tiny = (__float128)0x1p-1000;
        const __float128 mag = q < 0 ? -q : q;
        if (!((__float128)y >= q || (mag < tiny && (__float128)y >= q - tiny))) {
            if (fails < 10) printf("y below the quotient: a %a bs %a T %a y %a\n", a, bs, t, y);
            fails++;
        }
    }
    printf("tr_direct_y: %ld values checked, %ld below (a - bs) / T\n", checked, fails);
    return fails == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
    if (argc == 4 && strcmp(argv[1], "limit") == 0) return run_limit(argv[2], argv[3]);
    if (argc == 4 && strcmp(argv[1], "dist") == 0) return run_dist(argv[2], argv[3]);
    if (argc == 2 && strcmp(argv[1], "y") == 0) return run_y();
    fprintf(stderr, "usage: limit IN OUT | dist IN OUT | y\n");
    return 2;
}
