#!/usr/bin/env bash
# build.sh — builds the repository's images from docker/Dockerfile* with buildah, here, where no
# Docker engine runs and no image registry is reachable.
#
#   1. The base image, Debian trixie, is made by mmdebstrap from the Debian mirror apt uses on
#      this machine (scripts/apt-mirror.sh; WARPLAB_APT_MIRROR overrides), imported into
#      buildah's store as localhost/warplab-base:trixie and given to docker/Dockerfile as its
#      build argument DEBIAN (whose default is debian:trixie). Cached: rebuilt only when missing
#      or older than WARPLAB_LAB_BASE_DAYS days (7).
#   2. `buildah bud --isolation chroot --layers` runs the Dockerfile's own steps (no OCI runtime
#      is needed: chroot isolation works as root here; the default isolation does not). Layers
#      are cached in the store, so an unchanged go.mod reuses the apt and Go layers. The build
#      arguments name this machine's mirror (WARPLAB_APT_MIRROR) and Go's module proxy
#      (GOPROXY, from `go env GOPROXY` when Go is here), so the image's downloads go where this
#      machine's do; the image itself runs with GOPROXY=off.
#   3. The simulator image gets the SuiteSparse matrices the spmv lesson reads (bayer10,
#      bcsstk13, cryg2500, rajat01): from $WARPLAB_MATRICES, else shared/matrices in or beside
#      the checkout, else `warplab matrix get`'s cache, else fetched with `warplab matrix get`
#      when the Collection can be reached. They are mounted into the build at
#      /run/warplab-matrices and copied to /warplab/shared/matrices. Without them the build
#      says so, and the image's spmv notebook skips its SuiteSparse table.
#
# The store lives outside the checkout: ${XDG_CACHE_HOME:-~/.cache}/warplab/lab/containers.
# As root, missing tools (buildah, mmdebstrap, uidmap) are installed with apt-get.
#
# Usage: scripts/lab/build.sh sim|hub|cuda     prints the image name on the last line
# Env:   WARPLAB_LAB_NVCC=0 builds the simulator image without nvcc (docker/Dockerfile).
#        WARPLAB_APT_MIRROR: the Debian mirror (default: the one this machine's apt uses).
#        WARPLAB_MATRICES: the folder with the SuiteSparse matrices (see 3).
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
base=localhost/warplab-base:trixie
days=${WARPLAB_LAB_BASE_DAYS:-7}
stamp="$cache/base.stamp"
# The Debian mirror apt on this machine uses (deb822 or one-line sources), or WARPLAB_APT_MIRROR.
mirror=$("$root/scripts/apt-mirror.sh") || die "no Debian mirror to build the images from (set WARPLAB_APT_MIRROR)"
if ! lab_buildah inspect --type image "$base" >/dev/null 2>&1 || [ -z "$(find "$stamp" -mtime "-$days" 2>/dev/null)" ]; then
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

# ---------------------------------------------------------------- 2. the Dockerfile's arguments
# This machine reaches the Go module proxy through an HTTPS proxy whose CA is in the host's bundle
# only: the Dockerfile's RUN steps get the host's bundle mounted and named by the build argument
# SSL_CERT_FILE (not stored in the image).
ca=()
hostca=${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}
[ ! -f "$hostca" ] || ca=(--volume "$hostca:/run/warplab-host-ca.crt:ro" --build-arg SSL_CERT_FILE=/run/warplab-host-ca.crt)
ignore=()
[ ! -f "$root/$file.dockerignore" ] || ignore=(--ignorefile "$root/$file.dockerignore")
# This machine's Debian mirror and Go module proxy, for the build's downloads.
args=(--build-arg "WARPLAB_APT_MIRROR=$mirror")
if command -v go >/dev/null 2>&1; then
	args+=(--build-arg "GOPROXY=$(cd "$root" && go env GOPROXY)")
fi
# The simulator image carries nvcc unless WARPLAB_LAB_NVCC=0 (docker/Dockerfile's WARPLAB_NVCC),
# and is built on the base made above.
[ "$what" != sim ] || args+=(--build-arg "WARPLAB_NVCC=${WARPLAB_LAB_NVCC:-1}" --build-arg "DEBIAN=$base")

# ---------------------------------------------------------------- 3. the lesson matrices (sim)
# The four SuiteSparse matrices the spmv notebook compares with Nsight Compute, by name and by
# their Collection name (for `warplab matrix get`).
matrices=(bayer10:Grund/bayer10 bcsstk13:HB/bcsstk13 cryg2500:Bai/cryg2500 rajat01:Rajat/rajat01)
# has_matrices DIR: DIR holds all four as NAME.mtx.
has_matrices() {
	local m
	for m in "${matrices[@]}"; do [ -s "$1/${m%%:*}.mtx" ] || return 1; done
}
if [ "$what" = sim ]; then
	found=""
	for d in "${WARPLAB_MATRICES:-}" "$root/shared/matrices" "$(dirname "$root")/shared/matrices"; do
		if [ -n "$d" ] && has_matrices "$d"; then
			found=$d
			break
		fi
	done
	# `warplab matrix get` keeps GROUP/NAME.mtx in the user's cache: use it, filling it if the
	# Collection can be reached (each fetch bounded: a build must not hang offline).
	getcache="${XDG_CACHE_HOME:-$HOME/.cache}/warplab/matrices"
	if [ -z "$found" ] && command -v go >/dev/null 2>&1; then
		for m in "${matrices[@]}"; do
			[ -s "$getcache/${m#*:}.mtx" ] && continue
			say "matrices: warplab matrix get ${m#*:}"
			(cd "$root" && timeout 300 go run ./cmd/warplab matrix get "${m#*:}" --cache "$getcache" >/dev/null) || break
		done
	fi
	staged="$cache/matrices"
	rm -rf "$staged"
	mkdir -p "$staged"
	for m in "${matrices[@]}"; do
		if [ -n "$found" ]; then
			cp "$found/${m%%:*}.mtx" "$staged/"
		elif [ -s "$getcache/${m#*:}.mtx" ]; then
			cp "$getcache/${m#*:}.mtx" "$staged/"
		fi
	done
	[ -z "$found" ] || [ ! -f "$found/README.md" ] || cp "$found/README.md" "$staged/"
	if has_matrices "$staged"; then
		say "matrices: ${matrices[*]%%:*} from ${found:-$getcache}"
		sum=$(cat "$staged"/*.mtx | sha256sum | cut -c1-16)
		args+=(--volume "$staged:/run/warplab-matrices:ro" --build-arg "WARPLAB_MATRICES_SUM=$sum")
	else
		say "warning: no SuiteSparse matrices (set WARPLAB_MATRICES to a folder with ${matrices[*]%%:*} as NAME.mtx," \
			"or keep them in shared/matrices beside the checkout, or build where \`warplab matrix get\` reaches the Collection):" \
			"the image's spmv notebook will skip its SuiteSparse table and miss its promised numbers"
	fi
fi

# ---------------------------------------------------------------- 4. the build
t0=$(date +%s)
say "building $tag from $file (buildah bud --isolation chroot --layers)"
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
