// SPDX-License-Identifier: GPL-2.0-only
/*
 * Compile helpers (compile_helpers.h): parsing distcc's host list, probing the
 * helpers, the relay, and the connector distcc runs in its ssh mode.
 *
 * The relay is a child process that owns nothing but its sockets: the
 * helpers' addresses are resolved before it forks (the worker may have
 * threads, and getaddrinfo is not safe after fork), and the relay and
 * the pumps it forks for each connection use only system calls.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "compile_helpers.h"
#include "util.h"

#define DISTCC_PORT "3632"
#define PROBE_MS 2000

/* h->name from host and port (NULL: none): an IPv6 address in
 * brackets.  0, or -1 when it does not fit. */
static int set_name(struct helper *h, const char *host, const char *port)
{
	int v6 = strchr(host, ':') != NULL;

	return snprintf(h->name, sizeof(h->name), "%s%s%s%s%s", v6 ? "[" : "",
			host, v6 ? "]" : "", port ? ":" : "",
			port ? port : "") < (int)sizeof(h->name)
		       ? 0
		       : -1;
}

/*
 * One HOST[:PORT][/LIMIT][,lzo] item of len bytes into h; "what" names
 * it in errors ("distcc host"), defport is its port when none is given.
 */
static int parse_item(struct helper *h, const char *item, size_t len,
		      const char *what, const char *defport)
{
	char s[160], *p, *host = s, *port = NULL, *limit = NULL;
	char *end;
	long v;

	if (len >= sizeof(s))
		return err_set(ERR_INPUT, "%s '%.*s' is too long", what,
			       (int)len, item);
	memcpy(s, item, len);
	s[len] = '\0';
	memset(h, 0, sizeof(*h));
	h->slots = 4; /* distcc's own default */
	if (*s == '[') {
		p = strchr(s, ']');
		if (!p)
			return err_set(ERR_INPUT, "%s '%s': no ']'", what, s);
		host = s + 1;
		*p++ = '\0';
	} else {
		p = s + strcspn(s, ":/");
	}
	if (*p == ':') {
		*p++ = '\0';
		port = p;
		p += strcspn(p, "/");
	}
	if (*p == '/') {
		*p++ = '\0';
		limit = p;
		p += strspn(p, "0123456789");
	}
	if (*p) {
		if (strcmp(p, ",lzo"))
			return err_set(ERR_INPUT,
				       "%s '%.*s': '%s' is not "
				       "HOST[:PORT][/LIMIT][,lzo]",
				       what, (int)len, item, p);
		h->lzo = 1;
	}
	if (!*host || strspn(host, "abcdefghijklmnopqrstuvwxyz"
				   "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789.-:") != strlen(host))
		return err_set(ERR_INPUT, "%s '%.*s': bad host name", what,
			       (int)len, item);
	if (port) {
		v = strtol(port, &end, 10);
		if (*end || end == port || v < 1 || v > 65535)
			return err_set(ERR_INPUT, "%s '%.*s': bad port", what,
				       (int)len, item);
	}
	if (limit) {
		v = strtol(limit, &end, 10);
		if (end == limit || v < 1 || v > 256)
			return err_set(ERR_INPUT,
				       "%s '%.*s': the limit is "
				       "1 to 256 jobs",
				       what, (int)len, item);
		h->slots = (unsigned)v;
	}
	h->local = !strcmp(host, "localhost");
	if (h->local && (port || h->lzo))
		return err_set(ERR_INPUT,
			       "%s '%.*s': localhost takes only "
			       "a limit",
			       what, (int)len, item);
	if (h->local && !limit)
		h->slots = 2;
	snprintf(h->port, sizeof(h->port), "%s", port ? port : defport);
	if (set_name(h, host, port))
		return err_set(ERR_INPUT, "%s '%.*s': name too long", what,
			       (int)len, item);
	return 0;
}

