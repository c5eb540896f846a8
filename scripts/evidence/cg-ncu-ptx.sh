#!/bin/bash
# cg-ncu-ptx.sh — issue 11 milestone 3's GPU reference for the CG lesson:
# Nsight Compute's global load and store requests and sectors of the CG
# SpMVs at 100³ with the driver JIT-loading the lesson's embedded nvcc-11.8
# PTX (WARPLAB_PTX_ONLY=1), the PTX the simulator now executes. The
# recorded CG ncu runs (evidence/cg-ncu-*-2026-11-29) profiled the nvcc-13
# cubin; spmvStencil27 (stage 8) has never been profiled.
#
# One ncu call per kernel, its first launch (-c 1): stage 4's
# spmvCsrThreadPerRow, stage 1 --unroll1's spmvCsrThreadPerRowUnroll1,
# stage 5's spmvCsrSubwarp (8 threads a row) and stage 8's spmvStencil27.
# Counters depend on addresses only, so the first launch (p = x0) serves.
# --clock-control none, as in every recorded ncu run.
#
# Usage: cg-ncu-ptx.sh BINDIR OUTDIR
# BINDIR holds warplab-cuda, built beforehand on a machine with Go:
#   source scripts/cuda/env.sh 13.0
#   CGO_ENABLED=1 go build -tags cuda -ldflags='-s -w' -o .cache/device/warplab-cuda ./cmd/warplab
# OUTDIR becomes evidence/cg-ncu-ptx-100-h200-<date>/ (env.txt, one CSV per
# kernel); lessons/cg/ncu_test.go TestSpMVEqualsNCUPTXAt100 reads it.
set -u
W="$(cd "$1" && pwd)/warplab-cuda"
E="$2"
mkdir -p "$E"
export PATH="$PATH:/usr/local/cuda/bin"
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv
	ncu --version | tail -1
	echo "WARPLAB_PTX_ONLY=1: the driver JIT-compiles lessons/cg/cg.ptx (nvcc 11.8, compute_75)"
} >"$E/env.txt" 2>&1

M=l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
M=$M,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
M=$M,smsp__inst_executed.sum,gpu__time_duration.sum

# noprof drops ncu's ==PROF== lines (process ids, this machine's paths).
noprof() { grep -v '^==PROF==' || true; }

run() { # name stage kernel [flags...]
	local name=$1 stage=$2 kernel=$3
	shift 3
	WARPLAB_PTX_ONLY=1 timeout 60 ncu --clock-control none --metrics "$M" --csv \
		-k regex:"^$kernel\$" -c 1 \
		"$W" run cg --backend gpu --grid 100 --stage "$stage" --max-iter 2 "$@" \
		2>"$E/ncu-$name.err" | noprof >"$E/ncu-$name.csv"
	echo "$name (stage $stage, $kernel $*): exit ${PIPESTATUS[0]}" >>"$E/env.txt"
	[ -s "$E/ncu-$name.err" ] || rm -f "$E/ncu-$name.err"
}
run thread-per-row 4 spmvCsrThreadPerRow
run thread-per-row-unroll1 1 spmvCsrThreadPerRowUnroll1 --unroll1
run subwarp8 5 spmvCsrSubwarp
run stencil27 8 spmvStencil27

cat "$E/env.txt"
for f in "$E"/ncu-*.csv; do
	echo "== $(basename "$f")"
	grep -E 'l1tex__t_(requests|sectors)_pipe_lsu_mem_global_op_ld' "$f" | awk -F'","' '{print $(NF-2), $NF}' | tr -d '"'
done
