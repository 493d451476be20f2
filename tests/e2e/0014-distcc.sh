#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# One build over several machines: two distccd helpers, each in a network
# namespace of this test's own on a veth pair, and a recipe that names
# them ("distcc = A/2,B/2").  A cold tiny build with an empty ccache
# sends its compiles there (counted by the relay and in the helpers' own
# logs) and gives the same kernel image as a local build.  The patched
# build of bisectctl verify runs in the sandbox: its compiles still go
# out, through the relay, while a probe in the patch cannot reach a
# helper's port itself.  Helpers that are down are left out, and with
# none the build runs here alone; the steps say so.
PERSISTENT_CACHE=1
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" != 0 ] || ! command -v distccd > /dev/null ||
	! command -v ip > /dev/null; then
	skip_rest "distcc helpers in network namespaces need root, iproute2 and distcc"
	done_testing
	exit 0
fi
eval "$("$TOP/build/tests/fixtures/kernel-history" --kind oops --seed 1)"

DISTCC_LOGS=$SCRATCH
. "$TOP/tests/distcc-lib.sh"
trap 'distcc_clean; rm -rf "$SCRATCH"' EXIT
distcc_clean
check "two helpers: distccd in namespaces of their own" \
	'distcc_helper 1 && distcc_helper 2'

distcc_recipe tiny-distcc "10.231.1.2/2,10.231.2.2/2" "$SCRATCH"
recipe=$SCRATCH/recipes/tiny-distcc.recipe
# cold: a build directory and a compiler cache that are empty, and no
# image from the kernel cache
rm -rf "$BISECTD_CACHE"/work/*-tiny-distcc
CCACHE_DIR=$SCRATCH/ccache BISECTD_KERNEL_CACHE_MB=0
export CCACHE_DIR BISECTD_KERNEL_CACHE_MB

# the patch: a change that is compiled, and a probe of a helper's port
# from inside the build (bash's /dev/tcp), printed into the build log
probe_patch "$SCRATCH/probe.patch" 10.231.1.2/3632
"$BISECTCTL" verify --repo "$REPO" --recipe "$recipe" --bad "$GOOD" \
	--patch "$SCRATCH/probe.patch" --json "$SCRATCH/v.json" \
	> "$SCRATCH/v.out" 2>&1
sed 's/^/# /' "$SCRATCH/v.out" | grep -v '^# *$' | tail -n 12
check "the cold build with helpers boots: good" \
	jq_true "$SCRATCH/v.json" '.base.verdict == "good"'
jq -r '.base.build_notes // ""' "$SCRATCH/v.json" | sed 's/^/# /'
sent() { # sent STEP HELPER: compile jobs the relay sent HELPER in STEP
	jq -r ".$1.build_notes // \"\"" "$SCRATCH/v.json" |
		sed -n "s/^compile helper $2: \([0-9]*\) compile jobs sent$/\1/p"
}
a=$(sent base 10.231.1.2) b=$(sent base 10.231.2.2)
check "its compiles went to both helpers (the relay: $a and $b jobs)" \
	'[ "${a:-0}" -gt 100 ] && [ "${b:-0}" -gt 100 ]'
ok1=$(grep -c 'COMPILE_OK' "$SCRATCH/distccd1.log")
ok2=$(grep -c 'COMPILE_OK' "$SCRATCH/distccd2.log")
check "the helpers compiled them (their logs: $ok1 and $ok2 objects)" \
	'[ "$ok1" -gt 100 ] && [ "$ok2" -gt 100 ]'
# the local build: the tiny recipe's build directory and the default
# compiler cache, neither of which a helper ever filled
env -u CCACHE_DIR "$BISECTCTL" test --repo "$REPO" --commit "$GOOD" --recipe tiny \
	--json "$SCRATCH/local.json" > /dev/null 2>&1
check "the same kernel as a local build: image $(jq -r .image_sha256 "$SCRATCH/local.json" | cut -c1-16)" \
	'[ "$(jq -r .image_sha256 "$SCRATCH/local.json")" = "$(jq -r .base.image_sha256 "$SCRATCH/v.json")" ] &&
	 [ -n "$(jq -r ".base.image_sha256 // empty" "$SCRATCH/v.json")" ]'

pa=$(sent patched 10.231.1.2) pb=$(sent patched 10.231.2.2)
check "the patched build, in the sandbox, still sent its compiles ($pa and $pb jobs)" \
	'[ $((${pa:-0} + ${pb:-0})) -gt 0 ] && jq_true "$SCRATCH/v.json" ".patched.verdict == \"good\""'
log=$(jq -r '.patched.build_log // empty' "$SCRATCH/v.json")
check "a probe in the patch could not reach a helper's port" \
	'grep -q "^bisectd-probe 10.231.1.2/3632: unreachable" "$log" &&
	 ! grep -q "^bisectd-probe 10.231.1.2/3632: reached" "$log"'

distcc_stop 2
expect_exit 0 "a build with one helper down" \
	"$BISECTCTL" test --repo "$REPO" --commit "$GOOD" --recipe "$recipe" \
	--json "$SCRATCH/down1.json"
check "the step says which helper was left out" \
	'jq -r .build_notes "$SCRATCH/down1.json" | grep -q "^compile helper 10.231.2.2 is down (Connection refused): left out$"'
distcc_stop 1
expect_exit 0 "a build with every helper down runs here" \
	"$BISECTCTL" test --repo "$REPO" --commit "$CULPRIT~1" --recipe "$recipe" \
	--json "$SCRATCH/down2.json"
check "the step says so" \
	'jq -r .build_notes "$SCRATCH/down2.json" | grep -q "^no compile helper answered: the build ran here alone$"'

expect_exit 2 "a worker's --distcc with a bad host list" \
	"$TOP/build/bin/bisect-worker" --server http://127.0.0.1:1 --distcc "a/2,b/0"
one_line_error "'b/0'"
done_testing
