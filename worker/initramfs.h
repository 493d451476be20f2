/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The guest's initramfs (initramfs.c).
 */
#ifndef BISECTD_WORKER_INITRAMFS_H
#define BISECTD_WORKER_INITRAMFS_H

/* Write a cpio (newc) initramfs with busybox, init, test and modules. */
int initramfs_write(const char *path, const char *init_script,
		    const char *test_script, const char *modules_dir);

#endif
