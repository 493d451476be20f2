// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the console classifier, fed the saved console logs in
 * tests/fixtures/console.  Each of those was printed by a real kernel
 * booted in QEMU: the tiny recipe's kernel, and the same kernel with the
 * lockup detectors on and a crash chosen on its command line (see
 * tests/fixtures/console/README).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "buf.h"
#include "classify.h"

static char *fixture(const char *name)
{
	char path[256];
	struct buf b;

	snprintf(path, sizeof(path), "tests/fixtures/console/%s", name);
	buf_init(&b, 0);
	assert_int_equal(buf_read_file(&b, path), 0);
	return buf_detach(&b);
}

static void expect(const char *file, enum boot_end end, unsigned fail_on,
		   enum verdict v, const char *title, const char *in_excerpt)
{
	struct classify_input in = { .marker = "BISECTD-BOOT-OK",
				     .fail_on = fail_on,
				     .end = end,
				     .timeout_s = 20 };
	struct classification c;
	char *text = fixture(file);

	in.console = text;
	assert_int_equal(classify_console(&c, &in), 0);
	if (c.verdict != v || strcmp(c.title, title))
		fail_msg("%s: got %s '%s', wanted %s '%s'", file,
			 verdict_name(c.verdict), c.title, verdict_name(v),
			 title);
	if (in_excerpt && !strstr(c.excerpt, in_excerpt))
		fail_msg("%s: excerpt lacks '%s':\n%s", file, in_excerpt,
			 c.excerpt);
	classification_release(&c);
	free(text);
}

static void test_classify__good_boot(void **state)
{
	(void)state;
	expect("good.log", BOOT_EXITED, CRASH_DEFAULT, VERDICT_GOOD, "", NULL);
}

static void test_classify__oops_in_initcall(void **state)
{
	(void)state;
	expect("oops-null-initcall.log", BOOT_EXITED, CRASH_DEFAULT,
	       VERDICT_BAD,
	       "BUG: kernel NULL pointer dereference in reboot_defaults_init",
	       "RIP: 0010:reboot_defaults_init");
}

static void test_classify__panic(void **state)
{
	(void)state;
	expect("panic-no-init.log", BOOT_EXITED, CRASH_DEFAULT, VERDICT_BAD,
	       "kernel panic: No working init found.  Try passing init= "
	       "option to kernel. See Linux Documentation/admin-guide/init.rst "
	       "for guidance.",
	       "Kernel panic - not syncing");
}

static void test_classify__hang(void **state)
{
	(void)state;
	expect("hang.log", BOOT_TIMEOUT, CRASH_DEFAULT, VERDICT_BAD,
	       "boot hang: no success marker within 20 s",
	       "serio: i8042 AUX port");
}

static void test_classify__guest_test_failure(void **state)
{
	(void)state;
	expect("test-failed.log", BOOT_EXITED, CRASH_DEFAULT, VERDICT_BAD,
	       "guest test failed with exit status 1", "BISECTD-TEST-EXIT=1");
}

static void test_classify__soft_lockup(void **state)
{
	(void)state;
	expect("soft-lockup.log", BOOT_TIMEOUT, CRASH_DEFAULT, VERDICT_BAD,
	       "BUG: soft lockup in crashme_spin", "stuck for");
}

static void test_classify__hung_task(void **state)
{
	(void)state;
	expect("hung-task.log", BOOT_TIMEOUT, CRASH_DEFAULT, VERDICT_BAD,
	       "INFO: task hung in crashme_hung_fn", "blocked for more than");
}

static void test_classify__gpf(void **state)
{
	(void)state;
	expect("gpf.log", BOOT_EXITED, CRASH_DEFAULT, VERDICT_BAD,
	       "general protection fault in crashme_init", "RIP:");
}

static void test_classify__kernel_bug(void **state)
{
	(void)state;
	expect("kernel-bug.log", BOOT_EXITED, CRASH_DEFAULT, VERDICT_BAD,
	       "kernel BUG in crashme_init", "invalid opcode");
}

