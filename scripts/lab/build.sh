#!/usr/bin/env bash
# build.sh — builds the repository's images from docker/Dockerfile* with buildah, here, where no
# Docker engine runs and no image registry is reachable.
#
#   1. The base image `debian:trixie` is made by mmdebstrap from Debian's own mirror (the
#      mirror apt uses on this machine), imported into buildah's store under the name the
#      Dockerfiles ask for (docker.io/library/debian:trixie). Cached: rebuilt only when missing
#      or older than WARPLAB_LAB_BASE_DAYS days (7).
#   2. `buildah bud --isolation chroot --layers` runs the Dockerfile's own steps (no OCI runtime
#      is needed: chroot isolation works as root here; the default isolation does not). Layers
#      are cached in the store, so an unchanged go.mod reuses the apt and Go layers.
#
# The store lives outside the checkout: ${XDG_CACHE_HOME:-~/.cache}/warplab/lab/containers.
# As root, missing tools (buildah, mmdebstrap, uidmap) are installed with apt-get.
#
# Usage: scripts/lab/build.sh sim|hub|cuda     prints the image name on the last line
# Env:   WARPLAB_LAB_NVCC=0 builds the simulator image without nvcc (docker/Dockerfile).
#        scripts/lab/build.sh --prune           removes the cache
# Images: sim = docker/Dockerfile (localhost/warplab:lab), hub = docker/Dockerfile.hub
#         (localhost/warplab:hub, FROM the sim image), cuda = docker/Dockerfile.cuda
#         (localhost/warplab:cuda, FROM the sim image).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cache="${XDG_CACHE_HOME:-$HOME/.cache}/warplab/lab"
# shellcheck source=buildah.sh
source "$root/scripts/lab/buildah.sh"

die() {
	echo "lab: error: $*" >&2
	exit 1
}
say() { echo "lab: $*" >&2; }

what=${1:-}
case "$what" in
sim) file=docker/Dockerfile tag=localhost/warplab:lab ;;
hub) file=docker/Dockerfile.hub tag=localhost/warplab:hub ;;
cuda) file=docker/Dockerfile.cuda tag=localhost/warplab:cuda ;;
--prune)
	[ -d "$cache/containers" ] && lab_buildah rm --all >/dev/null 2>&1 || true
	rm -rf "$cache"
	exit 0
	;;
*) die "usage: scripts/lab/build.sh sim|hub|cuda|--prune" ;;
esac

[ "$(id -u)" = 0 ] || die "buildah's chroot isolation and mmdebstrap need root here"
need=()
command -v buildah >/dev/null 2>&1 || need+=(buildah)
command -v mmdebstrap >/dev/null 2>&1 || need+=(mmdebstrap)
command -v newuidmap >/dev/null 2>&1 || need+=(uidmap)
if [ "${#need[@]}" -gt 0 ]; then
	say "installing ${need[*]} (Debian packages)"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
mkdir -p "$cache"

# ---------------------------------------------------------------- 1. base image
base=docker.io/library/debian:trixie
days=${WARPLAB_LAB_BASE_DAYS:-7}
stamp="$cache/base.stamp"
if ! lab_buildah inspect --type image "$base" >/dev/null 2>&1 || [ -z "$(find "$stamp" -mtime "-$days" 2>/dev/null)" ]; then
	# The mirror apt on this machine uses (deb822 or one-line sources), else Debian's own.
	mirror=$({ cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list /etc/apt/sources.list 2>/dev/null || true; } |
		sed -n 's/^URIs: *\(http[^ ]*\/debian\)\/*$/\1/p; s/^deb \(http[^ ]*\/debian\)\/* .*/\1/p' | head -1)
	mirror=${mirror:-http://deb.debian.org/debian}
	say "base: mmdebstrap --variant=apt trixie from $mirror"
	t0=$(date +%s)
	rm -rf "$cache/trixie.partial"
	mmdebstrap --quiet --variant=apt --include=ca-certificates trixie "$cache/trixie.partial" "$mirror" >&2
	ctr=$(lab_buildah from scratch)
	mnt=$(lab_buildah mount "$ctr")
	cp -a "$cache/trixie.partial/." "$mnt/"
	lab_buildah umount "$ctr" >/dev/null
	lab_buildah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --cmd /bin/bash "$ctr"
	lab_buildah commit --quiet --rm "$ctr" "$base" >/dev/null
	rm -rf "$cache/trixie.partial"
	touch "$stamp"
	say "base: $base made in $(($(date +%s) - t0)) s"
fi

# ---------------------------------------------------------------- 2. the Dockerfile
t0=$(date +%s)
say "building $tag from $file (buildah bud --isolation chroot --layers)"
# This machine reaches the Go module proxy through an HTTPS proxy whose CA is in the host's bundle
# only: the Dockerfile's RUN steps get the host's bundle mounted and named by the build argument
# SSL_CERT_FILE (not stored in the image).
ca=()
hostca=${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}
[ ! -f "$hostca" ] || ca=(--volume "$hostca:/run/warplab-host-ca.crt:ro" --build-arg SSL_CERT_FILE=/run/warplab-host-ca.crt)
ignore=()
[ ! -f "$root/$file.dockerignore" ] || ignore=(--ignorefile "$root/$file.dockerignore")
# The simulator image carries nvcc unless WARPLAB_LAB_NVCC=0 (docker/Dockerfile's WARPLAB_NVCC).
args=()
[ "$what" != sim ] || args=(--build-arg "WARPLAB_NVCC=${WARPLAB_LAB_NVCC:-1}")
lab_buildah bud --quiet --isolation chroot --pull=never --layers "${ignore[@]}" "${ca[@]}" "${args[@]}" \
	-f "$root/$file" -t "$tag" "$root" >&2
say "built $tag in $(($(date +%s) - t0)) s"
# Every changed checkout leaves its layers behind as build cache: past WARPLAB_LAB_STORE_GIB (30)
# the untagged ones go (the next build of a changed Dockerfile step starts from the last tagged
# image's layers or from scratch).
used=$(du -s --block-size=1G "$lab_store" 2>/dev/null | cut -f1)
if [ "${used:-0}" -gt "${WARPLAB_LAB_STORE_GIB:-30}" ]; then
	say "store at $used GiB: removing untagged layers"
	lab_buildah rmi --prune >/dev/null 2>&1 || true
fi
echo "$tag"
