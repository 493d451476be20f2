#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make check-distro: build and boot Debian's cloud-amd64 config for real
# (about 46 minutes cold on 2 cores, under a minute per incremental step),
# with its modules in the initramfs.  Not part of make check.
PERSISTENT_CACHE=1
. "$(dirname "$0")/../lib.sh"
eval "$("$TOP/build/tests/fixtures/kernel-history" --import-only)"
expect_exit 0 "debian-cloud-amd64 builds and boots $GOOD" \
	"$BISECTCTL" test --repo "$REPO" --commit "$GOOD" \
	--recipe debian-cloud-amd64 --json "$SCRATCH/d.json" --out "$SCRATCH/d"
sed 's/^/# /' "$SCRATCH/out"
console=$(jq -r .console_log "$SCRATCH/d.json")
check "the guest saw the modules in its initramfs" \
	grep -q "^bisectd: kernel 6\.1\.192[^ ]*, [1-9][0-9]* modules" "$console"
config=$(ls "$SCRATCH"/d/steps/*/config)
check "the fragment turned debug info off" \
	grep -q '^CONFIG_DEBUG_INFO_NONE=y' "$config"
check "and BTF with it" \
	sh -c "! grep -q '^CONFIG_DEBUG_INFO_BTF=y' '$config'"
done_testing
