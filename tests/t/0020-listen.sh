#!/bin/sh
# Where bisectd listens: an IPv6 address (only there), "::" (IPv6 and
# IPv4), and an address that is none (exit 2, one line).  Loopback only.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

make_tokens
expect_exit 2 "--listen 127.0.0.300" \
	"$BISECTD" --state "$STATE" --listen 127.0.0.300 --port 0
one_line_error "listen address '127.0.0.300' is not an IPv4 or IPv6 address"

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
