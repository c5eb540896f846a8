#!/bin/bash
# timemodel-dram.sh — the DRAM and dependent-latency microbenchmark behind
# the time model's DRAM access granularity, loaded-latency curve and
# dependent latencies (issue 27, milestone 3): strided reads and writes of
# one float a 32-byte sector over a 4 GiB span, coalesced dependent walks at
# 1..64 warps per SM, a warp's shuffle chain and a block reduction's shared
# step. One device call of about a minute, from the repository root:
#
#   bash scripts/evidence/timemodel-dram.sh "$OUT/dram"
#
# The program is CUDA C (scripts/evidence/timemodel/dram.cu says what each
# row measures), compiled on the GPU host by its nvcc for the GPU there. It
# writes under $1: env.txt, dram.csv and dram-r2.csv (two runs;
# name,param,value,unit,note), ncu-stride.csv (Nsight Compute's DRAM and L2
# byte counters for each strided kernel, launched once; ncu's ==PROF== lines,
# with this machine's process ids and paths, stripped), sass.txt (the
# kernels' loads, stores and shuffles as compiled) and nvcc.err / dram.err /
# ncu.err when not empty.
set -u
export PATH="$PATH:/usr/local/cuda/bin"
E="${1:?usage: timemodel-dram.sh OUTDIR}"
mkdir -p "$E"
E="$(cd "$E" && pwd)"
R="$(cd "$(dirname "$0")/../.." && pwd)"
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv
	nvcc --version | tail -2
} >"$E/env.txt" 2>&1
T="$(mktemp -d)"
if nvcc -O3 -arch=native -std=c++17 -I "$R/scripts/evidence/timemodel" -o "$T/dram" \
	"$R/scripts/evidence/timemodel/dram.cu" >"$E/nvcc.err" 2>&1; then
	cuobjdump -sass "$T/dram" 2>/dev/null | grep -E "Function|LDG|STG|SHFL|LDS|STS|BAR" >"$E/sass.txt"
	timeout 150 "$T/dram" >"$E/dram.csv" 2>"$E/dram.err"
	echo "dram exit $?"
	timeout 150 "$T/dram" >"$E/dram-r2.csv" 2>>"$E/dram.err"
	echo "dram r2 exit $?"
	timeout 150 ncu --csv --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,gpu__time_duration.sum \
		--kernel-name regex:stride "$T/dram" once 2>"$E/ncu.err" | sed '/^==PROF==/d' >"$E/ncu-stride.csv"
	echo "ncu exit $?"
else
	echo "nvcc failed:"
	cat "$E/nvcc.err"
fi
for f in "$E"/*.err; do [ -s "$f" ] || rm -f "$f"; done
rm -rf "$T"
