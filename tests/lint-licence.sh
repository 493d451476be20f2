#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Every source file and manual page states its licence in its first
# lines, as the kernel's do: the SPDX identifier of LICENSE
# (GPL-2.0-only).  Prints each file without it and fails when there is
# one.
cd "$(dirname "$0")/.." || exit 1
id='SPDX-License-Identifier: GPL-2.0-only'
missing=0
for f in $(git ls-files -- '*.c' '*.h' '*.sh' '*.js' '*.css' '*.html' \
	'docs/man/*.[158]' \
	Makefile .ci/run); do
	if ! head -n 3 "$f" | grep -qF "$id"; then
		echo "$f: no '$id' in its first lines"
		missing=$((missing + 1))
	fi
done
[ "$missing" -eq 0 ]
