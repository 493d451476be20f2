#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# One build over several machines with icecream: icecc-scheduler, two
# iceccd compile servers and the worker's own iceccd, each in a network
# namespace of this test's own on one bridge, and a recipe that names
# the scheduler ("icecc = 10.232.0.1").  A cold tiny build with an empty
# ccache sends its compiles to the servers the scheduler lists (counted
# by the relay and in the servers' own logs) and gives the same kernel
# image as a local build.  The build runs in a network namespace whose
# only way out is the relay to those servers: the patched build of
# bisectctl verify, in the sandbox, still sends its compiles, while a
# probe in the patch reaches neither the scheduler nor the host.  A
# server that is down is left out; without the scheduler, or without the
# local iceccd, the build runs here alone.  The steps say so.
PERSISTENT_CACHE=1
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" != 0 ] || ! command -v iceccd > /dev/null ||
	! command -v icecc-scheduler > /dev/null ||
	! command -v ip > /dev/null; then
	skip_rest "icecream in network namespaces needs root, iproute2 and icecc"
	done_testing
	exit 0
fi
eval "$("$TOP/build/tests/fixtures/kernel-history" --kind oops --seed 1)"

ICECC_LOGS=$SCRATCH
. "$TOP/tests/icecc-lib.sh"
trap 'icecc_clean; rm -rf "$SCRATCH"' EXIT
icecc_clean
check "the scheduler, two compile servers and the local iceccd, in namespaces" \
	'icecc_net && icecc_daemon s1 1 2 && icecc_daemon s2 2 2 && icecc_daemon w 9 0 && icecc_wait 3'
icecc_listcs | sed 's/^/# /'

