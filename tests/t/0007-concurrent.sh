#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Two bisections of the same repository at once share its worktree: the
# second waits for the first (and says so) instead of checking out commits
# under its feet.  Both find the culprit.
. "$(dirname "$0")/../lib.sh"
repo=$SCRATCH/repo
eval "$("$TOP/tests/fixtures/mkrepo.sh" "$repo" 9 40)"
slow='sleep 0.5; test ! -f regression'
"$BISECTCTL" run --repo "$repo" --good "$GOOD" --bad "$BAD" \
	--json "$SCRATCH/1.json" -- sh -c "$slow" > /dev/null 2> "$SCRATCH/1.err" &
first=$!
sleep 0.3
"$BISECTCTL" run --repo "$repo" --good "$GOOD" --bad "$BAD" \
	--json "$SCRATCH/2.json" -- sh -c "$slow" > /dev/null 2> "$SCRATCH/2.err"
second=$?
wait $first
check "first bisection finds the culprit" \
	[ "$(jq -r .first_bad "$SCRATCH/1.json")" = "$CULPRIT" ]
check "second bisection finds it too (exit $second)" \
	'[ "$second" -eq 0 ] && [ "$(jq -r .first_bad "$SCRATCH/2.json")" = "$CULPRIT" ]'
check "the second one waited for the worktree" \
	grep -q "waiting for '.*-run.lock', held by another process" "$SCRATCH/2.err"
done_testing
