#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The manual pages (docs/man): mandoc's lint at the level of warnings,
# then every long option that a program's source accepts, and every key
# of the recipe format, named in its page, so that page and code cannot
# drift apart.  Prints what is wrong and fails when anything is.
cd "$(dirname "$0")/.." || exit 1
if ! command -v mandoc > /dev/null; then
	echo "lint-man: mandoc is not installed (make deps)"
	exit 1
fi
failed=0
# STYLE messages are below -W warning; mandoc's exit status is 2 or
# more for a warning, an error or worse
mandoc -T lint -W warning docs/man/*.[158] || failed=1
# manpage_text PAGE: the page as a reader sees it, without overstrike
manpage_text() { mandoc -T ascii "$1" | sed 's/.\x08//g'; }
# options_in SOURCE...: the names of the long options of getopt tables
options_in() {
	cat "$@" | tr '\n' ' ' |
		grep -o '"[a-z][a-z0-9-]*", *\(required\|no\|optional\)_argument' |
		sed 's/^"\([^"]*\)".*/\1/' | sort -u
}
# missing PAGE WORD...: the words PAGE's text does not have, as --WORD
missing_options() {
	page=$1
	shift
	text=$(manpage_text "$page")
	for o in "$@"; do
		printf '%s\n' "$text" | grep -Eq -- "--$o([^a-z0-9-]|$)" ||
			{ echo "$page: no --$o"; failed=1; }
	done
}
missing_options docs/man/bisectctl.1 $(options_in cli/*.c cli/ctl.h)
missing_options docs/man/bisectd.8 $(options_in bisectd/bisectd.c)
missing_options docs/man/bisect-worker.8 $(options_in worker/bisect-worker.c)
# the recipe keys: lib/recipe.c's table, each an item of the page
for k in $(grep -o '^	{ "[a-z_]*", K_' lib/recipe.c | sed 's/.*"\(.*\)".*/\1/'); do
	grep -q "^\.It Cm $k\$" docs/man/bisectd-recipe.5 ||
		{ echo "docs/man/bisectd-recipe.5: no key $k"; failed=1; }
done
exit $failed
