#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Slow clients from many addresses (slowloris).  32 loopback addresses
# (127.0.0.2 to 127.0.0.33) each keep as many connections open as
# bisectd lets one address hold (16), each sending a header line every
# 5 s and never the end of its headers, and open another at once when
# one is closed: twice as many as bisectd holds in all (256).
# Meanwhile a reader without a token and a submitter with one are each
# answered within 1 s at every probe, for 15 s.  Then, with no attack to
# make room for, a connection whose headers trickle is closed after
# header-timeout (10 s), and so is one whose body trickles below
# min-body-rate-kb (4); a body that keeps to the rate is read whole.
# Loopback only; everything stops by itself.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

# the slow clients' sockets and bisectd's (a fresh machine may allow
# only 1,024 open files)
ulimit -n 4096 2> /dev/null || ulimit -n "$(ulimit -Hn)" 2> /dev/null
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt 1500 ]; then
	skip_rest "only $(ulimit -n) open files allowed here"
	done_testing
fi

repo=$SCRATCH/repo
eval "$("$TOP/tests/fixtures/mkrepo.sh" "$repo" 1 20 2> /dev/null)"
make_tokens
max=256 per=16 # 32 addresses x 16: the attack fills the total twice
start_bisectd --max-conns "$max" --max-conns-per-address "$per"
check "bisectd is up" [ "$(api GET health)" = 200 ]

SLOW=$TOP/build/tests/fixtures/slowloris
"$SLOW" 127.0.0.1 "$PORT" 2 32 "$per" 20 > "$SCRATCH/attack.json" &
attack=$!
PIDS="$PIDS $attack"
# held: bisectd's port has max connections or more (ss's count of a
# port's connections may miss a few while they come and go by the
# thousand: any of ten looks)
held() {
	for _ in $(seq 10); do
		[ "$(ss -Htn state established "( sport = :$PORT )" | wc -l)" -ge "$max" ] &&
			return 0
		sleep 0.05
	done
	return 1
}
for _ in $(seq 20); do held && break; done
check "32 addresses hold $max slow connections, all that bisectd holds" held

# probe FILE [CURL ARGS]: one request with a deadline of 1 s; its status
# and time are added to FILE
probe() {
	p_file=$1
	shift
	curl -s -o /dev/null -w '%{http_code} %{time_total}\n' -m 1 "$@" \
		>> "$p_file"
}
# answered FILE CODE: every probe in FILE was answered CODE within 1 s
answered() {
	awk -v code="$2" '$1 != code || $2 >= 1 { bad++ } END { exit NR < 10 || bad > 0 }' "$1"
}
# probes FILE CODE: how many, those missed, and the slowest
probes() {
	sort -k2 -n "$1" | awk -v code="$2" '
		$1 != code || $2 >= 1 { if (bad++ < 5) missed = missed " " $1 "/" $2 }
		END { printf "%d probes, %d missed%s, slowest %.3f s", NR, bad, missed, $2 }'
}
# probe_for SECONDS NAME: a health check without a token and a submit
# with one every half second, into $SCRATCH/health-NAME and submit-NAME
n=0
probe_for() {
	end=$(($(date +%s) + $1))
	while [ "$(date +%s)" -lt "$end" ]; do
		n=$((n + 1))
		probe "$SCRATCH/health-$2" "$URL/api/v1/health"
		probe "$SCRATCH/submit-$2" -H "Authorization: Bearer $STOKEN" \
			--data-binary "{\"type\":\"test\",\"repo\":\"$repo\",\"commit\":\"$BAD\",\"command\":\"true # $n\"}" \
			"$URL/api/v1/jobs"
		sleep 0.5
	done
}
probe_for 15 slow
check "under the attack, GET health without a token: $(probes "$SCRATCH/health-slow" 200)" \
	answered "$SCRATCH/health-slow" 200
check "and a submission with a token: $(probes "$SCRATCH/submit-slow" 201)" \
	answered "$SCRATCH/submit-slow" 201
check "the attack went on to the end" held
wait "$attack"
echo "# the attack: $(cat "$SCRATCH/attack.json")"

# --- a token's holder keeping places --------------------------------------
# 32 addresses x 16 connections that each sent one whole request with a
# submit token and then stay idle: they hold nothing, and give way
HTOKEN=$("$BISECTD" --state "$STATE" token add submit holder)
SLOWLORIS_TOKEN=$HTOKEN "$SLOW" 127.0.0.1 "$PORT" 100 32 "$per" 14 \
	> "$SCRATCH/held.json" &
attack=$!
PIDS="$PIDS $attack"
for _ in $(seq 20); do held && break; done
check "a token's holder holds all $max places with idle connections" held
probe_for 8 held
check "meanwhile, GET health without a token: $(probes "$SCRATCH/health-held" 200)" \
	answered "$SCRATCH/health-held" 200
check "and another submitter's submission: $(probes "$SCRATCH/submit-held" 201)" \
	answered "$SCRATCH/submit-held" 201
wait "$attack"
echo "# the holder: $(cat "$SCRATCH/held.json")"

# --- deadlines --------------------------------------------------------------
# each from a loopback address of its own, all at once: slow headers,
# a body that trickles (100 bytes/s, 3,000 bytes) and one that keeps to
# 8 KB/s (120 KB, 15 s)
"$SLOW" 127.0.0.1 "$PORT" 40 1 4 14 2 > "$SCRATCH/headers.json" &
slow=$!
PIDS="$PIDS $slow"
head -c 3000 /dev/zero | tr '\0' a > "$SCRATCH/trickle"
curl -s -o /dev/null -w '%{http_code} %{time_total}\n' -m 20 \
	--interface 127.0.0.41 --limit-rate 100 \
	-H "Authorization: Bearer $STOKEN" --data-binary @"$SCRATCH/trickle" \
	"$URL/api/v1/jobs" > "$SCRATCH/trickled" &
trickle=$!
head -c 120000 /dev/zero | tr '\0' a > "$SCRATCH/steady"
curl -s -o /dev/null -w '%{http_code} %{time_total}\n' -m 30 \
	--interface 127.0.0.42 --limit-rate 8k \
	-H "Authorization: Bearer $STOKEN" --data-binary @"$SCRATCH/steady" \
	"$URL/api/v1/jobs" > "$SCRATCH/steadied" &
steady=$!
wait "$slow" "$trickle" "$steady"
check "headers that trickle are cut after 10 s: $(cat "$SCRATCH/headers.json")" \
	jq_true "$SCRATCH/headers.json" '.closed_by_server >= 4 and .longest_s < 12'
check "a body that trickles is cut after 10 s: $(cat "$SCRATCH/trickled")" \
	awk '$1 == "000" && $2 >= 9 && $2 < 15 { ok = 1 } END { exit !ok }' \
	"$SCRATCH/trickled"
check "a body that keeps 8 KB/s is read whole: $(cat "$SCRATCH/steadied")" \
	awk '$1 == "422" && $2 >= 12 { ok = 1 } END { exit !ok }' \
	"$SCRATCH/steadied"

check "bisectd is still up" 'kill -0 "$DPID" && [ "$(api GET health)" = 200 ]'
log=$SCRATCH/bisectd.log
check "and its log is not flooded: $(wc -l < "$log") lines, the most:$(sort "$log" | uniq -c | sort -rn | head -n 1)" \
	[ "$(wc -l < "$log")" -lt 10 ]
done_testing
