// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which function a crash report is named by.  A title names the function
 * that has the bug: the RIP: line's, unless that is the reporting
 * machinery (locking and lockdep, the sanitizers, refcount, printk and
 * dump_stack, the WARN and BUG helpers, the mem and str helpers), then
 * the first frame of the call trace that is not.  A symbol loses its
 * offsets and what the compiler added to its name, and a syscall's
 * wrappers are one name, so that one bug keeps one title across builds.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "frames.h"

/*
 * A syscall's wrappers have had many names ("SyS_futex", "__x64_sys_futex",
 * "__do_sys_futex", "__se_sys_futex", "__ia32_compat_sys_ioctl"): one
 * syscall gets one, "sys_futex" or "compat_sys_ioctl".
 */
static void syscall_name(char *f)
{
	static const char *const wrappers[] = {
		"__x64_sys_",	     "__ia32_sys_",	   "__se_sys_",
		"__do_sys_",	     "__arm64_sys_",	   "SyS_",
		"__x64_compat_sys_", "__ia32_compat_sys_", "__se_compat_sys_",
		"__do_compat_sys_",  "compat_SyS_",
	};
	size_t i, n, m;

	for (i = 0; i < sizeof(wrappers) / sizeof(wrappers[0]); i++) {
		const char *name =
			strstr(wrappers[i], "ompat") ? "compat_sys_" : "sys_";

		n = strlen(wrappers[i]);
		m = strlen(name);
		if (strncmp(f, wrappers[i], n))
			continue;
		memmove(f + m, f + n, strlen(f + n) + 1);
		memcpy(f, name, m);
		return;
	}
}

/*
 * The function of a frame or a RIP: "func+0x12/0x40", "? func+0x1/0x2",
 * "[<ffffffff81234567>] ? func+0x12/0x40", the old RIP's two addresses.
 * What a build adds to a name (".isra.0", ".constprop.3", ".part.1",
 * ".cold") is dropped: one function keeps one name across builds.  An
 * address without a name, "(null)" and the like give "".  Returns 1 for
 * the unwinder's guess ('?').
 */
static int parse_symbol(char *out, size_t size, const char *s)
{
	size_t k = 0;
	int guess = 0;

	for (;;) {
		s += strspn(s, " \t");
		if (*s == '?') {
			guess = 1;
			s++;
		} else if (s[0] == '[' && s[1] == '<' && strstr(s, ">]")) {
			s = strstr(s, ">]") + 2;
		} else {
			break;
		}
	}
	out[0] = '\0';
	if (!isalpha((unsigned char)*s) && *s != '_')
		return guess;
	k = strspn(s, "0123456789abcdef");
	if (k >= 8 && !isalnum((unsigned char)s[k]) && s[k] != '_')
		return guess; /* "ffffffff8343632e": an address */
	k = 0;
	while ((isalnum((unsigned char)s[k]) || s[k] == '_') && k + 1 < size) {
		out[k] = s[k];
		k++;
	}
	out[k] = '\0';
	if (s[k] != '+' && s[k] != '.' && s[k] != ' ' && s[k] != '\0' &&
	    s[k] != '(' && s[k] != ',')
		out[0] = '\0';
	syscall_name(out);
	return guess;
}

void frames_copy_symbol(char *out, size_t size, const char *s)
{
	parse_symbol(out, size, s);
}

