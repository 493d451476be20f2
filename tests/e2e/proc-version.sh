#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Guest test for the e2e tests: /proc/version must start as Linux's does.
cat /proc/version
grep -q '^Linux version ' /proc/version
