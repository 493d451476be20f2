/*
 * The console-log classifier.
 *
 * The console is read line by line, with printk timestamps stripped.  The
 * first line that matches one of the crash rules below (and whose kind the
 * recipe counts as a failure) decides a bad verdict; its title follows
 * syzbot's style, "<what> in <function>", with the function taken from the
 * RIP: line or the call trace that follows.  Without a crash, the success
 * marker and the guest test's exit status decide; without a marker, the
 * boot hung (killed at the timeout) or ended early.  A QEMU that did not
 * start gives an infrastructure verdict, never good or bad.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "classify.h"
#include "error.h"

#define EXCERPT_LINES 60
#define TAIL_LINES 25
#define SCAN_AHEAD 80

struct lines {
	char **v;
	size_t n;
	char *mem;
};

enum title_style {
	T_FUNC,	  /* "<title> in <rip function>" */
	T_LINE,	  /* the matched line itself, trimmed */
	T_PANIC,  /* "kernel panic: <message>" */
	T_KASAN,  /* "KASAN: <type> <Read|Write> in <function>" */
	T_WARN,	  /* "WARNING in <function from the line>" */
	T_HUNG,	  /* "INFO: task hung in <first non-scheduler frame>" */
	T_BUGMSG, /* "BUG: <message> in <function>" */
};

struct rule {
	unsigned kind;
	const char *needle;
	const char *title; /* prefix for T_FUNC */
	enum title_style style;
};

/* Order matters: the more specific needle comes first. */
static const struct rule rules[] = {
	{ CRASH_KASAN, "BUG: KASAN: ", "KASAN", T_KASAN },
	{ CRASH_OOPS, "BUG: kernel NULL pointer dereference",
	  "BUG: kernel NULL pointer dereference", T_FUNC },
	{ CRASH_OOPS, "BUG: unable to handle page fault",
	  "BUG: unable to handle page fault", T_FUNC },
	{ CRASH_OOPS, "BUG: unable to handle kernel",
	  "BUG: unable to handle kernel paging request", T_FUNC },
	{ CRASH_SOFT_LOCKUP, "BUG: soft lockup", "BUG: soft lockup", T_FUNC },
	{ CRASH_HARD_LOCKUP, "Watchdog detected hard LOCKUP",
	  "BUG: hard lockup", T_FUNC },
	{ CRASH_HUNG_TASK, "blocked for more than", "INFO: task hung", T_HUNG },
	{ CRASH_RCU_STALL, "rcu: INFO: ", "INFO: rcu detected stall", T_FUNC },
	{ CRASH_RCU_STALL, "detected stalls on CPUs",
	  "INFO: rcu detected stall", T_FUNC },
	{ CRASH_GPF, "general protection fault", "general protection fault",
	  T_FUNC },
	{ CRASH_BUG, "kernel BUG at ", "kernel BUG", T_FUNC },
	{ CRASH_WARNING, "WARNING: CPU: ", "WARNING", T_WARN },
	{ CRASH_NO_ROOT, "VFS: Unable to mount root fs", NULL, T_LINE },
	{ CRASH_PANIC, "Kernel panic - not syncing: ", NULL, T_PANIC },
	{ CRASH_OOPS, "BUG: ", "BUG", T_BUGMSG },
	{ CRASH_OOPS, "Oops: ", "Oops", T_FUNC },
};

static const char *const kind_names[] = {
	"panic",   "oops",	  "bug",	 "gpf",
	"kasan",   "soft-lockup", "hard-lockup", "hung-task",
	"no-root", "warning",	  "rcu-stall",
};

unsigned crash_kind_parse(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
		if (!strcmp(name, kind_names[i]))
			return 1u << i;
	return 0;
}

/* "[    1.234567] text" -> "text"; also drops a trailing CR. */
static char *strip_line(char *s)
{
	size_t len;
	char *p = s;

	if (*p == '[') {
		p++;
		while (*p == ' ')
			p++;
		while (isdigit((unsigned char)*p) || *p == '.')
			p++;
		if (*p == ']') {
			p++;
			if (*p == ' ')
				p++;
			s = p;
		}
	}
	len = strlen(s);
	while (len && (s[len - 1] == '\r' || s[len - 1] == ' '))
		s[--len] = '\0';
	return s;
}

static int split_lines(struct lines *l, const char *text)
{
	size_t n = 1, i = 0;
	const char *p;
	char *q;

	for (p = text; *p; p++)
		if (*p == '\n')
			n++;
	l->mem = strdup(text);
	l->v = calloc(n, sizeof(*l->v));
	if (!l->mem || !l->v) {
		free(l->mem);
		free(l->v);
		return err_set(ERR_NOMEM, "out of memory");
	}
	q = l->mem;
	while (q) {
		char *nl = strchr(q, '\n');

		if (nl)
			*nl++ = '\0';
		l->v[i++] = strip_line(q);
		q = nl;
	}
	l->n = i;
	return 0;
}

