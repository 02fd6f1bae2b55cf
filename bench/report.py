#!/usr/bin/env python3
"""Merge tailrace's own GPU timings with bench/baselines.py's JSON into one report.

    python3 bench/report.py --tailrace TAILRACE.json --baselines BASELINES.json \
        --out-md REPORT.md --out-json REPORT.json [--baseline-time best|eager|graph]

TAILRACE.json (written by `tailrace-cuda-check --out`; the format is not final). Accepted:
  {"timings": [{"profile": "exact"|"f64"|"f32"|"triton", "mode": "plain"|"top_k50"|"top_p0.9"|
               "top_k50_top_p0.9"|"min_p0.05"|"greedy", "vocab": V, "batch": B, "median_us": t,
               optional "dtype": "bf16"|"f32", "graph": true, "queued": true, "host_ahead": bool,
               "host_us": t}, ...]}
  "queued" records time the same call with the calls queued back to back (no host synchronization
  between them), as bench/baselines.py's eager loop times the baselines; the others time each call
  from an idle stream, host submission included. "host_ahead": false marks a queued record whose
  host fell behind the GPU (its time then includes submission gaps). "host_us" (per-call records)
  is the host's median time in the call itself, part of which the GPU waits for from an idle stream.
  and, leniently, the check's current timing block: a list "configs" (anywhere in the
  document) of {"name": "exact T=1"|"top-k 50"|..., "dtype": "Bf16", "vocab", "rows", "median_us"}.

For every tailrace record the report lists, as reference times, with ratio = tailrace / reference
(< 1: tailrace is faster; for a floor, how many times the floor tailrace takes):
  * each baseline measured by bench/baselines.py for the same mode, V and B;
  * the memory floor: bytes of logits read once / the measured copy bandwidth;
  * a Philox floor (arithmetic below), which bounds the exact profile's noise cost;
  * FlashInfer 0.7 reference figures, RECORDED ELSEWHERE (shared/design/spec-notes.md §4: its
    header-only kernels from C++, float32 inputs, deterministic mode, kernel time, on the same kind
    of H200), NOT measured in this run.

Philox floor. One Philox4x32-10 call = 10 rounds; a round does two 32x32->64 multiplies, each a
mul.lo + a mul.hi (4 integer multiplies), 4 xors (hi1^c1^k0, hi0^c3^k1) and, before rounds 2..10,
the key bump (2 adds): 10 * (4 + 4) + 9 * 2 = 98, about 100 instructions per call (fewer if the
compiler fuses the 3-input xors into LOP3, more counting the conversions around it).
Calls per element on the hot path: exact 1/8 (one block feeds the 16-bit leads of 8 indices), f64 1
(two words of one block per index), f32 1, triton 1. Reported for plain sampling only: the filter
modes draw noise for their survivors alone and greedy draws none.
  floor_s = B * V * calls_per_element * instructions_per_call / (SMs * lanes * clock)
with the H200's 132 SMs, 128 lanes (4 schedulers x 32 lanes issue one instruction per lane per
clock) and its boost clock 1.98 GHz (SM count and max clock are taken from the baselines JSON when
it recorded them). Example: V = 131072, B = 1024, exact: 134217728 * 0.125 * 98 / (132 * 128 * 1.98e9)
s = 49.2 us. A stricter variant counts only the 40 multiplies at the integer-multiply rate (64 per
SM per clock): 134217728 * 0.125 * 40 / (132 * 64 * 1.98e9) s = 40.1 us; it is reported in the JSON.
"""

import argparse
import json
import os
import sys

PHILOX_ROUNDS = 10
PHILOX_INSTR = PHILOX_ROUNDS * (4 + 4) + (PHILOX_ROUNDS - 1) * 2  # 98
PHILOX_MULS = PHILOX_ROUNDS * 4  # 40
CALLS_PER_ELEMENT = {"exact": 0.125, "f64": 1.0, "f32": 1.0, "triton": 1.0}
H200_SMS = 132
LANES = 128
IMAD_LANES = 64
BOOST_GHZ = 1.98

