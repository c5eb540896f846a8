#!/bin/bash
# timemodel.sh — issue 13's GPU measurements for the time model, in one
# device call (the session's H200), from the repository root:
#
#   bash scripts/evidence/timemodel.sh .cache/device "$OUT/timemodel"
#
# $1 holds warplab-cuda (the lead's integrated build); $2 is the output
# folder. It writes, under $2:
#   env.txt             date, nvidia-smi (GPU, driver, clocks), nvcc, ncu
#   microbench.csv      scripts/evidence/timemodel/microbench.cu, compiled
#                       here by nvcc: clock, pointer-chase latency (L1, L2,
#                       DRAM), fixed cost of a timed launch, launch rate,
#                       issue rate, DRAM and L2 bandwidth (CSV
#                       name,param,value,unit,note; '#' lines are comments)
#   ncu-launch.csv      ncu's gpu__time_duration of the empty and tiny
#                       kernels (the GPU side of a launch's fixed cost)
#   launch-go.txt       `warplab bench launch --backend gpu`: the host cost
#                       of a launch from Go through gpuext
#   spmv-2p23.{json,txt}, spmv-2p23-unroll1.{json,txt}
#                       the Day-37 seed pair at 2^23 rows, lesson timing
#   tiling-256.{json,txt}   lecture 4 at N=256, lesson timing
#   ncu-spmv-2p23.csv, ncu-tiling-256.csv, ncu-cg-50.csv, ncu-cg-100.csv
#                       ncu's gpu__time_duration per launch for those runs
#                       (CG: every stage, 3 iterations)
#   timeline.txt        seconds since the start at each step
# and prints a summary. Steps past ~200 s are skipped and say so.
# The GPU host has CUDA 13's nvcc and ncu and no Go; warplab-cuda is built
# beforehand with `source scripts/cuda/env.sh 13.0`.
set -u
export PATH="$PATH:/usr/local/cuda/bin"
repo="$(cd "$(dirname "$0")/../.." && pwd)"
B="$(cd "${1:-.cache/device}" && pwd)"
E="${2:?usage: timemodel.sh BINDIR OUTDIR}"
mkdir -p "$E"
E="$(cd "$E" && pwd)"
W="$B/warplab-cuda"
start=$(date +%s)
elapsed() { echo $(($(date +%s) - start)); }
log() { echo "$(elapsed)s: $*" | tee -a "$E/timeline.txt"; }
noprof() { sed '/^==PROF==/d'; }
# late N: true when more than N seconds have passed (the step is skipped).
late() {
	if (($(elapsed) > $1)); then
		log "skipped (time): $2"
		return 0
	fi
	return 1
}
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.total --format=csv
	nvcc --version | tail -2
	ncu --version | tail -1
} >"$E/env.txt" 2>&1
log "start"

T="$(mktemp -d)"
if nvcc -O3 -arch=native -std=c++17 -o "$T/microbench" "$repo/scripts/evidence/timemodel/microbench.cu" 2>"$E/nvcc.err"; then
	timeout 90 "$T/microbench" >"$E/microbench.csv" 2>"$E/microbench.err"
	log "microbench (exit $?)"
	timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k 'regex:emptyKernel|tinyKernel' -c 30 \
		"$T/microbench" 2>/dev/null | noprof >"$E/ncu-launch.csv"
	log "ncu on the launch kernels (exit ${PIPESTATUS[0]})"
else
	log "nvcc failed: $(head -3 "$E/nvcc.err")"
fi

if [ -x "$W" ]; then
	timeout 30 "$W" bench launch --backend gpu --n 20000 >"$E/launch-go.txt" 2>&1
	log "bench launch (exit $?)"
	late 150 "tiling 256" || {
		timeout 40 "$W" run tiling --backend gpu --n 256 --no-demos --no-sweep --json "$E/tiling-256.json" >"$E/tiling-256.txt" 2>&1
		log "tiling 256 (exit $?)"
	}
	late 150 "spmv 2^23" || {
		timeout 60 "$W" run spmv --backend gpu --rows 8388608 --json "$E/spmv-2p23.json" >"$E/spmv-2p23.txt" 2>&1
		log "spmv 2^23 (exit $?)"
	}
	late 170 "ncu tiling 256" || {
		timeout 40 ncu --clock-control none --metrics gpu__time_duration.sum --csv "$W" run tiling --backend gpu --n 256 --no-demos --no-sweep \
			2>/dev/null | noprof >"$E/ncu-tiling-256.csv"
		log "ncu tiling 256 (exit ${PIPESTATUS[0]})"
	}
	for g in 50 100; do
		late 190 "ncu cg $g" || {
			timeout 40 ncu --clock-control none --metrics gpu__time_duration.sum --csv "$W" run cg --backend gpu --grid $g --stage 1,2,3,4,5,6,7,8 --max-iter 4 \
				2>/dev/null | noprof >"$E/ncu-cg-$g.csv"
			log "ncu cg $g (exit ${PIPESTATUS[0]})"
		}
	done
	late 190 "ncu spmv 2^23" || {
		timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --csv "$W" run spmv --backend gpu --rows 8388608 \
			2>/dev/null | noprof >"$E/ncu-spmv-2p23.csv"
		log "ncu spmv 2^23 (exit ${PIPESTATUS[0]})"
	}
	late 200 "spmv 2^23 unroll 1" || {
		timeout 50 "$W" run spmv --backend gpu --rows 8388608 --unroll 1 --json "$E/spmv-2p23-unroll1.json" >"$E/spmv-2p23-unroll1.txt" 2>&1
		log "spmv 2^23 unroll 1 (exit $?)"
	}
else
	log "no $W: lesson runs skipped"
fi
rm -rf "$T"
log "done"
echo "== summary"
cat "$E/env.txt"
grep -v '^#' "$E/microbench.csv" 2>/dev/null | cut -d, -f1-4
grep -E 'us per launch' "$E/launch-go.txt" 2>/dev/null
grep -E '^(even|skewed) ' "$E/spmv-2p23.txt" 2>/dev/null | tail -6
