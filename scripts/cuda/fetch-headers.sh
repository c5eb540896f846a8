#!/usr/bin/env bash
# fetch-headers.sh — give a machine with no GPU and no CUDA toolkit what cgo
# needs to compile and vet warplab's `cuda` build: cuda.h and the libcuda.so
# link stub, taken from Debian's nvidia-cuda-dev package (CUDA 11.8, the
# headers gorgonia.org/cu v0.9.6 compiles against).
#
# Usage: scripts/cuda/fetch-headers.sh [DIR]     (DIR defaults to <repo>/.cuda)
#
# Result:
#   DIR/include/cuda.h          the CUDA driver API header (needs only libc's
#                               stdlib.h and stdint.h besides itself)
#   DIR/stubs/libcuda.so        NVIDIA's link stub: lets the linker resolve
#                               cu* symbols; it is never loaded at run time
#   DIR/VERSION                 the nvidia-cuda-dev version the files came from
#
# Then `source scripts/cuda/env.sh` sets CGO_CFLAGS/CGO_LDFLAGS to DIR, and
# `go vet -tags cuda ./...` / `go build -tags cuda ./...` work with no GPU.
# A binary built this way runs only where the real driver (libcuda.so.1) is.
#
# The package is downloaded (`apt-get download`, ~770 MB), never installed;
# only the two files are extracted and the .deb is deleted. Idempotent: when
# both files are present the script exits at once.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="${1:-$repo/.cuda}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"

if [[ -s "$dir/include/cuda.h" && -s "$dir/stubs/libcuda.so" ]]; then
    echo "fetch-headers: $dir already has include/cuda.h and stubs/libcuda.so ($(cat "$dir/VERSION" 2>/dev/null || echo 'version unknown'))"
    exit 0
fi

sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi

# nvidia-cuda-dev lives in Debian's non-free component. Add it when no apt
# source of this machine names non-free yet.
if ! apt-cache policy nvidia-cuda-dev 2>/dev/null | grep -q 'Candidate: [0-9]'; then
    if ! grep -rqsE '^[^#]*non-free([[:space:]]|$)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
        echo "fetch-headers: adding Debian non-free to /etc/apt/sources.list.d/warplab-nonfree.sources"
        $sudo tee /etc/apt/sources.list.d/warplab-nonfree.sources >/dev/null <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: contrib non-free non-free-firmware
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    fi
    $sudo apt-get update -qq
fi

version="$(apt-cache policy nvidia-cuda-dev | awk '/Candidate:/ {print $2}')"
if [[ -z "$version" || "$version" == "(none)" ]]; then
    echo "fetch-headers: apt knows no nvidia-cuda-dev package even with non-free enabled" >&2
    exit 1
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# apt-get download drops to the _apt user; let it write the .deb here.
if [[ $(id -u) -eq 0 ]] && id _apt >/dev/null 2>&1; then chown _apt "$tmp"; fi
echo "fetch-headers: downloading nvidia-cuda-dev $version (extracting 2 files)"
(cd "$tmp" && apt-get download -qq "nvidia-cuda-dev=$version")
deb="$(ls "$tmp"/nvidia-cuda-dev_*.deb)"

dpkg-deb --fsys-tarfile "$deb" |
    tar -x -C "$tmp" ./usr/include/cuda.h ./usr/lib/x86_64-linux-gnu/stubs/libcuda.so

mkdir -p "$dir/include" "$dir/stubs"
install -m 0644 "$tmp/usr/include/cuda.h" "$dir/include/cuda.h"
install -m 0644 "$tmp/usr/lib/x86_64-linux-gnu/stubs/libcuda.so" "$dir/stubs/libcuda.so"
echo "nvidia-cuda-dev $version" >"$dir/VERSION"
echo "fetch-headers: wrote $dir/include/cuda.h and $dir/stubs/libcuda.so"
