/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Booting a kernel: QEMU directly (boot.c), or through libvirt
 * (boot_libvirt.c), behind boot_run().
 */
#ifndef BISECTD_WORKER_BOOT_H
#define BISECTD_WORKER_BOOT_H

#include "buf.h"
#include "classify.h"
#include "recipe.h"

/*
 * 1 when KVM really runs a guest here, 0 when not: probed once per
 * process by booting kernel under KVM, scratch_log holding its console.
 */
int boot_kvm_usable(const struct recipe *r, const char *kernel,
		    const char *initrd, const char *scratch_log);

struct boot_result {
	enum boot_end end;
	double seconds;
	const char *accel; /* "kvm" or "tcg", static */
	char *console;	   /* owned */
	char *why;	   /* BOOT_NOT_STARTED: QEMU's own words, owned */
};

/*
 * The same boot through libvirt at uri (a transient domain, its console
 * read over a libvirt stream); boot_run() uses it when
 * $BISECTD_LIBVIRT_URI is set.
 */
int boot_libvirt_run(struct boot_result *out, const struct recipe *r,
		     const char *uri, const char *kernel, const char *initrd,
		     const char *console_log);
/* Notes on what would make libvirt slow at uri on this host. */
int boot_libvirt_check(const char *uri, struct buf *notes);

int boot_run(struct boot_result *out, const struct recipe *r,
	     const char *kernel, const char *initrd, const char *console_log,
	     const char *qemu_log);
/* The same boot, always with QEMU itself (not through libvirt). */
int boot_qemu(struct boot_result *out, const struct recipe *r,
	      const char *kernel, const char *initrd, const char *console_log,
	      const char *qemu_log);
void boot_result_release(struct boot_result *b);

#endif
