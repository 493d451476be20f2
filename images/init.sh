#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bisectd guest init: PID 1 of the initramfs that every step boots.
#
# It mounts the kernel's pseudo filesystems, runs the step's test script
# (/bisectd/test, when the step has one) and reports on the console:
#
#   BISECTD-TEST-EXIT=<status>   the test's exit status (0 without a test)
#   <marker>                     the recipe's success marker, passed on the
#                                kernel command line as bisectd.marker=
#
# then reboots, which ends QEMU (it runs with -no-reboot).  A kernel that never gets here, crashes on
# the way, or hangs is judged from the console by the host.
/bin/busybox mkdir -p /proc /sys /dev /tmp
/bin/busybox mount -t proc proc /proc 2>/dev/null
/bin/busybox mount -t sysfs sysfs /sys 2>/dev/null
/bin/busybox mount -t devtmpfs devtmpfs /dev 2>/dev/null
/bin/busybox --install -s /bin 2>/dev/null
export PATH=/bin:/sbin

marker=BISECTD-BOOT-OK
for arg in $(cat /proc/cmdline 2>/dev/null); do
	case "$arg" in
	bisectd.marker=*) marker=${arg#bisectd.marker=} ;;
	esac
done

if [ -d /lib/modules ]; then
	echo "bisectd: kernel $(uname -r), $(find /lib/modules -name '*.ko*' | wc -l) modules"
fi

status=0
if [ -x /bisectd/test ]; then
	echo "bisectd: running guest test"
	/bisectd/test
	status=$?
fi
echo "BISECTD-TEST-EXIT=$status"
echo "$marker"
sync
reboot -f
