#!/usr/bin/env python3
"""Tests of scripts/warp-clock.py on synthetic `tr_warp` lines whose
figures are known by construction (standard library only)."""
import importlib.util
import os
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("warp_clock", os.path.join(HERE, "warp-clock.py"))
wc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(wc)

GHZ = 2.0  # 2,000 cycles = 1 us


def line(block, warp, sm, loop, total, g0, g1, steps, rare, queued, final_q, rare_cyc, raises, raise_cyc):
    return (f"tr_warp {block} {warp} {sm} {loop} {total} {g0} {g1} {steps} {rare} {queued} {final_q} "
            f"{rare_cyc} {raises} {raise_cyc}")


def launch(t0, rare_of):
    """Two blocks of four warps on two SMs; a warp's loop is 20,000 cycles
    plus 3,000 a rare step and 100 a queued entry; blocks end 1 us after
    their slowest loop."""
    out = []
    for b in range(2):
        ws = []
        for w in range(4):
            rare = rare_of(b, w)
            queued = 2 * rare + w
            loop = 20000 + 3000 * rare + 100 * queued
            ws.append((w, rare, queued, loop))
        slowest = max(l for _, _, _, l in ws)
        g0 = t0 + 1000 * b
        g1 = g0 + slowest // 2 + 1000  # cycles / 2 GHz = ns
        for w, rare, queued, loop in ws:
            out.append(line(b, w, 10 + b, loop, slowest + 2000, g0, g1, 64, rare, queued, 1,
                            2500 * rare, rare + 1, 150 * (rare + 1)))
    return out


class WarpClock(unittest.TestCase):
    def setUp(self):
        rare = lambda b, w: (b * 4 + w) % 3
        self.lines = ["[ 0.1s] checked build", "tr_warp 1 2 3"] + launch(0, rare) + launch(10**6, rare)
        self.launches = list(wc.launches(self.lines))

    def test_launches_split_where_a_warp_repeats_and_other_lines_are_ignored(self):
        self.assertEqual([len(l) for l in self.launches], [8, 8])

    def test_known_figures(self):
        d = wc.stats(self.launches[1], GHZ)
        self.assertEqual((d["warps"], d["blocks"], d["steps"]), (8, 2, 64))
        rares = [(b * 4 + w) % 3 for b in range(2) for w in range(4)]
        self.assertAlmostEqual(d["rare_mean"], sum(rares) / 8)
        self.assertEqual(d["cycles_per_rare"], 2500)
        self.assertAlmostEqual(d["cycles_per_raise"], 150)
        self.assertAlmostEqual(d["raises_mean"], sum(r + 1 for r in rares) / 8)
        # The fit recovers the construction: steps are constant, so it fits
        # the intercept, the rare steps and the queued entries only.
        self.assertEqual(sorted(d["fit"]), ["intercept", "queued", "rare"])
        self.assertAlmostEqual(d["fit"]["intercept"], 20000, places=3)
        self.assertAlmostEqual(d["fit"]["rare"], 3000, places=3)
        self.assertAlmostEqual(d["fit"]["queued"], 100, places=3)
        # Barrier share: sum over warps of (block's slowest loop - own loop)
        # over the slowest loop times the warps; after the loop, each warp
        # waits for its block's slowest loop and takes 2,000 cycles more.
        wait = busy = 0
        after, ends = [], []
        for b in range(2):
            loops = [20000 + 3000 * r + 100 * (2 * r + w) for w, r in
                     ((w, (b * 4 + w) % 3) for w in range(4))]
            wait += sum(max(loops) - l for l in loops)
            busy += 4 * max(loops)
            after += [max(loops) + 2000 - l for l in loops]
            ends.append(1000 * b + max(loops) // 2 + 1000)  # ns after the launch's first start
        self.assertAlmostEqual(d["barrier_share"], 100.0 * wait / busy)
        after.sort()
        self.assertAlmostEqual(d["after_loop_us"][0], (after[3] + after[4]) / 2 / GHZ / 1000)
        self.assertAlmostEqual(d["after_loop_us"][1], after[-1] / GHZ / 1000)
        self.assertAlmostEqual(d["last_end_us"], max(ends) / 1e3)
        self.assertAlmostEqual(d["last_start_us"], 1.0 if ends[1] > ends[0] else 0.0)
        self.assertEqual(d["per_sm"][1][0], 2)  # two SMs with one block each
        self.assertEqual(sum(n for n, _ in d["loop_by_rare"].values()), 8)

    def test_lines_without_cycle_sums(self):
        short = [" ".join(l.split()[:12]) for l in launch(0, lambda b, w: w % 2)]
        (rows,) = list(wc.launches(short))
        d = wc.stats(rows, GHZ)
        self.assertEqual(d["warps"], 8)
        self.assertIsNone(d["cycles_per_rare"])
        self.assertAlmostEqual(d["fit"]["rare"], 3000, places=3)

    def test_summary_prints(self):
        import contextlib
        import io
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            wc.summarize(self.launches[1], GHZ)
        text = buf.getvalue()
        self.assertIn("2500 cycles a rare step", text)
        self.assertIn("3000.0 a rare step", text)


if __name__ == "__main__":
    unittest.main()
