// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel cache: built kernel images by what they were built from.
 *
 * Design.  A kernel recipe without modules builds one file, the image.
 * Its inputs are the tree (the commit's tree id, patches included, since
 * a patched step is a commit of its own), the recipe's config inputs
 * (base, arch, fragments: pipeline_recipe_hash), the image's path and
 * the targets, LOCALVERSION and KBUILD_BUILD_VERSION, and the compiler.
 * Builds are reproducible (the pipeline fixes the user, host, build
 * version and timestamp), so a tree built twice gives the same image:
 * the cache stores the first one and a later step boots it without
 * building.  That is what makes a second job over the same history (a
 * new test, a new failure to look for, more runs) cost only boots.
 *
 *   <cache>/kernels/<key>/image      the image make built
 *   <cache>/kernels/<key>/config     the .config it was built with
 *   <cache>/kernels/<key>/sha256     the image's SHA-256, hex
 *
 * An entry is written in a directory of its own and renamed into place,
 * so a reader sees a whole entry or none, and two workers that built the
 * same key keep the first.  Entries are removed oldest first (by the
 * time they were last used) when the cache passes its size limit,
 * $BISECTD_KERNEL_CACHE_MB (default 2048; 0 turns the cache off).
 * Recipes with modules are not cached: their modules live in the work
 * directory, beside the build.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "digest.h"
#include "error.h"
#include "kcache.h"
#include "util.h"

static long long limit_bytes(void)
{
	const char *v = getenv("BISECTD_KERNEL_CACHE_MB");
	char *end;
	long long mb;

	if (!v || !*v)
		return 2048LL << 20;
	mb = strtoll(v, &end, 10);
	return *end || mb < 0 ? 2048LL << 20 : mb << 20;
}

static char *kernels_dir(void)
{
	char *cache = util_cache_dir(), *d;

	d = cache ? util_fmt("%s/kernels", cache) : NULL;
	free(cache);
	return d;
}

/* The compiler's version line: a new compiler makes new images. */
static void compiler_version(struct buf *b)
{
	const char *argv[] = { "gcc", "-dumpfullversion", NULL };
	struct proc_result pr;
	char tmp[] = "/tmp/bisectd-gcc.XXXXXX";
	int fd = mkstemp(tmp);
	struct proc_opts o = { .log_path = tmp };

	if (fd < 0)
		return;
	close(fd);
	if (!proc_run(&pr, argv, &o) && pr.exited && pr.status == 0)
		buf_read_file(b, tmp);
	unlink(tmp);
}

int kcache_key(char out[KCACHE_KEYSZ + 1], const struct kcache_inputs *in)
{
	static char compiler[256];
	static int have_compiler;
	struct buf b;

	if (!have_compiler) {
		struct buf c;

		buf_init(&c, sizeof(compiler) - 1);
		compiler_version(&c);
		snprintf(compiler, sizeof(compiler), "%s", buf_str(&c));
		buf_release(&c);
		have_compiler = 1;
	}
	buf_init(&b, 1 << 16);
	if (buf_printf(&b,
		       "kcache 2\ntenant %s\ntree %s\nrecipe %llx\nimage %s\n",
		       in->tenant ? in->tenant : "-", in->tree, in->recipe_hash,
		       in->image) ||
	    buf_printf(&b, "targets %s\nlocalversion %s\nbuild %s\ncc %s\n",
		       in->targets, in->localversion ? in->localversion : "-",
		       in->build_version ? in->build_version : "-", compiler)) {
		buf_release(&b);
		return err_set(ERR_NOMEM, "out of memory");
	}
	digest_sha256_hex(out, b.ptr, b.len);
	buf_release(&b);
	return 0;
}

int kcache_enabled(void)
{
	return limit_bytes() > 0;
}

int kcache_lookup(struct kcache_entry *out, const char *key)
{
	char *dir = kernels_dir();
	struct buf sum;
	int hit = 0;

	memset(out, 0, sizeof(*out));
	if (!dir || !kcache_enabled()) {
		free(dir);
		return 0;
	}
	out->image = util_fmt("%s/%s/image", dir, key);
	out->config = util_fmt("%s/%s/config", dir, key);
	buf_init(&sum, 4096);
	if (out->image && out->config && !access(out->image, R_OK) &&
	    !access(out->config, R_OK)) {
		char *p = util_fmt("%s/%s/sha256", dir, key);

		if (p && !buf_read_file(&sum, p) && sum.len >= DIGEST_HEXSZ) {
			memcpy(out->sha256, sum.ptr, DIGEST_HEXSZ);
			out->sha256[DIGEST_HEXSZ] = '\0';
			hit = 1;
		}
		free(p);
	}
	buf_release(&sum);
	if (hit) {
		/* the last use orders eviction */
		char *d = util_fmt("%s/%s", dir, key);

		if (d)
			utimensat(AT_FDCWD, d, NULL, 0);
		free(d);
	} else {
		kcache_entry_release(out);
	}
	free(dir);
	return hit;
}

