#!/usr/bin/env python3
"""l2reuse-ncu.py NCU_CSV L2REUSE_CSV: append l2reuse.cu's l2reuse_dram rows.

ncu --csv --metrics dram__bytes_read.sum,... l2reuse once prints one row per
launch and metric; the launches come in l2reuse.csv's row order (stream_ms,
then each gather_ms X). Each launch's dram__bytes_read.sum becomes a row
`l2reuse_dram,X_MB,bytes,B,ncu dram__bytes_read.sum` (the stream as X 0).
"""
import csv
import sys

ncu, out = sys.argv[1], sys.argv[2]
xs = [r[1] for r in csv.reader(open(out)) if r and r[0] in ("stream_ms", "gather_ms")]
dram = {}
hdr = None
for r in csv.reader(open(ncu)):
    if r and r[0] == "ID":
        hdr = r
        continue
    if hdr and len(r) == len(hdr):
        d = dict(zip(hdr, r))
        if d["Metric Name"] == "dram__bytes_read.sum":
            v = float(d["Metric Value"].replace(",", ""))
            scale = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9}[d["Metric Unit"]]
            dram[int(d["ID"])] = v * scale
if sorted(dram) != list(range(len(xs))):
    sys.exit(f"l2reuse-ncu: {len(dram)} launches in {ncu}, {len(xs)} rows in {out}")
with open(out, "a") as f:
    for i, x in enumerate(xs):
        f.write(f"l2reuse_dram,{x},{dram[i]:.0f},B,ncu dram__bytes_read.sum of one launch (caches flushed)\n")
