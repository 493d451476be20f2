#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The install test of bisectctl build --install-test, with the
# tiny-install recipe (virtio-blk and ext4 as modules, an EFI stub): the
# .deb is installed with dpkg into a debootstrapped Debian 12 root whose
# initramfs-tools makes the initrd, that disk boots in QEMU and reports
# the patched uname -r; the .rpm is read with rpm -qp and installed with
# rpm --root.  The image is signed with a MOK key and checked with
# sbverify.  A patch that breaks the disk driver passes the smoke test
# (an initramfs needs no disk) and fails the install test.
PERSISTENT_CACHE=1
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

eval "$("$TOP/build/tests/fixtures/kernel-history" --kind oops --seed 1)"
git -C "$REPO" diff "$CULPRIT" "$CULPRIT~1" -- kernel/reboot.c > "$SCRATCH/revert.patch"
mkdir -p "$SCRATCH/keys"
openssl req -new -x509 -newkey rsa:2048 -nodes -days 30 \
	-subj "/CN=bisectd test MOK/" -keyout "$SCRATCH/keys/MOK.key" \
	-out "$SCRATCH/keys/MOK.crt" > /dev/null 2>&1

out=$SCRATCH/build
expect_exit 0 "build, sign and install-test deb and rpm packages" \
	"$BISECTCTL" build --repo "$REPO" --commit "$CULPRIT" \
	--patch "$SCRATCH/revert.patch" --recipe tiny-install \
	--format deb,rpm --install-test \
	--sign-key "$SCRATCH/keys/MOK.key" --sign-cert "$SCRATCH/keys/MOK.crt" \
	--out "$out" --json "$SCRATCH/b.json"
sed 's/^/# /' "$SCRATCH/out"
id=$(jq -r .id "$SCRATCH/b.json")
rel=6.1.192-bisectd.$id
check "the install test is good: $(jq -c .install "$SCRATCH/b.json")" \
	jq_true "$SCRATCH/b.json" '.result == "built" and .install.verdict == "good"'
check "the installed system reported uname -r $rel" \
	jq_true "$SCRATCH/b.json" ".install.uname == \"$rel\""
con=$out/install/console.log
check "dpkg's postinst had initramfs-tools make the initrd" \
	grep -q "update-initramfs: Generating /boot/initrd.img-$rel" \
	"$out/install/install.log"
check "the initrd loaded virtio_blk and ext4 (modules) from the disk's kernel" \
	sh -c "grep '^bisectd-install: modules ' '$con' | grep -w virtio_blk | grep -qw ext4"
check "and mounted the disk as / (ext4 on /dev/vda)" \
	grep -q "^bisectd-install: root /dev/vda ext4" "$con"
check "the download page gives the install test's result" \
	grep -q "Install test: installed with dpkg into Debian 12.*uname -r $rel" \
	"$out/packages/index.html"
check "the copy of the root and the disk image are gone" \
	sh -c "[ ! -e '$out/install/root' ] && [ ! -e '$out/install/disk.img' ]"
check "the Debian 12 root is cached outside the checkout" \
	[ -x "$BISECTD_CACHE/rootfs/debian-12-amd64/usr/sbin/update-initramfs" ]
rpmv=6.1.192~bisectd.$id
check "rpm -qp read its name and version" \
	grep -qx "kernel $rpmv" "$out/install/rpm.txt"
check "its files and scriptlets" sh -c \
	"grep -qx '/boot/vmlinuz-$rpmv' '$out/install/rpm.txt' && grep -q '^postinstall scriptlet' '$out/install/rpm.txt'"
check "rpm --root installed it into a scratch root" \
	grep -q "^# rpm --root ROOT -i" "$out/install/rpm.txt"

# the signature, on the image inside each package
deb=$(ls "$out"/packages/linux-image-"$rel"_*_amd64.deb)
mkdir -p "$SCRATCH/debx" "$SCRATCH/rpmx"
dpkg-deb -x "$deb" "$SCRATCH/debx"
check "sbverify accepts the deb's vmlinuz with the MOK certificate" \
	sbverify --cert "$SCRATCH/keys/MOK.crt" "$SCRATCH/debx/boot/vmlinuz-$rel"
(cd "$SCRATCH/rpmx" && rpm2cpio "$(ls "$out"/packages/kernel-"$rpmv"-*.x86_64.rpm)" |
	cpio -idm --quiet 2> /dev/null)
check "and the rpm's" \
	sbverify --cert "$SCRATCH/keys/MOK.crt" "$SCRATCH/rpmx/boot/vmlinuz-$rpmv"
openssl req -new -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=other/" \
	-keyout "$SCRATCH/keys/other.key" -out "$SCRATCH/keys/other.crt" > /dev/null 2>&1
check "and not with another certificate" \
	sh -c "! sbverify --cert '$SCRATCH/keys/other.crt' '$SCRATCH/debx/boot/vmlinuz-$rel' > /dev/null 2>&1"
check "the certificate to enroll is there as MOK.der" \
	openssl x509 -inform DER -in "$out/packages/MOK.der" -noout

# a patch that breaks the disk driver: the smoke test boots an initramfs
# and passes; the installed system cannot find its root
bad=$SCRATCH/bad
expect_exit 4 "a patch that breaks virtio-blk fails the install test" \
	"$BISECTCTL" build --repo "$REPO" --commit "$CULPRIT" \
	--patch "$SCRATCH/revert.patch" \
	--patch "$TOP/tests/fixtures/patches/virtio-blk-refuse.patch" \
	--recipe tiny-install --format deb --install-test \
	--out "$bad" --json "$SCRATCH/bad.json"
