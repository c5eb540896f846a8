#!/bin/bash
# libs-h200-call.sh — one H200 device call for issues 27 and 29 together,
# from the repository root, with a pack from libs-ab-pack.sh:
#
#   bash scripts/evidence/libs-h200-call.sh PACKDIR OUTDIR
#
# Does nothing (and says so) unless the card is an H200: the corpus
# goals and the time model's constants are the H200's, and the device
# tool lends H100s too. On an H200, in this order:
#  1. OUTDIR/launch: scripts/evidence/timemodel-launchargs.sh with the
#     pack's first candidate, five passes (`warplab bench launch`: the
#     launch floor by arguments, the split kernels' fourteen among them),
#     then the libs lesson at 2^14 rows twice (vector4, vector8, split4,
#     split8, tile on uniform, powerlaw20, banded): the floor and the
#     lesson's calls on one host (issue 27, held out). Recorded as
#     evidence/timemodel-launchmany-h200-DATE, its launch-go-r*.txt join
#     every lease's launch records (timecheck's launchRuns), whose medians
#     set the model's TimedLaunch and its per-buffer and per-scalar costs
#     (sim/model.go; TestEmbeddedPromise): the lesson check, the sweep's
#     report and the pinned times are then made again
#     (scripts/evidence/timemodel/RECORDING.md).
#  2. OUTDIR/ab: libs-ab-corpus.sh over the pack's candidates (AB_NAMES,
#     default every NAME in PACKDIR/COMMITS), the corpus run with the
#     winner unless the first candidate (the build the recorded corpus
#     ran) wins; Nsight Compute after it only with AB_NCU=1 (default 0:
#     it costs up to NCU_BUDGET seconds more).
# About 430 s of device time with the machine's start (NCU off).
set -u
P="${1:?usage: libs-h200-call.sh PACKDIR OUTDIR}"
E="${2:?usage: libs-h200-call.sh PACKDIR OUTDIR}"
R="$(cd "$(dirname "$0")/../.." && pwd)"
card="$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
echo "card: $card"
case "$card" in
*H200*) ;;
*) echo "libs-h200-call: not an H200, nothing run"; exit 0 ;;
esac
P="$(cd "$P" && pwd)"
names="${AB_NAMES:-$(sed -n 's/^\([A-Za-z0-9_-]*\):.*/\1/p' "$P/COMMITS" | tr '\n' ' ')}"
first="${names%% *}"
mkdir -p "$E/launch"
E="$(cd "$E" && pwd)"
bash "$R/scripts/evidence/timemodel-launchargs.sh" "$P/$first" "$E/launch" 5
for r in 1 2; do
	"$P/$first/warplab-cuda" run libs --backend gpu --rows 16384 --no-pair \
		--families uniform,powerlaw20,banded --methods vector4,vector8,split4,split8,tile \
		--copy-mib -1 --json "$E/launch/libs-floor-r$r.json" >"$E/launch/libs-floor-r$r.txt" 2>&1
	echo "libs floor r$r: exit $?" | tee -a "$E/launch/timeline.txt"
done
AB_NCU="${AB_NCU:-0}" AB_NAMES="$names" AB_CORPUS_UNLESS="$first" LIBS_BUDGET="${LIBS_BUDGET:-260}" \
	bash "$R/scripts/evidence/libs-ab-corpus.sh" "$P" "$E/ab"
