#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Faults: every job still ends with the right culprit when a worker is
# killed with SIGKILL mid-step, when bisectd is killed with SIGKILL and
# started again mid-job (no step lost, the job finished once), and when
# a worker on another host (a network namespace joined by a veth pair)
# is cut off mid-step.
. "$(dirname "$0")/../lib.sh"
LEASE=3
. "$TOP/tests/daemon-lib.sh"

repo=$SCRATCH/repo
eval "$("$TOP/tests/fixtures/mkrepo.sh" "$repo" 17 200)"
mkdir -p "$SCRATCH/hooks"
make_tokens
start_sink hooks 0
hook=$HOOK
start_bisectd

# --- a worker killed mid-step -------------------------------------------
start_worker w1
w1=$WPID
id=$(submit "$(bisect_job "$repo" "$GOOD" "$BAD" \
	'sleep 1.5; test ! -f regression # kill')")
wait_for "$SCRATCH/w1.log" "job $id step" 30
pkill -9 -s "$w1"
start_worker w2
w2=$WPID
check "job with a worker killed mid-step ends" wait_job "$id" 120
check "it found the culprit" \
	jq_true "$SCRATCH/job" ".result == \"found\" and .culprit == \"$CULPRIT\""
check "the dead worker's step went to another worker" \
	jq_true "$SCRATCH/job" '[.steps[] | select(.lease_losses > 0 and .state == "done")] | length > 0'

# --- bisectd killed and restarted mid-job -------------------------------
start_worker w3
w3=$WPID
id=$(submit "$(bisect_job "$repo" "$GOOD" "$BAD" \
	'sleep 1; test ! -f regression # restart' \
	"{max_workers: 2, callback: \"$hook\"}")")
for _ in $(seq 100); do
	api GET "jobs/$id" > /dev/null
	[ "$(jq '[.steps[] | select(.state == "done")] | length' "$SCRATCH/body")" -ge 3 ] && break
	sleep 0.2
done
cp "$SCRATCH/body" "$SCRATCH/before"
kill -9 "$DPID"
wait "$DPID" 2> /dev/null
sleep 2
start_bisectd
check "after the restart the job ends" wait_job "$id" 120
check "with the culprit" \
	jq_true "$SCRATCH/job" ".result == \"found\" and .culprit == \"$CULPRIT\""
kept() {
	jq -n --slurpfile a "$SCRATCH/before" --slurpfile b "$SCRATCH/job" -e \
		'[$a[0].steps[] | select(.state == "done") | .id] - [$b[0].steps[] | select(.state == "done") | .id] == []' > /dev/null
}
check "no step done before the kill was lost" kept
check "no commit was decided twice" \
	jq_true "$SCRATCH/job" '[.steps[] | select(.state == "done" and .verdict != "infra") | .commit] | length == (unique | length)'
wait_for "$SCRATCH/hooks/hook-1.json" "\"id\":$id" 30
sleep 3
check "the job was finished (and its webhook sent) once" \
	[ "$(grep -l "\"id\":$id," "$SCRATCH"/hooks/hook-*.json | wc -l)" -eq 1 ]

# --- slow webhook receivers do not hold up lease expiry -------------------
# A receiver that takes each webhook and never answers: every delivery
# runs into its 10 s timeout.  Three jobs with such webhooks finish; a
# worker is then killed mid-step.  The lost lease must expire while the
# webhooks are still being tried (they have their own thread), not after
# all three attempts gave up (30 s), as when the scheduler's tick sent
# them.
start_sink slow 0 120
kill -9 "$DPID"
wait "$DPID" 2> /dev/null
start_bisectd
for n in 1 2 3; do
	api POST jobs "$(jq -nc --arg r "$repo" --arg c "$BAD" --arg h "$HOOK" \
		'{type: "test", repo: $r, commit: $c, command: "true", callback: $h}')" \
		"$STOKEN" > /dev/null
done
wait_for "$SCRATCH/slow/hook-1.json" '"id"' 60
pkill -9 -s "$w2"
pkill -9 -s "$w3"
start_worker wslow
wslow=$WPID
id=$(submit "$(jq -nc --arg r "$repo" --arg c "$BAD" \
	'{type: "test", repo: $r, commit: $c, command: "sleep 60 # slow hooks"}')")
wait_for "$SCRATCH/wslow.log" "job $id step" 30
pkill -9 -s "$wslow"
for _ in $(seq 600); do
	api GET "jobs/$id" > /dev/null
	jq_true "$SCRATCH/body" '[.steps[] | select(.lease_losses > 0)] | length > 0' && break
	sleep 0.1
done
failed=$(grep -c "webhook attempt 1 failed" "$SCRATCH/bisectd.log")
check "the lost lease expired while the slow webhooks were tried ($failed of 3 had given up)" \
	'jq_true "$SCRATCH/body" "[.steps[] | select(.lease_losses > 0)] | length > 0" &&
	 [ "$failed" -lt 3 ]'
api POST "jobs/$id/cancel" '' "$STOKEN" > /dev/null

# --- a worker on another host cut off mid-step --------------------------
if [ "$(id -u)" != 0 ] || ! ip netns add "bdA$$" 2> /dev/null; then
	skip_rest "network namespaces need root"
	done_testing
	exit
fi
ip netns add "bdB$$"
cleanup_netns() { ip netns del "bdA$$"; ip netns del "bdB$$"; cleanup_daemons; }
trap cleanup_netns EXIT
ip link add "vbA$$" type veth peer name "vbB$$"
ip link set "vbA$$" netns "bdA$$"
ip link set "vbB$$" netns "bdB$$"
ip -n "bdA$$" addr add 10.231.0.1/24 dev "vbA$$"
ip -n "bdB$$" addr add 10.231.0.2/24 dev "vbB$$"
for ns in "bdA$$" "bdB$$"; do ip -n "$ns" link set lo up; done
ip -n "bdA$$" link set "vbA$$" up
ip -n "bdB$$" link set "vbB$$" up
STATE=$SCRATCH/state2 NETNS=bdA$$ LISTEN=10.231.0.1 PORT=0
make_tokens
start_bisectd
# the remote worker alone takes the first step; then its link goes down
# and a worker beside bisectd is there to take the step over
WNETNS=bdB$$ start_worker remote
id=$(submit "$(bisect_job "$repo" "$GOOD" "$BAD" \
	'sleep 1.5; test ! -f regression # netns')")
check "the remote worker took a step" wait_for "$SCRATCH/remote.log" "job $id step" 30
ip -n "bdB$$" link set "vbB$$" down
WNETNS=bdA$$ start_worker local
check "job with a worker cut off ends" wait_job "$id" 120
check "with the culprit" \
	jq_true "$SCRATCH/job" ".result == \"found\" and .culprit == \"$CULPRIT\""
check "the cut-off worker's step was taken over" \
	jq_true "$SCRATCH/job" '[.steps[] | select(.lease_losses > 0 and .state == "done")] | length > 0'
done_testing
