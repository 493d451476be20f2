#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# kill -9 under load: 1,000 test jobs and 100 simulated workers
# (tests/fixtures/loadgen) while bisectd is killed with SIGKILL twice and
# started again on the same port.  Every job ends done with exactly one
# step and one result: an assignment whose answer was lost with the
# daemon is leased again when its lease ends, and a result sent twice
# for one lease counts once.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

repo=$SCRATCH/repo
eval "$("$TOP/tests/fixtures/mkrepo.sh" "$repo" 1 20 2> /dev/null)"
make_tokens
db=$STATE/state.db
# jobs_in STATE: how many jobs the store has in that state (a number of
# enum job_state: 0 queued, 1 running, 2 done)
jobs_in() { sqlite3 "$db" "PRAGMA busy_timeout = 5000; SELECT count(*) FROM jobs WHERE state = $1" | tail -n 1; }
q() { sqlite3 "$db" "PRAGMA busy_timeout = 5000; $1" | tail -n 1; }
# one address and one submit token carry a whole farm's load: no limit
# per address or per submitter
farm="--max-conns-per-address 0 --max-jobs-per-submitter 0 --max-submits-per-minute 0"

# first, one lease by hand: its result is taken once, before and after
# a kill
start_bisectd $farm
wid=$(curl -s -H "Authorization: Bearer $WTOKEN" -d '{"name":"hand","run":true}' "$URL/api/v1/workers" | jq .id)
id=$(submit "$(jq -nc --arg r "$repo" --arg c "$BAD" '{type: "test", repo: $r, commit: $c, command: "true # by hand"}')")
curl -s -X POST -H "Authorization: Bearer $WTOKEN" "$URL/api/v1/workers/$wid/poll" \
	> "$SCRATCH/lease.json"
lease=$(jq -r .lease "$SCRATCH/lease.json")
kill -9 "$DPID"
wait "$DPID" 2> /dev/null
start_bisectd $farm
post_result() {
	curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $WTOKEN" \
		-d "{\"verdict\":\"good\",\"title\":\"\",\"commit\":$(jq .commit "$SCRATCH/lease.json")}" \
		"$URL/api/v1/leases/$lease/result"
}
first=$(post_result) second=$(post_result)
check "a lease from before a kill -9 gives its result once ($first, then $second)" \
	'[ "$first" = 200 ] && [ "$second" = 409 ] &&
	 [ "$(q "SELECT count(*) FROM steps WHERE job = $id AND result IS NOT NULL")" = 1 ]'

"$TOP/build/tests/fixtures/loadgen" "$URL" "$STOKEN" "$WTOKEN" "$repo" \
	"$BAD" 1000 100 > "$SCRATCH/load.json" 2> "$SCRATCH/load.err" &
lg=$!
kills=""
for at in 200 600; do
	for _ in $(seq 600); do
		[ "$(jobs_in 2)" -ge "$at" ] && break
		sleep 0.1
	done
	n=$(jobs_in 2)
	kill -9 "$DPID"
	wait "$DPID" 2> /dev/null
	kills="$kills $n"
	start_bisectd $farm
done
for _ in $(seq 1200); do
	kill -0 "$lg" 2> /dev/null || break
	sleep 0.1
done
kill -9 "$lg" 2> /dev/null
wait "$lg"
lrc=$?
check "bisectd was killed twice with jobs left (jobs done then:$kills)" \
	'set -- $kills; [ "$#" = 2 ] && [ "$1" -lt 1001 ] && [ "$2" -lt 1001 ]'
check "the load generator saw every job end (exit $lrc)" '[ "$lrc" = 0 ]'
check "all 1,001 jobs are done" '[ "$(jobs_in 2)" = 1001 ]'
check "each job has one step, and each step one result" \
	'[ "$(q "SELECT count(*) FROM steps")" = 1001 ] &&
	 [ "$(q "SELECT count(*) FROM steps WHERE result IS NOT NULL AND verdict = '"'good'"'")" = 1001 ] &&
	 [ "$(q "SELECT count(*) FROM (SELECT job FROM steps GROUP BY job HAVING count(*) > 1)")" = 0 ]'
echo "# $(cat "$SCRATCH/load.json")"
echo "# steps leased again after a lost answer: $(q "SELECT count(*) FROM steps WHERE attempts > 0")"

done_testing
