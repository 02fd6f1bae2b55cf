"""numpy's exponential race on one CPU core, the CPU model's baseline.

Per row: softmax of float32 (or float64) logits, standard exponential noise,
argmax(p / E) -- what a numpy user writes. Prints ms per row and JSON.

  OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python3 bench/numpy_race.py --vocab 131072 --rows 64
"""
import argparse, json, os, platform, statistics, time

import numpy as np


def race(logits, rng, dtype):
    x = logits.astype(dtype, copy=False)
    m = x.max()
    p = np.exp(x - m)
    p /= p.sum()
    e = rng.standard_exponential(x.shape[0], dtype=dtype)
    return int(np.argmax(p / e))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vocab", type=int, default=131072)
    ap.add_argument("--rows", type=int, default=64)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--out")
    a = ap.parse_args()
    rng = np.random.default_rng(1)
    logits = (rng.standard_normal((a.rows, a.vocab)) * 2.0).astype(np.float32)
    res = {"vocab": a.vocab, "rows": a.rows, "numpy": np.__version__, "cpu": platform.processor() or platform.machine(),
           "threads_env": os.environ.get("OMP_NUM_THREADS")}
    for name, dt in [("float32", np.float32), ("float64", np.float64)]:
        times = []
        for _ in range(a.reps):
            t0 = time.perf_counter()
            for r in range(a.rows):
                race(logits[r], rng, dt)
            times.append((time.perf_counter() - t0) / a.rows * 1e3)
        res[name + "_ms_per_row"] = statistics.median(times)
        print(f"numpy race {name}: {res[name + '_ms_per_row']:.3f} ms/row (V={a.vocab}, one thread)")
    if a.out:
        with open(a.out, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
