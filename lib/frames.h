/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The function a crash report is named by, from the frames of its
 * console (frames.c): the RIP's, the call trace's first guilty frame, a
 * stall's handler, a hung task's wait.  For the classifier (classify.c).
 */
#ifndef BISECTD_FRAMES_H
#define BISECTD_FRAMES_H

#include <stddef.h>

/* How far below a report's first line its RIP: and trace are looked for */
#define SCAN_AHEAD 80

/* A console, one line per entry, printk timestamps stripped. */
struct console_lines {
	char **v;
	size_t n;
	char *mem;
};

/* The function of a frame or a RIP ("? func+0x12/0x40", ...) into out,
 * without what a build adds to its name; "" for an address alone. */
void frames_copy_symbol(char *out, size_t size, const char *s);
/*
 * A frame of the code that reports a bug, or of a helper the bug was
 * found in, rather than of the code that has it.
 */
int frames_is_report(const char *f);
/*
 * The allocator's own frames, above the caller a leak is named by: what
 * has "alloc" in its name, the kmalloc family (reporting machinery for
 * every title, see above) and the slab and kmemleak internals.
 */
int frames_is_alloc(const char *f);
/*
 * A bad page is named by the code that allocated it: the page
 * allocator's and the page cache's own frames are passed over.
 */
int frames_is_page(const char *f);
/*
 * The function that has the bug: the RIP's, unless that is reporting
 * machinery, then the call trace's first frame that is not.
 */
void frames_guilty(char *out, size_t size, const struct console_lines *l,
		   size_t i);
/*
 * The first frame after line i, within scan lines, of the call trace (or
 * kmemleak's backtrace) that skip does not reject; the unwinder's
 * guesses ('?') only when the trace has nothing else.
 */
void frames_trace(char *out, size_t size, const struct console_lines *l,
		  size_t i, size_t scan, int (*skip)(const char *));
/*
 * The function a stall is named by: the handler above the first
 * dispatcher of the stalled code's frames (a stall loops somewhere
 * inside the handler, at a different frame each time), or the first
 * frame past the machinery when there is no dispatcher.
 */
void frames_stall(char *out, size_t size, const struct console_lines *l,
		  size_t i, unsigned kind);
/* A hung task: a wait for RCU or for the RTNL names the wait itself. */
void frames_hung(char *out, size_t size, const struct console_lines *l,
		 size_t i);

#endif
