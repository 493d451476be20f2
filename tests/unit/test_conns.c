// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the connections a listener holds (bisectd/conns.c):
 * which one is closed to make room, the deadlines for headers and
 * bodies, and that a connection that presented a valid token is never
 * closed to make room.  Each connection is one end of a socket pair:
 * a connection that conns shut down reads as ended from the other end.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "conns.h"

#define MAXC 8

/* A test's connections: conns' entry and both ends of each. */
struct fixture {
	struct conns *cs;
	struct conns_entry *e[MAXC];
	int ours[MAXC], peers[MAXC];
	int n;
};

static void start(struct fixture *f, unsigned max, double body_rate)
{
	struct conns_opts o = { .max = max,
				.header_s = 10,
				.body_rate = body_rate };

	memset(f, 0, sizeof(*f));
	assert_int_equal(conns_new(&f->cs, &o), 0);
}

/* A connection from address (IPv4 or IPv6) at now: its number. */
static int open_from(struct fixture *f, const char *address, double now)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	int sv[2], i = f->n++;

	assert_true(i < MAXC);
	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, address, &s4->sin_addr) == 1)
		s4->sin_family = AF_INET;
	else if (inet_pton(AF_INET6, address, &s6->sin6_addr) == 1)
		s6->sin6_family = AF_INET6;
	else
		fail_msg("not an address: %s", address);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	f->ours[i] = sv[0];
	f->peers[i] = sv[1];
	assert_int_equal(conns_opened(f->cs, &f->e[i], sv[0],
				      (struct sockaddr *)&ss, now),
			 0);
	return i;
}

/* Whether conns has shut connection i down: its peer reads the end. */
static int is_shut(struct fixture *f, int i)
{
	char c;
	ssize_t n = recv(f->peers[i], &c, 1, MSG_DONTWAIT);

	if (n < 0 && errno != EAGAIN)
		fail_msg("recv: %s", strerror(errno));
	return n == 0;
}

static void stop(struct fixture *f)
{
	int i;

	for (i = 0; i < f->n; i++) {
		conns_closed(f->e[i]);
		close(f->ours[i]);
		close(f->peers[i]);
	}
	conns_free(f->cs);
}

static unsigned long long closed(struct fixture *f, enum conns_why why)
{
	struct conns_stats st = { 0 };

	conns_stats(f->cs, &st);
	return st.closed[why];
}

static void test_conns__full_closes_the_oldest_waiting(void **state)
{
	struct fixture f;
	int a, b, c;

	(void)state;
	start(&f, 2, 0);
	a = open_from(&f, "10.0.0.1", 1);
	b = open_from(&f, "10.0.0.2", 2);
	assert_false(is_shut(&f, a));
	c = open_from(&f, "10.0.0.3", 3);
	assert_true(is_shut(&f, a));
	assert_false(is_shut(&f, b));
	assert_false(is_shut(&f, c));
	assert_int_equal(closed(&f, CONNS_EVICTED), 1);
	stop(&f);
}

static void test_conns__a_network_with_one_waiting_waits(void **state)
{
	struct fixture f;
	int a, b, c;

	(void)state;
	start(&f, 2, 0);
	a = open_from(&f, "10.0.0.1", 1);
	b = open_from(&f, "10.0.0.2", 2);
	/* 10.0.0.1 has one already: it makes no room for another */
	c = open_from(&f, "10.0.0.1", 3);
	assert_true(is_shut(&f, c));
	assert_false(is_shut(&f, a));
	assert_false(is_shut(&f, b));
	assert_int_equal(closed(&f, CONNS_FULL), 1);
	stop(&f);
}

static void test_conns__an_ipv6_64_is_one_network(void **state)
{
	struct fixture f;
	int a, b, c, d;

	(void)state;
	start(&f, 1, 0);
	a = open_from(&f, "2001:db8::1", 1);
	b = open_from(&f, "2001:db8::ffff:2", 2);
	assert_true(is_shut(&f, b));
	c = open_from(&f, "2001:db8:0:1::1", 3);
	assert_true(is_shut(&f, a));
	assert_false(is_shut(&f, c));
	/* an IPv4 address mapped into IPv6 is IPv4's */
	stop(&f);
	start(&f, 1, 0);
	a = open_from(&f, "10.0.0.1", 1);
	d = open_from(&f, "::ffff:10.0.0.1", 2);
	assert_true(is_shut(&f, d));
	assert_false(is_shut(&f, a));
	stop(&f);
}

static void test_conns__a_trusted_request_is_never_closed(void **state)
{
	struct fixture f;
	int a, b, c, d;

	(void)state;
	start(&f, 2, 0);
	a = open_from(&f, "10.0.0.1", 1);
	b = open_from(&f, "10.0.0.2", 2);
	conns_headers(f.e[a], 1, 3);
	conns_received(f.e[a]);
	conns_headers(f.e[b], 1, 3);
	conns_received(f.e[b]);
	conns_answered(f.e[b], 4); /* idle, between requests */
	conns_tick(f.cs, 1000);	   /* no header deadline for it */
	assert_false(is_shut(&f, b));
	/* a trusted idle connection holds nothing: it gives way */
	c = open_from(&f, "10.0.0.3", 1001);
	assert_true(is_shut(&f, b));
	assert_false(is_shut(&f, c));
	/* a trusted one with its request under way does not */
	conns_headers(f.e[c], 1, 1002);
	d = open_from(&f, "10.0.0.4", 1003);
	assert_true(is_shut(&f, d));
	assert_false(is_shut(&f, a));
	assert_false(is_shut(&f, c));
	stop(&f);
}

