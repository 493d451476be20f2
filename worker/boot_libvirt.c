/*
 * Booting through libvirt instead of spawning QEMU: the same direct
 * kernel boot, as a transient domain on any libvirt URI (qemu:///system,
 * or a remote one such as qemu+ssh://host/system).  The only file that
 * includes libvirt.h.
 *
 * Design.  The domain is created paused and destroyed automatically when
 * the connection closes; its serial console is a pty that this process
 * reads through a libvirt stream (so it works the same on a remote
 * host), opened before the domain is resumed so that no line is lost.
 * The guest's reboot or power-off destroys the domain, which ends the
 * stream: that is BOOT_EXITED.  At the boot timeout the domain is
 * destroyed: BOOT_TIMEOUT.  A domain that cannot be created is
 * BOOT_NOT_STARTED with libvirt's reason.  The kernel and initramfs are
 * named by path: on a remote URI they must be at the same path there.
 *
 * What made libvirt slow here: it checks, on every capability lookup,
 * whether KVM is usable by its QEMU user (libvirt-qemu), and when that
 * answer differs from the one its cached capabilities were probed with,
 * it throws the cache away and probes QEMU again, twice (with KVM, then
 * TCG), about 4 s under TCG.  On a host without udev /dev/kvm stays
 * root:root 0600, the answers never agree, and the ~11 lookups of one
 * domain start cost 44 s.  With /dev/kvm group kvm, mode 0660 (Debian's
 * udev rule) the cache holds and a domain starts in 0.2 s.  See
 * boot_libvirt_check().
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "error.h"
#include "util.h"
#include "boot.h"

struct reader {
	virStreamPtr st;
	struct buf *con;
	int fd;
	int done;
	pthread_mutex_t lock;
};

static const char *virt_msg(void)
{
	virErrorPtr e = virGetLastError();

	return e && e->message ? e->message : "unknown libvirt error";
}

static void *read_console(void *arg)
{
	struct reader *rd = arg;
	char chunk[4096];
	int n;

	while ((n = virStreamRecv(rd->st, chunk, sizeof(chunk))) > 0) {
		pthread_mutex_lock(&rd->lock);
		buf_put(rd->con, chunk, (size_t)n);
		pthread_mutex_unlock(&rd->lock);
		if (rd->fd >= 0 && write(rd->fd, chunk, (size_t)n) < 0)
			rd->fd = -1;
	}
	pthread_mutex_lock(&rd->lock);
	rd->done = 1;
	pthread_mutex_unlock(&rd->lock);
	return NULL;
}

static char *domain_xml(const struct recipe *r, const char *kernel,
			const char *initrd)
{
	static unsigned counter;
	struct buf b;
	char *args, *tok, *save = NULL, *cmdline = recipe_cmdline(r);

	if (!cmdline)
		return NULL;
	buf_init(&b, 1 << 20);
	buf_printf(&b,
		   "<domain type='qemu' "
		   "xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>\n"
		   "  <name>bisectd-%d-%u</name>\n"
		   "  <memory unit='MiB'>%d</memory>\n"
		   "  <vcpu>%d</vcpu>\n"
		   "  <os>\n"
		   "    <type arch='x86_64' machine='pc'>hvm</type>\n"
		   "    <kernel>",
		   (int)getpid(), ++counter, r->memory_mb, r->cpus);
	buf_put_escaped(&b, kernel);
	buf_puts(&b, "</kernel>\n    <initrd>");
	buf_put_escaped(&b, initrd);
	buf_puts(&b, "</initrd>\n    <cmdline>");
	buf_put_escaped(&b, cmdline);
	free(cmdline);
	buf_puts(&b, "</cmdline>\n  </os>\n"
		     "  <features><acpi/></features>\n"
		     "  <on_poweroff>destroy</on_poweroff>\n"
		     "  <on_reboot>destroy</on_reboot>\n"
		     "  <on_crash>destroy</on_crash>\n"
		     "  <devices>\n"
		     "    <serial type='pty'><target port='0'/></serial>\n"
		     "    <console type='pty'><target type='serial' "
		     "port='0'/></console>\n"
		     "    <memballoon model='none'/>\n"
		     "  </devices>\n");
	args = r->qemu_args ? strdup(r->qemu_args) : NULL;
	if (args && *args) {
		buf_puts(&b, "  <qemu:commandline>\n");
		for (tok = strtok_r(args, " ", &save); tok;
		     tok = strtok_r(NULL, " ", &save)) {
			buf_puts(&b, "    <qemu:arg value='");
			buf_put_escaped(&b, tok);
			buf_puts(&b, "'/>\n");
		}
		buf_puts(&b, "  </qemu:commandline>\n");
	}
	free(args);
	buf_puts(&b, "</domain>\n");
	return buf_detach(&b);
}

static void quiet(void *data, virErrorPtr e)
{
	(void)data;
	(void)e; /* errors are read with virGetLastError */
}

