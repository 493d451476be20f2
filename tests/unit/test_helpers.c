/*
 * Unit tests of compile helpers (worker/helpers.c): distcc's host syntax,
 * and the relay end to end on loopback: a helper that answers (an echo
 * server standing in for distccd) and one that does not, the connector
 * as distcc runs it in its ssh mode (this program under the connector's
 * name), bytes both ways through the relay, and the jobs counted.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_relay),
		cmocka_unit_test(test_none_up),
	};

	if (helpers_is_connector(argv[0]))
		return helpers_connect(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
