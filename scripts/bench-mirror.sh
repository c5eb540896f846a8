#!/usr/bin/env bash
# bench-mirror.sh — issue 11's speed targets, measured on this machine in one
# command: the Day-37 kernels on the simulator from their PTX (this tree)
# against the Go mirrors the PTX path replaced (deleted from lessons/ since;
# 3283932 is the last commit whose benchmarks run both, in
# lessons/spmv/ptxbench_test.go). Absolute rates vary from machine to machine
# and from minute to minute on a shared one, so only runs made here, now and
# alternated are compared.
#
# It builds lessons/spmv's test binary from this tree and from a worktree of
# 3283932, then runs, ROUNDS times in turn (default 5), each build's
# benchmark of warp per row and of thread per row on the even seed matrix at
# 2^19 rows (-benchtime 3x -cpu 1: the best of three launches on one core).
# It prints each run's rate (nonzeros a second), each build's median, and
# the ratio of the medians: the PTX path's speed as a multiple of the
# mirror's. The issue asks warp per row at 5 or more and thread per row at 1
# or more (it keeps its ratio to plain Go).
#
# Usage: scripts/bench-mirror.sh [ROUNDS]
set -euo pipefail

rounds=${1:-5}
mirror=3283932
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d)
cleanup() {
	git -C "$root" worktree remove --force "$tmp/mirror" >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT

git -C "$root" worktree add --detach "$tmp/mirror" "$mirror" >/dev/null 2>&1
(cd "$tmp/mirror" && go test -c -o "$tmp/mirror.test" ./lessons/spmv/)
(cd "$root" && go test -c -o "$tmp/ptx.test" ./lessons/spmv/)

# rate DIR BINARY BENCH prints the benchmark's nnz/s.
rate() {
	(cd "$1/lessons/spmv" && "$2" -test.run '^$' -test.bench "^$3\$" -test.benchtime 3x -test.cpu 1) |
		awk '{for (i = 2; i <= NF; i++) if ($i == "nnz/s") print $(i - 1)}'
}

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

echo "bench-mirror: $(date -u +%Y-%m-%dT%H:%MZ), $(go env GOOS)/$(go env GOARCH), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ //'), tree $(git -C "$root" rev-parse --short HEAD), mirror $mirror"
for k in Warp Thread; do
	: >"$tmp/m" && : >"$tmp/p"
	for r in $(seq "$rounds"); do
		m=$(rate "$tmp/mirror" "$tmp/mirror.test" "BenchmarkMirror${k}PerRowEvenRatio")
		p=$(rate "$root" "$tmp/ptx.test" "BenchmarkPTX${k}PerRowEven")
		echo "$m" >>"$tmp/m"
		echo "$p" >>"$tmp/p"
		printf '%s per row, round %d: mirror %s nnz/s, PTX %s nnz/s\n' "$k" "$r" "$m" "$p"
	done
	mm=$(median <"$tmp/m")
	pm=$(median <"$tmp/p")
	awk -v k="$k" -v m="$mm" -v p="$pm" 'BEGIN {printf "%s per row: medians mirror %.4g, PTX %.4g nnz/s: the PTX path at %.2f times the mirror\n", k, m, p, p / m}'
done
