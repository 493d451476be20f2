#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# An initcall that never returns: the boot hangs without a word, and the
# timeout makes the verdict.
. "$(dirname "$0")/kernel-case.sh"
COMMITS=300
kernel_case hang 2 'boot hang: no success marker within 10 s$'
done_testing
