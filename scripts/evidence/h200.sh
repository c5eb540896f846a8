#!/bin/bash
# h200.sh — the evidence run on a GPU host (the session's H200 through the
# device tool). Expects, beside the repository, the folder .cache/device with:
#   warplab-cuda      bin/warplab-cuda (scripts/cuda/build.sh)
#   gpuext.test       go test -tags cuda -c ./gpuext/
#   seed_spmv.cu      the Day-37 seed's spmv.cu, extracted from the seed file
#                     (never committed)
#   matrices/*.mtx    the four SuiteSparse matrices of shared/matrices
#
# Writes evidence/ in the repository's layout (evidence/README.md): one folder
# per recorded run, <subject>-<gpu>-<date> (say cg-100-h200-2026-11-30), each
# with env.txt (date, nvidia-smi, nvcc) and a README.md that records GPU,
# driver, date and the exact commands; its "What it supports" section is
# left for whoever commits the run (go test ./internal/evidence fails while
# it says TODO or while evidence/README.md does not link the folder).
# ncu's ==PROF== lines (process ids, this machine's paths) are stripped.
# Everything goes into $OUT/evidence-PART.tar.gz (unpack at the repository
# root) and a summary into $OUT/summary.txt.
#
# PART=A (default): gpuext's tests, launch overhead, the seed against the
#   lesson, the lessons' timings;
# PART=B: Nsight Compute counters (spmv on SuiteSparse, tiling, CG's SpMV);
# PART=C: the self-test and every CG stage at 20³, 50³ and 100³;
# PART=E: the seed, the lesson and ncu on it in one call (issue 4).
set -u
PART=${PART:-A}
D="$(cd "$(dirname "$0")/../.." && pwd)/.cache/device"
E=$(mktemp -d)/evidence; mkdir -p "$E"
cd "$D"
W=./warplab-cuda
METRICS=l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,smsp__inst_executed.sum,gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum
SMEM=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum

ENV=$({ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv; nvcc --version | tail -2; } 2>&1)
GPU_NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
DRIVER=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
NVCC=$(nvcc --version | grep -o 'release [0-9.]*, V[0-9.]*' | head -1)
GPU=$(echo "$GPU_NAME" | awk '{print tolower($NF)}') # "NVIDIA H200" -> h200
DAY=$(date -u +%F)

# run SUBJECT starts the run folder $R = $E/SUBJECT-$GPU-$DAY.
run() {
  R="$E/$1-$GPU-$DAY"
  mkdir -p "$R"
  echo "$ENV" > "$R/env.txt"
  cat > "$R/README.md" <<EOF
# $1 on the $GPU_NAME

GPU: $GPU_NAME, driver $DRIVER, nvcc $NVCC; $(date -u '+%F, %H:%M UTC').
\`W\` is \`bin/warplab-cuda\` and \`D\` the folder \`.cache/device\` on the GPU
host (\`scripts/evidence/h200.sh\`, PART=$PART); files are named as below.

## Command

\`\`\`sh
EOF
}

# cmd CMD... logs the command in the run's README (metric lists spelled
# out, "$R/" left out of file names) and runs it.
cmd() {
  local line="$*"
  line=${line//\$METRICS/$METRICS}; line=${line//\$SMEM/$SMEM}; line=${line//\$M /${M:-} }
  echo "$line" | sed 's/"\$R\/\([^"]*\)"/\1/g' >> "$R/README.md"
  eval "$@"
}

# done_run closes the README; what the run supports is written by hand.
done_run() {
  printf '```\n\n## What it supports\n\nTODO: which claim, in which README, test or notebook.\n' >> "$R/README.md"
}

# noprof drops ncu's ==PROF== lines from stdin.
noprof() { sed '/^==PROF==/d'; }

if [[ $PART == A ]]; then
run gpuext-tests
cmd '(cd "$D/../../gpuext" && "$D/gpuext.test" -test.v -test.timeout 300s > "$R/gpuext-test.txt" 2>&1; echo "gpuext.test exit $?" >> "$R/gpuext-test.txt")'
done_run

run launch-overhead
cmd 'nvcc -O3 -o launchloop launchloop.cu && ./launchloop 20000 > "$R/launch-overhead.txt" 2>&1'
cmd '$W bench launch --backend gpu --n 20000 >> "$R/launch-overhead.txt" 2>&1'
done_run

