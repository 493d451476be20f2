/*
 * The step pipeline: checkout -> config -> build -> initramfs -> boot ->
 * verdict, for one commit and one recipe.  bisectctl runs it in-process;
 * its parts are declared here so that tests can drive each one.
 */
#ifndef BISECTD_WORKER_H
#define BISECTD_WORKER_H

#include "buf.h"
#include "classify.h"
#include "artifacts.h"
#include "gitutil.h"
#include "recipe.h"
#include "step.h"
#include "util.h"
#include "verdict.h"

struct step_spec {
	struct gu_repo *repo;
	struct gu_oid commit;
	const struct recipe *recipe;
	const char *test_script; /* run in the guest; NULL for none */
	int runs;		 /* boots per step, at least 1 */
	const char *work_dir;	 /* persistent: src/ and build/ live here */
	const char *step_dir;	 /* this step's logs and config */
	int live;		 /* draw a live indicator on stderr */
	/* LOCALVERSION for make, or NULL: the kernel's own rule applies
	 * (a "+" for a commit without a tag of its own) */
	const char *localversion;
	/* KBUILD_BUILD_VERSION= for make (the #N of uname -v), or NULL */
	const char *build_version;
	/* KBUILD_BUILD_TIMESTAMP= for make (uname -v's date), or NULL */
	const char *build_timestamp;
	/* what the build makes instead of the recipe's targets (a build
	 * job's "bindeb-pkg KDEB_PKGVERSION=..."), or NULL */
	const char *build_targets;
	/* build in a sandbox (bubblewrap): no network, nothing writable but
	 * the work directory and ccache's; for untrusted patches */
	int sandbox;
};

struct pipeline_result {
	enum verdict verdict;
	char *title;   /* crash title, build error or "" */
	char *excerpt; /* console or compiler lines */
	double checkout_s, config_s, build_s, boot_s; /* boot_s: mean */
	int runs_done, runs_failed;
	char *build_log;   /* paths, owned */
	char *console_log; /* the first failing run's, or the last one's */
	char *config_path;
	char *config_notes;    /* traps handled, options olddefconfig dropped */
	const char *accel;     /* "kvm" or "tcg", static */
	int build_cached;      /* the image came from the kernel cache */
	char image_sha256[65]; /* of the booted image, or "" */
	/* every run's own verdict and title: a JSON array of
	 * {"verdict", "title"}, or NULL before the boots */
	char *run_results;
};

void pipeline_result_release(struct pipeline_result *r);

/*
 * make in the step's tree: -C src O=build ARCH, ccache, the build user
 * and LOCALVERSION of the spec, then the words of targets (targets and
 * VAR=value assignments), appending to log; env is one more "NAME=value"
 * for the environment, or NULL.
 */
int pipeline_make(const struct step_spec *s, const char *targets,
		  const char *env, const char *log, struct proc_result *pr);

/*
 * The sandbox's command words (bwrap and its options, ending in "--")
 * for a build that may write only in work_dir and ccache's directory:
 * put them before the command.  At most SANDBOX_WORDS.  Not reentrant.
 */
#define SANDBOX_WORDS 208
size_t sandbox_argv(const char **argv, const char *work_dir);
/* Who a command from the network runs as (uid 0: a worker that is not
 * root, whose sandbox user is nobody in a user namespace, its own uid
 * outside), and whether it has the network (the host's; else a loopback
 * of its own). */
struct sandbox_user {
	unsigned uid, gid;
	int network;
};
/*
 * The same for a command from the network: no ccache to write to, and an
 * environment of its own (PATH, HOME=/tmp, LANG=C.UTF-8 and each
 * "NAME=value" of env), nothing of the worker's; repo_dir (the git
 * directory whose objects the work tree borrows) readable.  It runs as
 * user's real uid and gid (setpriv), without capabilities, groups or a
 * user namespace: the worker's files are not its own.
 */
size_t sandbox_command_argv(const char **argv, const char *work_dir,
			    const char *repo_dir, const char *const *env,
			    const struct sandbox_user *user);
/* Hide dir (a signing key's) from every later sandbox; up to 4. */
void sandbox_hide(const char *dir);
/* Hide file (the worker's token file) in every later sandbox (a device
 * node that it may not open is bound over it); up to 2.  A build's user, nobody in a user namespace, is root outside
 * it, and could read it. */
void sandbox_hide_file(const char *path);

/* Packages of a tree that a step built (package.c). */
struct package_spec {
	const struct step_spec *step; /* the tree: work_dir, recipe */
	const char *id;		      /* marks release and version */
	const char *out_dir;	      /* the packages go here */
	const char *log;	      /* make's output is appended here */
	int deb, rpm;
	int deb_built; /* the build made the debs already: collect them */
	int dbg;       /* keep a -dbg package when the config makes one */
	/* sign the image with sbsign before it is packaged (or NULL) */
	const char *sign_key, *sign_cert;
};

