#!/usr/bin/env bash
# backend-check.sh — one device call that checks the redesigned CUDA backend
# (issue 30: one backend interface, kernel handles, one Launch) and the
# simulator's kernel corpus (issue 28) on a GPU. Built here first:
#   scripts/cuda/build.sh
#   (source scripts/cuda/env.sh 11.8 && go test -c -tags cuda -o bin/gpuext.test ./gpuext)
#   WARPLAB_CORPUS_MANIFEST=$PWD/bin/corpus-manifest.json go test ./sim -run TestCorpusManifest
# then on the device (carry bin): bash scripts/evidence/backend-check.sh
# Results: $OUT/backend-check.tar.gz and $OUT/summary.txt.
# BIN names the folder of the two binaries (default bin); the corpus part
# runs only where the manifest is there.
set -u
BIN="${BIN:-bin}"
repo="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$repo"
E="$(mktemp -d)/backend-check"
mkdir -p "$E"
{
	date -u
	nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
} >"$E/env.txt" 2>&1
timeout 150 "$BIN/warplab-cuda" selftest --backend gpu >"$E/selftest.txt" 2>&1
echo "selftest exit $?" >>"$E/selftest.txt"
(cd gpuext && timeout 200 "../$BIN/gpuext.test" -test.v -test.timeout 190s) >"$E/gpuext-test.txt" 2>&1
echo "gpuext.test exit $?" >>"$E/gpuext-test.txt"
for l in spmv tiling libs; do
	timeout 60 "$BIN/warplab-cuda" run $l --backend gpu >"$E/run-$l.txt" 2>&1
	echo "exit $?" >>"$E/run-$l.txt"
done
timeout 60 "$BIN/warplab-cuda" run cg --backend gpu --grid 20 --stage all >"$E/run-cg.txt" 2>&1
echo "exit $?" >>"$E/run-cg.txt"
if [[ -f "$BIN/corpus-manifest.json" ]]; then
	timeout 60 bash scripts/evidence/ptx-corpus.sh "$BIN/corpus-manifest.json" "$E/ptx-corpus" >/dev/null 2>&1
	echo "ptx-corpus exit $?" >>"$E/env.txt"
fi
tar -C "$(dirname "$E")" -czf "$OUT/backend-check.tar.gz" backend-check
{
	cat "$E/env.txt"
	tail -3 "$E/selftest.txt"
	grep -E '^(--- FAIL|ok|PASS|FAIL)|exit' "$E/gpuext-test.txt"
	for l in spmv tiling libs cg; do echo "run $l: $(tail -1 "$E/run-$l.txt")"; done
	tail -3 "$E/ptx-corpus/log.txt" 2>/dev/null
} >"$OUT/summary.txt"
cat "$OUT/summary.txt"
