#!/usr/bin/env python3
"""Where a kernel's time goes by CUDA source line: joins the SASS page of an
Nsight Compute profile (`ncu --page source --csv --print-source sass`, as
scripts/ncu-source.sh writes it, plain or gzipped) with the line table of the
same kernels compiled with `TAILRACE_NVRTC_LINEINFO=1`
(`tailrace-cuda-check cubin FILE` on the machine that ran the profile, so
that the SASS is the one profiled), read by `nvdisasm -c -gi`.

Prints, for the kernel's instructions: the share of the warp instructions
executed and of the warp-stall samples of each function of the assembled
source (`tailrace-cuda-check source`; a line belongs to the last definition
above it), then the source lines with the most samples. Inlined code counts
where its innermost line is.

    python3 scripts/sass-lines.py --csv src-r1-k50-p0.9-sass.csv.gz \\
        --cubin lineinfo.cubin --source tailrace.cu --function tr_fused_bf16

Without a profile (`--between FIRST LAST` in place of `--csv`, no GPU
needed), it counts the SASS instructions of a stretch of source instead: those
whose inlining chain passes through the lines from the first holding FIRST to
the next holding LAST, by kind (binary64 arithmetic, shuffles and warp
reductions, shared-memory accesses and atomics, branches and the rest). The
source and the cubin must come from the same defines (`tailrace-cuda-check
source --define ...` and `cubin --define ...`, with TAILRACE_NVRTC_LINEINFO=1):

    python3 scripts/sass-lines.py --cubin li.cubin --source tr.cu \\
        --function tr_fast_bf16 --between "wclk.rare_step();" "wclk.rare_done();"
"""
import argparse
import csv
import gzip
import io
import os
import re
import subprocess
import sys


def read_text(path):
    with open(path, "rb") as f:
        raw = f.read()
    if path.endswith(".gz"):
        raw = gzip.decompress(raw)
    return raw.decode("utf-8", errors="replace")


def profile_rows(path):
    """(offset, warp instructions, stall samples) per SASS instruction."""
    rows = list(csv.reader(io.StringIO(read_text(path))))
    hdr = next(i for i, r in enumerate(rows) if "Address" in r and "Source" in r)
    h = rows[hdr]
    a = h.index("Address")
    e = next(i for i, x in enumerate(h) if x.strip() == "Instructions Executed")
    s = next(i for i, x in enumerate(h) if x.startswith("Warp Stall Sampling (All"))

    def num(x):
        try:
            return float(x.replace(",", ""))
        except ValueError:
            return 0.0

    body = [r for r in rows[hdr + 1 :] if len(r) == len(h)]
    base = int(body[0][a], 16)
    return [(int(r[a], 16) - base, num(r[e]), num(r[s])) for r in body]


LINE = re.compile(r'//## File "[^"]*", line (\d+)')
INSN = re.compile(r"/\*([0-9a-f]{4,})\*/")


def line_table(nvdisasm, cubin, function, opcodes=None):
    """Offset -> source lines of each instruction of `function`, innermost
    first (the inlining chain); where `opcodes` is a dict, offset -> the
    instruction's opcode (its predicate left off) goes into it too."""
    out = subprocess.run(
        [nvdisasm, "-c", "-gi", cubin], check=True, capture_output=True, text=True
    ).stdout
    table, inside, line, in_group = {}, False, None, False
    for t in out.splitlines():
        st = t.strip()
        if st.startswith(".text."):
            inside = st == ".text.%s:" % function
            line = None
            continue
        if not inside:
            continue
        m = LINE.search(t)
        if m:
            # The first directive of a group is the innermost location.
            # A group of directives is the inlining chain, innermost first.
            if not in_group:
                line = []
            line.append(int(m.group(1)))
            in_group = True
            continue
        m = INSN.search(t)
        if m:
            table[int(m.group(1), 16)] = line
            in_group = False
            if opcodes is not None:
                words = t[m.end() :].split()
                if words and words[0].startswith("@"):
                    words = words[1:]
                opcodes[int(m.group(1), 16)] = words[0].rstrip(";") if words else "?"
    if not table:
        sys.exit("no instructions of %s in %s" % (function, cubin))
    return table

DEF = re.compile(
    r"^(?:template\s*<[^>]*>\s*)?(?:extern \"C\" )?(?:__device__|__global__)[^;{(]*?\b(\w+)\s*\("
)


def functions_of(source_lines):
    """Line number (1-based) -> name of the last definition at or above it."""
    names, cur = [None], "(prelude)"
    for t in source_lines:
        m = DEF.match(t)
        if m:
            cur = m.group(1)
        names.append(cur)
    return names


KINDS = [
    ("binary64", lambda op: op.startswith("D") and not op.startswith("DEPBAR")),
    ("conversions", lambda op: op.startswith(("F2F", "I2F", "F2I"))),
    ("shuffles, votes, reductions", lambda op: op.startswith(("SHFL", "VOTE", "REDUX", "MATCH"))),
    ("shared loads and stores", lambda op: op.startswith(("LDS", "STS"))),
    ("shared atomics", lambda op: op.startswith("ATOMS")),
    ("branches and barriers", lambda op: op.startswith(("BRA", "BSSY", "BSYNC", "WARPSYNC", "CALL", "RET", "BAR", "EXIT", "YIELD"))),
]


