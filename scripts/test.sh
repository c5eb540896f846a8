#!/usr/bin/env bash
# test.sh — the README's test command. Sets up (scripts/setup.sh --browser), then
# runs `go vet ./...`, the simulator's tests without its assembly (-tags purego),
# vets and builds the cuda build with extracted CUDA 11.8 and 12.4 headers,
# and `go test ./...` with the notebook execution and browser
# tests switched on (WARPLAB_NOTEBOOK_TESTS=1): every notebook in notebooks/ is
# executed with the GoNB kernel and checked, its lesson page rendered, looked at
# in headless Chromium (every figure laid out with a size, no error shown) and
# screenshotted whole (screenshots in artifacts/screenshots/); and the JupyterLab image tests
# (internal/labtest: the images built from docker/ with buildah, a lesson run in JupyterLab,
# the access checks on the image and the hub).
#
# Usage: scripts/test.sh [extra go test flags, e.g. -run TestNotebooks -v]
# Env:   WARPLAB_BROWSER_TESTS=0 skips the screenshots (and the chromium install);
#        WARPLAB_LAB_TESTS=0 skips the image builds and the JupyterLab tests.
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
# The simulator's hottest lane loops run in AVX2 assembly where the CPU has
# it (sim/internal/lanes). -tags purego runs the simulator's tests on the
# scalar Go loops that every other CPU takes, and arm64 must build without
# the assembly.
step "go test -tags purego ./sim/... and go vet for arm64 (the scalar lane loops)"
go vet -tags purego ./sim/...
go test -tags purego ./sim/...
GOARCH=arm64 go vet ./sim/...
# The GPU backend (build tag cuda) must compile and vet on machines with no
# GPU, against the headers of every CUDA release a student may have: cuda.h
# and the libcuda.so stub of CUDA 11.8 (Debian bookworm) and 12.4 (Debian
# trixie) come from Debian's nvidia-cuda-dev packages, extracted, not
# installed, into a cache outside the checkout (scripts/cuda/fetch-headers.sh;
# on an empty cache the two downloads took 1.5 and 1 minute on the
# development machine). CUDA 13.0's header is not packaged; it is checked by
# hand (docs/colab.md).
for v in 11.8 12.4; do
	step "go vet and go build with -tags cuda against CUDA $v headers"
	scripts/cuda/fetch-headers.sh "$v"
	(
		# shellcheck source=cuda/env.sh
		source scripts/cuda/env.sh "$v"
		echo "test: cgo compiles against $(scripts/cuda/header.sh)"
		go vet -tags cuda ./...
		go build -tags cuda -o /dev/null ./...
	)
done
# The JupyterLab image tests (internal/labtest): the simulator and hub images are built from
# docker/Dockerfile* with buildah before go test, so the build does not run beside the notebook
# tests (scripts/lab/build.sh: a Debian trixie base from mmdebstrap, then the Dockerfile's steps;
# layers cached outside the checkout in ${XDG_CACHE_HOME:-~/.cache}/warplab/lab). Then
# TestLabNotebook runs a lesson in JupyterLab through Chromium, TestAccess checks that no one
# gets into a server that is not theirs, TestLabOffline runs the image with no network and bounds
# a trivial cell's time, and TestLabSpmv runs the spmv lesson offline with the image's SuiteSparse
# matrices. WARPLAB_LAB_TESTS=0 skips them (and the builds).
if [ "${WARPLAB_LAB_TESTS:-1}" != 0 ] && [ "${WARPLAB_BROWSER_TESTS:-1}" != 0 ]; then
	step "images for the JupyterLab tests (scripts/lab/build.sh sim, hub)"
	# Without the image's nvcc layer (about 2 GB from Debian's non-free) unless
	# WARPLAB_LAB_NVCC=1: the Lab tests run shipped notebooks from their PTX cache, and
	# the layer was checked by hand (docker/README.md).
	WARPLAB_LAB_NVCC=${WARPLAB_LAB_NVCC:-0} scripts/lab/build.sh sim
	scripts/lab/build.sh hub
	export WARPLAB_LAB_TESTS=1
fi
step "go test -race: Device.Time per call, under concurrent calls and other goroutines' launches"
go test -race -run 'TestTime' ./gpuext/
step "go test ./... (notebook and browser tests on)"
# The notebook tests run every notebook (each bounded by its own time limit):
# allow well past go test's default 10 minutes.
WARPLAB_NOTEBOOK_TESTS=1 go test -timeout 45m "$@" ./...
step "passed"
