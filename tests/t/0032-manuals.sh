#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The programs say who they are and how they are used: --version prints
# NAME VERSION; bisectctl without a command a short usage and exit 2;
# every --help exits 0 and ends with examples that work; the manual
# pages pass mandoc's lint, name every option that --help names, and
# make install puts them in their sections.
. "$(dirname "$0")/../lib.sh"

BIN=$TOP/build/bin
version=$(git -C "$TOP" describe --tags --match 'v[0-9]*' 2> /dev/null | sed 's/^v//')
[ -n "$version" ] || version=$(cat "$TOP/VERSION")
for p in bisectctl bisectd bisect-worker; do
	expect_exit 0 "$p --version" "$BIN/$p" --version
	check "$p --version prints '$p $version', one line" \
		'[ "$(cat "$SCRATCH/out")" = "$p $version" ]'
done

# no command: a few lines on stderr, nothing on stdout
expect_exit 2 "bisectctl without a command" "$BIN/bisectctl"
check "its usage is short and points to --help" \
	'[ "$(wc -l < "$SCRATCH/err")" -le 8 ] && [ ! -s "$SCRATCH/out" ] &&
	grep -q "^usage: bisectctl " "$SCRATCH/err" &&
	grep -q "see bisectctl --help" "$SCRATCH/err"'
expect_exit 2 "bisect-worker without a server" "$BIN/bisect-worker"
check "its usage is short and points to --help" \
	'[ "$(wc -l < "$SCRATCH/err")" -le 8 ] &&
	grep -q "see bisect-worker --help" "$SCRATCH/err"'
expect_exit 2 "bisectd with a stray argument" "$BIN/bisectd" stray
check "its usage is short and points to --help" \
	'[ "$(wc -l < "$SCRATCH/err")" -le 8 ] &&
	grep -q "see bisectd --help" "$SCRATCH/err"'

# ends_with_examples PROGRAM-WORDS: the last --help ($SCRATCH/out) ends
# with "examples:" and one or two lines (each perhaps continued) that
# run PROGRAM-WORDS
ends_with_examples() {
	awk '/^examples:$/ { n = 0; seen = 1; next }
	     seen && /^  [^ ]/ { n++ } END { exit !(seen && n >= 1 && n <= 2) }' \
		"$SCRATCH/out" &&
		sed -n '/^examples:$/,$p' "$SCRATCH/out" | sed -n 2p |
		grep -Eq "^  $1( |\$)"
}
for p in bisectctl bisectd bisect-worker; do
	expect_exit 0 "$p --help" "$BIN/$p" --help
	cp "$SCRATCH/out" "$SCRATCH/help-$p"
	check "$p --help ends with examples" ends_with_examples "$p"
done
for cmd in run bisect test verify build config classify stats maintainers \
	releases help; do
	expect_exit 0 "bisectctl $cmd --help" "$BIN/bisectctl" "$cmd" --help
	cat "$SCRATCH/out" >> "$SCRATCH/help-bisectctl"
	check "bisectctl $cmd --help ends with examples of $cmd" \
		ends_with_examples "bisectctl $cmd"
done

# the examples work as they are written: bisectctl --help's first (run)
# in a repository whose make check starts failing at the fourth commit
repo=$SCRATCH/example
git init -q -b main "$repo"
printf 'check:\n\ttest ! -f regression\n' > "$repo/Makefile"
git -C "$repo" add Makefile
git -C "$repo" -c user.name=A -c user.email=a@example.org commit -q -m one
git -C "$repo" tag v1.0
for n in 2 3 4 5 6 7; do
	[ "$n" = 4 ] && echo planted > "$repo/regression"
	echo "$n" > "$repo/n"
	git -C "$repo" add -A
	git -C "$repo" -c user.name=A -c user.email=a@example.org commit -q -m "change $n"
	[ "$n" = 4 ] && culprit=$(git -C "$repo" rev-parse HEAD)
done
example=$(sed -n '/^examples:$/{n;p;q}' "$SCRATCH/help-bisectctl" |
	sed 's/^  bisectctl //')
