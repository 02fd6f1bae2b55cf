#!/usr/bin/env python3
"""Baseline sampler timings on the GPU, written by us with the installed torch and Triton.

    python3 bench/baselines.py --out FILE.json [--quick] [--configs V:B,V:B,...]

What is timed (inputs: bf16 logits [B, V], random normal, no zeros; T = 1 but the
division by T is still done, as a torch user writes it):

  torch_race_f32        softmax(x.float() / T) -> exponential_ (float32) -> p / q -> argmax
  torch_race_f64        softmax(x.float() / T).double() -> exponential_ (float64) -> p / q -> argmax
                        (Megatron's fp64_sampling_noise form: float32 softmax, float64 noise)
  torch_sort_topk50_topp0.9
                        vLLM-style apply_top_k_top_p: sort ascending, mask below the k-th largest,
                        softmax + cumsum in sorted order, mask the low (1 - p) mass (the top token
                        always kept), scatter back, softmax (renormalise), exponential race
  torch_sort_topk50     the same path with top-k only
  torch_sort_topp0.9    the same path with top-p only
  torch_topk50          top-k via torch.topk threshold (vLLM's top-k-only path), softmax, race
  torch_minp0.05        softmax, mask p < 0.05 * max p, softmax again, race
  torch_argmax          x.argmax(-1) on the bf16 logits (greedy)
  triton_gumbel31       Triton Gumbel-max, one program per row looping over V in tiles; Philox4x32-10
                        keyed by key = request seed, counter = (index, position lo, position hi, 0);
                        uniform = tl.uint_to_uniform_float(word 0) (the 31-bit conversion tl.rand
                        uses); score = x / T - log(-log(max(u, FLT_MIN))) in float32
  triton_gumbel52       the same kernel with a 52-bit midpoint uniform from words 0 and 1:
                        u = ((w0 << 20 | w1 >> 12) + 1/2) / 2^52, score in float64

Plus the device-to-device copy bandwidth (bytes read + written) and, per config, the
memory floor = bytes of bf16 logits read once / that bandwidth.

Timing: inputs live in a pool of >= 256 MiB (several [B, V] buffers, more than the 60 MB
L2); every iteration reads the next buffer. "eager" = CUDA events around each call of
the Python function (kernel launches included, as a torch user sees it), warm-up first,
median of >= 50 iterations (more, up to a time budget). For B <= --graph-max-b (64) the
same function is also captured K times (K consecutive buffers) in one CUDA graph and the
graph replayed >= 50 times: "graph" = median replay time / K (launch gaps removed). At
small B the graph's K buffers can fit in L2: the JSON records the working set.

--smoke runs a tiny CPU plumbing test (TRITON_INTERPRET=1, host timers): its numbers mean
nothing.
"""

import argparse
import datetime
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time

if "--smoke" in sys.argv:
    os.environ.setdefault("TRITON_INTERPRET", "1")

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FULL_V = [32000, 131072, 262144]
FULL_B = [1, 8, 64, 256, 1024]
QUICK_CONFIGS = [(131072, 1), (131072, 64), (131072, 1024), (262144, 256)]
SMOKE_CONFIGS = [(3000, 2)]
POOL_BYTES = 256 << 20
MAX_DATA_BYTES = 4 << 30
FLT_MIN = 1.1754943508222875e-38
TEMPERATURE = 1.0
TOP_K = 50
TOP_P = 0.9
MIN_P = 0.05

