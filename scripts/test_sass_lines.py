#!/usr/bin/env python3
"""Tests of scripts/sass-lines.py's static count (`--between`) on a synthetic
disassembly whose counts are known by construction: a stand-in for nvdisasm
prints line-table directives and instructions in nvdisasm's `-c -gi` layout
(standard library only)."""
import argparse
import contextlib
import importlib.util
import io
import os
import stat
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("sass_lines", os.path.join(HERE, "sass-lines.py"))
sl = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sl)

# Source lines 1-9; the stretch is lines 4 (rare_step) to 7 (rare_done).
SOURCE = """__device__ double tr_bound(u32 x) {
    return 1.0;
}
    wclk.rare_step();
    double s = tr_bound(x);
    v = tr_warp_max(s);
    wclk.rare_done();
__global__ void other() {
}
"""


def directive(line, at=None):
    t = '\t//## File "/x/tailrace.cu", line %d' % line
    return t + (' inlined at "/x/tailrace.cu", line %d' % at if at else "")


def insn(off, text):
    return "        /*%04x*/                   %s ;" % (off, text)


# tr_k: two instructions before the stretch (line 2 inlined at line 1: not
# in it), four in it (two of line 5, one of line 2 inlined at line 5, one
# predicated shuffle of line 6), two after it (line 8); then another
# function whose instructions of line 5 must not count.
DISASM = "\n".join(
    [
        ".text.tr_k:",
        directive(2, 1),
        directive(1),
        insn(0x00, "IMAD.MOV.U32 R1, RZ, RZ, R2"),
        insn(0x10, "DADD R2, R2, R4"),
        directive(5),
        insn(0x20, "DMUL R4, R4, 2"),
        insn(0x30, "I2F.F64.U64 R6, R6"),
        directive(2, 5),
        directive(5),
        insn(0x40, "DFMA R2, R2, R4, R6"),
        directive(6),
        insn(0x50, "@!P0 SHFL.BFLY PT, R5, R4, 0x10, 0x1f"),
        directive(8),
        insn(0x60, "ATOMS.CAST.SPIN.64 R4, [R11], R4, R6"),
        insn(0x70, "BRA `(.L_x_1)"),
        ".text.tr_other:",
        directive(5),
        insn(0x00, "DADD R2, R2, R2"),
        insn(0x10, "DADD R2, R2, R2"),
    ]
)


class StaticCount(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        d = self.dir.name
        self.src = os.path.join(d, "tailrace.cu")
        with open(self.src, "w") as f:
            f.write(SOURCE)
        listing = os.path.join(d, "listing.txt")
        with open(listing, "w") as f:
            f.write(DISASM + "\n")
        self.tool = os.path.join(d, "nvdisasm")
        with open(self.tool, "w") as f:
            f.write("#!%s\nimport sys\nsys.stdout.write(open(%r).read())\n" % (sys.executable, listing))
        os.chmod(self.tool, os.stat(self.tool).st_mode | stat.S_IXUSR)

    def tearDown(self):
        self.dir.cleanup()

    def run_count(self, function, first="wclk.rare_step();", last="wclk.rare_done();"):
        args = argparse.Namespace(
            source=self.src, cubin="unused.cubin", function=function, nvdisasm=self.tool,
            between=[first, last],
        )
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            sl.static_counts(args)
        return out.getvalue().splitlines()

    def kind(self, lines, name):
        row = next(t for t in lines if t.strip().startswith(name))
        return int(row[len("  ") + 28 :].split()[0])

    def test_counts_the_stretch_by_kind(self):
        lines = self.run_count("tr_k")
        self.assertTrue(lines[0].startswith("tr_k: 8 SASS instructions, 4 of them from lines 4-7"), lines[0])
        self.assertEqual(self.kind(lines, "binary64"), 2)  # DMUL, DFMA
        self.assertEqual(self.kind(lines, "conversions"), 1)  # I2F.F64.U64
        self.assertEqual(self.kind(lines, "shuffles"), 1)  # the predicated SHFL
        self.assertEqual(self.kind(lines, "shared atomics"), 0)  # line 8 is past the stretch
        self.assertEqual(self.kind(lines, "branches"), 0)
        self.assertIn("DMUL 1", next(t for t in lines if t.strip().startswith("binary64")))

    def test_other_functions_do_not_count(self):
        lines = self.run_count("tr_other")
        self.assertTrue(lines[0].startswith("tr_other: 2 SASS instructions, 2 of them"), lines[0])

    def test_a_missing_marker_is_an_error(self):
        with self.assertRaises(SystemExit):
            self.run_count("tr_k", first="no such line")


if __name__ == "__main__":
    unittest.main()
