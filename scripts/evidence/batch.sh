#!/bin/bash
# batch.sh — several evidence scripts in one call on a GPU host, because a
# session's GPU time is short and each call pays a machine start.
#
# Usage: scripts/evidence/batch.sh BINDIR OUT NAME...
# runs scripts/evidence/NAME.sh BINDIR OUT/NAME for each NAME in order, each
# bounded by WARPLAB_BATCH_LIMIT seconds (default 300), logs its output to
# OUT/NAME/batch.log, packs OUT/NAME into OUT/NAME.tar.gz (the device tool
# returns at most 8 files a call), and prints one line per script with its
# exit status and seconds, so a failing script does not cost the others
# their run.
set -u
bindir=$1 out=$2
shift 2
limit=${WARPLAB_BATCH_LIMIT:-300}
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$out"
{
	date -u
	nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
} >"$out/batch-env.txt" 2>&1
for name in "$@"; do
	start=$(date +%s)
	mkdir -p "$out/$name"
	timeout -k 10 "$limit" bash "$here/$name.sh" "$bindir" "$out/$name" >"$out/$name.batch.log" 2>&1
	rc=$?
	mv "$out/$name.batch.log" "$out/$name/batch.log"
	echo "batch: $name exit $rc in $(($(date +%s) - start)) s" | tee -a "$out/batch-env.txt"
	tail -5 "$out/$name/batch.log"
	tar -C "$out" -czf "$out/$name.tar.gz" "$name" && rm -rf "${out:?}/$name"
done
