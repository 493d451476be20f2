#!/bin/sh
# make bench, one build over compile helpers: the tiny recipe built cold
# (a new build directory, an empty compiler cache, no kernel cache) here
# alone, then the same with two distcc helpers, each distccd in a network
# namespace of its own (tests/distcc-lib.sh).  On one machine the helpers
# share its two cores, so the ratio says little about a farm: the figure
# that matters is that the compiles went out.  Needs root.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
ctl=$TOP/build/bin/bisectctl
if [ "$(id -u)" != 0 ] || ! command -v distccd > /dev/null; then
	echo "distcc: needs root and distcc (network namespaces): not measured"
	exit 0
fi
DISTCC_LOGS=$(mktemp -d "${TMPDIR:-/tmp}/bisectd-bench-distcc.XXXXXX")
. "$TOP/tests/distcc-lib.sh"
cache=${BISECTD_CACHE:-/var/cache/bisectd}
trap 'distcc_clean; rm -rf "$DISTCC_LOGS" "$cache"/work/*-benchlocal "$cache"/work/*-benchdistcc' EXIT
distcc_clean
distcc_helper 1
distcc_helper 2
distcc_recipe benchlocal "" "$DISTCC_LOGS"
distcc_recipe benchdistcc "10.231.1.2/2,10.231.2.2/2" "$DISTCC_LOGS"
BISECTD_KERNEL_CACHE_MB=0
export BISECTD_KERNEL_CACHE_MB
eval "$("$TOP/build/tests/fixtures/kernel-history" --import-only)"
rm -rf "$cache"/work/*-benchlocal "$cache"/work/*-benchdistcc

for r in benchlocal benchdistcc; do
	CCACHE_DIR=$DISTCC_LOGS/ccache-$r "$ctl" test --repo "$REPO" \
		--commit "$GOOD" --recipe "$DISTCC_LOGS/recipes/$r.recipe" \
		--json "$DISTCC_LOGS/$r.json" > /dev/null 2>&1 || true
done
here=$(jq .build_seconds "$DISTCC_LOGS/benchlocal.json")
there=$(jq .build_seconds "$DISTCC_LOGS/benchdistcc.json")
echo "distcc: a cold tiny build here alone $(printf %.1f "$here") s," \
	"with two helpers $(printf %.1f "$there") s:" \
	"$(echo "$there $here" | awk '{ printf "%.2f", $1 / $2 }')x" \
	"(the helpers share this machine's $(nproc) cores; no target)"
jq -r '.build_notes // "no notes"' "$DISTCC_LOGS/benchdistcc.json" | sed '/^$/d; s/^/distcc:   /'
echo "distcc:   the helpers' own logs: $(grep -c COMPILE_OK "$DISTCC_LOGS/distccd1.log") and" \
	"$(grep -c COMPILE_OK "$DISTCC_LOGS/distccd2.log") objects compiled;" \
	"verdicts $(jq -r .verdict "$DISTCC_LOGS/benchlocal.json") and $(jq -r .verdict "$DISTCC_LOGS/benchdistcc.json")," \
	"images $(jq -r .image_sha256 "$DISTCC_LOGS/benchlocal.json" | cut -c1-12) and" \
	"$(jq -r .image_sha256 "$DISTCC_LOGS/benchdistcc.json" | cut -c1-12)"
