#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The end-to-end tests: real kernel bisections with the tiny recipe.  The
# first run imports Debian's linux-source-6.1 into the cache and builds a
# kernel cold (a few minutes on 2 cores); later runs reuse both.
cd "$(dirname "$0")/.." || exit 1
exec tests/run-t.sh ${@:-tests/e2e/0*.sh}
