# Shell test helpers, sourced by tests/t/*.sh and tests/e2e/*.sh, in the
# manner of git's test-lib.sh: each test script runs in its own scratch
# directory with its own cache, prints "ok N - what" or "not ok N - what",
# and exits non-zero when anything failed.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BISECTCTL=$TOP/bisectd/bisectctl
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
# check "what" COMMAND...: ok when COMMAND succeeds
check() {
	what=$1
	shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}
# expect_exit N "what" COMMAND...: runs COMMAND, output in $SCRATCH/out, err
expect_exit() {
	want=$1 what=$2
	shift 2
	"$@" > "$SCRATCH/out" 2> "$SCRATCH/err"
	got=$?
	if [ "$got" -eq "$want" ]; then
		ok "$what (exit $got)"
	else
		not_ok "$what: exit $got, wanted $want"
		sed 's/^/# /' "$SCRATCH/err" | tail -20
	fi
}
# the stderr of the last expect_exit has exactly one line matching PATTERN
one_line_error() {
	lines=$(grep -c . "$SCRATCH/err")
	if [ "$lines" -eq 1 ] && grep -q -- "$1" "$SCRATCH/err"; then
		ok "one-line error: $(cat "$SCRATCH/err")"
	else
		not_ok "wanted one line matching '$1', got:"
		sed 's/^/# /' "$SCRATCH/err"
	fi
}
done_testing() {
	echo "1..$test_count"
	[ "$test_failed" -eq 0 ] || { echo "# $test_failed failed"; exit 1; }
	exit 0
}
# jq_true FILE EXPR: the JSON in FILE satisfies EXPR
jq_true() { jq -e "$2" "$1" >/dev/null; }
# matches STRING REGEX: expr(1)'s anchored match
matches() { expr "$1" : "$2" >/dev/null; }
