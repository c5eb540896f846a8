#!/bin/bash
# h200-open.sh — what issues 27 and 29 still need from an H200, in three
# device calls of at most 600 s each (one after another, while the
# machine is warm), from the repository root:
#
#   bash scripts/evidence/libs-ab-pack.sh .cache/ab/plan A=-   # here; carry .cache/ab/plan.tgz
#   bash scripts/evidence/h200-open.sh 1 /tmp/res && tar -C /tmp -czf $OUT/res1.tgz res
#   bash scripts/evidence/h200-open.sh 2 /tmp/res && tar -C /tmp -czf $OUT/res2.tgz res
#   bash scripts/evidence/h200-open.sh 3 /tmp/res && tar -C /tmp -czf $OUT/res3.tgz res
#
# Part 1 (about 330 s): l2warm.cu (the thirty-eighth pass's microbenchmark,
# for the H200's own verdict), copyinflight.cu (the thirty-seventh pass's;
# the H200 has no run), and the sweep, two passes beside launch records
# (timemodel-sweep.sh BIN OUT 100 sweep-r4 sweep-r5). Part 2 (about 200
# s): the libs corpus with the peer and launch records, timed with planned
# launches (libs-corpus.sh, no Nsight Compute), for issue 29's table and
# chooser fit and issue 27's held-out runs. Part 3 (about 150 s):
# l2persist.cu (libs-l2persist.sh), x held in L2 by an access policy
# window, by the rule in its header (issue 29; on an H100 the window cost
# 14%, evidence/libs-l2persist-h100-2026-12-07; the H200 has 60 MiB of
# L2). A GPU other than an H200 runs nothing (exit 3): the rules these
# feed are the H200's.
# Each step writes evidence/-shaped folders under OUTDIR named
# <subject>-h200-<date>; their READMEs are written when they are committed.
# Then, on the development machine, each microbenchmark's verdict by its
# rule: scripts/evidence/timemodel-judge.sh h200 l2warm|copyinflight CSV
# (after the new sweep folder is in evidence/, so both sides see it).
set -u
P="${1:?usage: h200-open.sh 1|2|3 OUTDIR}"
O="${2:?usage: h200-open.sh 1|2|3 OUTDIR}"
R="$(cd "$(dirname "$0")/../.." && pwd)"
G="$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
echo "$G"
case "$G" in *H200*) ;; *) echo "h200-open: not an H200; nothing run"; exit 3 ;; esac
D="$(date -u +%Y-%m-%d)"
mkdir -p "$O"
[ -x /tmp/plan/A/warplab-cuda ] || tar -C /tmp -xzf "$R/.cache/ab/plan.tgz"
case "$P" in
1)
	timeout 100 bash "$R/scripts/evidence/timemodel-l2warm.sh" "$O/timemodel-l2warm-h200-$D" >"$O/l2warm.log" 2>&1
	timeout 80 bash "$R/scripts/evidence/timemodel-micro.sh" copyinflight "$O/timemodel-copyinflight-h200-$D" >"$O/micro.log" 2>&1
	timeout 250 bash "$R/scripts/evidence/timemodel-sweep.sh" /tmp/plan/A "$O/timemodel-sweep-h200-$D" 100 sweep-r4 sweep-r5 >"$O/sweep.log" 2>&1
	;;
2)
	LIBS_NCU=0 LIBS_BUDGET=230 LIBS_MATRICES=/tmp/plan/matrices timeout 400 \
		bash "$R/scripts/evidence/libs-corpus.sh" /tmp/plan/A "$O/libs-corpus-h200-$D" >"$O/corpus.log" 2>&1
	;;
3)
	timeout 200 bash "$R/scripts/evidence/libs-l2persist.sh" "$O/libs-l2persist-h200-$D" >"$O/l2persist.log" 2>&1
	;;
*)
	echo "h200-open: part 1, 2 or 3" >&2
	exit 2
	;;
esac
echo "h200-open: part $P done"
