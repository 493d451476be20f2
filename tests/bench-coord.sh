#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make bench, the coordinator's part:
#
#   - rounds and wall time of one bisection with W = 1, 2 and 4 workers,
#     on one 1,000-commit generated history with a fixed-time test (1 s),
#     and on the 1,000-commit kernel history with the tiny recipe (each
#     worker its own build directory in the cache, kept between runs);
#   - bisectd under 1,000 queued jobs and 100 simulated workers polling,
#     then 10,000 and 1,000: scheduling latency p50 and p99 on bisectd's
#     own clock (/metrics) beside the targets and on the load generator's,
#     refused and timed-out requests, the job list's and a job view's
#     latency meanwhile, RSS (the 1,000 workers a second time on a
#     --worker-port of their own); then
#     RSS over BENCH_SOAK_ROUNDS (10) rounds
#     of 1,000 jobs on one daemon, and the size of SQLite's log after;
#     with BENCH_SOAK_MINUTES=M, also RSS once a minute over M minutes of
#     such rounds on one daemon, a round starting at most every
#     BENCH_SOAK_PAUSE (10) seconds after the last one ended.
#
# BENCH_KERNEL=0 leaves out the kernel bisections, BENCH_PARALLEL=0 all
# the bisections.  Figures go to stdout.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/bisectd-bench.XXXXXX")
bisectd=$top/build/bin/bisectd worker=$top/build/bin/bisect-worker
pids=""
trap 'for p in $pids; do pkill -9 -s "$p" 2>/dev/null; done; rm -rf "$scratch"' EXIT

cache=${BISECTD_CACHE:-$([ "$(id -u)" = 0 ] && echo /var/cache/bisectd || echo "${XDG_CACHE_HOME:-$HOME/.cache}/bisectd")}

# the repositories are the scratch ones and the kernel history in the
# cache; all workers and the load generator share one address, and the
# load generator's jobs are one submitter's (no limit on either)
daemon() { # daemon STATE [ARGS]: start bisectd; sets url, dpid, stoken, wtoken
	stoken=$("$bisectd" --state "$1" token add submit bench)
	wtoken=$("$bisectd" --state "$1" token add worker bench-worker)
	rm -f "$1.port" # a daemon of an earlier run on this state wrote it
	setsid "$bisectd" --state "$1" --port 0 --port-file "$1.port" \
		--lease 300 --repo-roots "$scratch $cache" \
		--max-conns-per-address 0 --max-jobs-per-submitter 0 \
		--max-submits-per-minute 0 ${2:-} > "$1.log" 2>&1 &
	dpid=$!
	pids="$pids $dpid"
	for _ in $(seq 100); do [ -s "$1.port" ] && break; sleep 0.1; done
	url=http://127.0.0.1:$(cat "$1.port")
}

# bisection REPO GOOD BAD WORKERS EXTRA-JSON: submit, wait, print a line
bisection() {
	body=$(jq -nc --arg r "$1" --arg g "$2" --arg b "$3" \
		"{type: \"bisect\", repo: \$r, good: [\$g], bad: \$b, max_workers: $4} + $5")
	id=$(curl -s -H "Authorization: Bearer $stoken" -d "$body" "$url/api/v1/jobs" | jq .id)
	while :; do
		curl -s "$url/api/v1/jobs/$id" > "$scratch/job"
		case $(jq -r .state "$scratch/job") in done|failed|cancelled) break ;; esac
		sleep 0.5
	done
	jq -r --argjson w "$4" '
		(.initial_candidates) as $n |
		([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] | map(select(pow($w + 1; .) >= $n)) | min) as $log |
		"  W=\($w): \(.rounds) rounds (ceil(log_{W+1} N) + 1 = \($log + 1)), \([.steps[] | select(.state == "done")] | length) steps done, \([.steps[] | select(.state == "cancelled")] | length) cancelled, \(.finished - .started | . * 10 | round / 10) s wall, \(.result) \(.culprit[0:12])"
		' "$scratch/job"
}

