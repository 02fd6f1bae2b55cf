#!/usr/bin/env python3
"""Tests of bench/report.py (standard library only; CI runs them without a GPU).

A synthetic tailrace timing file is merged with a recorded baselines file; the
expected ratios are recomputed here from the two inputs, not copied from the
report's output.
"""

import gzip
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
BASELINES = os.path.join(HERE, "results", "2026-11-29-h200", "baselines.json")

TIMINGS = [
    {"profile": "exact", "mode": "plain", "vocab": 131072, "batch": 1024, "median_us": 200.0},
    {"profile": "f32", "mode": "plain", "vocab": 131072, "batch": 1024, "median_us": 400.0},
    {"profile": "exact", "mode": "top_k50_top_p0.9", "vocab": 131072, "batch": 1024, "median_us": 300.0},
    {"profile": "exact", "mode": "greedy", "vocab": 131072, "batch": 1024, "median_us": 100.0},
    {"profile": "exact", "mode": "greedy", "vocab": 131072, "batch": 1, "median_us": 9.0},
    {"profile": "exact", "mode": "plain", "vocab": 131072, "batch": 1, "median_us": 12.0, "graph": True},
    {"profile": "exact", "mode": "plain", "vocab": 131072, "batch": 1, "median_us": 15.0, "host_us": 2.25},
    {"profile": "exact", "mode": "plain", "vocab": 131072, "batch": 1, "median_us": 10.0, "queued": True,
     "host_ahead": True},
    {"profile": "exact", "mode": "plain", "vocab": 131072, "batch": 1024, "median_us": 190.0, "queued": True,
     "host_ahead": False},
]


def run_report(tmp, baselines=BASELINES, **extra):
    tr = os.path.join(tmp, "tailrace.json")
    with open(tr, "w") as f:
        json.dump(dict({"timings": TIMINGS, "empty_kernel_per_call_us": 4.0, "empty_kernel_queued_us": 1.5,
                        "empty_kernel_queued_host_ahead": True}, **extra), f)
    md, js = os.path.join(tmp, "report.md"), os.path.join(tmp, "report.json")
    subprocess.run([sys.executable, os.path.join(HERE, "report.py"), "--tailrace", tr, "--baselines", baselines,
                    "--out-md", md, "--out-json", js], check=True, capture_output=True)
    with open(md) as f:
        mdtext = f.read()
    with open(js) as f:
        return mdtext, json.load(f)


class ReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.md, cls.js = run_report(cls.tmp.name)
        with open(BASELINES) as f:
            cls.base = json.load(f)

    def row(self, profile, mode, vocab, batch, graph=False, queued=False):
        hits = [r for r in self.js["rows"]
                if (r["profile"], r["mode"], r["vocab"], r["batch"], r["graph"], r["queued"]) ==
                (profile, mode, vocab, batch, graph, queued)]
        self.assertEqual(len(hits), 1)
        return hits[0]

    def comparison(self, row, reference):
        hits = [c for c in row["comparisons"] if c["reference"] == reference]
        self.assertEqual(len(hits), 1, reference)
        return hits[0]

    def test_every_record_is_reported(self):
        self.assertEqual(len(self.js["rows"]), len(TIMINGS))

    def test_baseline_ratio_is_tailrace_over_baseline(self):
        b = [x for x in self.base["results"] if x["name"] == "torch_race_f32" and x["vocab"] == 131072
             and x["batch"] == 1024][0]
        ref = min(v for v in (b.get("median_us"), b.get("graph_median_us")) if v is not None)
        c = self.comparison(self.row("exact", "plain", 131072, 1024), "torch_race_f32")
        self.assertAlmostEqual(c["ref_us"], ref)
        self.assertAlmostEqual(c["ratio"], 200.0 / ref)
        self.assertAlmostEqual(c["speedup"], ref / 200.0)

    def test_memory_floor_is_bytes_over_bandwidth(self):
        bw = self.base["copy_bandwidth"]["bytes_per_s"]
        floor_us = 131072 * 1024 * 2 / bw * 1e6  # bf16 logits read once
        c = self.comparison(self.row("exact", "plain", 131072, 1024), "memory floor")
        self.assertAlmostEqual(c["ref_us"], floor_us)
        self.assertAlmostEqual(c["ratio"], 200.0 / floor_us)

    def test_philox_floor_counts_a_quarter_call_per_element_for_exact(self):
        sms = int(self.base["meta"]["sm_count"])
        ghz = float(self.base["meta"]["clock_max_sm_mhz"]) / 1000.0
        expect = 131072 * 1024 * 0.125 * 98 / (sms * 128 * ghz * 1e9) * 1e6
        c = self.comparison(self.row("exact", "plain", 131072, 1024), "Philox floor")
        self.assertAlmostEqual(c["ref_us"], expect)
        # Greedy draws no noise and the filter modes only their survivors':
        # no per-element Philox floor for them.
        for mode in ("greedy", "top_k50_top_p0.9"):
            r = self.row("exact", mode, 131072, 1024)
            self.assertFalse([c for c in r["comparisons"] if c["reference"] == "Philox floor"], mode)

    def test_flashinfer_figures_are_marked_as_recorded_elsewhere(self):
        c = [c for c in self.row("exact", "plain", 131072, 1024)["comparisons"]
             if c["reference"].startswith("flashinfer")][0]
        self.assertEqual(c["kind"], "recorded elsewhere")
        self.assertAlmostEqual(c["ref_us"], 667.2)
        self.assertIn("not measured in this run", self.md.replace("**", "").lower())

    def test_compact_tables(self):
        # exact / f32 for plain at (131072, 1024): 200 / 400.
        self.assertIn("| plain | 131072 | 1024 | 200 | 400 | 0.50 |", self.md)
        # Each mode against plain: top-k + top-p 300 / 200, greedy 100 / 200.
        line = [l for l in self.md.splitlines() if l.startswith("| 131072 | 1024 | 200 |")]
        self.assertEqual(len(line), 1)
        self.assertIn("300 (1.50)", line[0])
        self.assertIn("100 (0.50)", line[0])

    def test_graph_records_are_kept_apart(self):
        r = self.row("exact", "plain", 131072, 1, graph=True)
        self.assertEqual(r["median_us"], 12.0)
        self.assertIn("12.0 (graph)", self.md)

    def test_queued_records_are_kept_apart_and_compared(self):
        q = self.row("exact", "plain", 131072, 1, queued=True)
        self.assertEqual(q["median_us"], 10.0)
        # The per-call table keeps the per-call time: exact / f32 at B = 1024 stays 200 / 400.
        self.assertIn("| plain | 131072 | 1024 | 200 | 400 | 0.50 |", self.md)
        # Per call and queued side by side: 10 / 15 at B = 1, 190 / 200 at B = 1024 with the host behind.
        # The host's time in the call where the record has it, "-" where it has none.
        self.assertIn("| exact | plain | 131072 | 1 | 15.0 | 10.0 | 0.67 | 2.25 |", self.md)
        self.assertIn("| exact | plain | 131072 | 1024 | 200 | 190 (host behind) | 0.95 | - |", self.md)
        self.assertIn("An empty kernel over the device, timed the same way: 4.00 per call, 1.50 queued.", self.md)
        self.assertIn("10.0 (queued) | memory floor", self.md)
        self.assertIn("190 (queued, host behind) | memory floor", self.md)
        # A queued record is compared with the baselines like the others.
        b = [x for x in self.base["results"] if x["name"] == "torch_race_f32" and x["vocab"] == 131072
             and x["batch"] == 1024][0]
        ref = min(v for v in (b.get("median_us"), b.get("graph_median_us")) if v is not None)
        c = self.comparison(self.row("exact", "plain", 131072, 1024, queued=True), "torch_race_f32")
        self.assertAlmostEqual(c["ratio"], 190.0 / ref)