/* Copy a symbol "func+0x12/0x40" (or "func.cold+...") up to the '+'. */
static void copy_symbol(char *out, size_t size, const char *s)
{
	size_t k = 0;

	while (*s == ' ' || *s == '?')
		s++;
	while (s[k] && s[k] != '+' && s[k] != ' ' && k + 1 < size) {
		out[k] = s[k];
		k++;
	}
	out[k] = '\0';
	if (!strncmp(out, "0x", 2))
		out[0] = '\0'; /* an address: no symbol table */
}

/* The function in the first RIP: line within SCAN_AHEAD lines of i. */
static void rip_function(char *out, size_t size, const struct lines *l,
			 size_t i)
{
	size_t j;

	out[0] = '\0';
	for (j = i; j < l->n && j < i + SCAN_AHEAD; j++) {
		const char *rip = strstr(l->v[j], "RIP: ");

		if (!rip)
			continue;
		rip += 5;
		if (!strncmp(rip, "0010:", 5))
			rip += 5;
		copy_symbol(out, size, rip);
		return;
	}
}

static int is_scheduler_frame(const char *f)
{
	static const char *const prefixes[] = {
		"__schedule", "schedule",	"io_schedule", "__mutex_lock",
		"mutex_lock", "rwsem_down",	"down_",       "wait_for_",
		"__wait",     "context_switch", "__switch_to", "msleep",
	};
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(f, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

/*
 * "func+0x49d/0x49d": an address one past the end of func, which belongs
 * to whatever follows it (a stale stack word, not a frame).
 */
static int at_symbol_end(const char *frame)
{
	const char *plus = strchr(frame, '+'), *slash;

	if (!plus || !(slash = strchr(plus, '/')))
		return 0;
	return strcspn(plus + 1, "/ ") == strcspn(slash + 1, " \n") &&
	       !strncmp(plus + 1, slash + 1, strcspn(plus + 1, "/ "));
}

/* The first call-trace frame after line i that is not scheduler code. */
static void trace_function(char *out, size_t size, const struct lines *l,
			   size_t i)
{
	size_t j;
	int in_trace = 0;

	out[0] = '\0';
	for (j = i; j < l->n && j < i + SCAN_AHEAD; j++) {
		const char *s = l->v[j];

		if (strstr(s, "Call Trace:")) {
			in_trace = 1;
			continue;
		}
		if (!in_trace || !strchr(s, '+') || at_symbol_end(s))
			continue;
		copy_symbol(out, size, s);
		if (out[0] == '<') /* <TASK> and the like */
			continue;
		if (out[0] && !is_scheduler_frame(out))
			return;
	}
	out[0] = '\0';
}

static void title_func(struct buf *t, const char *prefix, const char *fn)
{
	buf_puts(t, prefix);
	if (*fn)
		buf_printf(t, " in %s", fn);
}

static void make_title(struct buf *t, const struct rule *r,
		       const struct lines *l, size_t i)
{
	const char *line = l->v[i], *m = strstr(line, r->needle);
	char fn[128];
	size_t k;

	switch (r->style) {
	case T_LINE:
		buf_puts(t, m);
		break;
	case T_PANIC:
		buf_printf(t, "kernel panic: %s", m + strlen(r->needle));
		break;
	case T_KASAN: {
		char kind[64];
		const char *rw = "";

		m += strlen(r->needle);
		for (k = 0; m[k] && m[k] != ' ' && k + 1 < sizeof(kind); k++)
			kind[k] = m[k];
		kind[k] = '\0';
		if (i + 1 < l->n && !strncmp(l->v[i + 1], "Read", 4))
			rw = " Read";
		else if (i + 1 < l->n && !strncmp(l->v[i + 1], "Write", 5))
			rw = " Write";
		m = strstr(m, " in ");
		copy_symbol(fn, sizeof(fn), m ? m + 4 : "");
		buf_printf(t, "KASAN: %s%s", kind, rw);
		if (*fn)
			buf_printf(t, " in %s", fn);
		break;
	}
	case T_WARN:
		/* WARNING: CPU: 0 PID: 1 at kernel/foo.c:12 func+0x1/0x2 */
		m = strstr(m, " at ");
		fn[0] = '\0';
		if (m && (m = strchr(m + 4, ' ')))
			copy_symbol(fn, sizeof(fn), m + 1);
		if (!*fn)
			rip_function(fn, sizeof(fn), l, i);
		title_func(t, "WARNING", fn);
		break;
	case T_HUNG:
		trace_function(fn, sizeof(fn), l, i);
		title_func(t, r->title, fn);
		break;
	case T_BUGMSG:
		/* "BUG: scheduling while atomic: swapper/0/1/0x2" */
		m += strlen(r->needle);
		k = strcspn(m, ":,");
		buf_printf(t, "BUG: %.*s", (int)k, m);
		rip_function(fn, sizeof(fn), l, i);
		if (*fn)
			buf_printf(t, " in %s", fn);
		break;
	case T_FUNC:
		rip_function(fn, sizeof(fn), l, i);
		if (!*fn && r->kind == CRASH_BUG) {
			/* "kernel BUG at mm/slub.c:42!" without symbols */
			k = strcspn(m, "!");
			buf_printf(t, "%.*s", (int)k, m);
			break;
		}
		title_func(t, r->title, fn);
		break;
	}
}

static int is_excerpt_end(const char *s)
{
	return strstr(s, "---[ end trace") ||
	       strstr(s, "---[ end Kernel panic");
}

static void excerpt_from(struct buf *x, const struct lines *l, size_t i)
{
	size_t j;

	for (j = i; j < l->n && j < i + EXCERPT_LINES; j++) {
		buf_printf(x, "%s\n", l->v[j]);
		if (is_excerpt_end(l->v[j]))
			break;
	}
}

static void excerpt_tail(struct buf *x, const struct lines *l, size_t from)
{
	size_t n = l->n, j;

	while (n > from && l->v[n - 1][0] == '\0')
		n--;
	j = n > from + TAIL_LINES ? n - TAIL_LINES : from;
	for (; j < n; j++)
		buf_printf(x, "%s\n", l->v[j]);
}

static const struct rule *match_rule(const char *line, unsigned fail_on)
{
	size_t r;

	for (r = 0; r < sizeof(rules) / sizeof(rules[0]); r++)
		if (strstr(line, rules[r].needle))
			return (rules[r].kind & fail_on) ? &rules[r] : NULL;
	return NULL;
}

int classify_console(struct classification *out,
		     const struct classify_input *in)
{
	struct buf title, excerpt;
	struct lines l;
	size_t i, marker_at = (size_t)-1, test_at = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	out->test_status = -1;
	rc = split_lines(&l, in->console ? in->console : "");
	if (rc)
		return rc;
	buf_init(&title, 4096);
	buf_init(&excerpt, 64 * 1024);

	if (in->end == BOOT_NOT_STARTED) {
		out->verdict = VERDICT_INFRA;
		buf_puts(&title, "qemu did not start");
		excerpt_tail(&excerpt, &l, 0);
		goto done;
	}
	for (i = 0; i < l.n; i++) {
		const char *s = l.v[i];
		const struct rule *r;

		if (!strncmp(s, "BISECTD-TEST-EXIT=", 18)) {
			out->test_status = atoi(s + 18);
			continue;
		}
		if (!strcmp(s, "bisectd: running guest test"))
			test_at = i + 1;
		if (in->marker && *in->marker && !strcmp(s, in->marker)) {
			marker_at = i;
			break;
		}
		r = match_rule(s, in->fail_on);
		if (r) {
			out->verdict = VERDICT_BAD;
			make_title(&title, r, &l, i);
			excerpt_from(&excerpt, &l, i);
			goto done;
		}
	}
	if (marker_at != (size_t)-1) {
		if (out->test_status == 0) {
			out->verdict = VERDICT_GOOD;
			goto done;
		}
		out->verdict = VERDICT_BAD;
		if (out->test_status < 0)
			buf_puts(&title, "guest test did not report a status");
		else
			buf_printf(&title,
				   "guest test failed with exit status %d",
				   out->test_status);
		for (i = test_at ? test_at : marker_at; i <= marker_at; i++)
			buf_printf(&excerpt, "%s\n", l.v[i]);
		goto done;
	}
	out->verdict = VERDICT_BAD;
	if (in->end == BOOT_TIMEOUT)
		buf_printf(&title, "boot hang: no success marker within %d s",
			   in->timeout_s);
	else
		buf_puts(&title, "boot ended without the success marker");
	excerpt_tail(&excerpt, &l, 0);
done:
	out->title = buf_detach(&title);
	out->excerpt = buf_detach(&excerpt);
	free(l.mem);
	free(l.v);
	if (!out->title || !out->excerpt) {
		classification_release(out);
		return err_set(ERR_NOMEM, "out of memory");
	}
	return 0;
}

void classification_release(struct classification *c)
{
	free(c->title);
	free(c->excerpt);
	c->title = NULL;
	c->excerpt = NULL;
}