int helpers_parse(struct helpers *hs, const char *spec)
{
	const char *p = spec;
	int rc;

	memset(hs, 0, sizeof(*hs));
	while (*p) {
		size_t len;

		p += strspn(p, " \t,");
		if (!*p)
			break;
		len = strcspn(p, " \t,");
		/* ",lzo" (",cpp", ",auth") belongs to the host before it */
		while (p[len] == ',' && (!strncmp(p + len, ",lzo", 4) ||
					 !strncmp(p + len, ",cpp", 4) ||
					 !strncmp(p + len, ",auth", 5)))
			len += 1 + strcspn(p + len + 1, " \t,");
		if (hs->n == HELPERS_MAX)
			return err_set(ERR_INPUT, "more than %d distcc hosts",
				       HELPERS_MAX);
		rc = parse_item(&hs->h[hs->n], p, len, "distcc host",
				DISTCC_PORT);
		if (rc)
			return rc;
		hs->n++;
		p += len;
	}
	if (!hs->n)
		return err_set(ERR_INPUT, "no distcc host in '%s'", spec);
	return 0;
}

/* --- icecc: the scheduler and its compile servers -------------------- */

#define ICECC_PORT "8765"

int helpers_parse_icecc(struct helpers *hs, const char *spec)
{
	char item[160];
	size_t len;
	int rc;

	memset(hs, 0, sizeof(*hs));
	spec += strspn(spec, " \t");
	len = strlen(spec);
	while (len && (spec[len - 1] == ' ' || spec[len - 1] == '\t'))
		len--;
	if (!len)
		return err_set(ERR_INPUT, "no icecc scheduler");
	if (strcspn(spec, " \t,/") < len)
		return err_set(ERR_INPUT,
			       "icecc scheduler '%.*s' is not HOST[:PORT]",
			       (int)len, spec);
	/* (a scheduler on this machine is no distcc "localhost") */
	if (len >= 9 && !strncmp(spec, "localhost", 9) &&
	    (len == 9 || spec[9] == ':')) {
		snprintf(item, sizeof(item), "127.0.0.1%.*s", (int)(len - 9),
			 spec + 9);
		spec = item;
		len = strlen(item);
	}
	rc = parse_item(&hs->sched, spec, len, "icecc scheduler", ICECC_PORT);
	if (rc)
		return rc;
	/* its text port, whose "listcs" names the compile servers */
	if (atoi(hs->sched.port) >= 65535)
		return err_set(ERR_INPUT,
			       "icecc scheduler '%.*s': bad port (its text "
			       "port is the next one)",
			       (int)len, spec);
	hs->icecc = 1;
	return 0;
}

/* One "listcs" line's server into h: 1, 0 when it takes no jobs, -1
 * when the line cannot be read. */
static int listcs_line(struct helper *h, const char *line, size_t len)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV },
			*ai = NULL;
	char l[512], *open_, *close_, *colon, *jobs;
	unsigned running, max;

	if (len >= sizeof(l))
		return -1;
	memcpy(l, line, len);
	l[len] = '\0';
	open_ = strstr(l, " (");
	close_ = open_ ? strstr(open_, ") ") : NULL;
	jobs = close_ ? strstr(close_, " jobs=") : NULL;
	if (!jobs || sscanf(jobs, " jobs=%u/%u", &running, &max) != 2)
		return -1;
	*open_ = '\0';
	*close_ = '\0';
	colon = strrchr(open_ + 2, ':');
	if (!colon || colon == open_ + 2)
		return -1;
	*colon = '\0';
	memset(h, 0, sizeof(*h));
	snprintf(h->node, sizeof(h->node), "%s", l + strspn(l, " "));
	snprintf(h->port, sizeof(h->port), "%s", colon + 1);
	if (getaddrinfo(open_ + 2, h->port, &hints, &ai))
		return -1;
	memcpy(&h->addr, ai->ai_addr, ai->ai_addrlen);
	h->addrlen = ai->ai_addrlen;
	freeaddrinfo(ai);
	if (set_name(h, open_ + 2, h->port))
		return -1;
	h->slots = max;
	return max > 0;
}

