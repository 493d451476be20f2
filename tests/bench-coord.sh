#!/bin/sh
# make bench, the coordinator's part:
#
#   - rounds and wall time of one bisection with W = 1, 2 and 4 workers,
#     on one 1,000-commit generated history with a fixed-time test (1 s),
#     and on the 1,000-commit kernel history with the tiny recipe (each
#     worker its own build directory in the cache, kept between runs);
#   - bisectd under 1,000 queued jobs and 100 simulated workers polling:
#     scheduling latency p50 and p99, API requests per second, RSS.
#
# BENCH_KERNEL=0 leaves out the kernel bisections.  Figures go to stdout.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/bisectd-bench.XXXXXX")
bisectd=$top/build/bin/bisectd worker=$top/build/bin/bisect-worker
pids=""
trap 'for p in $pids; do pkill -9 -s "$p" 2>/dev/null; done; rm -rf "$scratch"' EXIT

cache=${BISECTD_CACHE:-$([ "$(id -u)" = 0 ] && echo /var/cache/bisectd || echo "${XDG_CACHE_HOME:-$HOME/.cache}/bisectd")}

# the repositories are the scratch ones and the kernel history in the
# cache; all workers and the load generator share one address
daemon() { # daemon STATE: start bisectd; sets url, dpid, stoken, wtoken
	stoken=$("$bisectd" --state "$1" token add submit bench)
	wtoken=$("$bisectd" --state "$1" token add worker bench)
	setsid "$bisectd" --state "$1" --port 0 --port-file "$1.port" \
		--lease 300 --repo-roots "$scratch $cache" \
		--max-conns-per-address 0 > "$1.log" 2>&1 &
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

echo "== bisectd under load: 1,000 queued test jobs, 100 simulated workers"
small=$scratch/small
eval "$("$top/tests/fixtures/mkrepo.sh" "$small" 1 20 2> /dev/null)"
daemon "$scratch/load"
"$top/build/tests/fixtures/loadgen" "$url" "$stoken" "$wtoken" "$small" "$BAD" 1000 100 > "$scratch/load.json"
jq -r '"  submitting: \(.submit_per_second) jobs/s; all 1,000 jobs scheduled and answered in \(.seconds) s: \(.requests_per_second) API requests/s; scheduling latency (poll to assignment) p50 \(.latency_p50_ms) ms, p99 \(.latency_p99_ms) ms"' "$scratch/load.json"
echo "  bisectd RSS: $(awk '/VmHWM/ { printf "%.1f MB peak", $2 / 1024 }' "/proc/$dpid/status"), $(awk '/VmRSS/ { printf "%.1f MB now", $2 / 1024 }' "/proc/$dpid/status")"
