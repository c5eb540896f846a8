#!/bin/bash
# timemodel-sweep.sh — issue 27's recorded sweep (internal/sweep's fixed
# families: the tiling lesson's products and transposes, SpMV on ten
# sparse/gen matrix families, CG's stage-5 kernels, and the fifteen own
# kernels of internal/sweep/kernels.cu), measured on the GPU in one device
# call, from the repository root:
#
#   bash scripts/evidence/timemodel-sweep.sh bin "$OUT/sweep" [SECONDS] [PASS...]
#
# $1 holds warplab-cuda (scripts/cuda/build.sh); $2 is the output folder;
# SECONDS (default 330) is when a pass stops starting new inputs (the
# records so far are kept: one JSON line per case, written as it ends).
# Each PASS (default: one, named "sweep") is a whole sweep, one after the
# other. It writes, under $2:
#   env.txt, env-PASS.txt  date, nvidia-smi (GPU, driver, clocks), nvcc
#   PASS.jsonl   `warplab timemodel sweep --backend gpu`: one record per case
#   PASS.txt     its output: the code each module loaded as, progress, errors
#   timeline.txt seconds since the start at each step
#   launch-go-PASS.txt, launch-go-end.txt  `warplab bench launch --backend
#                gpu` before each pass and after the last: the host's launch
#                floor on the lease that timed the sweep (since the
#                thirty-fifth pass the check models a recorded set with the
#                launch records of its own folder; docs/timemodel.md)
# A pass writes about five files: give $2 under /tmp and tar it into one
# file under $OUT (the device tool brings back at most eight files of a
# call; 2026-12-07's first H100 pass was lost that way).
# The GPU host has CUDA 13's nvcc and no Go; the lessons' kernels load as
# cubins its nvcc compiles (as in every recorded lesson run), the sweep's
# own kernels too.
set -u
export PATH="$PATH:/usr/local/cuda/bin"
B="$(cd "${1:-bin}" && pwd)"
E="${2:?usage: timemodel-sweep.sh BINDIR OUTDIR [SECONDS]}"
S="${3:-330}"
shift 3 2>/dev/null || shift $#
passes=("$@")
[ ${#passes[@]} -gt 0 ] || passes=(sweep)
mkdir -p "$E"
E="$(cd "$E" && pwd)"
W="$B/warplab-cuda"
start=$(date +%s)
log() { echo "$(($(date +%s) - start))s: $*" | tee -a "$E/timeline.txt"; }
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.total --format=csv
	nvcc --version | tail -2
	nproc
} >"$E/env-${passes[0]}.txt" 2>&1
[ "${passes[0]}" = sweep ] && mv "$E/env-sweep.txt" "$E/env.txt"
log "start"
floor() {
	"$W" bench launch --backend gpu --n 20000 >"$E/launch-go-$1.txt" 2>&1
	log "launch floor $1 (exit $?)"
}
for p in "${passes[@]}"; do
	floor "$p"
	timeout $((S + 120)) "$W" timemodel sweep --backend gpu --deadline "${S}s" --out "$E/$p.jsonl" >"$E/$p.txt" 2>&1
	log "$p (exit $?): $(wc -l <"$E/$p.jsonl") records"
	tail -3 "$E/$p.txt"
done
floor end
