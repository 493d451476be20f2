// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a package build leaves for its users: SHA256SUMS over the
 * packages, the kernel release, the toolchain's versions, the applied
 * patches, and a download page (static HTML) with install and uninstall
 * commands per distribution and what Secure Boot means for them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifacts.h"
#include "digest.h"
#include "error.h"
#include "util.h"

void package_result_release(struct package_result *r)
{
	size_t i;

	for (i = 0; i < r->nfiles; i++)
		free(r->files[i]);
	free(r->files);
	free(r->release);
	free(r->deb_version);
	free(r->rpm_version);
	memset(r, 0, sizeof(*r));
}

int artifacts_sums(const char *dir, const struct package_result *r)
{
	struct buf b;
	size_t i;
	int rc = 0;

	buf_init(&b, 1 << 20);
	for (i = 0; i < r->nfiles && !rc; i++) {
		char sum[DIGEST_HEXSZ + 1], *path;

		path = util_fmt("%s/%s", dir, r->files[i]);
		rc = path ? digest_file_hex(sum, path)
			  : err_set(ERR_NOMEM, "out of memory");
		if (!rc)
			buf_printf(&b, "%s  %s\n", sum, r->files[i]);
		free(path);
	}
	if (!rc) {
		char *path = util_fmt("%s/SHA256SUMS", dir);

		rc = path ? util_write_atomic(path, b.ptr ? b.ptr : "", b.len)
			  : err_set(ERR_NOMEM, "out of memory");
		free(path);
	}
	buf_release(&b);
	return rc;
}

/* The first line a command prints, for toolchain.txt. */
static void first_line_of(struct buf *out, const char *label,
			  const char *const argv[], const char *tmp)
{
	struct proc_opts o = { .log_path = tmp, .timeout_s = 30 };
	struct proc_result pr;
	struct buf b;

	buf_init(&b, 1 << 16);
	if (!proc_run(&pr, argv, &o) && !pr.exec_failed &&
	    !buf_read_file(&b, tmp))
		buf_printf(out, "%s: %.*s\n", label,
			   (int)strcspn(buf_str(&b), "\n"), buf_str(&b));
	else
		buf_printf(out, "%s: not found\n", label);
	buf_release(&b);
	unlink(tmp);
}

int artifacts_toolchain(const char *path)
{
	static const char *const gcc[] = { "gcc", "--version", NULL };
	static const char *const ld[] = { "ld", "--version", NULL };
	static const char *const make[] = { "make", "--version", NULL };
	static const char *const dpkg[] = { "dpkg-deb", "--version", NULL };
	static const char *const rpm[] = { "rpmbuild", "--version", NULL };
	char *tmp = util_fmt("%s.tmp", path);
	struct buf b;
	int rc;

	if (!tmp)
		return err_set(ERR_NOMEM, "out of memory");
	buf_init(&b, 1 << 16);
	first_line_of(&b, "gcc", gcc, tmp);
	first_line_of(&b, "ld", ld, tmp);
	first_line_of(&b, "make", make, tmp);
	first_line_of(&b, "dpkg-deb", dpkg, tmp);
	first_line_of(&b, "rpmbuild", rpm, tmp);
	rc = util_write_atomic(path, b.ptr, b.len);
	buf_release(&b);
	free(tmp);
	return rc;
}

/* The package file whose name starts with prefix and ends with suffix. */
static const char *find(const struct package_result *r, const char *prefix,
			const char *suffix)
{
	size_t i;

	for (i = 0; i < r->nfiles; i++) {
		size_t l = strlen(r->files[i]), sl = strlen(suffix);

		if (!strncmp(r->files[i], prefix, strlen(prefix)) && l > sl &&
		    !strcmp(r->files[i] + l - sl, suffix))
			return r->files[i];
	}
	return NULL;
}

const char *artifacts_kernel_file(const struct package_result *r, int rpm)
{
	char prefix[256];

	/* without a release (a build's kernel.release), no file is the
	 * kernel's: a package named linux-image-_ is not */
	if (!r->release || (rpm && !r->rpm_version))
		return NULL;
	if (!rpm) {
		snprintf(prefix, sizeof(prefix), "linux-image-%s_", r->release);
		return find(r, prefix, ".deb");
	}
	/* the kernel itself, not kernel-headers */
	snprintf(prefix, sizeof(prefix), "kernel-%s-", r->rpm_version);
	return find(r, prefix, ".rpm");
}

