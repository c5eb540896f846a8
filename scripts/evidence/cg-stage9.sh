#!/bin/bash
# cg-stage9.sh — issue 14's CG goal on a GPU host (the session's H200 through
# the device tool): CG at 100³ with the host out of the loop, stage 9 (CSR,
# spmvCsrVector8) and stage 10 (matrix-free), against stages 7 and 8, in one
# call. Goal: 149 iterations in at most 20 ms on the CSR path and at most
# 10 ms matrix-free, the residual history within stage 0's tolerance.
#
# What it runs (about 2.5 minutes on the H200; stage 0, HPCCG's serial CG
# on the host CPU, runs as the residual reference in every `run cg`, about
# 7 s at 100³):
#   1. `run cg --stage 7,8,9,10` three times (run1..3.{json,txt}): wall time
#      (host clock around the solve), per-kernel CUDA-event times, kernels
#      against GPU idle ("where the time goes"), residuals against stage 0.
#   2. stage 9 with 4, 16 and 32 threads a row (w4, w16, w32.{json,txt}),
#      the width sweep behind the default of 8.
#   3. Nsight Compute on the first launches of stage 7's and stages 9/10's
#      kernels with --max-iter 3 (ncu-*.csv): duration, DRAM bytes, load
#      requests and sectors, registers, achieved occupancy, for the SpMV
#      choice (spmvCsrSubwarp against spmvCsrVector4/8/16) and the fused
#      update kernels. --clock-control none, as every recorded ncu run.
#
#   4. if BINDIR has cg.test: stages 9 and 10 with graphs of 16
#      iterations, one graph, and plain launches (variants.{txt,json}).
#
# Usage: cg-stage9.sh BINDIR OUTDIR
# BINDIR holds warplab-cuda (and, for step 4, cg.test), built beforehand on
# a machine with Go (the GPU host has none):
#   source scripts/cuda/env.sh 13.0
#   CGO_ENABLED=1 go build -tags cuda -ldflags='-s -w' -o .cache/device/warplab-cuda ./cmd/warplab
#   CGO_ENABLED=1 go test -tags cuda -c -ldflags='-s -w' -o .cache/device/cg.test ./lessons/cg
# Everything goes to OUTDIR (env.txt, the runs, the CSVs, summary.txt),
# which becomes evidence/cg-stage9-h200-<date>/.
set -u
W="$(cd "$1" && pwd)/warplab-cuda"
E="$2"
mkdir -p "$E"
start=$(date +%s)
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,memory.total --format=csv
	nvidia-smi
	command -v ncu >/dev/null && ncu --version | tail -1
} >"$E/env.txt" 2>&1

# 1. Stages 7-10, three times.
# A stage that fails ends its `run cg` without a report; then stages 7 and
# 8 run again alone (run<i>-78), so the baseline of the call is kept.
for i in 1 2 3; do
	"$W" run cg --backend gpu --grid 100 --stage 7,8,9,10 --json "$E/run$i.json" >"$E/run$i.txt" 2>&1
	rc=$?
	echo "run$i exit $rc" >>"$E/env.txt"
	if [ $rc -ne 0 ]; then
		"$W" run cg --backend gpu --grid 100 --stage 7,8 --json "$E/run$i-78.json" >"$E/run$i-78.txt" 2>&1
		echo "run$i-78 exit $?" >>"$E/env.txt"
	fi
done

# 2. Stage 9's group width.
for w in 4 16 32; do
	"$W" run cg --backend gpu --grid 100 --stage 9 --threads-per-row "$w" --json "$E/w$w.json" >"$E/w$w.txt" 2>&1
	echo "w$w exit $?" >>"$E/env.txt"
done

# 3. Nsight Compute, first launches only (--max-iter 3 keeps stage 0 short).
if command -v ncu >/dev/null; then
	M=gpu__time_duration.sum
	M=$M,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
	M=$M,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
	M=$M,sm__warps_active.avg.pct_of_peak_sustained_active
	M=$M,launch__grid_size,launch__block_size,launch__registers_per_thread
	noprof() { grep -v '^==PROF==' || true; }
	prof() { # name stage kernel-regex count [flags...]
		local name=$1 stage=$2 re=$3 count=$4
		shift 4
		ncu --clock-control none --metrics "$M" --csv -k regex:"$re" -c "$count" \
			"$W" run cg --backend gpu --grid 100 --max-iter 3 --stage "$stage" "$@" \
			2>"$E/ncu-$name.err" | noprof >"$E/ncu-$name.csv"
		echo "ncu-$name exit ${PIPESTATUS[0]}" >>"$E/env.txt"
		[ -s "$E/ncu-$name.err" ] || rm -f "$E/ncu-$name.err"
	}
	prof stage7 7 'spmvCsrSubwarp|waxpbyDeviceScalar|ddotPartial|ddotFinalDivide|updateXRDotTo' 12
	prof stage9-w8 9 'spmvCsrVector|cgBetaUpdateP|cgAlphaUpdateXR' 9
	prof stage9-w4 9 'spmvCsrVector' 3 --threads-per-row 4
	prof stage9-w16 9 'spmvCsrVector' 3 --threads-per-row 16
	prof stage10 10 'spmvStencil27Dot|cgBetaUpdateP|cgAlphaUpdateXR' 9
else
	echo "no ncu on PATH: step 3 skipped" >>"$E/env.txt"
fi

# 4. What the graph buys (optional: BINDIR/cg.test, the lesson's cuda-tagged
#    test binary): stages 9 and 10 with graphs of 16 iterations, one graph
#    for the whole loop, and plain launches of the same kernels, three runs
#    each (variants.txt, variants.json).
if [ -x "$(dirname "$W")/cg.test" ]; then
	WARPLAB_CG_OUT="$E" "$(dirname "$W")/cg.test" -test.run TestGPUDeviceLoopVariants -test.v >"$E/variants.txt" 2>&1
	echo "variants exit $?" >>"$E/env.txt"
else
	echo "no cg.test beside warplab-cuda: step 4 skipped" >>"$E/env.txt"
fi

# Summary: each run's summary table rows for stages 7-10.
{
	echo "cg-stage9: $(head -1 "$E/env.txt"); $(($(date +%s) - start)) s"
	grep -h -A1 '^name' "$E/env.txt" | tail -1
	for f in run1 run1-78 run2 run2-78 run3 run3-78 w4 w16 w32; do
		[ -f "$E/$f.txt" ] || continue
		echo "== $f"
		grep -E '^ +(7|8|9|10) +[a-z-]+ +(gpu|sim) ' "$E/$f.txt" || tail -3 "$E/$f.txt"
		# "where the time goes" and the line after it (GPU idle), by stage.
		awk '/^== Stage/ {s = $3} /where the time goes/ {n = 2} n > 0 {sub(/^ */, ""); print "   stage " s ": " $0; n--}' "$E/$f.txt"
	done
	[ -f "$E/variants.txt" ] && grep -E 'stage (9|10) .* run [0-9]:' "$E/variants.txt" | sed 's/^ *[a-z_]*\.go:[0-9]*: /   /'
	grep -h 'exit' "$E/env.txt"
} >"$E/summary.txt"
cat "$E/summary.txt"
