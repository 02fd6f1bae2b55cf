#!/usr/bin/env python3
"""Tests of bench/compare_grids.py (standard library only; CI runs them).

Two synthetic grids a side; the expected means and ratios are computed here
from the inputs, not copied from the script's output.
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare_grids  # noqa: E402


def rec(mode, batch, us, **kw):
    r = {"profile": "exact", "mode": mode, "vocab": 131072, "batch": batch, "dtype": "bf16", "median_us": us}
    r.update(kw)
    return r


BASE = [
    [rec("plain", 1, 14.0), rec("plain", 1, 12.0, queued=True), rec("plain", 1, 11.0, graph=True),
     rec("greedy", 8, 9.0), rec("plain", 1024, 120.0, profile="f32")],
    [rec("plain", 1, 16.0), rec("plain", 1, 12.4, queued=True), rec("plain", 1, 11.4, graph=True),
     rec("greedy", 8, 9.2), rec("plain", 1024, 122.0, profile="f32")],
]
NEW = [
    [rec("plain", 1, 13.0), rec("plain", 1, 11.0, queued=True), rec("plain", 1, 10.0, graph=True),
     rec("greedy", 8, 9.3), rec("top_p0.9", 8, 50.0), rec("plain", 1024, 100.0, profile="f32")],
    [rec("plain", 1, 14.0), rec("plain", 1, 11.4, queued=True), rec("plain", 1, 10.4, graph=True),
     rec("greedy", 8, 9.1), rec("top_p0.9", 8, 51.0), rec("plain", 1024, 101.0, profile="f32")],
]


class CompareGrids(unittest.TestCase):
    def write(self, tmp, name, timings):
        p = os.path.join(tmp, name)
        with open(p, "w") as f:
            json.dump({"timings": timings}, f)
        return p

    def test_means_ratios_and_filters(self):
        with tempfile.TemporaryDirectory() as tmp:
            base = [self.write(tmp, f"b{i}.json", t) for i, t in enumerate(BASE)]
            new = [self.write(tmp, f"n{i}.json", t) for i, t in enumerate(NEW)]
            out_js, out_md = os.path.join(tmp, "ab.json"), os.path.join(tmp, "ab.md")
            subprocess.run([sys.executable, os.path.join(HERE, "compare_grids.py"), "--base", *base,
                            "--new", *new, "--profile", "exact", "--out-json", out_js, "--out-md", out_md],
                           check=True, capture_output=True)
            with open(out_js) as f:
                d = json.load(f)
            rows = {(r["mode"], r["batch"], r["kind"]): r for r in d["rows"]}
            # The f32 record is filtered out; top-p is on one side only.
            self.assertEqual(set(rows), {("plain", 1, "call"), ("plain", 1, "queued"), ("plain", 1, "graph"),
                                         ("greedy", 8, "call")})
            self.assertIn(["exact", "top_p0.9", 131072, 8, "bf16", "call"], d["one_side_only"])
            call = rows[("plain", 1, "call")]
            self.assertAlmostEqual(call["base_mean_us"], (14.0 + 16.0) / 2)
            self.assertAlmostEqual(call["new_mean_us"], (13.0 + 14.0) / 2)
            self.assertAlmostEqual(call["ratio"], 13.5 / 15.0)
            self.assertAlmostEqual(rows[("plain", 1, "queued")]["ratio"], 11.2 / 12.2)
            self.assertAlmostEqual(rows[("greedy", 8, "call")]["ratio"], 9.2 / 9.1)
            s = d["summary"]["call"]
            self.assertEqual(s["records"], 2)
            self.assertAlmostEqual(s["mean_ratio"], (13.5 / 15.0 + 9.2 / 9.1) / 2)
            self.assertAlmostEqual(s["max_ratio"], 9.2 / 9.1)
            with open(out_md) as f:
                md = f.read()
            self.assertIn("| exact | plain | 131072 | 1 | bf16 | call | 14.0 16.0 | 13.0 14.0 | 0.900 |", md)

    def test_duplicate_records_are_an_error(self):
        with tempfile.TemporaryDirectory() as tmp:
            p = self.write(tmp, "dup.json", [rec("plain", 1, 1.0), rec("plain", 1, 2.0)])
            with self.assertRaises(ValueError):
                compare_grids.load([p])

    def test_no_common_record_fails(self):
        with tempfile.TemporaryDirectory() as tmp:
            a = self.write(tmp, "a.json", [rec("plain", 1, 1.0)])
            b = self.write(tmp, "b.json", [rec("plain", 8, 1.0)])
            r = subprocess.run([sys.executable, os.path.join(HERE, "compare_grids.py"), "--base", a, "--new", b],
                               capture_output=True)
            self.assertEqual(r.returncode, 1)


if __name__ == "__main__":
    unittest.main()