/*
 * The lines that add the build's suite of the signed APT repository to
 * a machine's sources, and install the kernel from it.
 */
static void apt_lines(struct buf *b, const struct download_info *d)
{
	static const char ring[] = "/usr/share/keyrings/"
				   "bisectd-archive-keyring.gpg";

	if (!d->apt_url || !d->apt_suite)
		return;
	buf_puts(b, "<p>Or from the farm's signed APT repository (its key's "
		    "fingerprint is <code>");
	buf_put_escaped(b, d->apt_fpr ? d->apt_fpr : "");
	buf_printf(b, "</code>):</p>\n<pre>sudo curl -fsSLo %s ", ring);
	buf_put_escaped(b, d->apt_key_url);
	buf_printf(b, "\necho \"deb [signed-by=%s] ", ring);
	buf_put_escaped(b, d->apt_url);
	buf_puts(b, " ");
	buf_put_escaped(b, d->apt_suite);
	buf_puts(b, " main\" | sudo tee /etc/apt/sources.list.d/");
	buf_put_escaped(b, d->apt_suite);
	buf_puts(b, ".list\nsudo apt update\nsudo apt install linux-image-");
	buf_put_escaped(b, d->packages->release);
	buf_puts(b, "</pre>\n");
	if (!d->apt_channel)
		return;
	buf_puts(b, "<p>The suite <code>");
	buf_put_escaped(b, d->apt_channel);
	buf_puts(b, "</code> in place of <code>");
	buf_put_escaped(b, d->apt_suite);
	buf_puts(b, "</code> follows the channel: a later build on it "
		    "replaces this one there (install the later kernel by "
		    "its own name, from its page).</p>\n");
}

/* The .repo file that adds the build's RPM repository to dnf. */
static void rpm_lines(struct buf *b, const struct download_info *d)
{
	const char *name = d->apt_channel ? d->apt_channel : d->apt_suite;

	if (!d->rpm_url || !d->apt_suite)
		return;
	buf_puts(b, "<p>Or from the farm's signed RPM repository (packages "
		    "and metadata signed by the key above):</p>\n"
		    "<pre>sudo tee /etc/yum.repos.d/");
	buf_put_escaped(b, d->apt_suite);
	buf_puts(b, ".repo &lt;&lt;'EOF'\n[");
	buf_put_escaped(b, d->apt_suite);
	buf_puts(b, "]\nname=bisectd build ");
	buf_put_escaped(b, d->apt_suite);
	buf_puts(b, "\nbaseurl=");
	buf_put_escaped(b, d->rpm_url);
	buf_puts(b, "/");
	buf_put_escaped(b, d->apt_suite);
	buf_puts(b, "\ngpgcheck=1\nrepo_gpgcheck=1\ngpgkey=");
	buf_put_escaped(b, d->rpm_key_url);
	buf_puts(b, "\nEOF\nsudo dnf install kernel-");
	buf_put_escaped(b, d->packages->rpm_version ? d->packages->rpm_version
						    : "");
	buf_puts(b, "</pre>\n");
	if (!d->apt_channel)
		return;
	buf_puts(b, "<p>With <code>");
	buf_put_escaped(b, name);
	buf_puts(b, "</code> in the baseurl in place of the build's name, "
		    "it follows the channel.</p>\n");
}