MODE_OF = {
    "torch_race_f32": "plain",
    "torch_race_f64": "plain",
    "triton_gumbel31": "plain",
    "triton_gumbel52": "plain",
    "torch_sort_topk50_topp0.9": "top_k50_top_p0.9",
    "torch_sort_topk50": "top_k50",
    "torch_topk50": "top_k50",
    "torch_sort_topp0.9": "top_p0.9",
    "torch_minp0.05": "min_p0.05",
    "torch_argmax": "greedy",
}
DESCRIPTION = {
    "torch_race_f32": "softmax(x.float()/T), exponential_ float32, p/q, argmax",
    "torch_race_f64": "softmax(x.float()/T).double(), exponential_ float64, p/q, argmax (Megatron fp64 form)",
    "triton_gumbel31": "Triton one-program-per-row Gumbel-max, Philox (seed; index, pos lo, pos hi, 0) word 0, "
                       "tl.uint_to_uniform_float (31-bit), float32 score",
    "triton_gumbel52": "same kernel, 52-bit midpoint uniform from Philox words 0,1, float64 score",
    "torch_sort_topk50_topp0.9": "sort, top-k 50 mask, softmax+cumsum top-p 0.9 mask, scatter, softmax, race (float32)",
    "torch_sort_topk50": "sort, top-k 50 mask, scatter, softmax, race (float32)",
    "torch_topk50": "torch.topk(50) threshold mask, softmax, race (float32)",
    "torch_sort_topp0.9": "sort, softmax+cumsum top-p 0.9 mask, scatter, softmax, race (float32)",
    "torch_minp0.05": "softmax, mask p < 0.05*max, softmax, race (float32)",
    "torch_argmax": "x.argmax(-1) on bf16",
}
ORDER = list(MODE_OF)


def log(*a):
    print(*a, flush=True)


# ----------------------------------------------------------------------------- Triton kernels


