#!/bin/bash
# timemodel-mechanisms.sh — the microbenchmarks behind the time model's
# mechanisms (issue 27, milestone 3): shared-memory bank conflicts (k = 1..32,
# loads and stores, the SM's rate and one warp's path), the barrier (alone, and
# waiting for a slow warp), the store-conflict-then-barrier pass of a
# transpose, bandwidth against resident warps and loads in flight (DRAM and a
# warm L2), and occupancy against registers. One device call of about half a
# minute, from the repository root:
#
#   bash scripts/evidence/timemodel-mechanisms.sh "$OUT/mechanisms"
#
# The program is CUDA C (scripts/evidence/timemodel/mechanisms.cu says what
# each row measures), compiled on the GPU host by its nvcc for the GPU there.
# It writes under $1: env.txt, mechanisms.csv (name,param,value,unit,note;
# sim.ParseMicrobench reads it), ptxas.txt (nvcc's -Xptxas -v report for
# the program's kernels) and nvcc.err / mechanisms.err when not empty.
set -u
export PATH="$PATH:/usr/local/cuda/bin"
E="${1:?usage: timemodel-mechanisms.sh OUTDIR}"
mkdir -p "$E"
E="$(cd "$E" && pwd)"
R="$(cd "$(dirname "$0")/../.." && pwd)"
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv
	nvcc --version | tail -2
} >"$E/env.txt" 2>&1
T="$(mktemp -d)"
if nvcc -O3 -arch=native -std=c++17 -Xptxas -v -I "$R/scripts/evidence/timemodel" -o "$T/mechanisms" \
	"$R/scripts/evidence/timemodel/mechanisms.cu" >"$E/ptxas.txt" 2>&1; then
	timeout 200 "$T/mechanisms" >"$E/mechanisms.csv" 2>"$E/mechanisms.err"
	echo "mechanisms exit $?"
else
	echo "nvcc failed:"
	cat "$E/ptxas.txt"
fi
for f in "$E"/*.err; do [ -s "$f" ] || rm -f "$f"; done
rm -rf "$T"
