#!/usr/bin/env bash
# root.sh — a fresh, writable file tree of a built image, for the Lab and hub tests
# (internal/labtest), which run the image's programs in it with chroot.
#
#   scripts/lab/root.sh new IMAGE   a new buildah working container of IMAGE, mounted;
#                                   prints "CONTAINER DIR" (DIR is the image's / as a folder)
#   scripts/lab/root.sh env IMAGE   the image's environment (ENV lines), KEY=VALUE a line
#   scripts/lab/root.sh rm CONTAINER  unmounts and removes it (what ran in it is gone)
#
# Each test gets its own container, so nothing one run leaves (Jupyter runtime files, build
# cache, users) is seen by the next; the image's layers are shared, not copied.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=buildah.sh
source "$root/scripts/lab/buildah.sh"

case "${1:-}" in
new)
	[ -n "${2:-}" ] || { echo "usage: root.sh new IMAGE" >&2; exit 2; }
	ctr=$(lab_buildah from --pull=never "$2")
	dir=$(lab_buildah mount "$ctr")
	echo "$ctr $dir"
	;;
env)
	# The image's environment (its Dockerfile's ENV), one KEY=VALUE a line.
	lab_buildah inspect --type image --format '{{range .OCIv1.Config.Env}}{{println .}}{{end}}' "$2"
	;;
rm)
	[ -n "${2:-}" ] || { echo "usage: root.sh rm CONTAINER" >&2; exit 2; }
	lab_buildah umount "$2" >/dev/null 2>&1 || true
	lab_buildah rm "$2" >/dev/null
	;;
*)
	echo "usage: root.sh new IMAGE | rm CONTAINER" >&2
	exit 2
	;;
esac
