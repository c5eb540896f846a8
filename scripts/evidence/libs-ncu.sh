#!/bin/bash
# libs-ncu.sh — Nsight Compute on the libraries lesson's kernels and on
# cuSPARSE's csrmv on the same dumped matrices, with the L2's work broken
# down by operation (reads, writes, atomics, reductions), to say where a
# kernel that reads the same bytes as cuSPARSE spends its extra time
# (issue 29). One device call; everything it needs comes from the
# environment, as in libs-corpus.sh.
#
# For each case (NCU_CASES, family:rows), in order:
#   1. ours: warplab-cuda run libs --families F --rows R --methods
#      NCU_METHODS under ncu, the kernels NCU_KERNELS (-c NCU_COUNT
#      launches), with the metric list NCU_METRICS filtered to the names
#      this ncu knows (ncu refuses a whole call for one unknown name; the
#      names it dropped are in env.txt); the run dumps the matrix (--dump);
#   2. the peer (scripts/evidence/libs/cusparse_peer.cu, built here) on the
#      dumped matrix under ncu, its kernels NCU_PEER_KERNELS (default
#      cuSPARSE's default algorithm, csrmv_v3_kernel);
#   3. with NCU_EXTRA=1 (default), both again with the breakdowns of the
#      L2's and L1's throughput (which sub-unit is the busy one) and the
#      WarpStateStats section (why warps wait), a call of its own so that a
#      name this ncu lacks costs only that call.
# A case is not started once NCU_BUDGET seconds (default 240) have gone.
#
# Usage: bash scripts/evidence/libs-ncu.sh BINDIR OUTDIR
#   BINDIR holds warplab-cuda (scripts/cuda/build.sh, or go build -tags cuda).
#   NCU_CASES="powerlaw20:8388608 powerlaw20c:8388608" NCU_METHODS=tile,tile_v4
#   NCU_KERNELS='regex:^spmvTile(V4)?$' NCU_COUNT=8 NCU_PEER=1
#   NCU_PEER_KERNELS='regex:csrmv_v3' NCU_PEER_COUNT=4 NCU_EXTRA=1
#   NCU_METRICS=a,b,c (replaces the list below) LIBS_TAR=FILE (pack OUTDIR)
#   NCU_ENV=NAME: the log's name in OUTDIR (default env.txt; another name
#   lets OUTDIR be a corpus run's folder, libs-corpus.sh's env.txt kept).
#   NCU_DRY=1: print the commands instead of running ncu (a local check,
#   with LIBS_BACKEND=sim and small rows).
set -u
BIN="$(cd "$1" && pwd)"
W="${LIBS_WARPLAB:-$BIN/warplab-cuda}"
E="$2"
mkdir -p "$E"
E="$(cd "$E" && pwd)"
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
CASES="${NCU_CASES:-powerlaw20:8388608 powerlaw20c:8388608}"
METHODS="${NCU_METHODS:-tile,tile_v4}"
KERNELS="${NCU_KERNELS:-regex:^spmvTile(V4)?\$}"
COUNT="${NCU_COUNT:-8}"
PEER_KERNELS="${NCU_PEER_KERNELS:-regex:csrmv_v3}"
PEER_COUNT="${NCU_PEER_COUNT:-4}"
BUDGET="${NCU_BUDGET:-240}"
DRY="${NCU_DRY:-0}"
ENVF="${NCU_ENV:-env.txt}"
BACKEND="${LIBS_BACKEND:-gpu}"
# The counters of the earlier profiles (libs-corpus.sh), known to this ncu:
# kept whatever --query-metrics says.
KNOWN="gpu__time_duration dram__bytes_read dram__bytes_write lts__t_sectors_srcunit_tex_op_read lts__t_sector_op_read_hit_rate l1tex__t_requests_pipe_lsu_mem_global_op_ld l1tex__t_sectors_pipe_lsu_mem_global_op_ld l1tex__t_sector_hit_rate sm__warps_active smsp__inst_executed launch__grid_size launch__registers_per_thread dram__throughput lts__throughput"

