#!/bin/bash
# timemodel-judge.sh — a microbenchmark's verdict by the rule every pass
# since the thirty-fifth fixed before its run: the GPU model's sweep
# (`warplab timemodel check --sweep-only --model MODEL`) with the recorded
# CSV embedded as sim/calibration/MODEL-NAME.csv against the same check
# without it. Adopted when the within-25% count does not drop, the pairs
# ordered wrong do not grow, and every family stays at 80% or more; for
# the H200 the lesson check (`warplab timemodel check --no-sweep --model
# h200`) must not drop either. From the repository root, on the development
# machine (no GPU; about 10 minutes a check on two cores):
#
#   bash scripts/evidence/timemodel-judge.sh h100 l2warm evidence/timemodel-l2warm-h100-2026-12-07/l2warm.csv
#
# Prints both checks' overall and pair lines and the verdict; the checks'
# whole output goes to $TMPDIR/judge-*/{base,with}-*.txt. Builds each side
# in a git worktree of HEAD (the CSV copied into the candidate's), so the
# working tree is left as it is. Embedding the CSV in the repository, its
# evidence folder and TestCalibrationCopies are for whoever commits a
# verdict of adopted.
#
# JUDGE_BASE=DIR keeps the checks without the CSV in DIR and takes them
# from there when DIR/commit names HEAD (the same model, evidence/ aside),
# so the half that does not need the run can go while the GPU is awaited:
#   JUDGE_BASE=/tmp/judge-base bash scripts/evidence/timemodel-judge.sh h100 - -
# runs the base checks alone (NAME and CSV "-") and stops.
#
# JUDGE_HELDOUT=DIR (a libs corpus run's folder, e.g.
# evidence/libs-corpus-planned-h100-2026-12-07) also reports, not judges,
# the held-out libs runs of DIR/libs-ROWS.json for each ROWS in
# JUDGE_HELDOUT_ROWS (default 131072; about a minute a size and side):
# the lesson simulated on the corpus with each side's model, then
# `warplab timemodel libs`.
set -eu
M="${1:?usage: timemodel-judge.sh MODEL NAME CSV}"
N="${2:?usage: timemodel-judge.sh MODEL NAME CSV}"
: "${3:?usage: timemodel-judge.sh MODEL NAME CSV}"
C=-
[ "$3" = - ] || C="$(cd "$(dirname "$3")" && pwd)/$(basename "$3")"
R="$(git rev-parse --show-toplevel)"
W="$(mktemp -d "${TMPDIR:-/tmp}/judge-XXXXXX")"
B="${JUDGE_BASE:-}"
head="$(git -C "$R" rev-parse HEAD)"
if [ -n "$B" ]; then
	mkdir -p "$B"
	[ "$(cat "$B/commit" 2>/dev/null)" = "$head" ] || rm -f "$B"/base-*.txt
	echo "$head" >"$B/commit"
fi
sides="base with"
[ "$C" = - ] && sides=base
cleanup() { git -C "$R" worktree remove --force "$W/base" 2>/dev/null || true; git -C "$R" worktree remove --force "$W/with" 2>/dev/null || true; }
trap cleanup EXIT
for side in $sides; do
	git -C "$R" worktree add -q --detach "$W/$side" HEAD
	if [ "$side" = with ]; then
		[ ! -e "$W/with/sim/calibration/$M-$N.csv" ] || { echo "timemodel-judge: sim/calibration/$M-$N.csv is already embedded at HEAD" >&2; exit 2; }
		cp "$C" "$W/with/sim/calibration/$M-$N.csv"
	fi
	(cd "$W/$side" && go build -o "$W/warplab-$side" ./cmd/warplab)
done
# The checks read evidence/ from the repository root (the working tree's).
checks="sweep"
[ "$M" = h200 ] && checks="sweep lesson"
H="${JUDGE_HELDOUT:-}"
[ -z "$H" ] || H="$(cd "$H" && pwd)"
rows="${JUDGE_HELDOUT_ROWS:-131072}"
for c in $checks; do
	flag=--sweep-only
	[ "$c" = lesson ] && flag=--no-sweep
	for side in $sides; do
		if [ "$side" = base ] && [ -n "$B" ] && [ -s "$B/base-$c.txt" ]; then
			cp "$B/base-$c.txt" "$W/base-$c.txt"
			continue
		fi
		(cd "$R" && "$W/warplab-$side" timemodel check $flag --model "$M" >"$W/$side-$c.txt" 2>&1) || true
		[ "$side" = base ] && [ -n "$B" ] && cp "$W/base-$c.txt" "$B/base-$c.txt"
	done
done
# The held-out libs runs, reported beside the verdict.
if [ -n "$H" ]; then
	for side in $sides; do
		for n in $rows; do
			out="$W/$side-libs-$n.json"
			if [ "$side" = base ] && [ -n "$B" ] && [ -s "$B/base-libs-$n.json" ]; then
				cp "$B/base-libs-$n.json" "$out"
			else
				(cd "$R" && WARPLAB_SASS=1 "$W/warplab-$side" run libs --backend sim --corpus --rows "$n" --copy-mib -1 --model "$M" --json "$out" >/dev/null 2>&1) || true
				[ "$side" = base ] && [ -n "$B" ] && cp "$out" "$B/base-libs-$n.json"
			fi
			(cd "$R" && "$W/warplab-$side" timemodel libs --modeled "$out" "$H/libs-$n.json" >"$W/$side-heldout-$n.txt" 2>&1) || true
		done
	done
fi
if [ "$C" = - ]; then
	echo "timemodel-judge: base checks in $B at $head"
	exit 0
fi
within() { sed -n 's/^  all .* \([0-9][0-9]*\) within 25%.*/\1/p' "$1" | head -1; }
wrong() { sed -n 's/.*ordered wrong: \([0-9][0-9]*\).*/\1/p' "$1" | head -1; }
low() { awk '/^per family/{f=1; next} /^per regime/{f=0} f && match($0, /\( *[0-9]+%\)/) { p = substr($0, RSTART + 1, RLENGTH - 3) + 0; if (p < 80) n++ } END { print n + 0 }' "$1"; }
verdict=adopted
for c in $checks; do
	b="$W/base-$c.txt" w="$W/with-$c.txt"
	echo "$c check, without $N: $(grep -m1 '^  all ' "$b" | sed 's/^ *//'); ordered wrong $(wrong "$b")"
	echo "$c check, with $N:    $(grep -m1 '^  all ' "$w" | sed 's/^ *//'); ordered wrong $(wrong "$w")"
	[ -n "$(within "$b")" ] && [ -n "$(within "$w")" ] || { echo "timemodel-judge: a check printed no overall line ($W)" >&2; exit 1; }
	[ "$(within "$w")" -ge "$(within "$b")" ] || verdict="not adopted"
	if [ "$c" = sweep ]; then
		[ "$(wrong "$w")" -le "$(wrong "$b")" ] || verdict="not adopted"
		[ "$(low "$w")" -eq 0 ] || verdict="not adopted"
		echo "families under 80% with $N: $(low "$w")"
	fi
done
echo "verdict ($M, $N): $verdict"
if [ -n "$H" ]; then
	for n in $rows; do
		echo "held out (reported, not judged), $(basename "$H") at $n rows, without $N: $(grep -m1 '^  all ' "$W/base-heldout-$n.txt" | sed 's/^ *//')"
		echo "held out (reported, not judged), $(basename "$H") at $n rows, with $N:    $(grep -m1 '^  all ' "$W/with-heldout-$n.txt" | sed 's/^ *//')"
	done
fi