/* The function in the first RIP: line within SCAN_AHEAD lines of i. */
static void rip_function(char *out, size_t size, const struct console_lines *l,
			 size_t i)
{
	size_t j;

	out[0] = '\0';
	for (j = i; j < l->n && j < i + SCAN_AHEAD; j++) {
		const char *rip = strstr(l->v[j], "RIP: ");

		if (!rip)
			continue;
		rip += 5;
		if (!strncmp(rip, "0033:", 5))
			continue; /* user space */
		if (!strncmp(rip, "0010:", 5))
			rip += 5;
		frames_copy_symbol(out, size, rip);
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
int frames_is_report(const char *f)
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
		/* more of the same kinds: lock primitives, trap entry */
		"osq_lock",
		"native_queued_spin",
		"queued_spin",
		"queued_read",
		"queued_write",
		"__down",
		"rwsem_",
		"lock_sock",
		"__lock_sock",
		"release_sock",
		"console_lock",
		"console_unlock",
		"perf_trace_lock",
		"___might_sleep",
		"might_sleep",
		"might_fault",
		"__cant_sleep",
		"local_bh_enable",
		"__local_bh_enable",
		"do_invalid_op",
		"invalid_op",
		"__x86_indirect_thunk",
		"__x86_return_thunk",
		/* data structure checks and helpers: the caller misused them */
		"__list_add",
		"__list_del",
		"list_add",
		"list_del",
		"hlist_",
		"__hlist_",
		"rb_erase",
		"rb_insert",
		"__rb_",
		"rb_next",
		"rb_prev",
		"rb_first",
		"rb_last",
		"rb_replace",
		"skb_panic",
		"skb_over_panic",
		"skb_under_panic",
		"skb_push",
		"skb_pull",
		"skb_put",
		"debug_object",
		"debug_print_object",
		"debug_check_no_obj_freed",
		"__debug_check_no_obj_freed",
		"timer_is_static_object",
		"work_is_static_object",
		/* freeing and allocating: the bug is the caller's */
		"kfree",
		"kvfree",
		"__kfree_skb",
		"consume_skb",
		"skb_release",
		"kmem_cache_free",
		"slab_free",
		"__slab_free",
		"kmalloc",
		"__kmalloc",
		"kvmalloc",
		"__kvmalloc",
		"kmem_cache_alloc",
		"warn_alloc",
		/* waiting for work and teardown of the driver model */
		"__flush_work",
		"flush_work",
		"wait_for_completion",
		"sysfs_remove_",
		"kobject_",
		"device_del",
		"device_unregister",
		"devres_release",
		"add_uevent_var",
		"proc_register",
		/* lockdep's and the spinlock debugger's own */
		"register_lock_class",
		"debug_check_no_locks_freed",
		"spin_dump",
		"spin_bug",
		/* formatting strings */
		"string",
		"vsnprintf",
		"vscnprintf",
		"snprintf",
		"sprintf",
		"kvasprintf",
		"kasprintf",
		"strnstr",
		/* more allocation, queueing and deferring */
		"krealloc",
		"__vmalloc",
		"vmalloc",
		"__check_heap_object",
		"__queue_work",
		"queue_work",
		"__queue_delayed_work",
		"queue_delayed_work",
		"drain_workqueue",
		"__call_rcu",
		"call_rcu",
		"__debug_object_init",
		"__free_pages",
		"free_pages",
		"memdup_user",
		"read_word_at_a_time",
		"hex_string",
		"kill_fasync",
		"__virt_to_phys",
		"preempt_count_",
		"walk_stackframe",
		"handle_overflow",
		"__panic",
		"trace_hardirqs",
		/* more of lockdep */
		"reacquire_held_locks",
		"look_up_lock_class",
		"hlock_class",
		"check_usage",
		"check_flags",
		"debug_check_no_locks_held",
		/* waking, waiting and stopping */
		"finish_wait",
		"__wake_up",
		"wake_up_process",
		"wake_up_bit",
		"wake_up_var",
		"wake_up_q",
		"complete",
		"del_timer",
		"__try_to_del_timer_sync",
		"try_to_del_timer_sync",
		"__timer_delete_sync",
		"timer_delete",
		"__mod_timer",
		"mod_timer",
		"__cancel_work",
		"cancel_work",
		"mutex_remove_waiter",
		/* USB and driver-model core, called by the drivers with bugs */
		"usb_submit_urb",
		"usb_kill_urb",
		"usb_kill_anchored_urbs",
		"usb_control_msg",
		"device_add",
		"device_release",
		"device_remove_file",
		"device_destroy",
		"get_device_parent",
		"dpm_sysfs_remove",
		"rollback_registered",
		/* library helpers: checksums, bits, iterators, ids, lists */
		"crc",
		"test_and_",
		"_atomic_dec_and",
		"atomic_",
		"_copy_to_iter",
		"_copy_from_iter",
		"copy_to_iter",
		"copy_from_iter",
		"copy_page_to_iter",
		"ida_",
		"idr_",
		"klist_",
		"pointer",
		"ref_tracker",
		"assertfail",
		"init_timer_key",
		"dump_backtrace",
		"bad_page",
		"dump_header",
		"__alloc_",
		"vzalloc",
		"kvzalloc",
		"kzalloc",
		"kcalloc",
		"kmemdup",
		"kstrdup",
		"___kmalloc",
		"alloc_page",
		"warn_bogus_irq_restore",
		"drop_nlink",
		"clear_nlink",
		"inc_nlink",
		"set_nlink",
		"mark_buffer_dirty",
		"fast_dput",
		"dput",
		"cleanup_srcu_struct",
		"usb_start_wait_urb",
		"i2c_del_adapter",
		"__unregister_client",
		"down_trylock",
		"down_interruptible",
		"down_killable",
		"down_timeout",
		/* the scheduler, and entries and dispatchers: never the bug */
		"__schedule",
		"schedule",
		"preempt_schedule",
		"process_one_work",
		"worker_thread",
		"kthread",
		"ret_from_fork",
		"entry_SYSENTER",
		"entry_SYSCALL",
		"do_syscall_",
		"do_fast_syscall",
		"do_int80",
		/* more printing, unwinding and lookups in shared structures */
		"mark_held_locks",
		"__printk_safe",
		"dev_vprintk",
		"dev_printk",
		"va_format",
		"hex_dump",
		"stack_trace_",
		"arch_stack_walk",
		"__unwind",
		"unwind_",
		"__read_once_word",
		"xas_",
		"rhashtable_",
		"__phys_addr",
		"__do_kernel_fault",
		"do_tag_check_fault", /* arm64's fault entry */
		"do_mem_abort",
		"el1_",
		"el1h_",
		"retint_kernel",
		"_cond_resched",
		"___preempt_schedule",
		"mutex_optimistic_spin",
		"try_to_grab_pending",
		"destroy_workqueue",
		"device_for_each_child",
		"usb_bulk_msg",
		"tty_unregister_device",
		"hwrng_unregister",
		"__sk_destruct",
		"sk_destruct",
		"__sk_free",
		"sk_free",
		"__stack_chk_fail",
		"__dev_printk",
		"print_hex_dump",
		"lock_timer_base",
		"sk_stop_timer",
		"raw_spin_rq_",
		"__task_rq_lock",
		"task_rq_lock",
		"free_unref_",
		"folio_unlock",
		"iput",
		"aes_encrypt",
		"simple_copy_to_iter",
		"insert_work",
		"unregister_netdev",
	};

	return has_prefix(f, prefixes, sizeof(prefixes) / sizeof(prefixes[0]));
}