# The metrics: time; DRAM; the L2's sectors and requests by operation
# (read, write, atom, red) and by source (tex: the SMs' L1); the x gather's
# L2 hit and miss sectors; the L1's global load, store, atomic and
# reduction requests and sectors; instructions and active warps; the
# throughputs the earlier profiles showed at their peak; stall reasons;
# local memory (spills of the driver's JIT compile, which ptxas 11.8's
# register report for the PTX need not show).
DEFAULT_MET="gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread,\
dram__bytes_read.sum,dram__bytes_write.sum,\
lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_atom.sum,lts__t_sectors_op_red.sum,\
lts__t_requests_op_read.sum,lts__t_requests_op_write.sum,lts__t_requests_op_atom.sum,lts__t_requests_op_red.sum,\
lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,\
lts__t_requests_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_write.sum,\
lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,\
lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum,\
lts__t_sector_op_read_hit_rate.pct,lts__t_sectors.sum,lts__t_requests.sum,\
l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,\
l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,\
l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum,\
l1tex__t_requests_pipe_lsu_mem_global_op_red.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum,\
l1tex__t_sector_hit_rate.pct,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,\
smsp__inst_executed.sum,smsp__inst_executed_op_global_st.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,\
sm__warps_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg,\
dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,\
l1tex__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,\
lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed,lts__d_sectors.avg.pct_of_peak_sustained_elapsed,\
lts__t_requests_op_membar.sum,lts__t_sectors_op_write_lookup_hit.sum,lts__t_sectors_op_write_lookup_miss.sum,\
smsp__warp_issue_stalled_membar_per_warp_active.pct,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,\
smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct,smsp__warp_issue_stalled_drain_per_warp_active.pct,\
smsp__warp_issue_stalled_barrier_per_warp_active.pct,smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct,\
smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct,smsp__warp_issue_stalled_wait_per_warp_active.pct,\
l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum"
MET="${NCU_METRICS:-$DEFAULT_MET}"
EXTRA_MET="breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed,breakdown:l1tex__throughput.avg.pct_of_peak_sustained_elapsed,breakdown:gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"

{
	date -u
	nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,memory.total --format=csv 2>&1
	nvcc --version 2>&1 | tail -2
	ncu --version 2>&1 | tail -1
	echo "cases $CASES; methods $METHODS; kernels $KERNELS (-c $COUNT); peer $PEER_KERNELS (-c $PEER_COUNT); budget ${BUDGET}s"
} >"$E/$ENVF"

# Keep the metric names this ncu knows (its base names, --query-metrics),
# so one unknown name does not cost the call.
if [ "$DRY" = 0 ] && ncu --query-metrics >"$T/query.txt" 2>&1 && [ -s "$T/query.txt" ]; then
	cp "$T/query.txt" "$E/ncu-query-metrics.txt"
	keep=""
	drop=""
	IFS=, read -r -a names <<<"$MET"
	for m in "${names[@]}"; do
		base="${m%%.*}"
		if [[ " $KNOWN " == *" $base "* ]] || grep -q "^[[:space:]]*$base[[:space:]]" "$T/query.txt"; then
			keep="$keep${keep:+,}$m"
		else
			drop="$drop $m"
		fi
	done
	echo "metrics kept: $(tr -cd , <<<"$keep" | wc -c | awk '{print $1 + 1}'); dropped (unknown to this ncu):${drop:- none}" >>"$E/$ENVF"
	MET="$keep"
else
	echo "metrics: not filtered (ncu --query-metrics gave nothing)" >>"$E/$ENVF"
fi

