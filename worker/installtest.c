// SPDX-License-Identifier: GPL-2.0-only
/*
 * The install test of a build job: do the packages install, and does the
 * installed kernel boot, as they would on a user's machine?
 *
 * deb.  A Debian 12 root (debootstrap --variant=minbase with
 * initramfs-tools) is made once and kept in the cache as
 * rootfs/debian-12-amd64.  Each test copies it, installs the linux-image
 * .deb with dpkg -i (whose postinst has initramfs-tools make the initrd,
 * as on any Debian system), makes an ext4 disk of the copy with
 * mkfs.ext4 -d, and boots that disk on virtio-blk in QEMU with the
 * /boot/vmlinuz and /boot/initrd.img that dpkg installed.  The initrd
 * has to find the disk and mount it; then the guest init on the disk
 * prints the kernel release, the root mount and the loaded modules, and
 * the recipe's marker.  The test passes when the marker came, nothing
 * crashed, and uname -r is the release the packages carry.
 *
 * rpm.  rpm -qp reads the name, version, file list and scriptlets, and
 * the package is installed into an empty scratch root with rpm --root
 * (--noscripts: that root has no shell to run them in).
 *
 * dpkg runs the package's maintainer scripts, which come out of the
 * patched tree: it runs in a bubblewrap sandbox whose / is the copy,
 * with new namespaces (no network), nothing of the host visible, as
 * the copy's root but without any capability (it owns the files).
 *
 * Everything goes to OUT/install: install.log (debootstrap, dpkg,
 * mkinitramfs, mkfs), console.log, qemu.log and rpm.txt; the copy and
 * the disk image are removed when the test ends.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "classify.h"
#include "error.h"
#include "log.h"
#include "util.h"
#include "boot.h"
#include "installtest.h"

#define ROOTFS_NAME "debian-12-amd64"
#define DEFAULT_MIRROR "http://deb.debian.org/debian"
#define DISK_SIZE (2LL << 30)

/* The init on the disk: PID 1 once initramfs-tools ran run-init. */
static const char guest_init[] =
	"#!/bisectd/busybox sh\n"
	"# bisectd install test: PID 1 of the installed Debian system.\n"
	"b=/bisectd/busybox\n"
	"$b mount -t proc proc /proc 2>/dev/null\n"
	"marker=BISECTD-BOOT-OK\n"
	"for a in $($b cat /proc/cmdline); do\n"
	"\tcase \"$a\" in bisectd.marker=*) marker=${a#bisectd.marker=} "
	";; esac\n"
	"done\n"
	"echo \"bisectd-install: uname -r $($b uname -r)\"\n"
	"echo \"bisectd-install: root $($b awk '$2 == \"/\" "
	"{ print $1, $3 }' /proc/mounts)\"\n"
	"echo \"bisectd-install: modules $($b awk '{ printf \"%s \", $1 }' "
	"/proc/modules)\"\n"
	"echo BISECTD-TEST-EXIT=0\n"
	"echo \"$marker\"\n"
	"$b sync\n"
	"$b reboot -f\n";

void install_result_release(struct install_result *r)
{
	free(r->title);
	free(r->uname);
	r->title = r->uname = NULL;
}

/* Run argv with its output appended to log; ERR_INFRA if not started. */
static int run_logged(struct proc_result *pr, const char *const *argv,
		      const char *log, double timeout)
{
	struct proc_opts o = { .log_path = log,
			       .append = 1,
			       .timeout_s = timeout };
	FILE *f = fopen(log, "a");
	size_t i;

	if (f) {
		fputs("$", f);
		for (i = 0; argv[i]; i++)
			fprintf(f, " %s", argv[i]);
		fputs("\n", f);
		fclose(f);
	}
	if (proc_run(pr, argv, &o))
		return ERR_INFRA;
	if (pr->exec_failed)
		return err_set(ERR_INFRA, "cannot run %s: %s", argv[0],
			       err_last());
	return 0;
}

static int ran_ok(const struct proc_result *pr)
{
	return pr->exited && pr->status == 0;
}

/* A command of the test's own (not the package's): failing is infra. */
static int run_host(const char *const *argv, const char *log, double timeout,
		    const char *what)
{
	struct proc_result pr;
	int rc = run_logged(&pr, argv, log, timeout);

	if (!rc && !ran_ok(&pr))
		rc = err_set(ERR_INFRA, "%s failed (see %s)", what, log);
	return rc;
}