/*
 * The allocator's own frames, above the caller a leak is named by: what
 * has "alloc" in its name, the kmalloc family (reporting machinery for
 * every title, see above) and the slab and kmemleak internals.
 */
int frames_is_alloc(const char *f)
{
	static const char *const prefixes[] = {
		"__kmem_cache", "kstrndup",  "slab_",	      "__slab_",
		"___slab_",	"kmemleak_", "create_object",
	};
	/* helpers that allocate for their caller */
	static const char *const parts[] = {
		"alloc",
		"list_lru_init",
		"pcpu_create",
		"idr_get",
	};
	size_t i;

	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (strstr(f, parts[i]))
			return 1;
	return frames_is_report(f) ||
	       has_prefix(f, prefixes, sizeof(prefixes) / sizeof(prefixes[0]));
}

/*
 * A bad page is named by the code that allocated it: the page
 * allocator's and the page cache's own frames are passed over.
 */
int frames_is_page(const char *f)
{
	static const char *const parts[] = {
		"free_page",	  "put_page",
		"get_page",	  "update_page",
		"release_page",	  "free_unref",
		"folio",	  "truncate_inode_pages",
		"page_frag_free", "vmap",
		"page_owner",
	};
	size_t i;

	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (strstr(f, parts[i]))
			return 1;
	return frames_is_alloc(f);
}

/*
 * A hung task waits in the scheduler, a lock or a completion: the code
 * that waited is named, not the waiting.
 */
static int is_hung_skip_frame(const char *f)
{
	static const char *const parts[] = {
		"sched",      "_lock",		"lock_",      "_slowlock",
		"down",	      "rwsem",		"completion", "kthread",
		"wait",	      "synchronize",	"switch_to",  "rcu_barrier",
		"flush_work", "cancel_delayed", "msleep",     "_sleep",
	};
	size_t i;

	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (strstr(f, parts[i]))
			return 1;
	return is_scheduler_frame(f) || frames_is_report(f);
}

/*
 * Machinery around a stall: the timer interrupt that found it, the RCU
 * and watchdog code that reports it, and the spinning of a lock.
 */
