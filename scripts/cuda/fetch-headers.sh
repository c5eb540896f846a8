#!/usr/bin/env bash
# fetch-headers.sh — give a machine with no GPU and no CUDA toolkit what cgo
# needs to compile and vet warplab's `cuda` build against one CUDA release:
# cuda.h and the libcuda.so link stub, taken from Debian's nvidia-cuda-dev
# package of that release.
#
# Usage: scripts/cuda/fetch-headers.sh [VERSION] [DIR]
#
#   VERSION  11.8 (default): Debian 12 "bookworm" non-free nvidia-cuda-dev
#            12.4:           Debian 13 "trixie" non-free nvidia-cuda-dev
#   DIR      where the files go; default $(scripts/cuda/env.sh --dir VERSION),
#            i.e. ${WARPLAB_CUDA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/warplab/cuda}/VERSION,
#            a cache outside the checkout, shared by every clone.
#
# Result:
#   DIR/include/cuda.h          the CUDA driver API header (needs only libc's
#                               stdlib.h and stdint.h besides itself)
#   DIR/stubs/libcuda.so        NVIDIA's link stub: lets the linker resolve
#                               cu* symbols; it is never loaded at run time
#   DIR/VERSION                 the nvidia-cuda-dev version the files came from
#
# Then `source scripts/cuda/env.sh VERSION` sets CGO_CFLAGS/CGO_LDFLAGS to DIR,
# and `go vet -tags cuda ./...` / `go build -tags cuda ./...` work with no GPU.
# A binary built this way runs only where the real driver (libcuda.so.1) is.
#
# CUDA 13.0 is not packaged by Debian: copy /usr/local/cuda/include/cuda.h
# and /usr/local/cuda/lib64/stubs/libcuda.so from a CUDA 13 machine into
# <repo>/.cuda/13.0/{include,stubs}/ (ignored by git; never commit NVIDIA's
# files) and `source scripts/cuda/env.sh 13.0` finds them there.
#
# The mirror is the one this machine's apt already uses (scripts/apt-mirror.sh), or
# WARPLAB_APT_MIRROR when set.
#
# How: the package is downloaded (`apt-get download`), never installed; only
# the two files are extracted and the .deb is deleted. apt runs with a private
# sources list, package lists and cache in a temporary folder, so the host's
# apt sources, lists and installed packages stay exactly as they were (no
# trixie source is ever visible to the host's own apt-get). The .deb is large
# (11.8: about 770 MB; 12.4: about 930 MB); on the development machine, with
# an empty cache, fetching and extracting took 94 s for 11.8 and 58 s for
# 12.4 (2026-11-30). The script exits at once when the cache already has both
# files.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
version="${1:-11.8}"
case "$version" in
11.8)
	suite=bookworm
	want='11.8.*'
	;;
12.4)
	suite=trixie
	want='12.4.*'
	;;
13.0)
	echo "fetch-headers: CUDA 13.0 is not packaged by Debian; copy cuda.h and stubs/libcuda.so from a CUDA 13 machine into $repo/.cuda/13.0/ (see the comment at the top of this script)" >&2
	exit 1
	;;
*)
	echo "fetch-headers: unknown CUDA version $version (want 11.8 or 12.4)" >&2
	exit 2
	;;
esac
dir="${2:-$(bash "$repo/scripts/cuda/env.sh" --dir "$version")}"

if [[ -s "$dir/include/cuda.h" && -s "$dir/stubs/libcuda.so" ]]; then
	echo "fetch-headers: $dir already has include/cuda.h and stubs/libcuda.so ($(cat "$dir/VERSION" 2>/dev/null || echo 'version unknown'))"
	exit 0
fi
command -v apt-get >/dev/null || {
	echo "fetch-headers: needs apt-get and dpkg-deb (Debian or Ubuntu) to download nvidia-cuda-dev" >&2
	exit 1
}

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)

# A private apt: its own sources list (only the suite wanted, with contrib
# and non-free, where nvidia-cuda-dev lives), lists, cache and an empty dpkg
# status, so nothing of the host's apt state is read or written.
mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/parts" "$tmp/prefs"
: >"$tmp/status"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
if [[ ! -s "$keyring" ]]; then
	echo "fetch-headers: $keyring is missing (apt-get install debian-archive-keyring)" >&2
	exit 1
fi
# The Debian mirror this machine's apt uses (scripts/apt-mirror.sh; WARPLAB_APT_MIRROR overrides).
mirror=$("$repo/scripts/apt-mirror.sh")
cat >"$tmp/sources.list" <<SRC
deb [signed-by=$keyring] $mirror $suite main contrib non-free
SRC
apt_opts=(
	-o "Dir::Etc::sourcelist=$tmp/sources.list"
	-o "Dir::Etc::sourceparts=$tmp/parts"
	-o "Dir::Etc::preferencesparts=$tmp/prefs"
	-o "Dir::State::Lists=$tmp/lists"
	-o "Dir::State::status=$tmp/status"
	-o "Dir::Cache=$tmp/cache"
	-o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache="
	-o "APT::Get::List-Cleanup=0"
)
# apt drops to the _apt user for downloads; let it write into the temporary folder.
if [[ $(id -u) -eq 0 ]] && id _apt >/dev/null 2>&1; then chown -R _apt "$tmp"; fi

echo "fetch-headers: reading Debian $suite's package lists from $mirror (private apt state in $tmp)"
apt-get "${apt_opts[@]}" update -qq
pkgver="$(apt-cache "${apt_opts[@]}" policy nvidia-cuda-dev | awk '/Candidate:/ {print $2}')"
if [[ -z "$pkgver" || "$pkgver" == "(none)" ]]; then
	echo "fetch-headers: Debian $suite has no nvidia-cuda-dev package" >&2
	exit 1
fi
# shellcheck disable=SC2053
if [[ "${pkgver#*:}" != $want ]]; then
	echo "fetch-headers: Debian $suite's nvidia-cuda-dev is $pkgver, not CUDA $version" >&2
	exit 1
fi

echo "fetch-headers: downloading nvidia-cuda-dev $pkgver from $suite (extracting 2 files)"
(cd "$tmp" && apt-get "${apt_opts[@]}" download -qq "nvidia-cuda-dev=$pkgver")
deb="$(ls "$tmp"/nvidia-cuda-dev_*.deb)"

mkdir -p "$tmp/x"
dpkg-deb --fsys-tarfile "$deb" |
	tar -x -C "$tmp/x" --wildcards ./usr/include/cuda.h './usr/lib/*/stubs/libcuda.so'
stub="$(ls "$tmp"/x/usr/lib/*/stubs/libcuda.so | head -1)"

mkdir -p "$dir/include" "$dir/stubs"
install -m 0644 "$tmp/x/usr/include/cuda.h" "$dir/include/cuda.h"
install -m 0644 "$stub" "$dir/stubs/libcuda.so"
echo "nvidia-cuda-dev $pkgver (Debian $suite)" >"$dir/VERSION"
echo "fetch-headers: wrote $dir/include/cuda.h ($(awk '/^#define CUDA_VERSION / {print "CUDA_VERSION " $3; exit}' "$dir/include/cuda.h")) and $dir/stubs/libcuda.so in $(($(date +%s) - start))s"
