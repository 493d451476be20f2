#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# git's bisection (no --confidence) names the bad commit when every
# commit tested passed, though git never runs it.  bisectctl run runs it
# once first: when it fails it is the answer, with that run in the
# report; when it passes there is no failure to bisect, and that is
# said plainly (exit 2), not "first bad commit".  The confidence line of
# git's bisection says that none was asked for, not a low percentage.
. "$(dirname "$0")/../lib.sh"

repo=$SCRATCH/repo
eval "$("$TOP/tests/fixtures/mkrepo.sh" "$repo" 1 40)"
# a culprit at the bad end: the bad commit is the first that has it
expect_exit 0 "a failure that only the bad commit has" \
	"$BISECTCTL" run --repo "$repo" --good "$GOOD" --bad "$CULPRIT" \
	--json "$SCRATCH/end.json" --out "$SCRATCH/end" -- \
	sh -c 'test ! -f regression'
check "the bad commit, after a run of it that failed" \
	jq_true "$SCRATCH/end.json" ".first_bad == \"$CULPRIT\" and
		([.steps[] | select(.role == \"endpoint\" and .verdict == \"bad\")] | length) == 1"
check "the confidence line says none was asked for" \
	grep -q "^confidence: none asked for (git's bisection: each commit run once, the answer not re-run; --confidence P re-runs and verifies it)$" \
	"$SCRATCH/out"
check "and shows no percentage" '! grep -q "^confidence: [0-9]" "$SCRATCH/out"'

expect_exit 2 "a command that never fails" \
	"$BISECTCTL" run --repo "$repo" --good "$GOOD" --bad "$BAD" \
	--json "$SCRATCH/never.json" --out "$SCRATCH/never" -- true
check "no first bad commit" \
	jq_true "$SCRATCH/never.json" '.first_bad == null and .result == "error"'
check "the bad commit was run once, and passed" \
	jq_true "$SCRATCH/never.json" '[.steps[] | select(.role == "endpoint")] |
		length == 1 and .[0].verdict == "good"'
check "the report says so plainly" \
	grep -q "every commit tested passed, and so did the bad commit ${BAD%"${BAD#????????????}"} when it was run (verdict good): there is no failure to bisect" \
	"$SCRATCH/out"
check "and names no culprit" '! grep -q "^first bad commit" "$SCRATCH/out"'

# an ordinary bisection: the bad end is never run, as in git
expect_exit 0 "a culprit inside the range" \
	"$BISECTCTL" run --repo "$repo" --good "$GOOD" --bad "$BAD" \
	--json "$SCRATCH/mid.json" --out "$SCRATCH/mid" -- \
	sh -c 'test ! -f regression'
check "found without running the bad end" \
	jq_true "$SCRATCH/mid.json" ".first_bad == \"$CULPRIT\" and
		([.steps[] | select(.role == \"endpoint\")] | length) == 0"
done_testing
