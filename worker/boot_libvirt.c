// SPDX-License-Identifier: GPL-2.0-only
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
 * BOOT_NOT_STARTED with libvirt's reason.
 *
 * On a URI that names a host (qemu+tcp://host/system, qemu+ssh://...),
 * the kernel and initramfs are uploaded first, through libvirt's storage
 * API: a volume each in the storage pool $BISECTD_LIBVIRT_POOL (default
 * "bisectd", a directory pool at /var/lib/libvirt/bisectd defined on
 * first use), named after this host and process, deleted after the boot.
 * Volumes that a dead process of this host left behind are deleted before
 * an upload.  A local URI boots the files where they are.
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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "error.h"
#include "log.h"
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

/* A URI that names a host: the files must be sent there. */
static int remote_uri(const char *uri)
{
	const char *p = strstr(uri, "://");

	return p && p[3] && p[3] != '/';
}

#define POOL_DIR "/var/lib/libvirt/bisectd"

static virStoragePoolPtr open_pool(virConnectPtr conn, const char *name)
{
	virStoragePoolPtr pool = virStoragePoolLookupByName(conn, name);
	struct buf b;
	int tries;

	/* (two workers may define it at once: one wins, both use it) */
	for (tries = 0; !pool && tries < 2; tries++) {
		buf_init(&b, 4096);
		buf_puts(&b, "<pool type='dir'><name>");
		buf_put_escaped(&b, name);
		buf_puts(&b, "</name><target><path>" POOL_DIR
			     "</path><permissions><mode>0755</mode>"
			     "</permissions></target></pool>");
		pool = virStoragePoolDefineXML(conn, b.ptr ? b.ptr : "", 0);
		buf_release(&b);
		if (pool && (virStoragePoolBuild(pool, 0) < 0 ||
			     virStoragePoolSetAutostart(pool, 1) < 0)) {
			virStoragePoolFree(pool);
			pool = NULL;
		}
		if (!pool)
			pool = virStoragePoolLookupByName(conn, name);
	}
	if (pool && !virStoragePoolIsActive(pool) &&
	    virStoragePoolCreate(pool, 0) < 0 &&
	    !virStoragePoolIsActive(pool)) {
		virStoragePoolFree(pool);
		pool = NULL;
	}
	return pool;
}

/* Volumes named PREFIX-PID-... of a process of this host that is gone. */
static void sweep(virStoragePoolPtr pool, const char *prefix)
{
	virStorageVolPtr *vols = NULL;
	size_t len = strlen(prefix);
	int i, n = virStoragePoolListAllVolumes(pool, &vols, 0);

	for (i = 0; i < n; i++) {
		const char *name = virStorageVolGetName(vols[i]);
		char *end;
		long pid;

		if (name && !strncmp(name, prefix, len) && name[len] == '-') {
			pid = strtol(name + len + 1, &end, 10);
			if (pid > 0 && *end == '-' && kill((pid_t)pid, 0) < 0 &&
			    errno == ESRCH)
				virStorageVolDelete(vols[i], 0);
		}
		virStorageVolFree(vols[i]);
	}
	free(vols);
}

static int send_chunk(virStreamPtr st, char *bytes, size_t n, void *opaque)
{
	ssize_t got;

	(void)st;
	do
		got = read(*(int *)opaque, bytes, n);
	while (got < 0 && errno == EINTR);
	return (int)got;
}

/*
 * path as a new volume of pool named name; NULL with libvirt's reason in
 * *why.
 */
static virStorageVolPtr upload(virConnectPtr conn, virStoragePoolPtr pool,
			       const char *name, const char *path, char **why)
{
	virStorageVolPtr vol = NULL;
	virStreamPtr st = NULL;
	struct stat sb;
	struct buf b;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok = 0;

	if (fd < 0 || fstat(fd, &sb) < 0) {
		*why = util_fmt("%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	buf_init(&b, 4096);
	buf_puts(&b, "<volume><name>");
	buf_put_escaped(&b, name);
	buf_printf(&b,
		   "</name><capacity unit='bytes'>%lld</capacity>"
		   "<target><format type='raw'/><permissions><mode>0644</mode>"
		   "</permissions></target></volume>",
		   (long long)sb.st_size);
	vol = virStorageVolCreateXML(pool, b.ptr ? b.ptr : "", 0);
	buf_release(&b);
	if (vol && (st = virStreamNew(conn, 0)) &&
	    virStorageVolUpload(vol, st, 0, (unsigned long long)sb.st_size,
				0) == 0) {
		if (virStreamSendAll(st, send_chunk, &fd) == 0)
			ok = virStreamFinish(st) == 0;
		else
			virStreamAbort(st);
	}
	if (!ok)
		*why = util_fmt("uploading %s: %s", path, virt_msg());
	if (st)
		virStreamFree(st);
	close(fd);
	if (!ok && vol) {
		virStorageVolDelete(vol, 0);
		virStorageVolFree(vol);
		vol = NULL;
	}
	return vol;
}

struct uploaded {
	virStorageVolPtr vol[2];
	char *path[2];
};

/*
 * The kernel and initramfs into the pool at conn's host: their paths
 * there in up->path; 0, or -1 with the reason in *why.
 */
static int upload_files(struct uploaded *up, virConnectPtr conn,
			const char *uri, const char *kernel, const char *initrd,
			char **why)
{
	static unsigned counter;
	const char *name = getenv("BISECTD_LIBVIRT_POOL");
	const char *files[2] = { kernel, initrd },
		   *what[2] = { "kernel", "initrd" };
	char host[64] = "", *prefix, *vname;
	virStoragePoolPtr pool;
	double t0 = util_now();
	int i;

	if (!name || !*name)
		name = "bisectd";
	gethostname(host, sizeof(host) - 1);
	for (i = 0; host[i]; i++)
		if (host[i] == '-' || host[i] == '.')
			host[i] = '_';
	pool = open_pool(conn, name);
	if (!pool) {
		*why = util_fmt("libvirt %s: storage pool %s: %s", uri, name,
				virt_msg());
		return -1;
	}
	prefix = util_fmt("bisectd-%s", host);
	if (prefix)
		sweep(pool, prefix);
	counter++;
	for (i = 0; i < 2 && !*why; i++) {
		vname = util_fmt("%s-%d-%u-%s", prefix ? prefix : "bisectd",
				 (int)getpid(), counter, what[i]);
		up->vol[i] =
			vname ? upload(conn, pool, vname, files[i], why) : NULL;
		up->path[i] =
			up->vol[i] ? virStorageVolGetPath(up->vol[i]) : NULL;
		if (up->vol[i] && !up->path[i])
			*why = util_fmt("libvirt %s: %s", uri, virt_msg());
		if (!vname)
			*why = util_fmt("out of memory");
		free(vname);
	}
	if (!*why)
		log_info("kernel and initramfs uploaded to %s (pool %s) in "
			 "%.1f s",
			 uri, name, util_now() - t0);
	free(prefix);
	virStoragePoolFree(pool);
	return *why ? -1 : 0;
}

static void uploaded_release(struct uploaded *up)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (up->vol[i]) {
			virStorageVolDelete(up->vol[i], 0);
			virStorageVolFree(up->vol[i]);
		}
		free(up->path[i]);
	}
	memset(up, 0, sizeof(*up));
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
	struct uploaded up;
	pthread_t thread;
	struct buf con;
	char *xml;
	double t0 = util_now();
	int started = 0;

	memset(out, 0, sizeof(*out));
	memset(&up, 0, sizeof(up));
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
	if (remote_uri(uri) &&
	    upload_files(&up, conn, uri, kernel, initrd, &out->why) < 0) {
		out->end = BOOT_NOT_STARTED;
		out->console = buf_detach_text(&con);
		uploaded_release(&up);
		virConnectClose(conn);
		return 0;
	}
	xml = domain_xml(r, up.path[0] ? up.path[0] : kernel,
			 up.path[1] ? up.path[1] : initrd);
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
	uploaded_release(&up);
	virConnectClose(conn);
	out->console = buf_detach_text(&con);
	return 0;
}
