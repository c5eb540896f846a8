#!/bin/bash
# libs-l2persist.sh — scripts/evidence/libs/l2persist.cu on the corpus's
# random- and clustered-column power laws at 2^23 rows and uniform-2^20,
# on the GPU host, from the repository root (issue 29):
#
#   bash scripts/evidence/libs-ab-pack.sh .cache/ab/plan A=-   # here; carry .cache/ab/plan.tgz
#   bash scripts/evidence/libs-l2persist.sh /tmp/res/libs-l2persist-<gpu>-<date>
#
# The matrices come from the lesson's generator (`warplab-cuda run libs
# --dump`, the tiles run once beside it), the program is built with the
# host's nvcc; OUT gets l2persist.jsonl, dump.txt, build.txt and env.txt.
set -u
O="${1:?usage: libs-l2persist.sh OUTDIR}"
R="$(cd "$(dirname "$0")/../.." && pwd)"
mkdir -p "$O"
[ -x /tmp/plan/A/warplab-cuda ] || tar -C /tmp -xzf "$R/.cache/ab/plan.tgz"
D=/tmp/l2persist-dump
rm -rf "$D" && mkdir -p "$D"
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv
	nvcc --version | tail -2
} >"$O/env.txt" 2>&1
W=/tmp/plan/A/warplab-cuda
$W run libs --backend gpu --families powerlaw15,powerlaw20,powerlaw20c --rows 8388608 --no-pair --copy-mib -1 \
	--methods tile --runs 1 --warmups 1 --dump "$D" >"$O/dump.txt" 2>&1
$W run libs --backend gpu --families uniform --rows 1048576 --no-pair --copy-mib -1 \
	--methods tile --runs 1 --warmups 1 --dump "$D" >>"$O/dump.txt" 2>&1
nvcc -O3 -arch=sm_90 -o /tmp/l2persist "$R/scripts/evidence/libs/l2persist.cu" -lcusparse >"$O/build.txt" 2>&1
/tmp/l2persist "$D"/*.csr >"$O/l2persist.jsonl" 2>"$O/l2persist.err"
echo "l2persist exit $?" >>"$O/l2persist.err"
rm -rf "$D"
