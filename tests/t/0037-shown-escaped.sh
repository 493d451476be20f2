#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A commit's subject and author come from whoever wrote the history: a CR
# or an escape sequence in them is shown escaped (\r, \x1b) in the text
# report, the bisect log and the report mail, never as the byte itself
# that a terminal or a mail reader would act on.
. "$(dirname "$0")/../lib.sh"

repo=$SCRATCH/repo
git init -q -b main "$repo"
git -C "$repo" config user.name "Fixture Author"
git -C "$repo" config user.email fixture@example.org
cr=$(printf '\r') esc=$(printf '\033')
echo 1 > "$repo/f"
git -C "$repo" add f
git -C "$repo" commit -q -m "root"
good=$(git -C "$repo" rev-parse HEAD)
echo 2 > "$repo/f"
touch "$repo/regression"
git -C "$repo" add -A
GIT_AUTHOR_NAME="Mallory${cr}Root" git -C "$repo" commit -q \
	-m "spoof${cr}first bad commit: 0000 ${esc}[2Jcleared"
culprit=$(git -C "$repo" rev-parse HEAD)
echo 3 > "$repo/f"
git -C "$repo" commit -q -am "after"

expect_exit 0 "the bisection finds the commit" "$BISECTCTL" run --repo "$repo" \
	--good "$good" --bad HEAD --out "$SCRATCH/o" \
	--json "$SCRATCH/r.json" -- sh -c 'test ! -f regression'
cp "$SCRATCH/out" "$SCRATCH/report.txt" # (expect_exit's stdout)
check "it is the planted commit" \
	[ "$(jq -r .first_bad "$SCRATCH/r.json")" = "$culprit" ]
# raw: true when the file holds a CR or an ESC byte
raw() { tr -d '\n' < "$1" | od -An -c | grep -q -e '\\r' -e '033'; }
for f in report.txt o/bisect.log o/report.mail; do
	check "$f holds no CR and no escape byte" \
		'[ -s "$SCRATCH/$f" ] && ! raw "$SCRATCH/$f"'
done
check "the text report shows them escaped" \
	'grep -qF "spoof\rfirst bad commit: 0000 \x1b[2Jcleared" "$SCRATCH/report.txt"'
check "and the author too" 'grep -qF "Mallory\rRoot" "$SCRATCH/report.txt"'
check "the mail and the log show the subject escaped" \
	'grep -qF "spoof\rfirst" "$SCRATCH/o/report.mail" &&
	 grep -qF "spoof\rfirst" "$SCRATCH/o/bisect.log"'
check "the JSON keeps the subject as it is, in JSON's escapes" \
	'jq -e ".steps | length > 0" "$SCRATCH/r.json" > /dev/null &&
	 grep -qF "spoof\\r" "$SCRATCH/r.json"'
done_testing
