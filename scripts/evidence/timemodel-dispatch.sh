#!/bin/bash
# timemodel-dispatch.sh — what a grid's blocks cost the GPU beyond their work
# (scripts/evidence/timemodel/dispatch.cu says what each row measures): one
# device call of a few seconds, from the repository root:
#
#   bash scripts/evidence/timemodel-dispatch.sh "$OUT/dispatch"
#
# Compiled on the GPU host by its nvcc for the GPU there. Writes under $1:
# env.txt, dispatch.csv (name,param,value,unit,note; sim.ParseMicrobench
# reads it), and nvcc.err / dispatch.err when not empty.
set -u
export PATH="$PATH:/usr/local/cuda/bin"
E="${1:?usage: timemodel-dispatch.sh OUTDIR}"
mkdir -p "$E"
E="$(cd "$E" && pwd)"
R="$(cd "$(dirname "$0")/../.." && pwd)"
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv
	nvcc --version | tail -2
} >"$E/env.txt" 2>&1
T="$(mktemp -d)"
if nvcc -O3 -arch=native -std=c++17 -I "$R/scripts/evidence/timemodel" -o "$T/dispatch" \
	"$R/scripts/evidence/timemodel/dispatch.cu" 2>"$E/nvcc.err"; then
	timeout 120 "$T/dispatch" >"$E/dispatch.csv" 2>"$E/dispatch.err"
	echo "dispatch exit $?"
else
	echo "nvcc failed:"
	cat "$E/nvcc.err"
fi
for f in "$E"/*.err; do [ -s "$f" ] || rm -f "$f"; done
rm -rf "$T"
