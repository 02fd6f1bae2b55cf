#!/usr/bin/env python3
"""Compares two builds' kernels by their SASS: each kernel's text section
of an nvdisasm dump (`nvdisasm -c`, e.g. scripts/sass-local.sh's or
target/nvdisasm's on a cubin from `tailrace-cuda-check cubin`), with the
branch labels (`.L_x_N`, numbered across the whole file) renumbered within
the section, so that a kernel compiled to the same code compares equal
whatever else the file holds. Prints one line a kernel and exits 1 where a
kernel of --same differs or is missing.

    python3 scripts/sass-kernels.py A.sass B.sass [--same REGEX]

--same (default: every kernel) names the kernels that must be equal; the
others are listed with their verdict only. Run 59 used it to show that
TR_FUSED_PILOT_X2=3's bf16 kernels are =1's and its f32/f16 kernels =2's.
(Standard library only.)"""
import argparse
import re
import sys

SECTION = re.compile(r"\s*\.section\s+\.text\.([A-Za-z0-9_$]+),")
LABEL = re.compile(r"\.L_x_\d+")


def kernels(text):
    """{kernel: its section's text with labels renumbered in order of use}."""
    raw, cur = {}, None
    for line in text.splitlines(keepends=True):
        m = SECTION.match(line)
        if m:
            cur = m.group(1)
            raw[cur] = []
            continue
        if line.lstrip().startswith(".section"):
            cur = None
            continue
        if cur is not None:
            raw[cur].append(line)
    out = {}
    for name, lines in raw.items():
        seen = {}
        out[name] = LABEL.sub(
            lambda m: ".L%d" % seen.setdefault(m.group(0), len(seen)), "".join(lines)
        )
    return out


def compare(a, b, same):
    """Lines of the report and whether every kernel matching `same` is equal."""
    ok, lines = True, []
    for name in sorted(set(a) | set(b)):
        if name not in a or name not in b:
            verdict = "only in " + ("A" if name in a else "B")
        else:
            verdict = "same" if a[name] == b[name] else "differs"
        must = same.search(name) is not None
        if must and verdict != "same":
            ok = False
        lines.append("%-32s %s%s" % (name, verdict, "" if must else " (not required)"))
    return lines, ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--same", default="", help="regex of the kernels that must be equal")
    args = ap.parse_args()
    with open(args.a) as fa, open(args.b) as fb:
        lines, ok = compare(kernels(fa.read()), kernels(fb.read()), re.compile(args.same))
    print("\n".join(lines))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
