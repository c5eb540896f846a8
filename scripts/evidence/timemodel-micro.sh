#!/bin/bash
# timemodel-micro.sh — one of the time model's single-file microbenchmarks
# (scripts/evidence/timemodel/NAME.cu: dispatch, contention; each says what
# its rows measure) in one device call of a few seconds, from the repository
# root:
#
#   bash scripts/evidence/timemodel-micro.sh NAME "$OUT/timemodel-NAME-h200-DATE"
#
# Compiled on the GPU host by its nvcc for the GPU there. Writes under the
# folder: env.txt, NAME.csv (name,param,value,unit,note; sim.ParseMicrobench
# reads it), and nvcc.err / NAME.err when not empty.
set -u
export PATH="$PATH:/usr/local/cuda/bin"
N="${1:?usage: timemodel-micro.sh NAME OUTDIR}"
E="${2:?usage: timemodel-micro.sh NAME OUTDIR}"
R="$(cd "$(dirname "$0")/../.." && pwd)"
S="$R/scripts/evidence/timemodel/$N.cu"
[ -f "$S" ] || { echo "timemodel-micro: no $S" >&2; exit 2; }
mkdir -p "$E"
E="$(cd "$E" && pwd)"
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv
	nvcc --version | tail -2
} >"$E/env.txt" 2>&1
T="$(mktemp -d)"
if nvcc -O3 -arch=native -std=c++17 -I "$R/scripts/evidence/timemodel" -o "$T/$N" "$S" 2>"$E/nvcc.err"; then
	timeout 120 "$T/$N" >"$E/$N.csv" 2>"$E/$N.err"
	echo "$N exit $?"
else
	echo "nvcc failed:"
	cat "$E/nvcc.err"
fi
for f in "$E"/*.err; do [ -s "$f" ] || rm -f "$f"; done
rm -rf "$T"
