#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Lint of the shell tests: every check must be able to fail.
#
#  - `check "what" [ a ] && [ b ]` runs only `[ a ]` inside check; the
#    shell runs `[ b ]` after check has printed ok, and its failure is
#    lost.  A condition with &&, || or a pipe is one quoted expression:
#    check "what" '[ a ] && [ b ]'.
#  - ok and not_ok are lib.sh's own: a test that calls them directly
#    reports outside the checker (and outside TEST_INVERT).
# Prints each offending FILE:LINE and fails when there is one.
cd "$(dirname "$0")/.." || exit 1
[ $# -gt 0 ] || set -- tests/t/*.sh tests/e2e/*.sh tests/distro/*.sh \
	tests/daemon-lib.sh tests/bench*.sh
# Each statement is read with the shell's quoting (single and double
# quotes, backslashes, $( ) nested in either, comments, continued lines)
# and only what stands outside all quotes is looked at.
found=$(awk '
function flush() {
	if (top ~ /(^|[;&|{(]|then|else|do)[ \t]*check[ \t]/ &&
	    top ~ /check[ \t].*(&&|\|)/)
		print FILENAME ":" start ": a condition joined outside check: quote it as one expression"
	else if (top ~ /(^|[;&|{(]|then|else)[ \t]*(not_)?ok[ \t]/)
		print FILENAME ":" start ": ok/not_ok called directly: use check"
	top = ""
	start = 0
}
FNR == 1 { sp = 0; top = ""; start = 0 }
{
	line = $0
	if (start == 0)
		start = FNR
	n = length(line)
	for (i = 1; i <= n; i++) {
		c = substr(line, i, 1)
		ctx = sp ? st[sp] : "N"
		if (ctx == "S") {
			if (c == "\047")
				sp--
			continue
		}
		if (c == "\\") {
			if (i == n && ctx != "D")
				break	# a continued line
			i++
			continue
		}
		if (ctx == "D") {
			if (c == "\"")
				sp--
			else if (c == "$" && substr(line, i + 1, 1) == "(")
				{ st[++sp] = "C"; i++ }
			continue
		}
		# normal text, at the top or inside $( )
		if (c == "#" && (i == 1 || substr(line, i - 1, 1) ~ /[ \t;]/))
			break
		if (c == "\047")
			st[++sp] = "S"
		else if (c == "\"")
			st[++sp] = "D"
		else if (c == "$" && substr(line, i + 1, 1) == "(")
			{ st[++sp] = "C"; i++ }
		else if (c == "(" && ctx == "C")
			st[++sp] = "C"
		else if (c == ")" && ctx == "C")
			sp--
		else if (sp == 0)
			top = top c
	}
	if (sp == 0 && substr(line, n, 1) != "\\")
		flush()
	else
		top = top " "
}' "$@")
[ -z "$found" ] && exit 0
echo "$found"
exit 1