static int is_stall_skip_frame(const char *f)
{
	static const char *const prefixes[] = {
		"rcu_",
		"print_cpu_stall",
		"print_other_cpu_stall",
		"check_cpu_stall",
		"sched_show_task",
		"nmi_",
		"arch_trigger_",
		"trigger_",
		"update_process_times",
		"tick_",
		"hrtimer_",
		"__hrtimer",
		"watchdog_",
		"apic_timer",
		"local_apic",
		"smp_trace_apic",
		"dump_cpu_task",
		"smp_apic_timer",
		"sysvec_",
		"asm_sysvec",
		"__sysvec",
		"irq_exit",
		"__irq_exit",
		"asm_common_interrupt",
		"common_interrupt",
		"__do_softirq",
		"do_softirq",
		"__softirqentry",
		"invoke_softirq",

		"account_",
	};

	return frames_is_report(f) ||
	       has_prefix(f, prefixes, sizeof(prefixes) / sizeof(prefixes[0]));
}

/*
 * Where the kernel hands work to a handler: a syscall, a file or socket
 * operation, a work item, a timer, a packet.  A stall loops somewhere in
 * its handler, so the handler (the frame before the dispatcher) names it.
 */
static int is_dispatch_frame(const char *f)
{
	static const char *const names[] = {
		"do_syscall_",
		"el0_svc_handler",
		"invoke_syscall",
		"netlink_dump",
		"do_page_fault",
		"do_fast_syscall_",
		"do_int80_syscall",
		"entry_SYSCALL",
		"entry_SYSENTER",
		"process_one_work",
		"worker_thread",
		"ret_from_fork",
		"smpboot_thread_fn",
		"run_ksoftirqd",
		"call_timer_fn",
		"expire_timers",
		"__run_timers",
		"run_timer_softirq",
		"__hrtimer_run_queues",
		"tasklet_action",
		"net_rx_action",
		"__netif_receive_skb",
		"netif_receive_skb",
		"process_backlog",
		"vfs_read",
		"vfs_write",
		"__vfs_read",
		"__vfs_write",
		"new_sync_read",
		"new_sync_write",
		"vfs_iter_read",
		"vfs_iter_write",
		"do_iter_read",
		"do_iter_write",
		"vfs_ioctl",
		"do_vfs_ioctl",
		"ksys_ioctl",
		"compat_ioctl",
		"blkdev_ioctl",
		"do_dentry_open",
		"vfs_open",
		"mmap_region",
		"do_mmap",
		"sock_sendmsg",
		"sock_recvmsg",
		"____sys_sendmsg",
		"___sys_sendmsg",
		"__sys_sendmsg",
		"sock_write_iter",
		"sock_read_iter",
		"sock_ioctl",
		"sock_do_ioctl",
		"__sock_release",
		"sock_close",
		"__sys_connect",
		"__sys_bind",
		"__sys_setsockopt",
		"__sys_getsockopt",
		"__fput",
		"____fput",
		"task_work_run",
		"exit_to_user",
		"exit_to_usermode",
		"__do_fault",
		"smp_call_function",
		"start_secondary",
		"cpu_startup_entry",
		"sys_ioctl",
		"compat_sys_ioctl",
		"nfnetlink_rcv_msg",
		"rtnetlink_rcv_msg",
		"compat_blkdev_ioctl",
		"proc_reg_",
		"seq_read",
		"full_proxy_",
	};

	size_t n = strlen(f);

	/* "lo_compat_ioctl": a compat wrapper hands over to the handler */
	if (n > 12 && !strcmp(f + n - 12, "compat_ioctl"))
		return 1;
	return !strcmp(f, "kthread") ||
	       has_prefix(f, names, sizeof(names) / sizeof(names[0]));
}

/* "Call Trace:", or arm64's "Call trace:" */
static int is_trace_start(const char *s)
{
	return strstr(s, "Call Trace:") || strstr(s, "Call trace:");
}

/*
 * The first frame after line i, within scan lines, of the call trace (or
 * kmemleak's backtrace) that skip does not reject.  '?' frames are the
 * unwinder's guesses: they count only when a trace has nothing else (a
 * kernel without frame pointers or ORC prints only those).
 */