int helpers_parse_listcs(struct helpers *hs, const char *text)
{
	const char *p = text;

	hs->n = 0;
	while (*p) {
		size_t len = strcspn(p, "\n");
		size_t l = len;
		int rc;

		while (l && p[l - 1] == '\r')
			l--;
		/* the greeting and "200 done", blank lines, and the jobs
		 * each server runs (indented further) */
		if (l && strncmp(p, "200", 3) && strncmp(p, "   ", 3)) {
			if (hs->n == HELPERS_MAX)
				break;
			rc = listcs_line(&hs->h[hs->n], p, l);
			if (rc < 0)
				return err_set(ERR_INPUT,
					       "icecc scheduler: cannot read "
					       "its line '%.*s'",
					       (int)(l > 80 ? 80 : l), p);
			hs->n += (size_t)rc;
		}
		p += len + (p[len] == '\n');
	}
	return (int)hs->n;
}

/* The host part of h->name, without brackets, into out. */
static void host_of(const struct helper *h, char *out, size_t size)
{
	const char *s = h->name;
	size_t len;

	if (*s == '[') {
		s++;
		len = strcspn(s, "]");
	} else {
		len = strcspn(s, ":");
	}
	snprintf(out, size, "%.*s", (int)len, s);
}

/*
 * Resolve h's host and connect to port within PROBE_MS: the connected
 * socket, or -1 and why not into why.  h->addr gets the address when
 * port is h's own.
 */
static int dial(struct helper *h, const char *port, char *why, size_t size)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	char host[128];
	struct pollfd pfd;
	int fd, e = 0, rc;
	socklen_t elen = sizeof(e);

	host_of(h, host, sizeof(host));
	rc = getaddrinfo(host, port, &hints, &ai);
	if (rc) {
		snprintf(why, size, "%s", gai_strerror(rc));
		return -1;
	}
	if (port == h->port) {
		memcpy(&h->addr, ai->ai_addr, ai->ai_addrlen);
		h->addrlen = ai->ai_addrlen;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	rc = fd < 0 ? -1 : connect(fd, ai->ai_addr, ai->ai_addrlen);
	e = rc ? errno : 0;
	freeaddrinfo(ai);
	if (fd < 0) {
		snprintf(why, size, "%s", strerror(e));
		return -1;
	}
	if (e == EINPROGRESS) {
		e = 0;
		pfd.fd = fd;
		pfd.events = POLLOUT;
		rc = poll(&pfd, 1, PROBE_MS);
		if (rc == 0)
			e = ETIMEDOUT;
		else if (rc < 0 ||
			 getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &elen))
			e = errno;
	}
	if (e) {
		close(fd);
		snprintf(why, size, "%s", strerror(e));
		return -1;
	}
	return fd;
}

