# SPDX-License-Identifier: GPL-2.0-only
# Helpers for tests that run bisectd and bisect-workers, sourced after
# lib.sh.  Everything listens on 127.0.0.1 (or in network namespaces the
# test makes), on ports the kernel picks.
BISECTD=$TOP/build/bin/bisectd
WORKER=$TOP/build/bin/bisect-worker
STATE=$SCRATCH/state
LEASE=${LEASE:-5}
PIDS=""
cleanup_daemons() {
	for p in $PIDS; do pkill -9 -s "$p" 2>/dev/null; kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	# the repository key's gpg-agent runs in a session of its own
	[ ! -d "$STATE/repo-key" ] ||
		gpgconf --homedir "$STATE/repo-key" --kill gpg-agent 2>/dev/null
	rm -rf "$SCRATCH"
}
trap cleanup_daemons EXIT

# make_tokens: STOKEN (submit) and WTOKEN (worker) in $STATE
make_tokens() {
	STOKEN=$("$BISECTD" --state "$STATE" token add submit tests)
	WTOKEN=$("$BISECTD" --state "$STATE" token add worker tests-worker)
}

# start_bisectd [ARGS]: start it (on $PORT when set), set URL and DPID.
# $NETNS runs it in that network namespace, listening on $LISTEN.
# Repositories may be under the scratch directory and the test cache (the
# kernel history); webhooks may go to $HOOK_URLS.
start_bisectd() {
	rm -f "$STATE.port"
	${NETNS:+ip netns exec "$NETNS"} setsid "$BISECTD" --state "$STATE" \
		--listen "${LISTEN:-127.0.0.1}" --port "${PORT:-0}" \
		--port-file "$STATE.port" --lease "$LEASE" \
		--repo-roots "$SCRATCH $BISECTD_CACHE" \
		--webhook-urls "${HOOK_URLS:-}" "$@" \
		>> "$SCRATCH/bisectd.log" 2>&1 &
	DPID=$!
	PIDS="$PIDS $DPID"
	for _ in $(seq 100); do [ -s "$STATE.port" ] && break; sleep 0.1; done
	PORT=$(cat "$STATE.port")
	case ${LISTEN:-} in
	*:*) URL=http://[$LISTEN]:$PORT ;; # IPv6
	*) URL=http://${LISTEN:-127.0.0.1}:$PORT ;;
	esac
}

# free_port: a loopback port that nothing listens on (now)
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_sink NAME FAILURES [DELAY]: a webhook receiver
# (tests/fixtures/hook-sink) that fails its first FAILURES deliveries and
# waits DELAY s before each answer; HOOK is its URL, which joins
# HOOK_URLS for the next start_bisectd
start_sink() {
	rm -f "$SCRATCH/$1.port"
	mkdir -p "$SCRATCH/$1"
	"$TOP/build/tests/fixtures/hook-sink" "$SCRATCH/$1.port" "$SCRATCH/$1" "$2" ${3:-} &
	PIDS="$PIDS $!"
	for _ in $(seq 50); do [ -s "$SCRATCH/$1.port" ] && break; sleep 0.1; done
	HOOK=http://127.0.0.1:$(cat "$SCRATCH/$1.port")/hook
	HOOK_URLS="${HOOK_URLS:-} $HOOK"
}

# start_worker NAME [ARGS]: a worker that accepts commands; sets WPID
start_worker() {
	name=$1
	shift
	BISECTD_WORKER_TOKEN=$WTOKEN \
		${WNETNS:+ip netns exec "$WNETNS"} setsid "$WORKER" \
		--server "$URL" --name "$name" --allow-commands \
		--slot "-$name" "$@" > "$SCRATCH/$name.log" 2>&1 &
	WPID=$!
	PIDS="$PIDS $WPID"
}

# api METHOD PATH [BODY [TOKEN]]: body to $SCRATCH/body, prints the status
api() {
	${NETNS:+ip netns exec "$NETNS"} curl -s -o "$SCRATCH/body" \
		-w '%{http_code}' -X "$1" \
		${4:+-H "Authorization: Bearer $4"} \
		${3:+--data-binary "$3"} "$URL/api/v1/$2"
}

# submit JSON: prints the new job's id
submit() {
	api POST jobs "$1" "$STOKEN" > /dev/null
	jq -r .id "$SCRATCH/body"
}

# wait_job ID [SECONDS]: until the job ends; its document in $SCRATCH/job
wait_job() {
	for _ in $(seq $(( ${2:-120} * 5 ))); do
		api GET "jobs/$1" > /dev/null
		case $(jq -r .state "$SCRATCH/body" 2>/dev/null) in
		done|failed|cancelled) cp "$SCRATCH/body" "$SCRATCH/job"; return 0 ;;
		esac
		sleep 0.2
	done
	cp "$SCRATCH/body" "$SCRATCH/job"
	return 1
}

# wait_for FILE PATTERN [SECONDS]: until FILE has a line matching PATTERN
wait_for() {
	for _ in $(seq $(( ${3:-60} * 10 ))); do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# bisect_job REPO GOOD BAD COMMAND [EXTRA]: the request JSON
bisect_job() {
	jq -nc --arg r "$1" --arg g "$2" --arg b "$3" --arg c "$4" \
		"{type: \"bisect\", repo: \$r, good: [\$g], bad: \$b, command: \$c} ${5:+ + $5}"
}

# browse PATH NAME: the page's DOM after its scripts ran, in
# $SCRATCH/NAME.html, and a screenshot, $out/NAME.png (headless Chromium)
out=${BISECTD_TEST_OUT:-$TOP/tests/out}
browse() {
	mkdir -p "$out"
	home=$SCRATCH/chromium
	mkdir -p "$home"
	HOME=$home chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --disable-component-update \
		--disable-sync --disable-quic \
		--disable-dev-shm-usage --user-data-dir="$home/profile" \
		--virtual-time-budget=10000 --window-size=1280,1400 \
		--dump-dom "$URL$1" > "$SCRATCH/$2.html" 2> "$SCRATCH/$2.err"
	HOME=$home chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --disable-component-update \
		--disable-sync --disable-quic \
		--disable-dev-shm-usage --user-data-dir="$home/profile" \
		--virtual-time-budget=10000 --window-size=1280,1400 \
		--screenshot="$out/$2.png" "$URL$1" > /dev/null 2>> "$SCRATCH/$2.err"
}
