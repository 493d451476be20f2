// SPDX-License-Identifier: GPL-2.0-only
/*
 * Booting a kernel in QEMU: direct kernel boot with the step's initramfs,
 * the serial console to a log file, a hard timeout, and KVM only when a
 * probe shows that a KVM guest really runs on this host.
 *
 * The probe boots the first kernel of the process under KVM and looks for
 * any console output within PROBE_TIMEOUT seconds.  A guest that printed
 * anything ran (even if it then crashed); on a host where /dev/kvm exists
 * but guests hang, nothing is printed and every later boot uses TCG.  A
 * real-mode firmware probe is not enough: such hosts run real-mode code
 * under KVM and hang later, on the way to long mode.  The answer is saved
 * in the cache with the host's boot id, so that it is probed once per
 * host boot, not once per command.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "log.h"
#include "util.h"
#include "boot.h"

#define PROBE_TIMEOUT 10
#define MAX_ARGS 64

static int kvm_state = -1;

static int run_qemu(struct proc_result *pr, const struct recipe *r, int kvm,
		    const char *kernel, const char *initrd,
		    const char *console_log, const char *qemu_log,
		    double timeout);

/* The path of the probe's saved result: it holds "<boot id> <0|1>". */
static char *probe_state_path(void)
{
	char *cache = util_cache_dir(), *path;

	path = cache ? util_fmt("%s/kvm-probe", cache) : NULL;
	free(cache);
	return path;
}

/* This boot's id, so that a saved probe result dies with the boot. */
static void boot_id(char *out, size_t size)
{
	struct buf b;

	buf_init(&b, 256);
	snprintf(out, size, "unknown");
	if (!buf_read_file(&b, "/proc/sys/kernel/random/boot_id"))
		snprintf(out, size, "%.*s", (int)strcspn(buf_str(&b), "\n"),
			 buf_str(&b));
	buf_release(&b);
}

static int saved_probe(const char *path, const char *id)
{
	size_t n = strlen(id);
	const char *line;
	struct buf b;
	int state = -1;

	if (!path)
		return -1;
	buf_init(&b, 4096);
	if (!buf_read_file(&b, path)) {
		line = buf_str(&b);
		if (!strncmp(line, id, n) && line[n] == ' ')
			state = atoi(line + n + 1) ? 1 : 0;
	}
	buf_release(&b);
	return state;
}

static int probe(const struct recipe *r, const char *kernel, const char *initrd,
		 const char *scratch_log)
{
	struct proc_result pr;
	struct stat st;
	int ok = 0;

	unlink(scratch_log);
	if (!run_qemu(&pr, r, 1, kernel, initrd, scratch_log, "/dev/null",
		      PROBE_TIMEOUT) &&
	    !stat(scratch_log, &st) && st.st_size > 0)
		ok = 1;
	unlink(scratch_log);
	return ok;
}

int boot_kvm_usable(const struct recipe *r, const char *kernel,
		    const char *initrd, const char *scratch_log)
{
	char id[80], line[128], *path;
	const char *how = "";

	if (kvm_state >= 0)
		return kvm_state;
	kvm_state = 0;
	if (getenv("BISECTD_NO_KVM")) {
		log_info("KVM disabled by BISECTD_NO_KVM; using TCG");
		return 0;
	}
	if (access("/dev/kvm", R_OK | W_OK)) {
		log_info("/dev/kvm not usable; using TCG");
		return 0;
	}
	path = probe_state_path();
	boot_id(id, sizeof(id));
	kvm_state = saved_probe(path, id);
	if (kvm_state < 0) {
		kvm_state = probe(r, kernel, initrd, scratch_log);
		snprintf(line, sizeof(line), "%s %d\n", id, kvm_state);
		if (path)
			util_write_atomic(path, line, strlen(line));
	} else {
		how = " (probed earlier since this host booted)";
	}
	free(path);
	if (kvm_state)
		log_info("a KVM guest printed to its console%s; using KVM",
			 how);
	else
		log_info("/dev/kvm exists but a KVM guest printed nothing "
			 "within %d s%s; using TCG",
			 PROBE_TIMEOUT, how);
	return kvm_state;
}

