#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make check-distro: patched packages of Debian's cloud-amd64 config for
# real: bindeb-pkg and binrpm-pkg of about 1,100 modules, and the install
# test (the .deb into a Debian 12 disk, booted through the initrd that
# initramfs-tools makes with Debian's own MODULES=most).  About 7 minutes
# on a build directory that built the same tree before (the release
# changes, so every module is linked again), 50 more cold.  Prints the
# times of the build, the packaging and the install test.
PERSISTENT_CACHE=1
. "$(dirname "$0")/../lib.sh"
eval "$("$TOP/build/tests/fixtures/kernel-history" --import-only)"

# a one-line patch, as a user's candidate fix would be
git -C "$REPO" show "$GOOD:kernel/reboot.c" > "$SCRATCH/a.c"
sed '0,/^#include/s//\/* patched by bisectd check-distro *\/\n#include/' \
	"$SCRATCH/a.c" > "$SCRATCH/b.c"
(cd "$SCRATCH" && diff -u --label a/kernel/reboot.c --label b/kernel/reboot.c \
	a.c b.c > fix.patch)
expect_exit 0 "debian-cloud-amd64: deb and rpm packages of $GOOD with a patch, install-tested" \
	"$BISECTCTL" build --repo "$REPO" --commit "$GOOD" \
	--patch "$SCRATCH/fix.patch" --recipe debian-cloud-amd64 \
	--format deb,rpm --install-test --json "$SCRATCH/b.json" \
	--out "$SCRATCH/b"
sed 's/^/# /' "$SCRATCH/out"
id=$(jq -r .id "$SCRATCH/b.json")
rel=6.1.192-bisectd.$id
check "the installed Debian system booted it: uname -r $rel" \
	jq_true "$SCRATCH/b.json" ".install.verdict == \"good\" and .install.uname == \"$rel\""
# (ext4 is built in with this config; the disk's drivers are modules)
check "with virtio_pci and virtio_blk loaded by Debian's initrd" \
	sh -c "grep '^bisectd-install: modules ' '$SCRATCH/b/install/console.log' | grep -w virtio_pci | grep -qw virtio_blk"
check "from the ext4 disk" \
	grep -q "^bisectd-install: root /dev/vda ext4" "$SCRATCH/b/install/console.log"
check "the deb holds the modules" sh -c \
	"dpkg-deb -c '$SCRATCH'/b/packages/linux-image-${rel}_*.deb | grep -c '\.ko\$' | awk '{ exit !(\$1 > 1000) }'"
jq -r '"# build \(.smoke.build_seconds) s, packages \(.package_seconds) s, install test \(.install.seconds) s (boot \(.install.boot_seconds) s)"' "$SCRATCH/b.json"
done_testing
