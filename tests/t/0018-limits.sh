#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# What one client may take of bisectd: connections from one address,
# memory for request bodies, names with control characters; and tokens
# that can be listed and withdrawn while the daemon runs.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

repo=$SCRATCH/repo
eval "$("$TOP/tests/fixtures/mkrepo.sh" "$repo" 3 20)"
make_tokens
HOOK_URLS=http://127.0.0.1:9/ start_bisectd --max-conns-per-address 4 \
	--max-bodies-mb 2
check "bisectd is up" [ "$(api GET health)" = 200 ]

# --- tokens ---------------------------------------------------------------
extra=$("$BISECTD" --state "$STATE" token add submit extra)
"$BISECTD" --state "$STATE" token list > "$SCRATCH/tokens"
check "token list names each token with its role" \
	'grep -q "^extra  *submit" "$SCRATCH/tokens" &&
	 grep -q "^tests-worker  *worker" "$SCRATCH/tokens"'
check "and shows no token itself" \
	'! grep -q -e "$extra" -e "$STOKEN" -e "$WTOKEN" "$SCRATCH/tokens"'
# (its webhook, with a password and a signing key, is bisectd's alone)
req=$(bisect_job "$repo" "$GOOD" "$BAD" 'test ! -f regression' \
	'{callback: "http://hook:hook-password@127.0.0.1:9/h", callback_secret: "hook-key-1"}')
check "a new token submits while bisectd runs: 201" \
	[ "$(api POST jobs "$req" "$extra")" = 201 ]
expect_exit 0 "token revoke extra" "$BISECTD" --state "$STATE" token revoke extra
check "the revoked token is refused at once: 401" \
	[ "$(api POST jobs "$req" "$extra")" = 401 ]
check "the other tokens still work: 201" \
	[ "$(api POST jobs "$req" "$STOKEN")" = 201 ]
expect_exit 1 "revoking a token that does not exist" \
	"$BISECTD" --state "$STATE" token revoke nosuch
one_line_error "no token named 'nosuch'"

# --- leases -----------------------------------------------------------------
# a worker answers only for a lease it was handed; one it makes up is refused
fake=0123456789abcdef0123456789abcdef
code=$(api POST "leases/$fake/result" '{"verdict":"good"}' "$WTOKEN")
check "a result for a lease never given: 409 ($(cat "$SCRATCH/body"))" \
	'[ "$code" = 409 ] && ! jq -e ".error == \"no error\"" "$SCRATCH/body" > /dev/null'
check "a heartbeat for it: 410" \
	[ "$(api POST "leases/$fake/heartbeat" "" "$WTOKEN")" = 410 ]
check "and the submit token cannot speak for a worker at all: 401" \
	[ "$(api POST "leases/$fake/result" '{"verdict":"good"}' "$STOKEN")" = 401 ]

# a worker is who its token says: another worker token neither polls for
# it nor speaks for the lease it was given
stranger=$("$BISECTD" --state "$STATE" token add worker stranger)
api POST workers '{"name":"mine","run":true}' "$WTOKEN" > /dev/null
wid=$(jq -r .id "$SCRATCH/body")
code=$(api POST "workers/$wid/poll" "" "$stranger")
check "another worker token polls for worker $wid: 403 ($(cat "$SCRATCH/body"))" \
	'[ "$code" = 403 ] && jq -e ".error | test(\"another worker token\")" "$SCRATCH/body" > /dev/null'
code=$(api POST "workers/$wid/poll" "" "$WTOKEN")
lease=$(jq -r .lease "$SCRATCH/body")
commit=$(jq -r .commit "$SCRATCH/body")
check "the worker's own token polls and is given a step ($code)" \
	'[ "$code" = 200 ] && [ "${#lease}" = 32 ]'
check "the step it is given holds neither the webhook nor its key" \
	'jq -e ".spec.command" "$SCRATCH/body" > /dev/null &&
	 ! grep -q -e hook-password -e hook-key-1 -e callback "$SCRATCH/body"'
result="{\"v\":1,\"commit\":\"$commit\",\"verdict\":\"good\",\"title\":\"\"}"
check "a heartbeat for its lease under another worker token: 403" \
	[ "$(api POST "leases/$lease/heartbeat" "" "$stranger")" = 403 ]
check "an upload for it: 403" \
	[ "$(curl -s -o "$SCRATCH/body" -w '%{http_code}' -X PUT \
		-H "Authorization: Bearer $stranger" \
		-H "X-Content-SHA256: $(printf x | sha256sum | cut -d' ' -f1)" \
		--data-binary x "$URL/api/v1/leases/$lease/artifacts/x.log")" = 403 ]
check "a result for it: 403" \
	[ "$(api POST "leases/$lease/result" "$result" "$stranger")" = 403 ]
check "the lease is still the worker's: its heartbeat 200" \
	[ "$(api POST "leases/$lease/heartbeat" "" "$WTOKEN")" = 200 ]
