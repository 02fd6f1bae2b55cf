#!/usr/bin/env python3
"""The benchmark issue's targets, read off a merged report (bench/report.py's JSON).

    python3 bench/targets.py REPORT.json [--timing per-call|queued|both] [--vocab 131072] [--json] [--out FILE]

Each target of the issue (H200, bf16, V = 131072 unless --vocab) is computed from the report's
records of one timing kind, tailrace's and the references' of the same run:

  per-call  each call timed from an idle stream (the host's submission included; the default)
  queued    the calls queued back to back (records with "queued": true)

and given a verdict: "met", "missed", or "met at B = ...; missed at B = ..." when it holds for
some batch sizes only. A target whose records are absent says so ("no records"); nothing is
reported as met without its numbers. Where a target is missed at a batch size, the table says
what it would need there (the time at which it would be met), next to the times of the same
report that bound how low a sampler's time can go at that batch size: reading the batch once and
reducing each row to its argmax (tailrace's greedy and torch.argmax), and the launch of an empty
kernel over the device (tailrace-cuda-check grid's "empty_kernel_*_us"; per call or queued as
the table). A need below the greedy and argmax times asks a sampler to beat the simplest
one-pass reduction of the same bytes. The B = 1 time also shows the CUDA-graph replay when the
report has one. Markdown (one table per timing kind; by default both, the queued one where the
report has queued records) on stdout or --out, or JSON with --json.

The issue states its targets for an H200. On a report whose baselines ran on another GPU (or name
none), the targets that hold only there, the absolute B = 1 times and the ratios to FlashInfer's
figures (recorded on an H200), show their values with the verdict "not judged"; the targets set
against the run's own times keep theirs, as indications.

The issue states the B = 1 target as kernel time. With --kernel-time NCU.csv (Nsight Compute's
raw CSV of `ncu --csv --page raw --metrics gpu__time_duration.sum ... tailrace-cuda-check bench
--rows 1 --reps N`, N >= 2), every table gets one more target: the median duration of the
kernel's repetitions after the first (the first warms the instruction caches), against 12 us,
and FlashInfer's recorded B = 1 figure (kernel time too) over that median, against 7x.
"""

import argparse
import csv
import gzip
import json
import os
import statistics
import sys

BATCHES = [1, 8, 64, 256, 1024]
FILTER_SORT = [("top_k50_top_p0.9", "torch_sort_topk50_topp0.9", "top-k 50 + top-p 0.9"),
               ("top_k50", "torch_sort_topk50", "top-k 50"),
               ("top_p0.9", "torch_sort_topp0.9", "top-p 0.9")]


def pick(rows, timing):
    """(profile, mode, vocab, batch) -> row of one timing kind (graph replays apart)."""
    want_q = timing == "queued"
    out = {}
    for r in rows:
        if r.get("dtype", "bf16") != "bf16" or r.get("graph"):
            continue
        if bool(r.get("queued", False)) != want_q:
            continue
        out[(r["profile"], r["mode"], r["vocab"], r["batch"])] = r
    return out


def comparison(row, reference):
    for c in row["comparisons"]:
        if c["reference"] == reference or (reference.endswith("*") and c["reference"].startswith(reference[:-1])):
            return c
    return None


def fmt_x(x):
    return "%.2fx" % x if x < 10 else "%.1fx" % x


def verdict(results):
    """results: [(batch, ok)] -> met / missed / met at B = ...; missed at B = ..."""
    if not results:
        return "no records"
    good = [b for b, ok in results if ok]
    bad = [b for b, ok in results if not ok]
    if not bad:
        return "met"
    if not good:
        return "missed"
    return "met at B = %s; missed at B = %s" % (", ".join(map(str, good)), ", ".join(map(str, bad)))


ISSUE_GPU = "H200"


def report_gpu(rep):
    """The GPU the report's baselines ran on, or None where the report names none."""
    return rep.get("baselines_meta", {}).get("gpu")


def off_issue_gpu(rep):
    """Why the targets tied to the issue's GPU are not judged on this report, or None when they are.

    The issue states its targets for an H200. Those set against times of the same run (the memory
    floor, torch, argmax, the plain time) carry over to another GPU as indications; an absolute time
    (12 us) and a ratio to FlashInfer's figures, recorded on an H200, do not."""
    gpu = report_gpu(rep)
    if gpu is not None and ISSUE_GPU in gpu:
        return None
    return "not judged: measured on %s; the target is an %s's" % (gpu or "an unnamed GPU", ISSUE_GPU)


