#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A submitter whose job takes the scheduler seconds to plan (a bisection
# over 250,000 commits) holds the daemon's lock that long.  The requests
# of everyone else are read in the event thread, which must not wait for
# that lock: a health check, with a token or without, answers at once.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

big=$SCRATCH/big
git init -q "$big"
awk 'BEGIN {
	printf "blob\nmark :1\ndata 2\nx\n";
	for (i = 1; i <= 250000; i++) {
		printf "commit refs/heads/master\nmark :%d\n", i + 1;
		printf "committer t <t@t> %d +0000\ndata 2\nc\n", 1700000000 + i;
		if (i == 1)
			printf "M 100644 :1 f\n\n";
		else
			printf "from :%d\n\n", i;
	}
}' | git -C "$big" fast-import --quiet
root=$(git -C "$big" rev-list --max-parents=0 HEAD)
head=$(git -C "$big" rev-parse HEAD)
make_tokens
OTOKEN=$("$BISECTD" --state "$STATE" token add submit other)
start_bisectd
check "bisectd is up" [ "$(api GET health)" = 200 ]

t0=$(date +%s.%N)
curl -s -o "$SCRATCH/big.json" -w '%{http_code}' -m 120 \
	-H "Authorization: Bearer $STOKEN" \
	--data-binary "$(bisect_job "$big" "$root" "$head" true)" \
	"$URL/api/v1/jobs" > "$SCRATCH/big.code" &
sub=$!
sleep 0.3
slowest=0 n=0
for i in 1 2 3 4 5 6; do
	for tok in "" "$OTOKEN"; do
		s=$(curl -s -o /dev/null -w '%{time_total}' -m 10 \
			${tok:+-H "Authorization: Bearer $tok"} "$URL/api/v1/health")
		n=$((n + 1))
		slowest=$(echo "$slowest $s" | awk '{ print ($2 > $1) ? $2 : $1 }')
	done
	sleep 0.2
done
wait "$sub"
took=$(echo "$t0 $(date +%s.%N)" | awk '{ printf "%.1f", $2 - $1 }')
echo "# the large submit took $took s; the slowest of $n health checks $slowest s"
check "the large job was taken ($(cat "$SCRATCH/big.code"))" \
	[ "$(cat "$SCRATCH/big.code")" = 201 ]
check "its planning held the scheduler for more than a second ($took s)" \
	'[ "$(echo "$took" | awk "{ print (\$1 > 1.5) }")" = 1 ]'
check "meanwhile every health check answered within 1 s ($slowest s)" \
	'[ "$(echo "$slowest" | awk "{ print (\$1 < 1) }")" = 1 ]'
done_testing
