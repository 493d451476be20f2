#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Parallel bisection: with W workers on one job, bisectd tests up to W
# commits at once, and the rounds stay within ceil(log_{W+1} N) + 1.
# The same history with W = 1, 2 and 4, each with its own command (so
# that no verdict comes from the result cache).
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

repo=$SCRATCH/repo
eval "$("$TOP/tests/fixtures/mkrepo.sh" "$repo" 5 400)"
make_tokens
start_bisectd
for w in 1 2 3 4; do start_worker "w$w"; done
for W in 1 2 4; do
	id=$(submit "$(bisect_job "$repo" "$GOOD" "$BAD" \
		"sleep 0.2; test ! -f regression # W=$W" "{max_workers: $W}")")
	wait_job "$id" 120
	n=$(jq .initial_candidates "$SCRATCH/job")
	bound=$(awk -v n="$n" -v w="$W" 'BEGIN { r = 0; c = 1; while (c < n) { c *= w + 1; r++ } print r + 1 }')
	check "W=$W: found the culprit" \
		jq_true "$SCRATCH/job" ".result == \"found\" and .culprit == \"$CULPRIT\""
	rounds=$(jq .rounds "$SCRATCH/job")
	check "W=$W: $rounds rounds for $n candidates (bound $bound)" [ "$rounds" -le "$bound" ]
	most=$(jq '[.steps[] | select(.state != "cancelled") | .round] | group_by(.) | map(length) | max' "$SCRATCH/job")
	check "W=$W: at most $W probes per round ($most)" [ "$most" -le "$W" ]
	[ "$W" -gt 1 ] && check "W=$W: rounds with more than one probe" [ "$most" -gt 1 ]
done

# the embedded coordinator: the same scheduler with local workers
expect_exit 0 "bisectctl run --workers 3 (embedded)" \
	"$BISECTCTL" run --workers 3 --repo "$repo" --good "$GOOD" --bad "$BAD" \
	--json "$SCRATCH/embedded.json" --out "$SCRATCH/embedded" -- \
	sh -c 'sleep 0.2; test ! -f regression'
check "finds the culprit" jq_true "$SCRATCH/embedded.json" ".first_bad == \"$CULPRIT\""
check "its state is in SQLite in the output directory" \
	[ -s "$SCRATCH/embedded/state.db" ]
# which of the three took which step, and how many probes of a round a
# result overtook, is up to the machine's timing; what the scheduler
# guarantees is no more probes in a round than the three slots, each run
# by one of the three local workers
most=$(jq '[.steps[] | .round] | group_by(.) | map(length) | max' "$SCRATCH/embedded.json")
check "no more than three probes in a round ($most)" '[ "$most" -ge 1 ] && [ "$most" -le 3 ]'
check "every step ran on one of the three local workers" \
	jq_true "$SCRATCH/embedded.json" 'all(.steps[]; .worker >= 1 and .worker <= 3)'
done_testing