/* Resolve h and connect within PROBE_MS; 0, or why not into why. */
static int probe(struct helper *h, char *why, size_t size)
{
	int fd = dial(h, h->port, why, size);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* --- the relay: runs after fork, system calls only --------------------- */

static volatile sig_atomic_t relay_stop;

static void on_term(int sig)
{
	(void)sig;
	relay_stop = 1;
}

/*
 * Copy ain to b and b to aout until both directions end, passing each
 * end on (a socket is shut down for writing, anything else closed).
 */
static int pump(int ain, int aout, int b)
{
	struct pollfd p[2] = { { ain, POLLIN, 0 }, { b, POLLIN, 0 } };
	const int to[2] = { b, aout };
	char buf[65536];
	int open_in[2] = { 1, 1 };

	while (open_in[0] || open_in[1]) {
		int i;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		for (i = 0; i < 2; i++) {
			ssize_t r, off = 0;

			if (!open_in[i] ||
			    !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			r = read(p[i].fd, buf, sizeof(buf));
			if (r <= 0) {
				open_in[i] = 0;
				p[i].fd = -1;
				if (shutdown(to[i], SHUT_WR))
					close(to[i]);
				continue;
			}
			while (off < r) {
				ssize_t w = write(to[i], buf + off,
						  (size_t)(r - off));

				if (w < 0 && errno == EINTR)
					continue;
				if (w <= 0)
					return -1;
				off += w;
			}
		}
	}
	return 0;
}

static void put_num(char **p, unsigned long v)
{
	char tmp[24];
	int n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while (v /= 10);
	while (n)
		*(*p)++ = tmp[--n];
}

static void relay_main(struct helpers *hs, const int *lfd, const char *counts)
{
	struct pollfd p[HELPERS_MAX];
	size_t i, n = 0, map[HELPERS_MAX];
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	for (i = 0; i < hs->n; i++)
		if (lfd[i] >= 0) {
			p[n].fd = lfd[i];
			p[n].events = POLLIN;
			map[n++] = i;
		}
	while (!relay_stop) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (poll(p, n, 1000) <= 0)
			continue;
		for (i = 0; i < n; i++) {
			struct helper *h = &hs->h[map[i]];
			int c, t;

			if (!(p[i].revents & POLLIN))
				continue;
			c = accept4(p[i].fd, NULL, NULL, SOCK_CLOEXEC);
			if (c < 0)
				continue;
			h->jobs++;
			if (fork() == 0) {
				t = socket(h->addr.ss_family,
					   SOCK_STREAM | SOCK_CLOEXEC, 0);
				if (t >= 0 &&
				    connect(t, (struct sockaddr *)&h->addr,
					    h->addrlen) == 0)
					pump(c, c, t);
				_exit(0);
			}
			close(c);
		}
	}
	{
		char out[HELPERS_MAX * 24], *q = out;
		int fd;

		for (i = 0; i < hs->n; i++) {
			put_num(&q, hs->h[i].jobs);
			*q++ = '\n';
		}
		fd = open(counts, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			  0644);
		/* (a count that cannot be written reads as 0 jobs) */
		if (fd >= 0 && write(fd, out, (size_t)(q - out)) >= 0)
			close(fd);
	}
	_exit(0);
}

/* --- the worker's side ---------------------------------------------------- */

/* A Unix socket listening at path, connectable by the build's user,
 * into *fd; 0, or the error. */
static int listen_at(int *fd, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	if (strlen(path) >= sizeof(sa.sun_path))
		return err_set(ERR_INFRA, "socket path '%s' is too long", path);
	strcpy(sa.sun_path, path);
	unlink(path);
	*fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (*fd < 0 || bind(*fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    chmod(path, 0666) || listen(*fd, 64)) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		return err_sys(ERR_INFRA, "cannot listen at '%s'", path);
	}
	return 0;
}

/* This program, as the connector, in dir (a copy: the sandbox may not
 * see where the program lives). */
static int place_connector(const char *dir, char **path)
{
	struct buf exe;
	int rc;

	*path = util_fmt("%s/" HELPERS_CONNECTOR, dir);
	if (!*path)
		return err_set(ERR_NOMEM, "out of memory");
	buf_init(&exe, 256u << 20);
	rc = buf_read_file(&exe, "/proc/self/exe");
	if (!rc)
		rc = util_write_atomic(*path, exe.ptr, exe.len);
	if (!rc && chmod(*path, 0755))
		rc = err_sys(ERR_INFRA, "chmod '%s'", *path);
	buf_release(&exe);
	return rc;
}

/* --- icecc: the local daemon, the scheduler, the build's namespace ---- */

/* The local iceccd's socket: $BISECTD_ICECC_SOCKET, or where iceccd
 * makes it as root (icecream's client looks there first, then
 * /var/run/iceccd.socket). */
static const char *icecc_socket(void)
{
	const char *env = getenv("BISECTD_ICECC_SOCKET");

	if (env && *env)
		return env;
	if (access(ICECC_SOCKET, F_OK) &&
	    !access("/var/run/iceccd.socket", F_OK))
		return "/var/run/iceccd.socket";
	return ICECC_SOCKET;
}

/* 0 when something accepts at the Unix socket path, else why not. */
static int unix_answers(const char *path, char *why, size_t size)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, rc = -1;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(why, size, "the path is too long");
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		rc = 0;
	else
		snprintf(why, size, "%s", strerror(errno));
	if (fd >= 0)
		close(fd);
	return rc;
}

/* icecc-scheduler's answer to "listcs" on its text port into answer;
 * 0, or -1 and why not into why. */
