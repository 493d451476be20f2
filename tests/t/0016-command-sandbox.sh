#!/bin/sh
# A generic job's command comes from whoever holds a submit token.  On a
# bisect-worker it runs as nobody in the sandbox: no network, none of the
# worker's environment (its token), nothing writable but its checkout,
# and within the worker's time and memory limits.  Each command below
# exits 0 (good) only when the sandbox held.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

if ! command -v bwrap > /dev/null; then
	skip_rest "bubblewrap (bwrap) is not installed"
	done_testing
	exit 0
fi
repo=$SCRATCH/repo
eval "$("$TOP/tests/fixtures/mkrepo.sh" "$repo" 5 40)"
make_tokens
start_bisectd
SANDBOX_SECRET=in-the-worker-only BISECTD_WORKER_TOKEN=$WTOKEN \
	start_worker w1 --command-timeout 5 --command-memory-mb 256
export SANDBOX_SECRET=

# run_cmd COMMAND: a test job of BAD with COMMAND; its view in $SCRATCH/job
run_cmd() {
	id=$(submit "$(jq -nc --arg r "$repo" --arg c "$BAD" --arg x "$1" \
		'{type: "test", repo: $r, commit: $c, command: $x}')")
	wait_job "$id" 60
}

run_cmd '[ "$(id -u)" = 65534 ]'
check "the command runs as nobody" jq_true "$SCRATCH/job" '.result == "good"'
run_cmd '! env | grep -q -e BISECTD_ -e SANDBOX_SECRET'
check "none of the worker's environment (its token) reaches it" \
	jq_true "$SCRATCH/job" '.result == "good"'
run_cmd "! curl -s -m 3 -o /dev/null $URL/api/v1/health"
check "it cannot reach the network, not even bisectd on loopback" \
	jq_true "$SCRATCH/job" '.result == "good"'
run_cmd "touch '$repo/pwned' 2> /dev/null; ! touch /etc/bisectd-pwned 2> /dev/null"
check "it cannot write outside its checkout" \
	'jq_true "$SCRATCH/job" ".result == \"good\"" && [ ! -e "$repo/pwned" ] &&
	 [ ! -e /etc/bisectd-pwned ]'
run_cmd 'touch built && [ "$(git rev-parse HEAD)" = "$BISECT_COMMIT" ]'
check "it writes in its checkout and reads the repository with git" \
	jq_true "$SCRATCH/job" '.result == "good"'
run_cmd "! python3 -c 'bytearray(512 << 20)' 2> /dev/null"
check "512 MB is more than its 256 MB of memory" \
	jq_true "$SCRATCH/job" '.result == "good"'
run_cmd 'sleep 60'
check "a command that runs too long is killed and says so" \
	jq_true "$SCRATCH/job" '.state == "failed" and
		(.reason | test("command timed out after 5 s"))'
check "bisectd and the worker are still up" \
	'[ "$(api GET health)" = 200 ] && kill -0 "$WPID"'
done_testing