PEER="$T/cusparse_peer"
if [ "${NCU_PEER:-1}" = 1 ]; then
	if nvcc -O3 -std=c++17 -DWARPLAB_PREPROCESS -o "$PEER" "$REPO/scripts/evidence/libs/cusparse_peer.cu" -lcusparse 2>"$T/nvcc.err"; then
		echo "peer: built with cusparseSpMV_preprocess" >>"$E/$ENVF"
	elif nvcc -O3 -std=c++17 -o "$PEER" "$REPO/scripts/evidence/libs/cusparse_peer.cu" -lcusparse 2>>"$T/nvcc.err"; then
		echo "peer: built without cusparseSpMV_preprocess" >>"$E/$ENVF"
	else
		echo "peer: not built: $(head -3 "$T/nvcc.err")" >>"$E/$ENVF"
	fi
fi

noprof() { grep -v '^==PROF==' | grep -v '^==WARNING=='; }
# prof LABEL KERNELS COUNT METRICS EXTRAFLAGS -- CMD...
prof() {
	local label="$1" kern="$2" count="$3" met="$4" flags="$5"
	shift 6
	local t0=$SECONDS
	if [ "$DRY" = 1 ]; then
		echo "ncu --clock-control none --metrics ... $flags --csv -k $kern -c $count $*" >>"$E/$ENVF"
		"$@" >"$E/$label.txt" 2>&1
		echo "$label: dry exit $? in $((SECONDS - t0))s" >>"$E/$ENVF"
		return
	fi
	# shellcheck disable=SC2086
	timeout 120 ncu --clock-control none --metrics "$met" $flags --csv -k "$kern" -c "$count" "$@" \
		2>"$E/$label.err" | noprof >"$E/$label.csv"
	echo "$label: exit ${PIPESTATUS[0]} in $((SECONDS - t0))s: -k $kern -c $count $flags" >>"$E/$ENVF"
	[ -s "$E/$label.err" ] || rm -f "$E/$label.err"
}

for c in $CASES; do
	fam="${c%%:*}"
	rows="${c##*:}"
	if [ "$SECONDS" -ge "$BUDGET" ]; then
		echo "case $c: skipped, ${SECONDS}s gone" >>"$E/$ENVF"
		continue
	fi
	key="$fam-$rows"
	rm -rf "$T/d"
	mkdir -p "$T/d"
	ours=("$W" run libs --backend "$BACKEND" --families "$fam" --rows "$rows" --no-pair --methods "$METHODS" --copy-mib -1 --warmups 1 --runs 1)
	prof "ncu-$key-ours" "$KERNELS" "$COUNT" "$MET" "" -- "${ours[@]}" --dump "$T/d"
	csr=("$T"/d/*.csr)
	if [ -x "$PEER" ] && [ -e "${csr[0]}" ]; then
		prof "ncu-$key-cusparse" "$PEER_KERNELS" "$PEER_COUNT" "$MET" "" -- "$PEER" --copy-mib 0 "${csr[@]}"
	fi
	if [ "${NCU_EXTRA:-1}" = 1 ] && [ "$SECONDS" -lt "$BUDGET" ]; then
		prof "ncu-$key-ours-breakdown" "$KERNELS" "$COUNT" "$EXTRA_MET" "--section WarpStateStats" -- "${ours[@]}"
		if [ -x "$PEER" ] && [ -e "${csr[0]}" ]; then
			prof "ncu-$key-cusparse-breakdown" "$PEER_KERNELS" "$PEER_COUNT" "$EXTRA_MET" "--section WarpStateStats" -- "$PEER" --copy-mib 0 "${csr[@]}"
		fi
	fi
	rm -rf "$T/d"
done
echo "total ${SECONDS}s" >>"$E/$ENVF"
if [ -n "${LIBS_TAR:-}" ]; then
	tar czf "$LIBS_TAR" -C "$(dirname "$E")" "$(basename "$E")" && echo "packed into $LIBS_TAR" >&2
fi
cat "$E/$ENVF"
echo "libs-ncu.sh: done, files in $E"
