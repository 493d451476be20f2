// SPDX-License-Identifier: GPL-2.0-only
/*
 * The console-log classifier.
 *
 * The console is read line by line, with printk timestamps stripped.  The
 * first line that matches one of the crash rules below (and whose kind the
 * recipe counts as a failure) decides a bad verdict; its title follows
 * syzbot's style, "<what> in <function>", with the function that has the
 * bug: the RIP: line's, unless that is the reporting machinery (locking
 * and lockdep, the sanitizers, refcount, printk and dump_stack, the WARN
 * and BUG helpers, the mem and str helpers), then the first frame of the
 * call trace that is not (frames.c).  Addresses and offsets
 * never enter a title, so one bug keeps one title across builds.  Without a crash, the success
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
#include "frames.h"

#define EXCERPT_LINES 60
#define TAIL_LINES 25
#define LONG_SCAN 400 /* a lockdep report's own length */

enum title_style {
	T_FUNC,	   /* "<title> in <rip function>" */
	T_LINE,	   /* the matched line itself, trimmed */
	T_PANIC,   /* "kernel panic: <message>" */
	T_KASAN,   /* "KASAN: <type> <Read|Write> in <function>" */
	T_WARN,	   /* "WARNING in <function from the line>" */
	T_HUNG,	   /* "INFO: task hung in <first non-scheduler frame>" */
	T_BUGMSG,  /* "BUG: <message> in <function>" */
	T_TRACE,   /* "<title> in <first guilty frame of the call trace>" */
	T_UBSAN,   /* "UBSAN: <reason> in <guilty frame>" */
	T_PREEMPT, /* "BUG: using X in preemptible code in <caller>" */
	T_LEAK,	   /* "memory leak in <first frame past the allocator>" */
	T_FIXED,   /* the rule's title alone */
	T_STALL,   /* "<title> in <the stalled code's handler>" */
	T_INLINE,  /* "<title> in <the function right after the needle>" */
	T_LOCKAT,  /* "<title> in <where the lock listed next was taken>" */
	T_LOCKDEP, /* T_TRACE, or the first lock's site when there is none */
	T_PAGE,	   /* "<title> in <what allocated the page>" */
};

struct rule {
	unsigned kind;
	const char *needle;
	const char *title; /* prefix for T_FUNC */
	enum title_style style;
	const char *also; /* a second needle the line must have, or NULL */
};

