#!/usr/bin/env bash
# ptx-corpus.sh — run the simulator's kernel corpus (sim/testdata/corpus,
# issue 28) on a GPU with CuPy, from the same PTX the simulator runs.
#
# Here (Go):   WARPLAB_CORPUS_MANIFEST=$PWD/.cache/ptx-corpus/manifest.json \
#                go test ./sim -run TestCorpusManifest
# Device:      bash scripts/evidence/ptx-corpus.sh .cache/ptx-corpus/manifest.json $OUT
#              (carry [".cache/ptx-corpus"]; the device needs Python, CuPy, nvidia-smi)
# Then:        copy $OUT's files and the manifest into
#              evidence/ptx-corpus-<gpu>-<date>/ and run go test ./sim -run TestCorpusH200
set -euo pipefail
manifest="$1"
out="$2"
mkdir -p "$out"
cp "$manifest" "$out/manifest.json"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$out/nvidia-smi.txt" 2>&1 || true
python3 scripts/evidence/ptx-corpus.py "$manifest" sim/testdata/corpus "$out" 2>&1 | tee "$out/log.txt"
