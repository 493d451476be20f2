#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The bisect log: git bisect replay accepts it and reaches the same first
# bad commit, and bisectctl resumes a stopped bisection from it.
. "$(dirname "$0")/../lib.sh"

repo=$SCRATCH/repo
eval "$("$TOP/tests/fixtures/mkrepo.sh" "$repo" 11 300)"
pass='test ! -f regression'
expect_exit 0 "bisect" "$BISECTCTL" run --repo "$repo" --good "$GOOD" \
	--bad "$BAD" --out "$SCRATCH/run1" --json "$SCRATCH/1.json" -- sh -c "$pass"
log=$SCRATCH/run1/bisect.log
check "bisect.log written" [ -s "$log" ]
check "the report carries the same log" \
	[ "$(jq -r .bisect_log "$SCRATCH/1.json")" = "$(cat "$log")" ]
check "log names the first bad commit" grep -q "^# first bad commit: \[$CULPRIT\]" "$log"
(cd "$repo" && git bisect replay "$log") > "$SCRATCH/replay.out" 2>&1
check "git bisect replay accepts it and finds $CULPRIT" \
	grep -q "^$CULPRIT is the first bad commit" "$SCRATCH/replay.out"
git -C "$repo" bisect reset >/dev/null 2>&1

# stop after three steps, then resume from the log
head -n $((5 + 3 * 2)) "$log" > "$SCRATCH/partial.log"
check "partial log has three step verdicts" \
	[ "$(grep -c '^git bisect' "$SCRATCH/partial.log")" -eq 6 ]
expect_exit 0 "resume from the partial log" "$BISECTCTL" run --repo "$repo" \
	--replay "$SCRATCH/partial.log" --json "$SCRATCH/2.json" -- sh -c "$pass"
check "resumed run finds the same culprit" \
	[ "$(jq -r .first_bad "$SCRATCH/2.json")" = "$CULPRIT" ]
n=$(jq .bisect_steps "$SCRATCH/1.json")
check "resumed run replayed three verdicts and tested the rest" \
	jq_true "$SCRATCH/2.json" "([.steps[] | select(.role == \"replay\")] | length) == 3 and .bisect_steps == $n - 3"
expect_exit 2 "unreadable log" "$BISECTCTL" run --repo "$repo" \
	--replay "$SCRATCH/none.log" -- true
one_line_error "cannot read bisect log"
done_testing
