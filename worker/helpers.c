/*
 * Compile helpers (helpers.h): parsing distcc's host list, probing the
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
#include <poll.h>
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
#include "helpers.h"
#include "util.h"

#define DISTCC_PORT "3632"
#define PROBE_MS 2000

static int parse_item(struct helper *h, const char *item, size_t len)
{
	char s[160], *p, *host = s, *port = NULL, *limit = NULL;
	char *end;
	long v;

	if (len >= sizeof(s))
		return err_set(ERR_INPUT, "distcc host '%.*s' is too long",
			       (int)len, item);
	memcpy(s, item, len);
	s[len] = '\0';
	memset(h, 0, sizeof(*h));
	h->slots = 4; /* distcc's own default */
	if (*s == '[') {
		p = strchr(s, ']');
		if (!p)
			return err_set(ERR_INPUT, "distcc host '%s': no ']'",
				       s);
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
				       "distcc host '%.*s': '%s' is not "
				       "HOST[:PORT][/LIMIT][,lzo]",
				       (int)len, item, p);
		h->lzo = 1;
	}
	if (!*host || strspn(host, "abcdefghijklmnopqrstuvwxyz"
				   "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789.-:") != strlen(host))
		return err_set(ERR_INPUT, "distcc host '%.*s': bad host name",
			       (int)len, item);
	if (port) {
		v = strtol(port, &end, 10);
		if (*end || end == port || v < 1 || v > 65535)
			return err_set(ERR_INPUT,
				       "distcc host '%.*s': bad port", (int)len,
				       item);
	}
	if (limit) {
		v = strtol(limit, &end, 10);
		if (end == limit || v < 1 || v > 256)
			return err_set(ERR_INPUT,
				       "distcc host '%.*s': the limit is "
				       "1 to 256 jobs",
				       (int)len, item);
		h->slots = (unsigned)v;
	}
	h->local = !strcmp(host, "localhost");
	if (h->local && (port || h->lzo))
		return err_set(ERR_INPUT,
			       "distcc host '%.*s': localhost takes only "
			       "a limit",
			       (int)len, item);
	if (h->local && !limit)
		h->slots = 2;
	snprintf(h->port, sizeof(h->port), "%s", port ? port : DISTCC_PORT);
	if (snprintf(h->name, sizeof(h->name), "%s%s%s%s%s",
		     strchr(host, ':') ? "[" : "", host,
		     strchr(host, ':') ? "]" : "", port ? ":" : "",
		     port ? port : "") >= (int)sizeof(h->name))
		return err_set(ERR_INPUT, "distcc host '%.*s': name too long",
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
		rc = parse_item(&hs->h[hs->n], p, len);
		if (rc)
			return rc;
		hs->n++;
		p += len;
	}
	if (!hs->n)
		return err_set(ERR_INPUT, "no distcc host in '%s'", spec);
	return 0;
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

/* Resolve h and connect within PROBE_MS; 0, or why not into why. */
static int probe(struct helper *h, char *why, size_t size)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	char host[128];
	struct pollfd pfd;
	int fd, e = 0, rc;
	socklen_t elen = sizeof(e);

	host_of(h, host, sizeof(host));
	rc = getaddrinfo(host, h->port, &hints, &ai);
	if (rc) {
		snprintf(why, size, "%s", gai_strerror(rc));
		return -1;
	}
	memcpy(&h->addr, ai->ai_addr, ai->ai_addrlen);
	h->addrlen = ai->ai_addrlen;
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	freeaddrinfo(ai);
	if (fd < 0) {
		snprintf(why, size, "%s", strerror(errno));
		return -1;
	}
	rc = connect(fd, (struct sockaddr *)&h->addr, h->addrlen);
	if (rc && errno == EINPROGRESS) {
		pfd.fd = fd;
		pfd.events = POLLOUT;
		rc = poll(&pfd, 1, PROBE_MS);
		if (rc == 0)
			e = ETIMEDOUT;
		else if (rc < 0 ||
			 getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &elen))
			e = errno;
	} else if (rc) {
		e = errno;
	}
	close(fd);
	if (e)
		snprintf(why, size, "%s", strerror(e));
	return e ? -1 : 0;
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

int helpers_start(struct helpers *hs, const char *dir, struct buf *notes)
{
	int lfd[HELPERS_MAX];
	char why[160], *connector = NULL, *counts = NULL;
	struct buf hosts;
	unsigned slots = 0;
	size_t i, up = 0;
	pid_t pid;
	int rc = 0;

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
		if (hs->h[i].up && !hs->h[i].local)
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
