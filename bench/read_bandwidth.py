"""Read bandwidth of a plain torch reduction on the GPU machine, for the
memory floor: torch.amax over a row-major bf16 [B, V] tensor reads every
logit once and writes B values, as tailrace's first pass does. Each shape
is timed with CUDA events (10 warm-up calls, median of 50), on a pool of
tensors larger than L2, rotated, so every call reads from DRAM.

usage: python3 bench/read_bandwidth.py [--out read_bandwidth.json]
"""

import argparse
import json
import statistics

import torch

SHAPES = [(256, 131072), (1024, 131072), (1024, 262144)]
POOL_BYTES = 2 << 30


def time_amax(rows: int, vocab: int) -> dict:
    nbytes = rows * vocab * 2
    count = max(2, POOL_BYTES // nbytes)
    pool = [torch.randn(rows, vocab, device="cuda", dtype=torch.bfloat16) for _ in range(count)]
    for i in range(10):
        torch.amax(pool[i % count], dim=1)
    times = []
    for i in range(50):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        x = pool[i % count]
        start.record()
        torch.amax(x, dim=1)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3)
    med = statistics.median(times)
    return {"rows": rows, "vocab": vocab, "bytes": nbytes, "median_us": med,
            "read_tb_per_s": nbytes / med / 1e6}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="read_bandwidth.json")
    args = ap.parse_args()
    res = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
           "amax": [time_amax(r, v) for r, v in SHAPES]}
    for r in res["amax"]:
        print(f"torch.amax bf16 [{r['rows']}, {r['vocab']}]: {r['median_us']:.1f} us, "
              f"{r['read_tb_per_s']:.2f} TB/s read")
    with open(args.out, "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
