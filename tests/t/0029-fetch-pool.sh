#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# One submitter's repository URLs that never answer do not hold up the
# others': bisectd fetches several URLs at once (--max-fetches), one
# submitter at most --max-fetches-per-submitter of them (its further
# jobs wait for its own to end), and a fetch that receives nothing for
# --fetch-stall-timeout seconds fails with the reason, long before
# --fetch-timeout.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

mkdir -p "$SCRATCH/srv"
eval "$("$TOP/tests/fixtures/mkrepo.sh" "$SCRATCH/work" 5 30)"
git clone -q --bare "$SCRATCH/work" "$SCRATCH/srv/repo.git"
# a server on loopback that takes connections, notes each, and says
# nothing (for 60 s at most)
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
conns = []
end = time.time() + 60
while time.time() < end:
    s.settimeout(end - time.time())
    try: conns.append(s.accept()[0])
    except OSError: break
    with open(sys.argv[2], "a") as f: f.write("accepted\n")
' "$SCRATCH/mute.port" "$SCRATCH/mute.conns" &
PIDS="$PIDS $!"
gport=$(free_port)
# (setsid: the cleanup kills its session, git-daemon, the child of git)
setsid git daemon --reuseaddr --export-all --listen=127.0.0.1 --port="$gport" \
	--base-path="$SCRATCH/srv" "$SCRATCH/srv" > "$SCRATCH/gitd.log" 2>&1 &
PIDS="$PIDS $!"
for _ in $(seq 50); do [ -s "$SCRATCH/mute.port" ] && break; sleep 0.1; done
for _ in $(seq 50); do
	git ls-remote "git://127.0.0.1:$gport/repo.git" > /dev/null 2>&1 && break
	sleep 0.1
done
mport=$(cat "$SCRATCH/mute.port")
touch "$SCRATCH/mute.conns"
make_tokens
OTOKEN=$("$BISECTD" --state "$STATE" token add submit other)
STALL=5
start_bisectd --fetch-timeout 60 --fetch-stall-timeout $STALL \
	--max-fetches 4 --max-fetches-per-submitter 2 \
	--repo-urls "http://127.0.0.1:$mport/ git://127.0.0.1:$mport/ git://127.0.0.1:$gport/"

# state_of ID: the job's state now
state_of() {
	curl -s -m 2 "$URL/api/v1/jobs/$1" | jq -r .state
}
accepted() { grep -c . "$SCRATCH/mute.conns"; }

# three jobs of one submitter on URLs that never answer (http, git and
# http again), then one of another submitter on a repository that does
t0=$(date +%s)
a1=$(submit "$(bisect_job "http://127.0.0.1:$mport/a.git" "$GOOD" "$BAD" true)")
a2=$(submit "$(bisect_job "git://127.0.0.1:$mport/b.git" "$GOOD" "$BAD" true)")
a3=$(submit "$(bisect_job "http://127.0.0.1:$mport/c.git" "$GOOD" "$BAD" true)")
api POST jobs "$(bisect_job "git://127.0.0.1:$gport/repo.git" "$GOOD" "$BAD" true)" \
	"$OTOKEN" > /dev/null
b=$(jq -r .id "$SCRATCH/body")
tb=$(date +%s.%N)
for _ in $(seq 100); do
	[ "$(state_of "$b")" != fetching ] && break
	sleep 0.1
done
waited=$(echo "$(date +%s.%N) - $tb" | bc)
sb=$(state_of "$b")
sa="$(state_of "$a1") $(state_of "$a2") $(state_of "$a3")"
check "the other submitter's job left fetching after $waited s ($sb), under 3 s" \
	'{ [ "$sb" = queued ] || [ "$sb" = running ]; } && [ "$(echo "$waited < 3" | bc)" = 1 ]'
check "while the first submitter's three still fetch ($sa)" \
	[ "$sa" = "fetching fetching fetching" ]
sleep 0.5
n=$(accepted)
check "of those, two fetch and the third waits (the silent server saw $n connections)" \
	[ "$n" = 2 ]

wait_job "$a1" 30
t1=$(date +%s)
cp "$SCRATCH/job" "$SCRATCH/a1.json"
wait_job "$a2" 30
cp "$SCRATCH/job" "$SCRATCH/a2.json"
for j in a1 a2; do
	check "the silent http and git fetches fail: $j after $((t1 - t0)) s, in one line ($(jq -r .reason "$SCRATCH/$j.json"))" \
		jq_true "$SCRATCH/$j.json" \
		".state == \"failed\" and (.reason | test(\"received nothing for $STALL s\")) and (.reason | test(\"\\n\") | not)"
done
check "after the no-progress limit, not the whole fetch's ($((t1 - t0)) s)" \
	'[ $((t1 - t0)) -ge $((STALL - 1)) ] && [ $((t1 - t0)) -lt 20 ]'
wait_job "$a3" 30
t3=$(date +%s)
check "then the third fetches, and fails the same way after $((t3 - t0)) s" \
	'jq_true "$SCRATCH/job" ".state == \"failed\" and (.reason | test(\"received nothing for $STALL s\"))" && [ "$(accepted)" = 3 ] && [ $((t3 - t1)) -ge $((STALL - 1)) ]'
check "bisectd is still up" 'kill -0 "$DPID" && [ "$(api GET health)" = 200 ]'
done_testing
