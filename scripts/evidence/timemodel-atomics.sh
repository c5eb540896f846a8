#!/bin/bash
# timemodel-atomics.sh — the atomics microbenchmark behind the time model's
# atomics term (issue 27, milestone 3): global atomics on one address, on k
# words of a line, on m lines, spread, and on B random bins; shared atomics
# on k words in k banks, in one bank, and on random bins. One device call of
# under a minute, from the repository root:
#
#   bash scripts/evidence/timemodel-atomics.sh "$OUT/atomics"
#
# The program is CUDA C (scripts/evidence/timemodel/atomics.cu says what each
# row measures), compiled on the GPU host by its nvcc for the GPU there. It
# writes under $1: env.txt, atomics.csv and atomics-r2.csv (two runs;
# name,param,value,unit,note), sass.txt (the kernels' atomics as compiled)
# and nvcc.err / atomics.err when not empty.
set -u
export PATH="$PATH:/usr/local/cuda/bin"
E="${1:?usage: timemodel-atomics.sh OUTDIR}"
mkdir -p "$E"
E="$(cd "$E" && pwd)"
R="$(cd "$(dirname "$0")/../.." && pwd)"
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv
	nvcc --version | tail -2
} >"$E/env.txt" 2>&1
T="$(mktemp -d)"
if nvcc -O3 -arch=native -std=c++17 -I "$R/scripts/evidence/timemodel" -o "$T/atomics" \
	"$R/scripts/evidence/timemodel/atomics.cu" >"$E/nvcc.err" 2>&1; then
	cuobjdump -sass "$T/atomics" 2>/dev/null | grep -E "Function|RED|ATOM|VOTE|POPC" >"$E/sass.txt"
	timeout 120 "$T/atomics" >"$E/atomics.csv" 2>"$E/atomics.err"
	echo "atomics exit $?"
	timeout 120 "$T/atomics" >"$E/atomics-r2.csv" 2>>"$E/atomics.err"
	echo "atomics r2 exit $?"
else
	echo "nvcc failed:"
	cat "$E/nvcc.err"
fi
for f in "$E"/*.err; do [ -s "$f" ] || rm -f "$f"; done
rm -rf "$T"