struct entry {
	char *path;
	time_t used;
	long long bytes;
};

static int older(const void *a, const void *b)
{
	time_t x = ((const struct entry *)a)->used,
	       y = ((const struct entry *)b)->used;

	return x < y ? -1 : x > y;
}

static long long entry_bytes(const char *dir)
{
	static const char *const names[] = { "image", "config", "sha256" };
	long long n = 0;
	size_t i;

	for (i = 0; i < 3; i++) {
		char *p = util_fmt("%s/%s", dir, names[i]);
		struct stat st;

		if (p && !stat(p, &st))
			n += (long long)st.st_size;
		free(p);
	}
	return n;
}

/* Remove the least recently used entries until the cache fits. */
static void evict(const char *dir, long long limit)
{
	struct entry *e = NULL;
	size_t n = 0, cap = 0, i;
	long long total = 0;
	struct dirent *d;
	DIR *dp = opendir(dir);

	if (!dp)
		return;
	while ((d = readdir(dp))) {
		struct stat st;
		char *p;

		if (d->d_name[0] == '.' || strlen(d->d_name) != KCACHE_KEYSZ)
			continue;
		if (!(p = util_fmt("%s/%s", dir, d->d_name)))
			break;
		if (stat(p, &st) || !S_ISDIR(st.st_mode)) {
			free(p);
			continue;
		}
		if (n == cap) {
			struct entry *g =
				realloc(e, (cap ? cap * 2 : 64) * sizeof(*e));
			if (!g) {
				free(p);
				break;
			}
			e = g;
			cap = cap ? cap * 2 : 64;
		}
		e[n].path = p;
		e[n].used = st.st_mtime;
		e[n].bytes = entry_bytes(p);
		total += e[n++].bytes;
	}
	closedir(dp);
	qsort(e, n, sizeof(*e), older);
	for (i = 0; i < n && total > limit; i++) {
		util_remove_tree(e[i].path);
		total -= e[i].bytes;
	}
	for (i = 0; i < n; i++)
		free(e[i].path);
	free(e);
}

static int copy_file(const char *from, const char *to)
{
	struct buf b;
	int rc;

	buf_init(&b, 1u << 30);
	rc = buf_read_file(&b, from);
	if (!rc)
		rc = util_write_atomic(to, b.ptr ? b.ptr : "", b.len);
	buf_release(&b);
	return rc;
}

int kcache_store(const char *key, const char *image, const char *config,
		 const char sha256[DIGEST_HEXSZ + 1])
{
	char *dir = kernels_dir(), *tmp = NULL, *dst = NULL, *p = NULL,
	     *c = NULL, *s = NULL;
	int rc;

	if (!dir)
		return err_set(ERR_NOMEM, "out of memory");
	if (!kcache_enabled()) {
		free(dir);
		return 0;
	}
	tmp = util_fmt("%s/.new-%d-%s", dir, (int)getpid(), key);
	dst = util_fmt("%s/%s", dir, key);
	if (tmp && dst) {
		p = util_fmt("%s/image", tmp);
		c = util_fmt("%s/config", tmp);
		s = util_fmt("%s/sha256", tmp);
	}
	rc = p && c && s ? 0 : err_set(ERR_NOMEM, "out of memory");
	if (!rc)
		util_remove_tree(tmp);
	if (!rc && !(rc = util_mkdir_p(tmp)) && !(rc = copy_file(image, p)) &&
	    !(rc = copy_file(config, c)) &&
	    !(rc = util_write_atomic(s, sha256, DIGEST_HEXSZ))) {
		if (rename(tmp, dst) && errno != EEXIST && errno != ENOTEMPTY)
			rc = err_sys(ERR_INFRA, "cannot rename '%s'", tmp);
	}
	if (tmp)
		util_remove_tree(tmp); /* a loser of a race, or a failure */
	if (!rc)
		evict(dir, limit_bytes());
	free(dir);
	free(tmp);
	free(dst);
	free(p);
	free(c);
	free(s);
	return rc;
}

void kcache_entry_release(struct kcache_entry *e)
{
	free(e->image);
	free(e->config);
	e->image = e->config = NULL;
}
