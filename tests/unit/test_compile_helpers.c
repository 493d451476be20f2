// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of compile helpers (worker/compile_helpers.c): distcc's host syntax,
 * and the relay end to end on loopback: a helper that answers (an echo
 * server standing in for distccd) and one that does not, the connector
 * as distcc runs it in its ssh mode (this program under the connector's
 * name), bytes both ways through the relay, and the jobs counted.
 * icecc's scheduler syntax and its listcs answer, and (as root) the
 * relay's network namespace: a compile server reached from inside it,
 * the scheduler not.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "buf.h"
#include "error.h"
#include "util.h"
#include "worker.h"

static void test_parse(void **state)
{
	struct helpers hs;

	(void)state;
	assert_int_equal(helpers_parse(&hs, "host1/4,host2/8"), 0);
	assert_int_equal(hs.n, 2);
	assert_string_equal(hs.h[0].name, "host1");
	assert_int_equal(hs.h[0].slots, 4);
	assert_string_equal(hs.h[1].name, "host2");
	assert_int_equal(hs.h[1].slots, 8);
	assert_string_equal(hs.h[1].port, "3632");

	assert_int_equal(helpers_parse(&hs, "  a.example:3700/3,lzo  b  "
					    "localhost/2"),
			 0);
	assert_int_equal(hs.n, 3);
	assert_string_equal(hs.h[0].name, "a.example:3700");
	assert_string_equal(hs.h[0].port, "3700");
	assert_int_equal(hs.h[0].lzo, 1);
	assert_int_equal(hs.h[0].slots, 3);
	assert_int_equal(hs.h[1].slots, 4); /* distcc's default */
	assert_int_equal(hs.h[1].lzo, 0);
	assert_int_equal(hs.h[2].local, 1);

	assert_int_equal(helpers_parse(&hs, "[fd00::2]:3633/6"), 0);
	assert_string_equal(hs.h[0].name, "[fd00::2]:3633");
	assert_int_equal(hs.h[0].slots, 6);

	/* each bad one says which item */
	assert_int_equal(helpers_parse(&hs, "good/2,bad/0"), ERR_INPUT);
	assert_non_null(strstr(err_last(), "'bad/0'"));
	assert_int_equal(helpers_parse(&hs, "h:99999"), ERR_INPUT);
	assert_non_null(strstr(err_last(), "bad port"));
	assert_int_equal(helpers_parse(&hs, "h/4,cpp"), ERR_INPUT);
	assert_non_null(strstr(err_last(), "',cpp'"));
	assert_int_equal(helpers_parse(&hs, "h;rm"), ERR_INPUT);
	assert_int_equal(helpers_parse(&hs, "localhost:3632"), ERR_INPUT);
	assert_int_equal(helpers_parse(&hs, " , "), ERR_INPUT);
	assert_int_equal(helpers_parse(&hs, "[fd00::2"), ERR_INPUT);
	/* a name that fits the item but not what is kept of it */
	{
		char spec[160];

		memset(spec, 'a', 140);
		strcpy(spec + 140, ":3632/2");
		assert_int_equal(helpers_parse(&hs, spec), ERR_INPUT);
		assert_non_null(strstr(err_last(), "name too long"));
		spec[120] = '\0';
		assert_int_equal(helpers_parse(&hs, spec), 0);
	}
}

/* A helper that answers: accepts connections and echoes each back
 * upper-cased until its peer shuts down. */
static void *echo_server(void *arg)
{
	int lfd = *(int *)arg, c;

	while ((c = accept(lfd, NULL, NULL)) >= 0) {
		char buf[256];
		ssize_t r, i;

		while ((r = read(c, buf, sizeof(buf))) > 0) {
			for (i = 0; i < r; i++)
				if (buf[i] >= 'a' && buf[i] <= 'z')
					buf[i] = (char)(buf[i] - 32);
			if (write(c, buf, (size_t)r) != r)
				break;
		}
		close(c);
	}
	return NULL;
}

static int loopback_listener(int *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 8), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	*port = ntohs(sa.sin_port);
	return fd;
}