/*
 * make bindeb-pkg and/or binrpm-pkg with the id in the release and the
 * version (see package.c).  ERR_GENERIC when make failed on the tree,
 * ERR_INFRA when it could not run or made nothing.
 */
int package_build(struct package_result *out, const struct package_spec *p);
/* "VERSION.PATCHLEVEL.SUBLEVEL EXTRAVERSION" of commit's top Makefile. */
char *package_kernel_version(struct gu_repo *repo, const struct gu_oid *commit);
/* Remove packages and what bindeb-pkg leaves beside them from dir. */
void package_clean(const char *dir);
/*
 * Move every file of dir ending in suffix to out (-dbg ones are removed
 * unless dbg), adding their names to r.  dir is written by the build's
 * sandbox: a package that is not a regular file (a link to a file of
 * this machine) fails it, and is removed.
 */
int package_collect(struct package_result *r, const char *dir,
		    const char *suffix, const char *out, int dbg);

/* Run one step; a failure to run it gives VERDICT_INFRA, not an error. */
int pipeline_run(struct pipeline_result *out, const struct step_spec *spec);
/* The same, reproducible (a fixed build version and date), its result
 * moved into st: a kernel-mode step for every caller. */
int pipeline_step(struct step_result *st, const struct step_spec *spec);

/*
 * Config: the recipe's base, the Debian traps, the fragments, then
 * olddefconfig, in build_dir/.config.  notes gets one line per trap that
 * was handled and per fragment option that olddefconfig dropped.
 * ERR_GENERIC when make failed on this tree's Kconfig files, ERR_INFRA
 * when it could not run, ERR_INPUT when the recipe's files are missing.
 * With sandbox (the work directory), make runs in the sandbox.
 */
int kconfig_prepare(const struct recipe *r, const char *src_dir,
		    const char *build_dir, const char *log_path,
		    struct buf *notes, const char *sandbox);

/*
 * Read a config into out: a config file (plain, xz, gzip, ...), or the one
 * inside a kernel package, read without installing it: a Debian or Ubuntu
 * linux-image .deb (boot/config-*) or a Fedora kernel-core .rpm
 * (lib/modules/VERSION/config).
 */
int kconfig_read(struct buf *out, const char *path);

/* Apply the traps to config text in place; one note line per change. */
int kconfig_fix_traps(struct buf *config, const char *src_dir, int have_pahole,
		      struct buf *notes);

/* The first compiler error in a build log, or NULL.  Caller frees. */
char *build_first_error(const char *log);

/* Write a cpio (newc) initramfs with busybox, init, test and modules. */
int initramfs_write(const char *path, const char *init_script,
		    const char *test_script, const char *modules_dir);

/*
 * 1 when KVM really runs a guest here, 0 when not: probed once per
 * process by booting kernel under KVM, scratch_log holding its console.
 */
int boot_kvm_usable(const struct recipe *r, const char *kernel,
		    const char *initrd, const char *scratch_log);

struct boot_result {
	enum boot_end end;
	double seconds;
	const char *accel; /* "kvm" or "tcg", static */
	char *console;	   /* owned */
	char *why;	   /* BOOT_NOT_STARTED: QEMU's own words, owned */
};

/*
 * The same boot through libvirt at uri (a transient domain, its console
 * read over a libvirt stream); boot_run() uses it when
 * $BISECTD_LIBVIRT_URI is set.
 */
int boot_libvirt_run(struct boot_result *out, const struct recipe *r,
		     const char *uri, const char *kernel, const char *initrd,
		     const char *console_log);
/* Notes on what would make libvirt slow at uri on this host. */
int boot_libvirt_check(const char *uri, struct buf *notes);

int boot_run(struct boot_result *out, const struct recipe *r,
	     const char *kernel, const char *initrd, const char *console_log,
	     const char *qemu_log);
/* The same boot, always with QEMU itself (not through libvirt). */
int boot_qemu(struct boot_result *out, const struct recipe *r,
	      const char *kernel, const char *initrd, const char *console_log,
	      const char *qemu_log);
void boot_result_release(struct boot_result *b);

/*
 * The install test (installtest.c): the .deb installed with dpkg into a
 * Debian 12 root made once with debootstrap, its initrd made by
 * initramfs-tools, that disk booted in QEMU; the .rpm read with rpm -qp
 * and installed into a scratch root with rpm --root.
 */