def static_counts(args):
    """The instructions of `function` from the source stretch args.between, by kind."""
    src = read_text(args.source).splitlines()
    first, last = args.between
    try:
        lo = next(i for i, t in enumerate(src, 1) if first in t)
        hi = next(i for i, t in enumerate(src, 1) if i >= lo and last in t)
    except StopIteration:
        sys.exit("no stretch from %r to %r in %s" % (first, last, args.source))
    opcodes = {}
    table = line_table(args.nvdisasm, args.cubin, args.function, opcodes)
    inside = [off for off, chain in table.items() if any(lo <= x <= hi for x in chain or [])]
    print(
        "%s: %d SASS instructions, %d of them from lines %d-%d (%s ... %s)"
        % (args.function, len(table), len(inside), lo, hi, first, last)
    )
    by_kind = {}
    for off in inside:
        op = opcodes[off]
        kind = next((k for k, test in KINDS if test(op)), "other")
        by_kind.setdefault(kind, {}).setdefault(op, 0)
        by_kind[kind][op] += 1
    for kind, _ in KINDS + [("other", None)]:
        ops = by_kind.get(kind, {})
        detail = ", ".join("%s %d" % kv for kv in sorted(ops.items(), key=lambda kv: -kv[1])[:6])
        print("  %-28s %5d  %s" % (kind, sum(ops.values()), detail))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--csv", help="the profile's SASS page (or --between)")
    ap.add_argument("--between", nargs=2, metavar=("FIRST", "LAST"),
                    help="count the instructions of a source stretch instead (no profile)")
    ap.add_argument("--cubin", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--function", required=True)
    ap.add_argument("--nvdisasm", default=os.environ.get("NVDISASM", "nvdisasm"))
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--depth", type=int, default=3, help="levels of the inlining paths")
    args = ap.parse_args()
    if args.between:
        static_counts(args)
        return
    if not args.csv:
        ap.error("--csv or --between is needed")

    prof = profile_rows(args.csv)
    table = line_table(args.nvdisasm, args.cubin, args.function)
    src = read_text(args.source).splitlines()
    fn = functions_of(src)
    if len(prof) != len(table):
        print(
            "warning: the profile has %d instructions, the cubin's %s %d: not the profiled build?"
            % (len(prof), args.function, len(table))
        )
    tot_e = sum(p[1] for p in prof) or 1.0
    tot_s = sum(p[2] for p in prof) or 1.0
    by_line, by_fn, by_path, missing = {}, {}, {}, 0
    name = lambda ln: fn[ln] if ln < len(fn) else "(unknown)"
    for off, e, s in prof:
        chain = table.get(off) or []
        ln = chain[0] if chain else None
        if ln is None:
            missing += 1
        f = name(ln) if ln is not None else "(unknown)"
        path = []
        for x in reversed(chain):
            if not path or path[-1] != name(x):
                path.append(name(x))
        c = by_path.setdefault(" > ".join(path[1 : 1 + args.depth]) or f, [0.0, 0.0])
        c[0] += e
        c[1] += s
        a = by_line.setdefault(ln, [0.0, 0.0])
        a[0] += e
        a[1] += s
        b = by_fn.setdefault(f, [0.0, 0.0])
        b[0] += e
        b[1] += s
    print(
        "%s: %.0f warp instructions, %.0f stall samples, %d SASS lines (%d without a line)"
        % (args.function, tot_e, tot_s, len(prof), missing)
    )
    print("by function (share of instructions, of samples):")
    for f, (e, s) in sorted(by_fn.items(), key=lambda kv: -kv[1][1]):
        if e / tot_e >= 0.002 or s / tot_s >= 0.002:
            print("  %-28s %6.1f%% %6.1f%%" % (f, 100 * e / tot_e, 100 * s / tot_s))
    print("by inlining path below the kernel entry (%d levels):" % args.depth)
    for f, (e, s) in sorted(by_path.items(), key=lambda kv: -kv[1][1]):
        if e / tot_e >= 0.005 or s / tot_s >= 0.005:
            print("  %6.1f%% %6.1f%%  %s" % (100 * e / tot_e, 100 * s / tot_s, f))
    print("source lines with the most samples (line, instructions, samples, text):")
    top = sorted(by_line.items(), key=lambda kv: -kv[1][1])[: args.top]
    for ln, (e, s) in sorted(top, key=lambda kv: kv[0] or 0):
        text = src[ln - 1].strip()[:90] if ln and ln <= len(src) else ""
        print("  %5s %6.1f%% %6.1f%%  %s" % (ln, 100 * e / tot_e, 100 * s / tot_s, text))


if __name__ == "__main__":
    main()
