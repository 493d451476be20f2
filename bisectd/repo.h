/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The signed APT repository of the farm's builds (repo.c): a build job's
 * kernel packages published as the suite bisectd-ID, and under the
 * channel its submitter named, signed with the farm's repository key,
 * which stays in bisectd's state directory.
 */
#ifndef BISECTD_REPO_H
#define BISECTD_REPO_H

#include <stddef.h>

/* The public key's file, below STATE/repo/apt/ (what users fetch). */
#define REPO_KEYRING "bisectd-archive-keyring.gpg"

/*
 * bisectd repo-key [--import FILE]: make the repository's signing key
 * (or import a secret key), and export its public key for users.  The
 * exit status: 0, 1 failed, 2 usage.
 */
int repo_key_main(const char *state_dir, int argc, char **argv);

/* The key's fingerprint (40 hex digits) into out; ERR_NOTFOUND when
 * there is no key. */
int repo_fingerprint(const char *state_dir, char out[64]);

/*
 * Publish a build job's packages (paths of .deb files that bisectd
 * keeps) as the suite bisectd-JOB and, when channel is not NULL, as the
 * suite channel (replacing the channel's previous build).  Only the
 * kernel's own packages of release (linux-image-RELEASE[-dbg],
 * linux-headers-RELEASE) are taken.  Runs apt-ftparchive and gpg: call
 * it without holding a lock.  0, or < 0 with the reason in err_last().
 */
int repo_publish(const char *state_dir, long long job, const char *channel,
		 const char *release, const char *const *debs, size_t n);

/* 1 when the job's suite is published. */
int repo_published(const char *state_dir, long long job);

/*
 * The publisher: a thread that publishes each build job that built and
 * booted (result "built") and is not published yet, when there is a
 * repository key.  Its subprocesses run without bisectd's lock.
 */
struct coord;
struct repo_publisher;
int repo_start(struct repo_publisher **out, struct coord *co);
void repo_stop(struct repo_publisher *pb);

#endif