struct install_spec {
	const struct recipe *recipe; /* emulator, memory, marker, timeout */
	const char *cache_dir;	     /* the Debian root is kept here */
	const char *out_dir;	     /* OUT/install gets the logs */
	const char *deb;	     /* linux-image .deb, or NULL */
	const char *release;	     /* the deb's kernel release */
	const char *rpm;	     /* kernel .rpm, or NULL */
	const char *rpm_version;     /* its version (and kernel release) */
};

struct install_result {
	enum verdict verdict; /* good, bad (the packages), infra */
	char *title;	      /* what failed first, "" when good */
	char *uname;	      /* what the installed kernel reported */
	double seconds, boot_s;
};

/* ERR_INPUT naming the tool the test of deb and/or rpm would lack. */
int install_check(int deb, int rpm);
/* Run the test; nonzero only when out of memory. */
int install_test(struct install_result *r, const struct install_spec *s);
void install_result_release(struct install_result *r);
/* The Debian 12 root under cache_dir, made with debootstrap if missing. */
int install_rootfs(char **out, const char *cache_dir, const char *log);

/* A build job (buildjob.c): patches on a base, built, booted, packaged. */
struct buildjob_spec {
	struct gu_repo *repo;
	struct gu_oid base;
	const char *const *names, *const *texts; /* the patches, in order */
	const size_t *lens;
	size_t npatches;
	const struct recipe *recipe;
	const char *test_script;
	int runs;
	const char *work_dir; /* persistent tree and build directory */
	const char *out_dir;  /* logs, config, patches/, packages/ */
	int deb, rpm, dbg, sandbox, live;
	const char *sign_key, *sign_cert; /* sbsign the image, or NULL */
	int install;	       /* run the install test on the packages */
	const char *cache_dir; /* where its Debian root is kept */
};

struct buildjob_result {
	char id[9]; /* in the release: -bisectd.ID */
	char base_hex[GU_HEXSZ + 1], patched_hex[GU_HEXSZ + 1];
	struct step_result smoke; /* the build and boot */
	struct package_result packages;
	char *pkgdir; /* OUT/packages, there only when built */
	int built;
	struct install_result install; /* when installed is 1 */
	int installed;
};

/*
 * Run the build job.  A patch that does not apply is ERR_INPUT naming
 * it, the file and the hunk; a tree that does not build or package is
 * r->built == 0 with the reason in r->smoke.title (and verdict skip,
 * or infra when the machine failed).
 */
int buildjob_run(struct buildjob_result *r, const struct buildjob_spec *b);
void buildjob_release(struct buildjob_result *r);
/* "built", "boot failed", "install failed", "build failed" or "infra". */
const char *buildjob_outcome(const struct buildjob_result *r);

/*
 * Generic mode: check commit out into worktree and run command there
 * with sh -c (BISECT_COMMIT set), its output in log.  The exit status
 * decides as in git bisect run: 0 good, 125 skip, 1-127 bad; 128 and
 * above, or a signal, is an infra verdict.
 */
struct steprun_env;
int steprun_command(struct step_result *st, struct gu_repo *repo,
		    const char *worktree, const struct gu_oid *commit,
		    const char *command, int network, const char *log,
		    const struct steprun_env *env);

/* A stable directory name for a repository: a hash of its git dir. */
char *steprun_repo_key(struct gu_repo *repo);

struct step_assignment;

/* Where a worker keeps its checkouts, builds and step logs. */
struct steprun_env {
	const char *cache_dir;	 /* mirrors and work directories */
	const char *recipe_path; /* colon-separated recipe directories */
	const char *slot;	 /* work directory suffix, "" for the first */
	const char *step_dir;	 /* this step's logs */
	int live;		 /* live indicator on stderr */
	const char *sign_key, *sign_cert; /* for build jobs, or NULL */
	/* a generic job's command comes from the network: run it in the
	 * sandbox, as nobody, without network or the worker's environment,
	 * within these limits (bisect-worker); 0 for the user's own */
	int sandbox_commands;
	double command_timeout_s;
	long command_memory_mb;
	unsigned command_procs;		 /* processes at once */
	unsigned long command_output_mb; /* the largest file it writes */
	/* whom it runs as; 0: nobody in a user namespace (not root) */
	unsigned command_uid, command_gid;
	int command_network; /* it may have the network when it asks */
};

/*
 * Run one assignment from the coordinator: open the repository (a path,
 * or a URL mirrored under the cache), find the recipe, lock the work
 * directory, run the step.  Problems with the step itself (an unknown
 * recipe, a missing commit) become an infra verdict with the reason as
 * its title; the return value is nonzero only when out of memory.
 */
int steprun_assignment(struct step_result *st, const struct step_assignment *a,
		       const struct steprun_env *env);

#endif
