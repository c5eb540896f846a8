#!/bin/bash
# timemodel-ncu-spmv.sh — Nsight Compute's issue activity and warp states
# (cycles a warp spends in each state per instruction issued) for sweep
# kernels, on the sweep's own launches (issue 27), from the repository root
# on the GPU machine:
#
#   bash scripts/evidence/timemodel-ncu-spmv.sh WARPLAB_CUDA OUTDIR FAMILY:KERNEL:SKIP:COUNT...
#
# WARPLAB_CUDA is a `-tags cuda` build of cmd/warplab. Each FAMILY:KERNEL
# runs `warplab timemodel sweep --backend gpu --family FAMILY` under ncu,
# profiling COUNT launches of KERNEL after the first SKIP. The sweep
# launches a kernel 24 times an input (warm-ups, the timed launches and
# the per-run events), so size index r's last two are SKIP = 24r + 22,
# COUNT = 2. ncu flushes the caches before each launch: every profiled
# launch is cold. Writes OUTDIR/env.txt and OUTDIR/FAMILY-KERNEL-SKIP.csv
# (ncu's --csv, its ==PROF== lines dropped).
set -u
export PATH="$PATH:/usr/local/cuda/bin"
B="${1:?usage: timemodel-ncu-spmv.sh WARPLAB_CUDA OUTDIR FAMILY:KERNEL:SKIP:COUNT...}"
E="${2:?usage: timemodel-ncu-spmv.sh WARPLAB_CUDA OUTDIR FAMILY:KERNEL:SKIP:COUNT...}"
shift 2
mkdir -p "$E"
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
	ncu --version | tail -1
} >"$E/env.txt" 2>&1
M=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__cycles_active.avg,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.per_cycle_active
M=$M,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,dram__bytes_read.sum
for s in long_scoreboard no_instruction lg_throttle wait math_pipe_throttle not_selected selected short_scoreboard barrier \
	branch_resolving dispatch_stall drain imc_miss mio_throttle tex_throttle sleeping membar misc; do
	M="$M,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
T="$(mktemp -d)"
for spec in "$@"; do
	IFS=: read -r f k s c <<<"$spec"
	timeout 300 ncu --clock-control none --csv --metrics "$M" -k "regex:${k}\$" -s "$s" -c "$c" \
		"$B" timemodel sweep --backend gpu --family "$f" --out "$T/sweep.jsonl" 2>"$T/err" |
		grep -v '^==PROF==' >"$E/$f-$k-$s.csv"
	echo "$f $k skip $s: exit ${PIPESTATUS[0]}"
done
rm -rf "$T"