int artifacts_page(struct buf *b, const struct download_info *d)
{
	const struct package_result *r = d->packages;
	const char *image = artifacts_kernel_file(r, 0);
	const char *rpm = artifacts_kernel_file(r, 1);
	size_t i;

	buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		    "<meta charset=\"utf-8\">\n<title>Kernel ");
	buf_put_escaped(b, r->release ? r->release : "");
	buf_puts(b, "</title>\n<style>body{font:15px/1.5 system-ui,sans-serif;"
		    "max-width:60em;margin:1em auto;padding:0 1em}"
		    "pre{background:#f4f4f4;padding:.6em;overflow-x:auto}"
		    "code{font-family:ui-monospace,monospace}</style>\n"
		    "</head>\n<body>\n<h1>Kernel ");
	buf_put_escaped(b, r->release ? r->release : "");
	buf_puts(b, "</h1>\n<p>");
	buf_put_escaped(b, d->what);
	buf_puts(b, "</p>\n<h2>Files</h2>\n<ul>\n");
	for (i = 0; i < r->nfiles; i++) {
		buf_puts(b, "<li><a href=\"");
		buf_put_escaped(b, d->link_prefix);
		buf_put_escaped(b, r->files[i]);
		buf_puts(b, "\">");
		buf_put_escaped(b, r->files[i]);
		buf_puts(b, "</a></li>\n");
	}
	buf_puts(b, "<li><a href=\"");
	buf_put_escaped(b, d->link_prefix);
	buf_puts(b,
		 "SHA256SUMS\">SHA256SUMS</a>: check with "
		 "<code>sha256sum -c --ignore-missing SHA256SUMS</code></li>\n"
		 "</ul>\n");
	buf_printf(b,
		   "<p>Smoke test: the kernel booted in QEMU with the "
		   "%s recipe: <strong>",
		   d->recipe);
	buf_put_escaped(b, d->smoke);
	buf_puts(b, "</strong>.</p>\n");
	if (d->install) {
		buf_puts(b, "<p>Install test: ");
		buf_put_escaped(b, d->install);
		buf_puts(b, "</p>\n");
	}
	if (image) {
		buf_puts(b, "<h2>Debian and Ubuntu</h2>\n<p>It installs beside "
			    "your own kernel and never replaces it.  Install "
			    "the image only (not linux-libc-dev):</p>\n<pre>"
			    "sudo apt install ./");
		buf_put_escaped(b, image);
		buf_puts(b, "</pre>\n");
		apt_lines(b, d);
		buf_puts(b, "<p>Reboot, choose it in the boot menu "
			    "(GRUB's \"Advanced options\") if it is not the "
			    "default, and check:</p>\n<pre>uname -r    # ");
		buf_put_escaped(b, r->release);
		buf_puts(b, "</pre>\n<p>To remove it, booted into another "
			    "kernel:</p>\n<pre>sudo apt remove linux-image-");
		buf_put_escaped(b, r->release);
		buf_puts(b, "</pre>\n");
	}
	if (rpm) {
		buf_puts(b, "<h2>Fedora and other RPM distributions</h2>\n<p>"
			    "Install it beside the distribution's kernels (its "
			    "version sorts below theirs):</p>\n<pre>"
			    "sudo rpm -ivh ");
		buf_put_escaped(b, rpm);
		buf_puts(b, "</pre>\n");
		rpm_lines(b, d);
		buf_puts(b, "<p>Check after rebooting into it:</p>\n"
			    "<pre>uname -r</pre>\n<p>To remove it:</p>\n"
			    "<pre>sudo rpm -e kernel-");
		buf_put_escaped(b, r->rpm_version ? r->rpm_version : "");
		buf_puts(b, "</pre>\n");
	}
	buf_puts(b, "<h2>Secure Boot</h2>\n<p>Check whether it is on:</p>\n"
		    "<pre>mokutil --sb-state</pre>\n<p>");
	if (d->signed_with) {
		buf_puts(b, "This kernel is signed with a Machine Owner Key: "
			    "enroll its certificate (<a href=\"");
		buf_put_escaped(b, d->link_prefix);
		buf_put_escaped(b, d->signed_with);
		buf_puts(b, "\">");
		buf_put_escaped(b, d->signed_with);
		buf_puts(b, "</a>) once with <code>sudo mokutil --import ");
		buf_put_escaped(b, d->signed_with);
		buf_puts(b, "</code>, reboot and confirm it in MokManager; "
			    "then it boots with Secure Boot on.");
	} else
		buf_puts(b, "This kernel is not signed.  With Secure Boot on, "
			    "it will not boot: turn Secure Boot off in the "
			    "firmware settings to test it, or ask for a build "
			    "signed with a Machine Owner Key (MOK) that you "
			    "enroll with <code>mokutil --import</code>.");
	buf_puts(b, "</p>\n</body>\n</html>\n");
	return 0;
}
