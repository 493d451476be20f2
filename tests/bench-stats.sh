#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make bench, bisectctl stats: one pass over a generated kernel history
# (kernel-history --kind fixes: the imported linux-source-6.1 tree with
# its MAINTAINERS, each commit rewriting one of its 60,000 .c and .h
# files, one in ten with a Fixes: trailer) of 1,000 and of 100,000
# commits, in a cache of its own (the import takes about 20 s).  The
# history's objects are packed, the import's are loose, as the importer
# writes them.  Figures go to stdout, each with its target.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
ctl=$top/build/bin/bisectctl
BISECTD_CACHE=$(mktemp -d "${TMPDIR:-/tmp}/bisectd-bench.XXXXXX")
export BISECTD_CACHE
trap 'rm -rf "$BISECTD_CACHE"' EXIT
now() { date +%s.%N; }
secs() { echo "$1 $2" | awk '{ printf "%.1f", $2 - $1 }'; }

"$top/build/tests/fixtures/kernel-history" --import-only > /dev/null
seed=0
for n in 1000 100000; do
	seed=$((seed + 1))
	t0=$(now)
	eval "$("$top/build/tests/fixtures/kernel-history" --kind fixes \
		--seed "$seed" --commits "$n")"
	t1=$(now)
	"$ctl" stats --repo "$REPO" --json "$BISECTD_CACHE/stats.json" \
		"$GOOD..$BAD" > /dev/null
	t2=$(now)
	case $n in 1000) target=1 ;; *) target=60 ;; esac
	jq -r --arg wall "$(secs "$t1" "$t2")" --arg gen "$(secs "$t0" "$t1")" \
		--arg target "$target" '
		"bisectctl stats over \(.commits) commits (\(.fix_commits) with Fixes:, \(.regressions) regressions in \([.subsystems[] | select(.regressions > 0)] | length) subsystems): \($wall) s (target: under \($target) s); generating the history took \($gen) s"
		' "$BISECTD_CACHE/stats.json"
done
