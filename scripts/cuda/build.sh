#!/usr/bin/env bash
# build.sh — the one command that builds warplab with the GPU backend:
# bin/warplab-cuda, the CLI with gpuext's CUDA driver API backend (build tag
# `cuda`, gorgonia.org/cu as patched in third_party/cu).
#
# It compiles against the cuda.h of CUDA 11.8, 12.x or 13.x and says which
# one it used (path and CUDA_VERSION, from header.sh). Which headers:
#   * WARPLAB_CUDA=VERSION (11.8, 12.4 or 13.0): the extracted headers of
#     that release (fetch-headers.sh downloads 11.8 and 12.4 into a cache;
#     13.0's are copied into .cuda/13.0 by hand, see fetch-headers.sh);
#   * else CGO_CFLAGS/CGO_LDFLAGS when set;
#   * else the host's: /usr/local/cuda/include/cuda.h or /usr/include/cuda.h
#     (a GPU host with the CUDA toolkit or driver headers);
#   * else, on a machine with neither (CI, a laptop), Debian's CUDA 11.8
#     header and link stub from fetch-headers.sh.
# The binary needs the NVIDIA driver (libcuda.so.1) and a GPU to run:
# gorgonia.org/cu initialises the driver when the program starts and exits
# when no GPU answers.
#
# Usage: [WARPLAB_CUDA=VERSION] scripts/cuda/build.sh [extra go build flags...]
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"

if [[ -n "${WARPLAB_CUDA:-}" ]]; then
	[[ "$WARPLAB_CUDA" == 13.0 ]] || "$repo/scripts/cuda/fetch-headers.sh" "$WARPLAB_CUDA"
	# shellcheck source=env.sh
	source "$repo/scripts/cuda/env.sh" "$WARPLAB_CUDA"
	[[ -n "${CGO_CFLAGS:-}" ]] || exit 1
elif [[ -z "${CGO_CFLAGS:-}" && ! -e /usr/include/cuda.h && ! -e /usr/local/cuda/include/cuda.h ]]; then
	"$repo/scripts/cuda/fetch-headers.sh" 11.8
	# shellcheck source=env.sh
	source "$repo/scripts/cuda/env.sh" 11.8
fi

if ! hdr="$("$repo/scripts/cuda/header.sh")"; then
	echo "build: no cuda.h found; install the CUDA toolkit, set CGO_CFLAGS=-I<dir with cuda.h>, or run WARPLAB_CUDA=11.8 scripts/cuda/build.sh" >&2
	exit 1
fi
read -r header version <<<"$hdr"
release="?"
[[ "$version" =~ ^[0-9]+$ ]] && release="$((version / 1000)).$((version % 1000 / 10))"
echo "build: compiling against $header (CUDA_VERSION $version, CUDA $release)"

export CGO_ENABLED=1
mkdir -p bin
if ! go build -tags cuda -o bin/warplab-cuda "$@" ./cmd/warplab; then
	cat >&2 <<MSG
build: the GPU build failed against $header (CUDA_VERSION $version).
  - warplab's cuda build is tested against the cuda.h of CUDA 11.8, 12.4 and 13.0
    (third_party/cu/PATCHES.md); a header from another release may need a
    patch there: please report the error above.
  - If that cuda.h is not the one you meant, point cgo at your toolkit:
    CGO_CFLAGS=-I<toolkit>/include CGO_LDFLAGS=-L<toolkit>/lib64/stubs scripts/cuda/build.sh
  - Or build against Debian's headers: WARPLAB_CUDA=11.8 scripts/cuda/build.sh
    (the binary runs on any driver at least as new as that release).
  - Notebooks keep running kernels on the simulator meanwhile: scripts/setup.sh
    configures the GPU build only when it compiles.
MSG
	exit 1
fi
echo "built bin/warplab-cuda against CUDA $release headers (run it on a GPU host, e.g. bin/warplab-cuda selftest --backend gpu)"
