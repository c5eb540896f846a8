#!/bin/bash
# timemodel-contention.sh — what blocks sharing an SM cost each other
# (scripts/evidence/timemodel/contention.cu says what each row measures): one
# device call of a few seconds, from the repository root:
#
#   bash scripts/evidence/timemodel-contention.sh "$OUT/contention"
#
# Compiled on the GPU host by its nvcc for the GPU there. Writes under $1:
# env.txt, contention.csv (name,param,value,unit,note; sim.ParseMicrobench
# reads it), and nvcc.err / contention.err when not empty.
set -u
export PATH="$PATH:/usr/local/cuda/bin"
E="${1:?usage: timemodel-contention.sh OUTDIR}"
mkdir -p "$E"
E="$(cd "$E" && pwd)"
R="$(cd "$(dirname "$0")/../.." && pwd)"
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv
	nvcc --version | tail -2
} >"$E/env.txt" 2>&1
T="$(mktemp -d)"
if nvcc -O3 -arch=native -std=c++17 -I "$R/scripts/evidence/timemodel" -o "$T/contention" \
	"$R/scripts/evidence/timemodel/contention.cu" 2>"$E/nvcc.err"; then
	timeout 120 "$T/contention" >"$E/contention.csv" 2>"$E/contention.err"
	echo "contention exit $?"
else
	echo "nvcc failed:"
	cat "$E/nvcc.err"
fi
for f in "$E"/*.err; do [ -s "$f" ] || rm -f "$f"; done
rm -rf "$T"