static int ask_scheduler(struct helpers *hs, struct buf *answer, char *why,
			 size_t size)
{
	static const char ask[] = "listcs\n", bye[] = "quit\n";
	char port[16], chunk[4096];
	double until = util_now() + 5;
	int fd, rc = -1;

	snprintf(port, sizeof(port), "%d", atoi(hs->sched.port) + 1);
	fd = dial(&hs->sched, port, why, size);
	if (fd < 0)
		return -1;
	if (write(fd, ask, sizeof(ask) - 1) != (ssize_t)sizeof(ask) - 1) {
		snprintf(why, size, "%s", strerror(errno));
		goto out;
	}
	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		const char *text = buf_str(answer);
		ssize_t r;
		int ms = (int)((until - util_now()) * 1000);

		if (strstr(text, "\n200 done")) {
			rc = 0;
			break;
		}
		if (ms <= 0 || poll(&pfd, 1, ms) <= 0) {
			snprintf(why, size, "no answer to listcs");
			break;
		}
		r = read(fd, chunk, sizeof(chunk));
		if (r <= 0) {
			snprintf(why, size, "%s",
				 r ? strerror(errno) : "it hung up");
			break;
		}
		if (buf_put(answer, chunk, (size_t)r)) {
			snprintf(why, size, "its answer is too long");
			break;
		}
	}
	/* (whether it hears the goodbye or not, the socket closes) */
	if (!rc && write(fd, bye, sizeof(bye) - 1) < 0)
		rc = 0;
out:
	close(fd);
	return rc;
}

/* iproute2's ip, for the namespace's loopback: its path into out, or 0
 * when there is none. */
static int find_ip(char *out, size_t size)
{
	static const char *const at[] = { "/usr/sbin/ip", "/sbin/ip",
					  "/usr/bin/ip", "/bin/ip" };
	size_t i;

	for (i = 0; i < sizeof(at) / sizeof(*at); i++)
		if (!access(at[i], X_OK)) {
			snprintf(out, size, "%s", at[i]);
			return 1;
		}
	return 0;
}

/* What the relay says of its namespace: stage 0 when it is ready (inner
 * is its descriptor in the relay), else the stage that failed and err
 * (an errno, or ip's exit status). */
struct ns_report {
	int stage, err, inner;
	size_t which;
};

enum { NS_OK, NS_UNSHARE, NS_IP, NS_LISTEN, NS_BACK };

/* Run ip with argv in this (the relay's) namespace; its status. */
static int run_ip(const char *ip, char *const *argv)
{
	static char *const noenv[] = { NULL };
	int st = -1;
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
		}
		execve(ip, argv, noenv);
		_exit(127);
	}
	if (pid < 0)
		return -1;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/*
 * In the relay, after fork (system calls only): a network namespace of
 * its own with the loopback up and carrying each server's address
 * (cidr[i], "ADDRESS/32"), a socket listening at each into lfd, and the
 * relay itself back in the worker's namespace, holding the new one.
 */
static struct ns_report netns_setup(struct helpers *hs, int *lfd,
				    const char *ip, char cidr[][160])
{
	struct ns_report r = { 0 };
	char lo[] = "lo", up[] = "up", link[] = "link", set[] = "set",
	     addr[] = "addr", add[] = "add", dev[] = "dev", ipw[] = "ip";
	int outer = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC), one = 1;
	size_t i;

	if (outer < 0 || unshare(CLONE_NEWNET)) {
		r.stage = NS_UNSHARE;
		r.err = errno;
		return r;
	}
	{
		char *const a[] = { ipw, link, set, lo, up, NULL };

		r.err = run_ip(ip, a);
	}
	for (i = 0; !r.err && i < hs->n; i++) {
		char *const a[] = { ipw, addr, add, cidr[i], dev, lo, NULL };

		if (hs->h[i].up)
			r.err = run_ip(ip, a);
	}
	if (r.err) {
		r.stage = NS_IP;
		return r;
	}
	for (i = 0; i < hs->n; i++) {
		struct helper *h = &hs->h[i];

		if (!h->up)
			continue;
		lfd[i] = socket(h->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC,
				0);
		if (lfd[i] < 0 ||
		    setsockopt(lfd[i], SOL_SOCKET, SO_REUSEADDR, &one,
			       sizeof(one)) ||
		    bind(lfd[i], (struct sockaddr *)&h->addr, h->addrlen) ||
		    listen(lfd[i], 128)) {
			r.stage = NS_LISTEN;
			r.err = errno;
			r.which = i;
			return r;
		}
	}
	r.inner = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (r.inner < 0 || setns(outer, CLONE_NEWNET)) {
		r.stage = NS_BACK;
		r.err = errno;
	}
	close(outer);
	return r;
}

