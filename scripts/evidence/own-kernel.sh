#!/bin/bash
# own-kernel.sh — issue 12's GPU evidence ("write your own CUDA kernel in a
# notebook"), in one device call:
#   1. TestGPUNotebookCUDA: every CUDA C kernel of notebooks/00-first-kernel
#      (SAXPY, strided copy at strides 1 and 8, the divergent branch by lane
#      and by warp, the shared-memory transpose with and without padding),
#      loaded from the repository's PTX (nvcc 11.8, compute_75) and
#      JIT-compiled by the driver, results checked on the GPU and on the
#      simulator, times measured on the GPU beside the simulator's modeled
#      ones (a table at the end of the log);
#   2. TestGPUFaultRecovery: a kernel that faults (an illegal address; a
#      __trap()) followed by SAXPY in the recreated context, with the
#      ContextLostError and the dead-buffer errors in the log.
#
# The test binary is built beforehand on a machine with Go (the GPU host has
# none):
#   source scripts/cuda/env.sh 13.0
#   CGO_ENABLED=1 go test -tags cuda -c -ldflags='-s -w' -o .cache/device/gpuext.test ./gpuext
#   { echo "built from $(git rev-parse HEAD); working-tree changes in the packages linked:" \
#       "$(git status --short gpuext sim notebooks/ptxcache | tr '\n' ';')"; go version;
#     scripts/cuda/header.sh; date -u; } >.cache/device/gpuext.BUILD.txt
# Run from the repository root:
#   bash scripts/evidence/own-kernel.sh .cache/device "$OUT/own-kernel"
# Writes env.txt, notebook-kernels.txt, fault-recovery.txt and summary.txt
# into the output folder; takes well under four minutes.
set -u
bin="${1:?usage: own-kernel.sh BINDIR OUTDIR}"
out="${2:?usage: own-kernel.sh BINDIR OUTDIR}"
mkdir -p "$out"
T="$(cd "$bin" && pwd)/gpuext.test"
out="$(cd "$out" && pwd)"
repo="$(cd "$(dirname "$0")/../.." && pwd)"
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
	echo "test binary: $T ($(stat -c %s "$T") bytes, sha256 $(sha256sum "$T" | cut -d' ' -f1))"
	echo "repository commit: $(git -C "$repo" rev-parse HEAD 2>/dev/null || echo unknown)"
	cat "$bin/gpuext.BUILD.txt" 2>/dev/null
} >"$out/env.txt" 2>&1
if [ ! -x "$T" ]; then
	echo "no test binary at $T; build it first (see the header of $0)" | tee "$out/summary.txt"
	exit 1
fi
# A test binary runs in its package's folder, as go test runs it.
cd "$repo/gpuext" || exit 1
start=$(date +%s)
timeout 170 "$T" -test.run '^TestGPUNotebookCUDA$' -test.v -test.timeout 160s >"$out/notebook-kernels.txt" 2>&1
echo "exit $? after $(($(date +%s) - start)) s" >>"$out/notebook-kernels.txt"
start=$(date +%s)
timeout 60 "$T" -test.run '^TestGPUFaultRecovery$' -test.v -test.timeout 50s >"$out/fault-recovery.txt" 2>&1
echo "exit $? after $(($(date +%s) - start)) s" >>"$out/fault-recovery.txt"
{
	cat "$out/env.txt"
	echo "== notebook kernels (measured vs modeled)"
	sed -n '/00-first-kernel.s CUDA C/,/modeled on/p' "$out/notebook-kernels.txt" | sed 's/^ *//'
	grep -E '^(--- |ok|FAIL|PASS|exit )' "$out/notebook-kernels.txt"
	echo "== fault, then a working kernel"
	grep -E 'the fault:|saxpy after the|^ *--- |^(ok|FAIL|PASS|exit )' "$out/fault-recovery.txt"
} >"$out/summary.txt"
cat "$out/summary.txt"