MODES = ["plain", "top_k50", "top_p0.9", "top_k50_top_p0.9", "min_p0.05", "greedy"]

# FlashInfer 0.7, H200, float32 inputs, deterministic, kernel time (us); spec-notes.md §4.
FLASHINFER_GPU = "H200"
FLASHINFER_SOURCE = ("FlashInfer 0.7 on an H200, header-only kernels called from C++, float32 inputs, "
                     "deterministic mode, kernel time; recorded in shared/design/spec-notes.md §4, "
                     "NOT measured in this run")
FLASHINFER = {
    # (V, B): {mode: us}
    (131072, 1): {"plain": 88.4, "top_k50": 66.7, "top_p0.9": 33.9, "top_k50_top_p0.9": 68.0},
    (131072, 8): {"plain": 89.0, "top_k50": 106.5, "top_p0.9": 44.1, "top_k50_top_p0.9": 103.6},
    (131072, 64): {"plain": 88.9, "top_k50": 145.3, "top_p0.9": 72.4, "top_k50_top_p0.9": 145.3},
    (131072, 256): {"plain": 171.6, "top_k50": 261.7, "top_p0.9": 124.6, "top_k50_top_p0.9": 263.7},
    (131072, 1024): {"plain": 667.2, "top_k50": 714.5, "top_p0.9": 337.9, "top_k50_top_p0.9": 714.2},
    (262144, 256): {"plain": 335.0, "top_k50": 571.0, "top_p0.9": 239.2, "top_k50_top_p0.9": 568.1},
}
FLASHINFER_NAME = {"plain": "sampling_from_logits", "top_k50": "top_k_sampling (k 50)",
                   "top_p0.9": "top_p_sampling (p 0.9)", "top_k50_top_p0.9": "top_k_top_p_sampling (50, 0.9)"}

# names used by the current tailrace-cuda-check timing block
CHECK_NAMES = {
    "exact T=1": ("exact", "plain"),
    "greedy": ("exact", "greedy"),
    "f64 profile": ("f64", "plain"),
    "f32 profile": ("f32", "plain"),
    "triton profile": ("triton", "plain"),
    "top-k 50": ("exact", "top_k50"),
    "top-p 0.9": ("exact", "top_p0.9"),
    "top-k 50 + top-p 0.9": ("exact", "top_k50_top_p0.9"),
    "min-p 0.05": ("exact", "min_p0.05"),
}


def norm_dtype(d):
    d = (d or "bf16").lower()
    return {"bf16": "bf16", "bfloat16": "bf16", "f32": "f32", "float32": "f32", "f16": "f16", "float16": "f16"}.get(d, d)


def dtype_bytes(d):
    return {"bf16": 2, "f16": 2, "f32": 4}.get(d, 2)


def _find_configs(doc):
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k == "configs" and isinstance(v, list) and v and isinstance(v[0], dict) and "name" in v[0]:
                return v
            got = _find_configs(v)
            if got:
                return got
    elif isinstance(doc, list):
        for v in doc:
            got = _find_configs(v)
            if got:
                return got
    return None