static void trace_pass(char *out, size_t size, const struct console_lines *l,
		       size_t i, size_t scan, int (*skip)(const char *),
		       int guesses)
{
	size_t j;
	int in_trace = 0;

	out[0] = '\0';
	for (j = i; j < l->n && j < i + scan; j++) {
		const char *s = l->v[j];

		if (is_trace_start(s) ||
		    !strcmp(s + strspn(s, " "), "backtrace:") ||
		    !strncmp(s + strspn(s, " "), "backtrace (crc ", 15) ||
		    (skip == frames_is_page &&
		     strstr(s, "page last allocated"))) {
			in_trace = 1; /* kmemleak's is "  backtrace:" */
			continue;
		}
		/* KMSAN and KFENCE print their frames right after the title */
		if (j == i + 1 && (s[0] == ' ' || s[0] == '\t') &&
		    strstr(s, "+0x") && strchr(s, '/'))
			in_trace = 1;
		if (!in_trace || !strstr(s, "+0x") || at_symbol_end(s))
			continue;
		if (parse_symbol(out, size, s) && !guesses)
			continue;
		if (out[0] && !skip(out))
			return;
	}
	out[0] = '\0';
}

void frames_trace(char *out, size_t size, const struct console_lines *l,
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
void frames_guilty(char *out, size_t size, const struct console_lines *l,
		   size_t i)
{
	rip_function(out, size, l, i);
	if (*out && !frames_is_report(out))
		return;
	frames_trace(out, size, l, i, SCAN_AHEAD, frames_is_report);
}

#define STALL_FRAMES 256 /* a stack overflow's recursion */
#define STALL_SCAN 1000

typedef char frame_name[64];

enum stall_frames {
	AFTER_IRQ_RIP,	/* the RIP: after the timer interrupt, its frames */
	AFTER_IRQ,	/* the frames right after the timer interrupt */
	RIP_CALL_TRACE, /* the first RIP:, then the next call trace */
};

/*
 * The stalled code's frames.  An RCU stall's are those the timer
 * interrupt that found it saw: the kernel RIP: after the interrupt's
 * first line (inside <IRQ> when a softirq was the one looping) and the
 * frames after it, or (4.x without a RIP:) the frames right after the
 * interrupt.  A lockup's are its RIP: and the call trace after it, up
 * to the next trace.  The unwinder's guesses are left out.
 */
static size_t stalled_frames(frame_name *frames, const struct console_lines *l,
			     size_t i, enum stall_frames how)
{
	size_t j, n = 0;
	int after_irq = how == RIP_CALL_TRACE, after_rip = 0, traces = 0;

	for (j = i + 1; j < l->n && j < i + STALL_SCAN; j++) {
		const char *s = l->v[j], *rip = strstr(s, "RIP: ");

		if (!after_irq) {
			after_irq = strstr(s, "apic_timer_interrupt") != NULL;
			continue;
		}
		if (!after_rip && !rip && how == AFTER_IRQ &&
		    strstr(s, "+0x") && !strstr(s, "apic_timer_interrupt") &&
		    !parse_symbol(frames[0], sizeof(frames[0]), s) &&
		    frames[0][0]) {
			after_rip = 1; /* the frames follow directly */
			n = 1;
			continue;
		}
		if (!after_rip) {
			if (!rip || !strncmp(rip + 5, "0033:", 5))
				continue;
			rip += 5 + 5 * !strncmp(rip + 5, "0010:", 5);
			after_rip = 1;
			if (!parse_symbol(frames[n], sizeof(frames[n]), rip) &&
			    frames[n][0])
				n++;
			continue;
		}
		if (is_trace_start(s) &&
		    (how != RIP_CALL_TRACE || traces++ > 0))
			break;
		if (n == STALL_FRAMES)
			break;
		if (how == RIP_CALL_TRACE && !traces)
			continue;
		if (rip || !strstr(s, "+0x") || at_symbol_end(s))
			continue;
		if (!parse_symbol(frames[n], sizeof(frames[n]), s) &&
		    frames[n][0])
			n++;
	}
	return n;
}

/*
 * Without an interrupted RIP (another CPU's backtrace, a lockup's own
 * format): the frames after the interrupt that reported the stall (the
 * frames inside <IRQ> only when there are no others), up to the next
 * trace; RCU's "stack dump:" of its own kthread is not the stall.
 */
static size_t task_frames(frame_name *frames, frame_name *irq,
			  const struct console_lines *l, size_t i)
{
	frame_name fn;
	size_t j, n = 0, nirq = 0;
	int in_trace = 0, in_irq = 0, from_dump = 0;

	for (j = i + 1; j < l->n && j < i + STALL_SCAN; j++) {
		const char *s = l->v[j], *rip = strstr(s, "RIP: ");

		if (strstr(s, "stack dump:")) {
			from_dump = 1; /* RCU's own kthread, not the stall */
			continue;
		}
		if (is_trace_start(s)) {
			if (from_dump == 2) {
				n = nirq = 0;
				from_dump = 0;
			} else if (from_dump == 1) {
				from_dump = 2;
			} else if (n && in_trace) {
				break;
			}
			in_trace = 1;
			continue;
		}
		if (strstr(s, "<IRQ>")) {
			in_irq = 1;
			continue;
		}
		if (strstr(s, "</IRQ>") || strstr(s, "<EOI>")) {
			in_irq = 0; /* <EOI>: 4.x's end of the interrupt */
			continue;
		}
		if (rip && !strncmp(rip + 5, "0033:", 5)) {
			if (n)
				break; /* back in user space */
			continue;
		}
		if (!rip &&
		    (!in_trace || !strstr(s, "+0x") || at_symbol_end(s)))
			continue;
		if (parse_symbol(
			    fn, sizeof(fn),
			    rip ? rip + 5 + 5 * !strncmp(rip + 5, "0010:", 5)
				: s) ||
		    !fn[0])
			continue;
		if (in_irq && nirq < STALL_FRAMES)
			memcpy(irq[nirq++], fn, sizeof(fn));
		else if (!in_irq && n < STALL_FRAMES)
			memcpy(frames[n++], fn, sizeof(fn));
	}
	if (!n) {
		memcpy(frames, irq, sizeof(frames[0]) * nirq);
		n = nirq;
	}
	return n;
}

/*
 * The function a stall is named by: the handler above the first
 * dispatcher of the stalled code's frames (a stall loops somewhere
 * inside the handler, at a different frame each time), or the first
 * frame past the machinery when there is no dispatcher.
 */
void frames_stall(char *out, size_t size, const struct console_lines *l,
		  size_t i, unsigned kind)
{
	frame_name *frames = calloc(2 * STALL_FRAMES, sizeof(*frames));
	const char *name = NULL;
	size_t k, n = 0;
	int rcu = kind == CRASH_RCU_STALL;

	out[0] = '\0';
	if (!frames)
		return;		 /* the title goes without a function */
	if (kind != CRASH_PANIC) /* a stack overflow has one trace */
		n = stalled_frames(frames, l, i,
				   rcu ? AFTER_IRQ_RIP : RIP_CALL_TRACE);
	if (!n && rcu)
		n = stalled_frames(frames, l, i, AFTER_IRQ);
	if (!n)
		n = task_frames(frames, frames + STALL_FRAMES, l, i);
	for (k = 0; k < n; k++) {
		if (!is_dispatch_frame(frames[k])) {
			if (!is_stall_skip_frame(frames[k]))
				name = frames[k];
			continue;
		}
		if (!strncmp(frames[k], "smp_call_function", 17))
			name = "smp_call_function";
		else if (!name)
			name = frames[k];
		break;
	}
	if (k == n) /* no dispatcher: the first frame past the machinery */
		for (name = NULL, k = 0; k < n && !name; k++)
			if (!is_stall_skip_frame(frames[k]))
				name = frames[k];
	if (name)
		snprintf(out, size, "%s", name);
	free(frames);
}

/* A hung task: a wait for RCU or for the RTNL names the wait itself. */
void frames_hung(char *out, size_t size, const struct console_lines *l,
		 size_t i)
{
	size_t j;
	int in_trace = 0;

	for (j = i; j < l->n && j < i + SCAN_AHEAD; j++) {
		const char *s = l->v[j];

		if (is_trace_start(s))
			in_trace = 1;
		else if (in_trace && strstr(s, "+0x") &&
			 strstr(s, "synchronize_") &&
			 (strstr(s, "rcu") || strstr(s, "synchronize_net") ||
			  strstr(s, "synchronize_sched"))) {
			snprintf(out, size, "synchronize_rcu");
			return;
		} else if (in_trace && strstr(s, " rtnl_lock+0x")) {
			snprintf(out, size, "rtnl_lock");
			return;
		}
	}
	frames_trace(out, size, l, i, SCAN_AHEAD, is_hung_skip_frame);
}
