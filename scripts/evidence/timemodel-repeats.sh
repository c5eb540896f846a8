#!/bin/bash
# timemodel-repeats.sh — repeats of the lesson timings that
# `warplab timemodel check` reads, in one device call, from the repository
# root:
#
#   bash scripts/evidence/timemodel-repeats.sh BINDIR OUTDIR [REPEATS [SET]]
#
# BINDIR holds warplab-cuda and, for the lessons set, matrices/*.mtx (the
# four SuiteSparse matrices of shared/matrices); OUTDIR is the output
# folder. Each of the REPEATS (default 2) passes runs, with the lessons' own
# protocol (3 warm-ups, 10 timed runs between CUDA events), the commands
# that recorded the check's runs. SET is
#   lessons (default): spmv and tiling, into
#     spmv-2p19-rN.json, spmv-2p19-unroll1-rN.json   the seed pair, 2^19 rows
#     spmv-2p23-rN.json, spmv-2p23-unroll1-rN.json   the seed pair, 2^23 rows
#     <matrix>-rN.json                               SuiteSparse, unroll 1
#     tiling-256-rN.json, tiling-512-rN.json         lecture 4
#   cg: CG's stages 0–8 at 20³, 50³ and 100³ (the 2026-11-30 recordings'
#     `--stage all`, which then meant stages 0–8), into cg-<grid>-rN.json
# (each with its .txt), env.txt and timeline.txt. `timecheck.Recorded`
# counts a run by the median over every file that holds it, so these
# repeats join the earlier recordings. Each set is every run of its
# lessons, not the ones the model misses: which runs a repeat touches is
# fixed here, before any result is seen.
set -u
B="$(cd "${1:-.cache/device}" && pwd)"
E="${2:?usage: timemodel-repeats.sh BINDIR OUTDIR [REPEATS [SET]]}"
n="${3:-2}"
set="${4:-lessons}"
mkdir -p "$E"
E="$(cd "$E" && pwd)"
W="$B/warplab-cuda"
start=$(date +%s)
log() { echo "$(($(date +%s) - start))s: $*" | tee -a "$E/timeline.txt"; }
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.total --format=csv
} >"$E/env.txt" 2>&1
# step NAME ARGS...: one lesson run into NAME.json and NAME.txt.
step() {
	local name=$1
	shift
	timeout 200 "$W" run "$@" --json "$E/$name.json" >"$E/$name.txt" 2>&1
	log "$name (exit $?)"
}
for r in $(seq 1 "$n"); do
	case "$set" in
	lessons)
		step "spmv-2p19-r$r" spmv --backend gpu
		step "spmv-2p19-unroll1-r$r" spmv --backend gpu --unroll 1
		for m in "$B"/matrices/*.mtx; do
			step "$(basename "$m" .mtx)-r$r" spmv --backend gpu --matrix "$m" --unroll 1
		done
		step "tiling-256-r$r" tiling --backend gpu --n 256 --no-demos --no-sweep
		step "tiling-512-r$r" tiling --backend gpu --n 512
		step "spmv-2p23-r$r" spmv --backend gpu --rows 8388608
		step "spmv-2p23-unroll1-r$r" spmv --backend gpu --rows 8388608 --unroll 1
		;;
	cg)
		for g in 20 50 100; do
			step "cg-$g-r$r" cg --backend gpu --grid "$g" --stage 0,1,2,3,4,5,6,7,8
		done
		;;
	*)
		echo "timemodel-repeats.sh: unknown set $set (lessons or cg)" >&2
		exit 2
		;;
	esac
done
log "done"
