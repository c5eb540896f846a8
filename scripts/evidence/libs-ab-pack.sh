#!/bin/bash
# libs-ab-pack.sh — builds the pack libs-ab-corpus.sh runs: one
# warplab-cuda a candidate, the shared SuiteSparse matrices and COMMITS,
# tarred for a device call's carry (64 MiB at most: about 20 MiB a
# candidate, so three candidates fit).
#
#   bash scripts/evidence/libs-ab-pack.sh PACKDIR NAME=PATCH ...
#
# Each NAME=PATCH is a candidate: this checkout's HEAD with PATCH applied
# (a git diff of lessons/libs' sources, e.g.
# scripts/evidence/libs/tiles-unroll-blocks64.patch), or HEAD itself where
# PATCH is "-". Each is built in a git worktree of its own: the patch
# applied, libs.ptx made again from libs.cu (scripts/cuda/gen-ptx.sh, nvcc
# 11.8: scripts/setup.sh --nvcc), then WARPLAB_CUDA=11.8
# scripts/cuda/build.sh. PACKDIR gets NAME/warplab-cuda, matrices/*.mtx
# (../shared/matrices) and COMMITS (a line a candidate: HEAD, the patch),
# and PACKDIR.tgz beside it. Put PACKDIR under .cache/ (ignored) and name
# PACKDIR.tgz in the device call's carry.
#
# Example (the call of 2026-12-07 01:18 UTC, made on an H100 that came for
# an H200: main against the tiles at 16 and 20 blocks an SM,
# evidence/libs-ab-tileblocks-h100-2026-12-07; the patches under
# scripts/evidence/libs/ are the candidates timed so far, each on the
# main of its day; tiles-unroll-blocks64.patch is main since 655ac5e).
# Tar whatever the call writes into one file under $OUT: the device tool
# brings back at most eight files of it:
#
#   bash scripts/evidence/libs-ab-pack.sh .cache/ab/next A=- \
#     L16=scripts/evidence/libs/tiles-minblocks16.patch \
#     L20=scripts/evidence/libs/tiles-minblocks20.patch
#   # on the device (carry .cache/ab/next.tgz), from the repository root:
#   tar -C /tmp -xzf .cache/ab/next.tgz && AB_NAMES="A L16 L20" AB_CORPUS_IF=none \
#     bash scripts/evidence/libs-ab-corpus.sh /tmp/next /tmp/res/ab; tar -C /tmp -czf $OUT/res.tgz res
#   # a winner over A: the corpus with it, scripts/evidence/libs-h200-call.sh
set -eu
P="${1:?usage: libs-ab-pack.sh PACKDIR NAME=PATCH ...}"
shift
[ $# -gt 0 ] || { echo "libs-ab-pack: no candidates (NAME=PATCH, PATCH - for HEAD)" >&2; exit 2; }
REPO="$(git rev-parse --show-toplevel)"
HEAD="$(git -C "$REPO" rev-parse --short HEAD)"
MAT="$REPO/../shared/matrices"
[ -d "$MAT" ] || { echo "libs-ab-pack: no $MAT" >&2; exit 2; }
mkdir -p "$P"
P="$(cd "$P" && pwd)"
rm -rf "${P:?}"/* "$P.tgz"
mkdir -p "$P/matrices"
cp "$MAT"/*.mtx "$P/matrices/"
T="$(mktemp -d)"
cleanup() {
	for wt in "$T"/wt-*; do
		[ -d "$wt" ] && git -C "$REPO" worktree remove --force "$wt"
	done
	rm -rf "$T"
}
trap cleanup EXIT
for c in "$@"; do
	name="${c%%=*}"
	patch="${c#*=}"
	case "$name" in
	"" | *[!A-Za-z0-9_-]*) echo "libs-ab-pack: bad candidate name in $c" >&2; exit 2 ;;
	esac
	wt="$T/wt-$name"
	git -C "$REPO" worktree add -q --detach "$wt" HEAD
	if [ "$patch" != "-" ]; then
		git -C "$wt" apply "$(cd "$(dirname "$patch")" && pwd)/$(basename "$patch")"
		(cd "$wt" && bash scripts/cuda/gen-ptx.sh lessons/libs/libs.cu)
		echo "$name: $HEAD + $patch" >>"$P/COMMITS"
	else
		echo "$name: $HEAD" >>"$P/COMMITS"
	fi
	(cd "$wt" && WARPLAB_CUDA=11.8 bash scripts/cuda/build.sh -ldflags "-s -w" >/dev/null)
	mkdir -p "$P/$name"
	cp "$wt/bin/warplab-cuda" "$P/$name/"
done
tar -C "$(dirname "$P")" -czf "$P.tgz" "$(basename "$P")"
cat "$P/COMMITS"
ls -l "$P.tgz"
