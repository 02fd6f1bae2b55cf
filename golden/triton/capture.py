"""Capture golden values of the Triton/Megatron request-seed noise from real Triton.

Run on a CUDA machine (python3 with torch and Triton):

    PYTHONUNBUFFERED=1 python3 golden/triton/capture.py --out DIR 2>&1 | tee DIR/capture.log

Writes into DIR:
  noise_cases.json   560 (seed, position, index) rows: Philox word 0, uniform bits, noise bits
  logf_samples.json  tl.log on ~50,000 float32 inputs
  triton_1m.bin      2^20 triples (see tref.dump_triples): u32 word, u bits, noise bits (LE)
  log_kernel.ptx     PTX of a kernel that only calls tl.log (evidence of what tl.log becomes)
  noise_kernel.ptx   PTX of the noise kernel
and checks, on the GPU, tl.log against a re-implementation of libdevice __nv_logf
(tref.LOGF_C) and against the Rust reconstruction in crates/noise/src/libdevice.rs
for every float32 bit pattern.

`--quick` runs a tiny version (works with TRITON_INTERPRET=1 on a CPU, where tl.log is
numpy's log, so only the plumbing is tested there).
"""

import argparse
import datetime
import inspect
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tref  # noqa: E402

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

FLT_MIN = 1.1754943508222875e-38


def f32c(bits):
    """A binary32 constant as the exact Python float."""
    return float(np.uint32(bits).view(np.float32))


# libdevice __nv_logf (libdevice.10.bc of Triton 3.6), binary32 bits
LD0, LD1, LD2, LD3, LD4, LD5, LD6, LD7 = [tl.constexpr(f32c(c)) for c in tref.LOGF_C]
LN2 = tl.constexpr(f32c(tref.LOGF_LN2))
# crates/noise/src/libdevice.rs as of commit 449b03b (the unverified reconstruction)
RS0, RS1, RS2, RS3, RS4, RS5, RS6, RS7 = [tl.constexpr(f32c(c)) for c in [
    0xBE055000, 0x3E10455C, 0xBDF8CF88, 0x3E0F2A3B, 0xBE2AD96C, 0x3E4CEC8F, 0xBE7FFF0C, 0x3EAAAA7C]]


# ----------------------------------------------------------------------------- kernels

