#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Where bisectd listens: an IPv6 address (only there), "::" (IPv6 and
# IPv4), and an address that is none (exit 2, one line); a second port
# for the workers, on event threads of its own.  Loopback only.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

make_tokens
expect_exit 2 "--listen 127.0.0.300" \
	"$BISECTD" --state "$STATE" --listen 127.0.0.300 --port 0
one_line_error "listen address '127.0.0.300' is not an IPv4 or IPv6 address"

# --worker-port: the workers' calls on a listener of their own, so that
# a fleet's polls and results do not queue in front of the readers
expect_exit 2 "--worker-port 70000" \
	"$BISECTD" --state "$STATE" --port 0 --worker-port 70000
one_line_error "worker-port must be 1 to 65535 (0: none)"
wport=$(free_port)
start_bisectd --worker-port "$wport"
check "the API answers on its port" [ "$(api GET health)" = 200 ]
check "and on the workers' port" \
	[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$wport/api/v1/health")" = 200 ]
expect_exit 3 "another bisectd whose workers' port is taken" \
	timeout 20 "$BISECTD" --state "$SCRATCH/state2" --port 0 --worker-port "$PORT"
one_line_error "cannot listen on 127.0.0.1:$PORT"
repo=$SCRATCH/repo
eval "$("$TOP/tests/fixtures/mkrepo.sh" "$repo" 21 200)"
id=$(submit "$(bisect_job "$repo" "$GOOD" "$BAD" 'test ! -f regression')")
public=$URL URL=http://127.0.0.1:$wport
start_worker w1
URL=$public
check "a worker on the workers' port runs a bisection to its culprit" \
	'wait_job "$id" 60 && jq_true "$SCRATCH/job" ".result == \"found\" and .culprit == \"$CULPRIT\""'
kill -9 "$DPID" "$WPID"
wait "$DPID" "$WPID" 2> /dev/null

if ! ip -6 addr show dev lo 2> /dev/null | grep -q 'inet6 ::1/'; then
	skip_rest "this machine's loopback has no IPv6 address"
	done_testing
fi

LISTEN=::1
start_bisectd
check "on ::1: the API answers at $URL" [ "$(api GET health)" = 200 ]
kill -9 "$DPID"
wait "$DPID" 2> /dev/null

PORT=
LISTEN=::
start_bisectd
check "on :: the API answers over IPv6" \
	[ "$(curl -s -o /dev/null -w '%{http_code}' "http://[::1]:$PORT/api/v1/health")" = 200 ]
check "and over IPv4" \
	[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/api/v1/health")" = 200 ]
done_testing
