/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The scheduler's unit tests' store in memory (fake_store.c): store.h's
 * calls without SQLite, on a clock the test sets.
 */
#ifndef BISECTD_FAKE_STORE_H
#define BISECTD_FAKE_STORE_H

/* What store_time() returns: seconds, moved by the test. */
extern double fake_store_now;

#endif