mkdir -p "$SCRATCH/recipes" "$SCRATCH/images"
cp -r "$TOP/recipes/fragments" "$SCRATCH/recipes/"
cp "$TOP/images/init.sh" "$SCRATCH/images/"
{
	cat "$TOP/recipes/tiny.recipe"
	echo "icecc = 10.232.0.1"
} > "$SCRATCH/recipes/tiny-icecc.recipe"
recipe=$SCRATCH/recipes/tiny-icecc.recipe
BISECTD_ICECC_SOCKET=$ICECC_RUN/w/sock
# cold: a build directory and a compiler cache that are empty, and no
# image from the kernel cache
rm -rf "$BISECTD_CACHE"/work/*-tiny-icecc
CCACHE_DIR=$SCRATCH/ccache BISECTD_KERNEL_CACHE_MB=0
export CCACHE_DIR BISECTD_KERNEL_CACHE_MB BISECTD_ICECC_SOCKET

# the patch: a change that is compiled, and probes from inside the build
# (bash's /dev/tcp) of the scheduler, the host and a compile server,
# printed into the build log
probe_patch "$SCRATCH/probe.patch" 10.232.0.1/8765 10.232.0.254/22 10.232.0.11/10245
"$BISECTCTL" verify --repo "$REPO" --recipe "$recipe" --bad "$GOOD" \
	--patch "$SCRATCH/probe.patch" --json "$SCRATCH/v.json" \
	> "$SCRATCH/v.out" 2>&1
sed 's/^/# /' "$SCRATCH/v.out" | grep -v '^# *$' | tail -n 12
check "the cold build with icecc boots: good" \
	jq_true "$SCRATCH/v.json" '.base.verdict == "good"'
jq -r '.base.build_notes // ""' "$SCRATCH/v.json" | sed 's/^/# /'
sent() { # sent STEP SERVER: connections the relay joined to SERVER in STEP
	jq -r ".$1.build_notes // \"\"" "$SCRATCH/v.json" |
		sed -n "s/^icecc compile server $2 ([0-9.:]*): \([0-9]*\) connections relayed$/\1/p"
}
a=$(sent base s1) b=$(sent base s2) pa=$(sent patched s1) pb=$(sent patched s2)
check "its compiles went to both compile servers (the relay: $a and $b)" \
	'[ "${a:-0}" -gt 50 ] && [ "${b:-0}" -gt 50 ]'
# (the servers' logs hold both builds; the relay's counts are connections)
ok1=$(icecc_compiled s1) ok2=$(icecc_compiled s2)
check "the servers compiled them, all through the relay (their logs: $ok1 and $ok2 objects)" \
	'[ "$ok1" -gt 50 ] && [ "$ok2" -gt 50 ] &&
	 [ "$ok1" -le $((a + ${pa:-0})) ] && [ "$ok2" -le $((b + ${pb:-0})) ]'
check "the step names the scheduler and its servers" \
	'jq -r .base.build_notes "$SCRATCH/v.json" | grep -q "^icecc scheduler 10.232.0.1: 2 compile servers, 4 job slots, through the local iceccd at $ICECC_RUN/w/sock$"'
# the local build: the tiny recipe's build directory and the default
# compiler cache, which no compile server ever filled
env -u CCACHE_DIR "$BISECTCTL" test --repo "$REPO" --commit "$GOOD" --recipe tiny \
	--json "$SCRATCH/local.json" > /dev/null 2>&1
check "the same kernel as a local build: image $(jq -r .image_sha256 "$SCRATCH/local.json" | cut -c1-16)" \
	'[ "$(jq -r .image_sha256 "$SCRATCH/local.json")" = "$(jq -r .base.image_sha256 "$SCRATCH/v.json")" ] &&
	 [ -n "$(jq -r ".base.image_sha256 // empty" "$SCRATCH/v.json")" ]'

check "the patched build, in the sandbox, still sent its compiles ($pa and $pb)" \
	'[ $((${pa:-0} + ${pb:-0})) -gt 0 ] && jq_true "$SCRATCH/v.json" ".patched.verdict == \"good\""'
log=$(jq -r '.patched.build_log // empty' "$SCRATCH/v.json")
if [ $((${pa:-0} + ${pb:-0})) = 0 ]; then
	# what the step and icecc said, when nothing was sent
	jq -r '.patched.build_notes // "(no notes)"' "$SCRATCH/v.json" | sed 's/^/# patched: /'
	grep -i 'icecc\|ccache\|  CC ' "$log" | tail -n 20 | sed 's/^/# log: /'
	icecc_listcs | sed 's/^/# /'
fi
grep '^bisectd-probe' "$log" | sort -u | sed 's/^/# /'
check "a probe in the patch reached the compile server, as icecc does" \
	grep -q "^bisectd-probe 10.232.0.11/10245: reached" "$log"
check "but neither the scheduler nor the host" \
	'grep -q "^bisectd-probe 10.232.0.1/8765: unreachable" "$log" &&
	 grep -q "^bisectd-probe 10.232.0.254/22: unreachable" "$log" &&
	 ! grep -q "^bisectd-probe 10.232.0.\(1/8765\|254/22\): reached" "$log"'

# a compile server whose machine is gone (its link down): the scheduler
# still lists it, the worker cannot reach it
ip -n "${icecc_ns}s2" link set "${icecc_ns}s2b" down
expect_exit 0 "a build with one compile server down" \
	"$BISECTCTL" test --repo "$REPO" --commit "$GOOD" --recipe "$recipe" \
	--json "$SCRATCH/down1.json"
check "the step says which server was left out, and counts the other" \
	'jq -r .build_notes "$SCRATCH/down1.json" | grep -q "^icecc compile server s2 (10.232.0.12:10245) is down (.*): left out$" &&
	 jq -r .build_notes "$SCRATCH/down1.json" | grep -q "^icecc scheduler 10.232.0.1: 1 compile server, 2 job slots, "'
ip netns pids "${icecc_ns}L" | xargs -r kill
expect_exit 0 "a build without the scheduler runs here" \
	"$BISECTCTL" test --repo "$REPO" --commit "$CULPRIT~1" --recipe "$recipe" \
	--json "$SCRATCH/down2.json"
check "the step says so" \
	'jq -r .build_notes "$SCRATCH/down2.json" | grep -q "^icecc scheduler 10.232.0.1 cannot be reached (Connection refused)$" &&
	 jq -r .build_notes "$SCRATCH/down2.json" | grep -q "^no icecc compile server answered: the build ran here alone$"'
expect_exit 0 "a build without the local iceccd runs here" \
	env BISECTD_ICECC_SOCKET="$SCRATCH/no-iceccd" "$BISECTCTL" test --repo "$REPO" --commit "$GOOD" --recipe "$recipe" \
	--json "$SCRATCH/down3.json"
check "the step says so" \
	'jq -r .build_notes "$SCRATCH/down3.json" | grep -q "^no local iceccd at $SCRATCH/no-iceccd (No such file or directory): the build ran here alone$"'

expect_exit 2 "a worker's --icecc that is not one host" \
	"$TOP/build/bin/bisect-worker" --server http://127.0.0.1:1 --icecc "a,b"
one_line_error "'a,b'"
expect_exit 2 "a worker's --distcc and --icecc at once" \
	"$TOP/build/bin/bisect-worker" --server http://127.0.0.1:1 --icecc a --distcc b
one_line_error "not both"
done_testing