int install_rootfs(char **out, const char *cache_dir, const char *log)
{
	const char *mirror = getenv("BISECTD_DEBIAN_MIRROR");
	char *dir = util_fmt("%s/rootfs/%s", cache_dir, ROOTFS_NAME);
	char *tmp = util_fmt("%s/rootfs/%s.partial", cache_dir, ROOTFS_NAME);
	struct stat st;
	int lock = -1, rc = 0;

	*out = NULL;
	if (!dir || !tmp) {
		rc = err_set(ERR_NOMEM, "out of memory");
		goto out;
	}
	if (!mirror || !*mirror)
		mirror = DEFAULT_MIRROR;
	if (stat(dir, &st) == 0)
		goto out;
	if (geteuid() != 0) {
		rc = err_set(ERR_INFRA,
			     "the Debian 12 root for install tests is "
			     "missing, and only root can make it with "
			     "debootstrap (in %s)",
			     dir);
		goto out;
	}
	if ((rc = util_mkdir_p(tmp)) || (lock = util_lock_dir(dir)) < 0) {
		rc = rc ? rc : lock;
		goto out;
	}
	if (stat(dir, &st) == 0) /* made while we waited */
		goto out;
	util_remove_tree(tmp);
	{
		const char *argv[] = { "debootstrap",
				       "--variant=minbase",
				       "--include=initramfs-tools,zstd,kmod",
				       "bookworm",
				       tmp,
				       mirror,
				       NULL };
		char what[512];

		log_info("making the Debian 12 root for install tests in %s "
			 "(once)",
			 dir);
		snprintf(what, sizeof(what), "debootstrap of Debian 12 from %s",
			 mirror);
		rc = run_host(argv, log, 3600, what);
	}
	if (!rc && rename(tmp, dir))
		rc = err_sys(ERR_INFRA, "cannot move '%s'", tmp);
	if (rc)
		util_remove_tree(tmp);
out:
	if (lock >= 0)
		close(lock);
	if (!rc)
		*out = dir;
	else
		free(dir);
	free(tmp);
	return rc;
}

/* A regular file (not a link someone planted) at dir/name. */
static char *regular_file(const char *dir, const char *name)
{
	char *p = util_fmt("%s/%s", dir, name);
	struct stat st;

	if (p && (lstat(p, &st) || !S_ISREG(st.st_mode))) {
		free(p);
		return NULL;
	}
	return p;
}

static int write_file(const char *path, const char *text, mode_t mode)
{
	int rc = util_write_atomic(path, text, strlen(text));

	if (!rc && chmod(path, mode))
		rc = err_sys(ERR_INFRA, "cannot chmod '%s'", path);
	return rc;
}

static int fail(struct install_result *r, enum verdict v, char *title)
{
	if (!title)
		return err_set(ERR_NOMEM, "out of memory");
	if (r->verdict == VERDICT_GOOD) {
		r->verdict = v;
		free(r->title);
		r->title = title;
	} else {
		free(title);
	}
	return 0;
}

/* Copy the root, put the .deb, busybox and the guest init into it. */
static int prepare_root(const char *rootfs, const char *root, const char *deb,
			const char *log)
{
	const char *cp[] = { "cp", "-a", "--reflink=auto", rootfs, root, NULL };
	char *dir = util_fmt("%s/var/cache/bisectd-install", root);
	char *bb = util_fmt("%s/bisectd", root);
	char *init = util_fmt("%s/bisectd/init", root);
	int rc;

	if (!dir || !bb || !init) {
		rc = err_set(ERR_NOMEM, "out of memory");
		goto out;
	}
	util_remove_tree(root);
	rc = run_host(cp, log, 600, "copying the Debian 12 root");
	if (!rc)
		rc = util_mkdir_p(dir);
	if (!rc)
		rc = util_mkdir_p(bb);
	if (!rc) {
		const char *argv[] = { "cp", deb, dir, NULL };

		rc = run_host(argv, log, 120, "copying the package");
	}
	if (!rc) {
		const char *bbs[] = { "/bin/busybox", "/usr/bin/busybox" };
		const char *src = util_is_executable(bbs[0]) ? bbs[0] : bbs[1];
		const char *argv[] = { "cp", src, bb, NULL };

		rc = run_host(argv, log, 60, "copying busybox");
	}
	if (!rc)
		rc = write_file(init, guest_init, 0755);
out:
	free(dir);
	free(bb);
	free(init);
	return rc;
}

