#!/usr/bin/env bash
# Run 47, call F (the check binary of call B, d0d9b46): Nsight's source view
# of the generic pass kernel, f32 profile plain B = 1024: stall samples and
# executed instructions by SASS line, the 45 lines with the most samples.
set -u
mkdir -p target/release && cp target/strip-check/* target/release/
. scripts/device-env.sh
args=(grid --vocab 131072 --batch 1024 --profile f32 --mode plain)
timeout 150 ncu --clock-control none -k regex:tr_pass_bf16 --launch-skip 3 --launch-count 1 \
  --section SourceCounters --import-source no --page source --print-source sass --csv \
  "$BIN" "${args[@]}" > "$OUT/src-f32-b1024.csv" 2>&1
python3 - "$OUT/src-f32-b1024.csv" <<'PY' > "$OUT/src-f32-b1024-top.txt"
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1], errors="replace")) if r]
hdr = next((i for i, r in enumerate(rows) if "Source" in r and any("Sampling" in c for c in r)), None)
if hdr is None:
    print("no source table"); print("\n".join(",".join(r) for r in rows[:15])); sys.exit(0)
h = rows[hdr]; idx = {n: i for i, n in enumerate(h)}
sc = next(n for n in h if n.startswith("Warp Stall Sampling (All"))
ex = next((n for n in h if n.startswith("Instructions Executed")), None)
data = []
for r in rows[hdr + 1:]:
    if len(r) < len(h): continue
    try: s = float(r[idx[sc]].replace(",", ""))
    except ValueError: continue
    data.append((s, r[idx["Address"]] if "Address" in idx else "", r[idx["Source"]], r[idx[ex]] if ex else ""))
tot = sum(d[0] for d in data) or 1
print("total stall samples", tot, "lines", len(data))
for s, a, src, e in sorted(data, reverse=True)[:45]:
    print("%6.2f%%  %s  %-60s exec %s" % (100 * s / tot, a, src[:60], e))
PY
head -50 "$OUT/src-f32-b1024-top.txt"
gzip -f "$OUT/src-f32-b1024.csv"
