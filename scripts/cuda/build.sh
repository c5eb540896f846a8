#!/usr/bin/env bash
# build.sh — the one command that builds warplab with the GPU backend:
# bin/warplab-cuda, the CLI with gpuext's CUDA driver API backend (build tag
# `cuda`, gorgonia.org/cu).
#
# On a GPU host with the CUDA toolkit or driver headers installed this just
# works. Elsewhere (CI, a laptop) it uses the header and link stub that
# fetch-headers.sh puts in <repo>/.cuda when /usr/include/cuda.h and
# /usr/local/cuda are both missing. The binary needs the NVIDIA driver
# (libcuda.so.1) and a GPU to run: gorgonia.org/cu initialises the driver
# when the program starts and exits when no GPU answers.
#
# Usage: scripts/cuda/build.sh [extra go build flags...]
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"

if [[ -z "${CGO_CFLAGS:-}" && ! -e /usr/include/cuda.h && ! -e /usr/local/cuda/include/cuda.h ]]; then
    "$repo/scripts/cuda/fetch-headers.sh"
    # shellcheck source=env.sh
    source "$repo/scripts/cuda/env.sh"
fi

export CGO_ENABLED=1
mkdir -p bin
go build -tags cuda -o bin/warplab-cuda "$@" ./cmd/warplab
echo "built bin/warplab-cuda (run it on a GPU host, e.g. bin/warplab-cuda selftest --backend gpu)"
