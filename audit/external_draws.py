#!/usr/bin/env python3
"""Tail-rate audit of external samplers (the Megatron fp64-noise PR's experiment).

    python3 audit/external_draws.py [--out DIR] [--quick] [--samplers a,b] [--chunk N]

Rows are [0, -D, ..., -D] in float32 with V = 131072 and r = e^-D in {1e-7, 1e-8, 1e-9};
each draw samples one token from the row and a "miss" is any token other than 0. Under
the exact law a draw misses with probability (V-1) r / (1 + (V-1) r) (r is taken as
exp(-D) with D the float32 value actually used). Draws per r: 2e5, 1e6, 1e6 (--quick:
2e4, 2e5, 2e5).

Samplers (p = float32 softmax of the row, computed by torch):
  torch_race_f32     q = empty(n, V, float32).exponential_(); argmax(p / q)
  torch_race_f64     p.double(); q float64 exponential_; argmax(p / q)   (Megatron fp64_sampling_noise,
                     unseeded rows)
  triton_megatron    Megatron's request-seed noise: a Triton kernel fills noise[n, V] with
                     Philox4x32-10 key = (seed lo, seed hi), counter = (vocab index, position lo,
                     position hi, 0), word 0, u = tl.uint_to_uniform_float(word),
                     noise = -tl.log(tl.maximum(u, FLT_MIN)); then torch: argmax(p / noise).
                     One request seed, position = draw number 0 .. draws-1.
  triton_megatron52  extra, not in the brief: the same key/counter with a 52-bit midpoint uniform
                     from words 0 and 1, u = ((w0 << 20 | w1 >> 12) + 1/2) / 2^52, noise = -log(u)
                     in float64, argmax(p.double() / noise). The bit layout of the real PR is not
                     known here: this is the PR's idea, not its exact stream.

The same request seed and positions 0 .. draws-1 are used in every r cell, so the Triton
cells share their noise across r (as the torch cells share their generator seed).

Writes, under --out (default audit/results):
  <sampler>_r<r>.json        {"sampler", "vocab", "r", "draws", "misses", ...}
  <sampler>_r1e-7_tokens.npy the drawn tokens of the smallest cell (int32, shape [draws])
  combined.json              every cell plus the environment
and prints a table with the expected counts and two-sided Poisson p-values
(p = min(1, 2 min(P[X <= k], P[X >= k])), X ~ Poisson(expected)).

Before drawing, the Triton noise is checked bit for bit against golden/triton/tref.py
(the numpy reference that matched real Triton 3.6 on an H200) on a few rows.

--smoke: CPU plumbing test (TRITON_INTERPRET=1, tiny draws; tl.log is numpy's log there,
so the bit check is expected to differ).
"""

import argparse
import datetime
import json
import math
import os
import platform
import sys
import time