/* Why the relay's namespace failed, as a note's words. */
static void ns_why(const struct helpers *hs, const struct ns_report *r,
		   struct buf *notes)
{
	switch (r->stage) {
	case NS_UNSHARE:
		buf_printf(notes, "a network namespace for the build: %s",
			   strerror(r->err));
		break;
	case NS_IP:
		buf_printf(notes,
			   "ip could not set the build namespace's loopback "
			   "up (status %d)",
			   r->err);
		break;
	case NS_LISTEN:
		buf_printf(notes,
			   "cannot listen at %s in the build's "
			   "namespace: %s",
			   hs->h[r->which].name, strerror(r->err));
		break;
	default:
		buf_printf(notes, "the relay's namespace: %s",
			   r->err ? strerror(r->err) : "the relay died");
	}
}

/* The compile servers the scheduler lists, probed; how many answered.
 * What it cannot reach or read goes to notes. */
static size_t icecc_servers(struct helpers *hs, struct buf *notes)
{
	char why[160];
	struct buf answer;
	size_t i, up = 0;
	int n;

	buf_init(&answer, 4u << 20);
	if (ask_scheduler(hs, &answer, why, sizeof(why))) {
		buf_printf(notes, "icecc scheduler %s cannot be reached (%s)\n",
			   hs->sched.name, why);
		n = 0;
	} else if ((n = helpers_parse_listcs(hs, buf_str(&answer))) < 0) {
		buf_printf(notes, "%s\n", err_last());
		n = 0;
	} else if (n == 0) {
		buf_printf(notes,
			   "icecc scheduler %s lists no compile server that "
			   "takes jobs\n",
			   hs->sched.name);
	}
	buf_release(&answer);
	for (i = 0; i < (size_t)n; i++) {
		struct helper *h = &hs->h[i];

		h->up = probe(h, why, sizeof(why)) == 0;
		if (h->up)
			up++;
		else
			buf_printf(notes,
				   "icecc compile server %s (%s) is down "
				   "(%s): left out\n",
				   h->node, h->name, why);
	}
	return up;
}