def load_tailrace(path):
    doc = json.load(open(path))
    recs = []
    warnings = []
    if isinstance(doc, dict) and isinstance(doc.get("timings"), list):
        raw = doc["timings"]
    elif isinstance(doc, list):
        raw = doc
    else:
        raw = None
    if raw is not None:
        for i, t in enumerate(raw):
            try:
                rec = {"profile": str(t["profile"]), "mode": str(t["mode"]), "vocab": int(t["vocab"]),
                       "batch": int(t.get("batch", t.get("rows"))), "median_us": float(t["median_us"]),
                       "dtype": norm_dtype(t.get("dtype")), "graph": bool(t.get("graph", False)),
                       "queued": bool(t.get("queued", False)), "host_ahead": bool(t.get("host_ahead", True)),
                       "host_us": None if t.get("host_us") is None else float(t["host_us"])}
            except (KeyError, TypeError, ValueError) as ex:
                warnings.append("timings[%d] skipped: %r" % (i, ex))
                continue
            if rec["mode"] not in MODES:
                warnings.append("timings[%d]: unknown mode %r (kept, no baseline matches it)" % (i, rec["mode"]))
            recs.append(rec)
        return recs, warnings, doc if isinstance(doc, dict) else {}
    cfgs = _find_configs(doc)
    if not cfgs:
        raise SystemExit("%s: no 'timings' list and no 'configs' list found" % path)
    for i, c in enumerate(cfgs):
        pm = CHECK_NAMES.get(c.get("name"))
        if pm is None:
            warnings.append("configs[%d]: unknown name %r skipped" % (i, c.get("name")))
            continue
        recs.append({"profile": pm[0], "mode": pm[1], "vocab": int(c["vocab"]), "batch": int(c["rows"]),
                     "median_us": float(c["median_us"]), "dtype": norm_dtype(c.get("dtype")), "graph": False,
                     "queued": False, "host_ahead": True, "host_us": None})
    if isinstance(doc, dict):
        g = _find_key(doc, "graph_replay_b1_us")
        if g is not None:
            recs.append({"profile": "exact", "mode": "plain", "vocab": 131072, "batch": 1, "median_us": float(g),
                         "dtype": "bf16", "graph": True, "queued": False, "host_ahead": True, "host_us": None})
    return recs, warnings, doc if isinstance(doc, dict) else {}


def _find_key(doc, key):
    if isinstance(doc, dict):
        if key in doc:
            return doc[key]
        for v in doc.values():
            got = _find_key(v, key)
            if got is not None:
                return got
    return None


def philox_floor(n_elems, profile, mode, sms, ghz):
    # Only plain sampling draws noise for every element; the filter modes draw
    # it for their survivors alone (the fused top-k path for at most k), and
    # greedy draws none, so a per-element count would be no floor for them.
    if mode != "plain":
        return None
    c = CALLS_PER_ELEMENT.get(profile)
    if c is None:
        return None
    issue = n_elems * c * PHILOX_INSTR / (sms * LANES * ghz * 1e9) * 1e6
    imad = n_elems * c * PHILOX_MULS / (sms * IMAD_LANES * ghz * 1e9) * 1e6
    formula = "%d * %g * %d / (%d * %d * %.3g GHz)" % (n_elems, c, PHILOX_INSTR, sms, LANES, ghz)
    return {"us": issue, "imad_us": imad, "calls_per_element": c, "formula": formula}


def baseline_time(rec, which):
    e, g = rec.get("median_us"), rec.get("graph_median_us")
    if which == "eager":
        return e, "eager"
    if which == "graph":
        return (g, "graph") if g is not None else (e, "eager")
    if g is not None and (e is None or g < e):
        return g, "graph"
    return e, "eager"


def fmt(v):
    if v is None:
        return "-"
    if v >= 100:
        return "%.0f" % v
    if v >= 10:
        return "%.1f" % v
    if v >= 1:
        return "%.2f" % v
    return "%.3g" % v