if "--smoke" in sys.argv:
    os.environ.setdefault("TRITON_INTERPRET", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VOCAB = 131072
CELLS = [(1e-7, 200_000), (1e-8, 1_000_000), (1e-9, 1_000_000)]
QUICK_CELLS = [(1e-7, 20_000), (1e-8, 200_000), (1e-9, 200_000)]
SMOKE_CELLS = [(1e-7, 64), (1e-8, 64), (1e-9, 64)]
SAMPLERS = ["torch_race_f32", "torch_race_f64", "triton_megatron", "triton_megatron52"]
REQUEST_SEED = 0x0123456789ABCDEF  # one request seed; both key words non-zero
TORCH_SEED = 20261129
FLT_MIN = 1.1754943508222875e-38
BLOCK = 1024


def log(*a):
    print(*a, flush=True)


def r_tag(r):
    m, e = ("%.0e" % r).split("e")
    return "r%se%d" % (m, int(e))  # 1e-07 -> r1e-7


# ----------------------------------------------------------------------------- Triton noise


@triton.jit(do_not_specialize=["seed", "pos0"])
def megatron_noise_kernel(noise_ptr, seed, pos0, V, BLOCK: tl.constexpr):
    """noise[row, i] for position pos0 + row, Megatron's request-seed layout (float32)."""
    row = tl.program_id(0)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    m = offs < V
    pos = (pos0 + row).to(tl.uint64)
    c0 = offs.to(tl.uint32)
    z = c0 * 0
    c1 = z + (pos & 0xFFFFFFFF).to(tl.uint32)
    c2 = z + (pos >> 32).to(tl.uint32)
    w0, _w1, _w2, _w3 = tl.philox(seed, c0, c1, c2, z)
    u = tl.uint_to_uniform_float(w0)
    e = -tl.log(tl.maximum(u, 1.1754943508222875e-38))
    tl.store(noise_ptr + row.to(tl.int64) * V + offs, e, mask=m)


@triton.jit(do_not_specialize=["seed", "pos0"])
def megatron52_noise_kernel(noise_ptr, seed, pos0, V, BLOCK: tl.constexpr):
    """Same counter/key, 52-bit midpoint uniform from words 0 and 1, float64 noise."""
    row = tl.program_id(0)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    m = offs < V
    pos = (pos0 + row).to(tl.uint64)
    c0 = offs.to(tl.uint32)
    z = c0 * 0
    c1 = z + (pos & 0xFFFFFFFF).to(tl.uint32)
    c2 = z + (pos >> 32).to(tl.uint32)
    w0, w1, _w2, _w3 = tl.philox(seed, c0, c1, c2, z)
    k = (w0.to(tl.uint64) << 20) | (w1.to(tl.uint64) >> 12)
    u = (k.to(tl.float64) + 0.5) * 2.220446049250313e-16
    e = -tl.log(u)
    tl.store(noise_ptr + row.to(tl.int64) * V + offs, e, mask=m)


def fill_noise(kernel, buf, seed, pos0):
    n, v = buf.shape
    kernel[(n, triton.cdiv(v, BLOCK))](buf, seed, pos0, v, BLOCK=BLOCK)


def check_noise_bits(device, vocab):
    """Triton noise vs golden/triton/tref.py on a few (position, index) rows."""
    sys.path.insert(0, os.path.join(REPO, "golden", "triton"))
    try:
        import tref
    except Exception as ex:  # noqa: BLE001
        return {"skipped": repr(ex)}
    out = {}
    rows = 3
    for pos0 in (0, (1 << 32) - 1):
        buf = torch.empty(rows, vocab, dtype=torch.float32, device=device)
        fill_noise(megatron_noise_kernel, buf, REQUEST_SEED, pos0)
        got = buf.cpu().numpy().view(np.uint32)
        idx = np.tile(np.arange(vocab, dtype=np.uint64), rows)
        pos = np.repeat(np.arange(pos0, pos0 + rows, dtype=np.uint64), vocab)
        seed = np.full(rows * vocab, REQUEST_SEED, dtype=np.uint64)
        w = tref.triton_word(seed, pos, idx)
        want = tref.bits_of_f32(tref.triton_noise(tref.triton_uniform(w))).reshape(rows, vocab)
        ulps = np.abs(got.astype(np.int64) - want.astype(np.int64))  # both positive floats
        out["positions %d..%d" % (pos0, pos0 + rows - 1)] = {"elements": rows * vocab,
                                                               "mismatches": int((got != want).sum()),
                                                               "max_ulps": int(ulps.max())}
    # golden rows from real Triton (noise_cases.json), those with our seed absent: replay a few with
    # their own seed through the element layout (index < vocab, position < 2^62)
    try:
        cases = json.load(open(os.path.join(REPO, "golden", "triton", "noise_cases.json")))["rows"]
        sel = [c for c in cases if c[2] < vocab and c[1] < (1 << 62) and c[0] < (1 << 63)][:40]
        bad = 0
        for seed_c, pos_c, idx_c, _w, _u, noise_bits in sel:
            buf = torch.empty(1, vocab, dtype=torch.float32, device=device)
            fill_noise(megatron_noise_kernel, buf, seed_c, pos_c)
            bad += int(buf[0, idx_c].cpu().numpy().view(np.uint32)) != noise_bits
        out["golden noise_cases.json"] = {"rows": len(sel), "mismatches": bad}
    except Exception as ex:  # noqa: BLE001
        out["golden noise_cases.json"] = {"skipped": repr(ex)[:200]}
    return out


# ----------------------------------------------------------------------------- samplers


def draw(sampler, p32, pos0, n, gen):
    """Tokens of n draws (positions pos0 .. pos0+n-1 for the Triton samplers)."""
    v = p32.numel()
    if sampler == "torch_race_f32":
        q = torch.empty(n, v, dtype=torch.float32, device=p32.device).exponential_(generator=gen)
        return (p32[None, :] / q).argmax(dim=-1)
    if sampler == "torch_race_f64":
        q = torch.empty(n, v, dtype=torch.float64, device=p32.device).exponential_(generator=gen)
        return (p32.double()[None, :] / q).argmax(dim=-1)
    if sampler == "triton_megatron":
        noise = torch.empty(n, v, dtype=torch.float32, device=p32.device)
        fill_noise(megatron_noise_kernel, noise, REQUEST_SEED, pos0)
        return (p32[None, :] / noise).argmax(dim=-1)
    if sampler == "triton_megatron52":
        noise = torch.empty(n, v, dtype=torch.float64, device=p32.device)
        fill_noise(megatron52_noise_kernel, noise, REQUEST_SEED, pos0)
        return (p32.double()[None, :] / noise).argmax(dim=-1)
    raise ValueError(sampler)


# ----------------------------------------------------------------------------- statistics


def _poisson_logpmf(k, lam):
    if lam == 0:
        return 0.0 if k == 0 else -math.inf
    return k * math.log(lam) - lam - math.lgamma(k + 1)


def poisson_two_sided(k, lam):
    """p = min(1, 2 min(P[X <= k], P[X >= k])); scipy when present, else direct sums."""
    try:
        from scipy.stats import poisson
        lo = float(poisson.cdf(k, lam))
        hi = float(poisson.sf(k - 1, lam))
        return min(1.0, 2.0 * min(lo, hi)), "scipy"
    except ImportError:
        pass
    return poisson_two_sided_py(k, lam), "python"


def poisson_two_sided_py(k, lam):
    def tail_sum(js):
        mx = None
        terms = []
        for j in js:
            t = _poisson_logpmf(j, lam)
            if mx is not None and t < mx - 50 and j > lam:
                break
            mx = t if mx is None else max(mx, t)
            terms.append(t)
        if not terms:
            return 0.0
        m = max(terms)
        return math.exp(m) * sum(math.exp(t - m) for t in terms)
    lo = tail_sum(range(0, k + 1))
    hi = tail_sum(range(k, k + 10 * int(lam + 10 * math.sqrt(lam) + 100)))
    return min(1.0, 2.0 * min(lo, hi))


# ----------------------------------------------------------------------------- main


def env_meta(device):
    m = {"date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
         "torch": torch.__version__, "torch_cuda": torch.version.cuda, "triton": triton.__version__,
         "numpy": np.__version__, "python": platform.python_version(), "script": "audit/external_draws.py"}
    m["gpu"] = torch.cuda.get_device_name(0) if device == "cuda" else "none (--smoke, TRITON_INTERPRET=1)"
    return m


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(REPO, "audit", "results"))
    ap.add_argument("--quick", action="store_true", help="draws 2e4, 2e5, 2e5")
    ap.add_argument("--smoke", action="store_true", help="CPU plumbing test, 64 draws per cell")
    ap.add_argument("--samplers", default=",".join(SAMPLERS))
    ap.add_argument("--chunk", type=int, default=4096, help="draws per batch (rows of [chunk, V])")
    ap.add_argument("--vocab", type=int, default=VOCAB)
    ap.add_argument("--no-check", action="store_true", help="skip the noise bit check")
    args = ap.parse_args()
    cuda = torch.cuda.is_available() and not args.smoke
    if not cuda and not args.smoke:
        sys.exit("no CUDA device: use --smoke for a CPU plumbing test")
    device = "cuda" if cuda else "cpu"
    cells = SMOKE_CELLS if args.smoke else QUICK_CELLS if args.quick else CELLS
    if args.smoke:
        args.chunk = min(args.chunk, 32)
    samplers = [s for s in args.samplers.split(",") if s]
    for s in samplers:
        if s not in SAMPLERS:
            sys.exit("unknown sampler %r (known: %s)" % (s, ", ".join(SAMPLERS)))
    v = args.vocab
    os.makedirs(args.out, exist_ok=True)
    t_start = time.time()
    meta = env_meta(device)
    log("[meta]", json.dumps(meta))

    check = {"skipped": "--no-check"} if args.no_check else check_noise_bits(device, v)
    log("[check] triton noise vs tref:", json.dumps(check))
    meta["noise_bit_check"] = check

    smallest = min(range(len(cells)), key=lambda i: cells[i][1])
    results = []
    for sampler in samplers:
        for ci, (r_nominal, draws) in enumerate(cells):
            d32 = np.float32(-math.log(r_nominal))
            r_eff = math.exp(-float(d32))
            row = torch.full((v,), -float(d32), dtype=torch.float32, device=device)
            row[0] = 0.0
            p32 = torch.softmax(row, dim=0)
            gen = torch.Generator(device=device).manual_seed(TORCH_SEED + ci)
            t0 = time.time()
            misses = 0
            keep = ci == smallest
            toks = [] if keep else None
            done = 0
            while done < draws:
                n = min(args.chunk, draws - done)
                tok = draw(sampler, p32, done, n, gen)
                misses += int((tok != 0).sum())
                if keep:
                    toks.append(tok.to(torch.int32).cpu())
                done += n
            if cuda:
                torch.cuda.synchronize()
            el = time.time() - t0
            q = (v - 1) * r_eff / (1.0 + (v - 1) * r_eff)
            expected = draws * q
            pval, how = poisson_two_sided(misses, expected)
            rec = {"sampler": sampler, "vocab": v, "r": r_nominal, "draws": draws, "misses": misses,
                   "D_float32": float(d32), "r_effective": r_eff, "miss_probability": q,
                   "expected": expected, "p_value_two_sided_poisson": pval, "p_value_from": how,
                   "request_seed": REQUEST_SEED if sampler.startswith("triton") else None,
                   "positions": "0..%d" % (draws - 1) if sampler.startswith("triton") else None,
                   "torch_generator_seed": TORCH_SEED + ci if sampler.startswith("torch") else None,
                   "elapsed_s": el}
            name = "%s_%s" % (sampler, r_tag(r_nominal))
            with open(os.path.join(args.out, name + ".json"), "w") as f:
                json.dump(rec, f, indent=1)
            if keep:
                arr = torch.cat(toks).numpy().astype("<i4")
                np.save(os.path.join(args.out, name + "_tokens.npy"), arr)
                rec["tokens_npy"] = name + "_tokens.npy"
            results.append(rec)
            log("[cell] %-18s r=%g draws=%d misses=%d expected=%.1f p=%.3g (%.1f s)" % (
                sampler, r_nominal, draws, misses, expected, pval, el))
    meta["elapsed_s"] = time.time() - t_start
    combined = {"meta": meta, "vocab": v, "cells": results,
                "law": "miss probability (V-1) r / (1 + (V-1) r), r = exp(-D), D the float32 value used",
                "p_value": "two-sided Poisson: min(1, 2 min(P[X <= k], P[X >= k])), X ~ Poisson(expected)"}
    with open(os.path.join(args.out, "combined.json"), "w") as f:
        json.dump(combined, f, indent=1)

    # table: rows r, columns samplers
    log("\nmisses of token 0, rows [0, -D, ..., -D], V = %d (p: two-sided Poisson)" % v)
    head = ["r", "draws", "expected"] + samplers
    lines = []
    for r_nominal, draws in cells:
        cell = {c["sampler"]: c for c in results if c["r"] == r_nominal}
        any_c = next(iter(cell.values()))
        line = ["%g" % r_nominal, "%g" % draws, "%.1f" % any_c["expected"]]
        for s in samplers:
            c = cell.get(s)
            line.append("-" if c is None else "%d (p %.2g)" % (c["misses"], c["p_value_two_sided_poisson"]))
        lines.append(line)
    w = [max(len(head[i]), *(len(x[i]) for x in lines)) for i in range(len(head))]
    log(" | ".join(h.ljust(w[i]) for i, h in enumerate(head)))
    for x in lines:
        log(" | ".join(c.ljust(w[i]) for i, c in enumerate(x)))
    log("[out] %s (%d cells, %.1f s)" % (args.out, len(results), meta["elapsed_s"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