static void test_conns__requests_under_way_give_way_last(void **state)
{
	struct fixture f;
	int a, b, c, d, g;

	(void)state;
	start(&f, 3, 0);
	a = open_from(&f, "10.0.0.1", 1);
	b = open_from(&f, "10.0.0.2", 2);
	c = open_from(&f, "10.0.0.3", 3);
	conns_headers(f.e[a], 0, 4);
	conns_headers(f.e[c], 0, 5);
	d = open_from(&f, "10.0.0.4", 6); /* b is the one still waiting */
	assert_true(is_shut(&f, b));
	assert_false(is_shut(&f, a));
	conns_headers(f.e[d], 0, 7);
	g = open_from(&f, "10.0.0.5", 8); /* none waits: a began first */
	assert_true(is_shut(&f, a));
	assert_false(is_shut(&f, c));
	assert_false(is_shut(&f, d));
	assert_false(is_shut(&f, g));
	stop(&f);
}

static void test_conns__headers_have_a_deadline(void **state)
{
	struct fixture f;
	int a, b;

	(void)state;
	start(&f, 8, 0);
	a = open_from(&f, "10.0.0.1", 0);
	b = open_from(&f, "10.0.0.2", 0);
	conns_headers(f.e[b], 0, 1);
	conns_received(f.e[b]);
	conns_tick(f.cs, 9.9);
	assert_false(is_shut(&f, a));
	conns_tick(f.cs, 10);
	assert_true(is_shut(&f, a));
	/* b's request is being answered: no deadline now */
	assert_false(is_shut(&f, b));
	/* answered: it waits for its next request's headers as long */
	conns_answered(f.e[b], 12);
	conns_tick(f.cs, 21.9);
	assert_false(is_shut(&f, b));
	conns_tick(f.cs, 22);
	assert_true(is_shut(&f, b));
	assert_int_equal(closed(&f, CONNS_HEADERS), 2);
	stop(&f);
}

static void test_conns__a_body_keeps_a_rate(void **state)
{
	struct fixture f;
	int a, b, c;

	(void)state;
	start(&f, 8, 1000);
	a = open_from(&f, "10.0.0.1", 0);
	b = open_from(&f, "10.0.0.2", 0);
	c = open_from(&f, "10.0.0.3", 0);
	conns_headers(f.e[a], 0, 0);
	conns_headers(f.e[b], 1, 0); /* a token changes nothing here */
	conns_headers(f.e[c], 0, 0);
	conns_body(f.e[a], 5000); /* 10 s of grace and 5 s more */
	conns_body(f.e[c], 1000);
	conns_received(f.e[c]); /* all of it came */
	conns_tick(f.cs, 10.5);
	assert_false(is_shut(&f, a));
	assert_true(is_shut(&f, b));
	conns_tick(f.cs, 14.9);
	assert_false(is_shut(&f, a));
	conns_tick(f.cs, 15.1);
	assert_true(is_shut(&f, a));
	assert_false(is_shut(&f, c));
	assert_int_equal(closed(&f, CONNS_BODY), 2);
	stop(&f);
}

static void test_conns__a_closed_connection_frees_its_place(void **state)
{
	struct fixture f;
	struct conns_stats st = { 0 };
	int a, b, c;

	(void)state;
	start(&f, 2, 0);
	a = open_from(&f, "10.0.0.1", 1);
	b = open_from(&f, "10.0.0.1", 2);
	conns_closed(f.e[a]);
	f.e[a] = NULL;
	c = open_from(&f, "10.0.0.1", 3);
	assert_false(is_shut(&f, b));
	assert_false(is_shut(&f, c));
	conns_stats(f.cs, &st);
	assert_int_equal(st.fresh, 2);
	assert_int_equal(st.closed[CONNS_FULL] + st.closed[CONNS_EVICTED], 0);
	stop(&f);
}

static void test_conns__idle_keep_alives_go_first(void **state)
{
	struct fixture f;
	int a, b, c, d;

	(void)state;
	start(&f, 3, 0);
	a = open_from(&f, "10.0.0.1", 1);
	b = open_from(&f, "10.0.0.2", 2);
	c = open_from(&f, "10.0.0.3", 3);
	conns_headers(f.e[c], 0, 4);
	conns_received(f.e[c]);
	conns_answered(f.e[c], 5); /* idle after its request */
	/* from c's network: an idle connection does not count against it */
	d = open_from(&f, "10.0.0.3", 6);
	assert_true(is_shut(&f, c));
	assert_false(is_shut(&f, a));
	assert_false(is_shut(&f, b));
	assert_false(is_shut(&f, d));
	stop(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conns__full_closes_the_oldest_waiting),
		cmocka_unit_test(test_conns__a_network_with_one_waiting_waits),
		cmocka_unit_test(test_conns__an_ipv6_64_is_one_network),
		cmocka_unit_test(test_conns__a_trusted_request_is_never_closed),
		cmocka_unit_test(test_conns__requests_under_way_give_way_last),
		cmocka_unit_test(test_conns__idle_keep_alives_go_first),
		cmocka_unit_test(test_conns__headers_have_a_deadline),
		cmocka_unit_test(test_conns__a_body_keeps_a_rate),
		cmocka_unit_test(
			test_conns__a_closed_connection_frees_its_place),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
