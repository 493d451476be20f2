/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The install test of built packages (installtest.c).
 */
#ifndef BISECTD_WORKER_INSTALLTEST_H
#define BISECTD_WORKER_INSTALLTEST_H

#include "recipe.h"
#include "verdict.h"

/*
 * The install test (installtest.c): the .deb installed with dpkg into a
 * Debian 12 root made once with debootstrap, its initrd made by
 * initramfs-tools, that disk booted in QEMU; the .rpm read with rpm -qp
 * and installed into a scratch root with rpm --root.
 */
struct install_spec {
	const struct recipe *recipe; /* emulator, memory, marker, timeout */
	const char *cache_dir;	     /* the Debian root is kept here */
	const char *out_dir;	     /* OUT/install gets the logs */
	const char *deb;	     /* linux-image .deb, or NULL */
	const char *release;	     /* the deb's kernel release */
	const char *rpm;	     /* kernel .rpm, or NULL */
	const char *rpm_version;     /* its version (and kernel release) */
};

struct install_result {
	enum verdict verdict; /* good, bad (the packages), infra */
	char *title;	      /* what failed first, "" when good */
	char *uname;	      /* what the installed kernel reported */
	double seconds, boot_s;
};

/* ERR_INPUT naming the tool the test of deb and/or rpm would lack. */
int install_check(int deb, int rpm);
/* Run the test; nonzero only when out of memory. */
int install_test(struct install_result *r, const struct install_spec *s);
void install_result_release(struct install_result *r);
/* The Debian 12 root under cache_dir, made with debootstrap if missing. */
int install_rootfs(char **out, const char *cache_dir, const char *log);

#endif
