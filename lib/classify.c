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
 * call trace that is not (report_frame below).  Addresses and offsets
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

#define EXCERPT_LINES 60
#define TAIL_LINES 25
#define SCAN_AHEAD 80
#define LONG_SCAN 400 /* a lockdep report's own length */

struct lines {
	char **v;
	size_t n;
	char *mem;
};

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
	{ CRASH_LOCKDEP, "WARNING: possible circular locking dependency",
	  "possible deadlock", T_TRACE },
	{ CRASH_LOCKDEP, "WARNING: possible recursive locking detected",
	  "possible deadlock", T_TRACE },
	{ CRASH_LOCKDEP, "WARNING: inconsistent lock state",
	  "inconsistent lock state", T_TRACE },
	{ CRASH_LOCKDEP, "WARNING: suspicious RCU usage",
	  "suspicious RCU usage", T_TRACE },
	{ CRASH_LOCKDEP, "WARNING: bad unlock balance detected",
	  "bad unlock balance", T_TRACE },
	{ CRASH_UBSAN, "UBSAN: ", "UBSAN", T_UBSAN },
	{ CRASH_OOPS, "divide error: ", "divide error", T_FUNC },
	{ CRASH_OOPS, "() in preemptible [", "BUG: using", T_PREEMPT },
	{ CRASH_LEAK, "unreferenced object 0x", "memory leak", T_LEAK },
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
	if (s[0] == '[' && s[1] == '<' && strstr(s, "] "))
		s = strstr(s, "] ") + 2; /* "[<ffffffff81234567>] func+..." */
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

