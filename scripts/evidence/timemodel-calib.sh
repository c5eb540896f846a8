#!/bin/bash
# timemodel-calib.sh — every microbenchmark a model's constants come from
# (sim.microbenchRuns: microbench, mechanisms, atomics, dram, dispatch,
# contention, l2reuse with Nsight Compute's DRAM bytes, l2store), in one device call on whatever GPU it runs
# on, from the repository root:
#
#   bash scripts/evidence/timemodel-calib.sh "$OUT/calib"
#
# Each goes to a folder of its own under OUTDIR, named as the evidence
# folder it becomes without the GPU and date (microbench/ for
# evidence/timemodel-microbench-<gpu>-<date>, micro-mechanisms/, ...), by
# the script that recorded the H200's (timemodel.sh without a binary: its
# microbenchmark and ncu's launch times, no lesson runs; timemodel-*.sh;
# timemodel-micro.sh). All CUDA C compiled on the GPU host by its nvcc for
# its GPU; no Go binary. About two minutes on an H200; timeline.txt says
# each step's seconds. Written for a second GPU's model (the H100's,
# 2026-12-07): the same rules then set its constants from its own runs.
set -u
E="${1:?usage: timemodel-calib.sh OUTDIR}"
mkdir -p "$E"
E="$(cd "$E" && pwd)"
S="$(cd "$(dirname "$0")" && pwd)"
start=$(date +%s)
log() { echo "$(($(date +%s) - start))s: $*" | tee -a "$E/timeline.txt"; }
log start
mkdir -p "$E/nobin"
timeout 200 bash "$S/timemodel.sh" "$E/nobin" "$E/microbench" >/dev/null 2>&1
log "microbench (exit $?)"
rmdir "$E/nobin"
for n in mechanisms atomics dram; do
	timeout 200 bash "$S/timemodel-$n.sh" "$E/micro-$n" >"$E/micro-$n.log" 2>&1
	log "$n (exit $?)"
done
for n in dispatch contention l2reuse l2store; do
	timeout 150 bash "$S/timemodel-micro.sh" "$n" "$E/$n" >"$E/$n.log" 2>&1
	log "$n (exit $?)"
done
# l2reuse's misses are Nsight Compute's DRAM bytes, added to its CSV
# (evidence/timemodel-l2reuse-h200-2026-12-04's commands): without them the
# model has no L2ReuseBytes (the H100's call of 2026-12-07 03:40 lacked
# this step).
export PATH="$PATH:/usr/local/cuda/bin"
R="$(cd "$S/../.." && pwd)"
if command -v ncu >/dev/null && nvcc -O3 -arch=native -std=c++17 -I "$R/scripts/evidence/timemodel" -o /tmp/calib-l2r "$R/scripts/evidence/timemodel/l2reuse.cu" 2>"$E/l2reuse/nvcc-ncu.err"; then
	timeout 150 ncu --csv --metrics dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_op_read_hit_rate.pct,gpu__time_duration.sum /tmp/calib-l2r once >"$E/l2reuse/ncu.csv" 2>"$E/l2reuse/ncu.err"
	python3 "$R/scripts/evidence/timemodel/l2reuse-ncu.py" "$E/l2reuse/ncu.csv" "$E/l2reuse/l2reuse.csv"
	log "l2reuse ncu (exit $?)"
else
	log "l2reuse ncu: no ncu or nvcc failed"
fi
log done
