#!/bin/bash
# cg-occupancy.sh — issue 16 §4's run on a GPU host (the session's H200
# through the device tool): Nsight Compute's achieved occupancy and eligible
# warps per scheduler cycle for the CG lesson's kernels at 100³, the numbers
# the HPCCG article used to show that occupancy was the wrong target (90.9%
# achieved occupancy, 0.06 eligible warps per cycle).
#
# For stages 4 (thread-per-row CSR SpMV), 5 (8 threads a row) and 8
# (matrix-free stencil), ncu profiles the first 12 launches of the solver's
# kernels (-k skips the launch-overhead probe), which covers the first
# iterations' SpMV, dot products and vector updates. --clock-control none,
# as in every other recorded ncu run.
#
# Usage: cg-occupancy.sh BINDIR OUTDIR
# BINDIR holds warplab-cuda, built beforehand on a machine with Go (the GPU
# host has none):
#   source scripts/cuda/env.sh 13.0
#   go build -tags cuda -ldflags='-s -w' -o .cache/device/warplab-cuda ./cmd/warplab
# The results (env.txt and one CSV per stage) go to OUTDIR, which becomes
# evidence/cg-occupancy-100-h200-<date>/.
set -u
W="$(cd "$1" && pwd)/warplab-cuda"
E="$2"
mkdir -p "$E"
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv
	ncu --version | tail -1
} >"$E/env.txt" 2>&1

M=sm__warps_active.avg.pct_of_peak_sustained_active
M=$M,sm__maximum_warps_per_active_cycle_pct
M=$M,smsp__warps_eligible.avg.per_cycle_active
M=$M,smsp__warps_active.avg.per_cycle_active
M=$M,smsp__issue_active.avg.per_cycle_active
M=$M,gpu__time_duration.sum
M=$M,launch__grid_size,launch__block_size,launch__registers_per_thread

# noprof drops ncu's ==PROF== lines (process ids, this machine's paths).
noprof() { grep -v '^==PROF==' || true; }

for s in 4 5 8; do
	ncu --clock-control none --metrics "$M" --csv \
		-k regex:'spmv|waxpby|ddot|updateXRDot|cgDivide' -c 12 \
		"$W" run cg --backend gpu --grid 100 --stage "$s" \
		2>"$E/ncu-stage$s.err" | noprof >"$E/ncu-stage$s.csv"
	echo "stage $s exit ${PIPESTATUS[0]}" >>"$E/env.txt"
	[ -s "$E/ncu-stage$s.err" ] || rm -f "$E/ncu-stage$s.err"
done

cat "$E/env.txt"
