#!/usr/bin/env python3
"""Compare the tailrace grids of two builds timed on one machine.

Each side is one or more `tailrace-cuda-check grid` JSON files (their
`timings` records), timed interleaved in one device call
(`BASE_BIN=... bash scripts/gpu-evidence.sh ab`), so machine state affects
both alike. A record is keyed by (profile, mode, vocab, batch, dtype, kind),
kind being per call, queued or graph; each side's figure is the mean of its
files' medians. The ratio is new / base (below 1: the new build is faster).

    python3 bench/compare_grids.py --base a1.json a2.json --new b1.json b2.json \
        [--profile exact] [--dtype bf16] [--out-md ab.md] [--out-json ab.json]

Standard library only.
"""

import argparse
import json
import statistics
import sys


def kind(t):
    if t.get("graph"):
        return "graph"
    if t.get("queued"):
        return "queued"
    return "call"


def load(paths):
    """{key: [median_us, ...]} over the files (one entry a file)."""
    out = {}
    for p in paths:
        with open(p) as f:
            timings = json.load(f)["timings"]
        seen = set()
        for t in timings:
            k = (t["profile"], t["mode"], t["vocab"], t["batch"], t["dtype"], kind(t))
            if k in seen:
                raise ValueError(f"{p}: two records for {k}")
            seen.add(k)
            out.setdefault(k, []).append(float(t["median_us"]))
    return out


def compare(base, new, profile=None, dtype=None):
    """Rows of the keys both sides hold in every file, sorted; and the keys
    only one side holds."""
    rows = []
    nb = max((len(v) for v in base.values()), default=0)
    nn = max((len(v) for v in new.values()), default=0)
    for k in sorted(set(base) & set(new)):
        if profile and k[0] != profile or dtype and k[4] != dtype:
            continue
        b, n = base[k], new[k]
        if len(b) != nb or len(n) != nn:
            continue
        mb, mn = statistics.mean(b), statistics.mean(n)
        rows.append({
            "profile": k[0], "mode": k[1], "vocab": k[2], "batch": k[3], "dtype": k[4], "kind": k[5],
            "base_us": b, "new_us": n, "base_mean_us": mb, "new_mean_us": mn, "ratio": mn / mb,
        })
    only = sorted(set(base) ^ set(new))
    return rows, only


def summary(rows):
    """Mean, smallest and largest ratio a kind."""
    out = {}
    for kd in ("call", "queued", "graph"):
        r = [x["ratio"] for x in rows if x["kind"] == kd]
        if r:
            out[kd] = {"records": len(r), "mean_ratio": statistics.mean(r), "min_ratio": min(r),
                       "max_ratio": max(r)}
    return out


def markdown(rows, summ, base_files, new_files):
    lines = ["# Two builds on one machine (new / base)", "",
             f"- base: {', '.join(base_files)}", f"- new: {', '.join(new_files)}",
             "- each side: the mean of its files' medians; ratio below 1: the new build is faster", ""]
    lines += ["| kind | records | mean ratio | smallest | largest |", "|---|---|---|---|---|"]
    for kd, s in summ.items():
        lines.append(f"| {kd} | {s['records']} | {s['mean_ratio']:.3f} | {s['min_ratio']:.3f} | "
                     f"{s['max_ratio']:.3f} |")
    lines += ["", "| profile | mode | V | B | dtype | kind | base us | new us | new / base |",
              "|---|---|---|---|---|---|---|---|---|"]
    for x in rows:
        b = " ".join(f"{v:.1f}" for v in x["base_us"])
        n = " ".join(f"{v:.1f}" for v in x["new_us"])
        lines.append(f"| {x['profile']} | {x['mode']} | {x['vocab']} | {x['batch']} | {x['dtype']} | "
                     f"{x['kind']} | {b} | {n} | {x['ratio']:.3f} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", nargs="+", required=True, help="grid JSON files of the base build")
    ap.add_argument("--new", nargs="+", required=True, help="grid JSON files of the new build")
    ap.add_argument("--profile", help="only this noise profile (e.g. exact)")
    ap.add_argument("--dtype", help="only this logit type (e.g. bf16)")
    ap.add_argument("--out-md")
    ap.add_argument("--out-json")
    a = ap.parse_args(argv)
    rows, only = compare(load(a.base), load(a.new), a.profile, a.dtype)
    if not rows:
        print("no record is on both sides", file=sys.stderr)
        return 1
    summ = summary(rows)
    md = markdown(rows, summ, a.base, a.new)
    if a.out_md:
        with open(a.out_md, "w") as f:
            f.write(md)
    if a.out_json:
        with open(a.out_json, "w") as f:
            json.dump({"summary": summ, "rows": rows, "one_side_only": [list(k) for k in only]}, f, indent=1)
    for kd, s in summ.items():
        print(f"{kd}: {s['records']} records, mean new / base {s['mean_ratio']:.3f} "
              f"({s['min_ratio']:.3f} .. {s['max_ratio']:.3f})")
    if only:
        print(f"{len(only)} records on one side only (left out)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
