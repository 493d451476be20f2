#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# GET /metrics: bisectd's own counters and histograms in Prometheus' text
# format, after a bisection that one worker ran.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

repo=$SCRATCH/repo
eval "$("$TOP/tests/fixtures/mkrepo.sh" "$repo" 7 100)"
make_tokens
start_bisectd
start_worker w1
id=$(submit "$(bisect_job "$repo" "$GOOD" "$BAD" 'test ! -f regression')")
check "a bisection ends" wait_job "$id" 60
m=$SCRATCH/metrics
code=$(curl -s -o "$m" -w '%{http_code} %{content_type}' "$URL/metrics")
check "GET /metrics ($code)" \
	'[ "$code" = "200 text/plain; version=0.0.4; charset=utf-8" ]'
# v NAME: the value of the sample NAME (with its labels, as written)
v() { awk -v n="$1" '$1 == n { print $2 }' "$m"; }
check "every line is a comment or a sample" \
	'! grep -Ev "^# (HELP|TYPE) [a-z_]+ |^[a-z_]+(\{[a-z]+=\"[^\"]*\"\})? [0-9.e+-]+$" "$m"'
check "every family has its HELP and TYPE" \
	'(for f in $(sed -n "s/^# TYPE \([a-z_]*\) .*/\1/p" "$m"); do
		grep -q "^# HELP $f " "$m" || exit 1
	 done)'
check "the job is counted as done" '[ "$(v "bisectd_jobs{state=\"done\"}")" = 1 ]'
check "one worker" '[ "$(v bisectd_workers)" = 1 ]'
steps=$(jq '[.steps[] | select(.cached == false and .state == "done")] | length' "$SCRATCH/job")
check "an assignment and a result for each step the worker ran ($steps)" \
	'[ "$(v bisectd_assignments_total)" = "$steps" ] && [ "$(v bisectd_results_total)" = "$steps" ]'
check "the poll-to-assignment histogram counts each assignment" \
	'[ "$(v bisectd_poll_to_assignment_seconds_count)" = "$steps" ] &&
	 [ "$(v "bisectd_poll_to_assignment_seconds_bucket{le=\"+Inf\"}")" = "$steps" ]'
check "the scheduler ran for each poll at least" \
	'[ "$(v bisectd_schedule_seconds_count)" -ge "$(v bisectd_polls_total)" ]'
# the worker polls again after its last result: give it a moment
for _ in $(seq 50); do
	[ "$(v bisectd_polls_waiting)" = 1 ] && break
	sleep 0.1
	curl -s -o "$m" "$URL/metrics"
done
check "the idle worker's long poll is waiting, no slow call is queued" \
	'[ "$(v bisectd_polls_waiting)" = 1 ] && [ "$(v bisectd_pool_queue)" = 0 ]'
check "buckets only grow" \
	'grep "^bisectd_schedule_seconds_bucket" "$m" | awk "{ if (\$2 < last) exit 1; last = \$2 }"'

kill "$DPID"
wait "$DPID" 2>/dev/null
start_bisectd --public-read no
code=$(curl -s -o /dev/null -w '%{http_code}' "$URL/metrics")
check "without public reads, /metrics needs a token ($code)" '[ "$code" = 401 ]'
done_testing