check "bisectctl --help's first example is run's" \
	'[ "${example%% *}" = run ]'
# (the words split as the shell would: the example has no quotes)
(cd "$repo" && "$BIN/bisectctl" $example) > "$SCRATCH/example.out" 2>&1
rc=$?
check "it finds the commit that broke make check" \
	'[ $rc -eq 0 ] && grep -q "$culprit" "$SCRATCH/example.out"'
# classify's, on a saved console log of a NULL dereference
cp "$TOP/tests/fixtures/console/oops-null-initcall.log" "$SCRATCH/console.log"
example=$("$BIN/bisectctl" classify --help | sed -n '/^examples:$/{n;p;q}' |
	sed 's/^  bisectctl //')
(cd "$SCRATCH" && "$BIN/bisectctl" $example) > "$SCRATCH/classify.out" 2>&1
rc=$?
check "classify's example reads console.log: bad, with its title" \
	'[ $rc -eq 1 ] && grep -q "^verdict: bad" "$SCRATCH/classify.out" &&
	grep -q "^title: BUG: kernel NULL pointer dereference" "$SCRATCH/classify.out"'

# bisectd's second, a token, in a state directory of the test's own
example=$(sed -n '/^examples:$/,$p' "$SCRATCH/help-bisectd" | sed -n 3p |
	sed "s|^  bisectd ||; s|/var/lib/bisectd|$SCRATCH/state|")
check "bisectd --help's second example makes a token" \
	'[ "${example#*token add}" != "$example" ] &&
	"$BIN/bisectd" $example > "$SCRATCH/token" 2> "$SCRATCH/token.err" &&
	grep -Eqx "[0-9a-f]{64}" "$SCRATCH/token"'

# the pages: mandoc's lint, and every option of the sources in them
sh "$TOP/tests/lint-man.sh" > "$SCRATCH/lint.out" 2>&1
passed "mandoc -T lint -W warning and the sources' options (lint-man.sh)" \
	$? "$SCRATCH/lint.out"
# every long option that --help names is in the program's page
man_names_help() {
	mandoc -T ascii "$TOP/docs/man/$2" | sed 's/.\x08//g' > "$SCRATCH/page.txt"
	missing=
	for o in $(grep -o -- '--[a-z][a-z0-9-]*' "$SCRATCH/help-$1" | sort -u); do
		grep -Eq -- "$o([^a-z0-9-]|\$)" "$SCRATCH/page.txt" ||
			missing="$missing $o"
	done
	[ -z "$missing" ] || { echo "$2 lacks:$missing" > "$SCRATCH/missing"; return 1; }
}
for pair in bisectctl:bisectctl.1 bisectd:bisectd.8 \
	bisect-worker:bisect-worker.8; do
	rm -f "$SCRATCH/missing"
	man_names_help "${pair%%:*}" "${pair#*:}"
	passed "${pair#*:} names every option of ${pair%%:*}'s --help texts" \
		$? "$SCRATCH/missing"
done

# make install: each page in its section under DESTDIR/PREFIX
root=$SCRATCH/root
make -s -C "$TOP" install DESTDIR="$root" PREFIX=/usr > "$SCRATCH/make.out" 2>&1
check "make install succeeds" [ $? -eq 0 ]
man=$root/usr/share/man
check "the pages are installed in man1, man5 and man8" \
	'[ -f "$man/man1/bisectctl.1" ] && [ -f "$man/man5/bisectd-recipe.5" ] &&
	[ -f "$man/man8/bisectd.8" ] && [ -f "$man/man8/bisect-worker.8" ]'
check "their FILES name PREFIX's paths" \
	'grep -q "^\\.It Pa /usr/share/bisectd/recipes\$" "$man/man1/bisectctl.1" &&
	! grep -q /usr/local "$man/man8/bisectd.8"'
if command -v man > /dev/null; then
	check "man finds the installed bisectctl(1)" \
		'[ "$(MANPATH="$man" man -w bisectctl)" = "$man/man1/bisectctl.1" ]'
else
	skip_rest "man (man-db) is not installed"
fi
done_testing
