#!/bin/bash
# timemodel-l1capacity.sh — Nsight Compute's view of the L1's capacity on
# the lessons' uncoalesced thread-per-row SpMVs (issue 13): how many sectors
# each launch reads from L2 and DRAM, at how many warps per SM, with how
# many registers. The simulator's L1 capacity model (sim/worker.go l1Lost,
# its curve read off evidence/timemodel-l1reuse-h200-2026-12-01) predicts
# these L2 sectors; none of them was used to fit it.
#
# Runs, each profiled launch with caches flushed (--clock-control none, as
# every recorded ncu run):
#   CG's spmvCsrThreadPerRow at 20³, 50³ and 100³ (stage 1, first 2 SpMVs)
#   the seed pair's thread per row at 2^19 and 2^23 rows, unroll 4 and 1
#     (-k regex:ThreadPerRow -c 25: the even matrix's 24 launches, then the skewed one's first)
#
# Usage: timemodel-l1capacity.sh BINDIR OUTDIR
# BINDIR holds warplab-cuda, built on a machine with Go:
#   source scripts/cuda/env.sh 13.0
#   go build -tags cuda -ldflags='-s -w' -o .cache/device/warplab-cuda ./cmd/warplab
# OUTDIR becomes evidence/timemodel-l1capacity-h200-<date>/.
set -u
W="$(cd "$1" && pwd)/warplab-cuda"
E="$2"
mkdir -p "$E"
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv
	ncu --version | tail -1
} >"$E/env.txt" 2>&1

M=lts__t_sectors_srcunit_tex_op_read.sum
M=$M,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
M=$M,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
M=$M,dram__bytes_read.sum
M=$M,gpu__time_duration.sum
M=$M,sm__warps_active.avg.per_cycle_active
M=$M,launch__registers_per_thread,launch__occupancy_limit_registers
M=$M,launch__grid_size,launch__block_size

noprof() { grep -v '^==PROF==' || true; }

for g in 20 50 100; do
	ncu --clock-control none --metrics "$M" --csv -k regex:spmvCsrThreadPerRow -c 2 \
		"$W" run cg --backend gpu --grid "$g" --stage 1 --max-iter 2 \
		2>"$E/ncu-cg-$g.err" | noprof >"$E/ncu-cg-$g.csv"
	echo "cg $g exit ${PIPESTATUS[0]}" >>"$E/env.txt"
	[ -s "$E/ncu-cg-$g.err" ] || rm -f "$E/ncu-cg-$g.err"
done
for rows in 524288 8388608; do
	for u in 4 1; do
		ncu --clock-control none --metrics "$M" --csv -k regex:ThreadPerRow -c 25 \
			"$W" run spmv --backend gpu --rows "$rows" --unroll "$u" \
			2>"$E/ncu-spmv-$rows-u$u.err" | noprof >"$E/ncu-spmv-$rows-u$u.csv"
		echo "spmv $rows unroll $u exit ${PIPESTATUS[0]}" >>"$E/env.txt"
		[ -s "$E/ncu-spmv-$rows-u$u.err" ] || rm -f "$E/ncu-spmv-$rows-u$u.err"
	done
done
cat "$E/env.txt"