@triton.jit
def noise_kernel(seed_ptr, pos_ptr, idx_ptr, word_ptr, u_ptr, e_ptr, n, BLOCK: tl.constexpr):
    """Megatron's request-seed noise, element-wise: key = seed, counter = (index, pos lo, pos hi, 0)."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    seed = tl.load(seed_ptr + offs, mask=mask, other=0)  # int64 holding the u64 seed bits
    pos = tl.load(pos_ptr + offs, mask=mask, other=0).to(tl.uint64, bitcast=True)
    idx = tl.load(idx_ptr + offs, mask=mask, other=0)  # int32
    c0 = idx.to(tl.uint32, bitcast=True)
    c1 = (pos & 0xFFFFFFFF).to(tl.uint32)
    c2 = (pos >> 32).to(tl.uint32)
    c3 = c0 * 0
    w0, _w1, _w2, _w3 = tl.philox(seed, c0, c1, c2, c3)
    u = tl.uint_to_uniform_float(w0)
    e = -tl.log(tl.maximum(u, 1.1754943508222875e-38))
    tl.store(word_ptr + offs, w0.to(tl.int32, bitcast=True), mask=mask)
    tl.store(u_ptr + offs, u.to(tl.int32, bitcast=True), mask=mask)
    tl.store(e_ptr + offs, e.to(tl.int32, bitcast=True), mask=mask)


@triton.jit
def log_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0).to(tl.float32, bitcast=True)
    y = tl.log(x)
    tl.store(y_ptr + offs, y.to(tl.int32, bitcast=True), mask=mask)


@triton.jit
def logf_libdevice_ref(a):
    """libdevice __nv_logf transcribed with explicit fma (the fix proposed for libdevice.rs)."""
    small = a < 1.1754943508222875e-38
    x = tl.where(small, a * 8388608.0, a)
    i = tl.where(small, -23.0, 0.0)
    xb = x.to(tl.int32, bitcast=True)
    e = (xb - 0x3F2AAAAB) & -8388608
    m = (xb - e).to(tl.float32, bitcast=True)
    i = tl.fma(e.to(tl.float32), 1.1920928955078125e-07, i)
    f = m - 1.0
    p = tl.fma(tl.full(f.shape, LD0, tl.float32), f, LD1)
    p = tl.fma(p, f, LD2)
    p = tl.fma(p, f, LD3)
    p = tl.fma(p, f, LD4)
    p = tl.fma(p, f, LD5)
    p = tl.fma(p, f, LD6)
    p = tl.fma(p, f, LD7)
    p = tl.fma(p, f, -0.5)
    p = p * f
    r = tl.fma(p, f, f)
    r = tl.fma(i, LN2, r)
    special = (xb < 0) | (xb >= 0x7F800000)
    inf = float("inf")
    r = tl.where(special, tl.fma(x, inf, inf), r)
    r = tl.where(x == 0.0, -inf, r)
    return r


@triton.jit
def logf_rust_ref(a):
    """crates/noise/src/libdevice.rs logf as of commit 449b03b."""
    small = a < 1.1754943508222875e-38
    x = tl.where(small, a * 8388608.0, a)
    i = tl.where(small, -23.0, 0.0)
    xb = x.to(tl.int32, bitcast=True)
    e = (xb - 0x3F2AAAAB) & -8388608
    m = (xb - e).to(tl.float32, bitcast=True)
    i = tl.fma(e.to(tl.float32), 1.1920928955078125e-07, i)
    f = m - 1.0
    s = f * f
    r = tl.fma(tl.full(f.shape, RS0, tl.float32), f, RS1)
    t = tl.fma(tl.full(f.shape, RS2, tl.float32), f, RS3)
    r = tl.fma(r, s, t)
    r = tl.fma(r, f, RS4)
    r = tl.fma(r, f, RS5)
    r = tl.fma(r, f, RS6)
    r = tl.fma(r, f, RS7)
    r = tl.fma(r, f, -0.5)
    r = tl.fma(r, s, f)
    r = tl.fma(i, LN2, r)
    ok = (a > 0.0) & (a <= 3.4028234663852886e38)
    inf = float("inf")
    alt = tl.where(a < 0.0, tl.full(a.shape, float("nan"), tl.float32), a + a)
    alt = tl.where(a == 0.0, -inf, alt)
    return tl.where(ok, r, alt)


@triton.jit(do_not_specialize=["base"])
def logf_all_kernel(base, a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    """For bit patterns base + k, k < n: tl.log, the libdevice transcription, the Rust reconstruction."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    bits = (offs.to(tl.int64) + base).to(tl.int32)
    x = bits.to(tl.float32, bitcast=True)
    a = tl.log(x)
    b = logf_libdevice_ref(x)
    c = logf_rust_ref(x)
    tl.store(a_ptr + offs, a.to(tl.int32, bitcast=True), mask=mask)
    tl.store(b_ptr + offs, b.to(tl.int32, bitcast=True), mask=mask)
    tl.store(c_ptr + offs, c.to(tl.int32, bitcast=True), mask=mask)


# ----------------------------------------------------------------------------- helpers

BLOCK = 1024


def u64_to_i64_tensor(a, dev):
    return torch.from_numpy(np.asarray(a, dtype=np.uint64).view(np.int64).copy()).to(dev)


def run_noise(seeds, positions, indices, dev):
    n = len(seeds)
    s = u64_to_i64_tensor(seeds, dev)
    p = u64_to_i64_tensor(positions, dev)
    i = torch.from_numpy(np.asarray(indices, dtype=np.uint32).view(np.int32).copy()).to(dev)
    w = torch.empty(n, dtype=torch.int32, device=dev)
    u = torch.empty_like(w)
    e = torch.empty_like(w)
    k = noise_kernel[(triton.cdiv(n, BLOCK),)](s, p, i, w, u, e, n, BLOCK=BLOCK)
    to = lambda t: t.cpu().numpy().view(np.uint32)  # noqa: E731
    return to(w), to(u), to(e), k


