#!/bin/bash
# h200.sh — the evidence run on a GPU host (the session's H200 through the
# device tool). Expects, beside the repository, the folder .cache/device with:
#   warplab-cuda      bin/warplab-cuda (scripts/cuda/build.sh)
#   gpuext.test       go test -tags cuda -c ./gpuext/
#   seed_spmv.cu      the Day-37 seed's spmv.cu, extracted from the seed file
#                     (never committed)
#   matrices/*.mtx    the four SuiteSparse matrices of shared/matrices
# Writes everything into $OUT/evidence-PART.tar.gz and a summary to $OUT/summary.txt.
# PART=A (default): tests, launch overhead, seed comparison, timings,
# self-test, CG; PART=B: the Nsight Compute counters (ncu); PART=C: only
# the self-test and CG of part A; PART=D: CG's fused stage and ncu before/after;
# PART=E: the seed, the lesson and ncu on it in one call (issue 4).
set -u
PART=${PART:-A}
D="$(cd "$(dirname "$0")/../.." && pwd)/.cache/device"
E=$(mktemp -d)/evidence; mkdir -p "$E"
cd "$D"
W=./warplab-cuda
METRICS=l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,smsp__inst_executed.sum,gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum
SMEM=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum

{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv; nvcc --version | tail -2; } > "$E/env.txt" 2>&1

if [[ $PART == A ]]; then
# 1. gpuext's GPU tests, whole output, and the launch-overhead benchmark.
(cd "$D/../../gpuext" && "$D/gpuext.test" -test.v -test.timeout 300s > "$E/gpuext-test.txt" 2>&1; echo "gpuext.test exit $?" >> "$E/gpuext-test.txt")

# 2. Launch overhead: Go through gpuext against a C loop, same GPU.
nvcc -O3 -o launchloop launchloop.cu && ./launchloop 20000 > "$E/launch-overhead.txt" 2>&1
$W bench launch --backend gpu --n 20000 >> "$E/launch-overhead.txt" 2>&1

# 3. The seed's own program against our lesson, same process-free setting,
#    three times each, alternating; our side both ways it loads kernels.
nvcc -std=c++17 -O3 -arch=sm_90 -o seed_spmv seed_spmv.cu
for i in 1 2 3; do
  ./seed_spmv > "$E/seed-run-$i.txt" 2>&1
  WARPLAB_PTX_ONLY=1 $W run spmv --backend gpu --probe-blocks 320 --json "$E/ours-ptx-$i.json" > "$E/ours-ptx-$i.txt" 2>&1
  $W run spmv --backend gpu --probe-blocks 320 --json "$E/ours-cubin-$i.json" > "$E/ours-cubin-$i.txt" 2>&1
done
$W run spmv --backend gpu --json "$E/spmv-gpu-default.json" > "$E/spmv-gpu-default.txt" 2>&1
$W run spmv --backend gpu --unroll 1 --json "$E/spmv-gpu-unroll1.json" > "$E/spmv-gpu-unroll1.txt" 2>&1

$W run tiling --backend gpu --n 512 --json "$E/tiling-gpu-512.json" > "$E/tiling-gpu-512.txt" 2>&1
fi

if [[ $PART == A || $PART == C ]]; then
$W selftest --backend gpu > "$E/selftest.txt" 2>&1; echo "selftest exit $?" >> "$E/selftest.txt"
if $W run cg -h > /dev/null 2>&1; then
  for g in 20 50 100; do
    $W run cg --backend gpu --grid $g --stage all --json "$E/cg-gpu-$g.json" > "$E/cg-gpu-$g.txt" 2>&1
  done
fi
fi

