#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A kernel bisection through bisectd: bisectctl --server submits it, a
# bisect-worker builds and boots each step with the tiny recipe (in the
# persistent work directory), uploads its logs, and the job's report is
# the mail to the culprit's maintainers.
PERSISTENT_CACHE=1
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

eval "$("$TOP/build/tests/fixtures/kernel-history" --kind oops --seed 1)"
make_tokens
start_bisectd --lease 20
start_worker kernel --recipes tiny --slot ''
"$BISECTCTL" --server "$URL" --token "$STOKEN" bisect --repo "$REPO" \
	--good "$GOOD" --bad "$BAD" --recipe tiny --json "$SCRATCH/r.json" \
	> "$SCRATCH/out" 2> "$SCRATCH/err"
rc=$?
sed 's/^/# /' "$SCRATCH/err"
check "bisectctl --server bisect exits 0 (got $rc)" [ "$rc" -eq 0 ]
check "the first bad commit is the planted one" \
	jq_true "$SCRATCH/r.json" ".first_bad == \"$CULPRIT\""
check "the endpoints were checked first" \
	jq_true "$SCRATCH/r.json" '.steps[0].role == "endpoint" and .steps[1].role == "endpoint"'
id=$(sed -n 's/^bisectctl: job \([0-9]*\) on .*/\1/p' "$SCRATCH/err")
api GET "jobs/$id" > /dev/null
cp "$SCRATCH/body" "$SCRATCH/job"
check "every built step uploaded its console, build log and config" \
	jq_true "$SCRATCH/job" '[.steps[] | select(.state == "done" and .verdict != "skip") | [.artifacts[].name] | (index("console-1.log") != null and index("build.log") != null and index("config") != null)] | all'
step=$(jq -r "[.steps[] | select(.commit == \"$CULPRIT\")][0].id" "$SCRATCH/job")
api GET "jobs/$id/steps/$step/artifacts/console-1.log" > /dev/null
check "the culprit's console log shows the oops" \
	grep -q "BUG: kernel NULL pointer dereference" "$SCRATCH/body"
check "the kernel was booted without its timer check (TCG on a busy host fails it)" \
	grep -q "Kernel command line:.* no_timer_check " "$SCRATCH/body"
mail_headers "$SCRATCH/out" > "$SCRATCH/headers"
check "the mail report names the crash" \
	grep -q "^Subject: \[REGRESSION\] BUG: kernel NULL pointer dereference in reboot_defaults_init" "$SCRATCH/headers"
# (the culprit is run again to verify it: either bad step's log will do)
bad_steps=$(jq -r "[.steps[] | select(.commit == \"$CULPRIT\" and .verdict == \"bad\") | .id] | join(\"|\")" "$SCRATCH/job")
check "and links the culprit's console log on bisectd" \
	grep -Eq "console log: http://127.0.0.1:$PORT/api/v1/jobs/$id/steps/($bad_steps)/artifacts/console-1.log" "$SCRATCH/out"

# a worker killed with SIGKILL mid-build: its lease runs out and the step
# goes to another worker (same build directory, once the lock is free).
# The culprit's kernel is in the kernel cache by now: this worker does
# without it, so that it builds.
kill "$WPID"
export BISECTD_KERNEL_CACHE_MB=0
start_worker stopme --recipes tiny --slot ''
unset BISECTD_KERNEL_CACHE_MB
stop_worker=$WPID
api POST "jobs" "$(jq -nc --arg r "$REPO" --arg c "$CULPRIT" \
	'{type: "test", repo: $r, commit: $c, recipe: "tiny", runs: 1, test: "#!/bin/sh\n# killed\nexit 0\n"}')" "$STOKEN" > /dev/null
tid=$(jq .id "$SCRATCH/body")
wait_for "$SCRATCH/stopme.log" "job $tid step" 60
sleep 1
# only the worker: its step process, make (in the build sandbox, a
# session of its own), the compilers and any QEMU go with it.  Its
# processes are its descendants, taken before it dies.
descendants() {
	ps -eo pid=,ppid= | awk -v root="$1" '
		{ parent[$1] = $2 }
		END {
			for (p in parent)
				for (q = parent[p]; q > 1; q = parent[q])
					if (q == root) { print p; break }
		}'
}
busy() {
	for _ in $(seq 300); do
		for p in $(descendants "$stop_worker"); do
			case $(cat "/proc/$p/comm" 2> /dev/null) in
			make|qemu-system-x86) return 0 ;;
			esac
		done
		sleep 0.1
	done
	return 1
}
check "the step is building or booting" busy
step_pids=$(descendants "$stop_worker")
for p in $step_pids; do
	printf '# %s %s\n' "$p" "$(cut -c1-90 "/proc/$p/cmdline" 2> /dev/null | tr '\0' ' ')"
done | head -4
kill -9 "$stop_worker"
# (a zombie waiting for init is gone too)
alive() {
	[ -e "/proc/$1/status" ] &&
		! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2> /dev/null
}
gone() {
	[ -n "$step_pids" ] || return 1
	for _ in $(seq 100); do
		left=
		for p in $step_pids; do alive "$p" && left="$left $p"; done
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	for p in $left; do echo "# left: $p $(cat "/proc/$p/comm")"; done
	return 1
}
check "the worker killed with SIGKILL leaves nothing running" gone
start_worker second --recipes tiny --slot ''
check "the step of the killed worker ends on another one" wait_job "$tid" 600
jq -c '{result, losses: .steps[0].lease_losses, title: .steps[0].result.title}' \
	"$SCRATCH/job" | sed 's/^/# /'
# (at least one lease lost: the killed worker's; the one stopped before
# it may have been handed the step in its last poll too)
check "with the right verdict, after a lost lease" \
	jq_true "$SCRATCH/job" '.result == "bad" and .steps[0].lease_losses >= 1 and (.steps[0].result.title | test("NULL pointer"))'
done_testing