def per_batch(values, fmt):
    return ", ".join("%s (B = %d)" % (fmt(v), b) for b, v in values) or "-"


def targets(rep, timing, vocab):
    by = pick(rep["rows"], timing)
    out = []

    meta = rep.get("tailrace_meta", {})
    empty_us = meta.get("empty_kernel_queued_us" if timing == "queued" else "empty_kernel_per_call_us")
    if timing == "queued" and meta.get("empty_kernel_queued_host_ahead") is False:
        empty_us = None  # the host fell behind: gaps, not the launch, in that figure

    def bounds(b):
        """The times at batch size b that bound a sampler's: greedy, torch.argmax, an empty kernel."""
        g = by.get(("exact", "greedy", vocab, b))
        a = comparison(g, "torch_argmax") if g is not None else None
        return {"greedy_us": None if g is None else g["median_us"],
                "torch_argmax_us": None if a is None else a["ref_us"], "empty_kernel_us": empty_us}

    elsewhere = off_issue_gpu(rep)

    def add(name, values, fmt, ok, need=None, issue_gpu=False):
        """values: [(batch, value)] in batch order; ok(batch, value) -> bool; need(batch) -> the time
        (us) at which the target would be met at that batch size, or None. issue_gpu: the target holds
        only on the issue's GPU (an absolute time, FlashInfer's figures), so elsewhere it gets no verdict."""
        t = {"target": name, "values": [{"batch": b, "value": v} for b, v in values],
             "measured": per_batch(values, fmt), "verdict": verdict([(b, ok(b, v)) for b, v in values])}
        if issue_gpu and elsewhere is not None and values:
            t["verdict"] = elsewhere
            out.append(t)
            return
        needs = []
        for b, v in values:
            n = None if need is None or ok(b, v) else need(b)
            if n is not None:
                needs.append(dict({"batch": b, "needs_us": n}, **bounds(b)))
        if needs:
            t["needs"] = needs
        out.append(t)

    def time_of(mode):
        def f(b):
            r = by.get(("exact", mode, vocab, b))
            return None if r is None else r["median_us"]
        return f

    def ref_need(mode, reference, factor):
        """Needed time: the reference's over the factor (speedup targets)."""
        def f(b):
            r = by.get(("exact", mode, vocab, b))
            c = None if r is None else comparison(r, reference)
            return None if c is None else c["ref_us"] / factor
        return f

    def series(profile, mode, f, batches=BATCHES):
        vals = []
        for b in batches:
            r = by.get((profile, mode, vocab, b))
            if r is None:
                continue
            v = f(r)
            if v is not None:
                vals.append((b, v))
        return vals

    def ref_ratio(reference):
        def f(r):
            c = comparison(r, reference)
            return None if c is None else c["ratio"]
        return f

    def ref_speedup(reference):
        def f(r):
            c = comparison(r, reference)
            return None if c is None else c["speedup"]
        return f

    def over_plain():
        def f(r):
            p = by.get(("exact", "plain", r["vocab"], r["batch"]))
            return None if p is None else r["median_us"] / p["median_us"]
        return f

    add("exact plain <= 2x memory floor, B >= 256", series("exact", "plain", ref_ratio("memory floor"), [256, 1024]),
        fmt_x, lambda _b, v: v <= 2.0, ref_need("plain", "memory floor", 0.5))
    b1 = series("exact", "plain", lambda r: r["median_us"], [1])
    add("exact plain <= 12 us at B = 1", b1, lambda v: "%.1f us" % v, lambda _b, v: v <= 12.0, lambda _b: 12.0,
        issue_gpu=True)
    graph = [r for r in rep["rows"] if r.get("graph") and (r["profile"], r["mode"], r["vocab"], r["batch"]) ==
             ("exact", "plain", vocab, 1)]
    if graph:
        out[-1]["graph_replay_us"] = graph[0]["median_us"]
        out[-1]["measured"] += "; %.1f us as a CUDA-graph replay" % graph[0]["median_us"]
    fi = series("exact", "plain", ref_speedup("flashinfer sampling_from_logits"), [1, 1024])
    add(">= 7x FlashInfer sampling_from_logits at B = 1, >= 5x at B = 1024", fi, fmt_x,
        lambda b, v: v >= (7.0 if b == 1 else 5.0),
        lambda b: ref_need("plain", "flashinfer sampling_from_logits", 7.0 if b == 1 else 5.0)(b), issue_gpu=True)
    add(">= 10x torch's float32 race", series("exact", "plain", ref_speedup("torch_race_f32")), fmt_x,
        lambda _b, v: v >= 10.0, ref_need("plain", "torch_race_f32", 10.0))
    # exact / f32 over every mode and shape of the report with both profiles (any vocabulary).
    ratios = []
    for (p, m, v, b), r in by.items():
        if p == "exact" and m != "greedy" and ("f32", m, v, b) in by:
            ratios.append((r["median_us"] / by[("f32", m, v, b)]["median_us"], m, v, b))
    if ratios:
        lo, hi = min(ratios), max(ratios)
        out.append({"target": "exact <= 1.15x f32", "values": [{"mode": m, "vocab": v, "batch": b, "value": x}
                                                              for x, m, v, b in sorted(ratios, reverse=True)],
                    "measured": "%.2f-%.2fx over %d records (largest: %s V = %d B = %d)" % (
                        lo[0], hi[0], len(ratios), hi[1], hi[2], hi[3]),
                    "verdict": "met" if hi[0] <= 1.15 else "missed (%d of %d records above 1.15x)" % (
                        sum(1 for x in ratios if x[0] > 1.15), len(ratios))})
    else:
        out.append({"target": "exact <= 1.15x f32", "values": [], "measured": "-", "verdict": "no records"})
    def scaled(f, k):
        return lambda b: None if f(b) is None else k * f(b)

    add("top-k 50 + top-p 0.9 <= 2x plain", series("exact", "top_k50_top_p0.9", over_plain()), fmt_x,
        lambda _b, v: v <= 2.0, scaled(time_of("plain"), 2.0))
    add("top-k 50 + top-p 0.9 >= 3x FlashInfer",
        series("exact", "top_k50_top_p0.9", ref_speedup("flashinfer top_k_top_p_sampling*")), fmt_x,
        lambda _b, v: v >= 3.0, ref_need("top_k50_top_p0.9", "flashinfer top_k_top_p_sampling*", 3.0),
        issue_gpu=True)
    add("top-p 0.9 <= 3x plain", series("exact", "top_p0.9", over_plain()), fmt_x, lambda _b, v: v <= 3.0,
        scaled(time_of("plain"), 3.0))
    for mode, ref, label in FILTER_SORT:
        add(">= 20x the torch sort path: %s" % label, series("exact", mode, ref_speedup(ref)), fmt_x,
            lambda _b, v: v >= 20.0, ref_need(mode, ref, 20.0))
    add("greedy within 1.2x torch.argmax", series("exact", "greedy", ref_ratio("torch_argmax")), fmt_x,
        lambda _b, v: v <= 1.2)
    return out