/* dpkg -i in a sandbox whose / is the copied root. */
static int dpkg_install(struct proc_result *pr, const char *root,
			const char *deb, const char *log)
{
	const char *base = strrchr(deb, '/');
	char *inside = util_fmt("/var/cache/bisectd-install/%s",
				base ? base + 1 : deb);
	const char *argv[] = { "bwrap",
			       "--unshare-all",
			       "--die-with-parent",
			       "--new-session",
			       "--uid",
			       "0",
			       "--gid",
			       "0",
			       "--cap-drop",
			       "ALL",
			       "--bind",
			       root,
			       "/",
			       "--proc",
			       "/proc",
			       "--dev",
			       "/dev",
			       "--tmpfs",
			       "/tmp",
			       "--clearenv",
			       "--setenv",
			       "PATH",
			       "/usr/sbin:/usr/bin:/sbin:/bin",
			       "--setenv",
			       "DEBIAN_FRONTEND",
			       "noninteractive",
			       "--setenv",
			       "LANG",
			       "C.UTF-8",
			       "--",
			       "dpkg",
			       "-i",
			       inside,
			       NULL };
	int rc = inside ? run_logged(pr, argv, log, 900)
			: err_set(ERR_NOMEM, "out of memory");

	free(inside);
	return rc;
}

