#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Run the cmocka unit tests given as arguments, from the top directory
# (the fixtures are found by relative paths).  Fails if any test fails.
cd "$(dirname "$0")/.." || exit 1
failed=0
for t in "$@"; do
	echo "== $t"
	case $t in
	/*) "$t" ;;
	*) "./$t" ;;
	esac || failed=$((failed + 1))
done
[ "$failed" -eq 0 ] || { echo "$failed unit test program(s) failed"; exit 1; }
