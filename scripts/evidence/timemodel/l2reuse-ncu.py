#!/usr/bin/env python3
"""l2reuse-ncu.py NCU_CSV L2REUSE_CSV: append l2reuse.cu's l2reuse_dram rows.

ncu --csv --metrics dram__bytes_read.sum,... l2reuse once prints one row per
launch and metric; the launches come in l2reuse.csv's row order (stream_ms,
then each gather_ms X). Each launch's dram__bytes_read.sum becomes a row
`l2reuse_dram,X_MB,bytes,B,ncu dram__bytes_read.sum` (the stream as X 0).
"""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ncucsv  # noqa: E402

ncu, out = sys.argv[1], sys.argv[2]
xs = [r[1] for r in csv.reader(open(out)) if r and r[0] in ("stream_ms", "gather_ms")]
dram = ncucsv.metric_by_id(ncu, "dram__bytes_read.sum")
if sorted(dram) != list(range(len(xs))):
    sys.exit(f"l2reuse-ncu: {len(dram)} launches in {ncu}, {len(xs)} rows in {out}")
with open(out, "a") as f:
    for i, x in enumerate(xs):
        f.write(f"l2reuse_dram,{x},{dram[i]:.0f},B,ncu dram__bytes_read.sum of one launch (caches flushed)\n")
