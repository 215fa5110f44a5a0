#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A/A false failures of pgo gate on real recordings, by the time between the two sides.
# N recordings (pgo collect -r 5 -g) of one build of examples/recsort (-O2 -g) are made one
# after the other; every pair i < j is compared (base i, head j) at q = 0.05 and 0.01, and
# at 0.01 with recording j + 1 as the confirmation runs. Each pair compares the same
# program, so every failure is false. Pairs share recordings: read the rates as a screen,
# binned by the gap j - i (one recording takes ~5 x the benchmark's time plus pgo's).
#   bench/gate-aa.sh [N (40)] [RECSORT_ARGS ("eval 400000 1")]
. "$(dirname "$0")/lib.sh"
N=${1:-40}
ARGS=${2:-eval 400000 1}
W=$BENCH_WORK/gate-aa
mkdir -p "$W" && cd "$W" || die "cannot use $W"
gcc -O2 -g "$PGO_ROOT/examples/recsort/recsort.c" -o recsort || die "cannot build recsort"
rm -f rs*.data rs*.json
for i in $(seq -w 1 "$N"); do
	# shellcheck disable=SC2086
	"$PGO" collect -q -g --no-off-cpu -r 5 -o "rs$i.data" -- ./recsort $ARGS >/dev/null ||
		die "recording $i failed"
	"$PGO" convert --to json -i "rs$i.data" -o "rs$i.json" 2>/dev/null || die "convert $i failed"
	rm -f "rs$i.data"
done
python3 - "$PGO" "$N" <<'PY'
import collections, subprocess, sys
pgo, n = sys.argv[1], int(sys.argv[2])
def name(i): return "rs%0*d.json" % (len(str(n)), i)
def gap(d): return "1" if d == 1 else "2-5" if d <= 5 else "6-15" if d <= 15 else "16+"
for q, confirm in (("0.05", False), ("0.01", False), ("0.01", True)):
    bins, roots = collections.defaultdict(lambda: [0, 0]), collections.Counter()
    for i in range(1, n + 1):
        for j in range(i + 1, n + 1):
            if confirm and j == n:
                continue
            cmd = [pgo, "gate", "compare", "--q", q, name(i), name(j)]
            if confirm:
                cmd += ["--confirm-profile", name(j + 1)]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode not in (0, 1):
                sys.exit("pgo gate failed on %s %s: %s" % (name(i), name(j), r.stderr))
            b = bins[gap(j - i)]
            b[0] += 1
            if r.returncode == 1:
                b[1] += 1
                roots.update(set(l.split()[0] for l in r.stdout.splitlines() if "ROOT CAUSE" in l))
    print("q=%s%s: %s; root causes: %s" % (q, " + confirmation" if confirm else "",
          ", ".join("gap %s: %d/%d" % (k, v[1], v[0]) for k, v in sorted(bins.items())),
          dict(roots.most_common(4))))
PY
