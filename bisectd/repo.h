/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The signed package repositories of the farm's builds (repo.c): a
 * build job's kernel packages published as the APT suite and the RPM
 * repository bisectd-ID, and under the channel its submitter named,
 * signed with the farm's repository key, which stays in bisectd's
 * state directory.
 */
#ifndef BISECTD_REPO_H
#define BISECTD_REPO_H

#include <stddef.h>

/* The public key's files (what users fetch): for apt's signed-by below
 * STATE/repo/apt/, armored for dnf's gpgkey below STATE/repo/rpm/. */
#define REPO_KEYRING "bisectd-archive-keyring.gpg"
#define REPO_RPM_KEY "RPM-GPG-KEY-bisectd"

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
 * Publish a build job's packages (paths of .deb and .rpm files that
 * bisectd keeps) as the suite bisectd-JOB and, when channel is not
 * NULL, as the suite channel (replacing the channel's previous build,
 * when the channel is owner's and its build an older job).
 * Only the kernel's own packages of release are taken, by the name in
 * the package (linux-image-RELEASE[-dbg], linux-headers-RELEASE; the
 * .rpm named kernel).  Runs apt-ftparchive, createrepo_c, rpmsign and
 * gpg: call it without holding a lock.  0, or < 0 with the reason in
 * err_last().
 */
int repo_publish(const char *state_dir, long long job, const char *channel,
		 const char *owner, const char *release,
		 const char *const *files, size_t n);

/*
 * A channel belongs to the submitter whose build first took it (owner:
 * the submit token's name; NULL or "" for local jobs): 0 when owner may
 * name it, ERR_DENIED when another has it.  A build replaces the
 * channel's only when it is a later job.
 */
int repo_channel_free(const char *state_dir, const char *channel,
		      const char *owner);

/* Whether the job is published (REPO_PUBLISHED), and where: REPO_APT,
 * REPO_RPM; 0 when it is not. */
#define REPO_PUBLISHED 1
#define REPO_APT 2
#define REPO_RPM 4
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
