#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Boots through libvirt: a real libvirtd (and virtlogd) on this machine,
# qemu:///system, the same commits as the direct QEMU boots, the same
# verdicts and crash titles.  Also through a bisect-worker --libvirt.
PERSISTENT_CACHE=1
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/daemon-lib.sh"

if [ "$(id -u)" != 0 ] || ! command -v libvirtd > /dev/null; then
	skip_rest "libvirt boots need root and libvirtd"
	done_testing
	exit
fi
# libvirtd and virtlogd as the system's services would run them
mkdir -p /var/log/libvirt /run/libvirt
pgrep -x virtlogd > /dev/null || virtlogd -d
pgrep -x libvirtd > /dev/null || libvirtd -d
for _ in $(seq 100); do [ -S /run/libvirt/libvirt-sock ] && break; sleep 0.1; done
check "libvirtd is up" virsh -c qemu:///system version
# Without udev, /dev/kvm stays root:root 0600; libvirt's QEMU user then
# cannot open it and libvirt probes QEMU again on every call (44 s per
# domain start measured here).  Debian's udev rule gives it group kvm,
# mode 0660: do the same.
if [ -c /dev/kvm ] && [ "$(stat -c %a /dev/kvm)" = 600 ]; then
	chgrp kvm /dev/kvm && chmod 660 /dev/kvm
	echo "# /dev/kvm: group kvm, mode 0660, as Debian's udev rule sets it"
fi

eval "$("$TOP/build/tests/fixtures/kernel-history" --kind oops --seed 1)"
for rev in "$GOOD" "$CULPRIT"; do
	short=$(echo "$rev" | cut -c1-12)
	"$BISECTCTL" test --repo "$REPO" --commit "$rev" --recipe tiny \
		--json "$SCRATCH/direct.json" --out "$SCRATCH/direct-$short" > /dev/null 2>&1
	BISECTD_LIBVIRT_URI=qemu:///system "$BISECTCTL" test --repo "$REPO" \
		--commit "$rev" --recipe tiny --json "$SCRATCH/virt.json" \
		--out "$SCRATCH/virt-$short" > /dev/null 2> "$SCRATCH/virt.err"
	d=$(jq -r '"\(.verdict) \(.title)"' "$SCRATCH/direct.json")
	v=$(jq -r '"\(.verdict) \(.title)"' "$SCRATCH/virt.json")
	check "$short: libvirt's verdict '$v' is QEMU's '$d'" [ "$v" = "$d" ]
	echo "# $short boot: QEMU $(jq .boot_seconds "$SCRATCH/direct.json") s, libvirt $(jq .boot_seconds "$SCRATCH/virt.json") s"
done
check "the console came through libvirt's stream" \
	grep -q "BUG: kernel NULL pointer dereference" "$SCRATCH/virt-$(echo "$CULPRIT" | cut -c1-12)"/steps/*/console-1.log
check "no domain is left behind" \
	[ -z "$(virsh -c qemu:///system list --name --all | grep bisectd)" ]

# A libvirtd on another host, as a second libvirtd reached over TCP on a
# loopback port, in a mount namespace of its own where neither the test's
# cache (the kernels) nor its scratch directory exists: the kernel and
# initramfs must be uploaded through libvirt's storage API to boot there.
RPORT=$((20000 + $$ % 20000))
while ss -ltn | grep -q ":$RPORT "; do RPORT=$((RPORT + 1)); done
RURI="qemu+tcp://127.0.0.1:$RPORT/system"
printf '%s\n' 'listen_tls = 0' 'listen_tcp = 1' 'listen_addr = "127.0.0.1"' \
	"tcp_port = \"$RPORT\"" 'auth_tcp = "none"' > "$SCRATCH/remote.conf"
setsid unshare -m --propagation private sh -c '
	mount -t tmpfs tmpfs /run/libvirt &&
	mount -t tmpfs tmpfs /var/lib/libvirt &&
	mkdir /run/libvirt/etc && cp -a /etc/libvirt/. /run/libvirt/etc/ &&
	cp "$1" /run/libvirt/etc/remote.conf &&
	mount --bind /run/libvirt/etc /etc/libvirt &&
	mount -t tmpfs tmpfs "$2" && mount -t tmpfs tmpfs "$3" || exit 1
	virtlogd -p /run/libvirt/virtlogd.pid &
	exec libvirtd --listen -p /run/libvirt/libvirtd.pid \
		-f /etc/libvirt/remote.conf' sh \
	"$SCRATCH/remote.conf" "$BISECTD_CACHE" "$SCRATCH" \
	> "$SCRATCH/remote.log" 2>&1 &
PIDS="$PIDS $!"
for _ in $(seq 100); do virsh -c "$RURI" version > /dev/null 2>&1 && break; sleep 0.2; done
check "a second libvirtd answers at $RURI" virsh -c "$RURI" version
short=$(echo "$CULPRIT" | cut -c1-12)
BISECTD_LIBVIRT_URI=$RURI "$BISECTCTL" test --repo "$REPO" \
	--commit "$CULPRIT" --recipe tiny --json "$SCRATCH/remote.json" \
	--out "$SCRATCH/remote-$short" > /dev/null 2> "$SCRATCH/remote.err"
check "booted there: bad, NULL pointer dereference (QEMU's verdict here)" \
	jq_true "$SCRATCH/remote.json" '.verdict == "bad" and (.title | test("NULL pointer dereference"))'
check "its kernel and initramfs were uploaded" \
	grep -q "kernel and initramfs uploaded to $RURI (pool bisectd)" "$SCRATCH/remote.err"
# no_volumes: the pool there exists and holds nothing
no_volumes() {
	vols=$(virsh -q -c "$RURI" vol-list bisectd) || return 1
	[ -z "$(echo "$vols" | grep .)" ]
}
check "the volumes are gone after the boot" no_volumes
# a volume left by a process that is gone is swept by the next upload
virsh -c "$RURI" vol-create-as bisectd \
	"bisectd-$(hostname | tr .- __)-999999999-1-kernel" 1024 > /dev/null
check "a volume a dead process left is there" '! no_volumes'
BISECTD_LIBVIRT_URI=$RURI "$BISECTCTL" test --repo "$REPO" \
	--commit "$GOOD" --recipe tiny --json "$SCRATCH/remote2.json" \
	--out "$SCRATCH/remote2" > /dev/null 2>&1
check "a second boot there: good" jq_true "$SCRATCH/remote2.json" '.verdict == "good"'
check "and the volume a dead process left was swept" no_volumes
# a pool that cannot be made: the boot does not start, libvirt says why
BISECTD_LIBVIRT_POOL="no/such" BISECTD_LIBVIRT_URI=$RURI "$BISECTCTL" test \
	--repo "$REPO" --commit "$GOOD" --recipe tiny \
	--json "$SCRATCH/remote3.json" --out "$SCRATCH/remote3" > /dev/null 2>&1
check "a pool that cannot be made: not good, the pool named in the reason" \
	jq_true "$SCRATCH/remote3.json" '.verdict != "good" and (tostring | test("storage pool no/such"))'

# a worker whose boots go through libvirt
make_tokens
start_bisectd --lease 120
start_worker virt --recipes tiny --slot '' --libvirt qemu:///system
"$BISECTCTL" --server "$URL" --token "$STOKEN" test --repo "$REPO" \
	--commit "$CULPRIT" --recipe tiny --json "$SCRATCH/w.json" \
	> "$SCRATCH/out" 2>&1
check "a worker booting through libvirt: bad" \
	jq_true "$SCRATCH/w.json" '.result == "bad" and (.steps[0].result.title | test("NULL pointer dereference"))'
done_testing