def needs_text(t):
    """One target's needs at its missed batch sizes, with the bounds of the same report."""
    def us(v):
        return "-" if v is None else "%.1f" % v

    parts = []
    for n in t.get("needs", []):
        below = [x for x in (n["greedy_us"], n["torch_argmax_us"]) if x is not None]
        mark = ", below both" if len(below) == 2 and n["needs_us"] < min(below) else ""
        parts.append("B = %d: <= %s us%s (%s, %s, %s)" % (n["batch"], us(n["needs_us"]), mark, us(n["greedy_us"]),
                                                        us(n["torch_argmax_us"]), us(n["empty_kernel_us"])))
    return "; ".join(parts) or "-"


def kernel_times(path):
    """The durations (us) of an Nsight Compute raw CSV, in launch order."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    head = next((i for i, r in enumerate(rows) if r and r[0] == "ID"), None)
    if head is None or "gpu__time_duration.sum" not in rows[head]:
        raise ValueError("%s: no Nsight Compute raw table with gpu__time_duration.sum" % path)
    col = rows[head].index("gpu__time_duration.sum")
    unit = rows[head + 1][col] if head + 1 < len(rows) else ""
    scale = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3}.get(unit)
    if scale is None:
        raise ValueError("%s: unknown unit %r of gpu__time_duration.sum" % (path, unit))
    out = []
    for r in rows[head + 2:]:
        if len(r) == len(rows[head]) and r[col]:
            out.append(float(r[col].replace(",", "")) * scale)
    return out


def kernel_time_target(path, elsewhere=None):
    t = kernel_times(path)
    if len(t) < 2:
        return {"target": "exact plain <= 12 us of kernel time at B = 1 (Nsight Compute)", "values": [],
                "repetitions_us": t,
                "measured": "%d repetition(s) in %s" % (len(t), path),
                "verdict": "no records (needs at least 2 repetitions)"}
    warm = sorted(t[1:])
    med = statistics.median(warm)
    return {"target": "exact plain <= 12 us of kernel time at B = 1 (Nsight Compute)",
            "values": [{"batch": 1, "value": med, "repetitions_us": t}],
            "measured": "%.1f us (median of repetitions 2 to %d: %.1f-%.1f; the first %.1f)" % (
                med, len(t), warm[0], warm[-1], t[0]),
            "verdict": elsewhere or ("met" if med <= 12.0 else "missed")}


def kernel_time_flashinfer(rep, kt, vocab):
    """FlashInfer's recorded B = 1 figure is kernel time: set it against the kernel time of kt."""
    name = ">= 7x FlashInfer sampling_from_logits at B = 1, kernel time against its kernel time"
    figs = [f for f in rep.get("flashinfer_reference", {}).get("figures_us", [])
            if f.get("vocab") == vocab and f.get("batch") == 1 and "plain" in f]
    if not figs or not kt["values"]:
        return {"target": name, "values": [], "measured": "-",
                "verdict": "no records (%s)" % ("no FlashInfer figure" if not figs else "no kernel time")}
    x = figs[0]["plain"] / kt["values"][0]["value"]
    return {"target": name, "values": [{"batch": 1, "value": x}],
            "measured": "%s (%.1f us / %.1f us)" % (fmt_x(x), figs[0]["plain"], kt["values"][0]["value"]),
            "verdict": off_issue_gpu(rep) or ("met" if x >= 7.0 else "missed")}


