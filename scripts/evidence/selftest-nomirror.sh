#!/bin/bash
# selftest-nomirror.sh — issue 11 milestone 3's GPU check: with the Go
# mirrors deleted, `warplab selftest --backend gpu` compares every lesson
# kernel's GPU output with the CPU reference and with the simulator running
# the PTX the GPU loaded (bit for bit), on both load paths:
#   1. WARPLAB_PTX_ONLY=1: the GPU JIT-loads the embedded nvcc-11.8 PTX,
#      and the simulator runs that PTX;
#   2. nvcc on PATH: the GPU loads a cubin from this machine's nvcc, and the
#      simulator runs `nvcc -ptx` of the same source and flags.
#
# Usage: selftest-nomirror.sh BINDIR OUTDIR
# BINDIR holds warplab-cuda built from the integrated tree on a machine with
# Go (the GPU host has none):
#   source scripts/cuda/env.sh 13.0
#   CGO_ENABLED=1 go build -tags cuda -ldflags='-s -w' -o .cache/device/warplab-cuda ./cmd/warplab
# OUTDIR becomes evidence/selftest-nomirror-h200-<date>/ (env.txt names GPU,
# driver, date; one file per self-test; summary.txt).
set -u
export PATH="$PATH:/usr/local/cuda/bin"
W="$(cd "$1" && pwd)/warplab-cuda"
E="$2"
mkdir -p "$E"
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv
	nvcc --version | tail -2
} >"$E/env.txt" 2>&1
# A fresh cubin cache, so the cubin and its PTX are made by this nvcc now.
export WARPLAB_CUBIN_CACHE="$(mktemp -d)"
WARPLAB_PTX_ONLY=1 timeout 100 "$W" selftest --backend gpu >"$E/selftest-ptx-only.txt" 2>&1
echo "selftest exit $?" >>"$E/selftest-ptx-only.txt"
timeout 120 "$W" selftest --backend gpu >"$E/selftest-cubin.txt" 2>&1
echo "selftest exit $?" >>"$E/selftest-cubin.txt"
{
	cat "$E/env.txt"
	for f in selftest-ptx-only selftest-cubin; do
		echo "== $f"
		grep -E '^(selftest on|GPU backend|spmv:|cg:|tiling:|all kernels)|exit|failed' "$E/$f.txt"
		echo "rows with the same bits: $(grep -c 'ok (same bits' "$E/$f.txt")"
	done
} >"$E/summary.txt"
cat "$E/summary.txt"