int boot_libvirt_check(const char *uri, struct buf *notes)
{
	struct stat st;

	if (strcmp(uri, "qemu:///system"))
		return 0;
	if (stat("/dev/kvm", &st) == 0 && (st.st_mode & 0060) != 0060)
		buf_printf(notes,
			   "warning: /dev/kvm is mode %03o: libvirt's QEMU "
			   "user cannot open it, so libvirt probes QEMU again "
			   "on every call (tens of seconds per boot); give it "
			   "group kvm, mode 0660, as Debian's udev rule does\n",
			   (unsigned)(st.st_mode & 0777));
	return 0;
}

int boot_libvirt_run(struct boot_result *out, const struct recipe *r,
		     const char *uri, const char *kernel, const char *initrd,
		     const char *console_log)
{
	struct reader rd = { .fd = -1, .lock = PTHREAD_MUTEX_INITIALIZER };
	virConnectPtr conn;
	virDomainPtr dom = NULL;
	pthread_t thread;
	struct buf con;
	char *xml;
	double t0 = util_now();
	int started = 0;

	memset(out, 0, sizeof(*out));
	out->accel = "tcg";
	buf_init(&con, 16u << 20);
	rd.con = &con;
	virSetErrorFunc(NULL, quiet);
	conn = virConnectOpen(uri);
	if (!conn) {
		out->end = BOOT_NOT_STARTED;
		out->why = util_fmt("libvirt %s: %s", uri, virt_msg());
		out->console = buf_detach_text(&con);
		return 0;
	}
	xml = domain_xml(r, kernel, initrd);
	dom = xml ? virDomainCreateXML(conn, xml,
				       VIR_DOMAIN_START_PAUSED |
					       VIR_DOMAIN_START_AUTODESTROY)
		  : NULL;
	free(xml);
	if (dom && (rd.st = virStreamNew(conn, 0)) &&
	    virDomainOpenConsole(dom, NULL, rd.st, VIR_DOMAIN_CONSOLE_FORCE) ==
		    0) {
		unlink(console_log);
		rd.fd = open(console_log,
			     O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		started = pthread_create(&thread, NULL, read_console, &rd) == 0;
	}
	if (!started || virDomainResume(dom) < 0) {
		out->end = BOOT_NOT_STARTED;
		out->why = util_fmt("libvirt %s: %s", uri, virt_msg());
		if (dom)
			virDomainDestroy(dom);
	} else {
		for (;;) {
			struct timespec ts = { 0, 100 * 1000 * 1000 };
			int done;

			pthread_mutex_lock(&rd.lock);
			done = rd.done;
			pthread_mutex_unlock(&rd.lock);
			if (done) {
				out->end = BOOT_EXITED;
				break;
			}
			if (util_now() - t0 > r->boot_timeout) {
				out->end = BOOT_TIMEOUT;
				virDomainDestroy(dom);
				break;
			}
			nanosleep(&ts, NULL);
		}
	}
	/* a guest that ended is being torn down: wait until it is gone, so
	 * that no domain outlives the boot (an error when it already is) */
	if (dom && out->end == BOOT_EXITED)
		virDomainDestroy(dom);
	if (started) {
		virStreamAbort(rd.st);
		pthread_join(thread, NULL);
	}
	out->seconds = util_now() - t0;
	if (rd.fd >= 0)
		close(rd.fd);
	if (rd.st)
		virStreamFree(rd.st);
	if (dom)
		virDomainFree(dom);
	virConnectClose(conn);
	out->console = buf_detach_text(&con);
	return 0;
}