# The seed's own program against the lesson, alternating, three times each;
# the lesson both ways it loads kernels.
run spmv-vs-seed-2p19
cmd 'nvcc -std=c++17 -O3 -arch=sm_90 -o seed_spmv seed_spmv.cu'
for i in 1 2 3; do
  cmd './seed_spmv > "$R/seed-'$i'.txt" 2>&1'
  cmd 'WARPLAB_PTX_ONLY=1 $W run spmv --backend gpu --probe-blocks 320 --json "$R/ptx-'$i'.json" > "$R/ptx-'$i'.txt" 2>&1'
  cmd '$W run spmv --backend gpu --probe-blocks 320 --json "$R/cubin-'$i'.json" > "$R/cubin-'$i'.txt" 2>&1'
done
done_run

run spmv-2p19
cmd '$W run spmv --backend gpu --json "$R/spmv.json" > "$R/spmv.txt" 2>&1'
cmd '$W run spmv --backend gpu --unroll 1 --json "$R/spmv-unroll1.json" > "$R/spmv-unroll1.txt" 2>&1'
done_run

run tiling-512
cmd '$W run tiling --backend gpu --n 512 --json "$R/tiling.json" > "$R/tiling.txt" 2>&1'
done_run
fi

if [[ $PART == B ]]; then
run spmv-suitesparse-unroll1
for m in matrices/*.mtx; do
  b=$(basename "$m" .mtx)
  cmd 'ncu --clock-control none --metrics $METRICS --csv $W run spmv --backend gpu --matrix '"$m"' --unroll 1 2>> "$R/ncu.err" | noprof > "$R/ncu-'"$b"'.csv"'
  cmd '$W run spmv --backend gpu --matrix '"$m"' --unroll 1 --json "$R/'"$b"'.json" > "$R/'"$b"'.txt" 2>&1'
done
done_run

run tiling-ncu-256
cmd 'ncu --clock-control none --metrics $METRICS,$SMEM --csv $W run tiling --backend gpu --n 256 --no-demos --no-sweep 2> "$R/ncu.err" | noprof > "$R/ncu.csv"'
done_run

run cg-ncu-100
cmd 'ncu --clock-control none --metrics $METRICS --csv -k regex:spmv -c 20 $W run cg --backend gpu --grid 100 --stage all 2> "$R/ncu.err" | noprof > "$R/ncu.csv"'
done_run

run cg-ncu-before-after-100
M=l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,gpu__time_duration.sum,dram__bytes_read.sum
cmd 'ncu --clock-control none --metrics $M -k regex:"^spmvCsrThreadPerRow$" -c 3 --csv $W run cg --backend gpu --grid 100 --stage 4 2>> "$R/ncu.err" | noprof > "$R/ncu-before.csv"'
cmd 'ncu --clock-control none --metrics $M -k regex:"^spmvCsrSubwarp$" -c 3 --csv $W run cg --backend gpu --grid 100 --stage 5 2>> "$R/ncu.err" | noprof > "$R/ncu-after.csv"'
done_run
fi

if [[ $PART == C ]]; then
run selftest
cmd '$W selftest --backend gpu > "$R/selftest.txt" 2>&1; echo "selftest exit $?" >> "$R/selftest.txt"'
done_run
for g in 20 50 100; do
  run cg-$g
  cmd '$W run cg --backend gpu --grid '$g' --stage all --json "$R/cg.json" > "$R/cg.txt" 2>&1'
  done_run
done
fi

# Issue 4's single call: the seed's own spmv.cu, the lesson through
# warplab-cuda, and ncu on the lesson's kernels, one after another.
if [[ $PART == E ]]; then
run spmv-seed-2p19
cmd 'nvcc -std=c++17 -O3 -arch=sm_90 -o seed_spmv seed_spmv.cu'
cmd './seed_spmv > "$R/seed.txt" 2>&1'
cmd '$W run spmv --backend gpu --probe-blocks 320 --json "$R/lesson.json" > "$R/lesson.txt" 2>&1'
cmd 'ncu --clock-control none --metrics $METRICS --csv $W run spmv --backend gpu --probe-blocks 320 2> "$R/ncu.err" | noprof > "$R/ncu-unroll4.csv"'
cmd 'ncu --clock-control none --metrics $METRICS --csv $W run spmv --backend gpu --probe-blocks 320 --unroll 1 2>> "$R/ncu.err" | noprof > "$R/ncu-unroll1.csv"'
done_run
fi

# Empty stderr files say nothing; leave them out.
find "$E" -name '*.err' -empty -delete
cd "$E/.." && tar czf "$OUT/evidence-$PART.tar.gz" evidence
{ echo "$ENV"; find "$E" -type f | sort; for f in "$E"/*/gpuext-test.txt "$E"/*/launch-overhead.txt "$E"/*/selftest.txt; do [[ -f "$f" ]] && tail -8 "$f"; done; } > "$OUT/summary.txt"
cat "$OUT/summary.txt"
