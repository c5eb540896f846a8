#!/bin/bash
# timemodel-launchargs.sh — the launch microbenchmark with arguments, in one
# device call, from the repository root:
#
#   bash scripts/evidence/timemodel-launchargs.sh BINDIR OUTDIR [REPEATS]
#
# BINDIR holds warplab-cuda. Each of the REPEATS (default 5) passes runs
# `warplab bench launch --backend gpu --n 20000` into launch-go-rN.txt: the
# empty kernel, a kernel with the SpMV
# lessons' six arguments (five buffers and a count) in one block and in
# 1,056 blocks of 256 threads, and one with six scalars; each back to back
# by the host clock and, with the lessons' own protocol (3 warm-ups, CUDA
# events around 10 runs), as the median of 101 timings; since 2026-12-04
# also the spin curve (a one-thread kernel spinning 0 to 32 µs on the
# GPU's timer, the lessons' protocol at each). env.txt and
# timeline.txt record the GPU, driver, clocks and what ran when.
set -u
B="$(cd "${1:-.cache/device}" && pwd)"
E="${2:?usage: timemodel-launchargs.sh BINDIR OUTDIR [REPEATS]}"
n="${3:-5}"
mkdir -p "$E"
E="$(cd "$E" && pwd)"
W="$B/warplab-cuda"
start=$(date +%s)
log() { echo "$(($(date +%s) - start))s: $*" | tee -a "$E/timeline.txt"; }
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.total --format=csv
	nvcc --version 2>/dev/null | tail -2
} >"$E/env.txt" 2>&1
for i in $(seq 1 "$n"); do
	log "pass $i"
	"$W" bench launch --backend gpu --n 20000 >"$E/launch-go-r$i.txt" 2>&1 || log "pass $i: exit $?"
	sleep 2
done
log done