/* Split s on spaces into argv slots; returns the new count. */
static size_t split_args(const char **argv, size_t n, char *s)
{
	char *tok, *save = NULL;

	for (tok = strtok_r(s, " \t", &save); tok && n < MAX_ARGS - 1;
	     tok = strtok_r(NULL, " \t", &save))
		argv[n++] = tok;
	return n;
}

static int run_qemu(struct proc_result *pr, const struct recipe *r, int kvm,
		    const char *kernel, const char *initrd,
		    const char *console_log, const char *qemu_log,
		    double timeout)
{
	const char *argv[MAX_ARGS];
	char mem[16], cpus[16], *append, *serial, *extra;
	struct proc_opts o = { .log_path = qemu_log, .timeout_s = timeout };
	size_t n = 0;
	int rc;

	snprintf(mem, sizeof(mem), "%d", r->memory_mb);
	snprintf(cpus, sizeof(cpus), "%d", r->cpus);
	append = recipe_cmdline(r);
	serial = util_fmt("file:%s", console_log);
	extra = strdup(r->qemu_args);
	if (!append || !serial || !extra) {
		rc = err_set(ERR_NOMEM, "out of memory");
		goto out;
	}
	argv[n++] = r->qemu;
	argv[n++] = "-nodefaults";
	argv[n++] = "-display";
	argv[n++] = "none";
	argv[n++] = "-no-reboot";
	argv[n++] = "-accel";
	argv[n++] = kvm ? "kvm" : "tcg";
	if (kvm) {
		argv[n++] = "-cpu";
		argv[n++] = "host";
	}
	argv[n++] = "-m";
	argv[n++] = mem;
	argv[n++] = "-smp";
	argv[n++] = cpus;
	argv[n++] = "-kernel";
	argv[n++] = kernel;
	argv[n++] = "-initrd";
	argv[n++] = initrd;
	argv[n++] = "-append";
	argv[n++] = append;
	argv[n++] = "-serial";
	argv[n++] = serial;
	n = split_args(argv, n, extra);
	argv[n] = NULL;
	rc = proc_run(pr, argv, &o);
out:
	free(append);
	free(serial);
	free(extra);
	return rc;
}

/* The first line QEMU printed, or a note that it printed nothing. */
static char *first_line(const char *path)
{
	struct buf b;
	char *s;

	buf_init(&b, 64 * 1024);
	if (buf_read_file(&b, path) || !b.len)
		s = strdup("it exited without a message");
	else
		s = strndup(buf_str(&b), strcspn(buf_str(&b), "\n"));
	buf_release(&b);
	return s;
}

int boot_run(struct boot_result *out, const struct recipe *r,
	     const char *kernel, const char *initrd, const char *console_log,
	     const char *qemu_log)
{
	const char *uri = getenv("BISECTD_LIBVIRT_URI");

	if (uri && *uri)
		return boot_libvirt_run(out, r, uri, kernel, initrd,
					console_log);
	return boot_qemu(out, r, kernel, initrd, console_log, qemu_log);
}

int boot_qemu(struct boot_result *out, const struct recipe *r,
	      const char *kernel, const char *initrd, const char *console_log,
	      const char *qemu_log)
{
	struct proc_result pr;
	struct buf con;
	int kvm, rc;

	kvm = boot_kvm_usable(r, kernel, initrd, console_log);
	memset(out, 0, sizeof(*out));
	out->accel = kvm ? "kvm" : "tcg";
	unlink(console_log);
	rc = run_qemu(&pr, r, kvm, kernel, initrd, console_log, qemu_log,
		      r->boot_timeout);
	if (rc)
		return rc;
	out->seconds = pr.seconds;
	if (pr.timed_out)
		out->end = BOOT_TIMEOUT;
	else if (pr.exec_failed || !pr.exited || pr.status != 0)
		out->end = BOOT_NOT_STARTED;
	else
		out->end = BOOT_EXITED;
	if (pr.exec_failed)
		out->why = strdup(err_last());
	else if (out->end == BOOT_NOT_STARTED)
		out->why = first_line(qemu_log);
	buf_init(&con, 16u << 20);
	if (buf_read_file(&con, console_log) && out->end == BOOT_EXITED)
		out->end = BOOT_NOT_STARTED;
	out->console = buf_detach_text(&con);
	return 0;
}

void boot_result_release(struct boot_result *b)
{
	free(b->console);
	free(b->why);
	b->console = NULL;
	b->why = NULL;
}
