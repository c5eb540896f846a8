#!/usr/bin/env bash
# ptx-corpus.sh — run the simulator's kernel corpus (sim/testdata/corpus,
# issue 28) on a GPU with CuPy, from the same PTX the simulator runs; then
# the same launches under Nsight Compute (global requests and sectors,
# shared-memory wavefronts, tensor-pipe instructions), and the tensor
# cores' mma.sync throughput microbenchmark (ptx-mma-bench.cu).
#
# Here (Go):   WARPLAB_CORPUS_MANIFEST=$PWD/.cache/ptx-corpus/manifest.json \
#                go test ./sim -run TestCorpusManifest
# Device:      bash scripts/evidence/ptx-corpus.sh .cache/ptx-corpus/manifest.json $OUT
#              (carry [".cache/ptx-corpus"]; the device needs Python, CuPy, nvidia-smi, ncu, nvcc)
# Then:        copy $OUT's files into evidence/ptx-corpus-<gpu>-<date>/ and run
#              go test ./sim -run 'TestCorpusH200|TestCorpusNcu'
set -uo pipefail
manifest="$1"
out="$2"
mkdir -p "$out"
export PATH="$PATH:/usr/local/cuda/bin"
cp "$manifest" "$out/manifest.json"
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
	ncu --version | tail -1
	nvcc --version | tail -2
} >"$out/nvidia-smi.txt" 2>&1
# 1. The outputs (results.json, log.txt, env.txt).
timeout 90 python3 scripts/evidence/ptx-corpus.py "$manifest" sim/testdata/corpus "$out" 2>&1 | tee "$out/log.txt"

# 2. The counters: every launch of the same run under ncu, in manifest
# order (ncu's launch ID i is case i). Metrics the GPU's ncu does not know
# are left out (their names differ across architectures).
ncu --query-metrics >/tmp/metrics.txt 2>&1
M=""
for m in l1tex__t_requests_pipe_lsu_mem_global_op_ld l1tex__t_sectors_pipe_lsu_mem_global_op_ld \
	l1tex__t_requests_pipe_lsu_mem_global_op_st l1tex__t_sectors_pipe_lsu_mem_global_op_st \
	l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st \
	smsp__inst_executed_pipe_tensor smsp__inst_executed_pipe_tensor_op_hmma smsp__inst_executed; do
	if grep -qw "^$m" /tmp/metrics.txt; then M="$M${M:+,}$m.sum"; else echo "ncu has no $m" >>"$out/nvidia-smi.txt"; fi
done
if [ -z "$M" ]; then # the query failed: the metrics every recorded H200 run had
	M=l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
	M=$M,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,smsp__inst_executed.sum
fi
echo "metrics: $M" >>"$out/nvidia-smi.txt"
timeout 150 ncu --clock-control none --metrics "$M" --csv \
	python3 scripts/evidence/ptx-corpus.py "$manifest" sim/testdata/corpus /tmp/ncu-run 2>"$out/ncu.err" |
	grep -v '^==PROF==' >"$out/ncu.csv"
echo "ncu: exit ${PIPESTATUS[0]}, $(grep -c . "$out/ncu.csv") lines" >>"$out/nvidia-smi.txt"
[ -s "$out/ncu.err" ] && tail -5 "$out/ncu.err" >>"$out/nvidia-smi.txt"
rm -f "$out/ncu.err"

# 3. The mma.sync throughput, and ncu's tensor-pipe count of one warp's mma.
nvcc -O3 -arch=sm_90 -o /tmp/mma-bench scripts/evidence/ptx-mma-bench.cu &&
	timeout 40 /tmp/mma-bench >"$out/mma-bench.csv" 2>&1
cat "$out/mma-bench.csv"
cat "$out/nvidia-smi.txt"