def run_log(bits, dev):
    n = len(bits)
    x = torch.from_numpy(np.asarray(bits, dtype=np.uint32).view(np.int32).copy()).to(dev)
    y = torch.empty_like(x)
    k = log_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
    return y.cpu().numpy().view(np.uint32), k


def asm_of(k, key):
    try:
        return k.asm[key]
    except Exception as ex:  # noqa: BLE001
        return "<%s unavailable: %r>" % (key, ex)


def hx(v):
    return "%08x" % int(v)


def report_diff(name, inputs, got, want, limit=10):
    inputs, got, want = (np.asarray(v, dtype=np.uint32) for v in (inputs, got, want))
    gnan = np.isnan(got.view(np.float32))
    wnan = np.isnan(want.view(np.float32))
    bad = (got != want) & ~(gnan & wnan)
    nanpay = (got != want) & gnan & wnan
    print("[check] %s: %d of %d differ (plus %d NaN-payload-only)" % (name, int(bad.sum()), len(got), int(nanpay.sum())))
    for j in np.flatnonzero(bad)[:limit]:
        print("    input %s got %s want %s" % (hx(inputs[j]), hx(got[j]), hx(want[j])))
    return int(bad.sum())


# ----------------------------------------------------------------------------- exhaustive

def exhaustive(args, dev):
    total = 1 << 32 if not args.quick else 1 << 14
    chunk = 1 << 28 if not args.quick else 1 << 12
    bases = list(range(0, total, chunk)) if not args.quick else [0x00800000, 0x3F2AA000, 0x3F7FF000, 0x7F7FF000]
    names = ["in [FLT_MIN, 1]", "in (1, FLT_MAX]", "subnormal +", "other (0, -0, neg, inf, NaN)"]
    cnt = {"libdevice": [0, 0, 0, 0], "rust": [0, 0, 0, 0], "nanpayload_libdevice": 0, "cr_differs_in_range": 0, "in_range_total": 0}
    first = {"libdevice": [], "rust": []}
    t0 = time.time()
    a = torch.empty(chunk, dtype=torch.int32, device=dev)
    b = torch.empty_like(a)
    c = torch.empty_like(a)
    for base in bases:
        logf_all_kernel[(triton.cdiv(chunk, BLOCK),)](base, a, b, c, chunk, BLOCK=BLOCK)
        bits = torch.arange(base, base + chunk, dtype=torch.int64, device=dev)
        cats = [
            (bits >= 0x00800000) & (bits <= 0x3F800000),
            (bits > 0x3F800000) & (bits < 0x7F800000),
            (bits >= 1) & (bits < 0x00800000),
        ]
        cats.append(~(cats[0] | cats[1] | cats[2]))
        af = a.view(torch.float32)
        anan = torch.isnan(af)
        for name, ref in (("libdevice", b), ("rust", c)):
            rnan = torch.isnan(ref.view(torch.float32))
            bad = (a != ref) & ~(anan & rnan)
            if name == "libdevice":
                cnt["nanpayload_libdevice"] += int(((a != ref) & anan & rnan).sum())
            for q, m in enumerate(cats):
                cnt[name][q] += int((bad & m).sum())
            if len(first[name]) < 20 and bool(bad.any()):
                ix = torch.nonzero(bad).flatten()[: 20 - len(first[name])]
                ac = a[ix].cpu().numpy().view(np.uint32)
                rc = ref[ix].cpu().numpy().view(np.uint32)
                for j, av, rv in zip(ix.cpu().numpy(), ac, rc):
                    first[name].append((hx(base + int(j)), hx(av), hx(rv)))
        m0 = cats[0]
        if bool(m0.any()):
            xf = bits.to(torch.int32).view(torch.float32)
            cr = torch.log(xf.double()).float()
            cnt["cr_differs_in_range"] += int(((cr.view(torch.int32) != a) & m0).sum())
            cnt["in_range_total"] += int(m0.sum())
            del xf, cr
        del bits, cats, anan, af
    if dev == "cuda":
        torch.cuda.synchronize()
    print("[exhaustive] %d inputs in %.1f s" % (len(bases) * chunk, time.time() - t0))
    for name in ("libdevice", "rust"):
        for q in range(4):
            print("[exhaustive] tl.log vs %s-ref, %s: %d mismatches" % (name, names[q], cnt[name][q]))
        for row in first[name][:20]:
            print("    input %s tl.log %s ref %s" % row)
    print("[exhaustive] libdevice-ref NaN-payload-only differences: %d" % cnt["nanpayload_libdevice"])
    if cnt["in_range_total"]:
        print("[exhaustive] tl.log differs from f32(torch.log(f64)) (about correctly rounded) on %d of %d inputs in [FLT_MIN, 1] (%.3f%%)" % (
            cnt["cr_differs_in_range"], cnt["in_range_total"], 100.0 * cnt["cr_differs_in_range"] / cnt["in_range_total"]))
    print("[exhaustive-json]", json.dumps({"counts": cnt, "first": first}))



