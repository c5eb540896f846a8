#!/bin/bash
# libs-ab-corpus.sh — one device call for issue 29's corpus run when two
# builds of the nonzero tiles are candidates: time both on the same
# power-law matrices, then run the whole corpus (libs-corpus.sh, the peer
# in the same call) and Nsight Compute (libs-ncu.sh, ours and cuSPARSE)
# with the faster one.
#
# The rule, fixed before the call: the candidate whose tile and tile_v4
# mean times, summed over AB_CASES (default powerlaw20 and powerlaw20c at
# 2^23 rows: random and clustered columns, the two the profiles are of),
# are lower. Both candidates' lines are kept (ab-<name>.json/txt) and
# ab.txt says which won by how much.
#
# Usage: bash scripts/evidence/libs-ab-corpus.sh PACKDIR OUTDIR
#   PACKDIR: <name>/warplab-cuda for each candidate (AB_NAMES, default
#   "B C"), matrices/*.mtx, COMMITS (a line naming each candidate's commit).
#   The corpus goes to OUTDIR/corpus (env.txt, libs-*.json/txt,
#   cusparse.jsonl, ncu-*.csv with ncu-env.txt). LIBS_BUDGET, LIBS_NCU_CASES
#   etc. pass through to the two scripts; AB=0 skips the timing and takes
#   the first name; AB_CORPUS_IF=NAME runs the corpus only when NAME wins
#   (a candidate against the build the last corpus run already recorded);
#   AB_CORPUS_UNLESS=NAME runs it unless NAME (that recorded build) wins.
set -u
P="$(cd "$1" && pwd)"
mkdir -p "$2"
E="$(cd "$2" && pwd)"
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
NAMES="${AB_NAMES:-B C}"
FAMS="${AB_FAMILIES:-powerlaw20,powerlaw20c}"
ROWS="${AB_ROWS:-8388608}"
BACKEND="${LIBS_BACKEND:-gpu}"
{
	date -u
	cat "$P/COMMITS" 2>/dev/null
	echo "rule: lower sum of tile + tile_v4 mean times over $FAMS at $ROWS rows"
} >"$E/ab.txt"
best=""
if [ "${AB:-1}" = 1 ]; then
	for n in $NAMES; do
		t0=$SECONDS
		timeout 90 "$P/$n/warplab-cuda" run libs --backend "$BACKEND" --families "$FAMS" --rows "$ROWS" --no-pair \
			--methods tile,tile_v4 --copy-mib -1 --json "$E/ab-$n.json" >"$E/ab-$n.txt" 2>&1
		echo "$n: exit $? in $((SECONDS - t0))s" >>"$E/ab.txt"
	done
	best="$(python3 - "$E" $NAMES <<'PY' 2>>"$E/ab.txt"
import json, sys
e, names = sys.argv[1], sys.argv[2:]
tot = {}
for n in names:
    try:
        d = json.load(open(f"{e}/ab-{n}.json"))
    except Exception as err:
        print(f"{n}: no result ({err})", file=sys.stderr)
        continue
    s, ok = 0.0, True
    for m in d["matrices"]:
        for r in m["runs"]:
            if r["method"] in ("tile", "tile_v4"):
                ok = ok and r.get("correct", False)
                s += r["time_ms"]
                print(f"{n} {m['key']} {r['method']} {r['time_ms']:.4f} ms", file=sys.stderr)
    if ok:
        tot[n] = s
    else:
        print(f"{n}: an output was wrong, not a candidate", file=sys.stderr)
for n, s in tot.items():
    print(f"{n}: sum {s:.4f} ms", file=sys.stderr)
if tot:
    print(min(tot, key=tot.get))
PY
)"
fi
[ -n "$best" ] || best="${NAMES%% *}"
echo "chosen: $best" >>"$E/ab.txt"
cat "$E/ab.txt"
if [ -n "${AB_CORPUS_IF:-}" ] && [ "$best" != "$AB_CORPUS_IF" ]; then
	echo "corpus not run: $best won, AB_CORPUS_IF=$AB_CORPUS_IF; total ${SECONDS}s" | tee -a "$E/ab.txt"
	exit 0
fi
if [ -n "${AB_CORPUS_UNLESS:-}" ] && [ "$best" = "$AB_CORPUS_UNLESS" ]; then
	echo "corpus not run: $best won, AB_CORPUS_UNLESS=$AB_CORPUS_UNLESS; total ${SECONDS}s" | tee -a "$E/ab.txt"
	exit 0
fi
W="$(mktemp -d)"
trap 'rm -rf "$W"' EXIT
ln -s "$P/$best/warplab-cuda" "$W/warplab-cuda"
ln -s "$P/matrices" "$W/matrices"
LIBS_NCU=0 bash "$REPO/scripts/evidence/libs-corpus.sh" "$W" "$E/corpus" | tail -3
if [ "${AB_NCU:-1}" = 1 ]; then
	NCU_ENV=ncu-env.txt NCU_EXTRA="${NCU_EXTRA:-0}" bash "$REPO/scripts/evidence/libs-ncu.sh" "$W" "$E/corpus" | tail -3
	rm -f "$E/corpus/ncu-query-metrics.txt"
fi
echo "chosen: $best; total ${SECONDS}s" >>"$E/ab.txt"
