# SPDX-License-Identifier: GPL-2.0-only
# Shell test helpers, sourced by tests/t/*.sh and tests/e2e/*.sh, in the
# manner of git's test-lib.sh: each test script runs in its own scratch
# directory with its own cache, prints "ok N - what" or "not ok N - what",
# and exits non-zero when anything failed.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BISECTCTL=$TOP/build/bin/bisectctl
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/bisectd-test.XXXXXX")
# A cache of the test's own; or, for scripts that set PERSISTENT_CACHE
# before sourcing this file, bisectctl's own cache ($BISECTD_CACHE or its
# default), where the kernel tree, build directories and ccache persist.
if [ -n "${PERSISTENT_CACHE:-}" ]; then
	if [ -n "${BISECTD_CACHE:-}" ]; then
		TEST_CACHE=$BISECTD_CACHE
	elif [ "$(id -u)" = 0 ]; then
		TEST_CACHE=/var/cache/bisectd
	else
		TEST_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/bisectd
	fi
fi
BISECTD_CACHE=${TEST_CACHE:-$SCRATCH/cache}
export BISECTD_CACHE
test_count=0 test_failed=0
trap 'rm -rf "$SCRATCH"' EXIT

ok() { test_count=$((test_count + 1)); echo "ok $test_count - $*"; }
not_ok() {
	test_count=$((test_count + 1)) test_failed=$((test_failed + 1))
	echo "not ok $test_count - $*"
}
# passed "what" STATUS [DETAIL...]: reports a check whose condition
# exited with STATUS.  With TEST_INVERT=1 every condition counts as its
# opposite, so that a run of a healthy suite must report every check as
# failed: one that still says ok does not depend on its condition.
passed() {
	t_what=$1 t_status=$2
	shift 2
	if [ "${TEST_INVERT:-0}" = 1 ]; then
		if [ "$t_status" -eq 0 ]; then t_status=1; else t_status=0; fi
	fi
	if [ "$t_status" -eq 0 ]; then
		ok "$t_what"
	else
		not_ok "$t_what"
		for t_detail in "$@"; do
			[ -s "$t_detail" ] && sed 's/^/# /' "$t_detail" | tail -20
		done
	fi
	return 0
}
# check "what" COMMAND [ARG...]: ok when COMMAND succeeds.
# check "what" 'EXPRESSION': one argument is a shell expression, evaluated
# whole, for conditions joined with && or ||.  Written outside the quotes,
# the shell would run the second half after check has already said ok;
# tests/lint.sh refuses that form.
check() {
	t_check=$1
	shift
	if [ $# -eq 1 ]; then
		eval "$1"
	else
		"$@"
	fi
	passed "$t_check" $?
}
# expect_exit N "what" COMMAND...: runs COMMAND, output in $SCRATCH/out, err
expect_exit() {
	want=$1 what=$2
	shift 2
	"$@" > "$SCRATCH/out" 2> "$SCRATCH/err"
	got=$?
	if [ "$got" -eq "$want" ]; then
		passed "$what (exit $got)" 0
	else
		passed "$what: exit $got, wanted $want" 1 "$SCRATCH/err"
	fi
}
# the stderr of the last expect_exit has exactly one line matching PATTERN
one_line_error() {
	lines=$(grep -c . "$SCRATCH/err")
	if [ "$lines" -eq 1 ] && grep -q -- "$1" "$SCRATCH/err"; then
		passed "one-line error: $(cat "$SCRATCH/err")" 0
	else
		passed "wanted one line matching '$1', got:" 1 "$SCRATCH/err"
	fi
}
# skip_rest "why": the rest of the script cannot run here (TAP's skip)
skip_rest() { test_count=$((test_count + 1)); echo "ok $test_count # skip $*"; }
done_testing() {
	echo "1..$test_count"
	[ "$test_failed" -eq 0 ] || { echo "# $test_failed failed"; exit 1; }
	exit 0
}
# mail_headers MAIL: its header section with each folded header on one line
mail_headers() {
	sed -n '1,/^$/p' "$1" |
		awk '/^[ \t]/ { sub(/^[ \t]+/, " "); h = h $0; next }
		     { if (h != "") print h; h = $0 } END { print h }'
}
# jq_true FILE EXPR: the JSON in FILE satisfies EXPR
jq_true() { jq -e "$2" "$1" >/dev/null; }
# matches STRING REGEX: expr(1)'s anchored match
matches() { expr "$1" : "$2" >/dev/null; }
# probe_patch OUT ADDRESS/PORT...: a patch of the kernel fixture's init/
# (as of $GOOD in $REPO) into OUT: its build prints "bisectd-probe
# ADDRESS/PORT: reached" (or "unreachable") for each, trying bash's
# /dev/tcp from make's $(shell), and init/version.c gains a symbol, so
# that something is compiled
probe_patch() {
	pp_out=$1
	shift
	rm -rf "$SCRATCH/pp"
	mkdir -p "$SCRATCH/pp/a/init" "$SCRATCH/pp/b/init"
	for f in Makefile version.c; do
		git -C "$REPO" show "$GOOD:init/$f" > "$SCRATCH/pp/a/init/$f"
	done
	awk -v targets="$*" '/^ccflags-y/ && !done {
		n = split(targets, t, " ")
		for (i = 1; i <= n; i++)
			print "$(info bisectd-probe " t[i] ": $(shell bash -c \"echo > /dev/tcp/" t[i] "\" 2> /dev/null && echo reached || echo unreachable))"
		print ""; done = 1 } { print }' \
		"$SCRATCH/pp/a/init/Makefile" > "$SCRATCH/pp/b/init/Makefile"
	awk '/^static int __init early_hostname/ && !done { print "int bisectd_patched_marker;"; print ""; done = 1 } { print }' \
		"$SCRATCH/pp/a/init/version.c" > "$SCRATCH/pp/b/init/version.c"
	(cd "$SCRATCH/pp" && diff -ru a b) > "$pp_out"
}
