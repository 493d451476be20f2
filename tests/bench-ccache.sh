#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make bench, ccache across work directories: the tiny recipe built in
# one cache's work directory with an empty CCACHE_DIR, then in another
# cache's (a second work directory of the same tree and config), whose
# first build should find nearly everything in the compiler cache that
# the first filled; then once more in a third with CCACHE_BASEDIR set to
# a directory that holds neither (absolute paths reach the compiler, as
# without the worker's CCACHE_BASEDIR).  Figures go to stdout.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
ctl=$top/build/bin/bisectctl
root=$(mktemp -d "${TMPDIR:-/tmp}/bisectd-bench.XXXXXX")
trap 'rm -rf "$root"' EXIT
CCACHE_DIR=$root/ccache
export CCACHE_DIR
now() { date +%s.%N; }
secs() { echo "$1 $2" | awk '{ printf "%.1f", $2 - $1 }'; }

# build NAME: the tiny recipe's build of the imported tree in cache NAME;
# prints the seconds of the whole step (checkout, config, build, boot)
# and the compiler cache's hits and misses
build() {
	BISECTD_CACHE=$root/$1
	export BISECTD_CACHE
	eval "$("$top/build/tests/fixtures/kernel-history" --import-only)"
	ccache -z > /dev/null
	t0=$(now)
	"$ctl" test --repo "$REPO" --commit "$GOOD" --recipe tiny \
		--out "$root/$1.out" > /dev/null 2>&1
	t1=$(now)
	ccache --print-stats | awk -v s="$(secs "$t0" "$t1")" '
		$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { hit += $2 }
		$1 == "cache_miss" { miss = $2 }
		END { printf "%s %d %d\n", s, hit, miss }'
}
set -- $(build first)
echo "ccache: first work directory, empty cache: $2 hits, $3 misses (the step, checkout to boot: $1 s)"
set -- $(build second)
rate=$(echo "$2 $3" | awk '{ printf "%.0f", 100 * $1 / ($1 + $2) }')
echo "ccache: a second work directory's first build: $rate% hits ($2 of $(($2 + $3))) (target: over 90%; the step: $1 s)"
CCACHE_BASEDIR=$root/none
export CCACHE_BASEDIR
set -- $(build third)
rate=$(echo "$2 $3" | awk '{ printf "%.0f", 100 * $1 / ($1 + $2) }')
echo "ccache: the same without a base directory that holds it: $rate% hits ($2 of $(($2 + $3))) (the step: $1 s)"
