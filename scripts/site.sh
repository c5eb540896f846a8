#!/usr/bin/env bash
# site.sh — the README's main command. Sets up (scripts/setup.sh), executes every
# notebook in notebooks/ headless with the GoNB kernel, checks it, and renders the
# lesson pages into site/: one HTML page per lesson (nbconvert's HTML exporter,
# plots inline), site/index.html linking each with its one-line summary, and the
# executed notebooks in site/notebooks/.
#
# Notebooks run on the simulator by default: lessons open their device with
# gpuext.Open("auto"), which picks the GPU only in the cuda build with a GPU present,
# i.e. where scripts/setup.sh put GOFLAGS=-tags=cuda into the GoNB kernel's environment.
#
# Usage: scripts/site.sh [notebooks/NN-name.ipynb ...]   (default: all of notebooks/)
# Env:   WARPLAB_SITE_DIR (default site), WARPLAB_NOTEBOOK_TIMEOUT (e.g. 20m; overrides
#        every notebook's metadata.warplab.timeout_seconds).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
start=$(date +%s)

scripts/setup.sh
datadir=${JUPYTER_DATA_DIR:-$(jupyter --data-dir)}
if grep -q -- '-tags=cuda' "$datadir/kernels/gonb/kernel.json" 2>/dev/null; then
	echo "site: the GoNB kernel has the cuda build: lessons run on the GPU where they open \"auto\""
else
	echo "site: the GoNB kernel has no cuda build: lessons run on the simulator"
fi
out=${WARPLAB_SITE_DIR:-site}
go run ./internal/nbtest/cmd/nbsite -out "$out" -timeout "${WARPLAB_NOTEBOOK_TIMEOUT:-0}" "$@"
echo "site: done in $(($(date +%s) - start))s; open $out/index.html"