# and a result is about the commit of its step, no other
other=$(echo "$result" | jq -c --arg c "$([ "$commit" = "$GOOD" ] && echo "$BAD" || echo "$GOOD")" '.commit = $c')
code=$(api POST "leases/$lease/result" "$other" "$WTOKEN")
check "its worker's result naming another commit: 422 ($(cat "$SCRATCH/body"))" \
	'[ "$code" = 422 ] && jq -e ".error | test(\"commit\")" "$SCRATCH/body" > /dev/null'
check "and its result is taken: 200" \
	[ "$(api POST "leases/$lease/result" "$result" "$WTOKEN")" = 200 ]

# --- names ------------------------------------------------------------------
for field in bad recipe repo; do
	bad=$(echo "$req" | jq -c --arg f "$field" '.[$f] = "a\u0001b"')
	code=$(api POST jobs "$bad" "$STOKEN")
	check "a control character in '$field': 422 ($(cat "$SCRATCH/body"))" \
		'[ "$code" = 422 ] && jq -e ".error | test(\"$field\")" "$SCRATCH/body" > /dev/null'
done
bad=$(echo "$req" | jq -c '.good = ["a\nb"]')
check "a newline in a good revision: 422" [ "$(api POST jobs "$bad" "$STOKEN")" = 422 ]
bad=$(echo "$req" | jq -c '.bad = "a\u0000b"')
check "a NUL in a name: 400 or 422, never taken" \
	'code=$(api POST jobs "$bad" "$STOKEN"); [ "$code" = 400 ] || [ "$code" = 422 ]'
check "a worker name with a control character: 422" \
	[ "$(api POST workers '{"name":"w\u0007"}' "$WTOKEN")" = 422 ]

# --- connections from one address ------------------------------------------
# four uploads that trickle in (1 kB/s) hold four connections
head -c 200000 /dev/zero > "$SCRATCH/slow"
cpids=""
for i in 1 2 3 4; do
	timeout 60 curl -s -o /dev/null -H "Authorization: Bearer $STOKEN" \
		--limit-rate 1k --data-binary @"$SCRATCH/slow" \
		"$URL/api/v1/jobs" &
	cpids="$cpids $!"
done
held() { [ "$(ss -Htn state established "( dport = :$PORT )" | wc -l)" -ge 4 ]; }
for _ in $(seq 100); do held && break; sleep 0.1; done
check "four connections from 127.0.0.1 are open" held
code=$(curl -s -o /dev/null -w '%{http_code}' -m 10 "$URL/api/v1/health")
check "a fifth from the same address is turned away (HTTP $code)" [ "$code" = 000 ]
kill $cpids 2> /dev/null
wait $cpids 2> /dev/null
for _ in $(seq 100); do [ "$(api GET health)" = 200 ] && break; sleep 0.1; done
check "once they close, the address is served again" [ "$(api GET health)" = 200 ]
# (and until bisectd has seen all four go, the next part's connections
# could still be turned away: wait for that, however slow the machine)
gone() {
	[ "$(ss -Htn state established state close-wait "( sport = :$PORT )" |
		wc -l)" -eq 0 ]
}
for _ in $(seq 600); do gone && break; sleep 0.1; done

# --- memory for bodies ------------------------------------------------------
# two requests send 0.9 MB each and then hold their connections open: a
# third body of 0.3 MB no longer fits the 2 MB budget.  (Until both are
# in, the third fits and is answered 422; it is tried again.)  Each comes
# from a loopback address of its own, so that the per-address limit
# (still counting the part before's connections while bisectd lets them
# go) turns none of them away.
cpids=""
for i in 2 3; do
	setsid sh -c '{ head -c 900000 /dev/zero; sleep 60; } |
		curl -s -o /dev/null -m 60 -X POST -T - --interface "$3" \
			-H "Authorization: Bearer $1" "$2/api/v1/jobs"' \
		sh "$STOKEN" "$URL" "127.0.0.$i" &
	cpids="$cpids $!"
done
head -c 300000 /dev/zero > "$SCRATCH/body03"
for _ in $(seq 300); do
	code=$(curl -s -o "$SCRATCH/body" -w '%{http_code}' -m 10 \
		--interface 127.0.0.4 -H "Authorization: Bearer $STOKEN" \
		--data-binary @"$SCRATCH/body03" "$URL/api/v1/jobs")
	[ "$code" = 503 ] && break
	sleep 0.1
done
check "past the 2 MB budget for bodies: 503 ($(cat "$SCRATCH/body"))" \
	'[ "$code" = 503 ] && jq -e ".error | test(\"bodies\")" "$SCRATCH/body" > /dev/null'
for p in $cpids; do pkill -s "$p"; done
wait $cpids 2> /dev/null
check "the budget is given back: a job is taken afterwards (201)" \
	[ "$(api POST jobs "$req" "$STOKEN")" = 201 ]
check "bisectd is still up" 'kill -0 "$DPID" && [ "$(api GET health)" = 200 ]'
done_testing