sed 's/^/# /' "$SCRATCH/out"
check "the smoke test passed, the install test did not: $(jq -c .install "$SCRATCH/bad.json")" \
	jq_true "$SCRATCH/bad.json" '.result == "install failed" and .smoke.verdict == "good" and .install.verdict == "bad"'
check "in initramfs-tools' words: $(jq -r .install.title "$SCRATCH/bad.json")" \
	jq_true "$SCRATCH/bad.json" '.install.title == "the installed system'"'"'s initrd: ALERT!  /dev/vda does not exist.  Dropping to a shell!"'
check "the console shows the driver refusing the disk" \
	grep -q "virtio_blk virtio0: probe refused" "$bad/install/console.log"
check "the packages are kept, the page says the install test failed" \
	grep -q "Install test: bad: the installed system.*s initrd: ALERT!" "$bad/packages/index.html"

# a machine without the tools gets told which
expect_exit 2 "--install-test without debootstrap in PATH" env PATH=/usr/bin:/bin \
	"$BISECTCTL" build --repo "$REPO" --commit "$CULPRIT" \
	--recipe tiny-install --install-test --out "$SCRATCH/nodebootstrap"
one_line_error "the install test needs debootstrap (package debootstrap)"
check "nothing was written" [ ! -e "$SCRATCH/nodebootstrap" ]

# the same through bisectd, with a Debian source version as the base:
# bisectd imports it into its cache, and a worker that cannot see that
# cache (as on another machine: a mount namespace hides it) imports the
# same version into its own, gets the same commit, builds and
# install-tests it
deb_version=$(dpkg-query -W -f='${Version}' linux-source-6.1)
make_tokens
dcache=$SCRATCH/dcache
mkdir -p "$dcache"
wcache=$BISECTD_CACHE
export BISECTD_CACHE="$dcache"
start_bisectd --lease 60
export BISECTD_CACHE="$wcache"
BISECTD_WORKER_TOKEN=$WTOKEN setsid unshare -m sh -c 'mount -t tmpfs none "$1" && shift && exec "$@"' sh \
	"$dcache" "$WORKER" --server "$URL" --name remote \
	--recipes tiny-install --slot '' > "$SCRATCH/remote.log" 2>&1 &
PIDS="$PIDS $!"
"$BISECTCTL" --server "$URL" --token "$STOKEN" build --source "$deb_version" \
	--recipe tiny-install --format deb --install-test \
	--json "$SCRATCH/job.json" > "$SCRATCH/rout" 2> "$SCRATCH/rerr"
rc=$?
check "bisectctl --server build --source $deb_version --install-test exits 0 (got $rc)" [ "$rc" -eq 0 ]
check "the job: built, installed and booted: $(jq -c '.steps[0].result.title' "$SCRATCH/job.json")" \
	jq_true "$SCRATCH/job.json" '.result == "built" and (.steps[0].result.title | test("installed and booted from a Debian 12 disk"))'
tag=$(git --git-dir="$dcache/linux.git" rev-parse "debian/$deb_version^{commit}" 2> /dev/null)
check "bisectd imported it as the tag debian/$deb_version, the job's commit" \
	jq_true "$SCRATCH/job.json" ".spec.source == \"$deb_version\" and .spec.commit == \"$tag\" and .spec.repo == \"$dcache/linux.git\""
wtag=$(git --git-dir="$wcache/linux.git" rev-parse "debian/$deb_version^{commit}" 2> /dev/null)
check "the worker's own import is the same commit ($wtag)" [ "$wtag" = "$tag" ]
check "the worker could not see bisectd's repository and used its own" \
	grep -q "$dcache/linux.git is not on this machine" "$SCRATCH/remote.log"
jid=$(jq .id "$SCRATCH/job.json")
curl -s "$URL/jobs/$jid/download" > "$SCRATCH/download.html"
check "the download page names the Debian version and the install test" \
	sh -c "grep -q \"linux-source-6.1 $deb_version\" '$SCRATCH/download.html' && grep -q 'Install test: built .*installed and booted' '$SCRATCH/download.html'"
api POST jobs "{\"type\":\"build\",\"source\":\"$deb_version\",\"commit\":\"HEAD\",\"recipe\":\"tiny\"}" "$STOKEN" > "$SCRATCH/code"
check "a source and a commit: 422, $(jq -r .error "$SCRATCH/body")" \
	sh -c "[ \"\$(cat '$SCRATCH/code')\" = 422 ] && jq -e '.error | test(\"no .repo. or .commit. with it\")' '$SCRATCH/body' > /dev/null"
api POST jobs "{\"type\":\"test\",\"source\":\"$deb_version\",\"recipe\":\"tiny\"}" "$STOKEN" > "$SCRATCH/code"
check "a source for a test job: 422, $(jq -r .error "$SCRATCH/body")" \
	sh -c "[ \"\$(cat '$SCRATCH/code')\" = 422 ] && jq -e '.error | test(\"for build jobs\")' '$SCRATCH/body' > /dev/null"
# a version is looked up by the fetch queue: the job fails with the reason
nid=$(submit '{"type":"build","source":"6.1.0-nosuch","recipe":"tiny"}')
wait_job "$nid" 120
check "a version apt does not know fails its job: $(jq -r .reason "$SCRATCH/job")" \
	jq_true "$SCRATCH/job" '.state == "failed" and (.reason | test("6.1.0-nosuch"))'
check "bisectd is still up" sh -c "[ \"\$(curl -s -o /dev/null -w '%{http_code}' '$URL/api/v1/jobs')\" = 200 ]"
done_testing