if [ "${BENCH_PARALLEL:-1}" != 0 ]; then
	echo "== parallel bisection, generic mode, a 1 s test"
	repo=$scratch/repo
	eval "$("$top/tests/fixtures/mkrepo.sh" "$repo" 42 1000)"
	daemon "$scratch/generic"
	for w in 1 2 3 4; do
		BISECTD_CACHE=$scratch/cache BISECTD_WORKER_TOKEN=$wtoken \
			setsid "$worker" --server "$url" \
			--name "g$w" --slot "-g$w" --allow-commands > "$scratch/g$w.log" 2>&1 &
		pids="$pids $!"
	done
	for W in 1 2 4; do
		bisection "$repo" "$GOOD" "$BAD" "$W" "{command: \"sleep 1; test ! -f regression # W=$W\"}"
	done
	echo "  planted: $(echo "$CULPRIT" | cut -c1-12)"

	if [ "${BENCH_KERNEL:-1}" != 0 ]; then
		echo "== parallel bisection, tiny kernel recipe (each worker its own build directory; ccache shared)"
		eval "$("$top/build/tests/fixtures/kernel-history" --kind oops --seed 1)"
		# each worker its own build directory: start them from a copy of the
		# tiny one (built by the tests), so that W compares warm steps
		base=$(ls -d "$cache"/work/*-tiny 2> /dev/null | head -n 1)
		for w in 1 2 3 4; do
			[ -n "$base" ] && [ ! -d "$base-bench$w" ] && cp -a "$base" "$base-bench$w"
		done
		daemon "$scratch/kernel"
		for w in 1 2 3 4; do
			BISECTD_WORKER_TOKEN=$wtoken \
				setsid "$worker" --server "$url" --name "k$w" \
				--slot "-bench$w" --recipes tiny > "$scratch/k$w.log" 2>&1 &
			pids="$pids $!"
		done
		for W in 1 2 4; do
			bisection "$REPO" "$GOOD" "$BAD" "$W" "{recipe: \"tiny\", check_endpoints: false, test: \"#!/bin/sh\\n# W=$W\\nexit 0\\n\"}"
		done
		echo "  planted: $(echo "$CULPRIT" | cut -c1-12); $(nproc) cores shared by the workers"
	fi
fi

# quantile Q METRICS-FILE: the daemon's own poll-to-assignment latency
# at Q, in ms, interpolated within its histogram's bucket as Prometheus'
# histogram_quantile() does
quantile() {
	awk -v q="$1" -F'[{}" ]+' '
		/^bisectd_poll_to_assignment_seconds_bucket/ {
			le[n] = ($3 == "+Inf") ? 1e9 : $3; c[n++] = $NF }
		END {
			want = q * c[n - 1]; lo = 0; below = 0
			for (i = 0; i < n; i++) {
				if (c[i] >= want) {
					hi = le[i] == 1e9 ? lo : le[i]
					f = c[i] > below ? (want - below) / (c[i] - below) : 0
					printf "%.2f", (lo + (hi - lo) * f) * 1000; exit
				}
				lo = le[i]; below = c[i]
			}
		}' "$2"
}
# verdict VALUE TARGET: "met" when VALUE < TARGET
verdict() { awk -v v="$1" -v t="$2" 'BEGIN { print v == "" ? "not measured" : (v < t) ? "met" : "NOT met" }'; }

# load JOBS WORKERS P50-TARGET P99-TARGET: a fresh daemon, one round
small=$scratch/small
eval "$("$top/tests/fixtures/mkrepo.sh" "$small" 1 20 2> /dev/null)"
load() {
	daemon "$scratch/load$1" "${lg_wport:+--worker-port $lg_wport}"
	env ${lg_wport:+LOADGEN_WORKER_URL=http://127.0.0.1:$lg_wport} "$top/build/tests/fixtures/loadgen" "$url" "$stoken" "$wtoken" "$small" "$BAD" "$1" "$2" 1 "$dpid" > "$scratch/load.json"
	curl -s "$url/metrics" > "$scratch/metrics"
	p50=$(quantile 0.5 "$scratch/metrics") p99=$(quantile 0.99 "$scratch/metrics")
	rss=$(awk '/VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$dpid/status")
	idle=$(for _ in $(seq 20); do curl -s -o /dev/null -w '%{time_total}\n' "$url/api/v1/jobs?limit=50"; done |
		sort -n | awk '{ v[NR] = $1 } END { printf "%.1f", v[int(NR / 2) + 1] * 1000 }')
	jq -r '"  submitting: \(.submit_per_second) jobs/s; all jobs scheduled and answered in \(.seconds) s, \(.requests_per_second) API requests/s, \(.refused) refused, \(.timed_out) timed out"' "$scratch/load.json"
	echo "  scheduling latency, bisectd's own clock (a poll's arrival to its assignment): p50 $p50 ms (target < $3 ms: $(verdict "$p50" "$3")), p99 $p99 ms (target < $4 ms: $(verdict "$p99" "$4"))"
	jq -r '"  the same from the load generator (its \(.workers) threads share the cores with bisectd): p50 \(.latency_p50_ms) ms, p99 \(.latency_p99_ms) ms"' "$scratch/load.json"
	jq -r --arg idle "$idle" '"  the job list and a job'"'"'s view meanwhile: \(.reads) reads, p50 \(.read_p50_ms) ms, p99 \(.read_p99_ms) ms (the job list on the idle daemon afterwards: p50 \($idle) ms)"' "$scratch/load.json"
	echo "  bisectd RSS: $rss MB peak (target < 30 MB at 1,000 workers: $(verdict "$rss" 30))"
	pkill -9 -s "$dpid"
}
echo "== bisectd under load: 1,000 queued test jobs, 100 simulated workers"
load 1000 100 1 5
echo "== bisectd under load: 10,000 queued test jobs, 1,000 simulated workers"
load 10000 1000 1 20
echo "== the same, the workers on bisectd's --worker-port (the reads and submissions on its port)"
lg_wport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
load 10000 1000 1 20
lg_wport=
rounds=${BENCH_SOAK_ROUNDS:-10}
echo "== bisectd's RSS over $rounds rounds of 1,000 jobs and 100 workers (BENCH_SOAK_ROUNDS)"
daemon "$scratch/soak"
"$top/build/tests/fixtures/loadgen" "$url" "$stoken" "$wtoken" "$small" "$BAD" 1000 100 "$rounds" "$dpid" > "$scratch/soak.json"
echo "  SQLite's write-ahead log after them: $(stat -c %s "$scratch/soak/state.db-wal" | awk '{ printf "%.1f MB", $1 / 1048576 }') (cut back to 16 MB when it starts again)"
jq -r '"  \(.rounds) rounds in \(.seconds) s, \(.refused) refused, \(.timed_out) timed out; RSS after each round (MB): \(.rss_mb | map(tostring) | join(" ")); growth after the first round: \((.rss_mb[-1] - .rss_mb[0]) * 10 | round / 10) MB"' "$scratch/soak.json"

minutes=${BENCH_SOAK_MINUTES:-0} pause=${BENCH_SOAK_PAUSE:-10}
if [ "$minutes" -gt 0 ]; then
	echo "== bisectd's RSS over $minutes minutes of rounds of 1,000 jobs and 100 workers, $pause s between rounds (BENCH_SOAK_MINUTES)"
	daemon "$scratch/hour"
	# a copy: a rebuild meanwhile does not touch the one that runs
	cp "$top/build/tests/fixtures/loadgen" "$scratch/loadgen"
	start=$(date +%s) next=$start n=0 refused=0 timed=0 samples=""
	while [ $(($(date +%s) - start)) -lt $((minutes * 60)) ] && kill -0 "$dpid" 2> /dev/null; do
		if ! LOADGEN_TAG="$n." "$scratch/loadgen" "$url" "$stoken" "$wtoken" "$small" "$BAD" 1000 100 1 "$dpid" > "$scratch/round.json"; then
			echo "  round $n did not finish: $(cat "$scratch/round.json")"
			echo '{"refused": 0, "timed_out": 0}' > "$scratch/round.json"
		fi
		n=$((n + 1))
		refused=$((refused + $(jq .refused "$scratch/round.json")))
		timed=$((timed + $(jq .timed_out "$scratch/round.json")))
		if [ "$(date +%s)" -ge "$next" ]; then
			rss=$(awk '/VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$dpid/status")
			samples="$samples $rss"
			echo "  minute $(((next - start) / 60)): round $n, RSS $rss MB"
			next=$((next + 60))
		fi
		sleep "$pause"
	done
	jobs=$(curl -s "$url/metrics" | awk '/^bisectd_jobs[{]/ { n += $NF } END { print n + 0 }')
	echo "  $n rounds ($jobs jobs) in $(($(date +%s) - start)) s, $refused refused, $timed timed out"
	echo "  $(echo "$samples" | awk '{ lo = hi = $1; for (i = 1; i <= NF; i++) { if ($i < lo) lo = $i; if ($i > hi) hi = $i } half = int(NF / 2) + 1; printf "RSS first %s MB, at half time %s, last %s; lowest %s, highest %s", $1, $half, $NF, lo, hi }') (target: flat, under 30 MB)"
	echo "  the job database: $(du -m "$scratch/hour/state.db" | cut -f1) MB"
fi