@triton.jit
def gumbel31_kernel(x_ptr, seed_ptr, pos_ptr, out_ptr, V, stride, inv_t, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    seed = tl.load(seed_ptr + row)  # int64 holding the u64 request seed
    pos = tl.load(pos_ptr + row).to(tl.uint64, bitcast=True)
    plo = (pos & 0xFFFFFFFF).to(tl.uint32)
    phi = (pos >> 32).to(tl.uint32)
    base = x_ptr + row.to(tl.int64) * stride
    best = tl.full([BLOCK], float("-inf"), tl.float32)
    besti = tl.zeros([BLOCK], tl.int32)
    for start in range(0, V, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < V
        x = tl.load(base + offs, mask=m, other=0.0).to(tl.float32)
        c0 = offs.to(tl.uint32)
        z = c0 * 0
        w0, _w1, _w2, _w3 = tl.philox(seed, c0, z + plo, z + phi, z)
        u = tl.uint_to_uniform_float(w0)
        e = -tl.log(tl.maximum(u, 1.1754943508222875e-38))
        s = x * inv_t - tl.log(e)
        s = tl.where(m, s, float("-inf"))
        upd = s > best  # strict: within a lane the smaller index wins ties
        best = tl.where(upd, s, best)
        besti = tl.where(upd, offs, besti)
    mx = tl.max(best, 0)
    tok = tl.min(tl.where(best == mx, besti, 2147483647), 0)
    tl.store(out_ptr + row, tok)


@triton.jit
def gumbel52_kernel(x_ptr, seed_ptr, pos_ptr, out_ptr, V, stride, inv_t, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    seed = tl.load(seed_ptr + row)
    pos = tl.load(pos_ptr + row).to(tl.uint64, bitcast=True)
    plo = (pos & 0xFFFFFFFF).to(tl.uint32)
    phi = (pos >> 32).to(tl.uint32)
    base = x_ptr + row.to(tl.int64) * stride
    best = tl.full([BLOCK], float("-inf"), tl.float64)
    besti = tl.zeros([BLOCK], tl.int32)
    for start in range(0, V, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < V
        x = tl.load(base + offs, mask=m, other=0.0).to(tl.float32).to(tl.float64)
        c0 = offs.to(tl.uint32)
        z = c0 * 0
        w0, w1, _w2, _w3 = tl.philox(seed, c0, z + plo, z + phi, z)
        k = (w0.to(tl.uint64) << 20) | (w1.to(tl.uint64) >> 12)  # 52 bits
        u = (k.to(tl.float64) + 0.5) * 2.220446049250313e-16  # (k + 1/2) / 2^52, exact
        e = -tl.log(u)
        s = x * inv_t - tl.log(e)  # float64 (inv_t is a float32 scalar, exact in float64)
        s = tl.where(m, s, float("-inf"))
        upd = s > best
        best = tl.where(upd, s, best)
        besti = tl.where(upd, offs, besti)
    mx = tl.max(best, 0)
    tok = tl.min(tl.where(best == mx, besti, 2147483647), 0)
    tl.store(out_ptr + row, tok)


class TritonGumbel:
    """Callable fn(x) for one (kernel, B, V); seeds/positions fixed per row."""

    def __init__(self, kernel, batch, device, block=1024, num_warps=4):
        self.kernel = kernel
        self.block = block
        self.num_warps = num_warps
        g = torch.Generator(device="cpu").manual_seed(12345 + batch)
        self.seeds = torch.randint(-(1 << 62), 1 << 62, (batch,), generator=g, dtype=torch.int64).to(device)
        self.pos = torch.randint(0, 1 << 20, (batch,), generator=g, dtype=torch.int64).to(device)
        self.out = torch.empty(batch, dtype=torch.int32, device=device)

    def __call__(self, x):
        b, v = x.shape
        self.kernel[(b,)](x, self.seeds, self.pos, self.out, v, x.stride(0), 1.0 / TEMPERATURE,
                          BLOCK=self.block, num_warps=self.num_warps)
        return self.out


# ----------------------------------------------------------------------------- torch baselines


def race(probs):
    q = torch.empty_like(probs).exponential_()
    return (probs / q).argmax(dim=-1)


def torch_race_f32(x):
    return race(torch.softmax(x.float() / TEMPERATURE, dim=-1))


def torch_race_f64(x):
    return race(torch.softmax(x.float() / TEMPERATURE, dim=-1).double())


def sorted_filter(x, k, p):
    """vLLM-style apply_top_k_top_p (sort ascending), then renormalise and race."""
    logits = x.float() / TEMPERATURE
    s, idx = logits.sort(dim=-1, descending=False)
    if k is not None:
        kth = s[:, s.size(1) - k:s.size(1) - k + 1]  # the k-th largest
        s = s.masked_fill(s < kth, float("-inf"))
    if p is not None:
        cum = s.softmax(dim=-1).cumsum(dim=-1)
        mask = cum <= 1.0 - p
        mask[:, -1] = False  # keep at least the top token
        s = s.masked_fill(mask, float("-inf"))
    logits = torch.empty_like(s).scatter_(-1, idx, s)
    return race(logits.softmax(dim=-1))


def torch_sort_topk_topp(x):
    return sorted_filter(x, TOP_K, TOP_P)


def torch_sort_topk(x):
    return sorted_filter(x, TOP_K, None)


def torch_sort_topp(x):
    return sorted_filter(x, None, TOP_P)


def torch_topk(x):
    logits = x.float() / TEMPERATURE
    kth = logits.topk(TOP_K, dim=-1).values[:, -1:]
    logits = logits.masked_fill(logits < kth, float("-inf"))
    return race(logits.softmax(dim=-1))


def torch_minp(x):
    logits = x.float() / TEMPERATURE
    probs = logits.softmax(dim=-1)
    thr = probs.amax(dim=-1, keepdim=True) * MIN_P
    logits = logits.masked_fill(probs < thr, float("-inf"))
    return race(logits.softmax(dim=-1))


def torch_argmax(x):
    return x.argmax(dim=-1)


def make_fns(batch, device, tri_cfg):
    fns = {
        "torch_race_f32": torch_race_f32,
        "torch_race_f64": torch_race_f64,
        "torch_sort_topk50_topp0.9": torch_sort_topk_topp,
        "torch_sort_topk50": torch_sort_topk,
        "torch_topk50": torch_topk,
        "torch_sort_topp0.9": torch_sort_topp,
        "torch_minp0.05": torch_minp,
        "torch_argmax": torch_argmax,
    }
    b31, w31 = tri_cfg.get("triton_gumbel31", (1024, 4))
    b52, w52 = tri_cfg.get("triton_gumbel52", (1024, 4))
    fns["triton_gumbel31"] = TritonGumbel(gumbel31_kernel, batch, device, b31, w31)
    fns["triton_gumbel52"] = TritonGumbel(gumbel52_kernel, batch, device, b52, w52)
    return fns


# ----------------------------------------------------------------------------- timing


class Timer:
    """CUDA events on a GPU, host clock (after a sync) in --smoke mode."""

    def __init__(self, cuda):
        self.cuda = cuda

    def sync(self):
        if self.cuda:
            torch.cuda.synchronize()

    def pairs(self, n):
        if self.cuda:
            return [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(n)]
        return [[None, None] for _ in range(n)]

    def mark(self, pair, j):
        if self.cuda:
            pair[j].record()
        else:
            pair[j] = time.perf_counter()

    def elapsed_us(self, pair):
        if self.cuda:
            return pair[0].elapsed_time(pair[1]) * 1e3
        return (pair[1] - pair[0]) * 1e6


def summarize(times):
    times = sorted(times)
    q = lambda f: times[min(len(times) - 1, max(0, int(round((len(times) - 1) * f))))]  # noqa: E731
    return {"median_us": statistics.median(times), "p10_us": q(0.1), "p90_us": q(0.9), "reps": len(times)}


def time_eager(timer, fn, views, args, start=0):
    nv = len(views)
    for i in range(3):  # warm-up (compiles, allocator)
        fn(views[(start + i) % nv])
    timer.sync()
    t0 = time.perf_counter()
    for i in range(3):
        fn(views[(start + 3 + i) % nv])
    timer.sync()
    est = max((time.perf_counter() - t0) / 3, 1e-6)
    reps = int(max(args.min_reps, min(args.max_reps, args.target_s / est)))
    pairs = timer.pairs(reps)
    off = start + 6
    for i in range(reps):
        v = views[(off + i) % nv]
        timer.mark(pairs[i], 0)
        fn(v)
        timer.mark(pairs[i], 1)
        if not timer.cuda:
            pass
    timer.sync()
    return summarize([timer.elapsed_us(p) for p in pairs])


def time_graph(fn, views, args, k_calls):
    """Capture k_calls calls (k consecutive buffers) in one graph; median replay / k_calls."""
    nv = len(views)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for i in range(3):
            fn(views[i % nv])
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for j in range(k_calls):
            fn(views[j % nv])
    for _ in range(3):
        g.replay()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    g.replay()
    torch.cuda.synchronize()
    est = max(time.perf_counter() - t0, 1e-6)
    reps = int(max(args.min_reps, min(args.max_reps, args.target_s / est)))
    pairs = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
    for p in pairs:
        p[0].record()
        g.replay()
        p[1].record()
    torch.cuda.synchronize()
    s = summarize([p[0].elapsed_time(p[1]) * 1e3 / k_calls for p in pairs])
    del g
    return s


def copy_bandwidth(timer, device, args):
    n = (64 << 20) if args.smoke else (1 << 30)  # bytes per buffer
    src = torch.randint(0, 256, (n,), dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    for _ in range(3):
        dst.copy_(src)
    timer.sync()
    reps = max(args.min_reps, 50)
    pairs = timer.pairs(reps)
    for p in pairs:
        timer.mark(p, 0)
        dst.copy_(src)
        timer.mark(p, 1)
    timer.sync()
    s = summarize([timer.elapsed_us(p) for p in pairs])
    ok = bool(torch.equal(src[: 1 << 20], dst[: 1 << 20]))
    bw = 2.0 * n / (s["median_us"] * 1e-6)
    del src, dst
    return {"bytes_per_buffer": n, "bytes_moved_per_copy": 2 * n, "bytes_per_s": bw, "copy_ok": ok, **s}


# ----------------------------------------------------------------------------- checks


def check_tokens(name, fn, x):
    """Cheap sanity of one call on one buffer: tokens in range and inside the filter."""
    tok = fn(x).long()
    b, v = x.shape
    assert tok.shape == (b,), (name, tuple(tok.shape))
    assert int(tok.min()) >= 0 and int(tok.max()) < v, (name, int(tok.min()), int(tok.max()))
    xf = x.float()
    xt = xf.gather(1, tok[:, None])
    rank = (xf > xt).sum(dim=1)  # how many are strictly larger than the chosen one
    info = {"max_rank": int(rank.max())}
    if name == "torch_argmax":
        assert int(rank.max()) == 0, (name, info)
    if "topk50" in name:
        assert int(rank.max()) < TOP_K, (name, info)
    if name == "torch_minp0.05":
        lp = xf / TEMPERATURE
        assert bool(((lp.gather(1, tok[:, None]) - lp.amax(1, keepdim=True)) >= math.log(MIN_P) - 1e-4).all()), name
    return info


def check_triton_vs_reference(device, timer):
    """Triton Gumbel kernels vs a numpy reference of the same noise (golden/triton/tref.py)."""
    sys.path.insert(0, os.path.join(REPO, "golden", "triton"))
    try:
        import numpy as np
        import tref  # noqa: F401
    except Exception as ex:  # noqa: BLE001
        return {"skipped": "no numpy/tref: %r" % ex}
    b, v = 32, 4000
    g = torch.Generator(device="cpu").manual_seed(7)
    x = (torch.randn(b, v, generator=g) * 2.0).to(torch.bfloat16)
    xd = x.to(device)
    out = {}
    xf = x.float().numpy().astype(np.float64)
    idx = np.arange(v, dtype=np.uint64)
    for name, kern in (("triton_gumbel31", gumbel31_kernel), ("triton_gumbel52", gumbel52_kernel)):
        fn = TritonGumbel(kern, b, device, block=1024, num_warps=4)
        got = fn(xd).cpu().numpy().astype(np.int64)
        seeds = fn.seeds.cpu().numpy().view(np.uint64)
        pos = fn.pos.cpu().numpy().view(np.uint64)
        want = np.empty(b, dtype=np.int64)
        margin = np.empty(b)
        for r in range(b):
            m32 = np.uint64(0xFFFFFFFF)
            w = tref.philox4x32_10(idx, np.full(v, pos[r] & m32), np.full(v, pos[r] >> np.uint64(32)),
                                   np.zeros(v, np.uint64), seeds[r] & m32, seeds[r] >> np.uint64(32))
            if name == "triton_gumbel31":
                u = tref.triton_uniform(w[0]).astype(np.float64)
                e = -np.log(np.maximum(u, FLT_MIN))
            else:
                k = (w[0].astype(np.uint64) << np.uint64(20)) | (w[1].astype(np.uint64) >> np.uint64(12))
                u = (k.astype(np.float64) + 0.5) * 2.0 ** -52
                e = -np.log(u)
            s = xf[r] / TEMPERATURE - np.log(e)
            want[r] = int(np.argmax(s))
            top2 = np.sort(s)[-2:]
            margin[r] = top2[1] - top2[0]
        bad = int((got != want).sum())
        # a float32 score can flip a near tie; count only disagreements with a clear margin
        clear_bad = int(((got != want) & (margin > 1e-4)).sum())
        out[name] = {"rows": b, "vocab": v, "disagree": bad, "disagree_clear_margin": clear_bad}
        if clear_bad:
            raise AssertionError("%s disagrees with the numpy reference on %d rows" % (name, clear_bad))
    return out


def pick_triton_cfg(timer, kernel, views, batch, device, cands, args):
    best = None
    res = []
    for blk, nw in cands:
        fn = TritonGumbel(kernel, batch, device, blk, nw)
        try:
            a = argparse.Namespace(**vars(args))
            a.min_reps, a.target_s = 10, min(args.target_s, 0.03)
            t = time_eager(timer, fn, views, a)["median_us"]
        except Exception as ex:  # noqa: BLE001
            res.append({"block": blk, "num_warps": nw, "error": repr(ex)[:200]})
            continue
        res.append({"block": blk, "num_warps": nw, "median_us": t})
        if best is None or t < best[0]:
            best = (t, blk, nw)
    return (best[1], best[2]) if best else (1024, 4), res


# ----------------------------------------------------------------------------- main


def smi(query):
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=" + query, "--format=csv,noheader,nounits"],
                           capture_output=True, text=True, timeout=20)
        vals = [v.strip() for v in r.stdout.strip().splitlines()[0].split(",")]
        if r.returncode != 0 or len(vals) != len(query.split(",")):
            return None
        return vals
    except Exception:  # noqa: BLE001
        return None


def meta(device):
    m = {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda,
        "triton": triton.__version__,
        "python": platform.python_version(),
        "host": platform.node(),
        "script": "bench/baselines.py",
    }
    if device == "cuda":
        p = torch.cuda.get_device_properties(0)
        m.update({"gpu": torch.cuda.get_device_name(0), "sm_count": p.multi_processor_count,
                  "l2_bytes": getattr(p, "L2_cache_size", None), "gpu_memory_bytes": p.total_memory,
                  "capability": "%d.%d" % (p.major, p.minor)})
        q = smi("driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem")
        if q:
            m.update({"driver": q[0], "clock_sm_mhz_at_start": q[1], "clock_max_sm_mhz": q[2],
                      "clock_mem_mhz_at_start": q[3], "clock_max_mem_mhz": q[4]})
    else:
        m["gpu"] = "none (--smoke: CPU, TRITON_INTERPRET=1; numbers are meaningless)"
    return m


def fmt(v):
    if v is None:
        return "-"
    if v >= 1000:
        return "%.0f" % v
    if v >= 100:
        return "%.1f" % v
    return "%.2f" % v


def print_table(doc):
    res = doc["results"]
    floors = {(f["vocab"], f["batch"]): f["memory_floor_us"] for f in doc["floors"]}
    short = {"torch_race_f32": "race32", "torch_race_f64": "race64", "triton_gumbel31": "tri31",
             "triton_gumbel52": "tri52", "torch_sort_topk50_topp0.9": "sortK+P", "torch_sort_topk50": "sortK",
             "torch_topk50": "topk", "torch_sort_topp0.9": "sortP", "torch_minp0.05": "minP",
             "torch_argmax": "argmax"}
    cfgs = sorted({(r["vocab"], r["batch"]) for r in res})
    for key, title in (("median_us", "eager (CUDA events around each Python call)"),
                       ("graph_median_us", "CUDA graph replay / calls per graph")):
        rows = []
        for cfg in cfgs:
            vals = {r["name"]: r.get(key) for r in res if (r["vocab"], r["batch"]) == cfg}
            if all(v is None for v in vals.values()):
                continue
            rows.append([str(cfg[0]), str(cfg[1])] + [fmt(vals.get(n)) for n in ORDER] + [fmt(floors.get(cfg))])
        if not rows:
            continue
        head = ["V", "B"] + [short[n] for n in ORDER] + ["floor"]
        w = [max(len(head[i]), *(len(r[i]) for r in rows)) for i in range(len(head))]
        log("\nmedian us, %s; floor = bf16 bytes / copy bandwidth" % title)
        log(" ".join(h.rjust(w[i]) for i, h in enumerate(head)))
        for r in rows:
            log(" ".join(c.rjust(w[i]) for i, c in enumerate(r)))
    bw = doc["copy_bandwidth"]["bytes_per_s"]
    log("copy bandwidth (read + write): %.2f TB/s; GPU %s; torch %s; triton %s; %s" % (
        bw / 1e12, doc["meta"].get("gpu"), doc["meta"]["torch"], doc["meta"]["triton"], doc["meta"]["date_utc"]))


def write_json(path, doc):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
    os.replace(tmp, path)


def parse_configs(s):
    out = []
    for part in s.split(","):
        v, b = part.split(":")
        out.append((int(v), int(b)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="JSON file to write")
    ap.add_argument("--quick", action="store_true", help="a subset of configs and a shorter time budget")
    ap.add_argument("--smoke", action="store_true", help="CPU plumbing test (TRITON_INTERPRET=1), tiny sizes")
    ap.add_argument("--configs", help="V:B,V:B,... (overrides the grid)")
    ap.add_argument("--only", help="comma-separated baseline names")
    ap.add_argument("--min-reps", type=int, default=50)
    ap.add_argument("--max-reps", type=int, default=2000)
    ap.add_argument("--target-s", type=float, default=None, help="time budget per measurement (s)")
    ap.add_argument("--graph-max-b", type=int, default=64, help="also time CUDA-graph replay for B <= this")
    ap.add_argument("--no-graph", action="store_true")
    ap.add_argument("--scale", type=float, default=2.0, help="std of the random normal logits")
    args = ap.parse_args()

    cuda = torch.cuda.is_available() and not args.smoke
    if not cuda and not args.smoke:
        sys.exit("no CUDA device: use --smoke for a CPU plumbing test")
    device = "cuda" if cuda else "cpu"
    if args.smoke:
        args.min_reps, args.max_reps = 3, 3
        args.no_graph = True
    if args.target_s is None:
        args.target_s = 0.05 if args.quick else 0.2
    timer = Timer(cuda)
    if args.configs:
        configs = parse_configs(args.configs)
    elif args.smoke:
        configs = SMOKE_CONFIGS
    elif args.quick:
        configs = QUICK_CONFIGS
    else:
        configs = [(v, b) for v in FULL_V for b in FULL_B]
    names = ORDER if not args.only else [n for n in ORDER if n in args.only.split(",")]
    t_start = time.time()

    doc = {"meta": meta(device), "complete": False, "results": [], "floors": [], "errors": [], "triton_configs": []}
    doc["method"] = {
        "inputs": "bf16 [B, V], normal(0, %g), zeros replaced by 1.0; pool of >= %d MiB of buffers rotated per call"
                  % (args.scale, POOL_BYTES >> 20),
        "eager": "CUDA events around each Python call (launch overhead included), warm-up 6 calls, median of "
                 ">= %d calls (up to %.2f s per measurement)" % (args.min_reps, args.target_s),
        "graph": "B <= %d: K calls on K consecutive buffers captured in one CUDA graph, median of >= %d replays, / K"
                 % (args.graph_max_b, args.min_reps),
        "temperature": TEMPERATURE, "top_k": TOP_K, "top_p": TOP_P, "min_p": MIN_P,
        "floor": "memory_floor_us = B * V * 2 bytes / copy bandwidth (bytes read + written per second)",
    }
    doc["descriptions"] = {n: DESCRIPTION[n] for n in names}
    doc["modes"] = {n: MODE_OF[n] for n in names}
    log("[meta]", json.dumps(doc["meta"]))

    # correctness of the Triton kernels against a numpy reference of the same noise
    try:
        doc["checks"] = {"triton_vs_numpy": check_triton_vs_reference(device, timer)}
    except AssertionError as ex:
        doc["checks"] = {"triton_vs_numpy": {"FAILED": str(ex)}}
    log("[check] triton vs numpy:", json.dumps(doc["checks"]["triton_vs_numpy"]))

    doc["copy_bandwidth"] = copy_bandwidth(timer, device, args)
    bw = doc["copy_bandwidth"]["bytes_per_s"]
    log("[copy] %.3f TB/s (median %.1f us for %d bytes read + written)" % (
        bw / 1e12, doc["copy_bandwidth"]["median_us"], doc["copy_bandwidth"]["bytes_moved_per_copy"]))

    tri_cands = [(1024, 4), (2048, 8), (4096, 8)] if not args.quick else [(1024, 4), (2048, 8)]
    if args.smoke:
        tri_cands = [(1024, 4)]
    for (v, b) in configs:
        nbytes = b * v * 2
        if nbytes > MAX_DATA_BYTES:
            log("[skip] V=%d B=%d: %d bytes of logits" % (v, b, nbytes))
            continue
        nbuf = max(2, math.ceil(POOL_BYTES / nbytes)) if not args.smoke else 2
        try:
            pool = torch.empty(nbuf, b, v, dtype=torch.bfloat16, device=device)
            pool.normal_(0.0, args.scale)
            pool.masked_fill_(pool == 0, 1.0)
        except torch.OutOfMemoryError as ex:
            doc["errors"].append({"vocab": v, "batch": b, "error": repr(ex)[:300]})
            continue
        views = [pool[i] for i in range(nbuf)]
        floor_us = nbytes / bw * 1e6
        doc["floors"].append({"vocab": v, "batch": b, "bytes": nbytes, "memory_floor_us": floor_us})
        tri_cfg = {}
        for tname, kern in (("triton_gumbel31", gumbel31_kernel), ("triton_gumbel52", gumbel52_kernel)):
            if tname in names:
                tri_cfg[tname], tried = pick_triton_cfg(timer, kern, views, b, device, tri_cands, args)
                doc["triton_configs"].append({"name": tname, "vocab": v, "batch": b, "chosen": tri_cfg[tname],
                                              "tried": tried})
        fns = make_fns(b, device, tri_cfg)
        for name in names:
            fn = fns[name]
            rec = {"name": name, "mode": MODE_OF[name], "vocab": v, "batch": b, "dtype": "bf16",
                   "pool_buffers": nbuf}
            if name in tri_cfg:
                rec["triton_block"], rec["triton_num_warps"] = tri_cfg[name]
            try:
                rec["check"] = check_tokens(name, fn, views[0])
                s = time_eager(timer, fn, views, args, start=1)
                rec.update(s)
                rec["timing"] = "eager"
                if cuda and not args.no_graph and b <= args.graph_max_b:
                    k = int(min(nbuf, 256, max(8, math.ceil(POOL_BYTES / nbytes))))
                    gs = time_graph(fn, views, args, k)
                    rec.update({"graph_median_us": gs["median_us"], "graph_p10_us": gs["p10_us"],
                                "graph_p90_us": gs["p90_us"], "graph_reps": gs["reps"], "graph_calls": k,
                                "graph_working_set_bytes": k * nbytes})
            except Exception as ex:  # noqa: BLE001
                rec["error"] = repr(ex)[:300]
                doc["errors"].append({"name": name, "vocab": v, "batch": b, "error": rec["error"]})
                log("[error]", name, v, b, rec["error"])
            doc["results"].append(rec)
            log("[time] %-26s V=%6d B=%4d eager %9s us%s" % (
                name, v, b, fmt(rec.get("median_us")),
                ("  graph %9s us" % fmt(rec["graph_median_us"])) if "graph_median_us" in rec else ""))
        del fns, views, pool
        if cuda:
            torch.cuda.empty_cache()
        write_json(args.out, doc)  # partial results survive a timeout
    if cuda:
        q = smi("clocks.sm,clocks.mem")
        if q:
            doc["meta"]["clock_sm_mhz_at_end"], doc["meta"]["clock_mem_mhz_at_end"] = q
    doc["meta"]["elapsed_s"] = time.time() - t_start
    doc["complete"] = True
    write_json(args.out, doc)
    print_table(doc)
    log("[out] %s (%d results, %d errors, %.1f s)" % (args.out, len(doc["results"]), len(doc["errors"]),
                                                      doc["meta"]["elapsed_s"]))
    return 1 if doc["errors"] or "FAILED" in doc["checks"]["triton_vs_numpy"] else 0


if __name__ == "__main__":
    sys.exit(main())
