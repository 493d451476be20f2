#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bisectd's web pages in headless Chromium: the job list shows every job
# with its state; a job's page shows its facts, the candidates left per
# round as a chart, the step table with links to the logs, and the
# report.  Screenshots go to tests/out/.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

repo=$SCRATCH/repo
eval "$("$TOP/tests/fixtures/mkrepo.sh" "$repo" 3 300)"
make_tokens
start_bisectd
start_worker w1
start_worker w2
id=$(submit "$(bisect_job "$repo" "$GOOD" "$BAD" 'sleep 0.2; test ! -f regression' '{max_workers: 2}')")
wait_job "$id" 120
kill -STOP "$WPID"
running=$(submit "$(bisect_job "$repo" "$GOOD" "$BAD" 'sleep 600 # running')")
sleep 1

browse / jobs
check "the job list shows the finished job" \
	grep -q "<a href=\"/jobs/$id\">#$id</a>" "$SCRATCH/jobs.html"
check "with its state and culprit" \
	grep -q "<tr class=\"state-done\">.*$(echo "$CULPRIT" | cut -c1-12)" "$SCRATCH/jobs.html"
check "and the running job as running" \
	grep -q "<tr class=\"state-running\"><td><a href=\"/jobs/$running\">" "$SCRATCH/jobs.html"

browse "/jobs/$id" job
steps=$(jq '.steps | length' "$SCRATCH/job")
rows=$(grep -o '<tr class="verdict-' "$SCRATCH/job.html" | wc -l)
check "the job page has a row per step ($rows of $steps)" [ "$rows" -eq "$steps" ]
rounds=$(jq '[.steps[] | select(.state != "cancelled") | .round] | unique | length' "$SCRATCH/job")
dots=$(grep -o '<circle' "$SCRATCH/job.html" | wc -l)
check "the chart has a point per round and the end ($dots for $rounds rounds)" \
	[ "$dots" -eq $((rounds + 1)) ]
check "the steps link their logs" \
	grep -q "href=\"/api/v1/jobs/$id/steps/[0-9]*/artifacts/command.log\"" "$SCRATCH/job.html"
check "the page carries the report" \
	grep -q "(bisected to $(echo "$CULPRIT" | cut -c1-12))" "$SCRATCH/job.html"
check "a screenshot of the job page" \
	'[ "$(head -c 8 "$out/job.png" | od -An -c | tr -d " ")" = "211PNG\\r\\n032\\n" ] &&
	 [ "$(wc -c < "$out/job.png")" -gt 20000 ]'

browse "/jobs/$running" live
check "a running job's page shows it live" \
	grep -q "Bisection #$running: running" "$SCRATCH/live.html"
browse /jobs/999 nojob
check "an unknown job says so" grep -q "No job #999" "$SCRATCH/nojob.html"
kill -CONT "$WPID"
done_testing