static int icecc_start(struct helpers *hs, const char *dir, struct buf *notes)
{
	/* (not static: bisectctl's local workers build side by side) */
	char(*cidr)[160] = NULL;
	const char *sock = icecc_socket();
	char why[160], ip[64], *counts = NULL;
	int lfd[HELPERS_MAX], p[2] = { -1, -1 };
	struct ns_report r = { .stage = NS_BACK };
	unsigned slots = 0;
	size_t i, up = 0;
	pid_t pid;

	if (unix_answers(sock, why, sizeof(why))) {
		buf_printf(notes,
			   "no local iceccd at %s (%s): the build ran here "
			   "alone\n",
			   sock, why);
		return 0;
	}
	if (geteuid() != 0 || !find_ip(ip, sizeof(ip))) {
		buf_printf(notes,
			   "icecc: the build's network namespace needs a "
			   "worker that is root, and iproute2: the build ran "
			   "here alone\n");
		return 0;
	}
	if (!icecc_servers(hs, notes)) {
		buf_printf(notes, "no icecc compile server answered: the "
				  "build ran here alone\n");
		return 0;
	}
	cidr = calloc(HELPERS_MAX, sizeof(*cidr));
	for (i = 0; cidr && i < hs->n; i++) {
		char host[128];

		lfd[i] = -1;
		host_of(&hs->h[i], host, sizeof(host));
		snprintf(cidr[i], sizeof(cidr[i]), "%s/%s", host,
			 hs->h[i].addr.ss_family == AF_INET6 ? "128" : "32");
		if (hs->h[i].up) {
			slots += hs->h[i].slots;
			up++;
		}
	}
	hs->dir = strdup(dir);
	counts = util_fmt("%s/jobs", dir);
	if (!cidr || !hs->dir || !counts || util_mkdir_p(dir) ||
	    pipe2(p, O_CLOEXEC)) {
		buf_printf(notes, "compile helpers not used: %s\n",
			   !cidr || !hs->dir || !counts ? "out of memory"
							: strerror(errno));
		goto fail;
	}
	unlink(counts);
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(p[0]);
		r = netns_setup(hs, lfd, ip, cidr);
		if (write(p[1], &r, sizeof(r)) != sizeof(r) || r.stage)
			_exit(1);
		close(p[1]);
		relay_main(hs, lfd, counts);
	}
	close(p[1]);
	if (pid > 0) {
		hs->relay = pid;
		if (read(p[0], &r, sizeof(r)) != sizeof(r))
			r.stage = NS_BACK, r.err = 0;
	} else {
		r.err = errno;
	}
	close(p[0]);
	if (r.stage) {
		buf_printf(notes, "compile helpers not used: ");
		ns_why(hs, &r, notes);
		buf_printf(notes, "\n");
		goto fail;
	}
	hs->netns = util_fmt("/proc/%d/fd/%d", (int)pid, r.inner);
	hs->env[0] = util_fmt("ICECC_TEST_SOCKET=%s", sock);
	if (!hs->netns || !hs->env[0]) {
		buf_printf(notes, "compile helpers not used: out of memory\n");
		goto fail;
	}
	buf_printf(notes,
		   "icecc scheduler %s: %zu compile server%s, %u job slots, "
		   "through the local iceccd at %s\n",
		   hs->sched.name, up, up == 1 ? "" : "s", slots, sock);
	free(counts);
	free(cidr);
	return (int)slots;
fail:
	free(counts);
	free(cidr);
	helpers_release(hs);
	return 0;
}

int helpers_start(struct helpers *hs, const char *dir, struct buf *notes)
{
	int lfd[HELPERS_MAX];
	char why[160], *connector = NULL, *counts = NULL;
	struct buf hosts;
	unsigned slots = 0;
	size_t i, up = 0;
	pid_t pid;
	int rc = 0;

	if (hs->icecc)
		return icecc_start(hs, dir, notes);
	for (i = 0; i < hs->n; i++) {
		struct helper *h = &hs->h[i];

		lfd[i] = -1;
		if (h->local) {
			h->up = 1;
			continue;
		}
		h->up = probe(h, why, sizeof(why)) == 0;
		if (h->up)
			up++;
		else
			buf_printf(notes,
				   "compile helper %s is down (%s): left "
				   "out\n",
				   h->name, why);
	}
	if (!up) {
		buf_printf(notes, "no compile helper answered: the build "
				  "ran here alone\n");
		return 0;
	}
	hs->dir = strdup(dir);
	buf_init(&hosts, 16384);
	rc = hs->dir ? util_mkdir_p(dir) : err_set(ERR_NOMEM, "out of memory");
	if (!rc)
		rc = place_connector(dir, &connector);
	for (i = 0; !rc && i < hs->n; i++) {
		struct helper *h = &hs->h[i];
		char *sock;

		if (!h->up)
			continue;
		slots += h->slots;
		if (h->local) {
			buf_printf(&hosts, "localhost/%u ", h->slots);
			continue;
		}
		sock = util_fmt("%s/h%zu", dir, i);
		rc = sock ? listen_at(&lfd[i], sock)
			  : err_set(ERR_NOMEM, "out of memory");
		free(sock);
		/* ssh mode, through the relay's socket h<i> */
		buf_printf(&hosts, "@h%zu/%u%s ", i, h->slots,
			   h->lzo ? ",lzo" : "");
	}
	counts = util_fmt("%s/jobs", dir);
	if (!rc && !counts)
		rc = err_set(ERR_NOMEM, "out of memory");
	if (!rc) {
		hs->env[0] = util_fmt("DISTCC_HOSTS=%s", buf_str(&hosts));
		hs->env[1] = util_fmt("DISTCC_SSH=%s", connector);
		hs->env[2] = util_fmt("DISTCC_DIR=%s", dir);
		if (!hs->env[0] || !hs->env[1] || !hs->env[2])
			rc = err_set(ERR_NOMEM, "out of memory");
	}
	if (!rc) {
		unlink(counts);
		pid = fork();
		if (pid < 0) {
			rc = err_sys(ERR_INFRA, "fork");
		} else if (pid == 0) {
			setpgid(0, 0);
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			relay_main(hs, lfd, counts);
		} else {
			hs->relay = pid;
		}
	}
	for (i = 0; i < hs->n; i++)
		if (lfd[i] >= 0)
			close(lfd[i]);
	buf_release(&hosts);
	free(connector);
	free(counts);
	if (rc) {
		buf_printf(notes, "compile helpers not used: %s\n", err_last());
		helpers_release(hs);
		return 0;
	}
	return (int)slots;
}

