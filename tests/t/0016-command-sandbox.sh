#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
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
# a file of the worker's own (root's, mode 600) where a command can see it
printf 'worker-secret\n' > "$repo/.git/root-only"
chmod 600 "$repo/.git/root-only"
make_tokens
start_bisectd
SANDBOX_SECRET=in-the-worker-only BISECTD_WORKER_TOKEN=$WTOKEN \
	start_worker w1 --command-timeout 5 --command-memory-mb 256 \
	--command-procs 32 --command-output-mb 8
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
run_cmd '[ "$(ip -o link | wc -l)" = 1 ] && ip -o link show lo | grep -q "[<,]UP[,>]"'
check "its network namespace holds only a loopback of its own, up" \
	jq_true "$SCRATCH/job" '.result == "good"'
run_cmd "touch '$repo/pwned' 2> /dev/null; ! touch /etc/bisectd-pwned 2> /dev/null"
check "it cannot write outside its checkout" \
	'jq_true "$SCRATCH/job" ".result == \"good\"" && [ ! -e "$repo/pwned" ] &&
	 [ ! -e /etc/bisectd-pwned ]'
run_cmd 'touch built && [ "$(git rev-parse HEAD)" = "$BISECT_COMMIT" ]'
check "it writes in its checkout and reads the repository with git" \
	jq_true "$SCRATCH/job" '.result == "good"'
run_cmd "! cat '$repo/.git/root-only' /etc/shadow 2> /dev/null"
check "it cannot read the worker's files (root's, mode 600) that it sees" \
	jq_true "$SCRATCH/job" '.result == "good"'
run_cmd "! python3 -c 'bytearray(512 << 20)' 2> /dev/null"
check "512 MB is more than its 256 MB of memory" \
	jq_true "$SCRATCH/job" '.result == "good"'
run_cmd "! head -c 20000000 /dev/zero > big 2> /dev/null && [ \$(stat -c %s big) -le 8388608 ]"
check "no file it writes grows past 8 MB (--command-output-mb 8)" \
	jq_true "$SCRATCH/job" '.result == "good"'
if [ -d /sys/fs/cgroup/pids ] ||
	grep -qw pids /sys/fs/cgroup/cgroup.controllers 2> /dev/null; then
	run_cmd "! sh -c 'for i in \$(seq 100); do sleep 10 & done; wait' 2> /dev/null"
	check "100 processes at once are more than its 32" \
		jq_true "$SCRATCH/job" '.result == "good"'
	check "and none of them outlives the step" \
		'! pgrep -x -f "sleep 10" > /dev/null'
else
	skip_rest "no pids cgroup on this machine: no process limit to test"
fi
run_cmd 'sleep 60'
check "a command that runs too long is killed and says so" \
	jq_true "$SCRATCH/job" '.state == "failed" and
		(.reason | test("command timed out after 5 s"))'
check "bisectd and the worker are still up" \
	'[ "$(api GET health)" = 200 ] && kill -0 "$WPID"'

# The worker's own credential: never on its command line, and gone from
# its environment before any child starts.
check "the worker's token is not in its command line" \
	'! grep -q -- "$WTOKEN" "/proc/$WPID/cmdline"'
check "nor in its environment once it has read it" \
	'! grep -q -- "$WTOKEN" "/proc/$WPID/environ"'
half=$(echo "$WTOKEN" | cut -c1-16) rest=$(echo "$WTOKEN" | cut -c17-)
# (the pattern from a file: grep's own command line must not hold it)
run_cmd "printf '%s%s' $half $rest > pat; ! cat /proc/[0-9]*/environ /proc/[0-9]*/cmdline 2> /dev/null | grep -qF -f pat"
check "nor anywhere in /proc that a command can read" \
	jq_true "$SCRATCH/job" '.result == "good"'
expect_exit 2 "bisect-worker refuses --token on the command line" \
	"$WORKER" --server "$URL" --token "$WTOKEN"
