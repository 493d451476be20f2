/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a package build leaves for its users, read by the worker that
 * made it, by bisectctl and by bisectd's download page: the packages,
 * SHA256SUMS over them, the toolchain's versions, and the download page
 * (static HTML) with install and uninstall commands per distribution.
 */
#ifndef BISECTD_ARTIFACTS_H
#define BISECTD_ARTIFACTS_H

#include <stddef.h>

#include "buf.h"

/* A build's packages. */
struct package_result {
	char *release;	   /* uname -r of the deb's kernel */
	char *deb_version; /* package versions, or NULL */
	char *rpm_version;
	char **files; /* file names in out_dir */
	size_t nfiles;
	double seconds;
};

void package_result_release(struct package_result *r);

/* SHA256SUMS over the packages in dir (sha256sum -c reads it). */
int artifacts_sums(const char *dir, const struct package_result *r);
/* The toolchain's versions, one line per tool. */
int artifacts_toolchain(const char *path);

struct download_info {
	const struct package_result *packages;
	const char *what;	 /* one sentence: base and patches */
	const char *recipe;	 /* the config */
	const char *smoke;	 /* the boot test's verdict */
	const char *link_prefix; /* "" for a page beside the files */
	const char *signed_with; /* the MOK certificate, or NULL */
	const char *install;	 /* the install test's result, or NULL */
	/* the signed APT repository that has the packages, or NULL: its
	 * URL, suites (the build's own and its channel, or NULL) and the
	 * key's URL and fingerprint */
	const char *apt_url, *apt_suite, *apt_channel, *apt_key_url, *apt_fpr;
	/* the signed RPM repository that has the kernel, or NULL: the URL
	 * of the repositories' top (the build's is below it, named as its
	 * APT suite) and of the armored key */
	const char *rpm_url, *rpm_key_url;
};

/* The linux-image .deb (rpm 0) or the kernel .rpm (1) among r's files. */
const char *artifacts_kernel_file(const struct package_result *r, int rpm);

/* The download page: files, install and uninstall, Secure Boot. */
int artifacts_page(struct buf *out, const struct download_info *d);

#endif