static void test_classify__page_fault(void **state)
{
	(void)state;
	expect("page-fault.log", BOOT_EXITED, CRASH_DEFAULT, VERDICT_BAD,
	       "BUG: unable to handle page fault in crashme_init", "Oops");
}

static void test_classify__kasan(void **state)
{
	(void)state;
	expect("kasan-uaf.log", BOOT_EXITED, CRASH_DEFAULT, VERDICT_BAD,
	       "KASAN: use-after-free Read in crashme_uaf",
	       "Read of size 4 at addr");
}

/*
 * The kinds below come from logs written in the kernel's own printk
 * formats (see tests/fixtures/console/README): the title names the code
 * that has the bug, past the frames of the machinery that reports it.
 */
static void test_classify__lockdep_deadlock(void **state)
{
	(void)state;
	expect("lockdep-circular.log", BOOT_EXITED, CRASH_DEFAULT, VERDICT_BAD,
	       "possible deadlock in crashme_lock_ab", "DEADLOCK");
}

static void test_classify__suspicious_rcu(void **state)
{
	(void)state;
	expect("rcu-suspicious.log", BOOT_EXITED, CRASH_DEFAULT, VERDICT_BAD,
	       "suspicious RCU usage in crashme_rcu_peek", "rcu_dereference");
}

static void test_classify__ubsan(void **state)
{
	(void)state;
	expect("ubsan-shift.log", BOOT_EXITED, CRASH_DEFAULT, VERDICT_BAD,
	       "UBSAN: shift-out-of-bounds in crashme_shift",
	       "shift exponent 40");
}

static void test_classify__divide_error(void **state)
{
	(void)state;
	expect("divide-error.log", BOOT_EXITED, CRASH_DEFAULT, VERDICT_BAD,
	       "divide error in crashme_ratio", "RIP: 0010:crashme_ratio");
}

static void test_classify__preemptible_named_by_caller(void **state)
{
	(void)state;
	expect("smp-processor-id.log", BOOT_EXITED, CRASH_DEFAULT, VERDICT_BAD,
	       "BUG: using smp_processor_id() in preemptible code in "
	       "crashme_percpu",
	       "caller is");
}

static void test_classify__memory_leak(void **state)
{
	(void)state;
	expect("kmemleak.log", BOOT_EXITED, CRASH_DEFAULT, VERDICT_BAD,
	       "memory leak in crashme_leak", "unreferenced object");
}

static void test_classify__refcount_warning_names_the_caller(void **state)
{
	(void)state;
	expect("refcount-warning.log", BOOT_EXITED,
	       CRASH_DEFAULT | CRASH_WARNING, VERDICT_BAD,
	       "WARNING in crashme_put", "refcount_t: underflow");
}

static void test_classify__kasan_in_memcpy_names_the_caller(void **state)
{
	(void)state;
	expect("kasan-memcpy.log", BOOT_EXITED, CRASH_DEFAULT, VERDICT_BAD,
	       "KASAN: slab-out-of-bounds Write in crashme_copy",
	       "Write of size 24");
}

static void test_classify__hung_task_with_addresses(void **state)
{
	(void)state;
	expect("hung-task-addr.log", BOOT_TIMEOUT, CRASH_DEFAULT, VERDICT_BAD,
	       "INFO: task hung in crashme_hung_fn", "blocked for more than");
}

static void test_classify__printk_caller_ids_and_stall_handler(void **state)
{
	(void)state;
	/* the interrupt's frames and the lock spun on are not the stall */
	expect("rcu-stall-caller-id.log", BOOT_TIMEOUT, CRASH_DEFAULT,
	       VERDICT_BAD, "INFO: rcu detected stall in crashme_write",
	       "self-detected stall");
}

static void test_classify__soft_lockup_in_a_syscall(void **state)
{
	(void)state;
	/* __do_sys_X, __x64_sys_X and SyS_X are one name across versions */
	expect("soft-lockup-syscall.log", BOOT_TIMEOUT, CRASH_DEFAULT,
	       VERDICT_BAD, "BUG: soft lockup in sys_crashme_spin",
	       "stuck for 22s");
}