def load_report(path):
    """The report at path; where that file is absent, its gzipped copy PATH.gz (the archived runs
    under bench/results keep their report.json gzipped, so that the recorded commands still run)."""
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        with gzip.open(path + ".gz", "rt") as f:
            return json.load(f)
    with open(path) as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("report", help="bench/report.py's JSON")
    ap.add_argument("--timing", choices=["per-call", "queued", "both"], default="both",
                    help="which timings (both: per call, then queued where the report has queued records)")
    ap.add_argument("--vocab", type=int, default=131072)
    ap.add_argument("--json", action="store_true", help="JSON instead of Markdown")
    ap.add_argument("--out", help="write here instead of stdout")
    ap.add_argument("--kernel-time", help="Nsight Compute raw CSV of the plain race at B = 1 (see above)")
    args = ap.parse_args()
    rep = load_report(args.report)
    kinds = ["per-call", "queued"] if args.timing == "both" else [args.timing]
    if args.timing == "both" and not any(r.get("queued") for r in rep["rows"]):
        kinds = ["per-call"]
    tables = {k: targets(rep, k, args.vocab) for k in kinds}
    if args.kernel_time:
        kt = kernel_time_target(args.kernel_time, off_issue_gpu(rep))
        kfi = kernel_time_flashinfer(rep, kt, args.vocab)
        for ts in tables.values():
            ts.append(kt)
            ts.append(kfi)
    if args.json:
        text = json.dumps({"report": args.report, "vocab": args.vocab, "gpu": report_gpu(rep), "issue_gpu": ISSUE_GPU,
                           "timings": tables}, indent=1) + "\n"
    else:
        lines = []
        for k, ts in tables.items():
            lines.append("## Targets of the benchmark issue: %s timings (bf16, V = %d)" % (k, args.vocab))
            lines.append("")
            lines.append("From `%s`, measured on %s." % (args.report, report_gpu(rep) or "an unnamed GPU"))
            if off_issue_gpu(rep) is not None:
                lines.append("")
                lines.append("The issue states these targets for an %s. On another GPU the verdicts of targets "
                             "set against this run's own times are indications; an absolute time and a ratio to "
                             "FlashInfer's figures (recorded on an %s) get none." % (ISSUE_GPU, ISSUE_GPU))
            lines.append("")
            lines.append("| target | measured | verdict | where missed: needs (greedy, torch.argmax, empty kernel) |")
            lines.append("|---|---|---|---|")
            for t in ts:
                lines.append("| %s | %s | %s | %s |" % (t["target"], t["measured"], t["verdict"], needs_text(t)))
            lines.append("")
        text = "\n".join(lines)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