class IncompleteBaselinesTest(unittest.TestCase):
    def test_an_incomplete_baselines_file_is_flagged(self):
        with open(BASELINES) as f:
            base = json.load(f)
        base["complete"] = False
        base["results"] = [r for r in base["results"] if r.get("vocab") != 131072 or r.get("batch") != 1024]
        with tempfile.TemporaryDirectory() as tmp:
            bp = os.path.join(tmp, "baselines.json")
            with open(bp, "w") as f:
                json.dump(base, f)
            text, doc = run_report(tmp, bp)
        self.assertIn("the baselines file is incomplete", text)
        self.assertTrue(any("incomplete" in w for w in doc["warnings"]))
        # The configuration it lacks keeps its floors, with no baseline.
        row = [r for r in doc["rows"] if (r["profile"], r["mode"], r["vocab"], r["batch"], r["graph"],
                                          r["queued"]) == ("exact", "plain", 131072, 1024, False, False)][0]
        kinds = {c["kind"] for c in row["comparisons"]}
        self.assertIn("floor", kinds)
        self.assertFalse(any(k.startswith("baseline") for k in kinds))


class TargetsTest(unittest.TestCase):
    """bench/targets.py on the report above: each value recomputed here from the inputs."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        run_report(cls.tmp.name)
        cls.js = os.path.join(cls.tmp.name, "report.json")
        with open(BASELINES) as f:
            cls.base = json.load(f)

    def targets(self, timing):
        out = subprocess.run([sys.executable, os.path.join(HERE, "targets.py"), self.js, "--timing", timing,
                              "--json"], check=True, capture_output=True, text=True).stdout
        return {t["target"]: t for t in json.loads(out)["timings"][timing]}

    def test_an_archived_report_is_read_from_its_gzipped_copy(self):
        with tempfile.TemporaryDirectory() as tmp:
            js = os.path.join(tmp, "report.json")
            with open(self.js, "rb") as src, gzip.open(js + ".gz", "wb") as dst:
                dst.write(src.read())
            self.assertFalse(os.path.exists(js))
            args = ["--timing", "per-call", "--json"]
            plain = subprocess.run([sys.executable, os.path.join(HERE, "targets.py"), self.js] + args,
                                   check=True, capture_output=True, text=True).stdout
            gz = subprocess.run([sys.executable, os.path.join(HERE, "targets.py"), js] + args,
                                check=True, capture_output=True, text=True).stdout
            doc_gz, doc = json.loads(gz), json.loads(plain)
            self.assertEqual(doc_gz.pop("report"), js)
            doc.pop("report")
            self.assertEqual(doc_gz, doc)
            self.assertTrue(doc_gz["timings"]["per-call"])
            missing = subprocess.run([sys.executable, os.path.join(HERE, "targets.py"),
                                      os.path.join(tmp, "absent.json")] + args, capture_output=True, text=True)
            self.assertNotEqual(missing.returncode, 0)

    def test_per_call_targets(self):
        t = self.targets("per-call")
        bw = self.base["copy_bandwidth"]["bytes_per_s"]
        floor_us = 131072 * 1024 * 2 / bw * 1e6
        mem = t["exact plain <= 2x memory floor, B >= 256"]
        self.assertEqual([v["batch"] for v in mem["values"]], [1024])
        self.assertAlmostEqual(mem["values"][0]["value"], 200.0 / floor_us)
        self.assertEqual(mem["verdict"], "met" if 200.0 / floor_us <= 2 else "missed")
        b1 = t["exact plain <= 12 us at B = 1"]
        self.assertEqual(b1["values"], [{"batch": 1, "value": 15.0}])
        self.assertEqual(b1["verdict"], "missed")
        self.assertEqual(b1["graph_replay_us"], 12.0)
        fi = t[">= 7x FlashInfer sampling_from_logits at B = 1, >= 5x at B = 1024"]
        self.assertEqual([(v["batch"], round(v["value"], 6)) for v in fi["values"]],
                         [(1, round(88.4 / 15.0, 6)), (1024, round(667.2 / 200.0, 6))])
        self.assertEqual(fi["verdict"], "missed")
        self.assertEqual(t["exact <= 1.15x f32"]["verdict"], "met")
        self.assertAlmostEqual(t["exact <= 1.15x f32"]["values"][0]["value"], 0.5)
        tkp = t["top-k 50 + top-p 0.9 <= 2x plain"]
        self.assertEqual(tkp["values"], [{"batch": 1024, "value": 1.5}])
        self.assertEqual(tkp["verdict"], "met")
        fk = t["top-k 50 + top-p 0.9 >= 3x FlashInfer"]
        self.assertAlmostEqual(fk["values"][0]["value"], 714.2 / 300.0)
        self.assertEqual(fk["verdict"], "missed")
        # No top-p record in the input: the target says so rather than passing.
        self.assertEqual(t["top-p 0.9 <= 3x plain"]["verdict"], "no records")
        arg = [x for x in self.base["results"] if x["name"] == "torch_argmax" and x["vocab"] == 131072
               and x["batch"] == 1024][0]
        ref = min(v for v in (arg.get("median_us"), arg.get("graph_median_us")) if v is not None)
        g = t["greedy within 1.2x torch.argmax"]
        self.assertEqual([v["batch"] for v in g["values"]], [1, 1024])
        self.assertAlmostEqual(g["values"][1]["value"], 100.0 / ref)
        oks = [9.0 / self.best("torch_argmax", 1) <= 1.2, 100.0 / ref <= 1.2]
        self.assertEqual(g["verdict"], {(True, True): "met", (False, False): "missed",
                                        (True, False): "met at B = 1; missed at B = 1024",
                                        (False, True): "met at B = 1024; missed at B = 1"}[tuple(oks)])

    def test_targets_tied_to_the_h200_get_no_verdict_on_another_gpu(self):
        with open(BASELINES) as f:
            doc = json.load(f)
        for gpu in ("NVIDIA H100 80GB HBM3", None):
            with tempfile.TemporaryDirectory() as tmp:
                if gpu is None:
                    doc["meta"].pop("gpu", None)
                else:
                    doc["meta"]["gpu"] = gpu
                bl = os.path.join(tmp, "baselines.json")
                with open(bl, "w") as f:
                    json.dump(doc, f)
                md, rep = run_report(tmp, baselines=bl)
                self.assertTrue(any("FlashInfer figures on an H200" in w for w in rep["warnings"]), gpu)
                fic = [c for r in rep["rows"] for c in r["comparisons"] if c["reference"].startswith("flashinfer")]
                self.assertTrue(fic)
                self.assertTrue(all(c["kind"] == "recorded elsewhere, on another GPU (H200)" for c in fic))
                self.assertIn("not an H200", md)
                out = subprocess.run([sys.executable, os.path.join(HERE, "targets.py"),
                                      os.path.join(tmp, "report.json"), "--timing", "per-call", "--json"],
                                     check=True, capture_output=True, text=True).stdout
                doc_t = json.loads(out)
                self.assertEqual(doc_t["gpu"], gpu)
                t = {x["target"]: x for x in doc_t["timings"]["per-call"]}
                here = self.targets("per-call")
                for name in ("exact plain <= 12 us at B = 1",
                             ">= 7x FlashInfer sampling_from_logits at B = 1, >= 5x at B = 1024",
                             "top-k 50 + top-p 0.9 >= 3x FlashInfer"):
                    self.assertTrue(t[name]["verdict"].startswith("not judged: measured on "), name)
                    self.assertNotIn("needs", t[name])
                    # The values are still shown: the same as on the H200's report.
                    self.assertEqual(t[name]["values"], here[name]["values"], name)
                # Targets against the run's own times keep their verdicts.
                for name in ("exact plain <= 2x memory floor, B >= 256", "exact <= 1.15x f32",
                             "greedy within 1.2x torch.argmax", "top-k 50 + top-p 0.9 <= 2x plain"):
                    self.assertEqual(t[name]["verdict"], here[name]["verdict"], name)
                    self.assertFalse(t[name]["verdict"].startswith("not judged"), name)
        # On the H200's own report nothing is left unjudged.
        self.assertFalse([x for x in self.targets("per-call").values() if x["verdict"].startswith("not judged")])

    def best(self, name, batch):
        x = [x for x in self.base["results"] if x["name"] == name and x["vocab"] == 131072 and x["batch"] == batch][0]
        return min(v for v in (x.get("median_us"), x.get("graph_median_us")) if v is not None)

    def test_a_missed_target_says_what_it_needs_next_to_the_bounds_of_its_batch_size(self):
        t = self.targets("per-call")
        # Plain B = 1 per call is 15 us against 12: needs 12, next to greedy B = 1 (9 us), torch.argmax at
        # B = 1 from the baselines file and the empty kernel's per-call time.
        self.assertEqual(t["exact plain <= 12 us at B = 1"]["needs"],
                         [{"batch": 1, "needs_us": 12.0, "greedy_us": 9.0,
                           "torch_argmax_us": self.best("torch_argmax", 1), "empty_kernel_us": 4.0}])
        fi = t[">= 7x FlashInfer sampling_from_logits at B = 1, >= 5x at B = 1024"]["needs"]
        self.assertEqual([n["batch"] for n in fi], [1, 1024])
        self.assertAlmostEqual(fi[0]["needs_us"], 88.4 / 7.0)
        self.assertAlmostEqual(fi[1]["needs_us"], 667.2 / 5.0)
        self.assertEqual(fi[1]["greedy_us"], 100.0)
        tr = {n["batch"]: n for n in t[">= 10x torch's float32 race"].get("needs", [])}
        for b, us in [(1, 15.0), (1024, 200.0)]:
            race = self.best("torch_race_f32", b)
            if race / us >= 10.0:
                self.assertNotIn(b, tr)
            else:
                self.assertAlmostEqual(tr[b]["needs_us"], race / 10.0)
        # A met target has no needs.
        self.assertNotIn("needs", t["exact <= 1.15x f32"])
        self.assertNotIn("needs", t["top-k 50 + top-p 0.9 <= 2x plain"])
        # Queued tables take the queued empty kernel.
        q = self.targets("queued")
        self.assertEqual(q[">= 7x FlashInfer sampling_from_logits at B = 1, >= 5x at B = 1024"]["needs"][0][
            "empty_kernel_us"], 1.5)

    def test_a_queued_empty_kernel_timed_with_the_host_behind_is_left_out(self):
        with tempfile.TemporaryDirectory() as tmp:
            run_report(tmp, empty_kernel_queued_host_ahead=False)
            out = subprocess.run([sys.executable, os.path.join(HERE, "targets.py"), os.path.join(tmp, "report.json"),
                                  "--timing", "both", "--json"], check=True, capture_output=True, text=True).stdout
        doc = json.loads(out)["timings"]
        name = ">= 7x FlashInfer sampling_from_logits at B = 1, >= 5x at B = 1024"
        q = {t["target"]: t for t in doc["queued"]}[name]
        p = {t["target"]: t for t in doc["per-call"]}[name]
        self.assertIsNone(q["needs"][0]["empty_kernel_us"])
        self.assertEqual(p["needs"][0]["empty_kernel_us"], 4.0)

    def test_the_markdown_table_marks_a_need_below_a_one_pass_reduction(self):
        out = subprocess.run([sys.executable, os.path.join(HERE, "targets.py"), self.js, "--timing", "per-call"],
                             check=True, capture_output=True, text=True).stdout
        line = [x for x in out.splitlines() if x.startswith("| exact plain <= 12 us at B = 1 |")][0]
        argmax = self.best("torch_argmax", 1)
        mark = ", below both" if 12.0 < min(9.0, argmax) else ""
        self.assertTrue(line.endswith("| B = 1: <= 12.0 us%s (9.0, %.1f, 4.0) |" % (mark, argmax)), line)

    def test_queued_targets_read_the_queued_records(self):
        t = self.targets("queued")
        self.assertEqual(t["exact plain <= 12 us at B = 1"]["values"], [{"batch": 1, "value": 10.0}])
        self.assertEqual(t["exact plain <= 12 us at B = 1"]["verdict"], "met")
        fi = t[">= 7x FlashInfer sampling_from_logits at B = 1, >= 5x at B = 1024"]
        self.assertEqual([v["batch"] for v in fi["values"]], [1, 1024])
        self.assertAlmostEqual(fi["values"][1]["value"], 667.2 / 190.0)
        self.assertEqual(fi["verdict"], "met at B = 1; missed at B = 1024")
        # The queued records hold no f32 or filter-mode record.
        self.assertEqual(t["exact <= 1.15x f32"]["verdict"], "no records")
        self.assertEqual(t["top-k 50 + top-p 0.9 <= 2x plain"]["verdict"], "no records")

    def kernel_time(self, durations_ns, target="exact plain <= 12 us of kernel time at B = 1 (Nsight Compute)"):
        """The kernel-time target from a synthetic Nsight Compute raw CSV."""
        path = os.path.join(self.tmp.name, "ncu.csv")
        with open(path, "w") as f:
            f.write('==PROF== Connected to process 1\n')
            f.write('"ID","Kernel Name","gpu__time_duration.sum","smsp__inst_executed.sum"\n')
            f.write('"","","ns","inst"\n')
            for i, d in enumerate(durations_ns):
                f.write('"%d","tr_fast_bf16","%s","569,633"\n' % (i, "{:,}".format(d)))
        out = subprocess.run([sys.executable, os.path.join(HERE, "targets.py"), self.js, "--timing", "per-call",
                              "--json", "--kernel-time", path], check=True, capture_output=True, text=True).stdout
        return {t["target"]: t for t in json.loads(out)["timings"]["per-call"]}[target]

    def test_kernel_time_is_the_median_after_the_first_repetition(self):
        # Repetitions 2 to 5: 10.24, 12.8, 10.6, 11.0 us; median (10.6 + 11.0) / 2.
        k = self.kernel_time([13500, 10240, 12800, 10600, 11000])
        self.assertAlmostEqual(k["values"][0]["value"], 10.8)
        self.assertEqual(k["verdict"], "met")
        k = self.kernel_time([11000, 12500, 12100, 11900])
        self.assertAlmostEqual(k["values"][0]["value"], 12.1)
        self.assertEqual(k["verdict"], "missed")
        self.assertTrue(self.kernel_time([9000])["verdict"].startswith("no records"))

    def test_flashinfer_kernel_time_is_set_against_the_kernel_time(self):
        name = ">= 7x FlashInfer sampling_from_logits at B = 1, kernel time against its kernel time"
        k = self.kernel_time([13500, 10240, 12800, 10600, 11000], name)
        self.assertAlmostEqual(k["values"][0]["value"], 88.4 / 10.8)
        self.assertEqual(k["verdict"], "met" if 88.4 / 10.8 >= 7 else "missed")
        k = self.kernel_time([13500, 13000, 13000], name)
        self.assertAlmostEqual(k["values"][0]["value"], 88.4 / 13.0)
        self.assertEqual(k["verdict"], "missed")
        self.assertTrue(self.kernel_time([9000], name)["verdict"].startswith("no records"))


if __name__ == "__main__":
    unittest.main()
