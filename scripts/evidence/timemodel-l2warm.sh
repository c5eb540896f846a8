#!/bin/bash
# timemodel-l2warm.sh — l2warm.cu (scripts/evidence/timemodel/: how much of
# its footprint a launch finds in L2 after the same kernel on the same
# buffers) in one device call of about a minute, from the repository root:
#
#   bash scripts/evidence/timemodel-l2warm.sh "$OUT/timemodel-l2warm-h100-DATE"
#
# Compiled on the GPU host by its nvcc. Writes under the folder: env.txt,
# l2warm.csv (the timed rows, then l2warm_read_dram and l2warm_copy_dram
# from Nsight Compute: l2warm-ncu.py), ncu.csv, and *.err when not empty.
# sim/calibration/<gpu>-l2warm.csv is a byte-for-byte copy of l2warm.csv
# (TestCalibrationCopies); sim's timemodel_l2warm.go reads its _dram rows.
set -u
export PATH="$PATH:/usr/local/cuda/bin"
E="${1:?usage: timemodel-l2warm.sh OUTDIR}"
R="$(cd "$(dirname "$0")/../.." && pwd)"
mkdir -p "$E"
E="$(cd "$E" && pwd)"
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv
	nvcc --version | tail -2
	ncu --version | tail -1
} >"$E/env.txt" 2>&1
T="$(mktemp -d)"
if nvcc -O3 -arch=native -std=c++17 -I "$R/scripts/evidence/timemodel" -o "$T/l2warm" "$R/scripts/evidence/timemodel/l2warm.cu" 2>"$E/nvcc.err"; then
	timeout 60 "$T/l2warm" >"$E/l2warm.csv" 2>"$E/l2warm.err"
	echo "l2warm exit $?"
	timeout 150 ncu --csv --cache-control none -k regex:probe --metrics dram__bytes_read.sum "$T/l2warm" ncu >"$E/ncu.csv" 2>"$E/ncu.err"
	echo "l2warm ncu exit $?"
	# ncu's ==PROF== and ==WARNING== lines go to stdout too: keep the CSV alone.
	grep -v '^==' "$E/ncu.csv" >"$T/ncu.csv" && mv "$T/ncu.csv" "$E/ncu.csv"
	python3 "$R/scripts/evidence/timemodel/l2warm-ncu.py" "$E/ncu.csv" "$E/l2warm.csv" 2>"$E/l2warm-ncu.err"
	echo "l2warm-ncu.py exit $?"
else
	echo "nvcc failed:"
	cat "$E/nvcc.err"
fi
for f in "$E"/*.err; do [ -s "$f" ] || rm -f "$f"; done
rm -rf "$T"
