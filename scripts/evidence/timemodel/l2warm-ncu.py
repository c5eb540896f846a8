#!/usr/bin/env python3
"""l2warm-ncu.py NCU_CSV L2WARM_CSV: append l2warm.cu's *_dram rows.

`ncu --csv --cache-control none -k regex:probe --metrics dram__bytes_read.sum
l2warm ncu` prints one row per probe launch; the probes come in l2warm.csv's
row order (l2warm_read F, l2warm_copy F and, since the thirty-ninth pass,
l2warm_waves F and l2warm_moved F, for each F). Each probe's
dram__bytes_read.sum becomes a row `l2warm_read_dram,F MiB,bytes,B,...` (or
l2warm_copy_dram, l2warm_waves_dram, l2warm_moved_dram).
"""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ncucsv  # noqa: E402

ncu, out = sys.argv[1], sys.argv[2]
rows = [(r[0], r[1]) for r in csv.reader(open(out)) if r and r[0] in ("l2warm_read", "l2warm_copy", "l2warm_waves", "l2warm_moved")]
dram = ncucsv.metric_by_id(ncu, "dram__bytes_read.sum")
if sorted(dram) != list(range(len(rows))):
    sys.exit(f"l2warm-ncu: {len(dram)} probes in {ncu}, {len(rows)} rows in {out}")
with open(out, "a") as f:
    for i, (name, param) in enumerate(rows):
        f.write(f"{name}_dram,{param},{dram[i]:.0f},B,ncu dram__bytes_read.sum of the probe after 4 launches (--cache-control none)\n")
