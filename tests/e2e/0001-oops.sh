#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A NULL pointer dereference in an initcall, planted at a random commit of
# a 300-commit kernel history with merges; then endpoints that are not
# what the user says they are.
. "$(dirname "$0")/kernel-case.sh"
COMMITS=300
kernel_case oops 1 'BUG: kernel NULL pointer dereference in reboot_defaults_init$'
mail=$SCRATCH/oops/report.mail
short=$(echo "$CULPRIT" | cut -c1-12)
check "the mail report names the culprit for regzbot" \
	grep -q "^#regzbot introduced: $short$" "$mail"
mail_headers "$mail" > "$SCRATCH/headers"
check "its recipients come from MAINTAINERS (LKML for THE REST) and regressions@" \
	grep -q "^Cc: .*linux-kernel@vger.kernel.org.*regressions@lists.linux.dev" "$SCRATCH/headers"
check "its subject is the crash" \
	grep -q "^Subject: \[REGRESSION\] BUG: kernel NULL pointer dereference in reboot_defaults_init (bisected to $short)" "$SCRATCH/headers"
check "the JSON report carries the same recipients" \
	jq_true "$SCRATCH/oops.json" '(.recipients.cc | index("regressions@lists.linux.dev")) != null and (.regzbot | startswith("#regzbot introduced: "))'

expect_exit 2 "a bad commit that does not fail stops the bisection" \
	"$BISECTCTL" bisect --repo "$REPO" --good "$GOOD" --bad "$CULPRIT~1" \
	--recipe tiny --out "$SCRATCH/e1"
# (at the default confidence, after as many runs as a flaky failure needs)
check "says the bad commit does not fail" grep -q \
	"the bad commit .* does not fail in 10 runs: nothing to bisect" \
	"$SCRATCH/err"
expect_exit 2 "a good commit that fails stops the bisection" \
	"$BISECTCTL" bisect --repo "$REPO" --good "$CULPRIT" --bad "$BAD" \
	--recipe tiny --out "$SCRATCH/e2"
check "says the good commit does not pass" grep -q \
	"the good commit .* does not pass (verdict bad: BUG: kernel NULL" \
	"$SCRATCH/err"
check "the report of a stopped bisection says why" \
	jq_true "$SCRATCH/e2/report.json" '.result == "error" and (.error | test("does not pass"))'
done_testing