/* Order matters: the more specific needle comes first. */
static const struct rule rules[] = {
	{ CRASH_KASAN, "BUG: KASAN: ", "KASAN", T_KASAN, NULL },
	{ CRASH_KASAN, "BUG: KMSAN: ", "KMSAN", T_KASAN, NULL },
	{ CRASH_KASAN, "BUG: KFENCE: ", "KFENCE", T_KASAN, NULL },
	{ CRASH_KASAN, "BUG: KCSAN: ", "KCSAN", T_KASAN, NULL },
	{ CRASH_LOCKDEP, "possible circular locking dependency",
	  "possible deadlock", T_LOCKDEP, NULL },
	{ CRASH_LOCKDEP, "possible recursive locking detected",
	  "possible deadlock", T_LOCKDEP, NULL },
	{ CRASH_LOCKDEP, "possible irq lock inversion dependency",
	  "possible deadlock", T_LOCKDEP, NULL },
	{ CRASH_LOCKDEP, "-unsafe lock order detected", "possible deadlock",
	  T_LOCKDEP, NULL },
	{ CRASH_LOCKDEP, "inconsistent lock state", "inconsistent lock state",
	  T_LOCKDEP, NULL },
	{ CRASH_LOCKDEP, "suspicious RCU usage", "suspicious RCU usage",
	  T_TRACE, NULL },
	{ CRASH_LOCKDEP, "bad unlock balance detected", "bad unlock balance",
	  T_TRACE, NULL },
	{ CRASH_LOCKDEP, "trying to register non-static key",
	  "INFO: trying to register non-static key", T_TRACE, NULL },
	{ CRASH_LOCKDEP, "WARNING: held lock freed", "WARNING: held lock freed",
	  T_LOCKAT, NULL },
	{ CRASH_LOCKDEP, "[ BUG: held lock freed! ]", "BUG: held lock freed",
	  T_LOCKAT, NULL },
	{ CRASH_LOCKDEP, "lock held when returning to user space",
	  "WARNING: lock held when returning to user space", T_LOCKAT, NULL },
	{ CRASH_LOCKDEP, "WARNING: nested lock was not taken",
	  "WARNING: nested lock was not taken", T_TRACE, NULL },
	{ CRASH_LOCKDEP, " still has locks held!",
	  "WARNING: still has locks held", T_LOCKAT, NULL },
	{ CRASH_UBSAN, "UBSAN: ", "UBSAN", T_UBSAN, NULL },
	{ CRASH_OOPS, "divide error: ", "divide error", T_FUNC, NULL },
	{ CRASH_OOPS, "divide_error: ", "divide error", T_FUNC, NULL },
	{ CRASH_OOPS, "PANIC: double fault", "PANIC: double fault", T_FUNC,
	  NULL },
	{ CRASH_OOPS, "() in preemptible [", "BUG: using", T_PREEMPT, NULL },
	{ CRASH_LEAK, "unreferenced object 0x", "memory leak", T_LEAK, NULL },
	{ CRASH_LEAK, "BUG: memory leak", "memory leak", T_LEAK, NULL },
	{ CRASH_OOPS, "BUG: kernel NULL pointer dereference",
	  "BUG: kernel NULL pointer dereference", T_FUNC, NULL },
	{ CRASH_OOPS, "BUG: unable to handle page fault",
	  "BUG: unable to handle page fault", T_FUNC, NULL },
	{ CRASH_OOPS, "BUG: unable to handle kernel",
	  "BUG: unable to handle kernel paging request", T_FUNC, NULL },
	{ CRASH_SOFT_LOCKUP, "BUG: soft lockup", "BUG: soft lockup", T_STALL,
	  NULL },
	{ CRASH_HARD_LOCKUP, "Watchdog detected hard LOCKUP",
	  "BUG: hard lockup", T_STALL, NULL },
	{ CRASH_HUNG_TASK, "blocked for more than", "INFO: task hung", T_HUNG,
	  NULL },
	{ CRASH_HUNG_TASK, "blocked in I/O wait for more than",
	  "INFO: task hung", T_HUNG, NULL },
	{ CRASH_HUNG_TASK, "can't die for more than", "INFO: task can't die",
	  T_HUNG, NULL },
	{ CRASH_HUNG_TASK, "unregister_netdevice: waiting for ",
	  "unregister_netdevice: waiting for DEV to become free", T_FIXED,
	  NULL },
	{ CRASH_RCU_STALL, "rcu: INFO: ", "INFO: rcu detected stall", T_STALL,
	  NULL },
	{ CRASH_RCU_STALL, "detected stall", "INFO: rcu detected stall",
	  T_STALL, "rcu" },
	{ CRASH_RCU_STALL, "detected expedited stall",
	  "INFO: rcu detected stall", T_STALL, "rcu" },
	{ CRASH_GPF, "general protection fault", "general protection fault",
	  T_FUNC, NULL },
	{ CRASH_BUG, "kernel BUG at ", "kernel BUG", T_FUNC, NULL },
	{ CRASH_WARNING, "WARNING: kernel stack regs ",
	  "WARNING: kernel stack regs has bad value", T_FIXED, NULL },
	{ CRASH_WARNING, "WARNING: kernel stack frame pointer ",
	  "WARNING: kernel stack frame pointer has bad value", T_FIXED, NULL },
	{ CRASH_WARNING, "WARNING: CPU: ", "WARNING", T_WARN, NULL },
	{ CRASH_WARNING, "WARNING: ", "WARNING", T_WARN, ", CPU#" },
	{ CRASH_NO_ROOT, "VFS: Unable to mount root fs", NULL, T_LINE, NULL },
	{ CRASH_OOPS, "VFS: Busy inodes after unmount",
	  "VFS: Busy inodes after unmount", T_FIXED, NULL },
	{ CRASH_OOPS, "VFS: Close: file count is 0",
	  "VFS: Close: file count is zero", T_FIXED, NULL },
	{ CRASH_WARNING, "ODEBUG: ", "WARNING: ODEBUG bug", T_FUNC,
	  " object type" },
	{ CRASH_PANIC, "Kernel stack is corrupted in: ",
	  "kernel panic: stack is corrupted", T_INLINE, NULL },
	{ CRASH_PANIC, "corrupted stack end detected",
	  "kernel panic: corrupted stack end", T_STALL, NULL },
	{ CRASH_PANIC, "Kernel panic - not syncing: ", NULL, T_PANIC, NULL },
	{ CRASH_OOPS, "stack guard page was hit at ",
	  "BUG: stack guard page was hit", T_STALL, "BUG: " },
	{ CRASH_OOPS, "BUG: sleeping function called from invalid context",
	  "BUG: sleeping function called from invalid context", T_TRACE, NULL },
	{ CRASH_OOPS, "BUG: Bad page state", "BUG: Bad page state", T_PAGE,
	  NULL },
	{ CRASH_OOPS, "BUG: Bad page cache", "BUG: Bad page cache", T_PAGE,
	  NULL },
	{ CRASH_OOPS, "BUG: ", "BUG", T_BUGMSG, NULL },
	{ CRASH_OOPS, "Oops: ", "Oops", T_FUNC, NULL },
};