def fmt_ratio(x):
    if x is None:
        return "-"
    if x >= 100:
        return "%.0f" % x
    if x >= 10:
        return "%.1f" % x
    if x >= 0.1:
        return "%.2f" % x
    return "%.3g" % x


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tailrace", required=True)
    ap.add_argument("--baselines", required=True)
    ap.add_argument("--out-md", required=True)
    ap.add_argument("--out-json", required=True)
    ap.add_argument("--baseline-time", choices=["best", "eager", "graph"], default="best",
                    help="which baseline time to compare with: the smaller of eager and graph (default), "
                         "eager only, or graph where measured")
    ap.add_argument("--clock-ghz", type=float, help="SM clock for the Philox floor (default: baselines' max SM "
                                                   "clock, else 1.98)")
    ap.add_argument("--sms", type=int, help="SM count (default: baselines' sm_count, else 132)")
    args = ap.parse_args()

    trs, warnings, tdoc = load_tailrace(args.tailrace)
    bdoc = json.load(open(args.baselines))
    bmeta = bdoc.get("meta", {})
    if bdoc.get("complete") is False:
        # baselines.py writes its file as it goes; a run cut short leaves
        # configurations without a baseline (they get fewer comparisons).
        warnings.append("the baselines file is incomplete (%d results: its run stopped before the end); "
                        "configurations it lacks have no baseline comparisons" % len(bdoc.get("results", [])))
    gpu = bmeta.get("gpu")
    fi_same_gpu = gpu is not None and FLASHINFER_GPU in gpu
    if not fi_same_gpu:
        # The FlashInfer figures were recorded on an H200: set against another
        # GPU's times, their ratios mix two machines.
        warnings.append("the baselines ran on %s, the FlashInfer figures on an %s: their ratios compare "
                        "different GPUs" % (gpu or "an unnamed GPU", FLASHINFER_GPU))
    bw = bdoc["copy_bandwidth"]["bytes_per_s"]
    sms = args.sms or int(bmeta.get("sm_count") or H200_SMS)
    ghz = args.clock_ghz
    if ghz is None:
        try:
            ghz = float(bmeta["clock_max_sm_mhz"]) / 1000.0
        except (KeyError, TypeError, ValueError):
            ghz = BOOST_GHZ
    descr = bdoc.get("descriptions", {})

    rows = []
    for t in sorted(trs, key=lambda r: (r["vocab"], r["batch"], MODES.index(r["mode"]) if r["mode"] in MODES else 99,
                                         r["profile"], r["graph"], r["queued"])):
        v, b = t["vocab"], t["batch"]
        n = v * b
        comps = []
        for br in bdoc.get("results", []):
            if (br.get("vocab"), br.get("batch"), br.get("mode")) != (v, b, t["mode"]) or br.get("error"):
                continue
            ref, how = baseline_time(br, args.baseline_time)
            if ref is None:
                continue
            comps.append({"reference": br["name"], "kind": "baseline (this machine, %s)" % how,
                          "description": descr.get(br["name"], ""), "ref_us": ref,
                          "ratio": t["median_us"] / ref, "speedup": ref / t["median_us"],
                          "note": "baseline reads bf16" if t["dtype"] != "bf16" else ""})
        fi = FLASHINFER.get((v, b), {}).get(t["mode"])
        if fi is not None:
            kind = "recorded elsewhere" if fi_same_gpu else "recorded elsewhere, on another GPU (%s)" % FLASHINFER_GPU
            comps.append({"reference": "flashinfer " + FLASHINFER_NAME[t["mode"]], "kind": kind,
                          "description": FLASHINFER_SOURCE, "ref_us": fi, "ratio": t["median_us"] / fi,
                          "speedup": fi / t["median_us"], "note": "float32 inputs"})
        mem = n * dtype_bytes(t["dtype"]) / bw * 1e6
        comps.append({"reference": "memory floor", "kind": "floor",
                      "description": "%d bytes of %s logits / %.3f TB/s copy bandwidth" % (
                          n * dtype_bytes(t["dtype"]), t["dtype"], bw / 1e12),
                      "ref_us": mem, "ratio": t["median_us"] / mem, "speedup": mem / t["median_us"], "note": ""})
        pf = philox_floor(n, t["profile"], t["mode"], sms, ghz)
        if pf is not None and pf["us"] > 0:
            comps.append({"reference": "Philox floor", "kind": "floor",
                          "description": pf["formula"], "ref_us": pf["us"], "imad_floor_us": pf["imad_us"],
                          "ratio": t["median_us"] / pf["us"], "speedup": pf["us"] / t["median_us"], "note": ""})
        rows.append({**t, "comparisons": comps})

    out = {
        "tailrace_file": os.path.abspath(args.tailrace),
        "baselines_file": os.path.abspath(args.baselines),
        "baselines_meta": bmeta,
        "tailrace_meta": {k: v for k, v in tdoc.items() if isinstance(v, (str, int, float, bool))},
        "baseline_time": args.baseline_time,
        "copy_bandwidth_bytes_per_s": bw,
        "philox_floor": {"instructions_per_call": PHILOX_INSTR, "multiplies_per_call": PHILOX_MULS,
                         "calls_per_element": CALLS_PER_ELEMENT, "sms": sms, "lanes": LANES,
                         "imad_lanes": IMAD_LANES, "clock_ghz": ghz,
                         "formula": "us = B * V * calls_per_element * instructions_per_call / "
                                    "(sms * lanes * clock) * 1e6; imad_us uses multiplies_per_call and imad_lanes",
                         "instruction_count": "per round 2 x (mul.lo + mul.hi) = 4 multiplies + 4 xors; "
                                              "key bump (2 adds) before rounds 2..10: 10*8 + 9*2 = 98"},
        "flashinfer_reference": {"source": FLASHINFER_SOURCE,
                                 "figures_us": [{"vocab": k[0], "batch": k[1], **m} for k, m in FLASHINFER.items()]},
        "ratio_definition": "ratio = tailrace_us / ref_us (< 1: tailrace faster; for floors: times the floor); "
                            "speedup = ref_us / tailrace_us",
        "warnings": warnings,
        "rows": rows,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out_json)), exist_ok=True)
    with open(args.out_json, "w") as f:
        json.dump(out, f, indent=1)

    md = []
    md.append("# tailrace vs baselines")
    md.append("")
    md.append("- tailrace timings: `%s`" % os.path.basename(args.tailrace))
    md.append("- baselines: `%s` (%s, torch %s, Triton %s, %s); baseline time = %s" % (
        os.path.basename(args.baselines), bmeta.get("gpu", "?"), bmeta.get("torch", "?"), bmeta.get("triton", "?"),
        bmeta.get("date_utc", "?"), {"best": "the smaller of eager and CUDA-graph", "eager": "eager",
                                     "graph": "CUDA-graph where measured, else eager"}[args.baseline_time]))
    if bdoc.get("complete") is False:
        md.append("- **the baselines file is incomplete**: its run stopped before the end (%d results), so "
                  "configurations it lacks have no baseline comparisons" % len(bdoc.get("results", [])))
    md.append("- copy bandwidth (read + write) %.2f TB/s; memory floor = bytes of logits read once / that." % (bw / 1e12))
    md.append("- Philox floor = B * V * calls/element * %d instructions / (%d SMs * %d lanes * %.3g GHz); "
              "calls/element: exact 1/8, f64 1, f32 1, triton 1 (98 = 10 rounds x (4 multiplies + 4 xors) + "
              "9 key bumps x 2 adds)." % (PHILOX_INSTR, sms, LANES, ghz))
    md.append("- FlashInfer rows are figures **recorded elsewhere** (spec-notes §4: FlashInfer 0.7, float32 "
              "inputs, deterministic, kernel time), **not measured in this run**.")
    if not fi_same_gpu:
        md.append("- **this run's GPU is %s, not an %s**: the FlashInfer ratios set two machines against each "
                  "other and say nothing about either sampler's speed." % (gpu or "unnamed", FLASHINFER_GPU))
    md.append("- ratio = tailrace / reference: below 1 tailrace is faster; for a floor, how many times the floor.")
    # Compact views: the profiles side by side, and each mode against plain sampling.
    by = {(r["profile"], r["mode"], r["vocab"], r["batch"]): r["median_us"]
          for r in rows if not r["graph"] and not r["queued"] and r["dtype"] == "bf16"}
    byq = {(r["profile"], r["mode"], r["vocab"], r["batch"]): r
           for r in rows if r["queued"] and not r["graph"] and r["dtype"] == "bf16"}
    byh = {(r["profile"], r["mode"], r["vocab"], r["batch"]): r["host_us"]
           for r in rows if not r["graph"] and not r["queued"] and r["dtype"] == "bf16"}
    shapes = sorted({(k[2], k[3]) for k in by})
    modes = [m for m in MODES if any(k[1] == m for k in by)]
    profs = [p for p in ("exact", "f64", "f32", "triton") if any(k[0] == p for k in by)]
    if shapes and profs:
        md.append("")
        md.append("## Profiles side by side (bf16, us; exact / f32: the cost of exactness)")
        md.append("")
        md.append("| mode | V | B | " + " | ".join(profs) + " | exact / f32 |")
        md.append("|---|---|---|" + "---|" * len(profs) + "---|")
        for m in modes:
            if m == "greedy":
                continue
            for v, b in shapes:
                ts = [by.get((p, m, v, b)) for p in profs]
                if all(t is None for t in ts):
                    continue
                e, f = by.get(("exact", m, v, b)), by.get(("f32", m, v, b))
                md.append("| %s | %d | %d | %s | %s |" % (m, v, b, " | ".join(fmt(t) for t in ts),
                                                         fmt_ratio(e / f) if e and f else "-"))
        md.append("")
        md.append("## Each mode against plain sampling (exact profile, bf16; mode time / plain time)")
        md.append("")
        md.append("| V | B | plain us | " + " | ".join(m for m in modes if m != "plain") + " |")
        md.append("|---|---|---|" + "---|" * len([m for m in modes if m != "plain"]))
        for v, b in shapes:
            base = by.get(("exact", "plain", v, b))
            if base is None:
                continue
            cells = []
            for m in modes:
                if m == "plain":
                    continue
                t = by.get(("exact", m, v, b))
                cells.append("-" if t is None else "%s (%s)" % (fmt(t), fmt_ratio(t / base)))
            md.append("| %d | %d | %s | %s |" % (v, b, fmt(base), " | ".join(cells)))
    if byq:
        md.append("")
        md.append("## Per call and queued (bf16, us; queued / per call)")
        md.append("")
        md.append("Per call: each call timed from an idle stream, the host's submission included. Queued: the "
                  "calls back to back behind a GPU delay, as the baselines' eager loop runs (device time of the "
                  "launches). \"host behind\": the host did not stay ahead, that queued time includes gaps. "
                  "Host: the host's median time in the call itself (per call), part of which the GPU waits for.")
        empty = [tdoc.get(k) for k in ("empty_kernel_per_call_us", "empty_kernel_queued_us",
                                       "empty_kernel_host_us")]
        if empty[0] is not None and empty[1] is not None:
            md.append("")
            md.append("An empty kernel over the device, timed the same way: %s per call, %s queued%s." % (
                fmt(empty[0]), fmt(empty[1]), "" if empty[2] is None else ", host %s" % fmt(empty[2])))
        md.append("")
        md.append("| profile | mode | V | B | per call | queued | queued / per call | host |")
        md.append("|---|---|---|---|---|---|---|---|")
        for k in sorted(byq, key=lambda k: (k[2], k[3], MODES.index(k[1]) if k[1] in MODES else 99, k[0])):
            q = byq[k]
            e = by.get(k)
            h = byh.get(k)
            md.append("| %s | %s | %d | %d | %s | %s%s | %s | %s |" % (
                k[0], k[1], k[2], k[3], fmt(e), fmt(q["median_us"]), "" if q["host_ahead"] else " (host behind)",
                fmt_ratio(q["median_us"] / e) if e else "-", "-" if h is None else fmt(h)))
    md.append("")
    md.append("## Every record against every reference")
    md.append("")
    md.append("| profile | mode | V | B | tailrace us | reference | kind | reference us | ratio |")
    md.append("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        tag = " (graph)" if r["graph"] else ""
        if r["queued"]:
            tag += " (queued)" if r["host_ahead"] else " (queued, host behind)"
        dt = "" if r["dtype"] == "bf16" else " [%s]" % r["dtype"]
        for c in r["comparisons"]:
            md.append("| %s | %s | %d | %d | %s%s%s | %s | %s | %s | %s |" % (
                r["profile"], r["mode"], r["vocab"], r["batch"], fmt(r["median_us"]), tag, dt, c["reference"],
                c["kind"] + ("; " + c["note"] if c["note"] else ""), fmt(c["ref_us"]), fmt_ratio(c["ratio"])))
    if warnings:
        md.append("")
        md.append("Warnings: " + "; ".join(warnings))
    with open(args.out_md, "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))
    print("\n[out] %s, %s (%d tailrace records)" % (args.out_md, args.out_json, len(rows)), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