/* An ext4 image of the root, DISK_SIZE sparse bytes. */
static int make_disk(const char *disk, const char *root, const char *log)
{
	const char *argv[] = { "mkfs.ext4", "-q", "-F", "-L", "bisectd-root",
			       "-d",	    root, disk, NULL };
	int fd = open(disk, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return err_sys(ERR_INFRA, "cannot create '%s'", disk);
	if (ftruncate(fd, DISK_SIZE)) {
		close(fd);
		return err_sys(ERR_INFRA, "cannot size '%s'", disk);
	}
	close(fd);
	return run_host(argv, log, 600, "mkfs.ext4 -d");
}

/* The value of the guest's "bisectd-install: KEY VALUE" line. */
static char *guest_line(const char *console, const char *key)
{
	char *needle = util_fmt("bisectd-install: %s ", key), *v = NULL;
	const char *p = needle ? strstr(console, needle) : NULL;

	if (p) {
		p += strlen(needle);
		v = strndup(p, strcspn(p, "\r\n"));
	}
	free(needle);
	return v;
}

/* Boot the disk with the installed kernel and initrd; judge it. */
static int boot_disk(struct install_result *r, const struct install_spec *s,
		     const char *dir, const char *root, const char *disk)
{
	struct recipe rec = *s->recipe;
	char *rel_kernel = util_fmt("boot/vmlinuz-%s", s->release);
	char *rel_initrd = util_fmt("boot/initrd.img-%s", s->release);
	char *kernel = rel_kernel ? regular_file(root, rel_kernel) : NULL;
	char *initrd = rel_initrd ? regular_file(root, rel_initrd) : NULL;
	char *con = util_fmt("%s/console.log", dir);
	char *qlog = util_fmt("%s/qemu.log", dir);
	struct classify_input in = { 0 };
	struct classification c = { 0 };
	struct boot_result b = { 0 };
	const char *alert;
	int rc = 0;

	rec.qemu_args = util_fmt(
		"%s -drive file=%s,format=raw,if=virtio",
		s->recipe->qemu_args ? s->recipe->qemu_args : "", disk);
	rec.append = util_fmt("%s root=/dev/vda rw init=/bisectd/init",
			      s->recipe->append);
	if (!rel_kernel || !rel_initrd || !con || !qlog || !rec.qemu_args ||
	    !rec.append) {
		rc = err_set(ERR_NOMEM, "out of memory");
		goto out;
	}
	if (!kernel) {
		rc = fail(r, VERDICT_BAD,
			  util_fmt("dpkg -i installed no /%s", rel_kernel));
		goto out;
	}
	if (!initrd) {
		rc = fail(r, VERDICT_BAD,
			  util_fmt("initramfs-tools made no /%s", rel_initrd));
		goto out;
	}
	if ((rc = boot_qemu(&b, &rec, kernel, initrd, con, qlog)))
		goto out;
	r->boot_s = b.seconds;
	in.console = b.console;
	in.marker = rec.marker;
	in.fail_on = rec.fail_on;
	in.end = b.end;
	in.timeout_s = rec.boot_timeout;
	if ((rc = classify_console(&c, &in)))
		goto out;
	r->uname = guest_line(b.console, "uname -r");
	alert = strstr(b.console, "ALERT! ");
	if (c.verdict != VERDICT_GOOD && alert)
		/* initramfs-tools' own words: the root never came */
		rc = fail(r, VERDICT_BAD,
			  util_fmt("the installed system's initrd: %.*s",
				   (int)strcspn(alert, "\r\n"), alert));
	else if (c.verdict != VERDICT_GOOD)
		rc = fail(
			r, c.verdict,
			b.why ? util_fmt("the installed kernel: %s: %s",
					 c.title, b.why)
			      : util_fmt("the installed kernel: %s", c.title));
	else if (!r->uname)
		rc = fail(r, VERDICT_BAD,
			  util_fmt("the installed system did not report its "
				   "uname -r"));
	else if (strcmp(r->uname, s->release))
		rc = fail(r, VERDICT_BAD,
			  util_fmt("the installed system runs %s, not %s",
				   r->uname, s->release));
out:
	classification_release(&c);
	boot_result_release(&b);
	free(rec.qemu_args);
	free(rec.append);
	free(rel_kernel);
	free(rel_initrd);
	free(kernel);
	free(initrd);
	free(con);
	free(qlog);
	return rc;
}

static int test_deb(struct install_result *r, const struct install_spec *s,
		    const char *dir)
{
	char *log = util_fmt("%s/install.log", dir);
	char *root = util_fmt("%s/root", dir);
	char *disk = util_fmt("%s/disk.img", dir);
	char *rootfs = NULL;
	struct proc_result pr;
	int rc;

	if (!log || !root || !disk) {
		rc = err_set(ERR_NOMEM, "out of memory");
		goto out;
	}
	rc = install_rootfs(&rootfs, s->cache_dir, log);
	if (!rc)
		rc = prepare_root(rootfs, root, s->deb, log);
	if (!rc)
		rc = dpkg_install(&pr, root, s->deb, log);
	if (rc) {
		rc = fail(r, VERDICT_INFRA, strdup(err_last()));
		goto out;
	}
	if (!ran_ok(&pr)) {
		rc = fail(r, VERDICT_BAD,
			  util_fmt("dpkg -i %s failed (see install.log)",
				   strrchr(s->deb, '/')
					   ? strrchr(s->deb, '/') + 1
					   : s->deb));
		goto out;
	}
	if ((rc = make_disk(disk, root, log))) {
		rc = fail(r, VERDICT_INFRA, strdup(err_last()));
		goto out;
	}
	rc = boot_disk(r, s, dir, root, disk);
	if (rc && rc != ERR_NOMEM)
		rc = fail(r, VERDICT_INFRA, strdup(err_last()));
out:
	if (root)
		util_remove_tree(root);
	if (disk)
		unlink(disk);
	free(rootfs);
	free(log);
	free(root);
	free(disk);
	return rc;
}

/* rpm -q... into buf; nonzero exit is a failed check. */
static int rpm_query(struct buf *out, const char *const *argv,
		     const char *scratch)
{
	struct proc_opts o = { .log_path = scratch, .timeout_s = 120 };
	struct proc_result pr;

	buf_reset(out);
	if (proc_run(&pr, argv, &o) || pr.exec_failed)
		return err_set(ERR_INFRA, "cannot run rpm: %s", err_last());
	if (buf_read_file(out, scratch))
		return ERR_INFRA;
	return ran_ok(&pr) ? 0 : ERR_GENERIC;
}

static int test_rpm(struct install_result *r, const struct install_spec *s,
		    const char *dir)
{
	char *txt = util_fmt("%s/rpm.txt", dir);
	char *scratch = util_fmt("%s/rpm.out", dir);
	char *root = util_fmt("%s/rpmroot", dir);
	char *vmlinuz = util_fmt("/boot/vmlinuz-%s", s->rpm_version);
	struct buf all, q;
	int rc = 0, i;
	static const char *const what[] = { "name and version", "files",
					    "scriptlets" };

	buf_init(&all, 4u << 20);
	buf_init(&q, 4u << 20);
	if (!txt || !scratch || !root || !vmlinuz) {
		rc = err_set(ERR_NOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < 3 && !rc; i++) {
		const char *argv[][6] = {
			{ "rpm", "-qp", "--qf", "%{NAME} %{VERSION}\n", s->rpm,
			  NULL },
			{ "rpm", "-qpl", s->rpm, NULL },
			{ "rpm", "-qp", "--scripts", s->rpm, NULL },
		};

		rc = rpm_query(&q, argv[i], scratch);
		buf_printf(&all, "# rpm -qp: %s\n%s\n", what[i], buf_str(&q));
		if (rc == ERR_GENERIC) {
			rc = fail(r, VERDICT_BAD,
				  util_fmt("rpm -qp cannot read the %s of the "
					   "rpm",
					   what[i]));
			goto out;
		}
		if (rc)
			goto out;
		if (i == 0) {
			char *want = util_fmt("kernel %s", s->rpm_version);

			if (!want)
				rc = err_set(ERR_NOMEM, "out of memory");
			else if (strncmp(buf_str(&q), want, strlen(want)))
				rc = fail(r, VERDICT_BAD,
					  util_fmt("the rpm is '%.*s', not "
						   "'%s'",
						   (int)strcspn(buf_str(&q),
								"\n"),
						   buf_str(&q), want));
			free(want);
		} else if (i == 1 && !strstr(buf_str(&q), vmlinuz)) {
			rc = fail(r, VERDICT_BAD,
				  util_fmt("the rpm has no %s", vmlinuz));
		} else if (i == 2 &&
			   !strstr(buf_str(&q), "postinstall scriptlet")) {
			rc = fail(r, VERDICT_BAD,
				  strdup("the rpm has no postinstall "
					 "scriptlet"));
		}
	}
	if (rc || r->verdict != VERDICT_GOOD)
		goto out;
	util_remove_tree(root);
	{
		const char *init[] = { "rpm", "--root", root, "--initdb",
				       NULL };
		const char *inst[] = {
			"rpm",	    "--root",	   root,   "-i",
			"--nodeps", "--noscripts", s->rpm, NULL
		};
		char *installed = NULL;

		if ((rc = util_mkdir_p(root)) ||
		    (rc = rpm_query(&q, init, scratch)) == ERR_INFRA)
			goto out;
		rc = rpm_query(&q, inst, scratch);
		buf_printf(&all,
			   "# rpm --root ROOT -i --nodeps --noscripts\n%s\n",
			   buf_str(&q));
		if (rc == ERR_INFRA)
			goto out;
		installed = regular_file(root, vmlinuz + 1);
		if (rc || !installed)
			rc = fail(r, VERDICT_BAD,
				  util_fmt("rpm --root did not install %s",
					   vmlinuz));
		free(installed);
	}
out:
	if (txt && all.len)
		util_write_atomic(txt, buf_str(&all), all.len);
	if (scratch)
		unlink(scratch);
	if (root)
		util_remove_tree(root);
	buf_release(&all);
	buf_release(&q);
	free(txt);
	free(scratch);
	free(root);
	free(vmlinuz);
	return rc;
}

int install_check(int deb, int rpm)
{
	static const char *const tools[][2] = {
		{ "debootstrap", "debootstrap" },
		{ "mkfs.ext4", "e2fsprogs" },
		{ "bwrap", "bubblewrap" },
		{ "rpm", "rpm" },
	};
	size_t i;

	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if ((i < 3 ? deb : rpm) && !util_in_path(tools[i][0]))
			return err_set(ERR_INPUT,
				       "the install test needs %s (package "
				       "%s)",
				       tools[i][0], tools[i][1]);
	return 0;
}

int install_test(struct install_result *r, const struct install_spec *s)
{
	char *dir = util_fmt("%s/install", s->out_dir);
	double t0 = util_now();
	int rc;

	memset(r, 0, sizeof(*r));
	r->verdict = VERDICT_GOOD;
	if (!dir)
		return err_set(ERR_NOMEM, "out of memory");
	util_remove_tree(dir);
	rc = util_mkdir_p(dir);
	if (!rc && s->deb)
		rc = test_deb(r, s, dir);
	if (!rc && s->rpm)
		rc = test_rpm(r, s, dir);
	if (rc && rc != ERR_NOMEM)
		rc = fail(r, VERDICT_INFRA, strdup(err_last()));
	if (!r->title)
		r->title = strdup("");
	r->seconds = util_now() - t0;
	free(dir);
	return rc;
}
