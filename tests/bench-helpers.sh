#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make bench, one build over compile helpers: the tiny recipe built cold
# (a new build directory, an empty compiler cache, no kernel cache) here
# alone, then the same with two distcc helpers, each distccd in a network
# namespace of its own (tests/distcc-lib.sh), and with icecream: the
# scheduler and two compile servers in namespaces (tests/icecc-lib.sh).
# On one machine the helpers share its two cores, so the ratios say
# little about a farm: the figure that matters is that the compiles went
# out.  Needs root.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
ctl=$TOP/build/bin/bisectctl
if [ "$(id -u)" != 0 ] || ! command -v ip > /dev/null; then
	echo "compile helpers: need root and iproute2 (network namespaces): not measured"
	exit 0
fi
DISTCC_LOGS=$(mktemp -d "${TMPDIR:-/tmp}/bisectd-bench-helpers.XXXXXX")
ICECC_LOGS=$DISTCC_LOGS
. "$TOP/tests/distcc-lib.sh"
. "$TOP/tests/icecc-lib.sh"
cache=${BISECTD_CACHE:-/var/cache/bisectd}
trap 'distcc_clean; icecc_clean; rm -rf "$DISTCC_LOGS" "$cache"/work/*-benchlocal "$cache"/work/*-benchdistcc "$cache"/work/*-benchicecc' EXIT
distcc_clean
icecc_clean
distcc_recipe benchlocal "" "$DISTCC_LOGS"
recipes=benchlocal
if command -v distccd > /dev/null && distcc_helper 1 && distcc_helper 2; then
	distcc_recipe benchdistcc "10.231.1.2/2,10.231.2.2/2" "$DISTCC_LOGS"
	recipes="$recipes benchdistcc"
else
	echo "distcc: no distccd helpers: not measured"
fi
if command -v iceccd > /dev/null && icecc_net && icecc_daemon s1 1 2 &&
	icecc_daemon s2 2 2 && icecc_daemon w 9 0 && icecc_wait 3; then
	distcc_recipe benchicecc "" "$DISTCC_LOGS"
	echo "icecc = 10.232.0.1" >> "$DISTCC_LOGS/recipes/benchicecc.recipe"
	recipes="$recipes benchicecc"
	BISECTD_ICECC_SOCKET=$ICECC_RUN/w/sock
	export BISECTD_ICECC_SOCKET
else
	echo "icecc: no icecream compile servers: not measured"
fi
BISECTD_KERNEL_CACHE_MB=0
export BISECTD_KERNEL_CACHE_MB
eval "$("$TOP/build/tests/fixtures/kernel-history" --import-only)"
rm -rf "$cache"/work/*-benchlocal "$cache"/work/*-benchdistcc "$cache"/work/*-benchicecc

for r in $recipes; do
	CCACHE_DIR=$DISTCC_LOGS/ccache-$r "$ctl" test --repo "$REPO" \
		--commit "$GOOD" --recipe "$DISTCC_LOGS/recipes/$r.recipe" \
		--json "$DISTCC_LOGS/$r.json" > /dev/null 2>&1 || true
done
j=$DISTCC_LOGS/benchlocal.json
here=$(jq .build_seconds "$j")
# figure KIND: the build with KIND's helpers against the one here alone
figure() {
	there=$(jq .build_seconds "$DISTCC_LOGS/bench$1.json")
	echo "$1: a cold tiny build here alone $(printf %.1f "$here") s," \
		"with two helpers $(printf %.1f "$there") s:" \
		"$(echo "$there $here" | awk '{ printf "%.2f", $1 / $2 }')x" \
		"(the helpers share this machine's $(nproc) cores; no target)"
	jq -r '.build_notes // "no notes"' "$DISTCC_LOGS/bench$1.json" |
		sed "/^\$/d; s/^/$1:   /"
	echo "$1:   the helpers' own logs: $2 and $3 objects compiled;" \
		"verdicts $(jq -r .verdict "$j") and $(jq -r .verdict "$DISTCC_LOGS/bench$1.json")," \
		"images $(jq -r .image_sha256 "$j" | cut -c1-12) and" \
		"$(jq -r .image_sha256 "$DISTCC_LOGS/bench$1.json" | cut -c1-12)"
}
case $recipes in *benchdistcc*)
	figure distcc "$(grep -c COMPILE_OK "$DISTCC_LOGS/distccd1.log")" \
		"$(grep -c COMPILE_OK "$DISTCC_LOGS/distccd2.log")" ;;
esac
case $recipes in *benchicecc*)
	figure icecc "$(icecc_compiled s1)" "$(icecc_compiled s2)" ;;
esac
