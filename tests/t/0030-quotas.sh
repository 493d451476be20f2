#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# What one submitter may ask of bisectd: at most max-jobs-per-submitter
# jobs fetching, queued or running, and max-submits-per-minute submits in
# any minute (here 3 and 5, from bisectd.conf).  Past either, a submit is
# answered 429 with Retry-After and one line saying which limit; other
# submitters are not held up, and a job that ends makes room.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

repo=$SCRATCH/repo
eval "$("$TOP/tests/fixtures/mkrepo.sh" "$repo" 3 20)"
make_tokens
OTOKEN=$("$BISECTD" --state "$STATE" token add submit other)
cat > "$SCRATCH/bisectd.conf" << EOF
max-jobs-per-submitter = 3
max-submits-per-minute = 5
EOF
start_bisectd --config "$SCRATCH/bisectd.conf"

# post TOKEN N: submit a job (its command made unique by N); prints the
# status, the answer in $SCRATCH/body and its headers in $SCRATCH/headers
post() {
	curl -s -D "$SCRATCH/headers" -o "$SCRATCH/body" -w '%{http_code}' \
		-H "Authorization: Bearer $1" \
		--data-binary "$(bisect_job "$repo" "$GOOD" "$BAD" "true # $2")" \
		"$URL/api/v1/jobs"
}
# the Retry-After of the last answer (seconds), or nothing
retry_after() {
	sed -n 's/^Retry-After: *\([0-9]*\).*/\1/ip' "$SCRATCH/headers"
}
error_line() { jq -r .error "$SCRATCH/body"; }
cancel() { api POST "jobs/$1/cancel" '' "$STOKEN" > /dev/null; }

ids="" codes=""
for i in 1 2 3; do
	codes="$codes $(post "$STOKEN" "$i")"
	ids="$ids $(jq -r .id "$SCRATCH/body")"
done
refused=$(post "$STOKEN" 4)
ra=$(retry_after)
check "a fourth job while three are open ($codes): $refused, Retry-After $ra" \
	'[ "$codes" = " 201 201 201" ] && [ "$refused" = 429 ] && [ "${ra:-0}" -ge 1 ]'
check "saying why in one line: $(error_line)" \
	'[ "$(error_line | wc -l)" = 1 ] && error_line | grep -q "at most 3 (setting max-jobs-per-submitter)"'
code=$(post "$OTOKEN" 5)
check "meanwhile another submitter submits: $code" \
	'[ "$refused" = 429 ] && [ "$code" = 201 ]'

set -- $ids
cancel "${1:-}"
again=$(post "$STOKEN" 6)
code=$(post "$STOKEN" 7)
check "a cancelled job makes room for one more: $again, then $code ($(error_line))" \
	'[ "$again" = 201 ] && [ "$code" = 429 ] && error_line | grep -q "setting max-jobs-per-submitter"'
# four submits so far this minute; two jobs open after these cancels
cancel "${2:-}"
cancel "${3:-}"
fifth=$(post "$STOKEN" 8)
refused=$(post "$STOKEN" 9)
ra=$(retry_after)
check "with room for jobs, a sixth submit in the minute: $fifth, then $refused, Retry-After $ra" \
	'[ "$fifth" = 201 ] && [ "$refused" = 429 ] && [ "${ra:-0}" -ge 1 ] && [ "${ra:-0}" -le 60 ]'
check "saying why in one line: $(error_line)" \
	'[ "$(error_line | wc -l)" = 1 ] && error_line | grep -q "at most 5 (setting max-submits-per-minute)"'
code=$(post "$OTOKEN" 10)
check "meanwhile the other submitter (two submits) submits: $code" \
	'[ "$refused" = 429 ] && [ "$code" = 201 ]'

"$BISECTD" --state "$STATE" --max-submits-per-minute 10001 2> "$SCRATCH/err"
code=$?
check "a limit out of range: exit $code, '$(cat "$SCRATCH/err")'" \
	'[ "$code" = 2 ] && [ "$(wc -l < "$SCRATCH/err")" = 1 ] && grep -q "max-submits-per-minute must be 0 (no limit) to 10000" "$SCRATCH/err"'
done_testing
