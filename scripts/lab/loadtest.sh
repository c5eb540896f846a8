#!/usr/bin/env bash
# loadtest.sh — the classroom load test (internal/labtest TestClassroomLoad), by hand, not in CI:
# builds the hub image (scripts/lab/build.sh hub), then for each class size a fresh hub on
# loopback whose students start their servers through the hub's REST API and run the SpMV lesson
# at once, each class stopped after WARPLAB_LOADTEST_LIMIT (15m).
#
# Usage: scripts/lab/loadtest.sh OUTDIR [SIZES]   (SIZES default "4,8,16")
# Writes OUTDIR/loadtest.json, OUTDIR/loadtest.md (the table docs/classroom.md quotes),
# OUTDIR/hub-N.log and OUTDIR/go-test.log. As root (chroot); about 20 to 50 minutes.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:?usage: scripts/lab/loadtest.sh OUTDIR [SIZES]}
sizes=${2:-4,8,16}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$root"
{
	echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo), $(uname -r)"
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "load before: $(cat /proc/loadavg)"
} | tee "$out/machine.txt"
WARPLAB_LAB_TESTS=1 WARPLAB_LOADTEST=1 WARPLAB_LOADTEST_SIZES="$sizes" WARPLAB_LOADTEST_OUT="$out" \
	go test ./internal/labtest -run 'TestClassroomLoad' -count=1 -timeout 90m -v 2>&1 | tee "$out/go-test.log"
echo "load after: $(cat /proc/loadavg)" | tee -a "$out/machine.txt"
