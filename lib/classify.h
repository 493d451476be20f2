/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The console-log classifier: from what a boot printed and how QEMU ended,
 * a verdict, a crash title and an excerpt.  Pure: it reads a string.
 */
#ifndef BISECTD_CLASSIFY_H
#define BISECTD_CLASSIFY_H

#include "verdict.h"

/* Kinds of console failure; a recipe chooses which of them count. */
enum crash_kind {
	CRASH_PANIC = 1 << 0,
	CRASH_OOPS = 1 << 1, /* Oops and BUG: lines, NULL dereferences */
	CRASH_BUG = 1 << 2,  /* kernel BUG at file:line */
	CRASH_GPF = 1 << 3,
	CRASH_KASAN = 1 << 4,
	CRASH_SOFT_LOCKUP = 1 << 5,
	CRASH_HARD_LOCKUP = 1 << 6,
	CRASH_HUNG_TASK = 1 << 7,
	CRASH_NO_ROOT = 1 << 8,
	CRASH_WARNING = 1 << 9,
	CRASH_RCU_STALL = 1 << 10,
	CRASH_LOCKDEP = 1 << 11, /* deadlocks, lock state, suspicious RCU */
	CRASH_UBSAN = 1 << 12,
	CRASH_LEAK = 1 << 13, /* kmemleak's unreferenced objects */
};

#define CRASH_DEFAULT                                                          \
	(CRASH_PANIC | CRASH_OOPS | CRASH_BUG | CRASH_GPF | CRASH_KASAN |      \
	 CRASH_SOFT_LOCKUP | CRASH_HARD_LOCKUP | CRASH_HUNG_TASK |             \
	 CRASH_NO_ROOT | CRASH_RCU_STALL | CRASH_LOCKDEP | CRASH_UBSAN |       \
	 CRASH_LEAK)

/* The crash kind named name ("panic", "oops", ...), or 0. */
unsigned crash_kind_parse(const char *name);

/* The name of one crash kind, or "none". */
const char *crash_kind_name(unsigned kind);

/*
 * A list of kinds separated by spaces or commas ("oops, warning"), or
 * "all"; -1 when a word names no kind.
 */
int crash_kinds_parse(unsigned *out, const char *list);

/* How the emulator ended. */
enum boot_end {
	BOOT_EXITED,	  /* QEMU exited by itself */
	BOOT_TIMEOUT,	  /* killed at the boot timeout */
	BOOT_NOT_STARTED, /* QEMU could not be started or died at once */
};

struct classify_input {
	const char *console; /* the serial console, NUL-terminated */
	const char *marker;  /* the success marker */
	unsigned fail_on;    /* CRASH_* kinds that make a boot bad */
	enum boot_end end;
	int timeout_s; /* for the hang message */
};

struct classification {
	enum verdict verdict;
	char *title;	 /* owned; "" for a plain good boot */
	char *excerpt;	 /* owned; the relevant console lines */
	int test_status; /* the guest test's exit status, -1 if not seen */
	unsigned kind;	 /* the CRASH_* kind that decided, 0 if none */
};

/* Classify; the caller releases *out with classification_release(). */
int classify_console(struct classification *out,
		     const struct classify_input *in);
void classification_release(struct classification *c);

#endif