# ----------------------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true", help="tiny sizes (for a CPU/interpreter smoke test)")
    args = ap.parse_args()
    out = args.out
    os.makedirs(out, exist_ok=True)
    interp = os.environ.get("TRITON_INTERPRET", "0") == "1"
    dev = "cpu" if interp else "cuda"
    t_start = time.time()

    # ---------------------------------------------------------------- environment
    env = {
        "triton": triton.__version__,
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda,
        "python": platform.python_version(),
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else "none (interpreter)",
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "host": platform.node(),
    }
    try:
        env["driver"] = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                       capture_output=True, text=True, timeout=30).stdout.strip()
    except Exception:  # noqa: BLE001
        env["driver"] = "unknown"
    try:
        from triton.backends.nvidia.compiler import get_ptxas_version  # type: ignore
        env["ptxas"] = [ln for ln in str(get_ptxas_version()).splitlines() if "release" in ln][-1].strip()
    except Exception:  # noqa: BLE001
        pass
    print("[env]", json.dumps(env))
    print("[env] triton at", os.path.dirname(triton.__file__))

    print("===== inspect.getsource(triton.language.random) =====")
    import triton.language.random as trandom
    print(inspect.getsource(trandom))
    print("===== inspect.getsource(triton.language.math.log) =====")
    import triton.language.math as tmath
    try:
        print(inspect.getsource(tmath.log))
    except Exception as ex:  # noqa: BLE001
        print("<unavailable: %r>" % ex)
    print("===== end of sources =====")
    print("[check] tref self-checks:")
    tref._selfcheck()

    # ---------------------------------------------------------------- a. 560 cases
    triples = tref.case_triples()
    seeds = np.array([t[0] for t in triples], dtype=np.uint64)
    poss = np.array([t[1] for t in triples], dtype=np.uint64)
    idxs = np.array([t[2] for t in triples], dtype=np.uint32)
    w, u, e, nk = run_noise(seeds, poss, idxs, dev)
    with open(os.path.join(out, "noise_kernel.ptx"), "w") as f:
        f.write(asm_of(nk, "ptx"))
    rw = tref.triton_word(seeds, poss, idxs)
    ru = tref.bits_of_f32(tref.triton_uniform(rw))
    re_ = tref.bits_of_f32(tref.triton_noise(tref.f32_from_bits(u)))
    report_diff("cases: Triton word vs tref", np.arange(len(w)), w, rw)
    report_diff("cases: Triton uniform vs tref(Triton word)", w, u, tref.bits_of_f32(tref.triton_uniform(w)))
    report_diff("cases: Triton noise vs tref(Triton uniform)", u, e, re_)
    head = dict(env)
    head.update({
        "generator": "golden/triton/capture.py",
        "definition": ("word = Philox4x32-10 output word 0 of counter (index, position & 0xffffffff, "
                       "position >> 32, 0) with key (seed & 0xffffffff, seed >> 32), via tl.philox; "
                       "uniform = tl.uint_to_uniform_float(word); noise = -tl.log(tl.maximum(uniform, FLT_MIN)). "
                       "uniform_bits and noise_bits are the binary32 bit patterns."),
        "columns": ["seed", "position", "index", "word", "uniform_bits", "noise_bits"],
    })
    lines = ["{"]
    for k, v in head.items():
        lines.append("  %s: %s," % (json.dumps(k), json.dumps(v)))
    lines.append('  "rows": [')
    rows = []
    for j in range(len(w)):
        rows.append("    [%d, %d, %d, %d, %d, %d]" % (int(seeds[j]), int(poss[j]), int(idxs[j]), int(w[j]), int(u[j]), int(e[j])))
    lines.append(",\n".join(rows))
    lines.append("  ]")
    lines.append("}")
    with open(os.path.join(out, "noise_cases.json"), "w") as f:
        f.write("\n".join(lines) + "\n")
    json.load(open(os.path.join(out, "noise_cases.json")))  # well-formed
    print("[out] noise_cases.json: %d rows; first row %s" % (len(rows), rows[0].strip()))

    # ---------------------------------------------------------------- b. logf samples
    xs = tref.logf_sample_inputs()
    ys, lk = run_log(xs, dev)
    with open(os.path.join(out, "log_kernel.ptx"), "w") as f:
        f.write(asm_of(lk, "ptx"))
    ptx = asm_of(lk, "ptx")
    print("===== PTX of log_kernel (tl.log on f32), instruction lines =====")
    for line in ptx.splitlines():
        s = line.strip()
        if s and not s.startswith("//") and not s.startswith(".loc") and not s.startswith(".file"):
            print("    " + s)
    print("===== end PTX =====")
    sass = asm_of(lk, "sass")
    if not sass.startswith("<"):
        with open(os.path.join(out, "log_kernel.sass"), "w") as f:
            f.write(sass)
    with open(os.path.join(out, "logf_samples.json"), "w") as f:
        f.write('{"triton": %s, "torch": %s, "gpu": %s, "date_utc": %s,\n' % (
            json.dumps(env["triton"]), json.dumps(env["torch"]), json.dumps(env["gpu"]), json.dumps(env["date_utc"])))
        f.write(' "function": "tl.log on float32 (Triton default options: fp fusion on, nvvm-reflect-ftz on)",\n')
        f.write(' "inputs": [%s],\n' % ",".join(str(int(v)) for v in xs))
        f.write(' "outputs": [%s]}\n' % ",".join(str(int(v)) for v in ys))
    json.load(open(os.path.join(out, "logf_samples.json")))
    print("[out] logf_samples.json: %d samples" % len(xs))
    report_diff("samples: tl.log vs tref.logf (libdevice coefficients)", xs, ys, tref.bits_of_f32(tref.logf(tref.f32_from_bits(xs))), limit=20)
    sub = (xs >= 1) & (xs < 0x00800000)
    print("[info] tl.log on subnormal inputs: first 5 (in, out):", [(hx(a), hx(b)) for a, b in zip(xs[sub][:5], ys[sub][:5])])
    spec = [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xBF800000, 0x00000001]
    for sbits in spec:
        j = np.searchsorted(xs, sbits)
        if j < len(xs) and xs[j] == sbits:
            print("[info] tl.log(%s) = %s" % (hx(sbits), hx(ys[j])))

    # ---------------------------------------------------------------- c. 1M dump
    n = tref.DUMP_N if not args.quick else 1 << 12
    s, p, i = tref.dump_triples(n)
    t0 = time.time()
    w, u, e, _ = run_noise(s, p, i, dev)
    print("[dump] %d triples on the device in %.2f s" % (n, time.time() - t0))
    arr = np.stack([w, u, e], axis=1).astype("<u4")
    arr.tofile(os.path.join(out, "triton_1m.bin"))
    print("[out] triton_1m.bin: %d bytes; rows 0..2: %s" % (arr.nbytes, [[hx(v) for v in r] for r in arr[:3]]))
    rw = tref.triton_word(s, p, i)
    report_diff("dump: Triton word vs tref", np.arange(n), w, rw)
    report_diff("dump: Triton uniform vs tref(Triton word)", w, u, tref.bits_of_f32(tref.triton_uniform(w)))
    report_diff("dump: Triton noise vs tref(Triton uniform)", u, e, tref.bits_of_f32(tref.triton_noise(tref.f32_from_bits(u))))
    # ---------------------------------------------------------------- exhaustive logf check
    try:
        exhaustive(args, dev)
    except Exception:  # noqa: BLE001
        import traceback
        traceback.print_exc()
        print('[exhaustive] FAILED')
    print("[done] total %.1f s" % (time.time() - t_start))


if __name__ == "__main__":
    main()
