#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bisectctl classify reads a console log as a step's boot is read: its
# verdict, crash kind and title on stdout, exit 0 good and 1 bad; bad
# input is one line and exit status 2.
. "$(dirname "$0")/../lib.sh"
con=$TOP/tests/fixtures/console

expect_exit 1 "a KASAN report is bad" "$BISECTCTL" classify "$con/kasan-uaf.log"
check "its kind" grep -qx 'kind: kasan' "$SCRATCH/out"
check "its title names the function" \
	grep -qx 'title: KASAN: use-after-free Read in crashme_uaf' "$SCRATCH/out"

expect_exit 0 "a warning is not a failure by default" \
	"$BISECTCTL" classify "$con/warning-new-format.log"
check "its verdict" grep -qx 'verdict: good' "$SCRATCH/out"
expect_exit 1 "a warning with --fail-on all" \
	"$BISECTCTL" classify --fail-on all "$con/warning-new-format.log"
check "named by the function that warned" \
	grep -qx 'title: WARNING in crashme_put' "$SCRATCH/out"

expect_exit 0 "a good boot with its marker" \
	"$BISECTCTL" classify --marker BISECTD-BOOT-OK "$con/good.log"
expect_exit 1 "a hang without the marker" \
	"$BISECTCTL" classify --marker BISECTD-BOOT-OK "$con/hang.log"
check "says no crash was seen" grep -qx 'kind: none' "$SCRATCH/out"

# a NUL byte from the serial line does not hide what follows it
printf 'noise\000\000\nBUG: kernel NULL pointer dereference, address: 0000000000000008\nRIP: 0010:crashme_deref+0x5/0x10\n' \
	> "$SCRATCH/nul.log"
expect_exit 1 "a crash after NUL bytes" "$BISECTCTL" classify "$SCRATCH/nul.log"
check "is seen" grep -qx 'title: BUG: kernel NULL pointer dereference in crashme_deref' "$SCRATCH/out"

expect_exit 2 "a log that does not exist" "$BISECTCTL" classify "$SCRATCH/none.log"
one_line_error "cannot open '$SCRATCH/none.log'"
expect_exit 2 "an unknown kind" "$BISECTCTL" classify --fail-on oops,frobs "$con/good.log"
one_line_error "--fail-on: 'oops,frobs' is not a list of crash kinds or all"
expect_exit 2 "two logs" "$BISECTCTL" classify "$con/good.log" "$con/hang.log"
one_line_error "classify needs exactly one LOG"
expect_exit 0 "bisectctl classify --help" "$BISECTCTL" classify --help
check "prints classify's usage" grep -q "^usage: bisectctl classify " "$SCRATCH/out"
done_testing
