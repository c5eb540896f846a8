#!/usr/bin/env bash
# test.sh — the README's test command. Sets up (scripts/setup.sh --browser), then
# runs `go vet ./...`, vets and builds the cuda build with extracted CUDA headers,
# and `go test ./...` with the notebook execution and browser
# tests switched on (WARPLAB_NOTEBOOK_TESTS=1): every notebook in notebooks/ is
# executed with the GoNB kernel and checked, its lesson page rendered and
# screenshotted in headless Chromium (screenshots in artifacts/screenshots/).
#
# Usage: scripts/test.sh [extra go test flags, e.g. -run TestNotebooks -v]
# Env:   WARPLAB_BROWSER_TESTS=0 skips the screenshots (and the chromium install).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
start=$(date +%s)
step() { echo "test: $* ($(($(date +%s) - start))s)"; }

if [ "${WARPLAB_BROWSER_TESTS:-1}" = 0 ]; then
	scripts/setup.sh
else
	scripts/setup.sh --browser
fi
step "go vet ./..."
go vet ./...
# The GPU backend (build tag cuda) must compile and vet on machines with no
# GPU: cuda.h and the libcuda.so stub come from Debian's nvidia-cuda-dev
# package, extracted, not installed (scripts/cuda/fetch-headers.sh).
step "go vet and go build with -tags cuda"
scripts/cuda/fetch-headers.sh >/dev/null
(
	# shellcheck source=cuda/env.sh
	source scripts/cuda/env.sh
	go vet -tags cuda ./...
	go build -tags cuda -o /dev/null ./...
)
step "go test ./... (notebook and browser tests on)"
# The notebook tests run every notebook (each bounded by its own time limit):
# allow well past go test's default 10 minutes.
WARPLAB_NOTEBOOK_TESTS=1 go test -timeout 45m "$@" ./...
step "passed"