if [[ $PART == B ]]; then
# 4. ncu on our kernels: seed matrices (as compiled, and #pragma unroll 1),
#    and the four SuiteSparse matrices with #pragma unroll 1.
WARPLAB_PTX_ONLY=0 ncu --clock-control none --metrics $METRICS --csv $W run spmv --backend gpu --probe-blocks 320 > "$E/ncu-spmv-seed-unroll4.csv" 2> "$E/ncu-spmv.err"
ncu --clock-control none --metrics $METRICS --csv $W run spmv --backend gpu --probe-blocks 320 --unroll 1 > "$E/ncu-spmv-seed-unroll1.csv" 2>> "$E/ncu-spmv.err"
for m in matrices/*.mtx; do
  b=$(basename "$m" .mtx)
  ncu --clock-control none --metrics $METRICS --csv $W run spmv --backend gpu --matrix "$m" --unroll 1 > "$E/ncu-spmv-$b-unroll1.csv" 2>> "$E/ncu-spmv.err"
  $W run spmv --backend gpu --matrix "$m" --unroll 1 --json "$E/spmv-gpu-$b.json" > "$E/spmv-gpu-$b.txt" 2>&1
done

# 5. Lecture 4: ncu with global and shared-memory counters (no demos under
#    the profiler).
ncu --clock-control none --metrics $METRICS,$SMEM --csv $W run tiling --backend gpu --n 256 --no-demos --no-sweep > "$E/ncu-tiling-256.csv" 2> "$E/ncu-tiling.err"

# 6. ncu on the CG lesson's SpMV kernels at 100^3.
if $W run cg -h > /dev/null 2>&1; then
  ncu --clock-control none --metrics $METRICS --csv -k regex:spmv -c 20 $W run cg --backend gpu --grid 100 --stage all > "$E/ncu-cg-100.csv" 2> "$E/ncu-cg.err"
fi

fi

# PART=D: the CG lesson's fused stage 6, threads per row, ncu before/after,
# and the self-test again with every stage.
if [[ $PART == D ]]; then
$W selftest --backend gpu > "$E/selftest-final.txt" 2>&1; echo "selftest exit $?" >> "$E/selftest-final.txt"
$W run cg --backend gpu --grid 100 --stage 0,5,6 --json "$E/cg-gpu-100-fused.json" > "$E/cg-gpu-100-fused.txt" 2>&1
$W run cg --backend gpu --grid 100 --stage 5,6 --threads-per-row 4 --json "$E/cg-gpu-100-tpr4.json" > "$E/cg-gpu-100-tpr4.txt" 2>&1
M=l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,gpu__time_duration.sum,dram__bytes_read.sum
ncu --clock-control none --metrics $M -k regex:'^spmvCsrThreadPerRow$' -c 3 --csv $W run cg --backend gpu --grid 100 --stage 4 > "$E/ncu-cg-before-100.csv" 2> "$E/ncu-cg-d.err"
ncu --clock-control none --metrics $M -k regex:'^spmvCsrSubwarp$' -c 3 --csv $W run cg --backend gpu --grid 100 --stage 5 > "$E/ncu-cg-after-100.csv" 2>> "$E/ncu-cg-d.err"
fi

# PART=E: issue 4's single call: the seed's own spmv.cu, the lesson through
# warplab-cuda, and ncu on the lesson's kernels, one after another.
if [[ $PART == E ]]; then
nvcc -std=c++17 -O3 -arch=sm_90 -o seed_spmv seed_spmv.cu
./seed_spmv > "$E/one-call-seed.txt" 2>&1
$W run spmv --backend gpu --probe-blocks 320 --json "$E/one-call-lesson.json" > "$E/one-call-lesson.txt" 2>&1
ncu --clock-control none --metrics $METRICS --csv $W run spmv --backend gpu --probe-blocks 320 > "$E/one-call-ncu-unroll4.csv" 2> "$E/one-call-ncu.err"
ncu --clock-control none --metrics $METRICS --csv $W run spmv --backend gpu --probe-blocks 320 --unroll 1 > "$E/one-call-ncu-unroll1.csv" 2>> "$E/one-call-ncu.err"
fi

cd "$E/.." && tar czf "$OUT/evidence-$PART.tar.gz" evidence
{ cat "$E/env.txt"; ls -la "$E"; for f in gpuext-test.txt launch-overhead.txt selftest.txt selftest-final.txt; do [[ -f "$E/$f" ]] && tail -8 "$E/$f"; done; } > "$OUT/summary.txt"
cat "$OUT/summary.txt"