static const char *const kind_names[] = {
	"panic",       "oops",	      "bug",	   "gpf",     "kasan",
	"soft-lockup", "hard-lockup", "hung-task", "no-root", "warning",
	"rcu-stall",   "lockdep",     "ubsan",	   "leak",
};

unsigned crash_kind_parse(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
		if (!strcmp(name, kind_names[i]))
			return 1u << i;
	return 0;
}

const char *crash_kind_name(unsigned kind)
{
	size_t i;

	for (i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
		if (kind == 1u << i)
			return kind_names[i];
	return "none";
}

int crash_kinds_parse(unsigned *out, const char *list)
{
	char word[64];
	unsigned kind;

	*out = 0;
	if (!strcmp(list, "all")) {
		*out = (1u << (sizeof(kind_names) / sizeof(kind_names[0]))) - 1;
		return 0;
	}
	while (*list) {
		size_t n = strcspn(list, " \t,");

		if (n == 0) {
			list++;
			continue;
		}
		if (n >= sizeof(word))
			return -1;
		memcpy(word, list, n);
		word[n] = '\0';
		kind = crash_kind_parse(word);
		if (!kind)
			return -1;
		*out |= kind;
		list += n;
	}
	return 0;
}

/*
 * "[    1.234567] text" -> "text", and with CONFIG_PRINTK_CALLER's
 * "[    1.234567][  T123] text" or "[    C1] text" too; also drops a
 * trailing CR.
 */
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
	p = s;
	if (p[0] == '[') {
		p += 1 + strspn(p + 1, " ");
		if ((*p == 'T' || *p == 'C') && isdigit((unsigned char)p[1])) {
			p += 1 + strspn(p + 1, "0123456789");
			if (*p == ']')
				s = p + 1 + (p[1] == ' ');
		}
	}
	len = strlen(s);
	while (len && (s[len - 1] == '\r' || s[len - 1] == ' '))
		s[--len] = '\0';
	return s;
}

static int split_lines(struct console_lines *l, const char *text)
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

static void title_func(struct buf *t, const char *prefix, const char *fn)
{
	buf_puts(t, prefix);
	if (*fn)
		buf_printf(t, " in %s", fn);
}