static int has_prefix(const char *f, const char *const *prefixes, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strncmp(f, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

/*
 * A frame of the code that reports a bug, or of a helper the bug was
 * found in, rather than of the code that has it.
 */
static int is_report_frame(const char *f)
{
	static const char *const prefixes[] = {
		/* locking and lockdep */
		"_raw_spin_",
		"_raw_read_",
		"_raw_write_",
		"do_raw_",
		"__raw_",
		"spin_lock",
		"spin_unlock",
		"lock_acquire",
		"lock_release",
		"__lock_acquire",
		"__lock_release",
		"lock_acquired",
		"lock_contended",
		"lockdep_",
		"__lockdep",
		"check_noncircular",
		"check_prev_add",
		"check_prevs_add",
		"validate_chain",
		"mark_lock",
		"mark_usage",
		"print_circular",
		"print_usage_bug",
		"print_bad_irq",
		"print_deadlock_bug",
		"check_deadlock",
		"check_irq_usage",
		"valid_state",
		"print_unlock_imbalance",
		"mutex_lock",
		"__mutex_lock",
		"mutex_unlock",
		"__mutex_unlock",
		"down_read",
		"down_write",
		"up_read",
		"up_write",
		"lock_is_held",
		"__might_sleep",
		"__might_resched",
		"__might_fault",
		"rcu_read_lock",
		"rcu_read_unlock",
		/* the sanitizers */
		"kasan_",
		"__kasan_",
		"__asan_",
		"check_memory_region",
		"kcsan_",
		"__kcsan_",
		"__tsan_",
		"ubsan_",
		"__ubsan_",
		"kmsan_",
		"__msan_",
		"__sanitizer_cov",
		"write_comp_data",
		/* refcount */
		"refcount_",
		"__refcount_",
		/* printing and dumping */
		"printk",
		"_printk",
		"vprintk",
		"dump_stack",
		"__dump_stack",
		"show_stack",
		"show_regs",
		"show_trace",
		"print_report",
		"print_address_description",
		"describe_object",
		"start_report",
		"end_report",
		"check_preemption_disabled",
		"debug_smp_processor_id",
		"__this_cpu_preempt_check",
		/* WARN and BUG */
		"__warn",
		"warn_slowpath",
		"report_bug",
		"handle_bug",
		"exc_invalid_op",
		"asm_exc_invalid_op",
		"do_error_trap",
		"do_trap",
		"__die",
		"die",
		"oops_",
		"panic",
		"bust_spinlocks",
		"fixup_bug",
		/* string and memory helpers, user copies */
		"memcpy",
		"memmove",
		"memset",
		"memcmp",
		"memchr",
		"__memcpy",
		"__memmove",
		"__memset",
		"strcpy",
		"strncpy",
		"strlcpy",
		"strscpy",
		"strcat",
		"strncat",
		"strlen",
		"strnlen",
		"strcmp",
		"strncmp",
		"strchr",
		"strrchr",
		"strstr",
		"__fortify",
		"fortify_",
		"__check_object_size",
		"check_object_size",
		"check_heap_object",
		"usercopy_",
		"_copy_from_user",
		"_copy_to_user",
		"copy_user_",
	};

	return has_prefix(f, prefixes, sizeof(prefixes) / sizeof(prefixes[0]));
}

/* The allocator's own frames, above the caller a leak is named by. */
static int is_alloc_frame(const char *f)
{
	static const char *const prefixes[] = {
		"kmalloc",	"__kmalloc",	 "kmem_cache_alloc",
		"__kmem_cache", "kzalloc",	 "kcalloc",
		"krealloc",	"__krealloc",	 "kmemdup",
		"kstrdup",	"kstrndup",	 "kvmalloc",
		"__kvmalloc",	"vmalloc",	 "__vmalloc",
		"vzalloc",	"alloc_pages",	 "__alloc_pages",
		"slab_",	"__slab_",	 "___slab_",
		"kmemleak_",	"create_object", "alloc_slab",
	};

	return is_report_frame(f) ||
	       has_prefix(f, prefixes, sizeof(prefixes) / sizeof(prefixes[0]));
}

static int is_hung_skip_frame(const char *f)
{
	return is_scheduler_frame(f) || is_report_frame(f);
}

/*
 * The first frame after line i, within scan lines, of the call trace (or
 * kmemleak's backtrace) that skip does not reject.  '?' frames are the
 * unwinder's guesses: they count only when a trace has nothing else (a
 * kernel without frame pointers or ORC prints only those).
 */
static void trace_pass(char *out, size_t size, const struct lines *l, size_t i,
		       size_t scan, int (*skip)(const char *), int guesses)
{
	size_t j;
	int in_trace = 0;

	out[0] = '\0';
	for (j = i; j < l->n && j < i + scan; j++) {
		const char *s = l->v[j];

		if (strstr(s, "Call Trace:") ||
		    !strcmp(s + strspn(s, " "), "backtrace:")) {
			in_trace = 1; /* kmemleak's is "  backtrace:" */
			continue;
		}
		if (!in_trace || !strstr(s, "+0x") || at_symbol_end(s))
			continue;
		while (*s == ' ')
			s++;
		if (*s == '?' && !guesses)
			continue;
		copy_symbol(out, size, s);
		if (out[0] == '<') /* <TASK> and the like */
			continue;
		if (out[0] && !skip(out))
			return;
	}
	out[0] = '\0';
}

static void trace_function(char *out, size_t size, const struct lines *l,
			   size_t i, size_t scan, int (*skip)(const char *))
{
	trace_pass(out, size, l, i, scan, skip, 0);
	if (!*out)
		trace_pass(out, size, l, i, scan, skip, 1);
}

/*
 * The function that has the bug: the RIP's, unless that is reporting
 * machinery, then the call trace's first frame that is not.
 */
static void guilty_function(char *out, size_t size, const struct lines *l,
			    size_t i)
{
	rip_function(out, size, l, i);
	if (*out && !is_report_frame(out))
		return;
	trace_function(out, size, l, i, SCAN_AHEAD, is_report_frame);
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
		if (!*fn || is_report_frame(fn))
			trace_function(fn, sizeof(fn), l, i, SCAN_AHEAD,
				       is_report_frame);
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
		if (!*fn || is_report_frame(fn))
			guilty_function(fn, sizeof(fn), l, i);
		title_func(t, "WARNING", fn);
		break;
	case T_HUNG:
		trace_function(fn, sizeof(fn), l, i, SCAN_AHEAD,
			       is_hung_skip_frame);
		title_func(t, r->title, fn);
		break;
	case T_TRACE:
		/* lockdep: the stack of the task that tripped it comes last,
		 * after the locks and the dependency chain */
		trace_function(fn, sizeof(fn), l, i, LONG_SCAN,
			       is_report_frame);
		title_func(t, r->title, fn);
		break;
	case T_UBSAN:
		/* "UBSAN: shift-out-of-bounds in kernel/foo.c:12:3" */
		m += strlen(r->needle);
		k = strcspn(m, " ");
		buf_printf(t, "UBSAN: %.*s", (int)k, m);
		trace_function(fn, sizeof(fn), l, i, SCAN_AHEAD,
			       is_report_frame);
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
				copy_symbol(fn, sizeof(fn), l->v[j] + 10);
		if (!*fn || is_report_frame(fn))
			trace_function(fn, sizeof(fn), l, i, SCAN_AHEAD,
				       is_report_frame);
		if (*fn)
			buf_printf(t, " in %s", fn);
		break;
	}
	case T_LEAK:
		trace_function(fn, sizeof(fn), l, i, SCAN_AHEAD,
			       is_alloc_frame);
		title_func(t, r->title, fn);
		break;
	case T_BUGMSG:
		/* "BUG: scheduling while atomic: swapper/0/1/0x2" */
		m += strlen(r->needle);
		k = strcspn(m, ":,");
		buf_printf(t, "BUG: %.*s", (int)k, m);
		guilty_function(fn, sizeof(fn), l, i);
		if (*fn)
			buf_printf(t, " in %s", fn);
		break;
	case T_FUNC:
		guilty_function(fn, sizeof(fn), l, i);
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
			size_t from = i, k;

			/* a WARN's message comes before it, after "cut here" */
			for (k = 1; k <= 3 && k <= i; k++)
				if (strstr(l.v[i - k], "[ cut here ]"))
					from = i - k;
			out->verdict = VERDICT_BAD;
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
