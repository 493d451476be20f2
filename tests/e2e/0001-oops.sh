#!/bin/sh
# A NULL pointer dereference in an initcall, planted at a random commit of
# a 1,000-commit kernel history with merges.
. "$(dirname "$0")/kernel-case.sh"
kernel_case oops 1 'BUG: kernel NULL pointer dereference in reboot_defaults_init$'
done_testing