void helpers_stop(struct helpers *hs, struct buf *notes)
{
	char *counts;
	struct buf text;
	const char *p;
	size_t i;

	if (!hs->relay)
		return;
	kill(hs->relay, SIGTERM);
	while (waitpid(hs->relay, NULL, 0) < 0 && errno == EINTR)
		;
	kill(-hs->relay, SIGKILL); /* pumps left over */
	hs->relay = 0;
	counts = util_fmt("%s/jobs", hs->dir);
	buf_init(&text, 65536);
	if (counts && buf_read_file(&text, counts) == 0) {
		p = buf_str(&text);
		for (i = 0; i < hs->n && *p; i++) {
			hs->h[i].jobs = strtoul(p, NULL, 10);
			p += strcspn(p, "\n");
			p += *p == '\n';
		}
	}
	for (i = 0; i < hs->n; i++)
		if (hs->h[i].up && hs->icecc)
			buf_printf(notes,
				   "icecc compile server %s (%s): %lu "
				   "connections relayed\n",
				   hs->h[i].node, hs->h[i].name, hs->h[i].jobs);
		else if (hs->h[i].up && !hs->h[i].local)
			buf_printf(notes,
				   "compile helper %s: %lu compile jobs "
				   "sent\n",
				   hs->h[i].name, hs->h[i].jobs);
	buf_release(&text);
	free(counts);
}

void helpers_release(struct helpers *hs)
{
	size_t i;

	if (hs->relay) {
		kill(-hs->relay, SIGKILL);
		waitpid(hs->relay, NULL, 0);
		hs->relay = 0;
	}
	for (i = 0; i < sizeof(hs->env) / sizeof(*hs->env); i++) {
		free(hs->env[i]);
		hs->env[i] = NULL;
	}
	free(hs->dir);
	hs->dir = NULL;
	free(hs->netns);
	hs->netns = NULL;
}

/* --- the connector -------------------------------------------------------- */

int helpers_is_connector(const char *argv0)
{
	const char *base = strrchr(argv0, '/');

	return !strcmp(base ? base + 1 : argv0, HELPERS_CONNECTOR);
}

int helpers_connect(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *host = NULL, *slash = strrchr(argv[0], '/');
	int i, fd;

	for (i = 1; i < argc && !host; i++) {
		if (!strcmp(argv[i], "-l"))
			i++; /* its user */
		else if (argv[i][0] != '-')
			host = argv[i];
	}
	if (!host || !slash || strchr(host, '/') ||
	    (size_t)(slash - argv[0]) + strlen(host) + 2 >
		    sizeof(sa.sun_path)) {
		fprintf(stderr, "%s: no relay for this host\n",
			HELPERS_CONNECTOR);
		return 1;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%.*s/%s",
		 (int)(slash - argv[0]), argv[0], host);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "%s: cannot reach the relay at %s: %s\n",
			HELPERS_CONNECTOR, sa.sun_path, strerror(errno));
		return 1;
	}
	/* stdin to the relay, the relay to stdout */
	return pump(0, 1, fd) ? 1 : 0;
}
