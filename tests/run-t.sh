#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Run the integration tests (tests/t/*.sh, or those given), each a TAP
# script in git's t/ style.  Fails if any of them fails.
cd "$(dirname "$0")/.." || exit 1
[ $# -gt 0 ] || set -- tests/t/*.sh
failed=0
for t in "$@"; do
	echo "== $t"
	start=$(date +%s)
	sh "$t" || failed=$((failed + 1))
	echo "# $t: $(( $(date +%s) - start )) s"
done
[ "$failed" -eq 0 ] || { echo "$failed test script(s) failed"; exit 1; }
