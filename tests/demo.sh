#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make demo: bisect a planted regression in a real kernel, end to end.
#
# Imports Debian's linux-source-6.1 into a git repository in the cache
# (once), generates a 1,000-commit history with merges on top of it with a
# NULL pointer dereference planted at a commit chosen by DEMO_SEED, and
# bisects it with the tiny recipe: every step is checked out, configured,
# built and booted in QEMU.  Prints progress, then the report.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
kind=${DEMO_KIND:-oops}
seed=${DEMO_SEED:-1}
echo "== preparing the kernel history ($kind, seed $seed)"
eval "$("$top/build/tests/fixtures/kernel-history" --kind "$kind" --seed "$seed")"
echo "   repository $REPO"
echo "   good $GOOD, bad $BAD"
set -- --repo "$REPO" --good "$GOOD" --bad "$BAD" --recipe tiny
if [ "$kind" = test ]; then
	set -- "$@" --test "$top/tests/e2e/proc-version.sh"
fi
echo "== bisectctl bisect $*"
status=0
"$top/build/bin/bisectctl" bisect "$@" || status=$?
echo "== the planted regression was $CULPRIT"
exit $status
