#!/bin/bash
# selftest-ptx.sh — issue 11's GPU check of the simulator's PTX executor, in
# one device call (the session's H200):
#   1. `warplab selftest --backend gpu` with WARPLAB_PTX_ONLY=1: the GPU
#      JIT-loads the embedded nvcc-11.8 PTX, and the simulator runs that PTX;
#   2. the same with nvcc on PATH: the GPU loads a cubin from this machine's
#      nvcc, and the simulator runs `nvcc -ptx` of the same source and flags;
#      each self-test requires the GPU's outputs to equal the PTX simulator's
#      bit for bit (selftest_ptx.go says where a tolerance would apply);
#   3. Nsight Compute on the Day-37 lesson (seed matrices, 2^19 rows, the
#      seed's 320-block probe) loaded from the embedded PTX, as compiled and
#      with #pragma unroll 1, for the requests and sectors the simulator's PTX
#      path gives (warplab run spmv --backend sim, here; WARPLAB_SIM_PTX=1 was needed when Go mirrors ran by default);
#   4. when time is left, the same ncu runs on the cubin path.
#
# Built beforehand on a machine with Go (the GPU host has none):
#   WARPLAB_CUDA=13.0 scripts/cuda/build.sh
#   mkdir -p .cache/selftest-ptx && cp bin/warplab-cuda .cache/selftest-ptx/
# plus .cache/selftest-ptx/BUILD.txt (commit, go version, cuda.h); the call
# carries .cache/selftest-ptx. ncu's ==PROF== lines are stripped. Writes
# $OUT/selftest-ptx.tar.gz and $OUT/summary.txt.
set -u
export PATH="$PATH:/usr/local/cuda/bin"
repo="$(cd "$(dirname "$0")/../.." && pwd)"
B="$repo/.cache/selftest-ptx"
W="$B/warplab-cuda"
E="$(mktemp -d)/selftest-ptx"
mkdir -p "$E"
start=$(date +%s)
elapsed() { echo $(($(date +%s) - start)); }
METRICS=l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,smsp__inst_executed.sum,gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum
noprof() { sed '/^==PROF==/d'; }
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv
	nvcc --version | tail -2
	ncu --version | tail -1
} >"$E/env.txt" 2>&1
cp "$B/BUILD.txt" "$E/"
# A fresh cubin cache, so the cubin and its PTX are made by this nvcc now.
export WARPLAB_CUBIN_CACHE="$(mktemp -d)"

log() { echo "$(elapsed)s: $*" >>"$E/timeline.txt"; }
log "start"
WARPLAB_PTX_ONLY=1 timeout 150 "$W" selftest --backend gpu >"$E/selftest-ptx-only.txt" 2>&1
echo "selftest exit $?" >>"$E/selftest-ptx-only.txt"
log "self-test, embedded PTX"
timeout 150 "$W" selftest --backend gpu >"$E/selftest-cubin.txt" 2>&1
echo "selftest exit $?" >>"$E/selftest-cubin.txt"
log "self-test, cubin"
ls -l "$WARPLAB_CUBIN_CACHE" >"$E/cubin-cache.txt" 2>&1
for u in 4 1; do
	WARPLAB_PTX_ONLY=1 timeout 120 ncu --clock-control none --metrics "$METRICS" --csv "$W" run spmv --backend gpu --probe-blocks 320 --unroll $u 2>>"$E/ncu.err" | noprof >"$E/ncu-ptx-unroll$u.csv"
	log "ncu, embedded PTX, unroll $u (exit ${PIPESTATUS[0]})"
done
for u in 4 1; do
	if (($(elapsed) > 230)); then
		log "ncu on the cubin path, unroll $u: skipped (time)"
		continue
	fi
	timeout 90 ncu --clock-control none --metrics "$METRICS" --csv "$W" run spmv --backend gpu --probe-blocks 320 --unroll $u 2>>"$E/ncu.err" | noprof >"$E/ncu-cubin-unroll$u.csv"
	log "ncu, cubin, unroll $u (exit ${PIPESTATUS[0]})"
done
noprof <"$E/ncu.err" >"$E/ncu.err.txt" && rm "$E/ncu.err"

tar -C "$(dirname "$E")" -czf "$OUT/selftest-ptx.tar.gz" selftest-ptx
{
	cat "$E/env.txt" "$E/timeline.txt"
	for f in selftest-ptx-only selftest-cubin; do
		echo "== $f"
		grep -E '^(selftest on|GPU backend|spmv:|cg:|tiling:|all kernels)|exit|failed' "$E/$f.txt"
	done
} >"$OUT/summary.txt"
cat "$OUT/summary.txt"
