#!/bin/bash
# timemodel-cg-repeats.sh — repeats of the CG lesson timings that
# `warplab timemodel check` reads (every stage 0–8 at 20³, 50³ and 100³,
# each kernel replayed with the lesson's protocol), in one device call,
# from the repository root:
#
#   bash scripts/evidence/timemodel-cg-repeats.sh .cache/device "$OUT/cg" [REPEATS]
#
# $1 holds warplab-cuda; $2 is the output folder. Each of the REPEATS
# (default 2) passes writes cg-<grid>-rN.json and .txt for each grid, with
# the options of the 2026-11-30 recordings (cg-{20,50,100}-h200-2026-11-30,
# `--stage all`, which then meant stages 0–8), plus env.txt and
# timeline.txt. The set is every CG run the check reads, fixed here before
# any result is seen.
set -u
B="$(cd "${1:-.cache/device}" && pwd)"
E="${2:?usage: timemodel-cg-repeats.sh BINDIR OUTDIR [REPEATS]}"
n="${3:-2}"
mkdir -p "$E"
E="$(cd "$E" && pwd)"
W="$B/warplab-cuda"
start=$(date +%s)
log() { echo "$(($(date +%s) - start))s: $*" | tee -a "$E/timeline.txt"; }
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.total --format=csv
} >"$E/env.txt" 2>&1
for r in $(seq 1 "$n"); do
	for g in 20 50 100; do
		timeout 200 "$W" run cg --backend gpu --grid "$g" --stage 0,1,2,3,4,5,6,7,8 \
			--json "$E/cg-$g-r$r.json" >"$E/cg-$g-r$r.txt" 2>&1
		log "cg $g r$r (exit $?)"
	done
done
log "done"
