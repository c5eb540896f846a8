#!/bin/bash
# graphs.sh — GPU evidence for gpuext's CUDA graphs (Device.Record,
# Graph.Launch; issue 14's CG stage 9 builds on them), in one device call:
#   - TestGPUGraph: graphs of saxpy kernels, a device-to-device copy and
#     fills, recorded once and replayed 1, 200 and 20 times (3,001 and 2^22
#     elements), leave every buffer bit for bit as the same steps launched
#     one by one do, on the PTX (JIT) and the default (nvcc cubin) path;
#   - TestGPUGraphErrors: what a GPU checks when a graph is built, and
#     closed graphs and freed buffers refused;
#   - TestGPUGraphTime: replay against plain launches, CUDA events
#     (Device.Time: 3 warm-ups, 10 runs) and host clock (2,000 runs back to
#     back), for 8 short, 1 short and 8 long kernels, with the time model's
#     TimedLaunch / GraphLaunchSeconds beside (graph-time.csv);
#   - the untagged Graph tests (simulator) in the same binary.
#
# The test binary is built beforehand on a machine with Go (the GPU host has
# none), from a clean worktree of the commit to record:
#   source scripts/cuda/env.sh 13.0
#   CGO_ENABLED=1 go test -tags cuda -c -ldflags='-s -w' -o .cache/device/gpuext.test ./gpuext
#   { echo "built from $(git rev-parse HEAD); working-tree changes in the packages linked:" \
#       "$(git status --short gpuext sim third_party | tr '\n' ';')"; go version;
#     scripts/cuda/header.sh; date -u; } >.cache/device/gpuext.BUILD.txt
# Run from the repository root:
#   bash scripts/evidence/graphs.sh .cache/device "$OUT/graphs"
# Writes env.txt, nvidia-smi.txt, graphs.txt (the tests' -v log),
# graph-time.csv and summary.txt into the output folder; takes about a
# minute, at most 200 s.
set -u
bin="${1:?usage: graphs.sh BINDIR OUTDIR}"
out="${2:?usage: graphs.sh BINDIR OUTDIR}"
mkdir -p "$out"
T="$(cd "$bin" && pwd)/gpuext.test"
out="$(cd "$out" && pwd)"
repo="$(cd "$(dirname "$0")/../.." && pwd)"
nvidia-smi >"$out/nvidia-smi.txt" 2>&1
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv
	echo "test binary: $T ($(stat -c %s "$T" 2>/dev/null) bytes, sha256 $(sha256sum "$T" 2>/dev/null | cut -d' ' -f1))"
	echo "repository commit: $(git -C "$repo" rev-parse HEAD 2>/dev/null || echo unknown)"
	cat "$bin/gpuext.BUILD.txt" 2>/dev/null
	command -v nvcc >/dev/null && nvcc --version | tail -2
} >"$out/env.txt" 2>&1
if [ ! -x "$T" ]; then
	echo "no test binary at $T; build it first (see the header of $0)" | tee "$out/summary.txt"
	exit 1
fi
# A test binary runs in its package's folder, as go test runs it.
cd "$repo/gpuext" || exit 1
start=$(date +%s)
timeout 200 "$T" -test.run 'Graph' -test.v -test.timeout 190s >"$out/graphs.txt" 2>&1
rc=$?
echo "exit $rc after $(($(date +%s) - start)) s" >>"$out/graphs.txt"
{
	echo "case,kernels,elements,plain_events_mean_ms,replay_events_mean_ms,plain_host_us_per_run,replay_host_us_per_run"
	grep '^graph-time,' "$out/graphs.txt" | cut -d, -f2-
} >"$out/graph-time.csv"
{
	cat "$out/env.txt"
	echo "== tests"
	grep -E '^ *--- |^(ok|FAIL|PASS|exit )' "$out/graphs.txt"
	echo "== replay against plain launches (measured; model line: TimedLaunch and GraphLaunchSeconds, the latter an assumption)"
	grep -E 'GPU .*driver|kernels of|events,|host clock|model \(' "$out/graphs.txt" | sed 's/^ *gpu_graph_cuda_test.go:[0-9]*: //'
} >"$out/summary.txt"
cat "$out/summary.txt"
exit $rc