static void test_classify__stall_in_a_softirq(void **state)
{
	(void)state;
	/* the RIP after the timer interrupt is in the softirq, not in the
	 * task it interrupted: named by the handler above the receive path */
	expect("rcu-stall-softirq.log", BOOT_TIMEOUT, CRASH_DEFAULT,
	       VERDICT_BAD, "INFO: rcu detected stall in ipv6_rcv",
	       "self-detected stall");
	/* a compat wrapper hands over to the handler it wraps */
	expect("soft-lockup-compat-ioctl.log", BOOT_TIMEOUT, CRASH_DEFAULT,
	       VERDICT_BAD, "BUG: soft lockup in crashme_ioctl",
	       "stuck for 22s");
}

static void test_classify__stack_overflows(void **state)
{
	(void)state;
	/* a recursion 40 frames deep is named by where it was entered */
	expect("stack-guard-page.log", BOOT_EXITED, CRASH_DEFAULT, VERDICT_BAD,
	       "BUG: stack guard page was hit in rtnl_newlink",
	       "stack guard page was hit at");
	expect("corrupted-stack-end.log", BOOT_EXITED, CRASH_DEFAULT,
	       VERDICT_BAD, "kernel panic: corrupted stack end in wb_workfn",
	       "corrupted stack end detected");
}

static void test_classify__bugs_named_past_their_helpers(void **state)
{
	(void)state;
	/* "at <file:line>" is not part of the title */
	expect("sleeping-atomic.log", BOOT_EXITED, CRASH_DEFAULT, VERDICT_BAD,
	       "BUG: sleeping function called from invalid context in "
	       "crashme_fill_table",
	       "in_atomic()");
	/* the page's allocation, past the allocator and the page cache */
	expect("bad-page-state.log", BOOT_EXITED, CRASH_DEFAULT, VERDICT_BAD,
	       "BUG: Bad page state in crashme_read_meta",
	       "page last allocated");
	/* " on CPU#0, comm" is not part of the title; the run queue's
	 * lock is locking, wake_up_new_task() the caller */
	expect("spinlock-recursion.log", BOOT_EXITED, CRASH_DEFAULT,
	       VERDICT_BAD, "BUG: spinlock recursion in wake_up_new_task",
	       ".owner_cpu");
	/* 4.x lockdep's banner, named where the freed lock was taken */
	expect("held-lock-freed-4x.log", BOOT_EXITED,
	       CRASH_DEFAULT | CRASH_LOCKDEP, VERDICT_BAD,
	       "BUG: held lock freed in crashme_ioctl",
	       "with a lock still held");
	/* "backtrace (crc ...)", inline frames and kasprintf() */
	expect("kmemleak-crc.log", BOOT_EXITED, CRASH_DEFAULT, VERDICT_BAD,
	       "memory leak in crashme_name_entry", "unreferenced object");
}

static void test_classify__hung_task_on_rcu(void **state)
{
	(void)state;
	expect("hung-task-rcu.log", BOOT_TIMEOUT, CRASH_DEFAULT, VERDICT_BAD,
	       "INFO: task hung in synchronize_rcu", "blocked for more than");
}

static void test_classify__warning_new_format(void **state)
{
	(void)state;
	/* ".constprop.0" is the compiler's, not the function's */
	expect("warning-new-format.log", BOOT_EXITED,
	       CRASH_DEFAULT | CRASH_WARNING, VERDICT_BAD,
	       "WARNING in crashme_put", "refcount == 0");
	expect("warning-new-format.log", BOOT_EXITED, CRASH_DEFAULT,
	       VERDICT_BAD, "boot ended without the success marker", NULL);
}

static void test_classify__odebug_names_the_freer(void **state)
{
	(void)state;
	expect("odebug.log", BOOT_EXITED, CRASH_DEFAULT | CRASH_WARNING,
	       VERDICT_BAD, "WARNING: ODEBUG bug in crashme_release_timer",
	       "object type: timer_list");
}

