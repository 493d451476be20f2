#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Bad input: a one-line error, exit status 2, and nothing written to the
# cache.  Commands that exit >= 128 abort with status 3, as git does.
. "$(dirname "$0")/../lib.sh"

repo=$SCRATCH/repo
eval "$("$TOP/tests/fixtures/mkrepo.sh" "$repo" 3 60)"
pass='test ! -f regression'

expect_exit 2 "no such repository" \
	"$BISECTCTL" run --repo "$SCRATCH/nope" --good a --bad b -- true
one_line_error "cannot open repository '$SCRATCH/nope'"
expect_exit 2 "not a repository" \
	"$BISECTCTL" run --repo "$SCRATCH" --good a --bad b -- true
one_line_error "cannot open repository"
expect_exit 2 "unknown bad revision" \
	"$BISECTCTL" run --repo "$repo" --good "$GOOD" --bad nosuchrev -- true
one_line_error "unknown revision 'nosuchrev'"
expect_exit 2 "unknown good revision" \
	"$BISECTCTL" run --repo "$repo" --good v9.9 --bad "$BAD" -- true
one_line_error "unknown revision 'v9.9'"
expect_exit 2 "no good revision" \
	"$BISECTCTL" run --repo "$repo" --bad "$BAD" -- true
one_line_error "need --bad and at least one --good"
expect_exit 2 "no command" \
	"$BISECTCTL" run --repo "$repo" --good "$GOOD" --bad "$BAD"
one_line_error "run needs a command"
expect_exit 2 "a --mail-from that is two addresses" \
	"$BISECTCTL" run --repo "$repo" --good "$GOOD" --bad "$BAD" \
	--mail-from "a@example.org, b@example.org" -- true
one_line_error "^bisectctl: --mail-from: 'a@example.org, b@example.org' is not one mail address"
expect_exit 2 "unknown subcommand" "$BISECTCTL" frobnicate
one_line_error "unknown command 'frobnicate'"
check "bad input left nothing in the cache" [ ! -e "$BISECTD_CACHE" ]

expect_exit 2 "command that does not exist" \
	"$BISECTCTL" run --repo "$repo" --good "$GOOD" --bad "$BAD" -- /no/such/cmd
check "says which command" grep -q "cannot run '/no/such/cmd'" "$SCRATCH/err"
expect_exit 3 "command exiting 200 aborts" \
	"$BISECTCTL" run --repo "$repo" --good "$GOOD" --bad "$BAD" -- sh -c 'exit 200'
check "says why it aborted" grep -q "exited with status 200" "$SCRATCH/err"

# good and bad swapped: bad is an ancestor of good
expect_exit 2 "good and bad swapped" \
	"$BISECTCTL" run --repo "$repo" --good "$BAD" --bad "$GOOD" -- sh -c "$pass"
check "says they look swapped" grep -q "did you swap good and bad" "$SCRATCH/err"

# a good commit on a side branch: the merge base is tested first
git -C "$repo" checkout -q -b side "$GOOD"
echo side > "$repo/side.txt"
git -C "$repo" add side.txt
git -C "$repo" commit -q -m side
side=$(git -C "$repo" rev-parse HEAD)
git -C "$repo" checkout -q main
expect_exit 0 "good commit not an ancestor of bad: merge base tested" \
	"$BISECTCTL" run --repo "$repo" --good "$side" --bad "$BAD" \
	--json "$SCRATCH/mb.json" -- sh -c "$pass"
check "says so" grep -q "is not an ancestor of bad commit" "$SCRATCH/err"
check "the merge base was tested first" \
	jq_true "$SCRATCH/mb.json" '.steps[0].role == "merge-base" and .steps[0].verdict == "good"'
check "and the culprit found" [ "$(jq -r .first_bad "$SCRATCH/mb.json")" = "$CULPRIT" ]

# a merge base that is bad: the bug was fixed on the good side
git -C "$repo" checkout -q -b fixed "$CULPRIT"
git -C "$repo" rm -q regression
git -C "$repo" commit -q -m "fix it"
fixed=$(git -C "$repo" rev-parse HEAD)
git -C "$repo" checkout -q main
expect_exit 2 "merge base is bad" \
	"$BISECTCTL" run --repo "$repo" --good "$fixed" --bad "$BAD" -- sh -c "$pass"
check "says the merge base is bad" grep -q "the merge base .* is bad" "$SCRATCH/err"
done_testing