one_line_error "token-file"
printf '%s\n' "$WTOKEN" > "$SCRATCH/wtoken"
chmod 644 "$SCRATCH/wtoken"
expect_exit 2 "and a token file that others may read" \
	"$WORKER" --server "$URL" --token-file "$SCRATCH/wtoken"
one_line_error "may be read by other users"
chmod 600 "$SCRATCH/wtoken"
kill "$WPID"
setsid "$WORKER" --server "$URL" --token-file "$SCRATCH/wtoken" --name w2 \
	--allow-commands --slot -w2 > "$SCRATCH/w2.log" 2>&1 &
W2PID=$!
PIDS="$PIDS $W2PID"
run_cmd 'true'
check "a worker with --token-file FILE (mode 600) takes steps" \
	jq_true "$SCRATCH/job" '.result == "good"'

# The network is the job's to ask for and the worker's to give.
expect_exit 2 "--allow-network without --allow-commands is refused" \
	"$WORKER" --server "$URL" --token-file "$SCRATCH/wtoken" --allow-network
one_line_error "allow-commands"
expect_exit 2 "and commands never run as root" \
	"$WORKER" --server "$URL" --token-file "$SCRATCH/wtoken" \
	--allow-commands --command-user root
one_line_error "never run as root"
# w2 gives no network: a job that asks for it can only go to w3 (were it
# given to w2, w2 would fail the step)
start_worker w3 --allow-network --command-user daemon
net_cmd() {
	id=$(submit "$(jq -nc --arg r "$repo" --arg c "$BAD" --arg x "$1" \
		'{type: "test", repo: $r, commit: $c, command: $x,
		  network: true}')")
	wait_job "$id" 60
}
net_cmd "curl -s -m 3 -o /dev/null $URL/api/v1/health"
check "a job that asks for the network has it on a worker that gives it" \
	jq_true "$SCRATCH/job" '.result == "good"'
net_cmd '[ "$(id -un)" = daemon ]'
check "as that worker's --command-user" \
	jq_true "$SCRATCH/job" '.result == "good"'
kill "$W2PID"
run_cmd "! curl -s -m 3 -o /dev/null $URL/api/v1/health"
check "a job that does not ask has none there either" \
	jq_true "$SCRATCH/job" '.result == "good"'

# A kernel-mode step's tree comes from the network too: its Makefiles
# (and the patches of "apply") run in the build sandbox.  This tree's
# Makefile answers every target by trying to write outside it and to
# reach bisectd; it leaves a mark in the build directory that it ran.
evil=$SCRATCH/evil-tree
git init -q "$evil"
printf 'Makefile: ;\n%%:\n\t@touch /etc/bisectd-pwned-by-make 2> /dev/null || true\n\t@curl -s -m 3 -o /dev/null %s/api/v1/health && touch $(O)/reached-network || true\n\t@touch $(O)/make-ran\n' \
	"$URL" > "$evil/Makefile"
git -C "$evil" add Makefile
git -C "$evil" -c user.name=t -c user.email=t@example.org commit -q -m evil
tree=$(git -C "$evil" rev-parse HEAD)
id=$(submit "$(jq -nc --arg r "$evil" --arg c "$tree" \
	'{type: "test", repo: $r, commit: $c, recipe: "tiny"}')")
wait_job "$id" 120
build=$(find "$BISECTD_CACHE/work" -name make-ran 2> /dev/null | head -n 1)
check "a kernel step's Makefile runs (and the step ends)" \
	'[ -n "$build" ] && jq_true "$SCRATCH/job" ".state == \"done\" or .state == \"failed\""'
check "but cannot write outside its build directory" \
	'[ ! -e /etc/bisectd-pwned-by-make ]'
check "nor reach the network" \
	'[ -n "$build" ] && [ ! -e "$(dirname "$build")/reached-network" ]'
rm -f /etc/bisectd-pwned-by-make
done_testing
