#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Run test scripts (tests/t/*.sh, or those given) with every check's
# condition inverted (TEST_INVERT=1 in tests/lib.sh).  On a healthy tree
# each check must then report "not ok": one that still says ok passes
# whatever its condition says.  Prints those and fails when there is one.
cd "$(dirname "$0")/.." || exit 1
[ $# -gt 0 ] || set -- tests/t/*.sh
bad=0
out=$(mktemp "${TMPDIR:-/tmp}/bisectd-inverted.XXXXXX")
trap 'rm -f "$out"' EXIT
for t in "$@"; do
	start=$(date +%s)
	TEST_INVERT=1 sh "$t" > "$out" 2>&1
	total=$(grep -c '^\(not \)\{0,1\}ok ' "$out")
	still=$(grep '^ok ' "$out" | grep -v '^ok [0-9]* # skip')
	echo "# $t: $total checks inverted, $(( $(date +%s) - start )) s"
	if [ -n "$still" ]; then
		echo "$still" | sed "s|^|$t: still |"
		bad=$((bad + 1))
	fi
done
[ "$bad" -eq 0 ] || { echo "$bad script(s) have checks that cannot fail"; exit 1; }