/* Run the connector as distcc would, stdin text; its stdout is want. */
static void assert_through(const char *connector, const char *host,
			   const char *text, const char *want)
{
	int in[2], out[2];
	pid_t pid;
	struct buf got;
	char chunk[256], *reply;
	ssize_t r;

	assert_int_equal(pipe(in), 0);
	assert_int_equal(pipe(out), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execl(connector, connector, "-l", "someone", host, "distccd",
		      "--inetd", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	assert_int_equal(write(in[1], text, strlen(text)),
			 (ssize_t)strlen(text));
	close(in[1]); /* the end of the request: the relay passes it on */
	buf_init(&got, 4096);
	while ((r = read(out[0], chunk, sizeof(chunk))) > 0)
		buf_put(&got, chunk, (size_t)r);
	close(out[0]);
	waitpid(pid, NULL, 0);
	reply = buf_detach(&got);
	assert_string_equal(reply, want);
	free(reply);
}

static void test_relay(void **state)
{
	char dir[] = "/tmp/test-helpers-XXXXXX", spec[128], *connector;
	struct helpers hs;
	struct buf notes;
	pthread_t t;
	int up_port, down_port, lfd, dfd, slots;

	(void)state;
	assert_non_null(mkdtemp(dir));
	lfd = loopback_listener(&up_port);
	dfd = loopback_listener(&down_port);
	close(dfd); /* nothing listens there now */
	assert_int_equal(pthread_create(&t, NULL, echo_server, &lfd), 0);
	snprintf(spec, sizeof(spec), "127.0.0.1:%d/3,127.0.0.1:%d/5", down_port,
		 up_port);
	assert_int_equal(helpers_parse(&hs, spec), 0);
	buf_init(&notes, 4096);
	slots = helpers_start(&hs, dir, &notes);
	assert_int_equal(slots, 5); /* the helper that answered */
	assert_non_null(strstr(buf_str(&notes), "is down"));
	assert_string_equal(hs.env[0], "DISTCC_HOSTS=@h1/5 ");
	assert_true(hs.relay > 0);

	connector = util_fmt("%s/" HELPERS_CONNECTOR, dir);
	assert_through(connector, "h1", "first job", "FIRST JOB");
	assert_through(connector, "h1", "second", "SECOND");
	/* no socket for the helper that is down, nor for a made-up one */
	assert_through(connector, "h0", "x", "");
	assert_through(connector, "../h1", "x", "");

	helpers_stop(&hs, &notes);
	assert_non_null(strstr(buf_str(&notes), "127.0.0.1:"));
	assert_non_null(strstr(buf_str(&notes), ": 2 compile jobs sent"));
	helpers_release(&hs);
	shutdown(lfd, SHUT_RDWR);
	close(lfd);
	pthread_join(t, NULL);
	buf_release(&notes);
	free(connector);
	util_remove_tree(dir);
}

static void test_none_up(void **state)
{
	char dir[] = "/tmp/test-helpers-XXXXXX", spec[64];
	struct helpers hs;
	struct buf notes;
	int port, fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	fd = loopback_listener(&port);
	close(fd);
	snprintf(spec, sizeof(spec), "127.0.0.1:%d/8", port);
	assert_int_equal(helpers_parse(&hs, spec), 0);
	buf_init(&notes, 4096);
	assert_int_equal(helpers_start(&hs, dir, &notes), 0);
	assert_null(hs.env[0]);
	assert_int_equal(hs.relay, 0);
	assert_non_null(strstr(buf_str(&notes), "ran here alone"));
	helpers_stop(&hs, &notes);
	helpers_release(&hs);
	buf_release(&notes);
	util_remove_tree(dir);
}

static void test_parse_icecc(void **state)
{
	struct helpers hs;

	(void)state;
	assert_int_equal(helpers_parse_icecc(&hs, " sched.example "), 0);
	assert_int_equal(hs.icecc, 1);
	assert_int_equal(hs.n, 0);
	assert_string_equal(hs.sched.name, "sched.example");
	assert_string_equal(hs.sched.port, "8765");
	assert_int_equal(helpers_parse_icecc(&hs, "localhost:9000"), 0);
	assert_string_equal(hs.sched.name, "127.0.0.1:9000");
	assert_int_equal(helpers_parse_icecc(&hs, "[fd00::1]:8765"), 0);
	assert_string_equal(hs.sched.name, "[fd00::1]:8765");

	assert_int_equal(helpers_parse_icecc(&hs, "a,b"), ERR_INPUT);
	assert_non_null(strstr(err_last(), "'a,b' is not HOST[:PORT]"));
	assert_int_equal(helpers_parse_icecc(&hs, "a/4"), ERR_INPUT);
	assert_int_equal(helpers_parse_icecc(&hs, "a b"), ERR_INPUT);
	assert_int_equal(helpers_parse_icecc(&hs, "  "), ERR_INPUT);
	assert_int_equal(helpers_parse_icecc(&hs, "h;rm"), ERR_INPUT);
	assert_non_null(strstr(err_last(), "icecc scheduler 'h;rm'"));
	assert_int_equal(helpers_parse_icecc(&hs, "h:0"), ERR_INPUT);
	/* its text port, the next one, would not be a port */
	assert_int_equal(helpers_parse_icecc(&hs, "h:65535"), ERR_INPUT);
	assert_int_equal(helpers_parse_icecc(&hs, "h:65534"), 0);
}

/* icecc-scheduler's answer to listcs, as version 1.4 writes it */
static const char listcs_text[] =
	"200-ICECC 1.4.0: 9s uptime, 4 hosts, 1 jobs in queue (7 total).\n"
	"200 Use 'help' for help and 'quit' to quit.\n"
	" s1 (10.232.0.11:10245) [x86_64] speed=12.50 jobs=1/2 load=231\n"
	"   7 s1 10.232.0.254 init/main.c\n"
	" s2 (10.232.0.12:10300) [x86_64] speed=0.00 jobs=0/4 load=0\n"
	" w (10.232.0.19:10245) [x86_64] speed=0.00 jobs=0/0 load=231\n"
	" v6 (fd00::5:10245) [x86_64] speed=1.00 jobs=0/8 load=0\n"
	"200 done\n";

static void test_listcs(void **state)
{
	struct helpers hs = { 0 };

	(void)state;
	assert_int_equal(helpers_parse_listcs(&hs, listcs_text), 3);
	assert_string_equal(hs.h[0].node, "s1");
	assert_string_equal(hs.h[0].name, "10.232.0.11:10245");
	assert_int_equal(hs.h[0].slots, 2);
	assert_string_equal(hs.h[1].node, "s2");
	assert_string_equal(hs.h[1].port, "10300");
	assert_int_equal(hs.h[1].slots, 4);
	/* w takes no jobs; the IPv6 server's address is bracketed */
	assert_string_equal(hs.h[2].node, "v6");
	assert_string_equal(hs.h[2].name, "[fd00::5]:10245");
	assert_int_equal(hs.h[2].addr.ss_family, AF_INET6);
	assert_int_equal(hs.h[2].slots, 8);

	assert_int_equal(helpers_parse_listcs(&hs, "200 done\n"), 0);
	assert_int_equal(helpers_parse_listcs(&hs, " s1 (10.0.0.1:10245) "
						   "[x86_64] speed=1\n"),
			 ERR_INPUT);
	assert_non_null(strstr(err_last(), "cannot read its line"));
	assert_int_equal(helpers_parse_listcs(&hs, " s1 (not-an-address:1) "
						   "[x] jobs=0/2\n"),
			 ERR_INPUT);
	assert_int_equal(helpers_parse_listcs(&hs, " s1 (10.0.0.1) [x] "
						   "jobs=0/2\n"),
			 ERR_INPUT);
}

static void test_icecc_no_daemon(void **state)
{
	char dir[] = "/tmp/test-helpers-XXXXXX", *sock;
	struct helpers hs;
	struct buf notes;

	(void)state;
	assert_non_null(mkdtemp(dir));
	sock = util_fmt("%s/iceccd.socket", dir);
	setenv("BISECTD_ICECC_SOCKET", sock, 1);
	assert_int_equal(helpers_parse_icecc(&hs, "127.0.0.1:1"), 0);
	buf_init(&notes, 4096);
	assert_int_equal(helpers_start(&hs, dir, &notes), 0);
	assert_int_equal(hs.relay, 0);
	assert_null(hs.netns);
	assert_non_null(strstr(buf_str(&notes), "no local iceccd at "));
	assert_non_null(strstr(buf_str(&notes), "ran here alone"));
	unsetenv("BISECTD_ICECC_SOCKET");
	helpers_release(&hs);
	buf_release(&notes);
	free(sock);
	util_remove_tree(dir);
}

/* A scheduler's text port that answers listcs with one server that
 * takes jobs at 127.0.0.2:port and one that does not. */
struct fake_sched {
	int lfd, server_port;
};

static void *sched_server(void *arg)
{
	struct fake_sched *f = arg;
	int c;

	while ((c = accept(f->lfd, NULL, NULL)) >= 0) {
		char buf[256], out[512];
		ssize_t r;
		int n;

		r = read(c, buf, sizeof(buf) - 1);
		if (r > 0) {
			buf[r] = '\0';
			n = snprintf(out, sizeof(out),
				     "200-ICECC 1.4.0: 1s uptime\n"
				     " srv (127.0.0.2:%d) [x86_64] speed=1.00 "
				     "jobs=0/3 load=0\n"
				     " idle (127.0.0.3:%d) [x86_64] speed=1.00 "
				     "jobs=0/0 load=0\n"
				     "200 done\n",
				     f->server_port, f->server_port);
			if (strstr(buf, "listcs") &&
			    write(c, out, (size_t)n) != n)
				r = -1;
		}
		close(c);
	}
	return NULL;
}

static int listener_at(const char *ip, int *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	inet_pton(AF_INET, ip, &sa.sin_addr);
	assert_true(fd >= 0);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 8), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	*port = ntohs(sa.sin_port);
	return fd;
}

/* In the namespace at path: 0 when 127.0.0.2:port echoes "job" upper-
 * cased, and 127.0.0.1:text_port (the scheduler) cannot be reached. */
static int inside(const char *path, int port, int text_port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	char buf[16] = "";
	int ns = open(path, O_RDONLY), fd;

	if (ns < 0 || setns(ns, CLONE_NEWNET))
		return 1;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	inet_pton(AF_INET, "127.0.0.2", &sa.sin_addr);
	sa.sin_port = htons((unsigned short)port);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    write(fd, "job", 3) != 3 || shutdown(fd, SHUT_WR) ||
	    read(fd, buf, sizeof(buf) - 1) != 3 || strcmp(buf, "JOB"))
		return 2;
	close(fd);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	sa.sin_port = htons((unsigned short)text_port);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		return 3;
	return 0;
}