static void test_classify__stack_protector(void **state)
{
	(void)state;
	expect("stack-protector.log", BOOT_EXITED, CRASH_DEFAULT, VERDICT_BAD,
	       "kernel panic: stack is corrupted in crashme_fill",
	       "__stack_chk_fail");
}

static void test_classify__old_trace_skips_guesses(void **state)
{
	(void)state;
	expect("old-trace-guesses.log", BOOT_EXITED, CRASH_DEFAULT, VERDICT_BAD,
	       "general protection fault in crashme_remove", "Call Trace:");
}

static void test_classify__kmsan_frames_after_the_title(void **state)
{
	(void)state;
	expect("kmsan-infoleak.log", BOOT_EXITED, CRASH_DEFAULT, VERDICT_BAD,
	       "KMSAN: kernel-infoleak in crashme_read", "Uninit was created");
}

static void test_classify__named_where_the_lock_was_taken(void **state)
{
	(void)state;
	expect("lock-held-return.log", BOOT_EXITED, CRASH_DEFAULT, VERDICT_BAD,
	       "WARNING: lock held when returning to user space in "
	       "crashme_lock_ioctl",
	       "leaving the kernel");
	expect("workqueue-leak.log", BOOT_EXITED, CRASH_DEFAULT, VERDICT_BAD,
	       "BUG: workqueue leaked lock or atomic in crashme_work_fn",
	       "last function");
}

static void test_classify__nul_bytes_and_kind(void **state)
{
	static const char log[] = "noise\0\0 more\n"
				  "BUG: kernel NULL pointer dereference, "
				  "address: 0000000000000008\n"
				  "RIP: 0010:crashme_deref+0x5/0x10\n";
	struct classify_input in = { .marker = "BISECTD-BOOT-OK",
				     .fail_on = CRASH_DEFAULT,
				     .end = BOOT_EXITED };
	struct classification c;
	struct buf b;
	char *text;

	(void)state;
	buf_init(&b, 0);
	assert_int_equal(buf_put(&b, log, sizeof(log) - 1), 0);
	text = buf_detach_text(&b);
	in.console = text;
	assert_int_equal(classify_console(&c, &in), 0);
	assert_string_equal(c.title, "BUG: kernel NULL pointer dereference in "
				     "crashme_deref");
	assert_string_equal(crash_kind_name(c.kind), "oops");
	classification_release(&c);
	free(text);
}

static void test_classify__kind_lists(void **state)
{
	unsigned k;

	(void)state;
	assert_int_equal(crash_kinds_parse(&k, "oops, warning"), 0);
	assert_int_equal(k, CRASH_OOPS | CRASH_WARNING);
	assert_int_equal(crash_kinds_parse(&k, "all"), 0);
	assert_true(k & CRASH_WARNING);
	assert_true(k & CRASH_LEAK);
	assert_int_equal(crash_kinds_parse(&k, "oops,nonsense"), -1);
	assert_string_equal(crash_kind_name(CRASH_LOCKDEP), "lockdep");
	assert_string_equal(crash_kind_name(0), "none");
}

static void test_classify__no_root(void **state)
{
	(void)state;
	expect("no-root.log", BOOT_EXITED, CRASH_DEFAULT, VERDICT_BAD,
	       "VFS: Unable to mount root fs on unknown-block(0,0)", NULL);
}

/* A warning is a failure only when the recipe says so. */
static void test_classify__warning(void **state)
{
	(void)state;
	expect("warning.log", BOOT_EXITED, CRASH_DEFAULT, VERDICT_GOOD, "",
	       NULL);
	expect("warning.log", BOOT_EXITED, CRASH_DEFAULT | CRASH_WARNING,
	       VERDICT_BAD, "WARNING in crashme_init", "WARNING: CPU: 0");
}

/* A QEMU that did not start is infra, whatever the console says. */
static void test_classify__not_started(void **state)
{
	(void)state;
	expect("good.log", BOOT_NOT_STARTED, CRASH_DEFAULT, VERDICT_INFRA,
	       "qemu did not start", NULL);
}

