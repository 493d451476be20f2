#!/bin/sh
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