static void test_icecc_relay(void **state)
{
	char dir[] = "/tmp/test-helpers-XXXXXX", spec[64], *sock;
	struct sockaddr_un su = { .sun_family = AF_UNIX };
	struct fake_sched f;
	struct helpers hs;
	struct buf notes;
	pthread_t ts, te;
	int efd, text_port, ufd, st = -1;
	pid_t pid;

	(void)state;
	if (geteuid() != 0)
		skip(); /* a network namespace needs root */
	assert_non_null(mkdtemp(dir));
	/* the local iceccd: only its socket */
	sock = util_fmt("%s/iceccd.socket", dir);
	snprintf(su.sun_path, sizeof(su.sun_path), "%s", sock);
	ufd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_int_equal(bind(ufd, (struct sockaddr *)&su, sizeof(su)), 0);
	assert_int_equal(listen(ufd, 8), 0);
	setenv("BISECTD_ICECC_SOCKET", sock, 1);
	/* a compile server (the echo server) and the scheduler */
	efd = listener_at("127.0.0.2", &f.server_port);
	f.lfd = listener_at("127.0.0.1", &text_port);
	assert_int_equal(pthread_create(&te, NULL, echo_server, &efd), 0);
	assert_int_equal(pthread_create(&ts, NULL, sched_server, &f), 0);
	snprintf(spec, sizeof(spec), "127.0.0.1:%d", text_port - 1);
	assert_int_equal(helpers_parse_icecc(&hs, spec), 0);

	buf_init(&notes, 4096);
	assert_int_equal(helpers_start(&hs, dir, &notes), 3);
	assert_non_null(strstr(buf_str(&notes), ": 1 compile server, 3 job "
						"slots, through the local "
						"iceccd at "));
	assert_string_equal(hs.env[0] + strlen("ICECC_TEST_SOCKET="), sock);
	assert_non_null(hs.netns);
	pid = fork();
	if (pid == 0)
		_exit(inside(hs.netns, f.server_port, text_port));
	waitpid(pid, &st, 0);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	helpers_stop(&hs, &notes);
	assert_non_null(strstr(buf_str(&notes), "icecc compile server srv "
						"(127.0.0.2:"));
	assert_non_null(strstr(buf_str(&notes), "): 1 connections relayed"));
	helpers_release(&hs);
	unsetenv("BISECTD_ICECC_SOCKET");
	shutdown(efd, SHUT_RDWR);
	shutdown(f.lfd, SHUT_RDWR);
	close(efd);
	close(f.lfd);
	pthread_join(te, NULL);
	pthread_join(ts, NULL);
	close(ufd);
	buf_release(&notes);
	free(sock);
	util_remove_tree(dir);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_relay),
		cmocka_unit_test(test_none_up),
		cmocka_unit_test(test_parse_icecc),
		cmocka_unit_test(test_listcs),
		cmocka_unit_test(test_icecc_no_daemon),
		cmocka_unit_test(test_icecc_relay),
	};

	if (helpers_is_connector(argv[0]))
		return helpers_connect(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