static void test_classify__recipe_kinds(void **state)
{
	(void)state;
	/* a recipe that ignores oopses still sees the panic that follows */
	expect("oops-null-initcall.log", BOOT_EXITED, CRASH_PANIC, VERDICT_BAD,
	       "kernel panic: Attempted to kill init! exitcode=0x00000009",
	       NULL);
	assert_int_equal(crash_kind_parse("soft-lockup"), CRASH_SOFT_LOCKUP);
	assert_int_equal(crash_kind_parse("nonsense"), 0);
}

static void test_classify__timestamps_and_empty(void **state)
{
	struct classify_input in = { .marker = "M",
				     .fail_on = CRASH_DEFAULT,
				     .end = BOOT_EXITED };
	struct classification c;

	(void)state;
	in.console =
		"[    0.5] BUG: kernel NULL pointer dereference, address: 0\r\n"
		"[    0.6] RIP: 0010:foo_probe+0x1/0x2\r\n";
	assert_int_equal(classify_console(&c, &in), 0);
	assert_int_equal(c.verdict, VERDICT_BAD);
	assert_string_equal(
		c.title, "BUG: kernel NULL pointer dereference in foo_probe");
	classification_release(&c);
	in.console = "";
	assert_int_equal(classify_console(&c, &in), 0);
	assert_int_equal(c.verdict, VERDICT_BAD);
	assert_string_equal(c.title, "boot ended without the success marker");
	classification_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify__good_boot),
		cmocka_unit_test(test_classify__oops_in_initcall),
		cmocka_unit_test(test_classify__panic),
		cmocka_unit_test(test_classify__hang),
		cmocka_unit_test(test_classify__guest_test_failure),
		cmocka_unit_test(test_classify__soft_lockup),
		cmocka_unit_test(test_classify__hung_task),
		cmocka_unit_test(test_classify__gpf),
		cmocka_unit_test(test_classify__kernel_bug),
		cmocka_unit_test(test_classify__page_fault),
		cmocka_unit_test(test_classify__kasan),
		cmocka_unit_test(test_classify__lockdep_deadlock),
		cmocka_unit_test(test_classify__suspicious_rcu),
		cmocka_unit_test(test_classify__ubsan),
		cmocka_unit_test(test_classify__divide_error),
		cmocka_unit_test(test_classify__preemptible_named_by_caller),
		cmocka_unit_test(test_classify__memory_leak),
		cmocka_unit_test(
			test_classify__refcount_warning_names_the_caller),
		cmocka_unit_test(
			test_classify__kasan_in_memcpy_names_the_caller),
		cmocka_unit_test(test_classify__hung_task_with_addresses),
		cmocka_unit_test(
			test_classify__printk_caller_ids_and_stall_handler),
		cmocka_unit_test(test_classify__soft_lockup_in_a_syscall),
		cmocka_unit_test(test_classify__hung_task_on_rcu),
		cmocka_unit_test(test_classify__warning_new_format),
		cmocka_unit_test(test_classify__odebug_names_the_freer),
		cmocka_unit_test(test_classify__stack_protector),
		cmocka_unit_test(test_classify__old_trace_skips_guesses),
		cmocka_unit_test(test_classify__kmsan_frames_after_the_title),
		cmocka_unit_test(test_classify__named_where_the_lock_was_taken),
		cmocka_unit_test(test_classify__nul_bytes_and_kind),
		cmocka_unit_test(test_classify__kind_lists),
		cmocka_unit_test(test_classify__no_root),
		cmocka_unit_test(test_classify__warning),
		cmocka_unit_test(test_classify__stall_in_a_softirq),
		cmocka_unit_test(test_classify__stack_overflows),
		cmocka_unit_test(test_classify__bugs_named_past_their_helpers),
		cmocka_unit_test(test_classify__not_started),
		cmocka_unit_test(test_classify__recipe_kinds),
		cmocka_unit_test(test_classify__timestamps_and_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