static void make_title(struct buf *t, const struct rule *r,
		       const struct console_lines *l, size_t i)
{
	const char *line = l->v[i], *m = strstr(line, r->needle);
	char fn[128];
	size_t k;

	switch (r->style) {
	case T_LINE:
		buf_puts(t, m);
		break;
	case T_FIXED:
		buf_puts(t, r->title);
		break;
	case T_INLINE:
		frames_copy_symbol(fn, sizeof(fn), m + strlen(r->needle));
		if (!*fn || frames_is_report(fn))
			frames_guilty(fn, sizeof(fn), l, i);
		title_func(t, r->title, fn);
		break;
	case T_LOCKDEP: {
		/*
		 * lockdep: the stack of the task that tripped it comes last,
		 * after the locks and the dependency chain; without one (4.x
		 * printed none for some reports), the first lock shown, where
		 * it was taken: "(lock){+.+.}, at: func+0x..."
		 */
		size_t j;

		frames_trace(fn, sizeof(fn), l, i, LONG_SCAN, frames_is_report);
		for (j = i + 1; j < l->n && j < i + 24 && !*fn; j++)
			if (strstr(l->v[j], ", at: "))
				frames_copy_symbol(fn, sizeof(fn),
						   strstr(l->v[j], ", at: ") +
							   6);
		title_func(t, r->title, fn);
		break;
	}
	case T_LOCKAT: {
		/* lockdep lists the lock: " #0: ... (lock){+.+.}, at: func+0x" */
		size_t j;

		fn[0] = '\0';
		for (j = i + 1; j < l->n && j < i + SCAN_AHEAD && !*fn; j++)
			if (strstr(l->v[j], "#0: ") && strstr(l->v[j], "at: "))
				frames_copy_symbol(fn, sizeof(fn),
						   strstr(l->v[j], "at: ") + 4);
		if (!*fn || frames_is_report(fn))
			frames_trace(fn, sizeof(fn), l, i, LONG_SCAN,
				     frames_is_report);
		title_func(t, r->title, fn);
		break;
	}
	case T_STALL:
		frames_stall(fn, sizeof(fn), l, i, r->kind);
		title_func(t, r->title, fn);
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
		frames_copy_symbol(fn, sizeof(fn), m ? m + 4 : "");
		if (!*fn || frames_is_report(fn))
			frames_trace(fn, sizeof(fn), l, i, SCAN_AHEAD,
				     frames_is_report);
		buf_printf(t, "%s: %s%s", r->title, kind, rw);
		if (*fn)
			buf_printf(t, " in %s", fn);
		break;
	}
	case T_WARN:
		/* WARNING: CPU: 0 PID: 1 at kernel/foo.c:12 func+0x1/0x2 */
		m = strstr(m, " at ");
		fn[0] = '\0';
		if (m && (m = strchr(m + 4, ' ')))
			frames_copy_symbol(fn, sizeof(fn), m + 1);
		if (!*fn || frames_is_report(fn))
			frames_guilty(fn, sizeof(fn), l, i);
		title_func(t, "WARNING", fn);
		break;
	case T_HUNG:
		frames_hung(fn, sizeof(fn), l, i);
		title_func(t, r->title, fn);
		break;
	case T_TRACE:
		/* lockdep: the stack of the task that tripped it comes last,
		 * after the locks and the dependency chain */
		frames_trace(fn, sizeof(fn), l, i, LONG_SCAN, frames_is_report);
		title_func(t, r->title, fn);
		break;
	case T_UBSAN:
		/* "UBSAN: shift-out-of-bounds in kernel/foo.c:12:3" */
		m += strlen(r->needle);
		k = strcspn(m, " ");
		buf_printf(t, "UBSAN: %.*s", (int)k, m);
		frames_trace(fn, sizeof(fn), l, i, SCAN_AHEAD,
			     frames_is_report);
		if (*fn)
			buf_printf(t, " in %s", fn);
		break;
	case T_PREEMPT: {
		/* "BUG: using smp_processor_id() in preemptible [00000000]
		 * code: swapper/0/1", then "caller is foo+0x1a/0x40" */
		const char *u = strstr(line, "using ");
		size_t j;

		k = u ? strcspn(u, "(") : 0;
		buf_printf(t, "BUG: %.*s() in preemptible code", (int)k,
			   u ? u : "");
		fn[0] = '\0';
		for (j = i + 1; j < l->n && j < i + 4 && !*fn; j++)
			if (!strncmp(l->v[j], "caller is ", 10))
				frames_copy_symbol(fn, sizeof(fn),
						   l->v[j] + 10);
		if (!*fn || frames_is_report(fn))
			frames_trace(fn, sizeof(fn), l, i, SCAN_AHEAD,
				     frames_is_report);
		if (*fn)
			buf_printf(t, " in %s", fn);
		break;
	}
	case T_LEAK:
		frames_trace(fn, sizeof(fn), l, i, SCAN_AHEAD, frames_is_alloc);
		title_func(t, r->title, fn);
		break;
	case T_PAGE:
		frames_trace(fn, sizeof(fn), l, i, SCAN_AHEAD, frames_is_page);
		title_func(t, r->title, fn);
		break;
	case T_BUGMSG:
		/* "BUG: scheduling while atomic: swapper/0/1/0x2",
		 * "BUG: spinlock recursion on CPU#0, swapper/1" */
		m += strlen(r->needle);
		k = strcspn(m, ":,");
		if (strstr(m, " on CPU#") && strstr(m, " on CPU#") < m + k)
			k = (size_t)(strstr(m, " on CPU#") - m);
		buf_printf(t, "BUG: %.*s", (int)k, m);
		frames_guilty(fn, sizeof(fn), l, i);
		for (k = i + 1; k < l->n && k < i + 4; k++)
			if (strstr(l->v[k], "last function: "))
				frames_copy_symbol(
					fn, sizeof(fn),
					strstr(l->v[k], "last function: ") +
						15); /* a work item's */
		if (*fn)
			buf_printf(t, " in %s", fn);
		break;
	case T_FUNC:
		frames_guilty(fn, sizeof(fn), l, i);
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

static void excerpt_from(struct buf *x, const struct console_lines *l, size_t i)
{
	size_t j;

	for (j = i; j < l->n && j < i + EXCERPT_LINES; j++) {
		buf_printf(x, "%s\n", l->v[j]);
		if (is_excerpt_end(l->v[j]))
			break;
	}
}

static void excerpt_tail(struct buf *x, const struct console_lines *l,
			 size_t from)
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
		if (strstr(line, rules[r].needle) &&
		    (!rules[r].also || strstr(line, rules[r].also)))
			return (rules[r].kind & fail_on) ? &rules[r] : NULL;
	return NULL;
}

int classify_console(struct classification *out,
		     const struct classify_input *in)
{
	struct buf title, excerpt;
	struct console_lines l;
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
			size_t from = i, k;

			/* a WARN's message comes before it, after "cut here" */
			for (k = 1; k <= 3 && k <= i; k++)
				if (strstr(l.v[i - k], "[ cut here ]"))
					from = i - k;
			out->verdict = VERDICT_BAD;
			out->kind = r->kind;
			make_title(&title, r, &l, i);
			excerpt_from(&excerpt, &l, from);
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
