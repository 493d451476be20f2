// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SQLite store.
 *
 * Design.  One database file in the state directory, in WAL mode with
 * synchronous=NORMAL: a transaction that committed survives the process
 * being killed at any moment, which is what restart safety rests on.  The
 * schema is created on open (IF NOT EXISTS); user_version marks it.
 * Statements are prepared per call: the daemon's load is a few hundred
 * requests a second, and this keeps every function self-contained.
 */
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "digest.h"
#include "error.h"
#include "regstats.h"
#include "store.h"

struct store {
	sqlite3 *db;
};

static const char schema[] =
	"CREATE TABLE IF NOT EXISTS jobs ("
	" id INTEGER PRIMARY KEY, type TEXT NOT NULL, state INTEGER NOT NULL,"
	" spec TEXT NOT NULL, result TEXT, culprit TEXT, reason TEXT,"
	" created REAL NOT NULL, started REAL, finished REAL, callback TEXT,"
	" hook_state TEXT NOT NULL DEFAULT 'none',"
	" hook_attempts INTEGER NOT NULL DEFAULT 0,"
	" hook_next REAL NOT NULL DEFAULT 0, hook_error TEXT,"
	" candidates INTEGER NOT NULL DEFAULT 0, outcome TEXT, owner TEXT);"
	"CREATE INDEX IF NOT EXISTS jobs_state ON jobs(state, id);"
	"CREATE TABLE IF NOT EXISTS steps ("
	" id INTEGER PRIMARY KEY, job INTEGER NOT NULL REFERENCES jobs(id),"
	" hex TEXT NOT NULL, role TEXT NOT NULL, state INTEGER NOT NULL,"
	" round INTEGER NOT NULL, candidates INTEGER NOT NULL,"
	" worker INTEGER, lease TEXT UNIQUE, lease_until REAL,"
	" attempts INTEGER NOT NULL DEFAULT 0, cache_key TEXT,"
	" cached INTEGER NOT NULL DEFAULT 0, verdict TEXT, result TEXT,"
	" queued REAL NOT NULL, started REAL, finished REAL);"
	"CREATE INDEX IF NOT EXISTS steps_job ON steps(job, id);"
	"CREATE INDEX IF NOT EXISTS steps_state ON steps(state, job, id);"
	"CREATE TABLE IF NOT EXISTS workers ("
	" id INTEGER PRIMARY KEY, name TEXT NOT NULL, caps TEXT NOT NULL,"
	" registered REAL NOT NULL, last_seen REAL NOT NULL, token TEXT);"
	"CREATE TABLE IF NOT EXISTS tokens ("
	" hash TEXT PRIMARY KEY, role TEXT NOT NULL, name TEXT NOT NULL);"
	"CREATE TABLE IF NOT EXISTS cache ("
	" key TEXT PRIMARY KEY, verdict TEXT NOT NULL, result TEXT NOT NULL,"
	" created REAL NOT NULL);"
	"CREATE TABLE IF NOT EXISTS artifacts ("
	" step INTEGER NOT NULL, name TEXT NOT NULL, size INTEGER NOT NULL,"
	" sha256 TEXT NOT NULL, PRIMARY KEY(step, name));"
	/* regressions per subsystem from verified bisections: each job once;
	 * each culprit and each commit once per subsystem */
	"CREATE TABLE IF NOT EXISTS stats_jobs ("
	" job INTEGER PRIMARY KEY, repo TEXT NOT NULL, culprit TEXT);"
	"CREATE TABLE IF NOT EXISTS stats_regressions ("
	" repo TEXT NOT NULL, culprit TEXT NOT NULL, subsystem TEXT NOT NULL,"
	" days REAL NOT NULL, PRIMARY KEY(repo, culprit, subsystem))"
	" WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS stats_commits ("
	" repo TEXT NOT NULL, hex TEXT NOT NULL, subsystem TEXT NOT NULL,"
	" PRIMARY KEY(repo, hex, subsystem)) WITHOUT ROWID;"
	"PRAGMA user_version = 4;";

/* an older state database gets the columns that came later */
static int upgrade(sqlite3 *db)
{
	sqlite3_stmt *st;
	int version = 0;

	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL))
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (version == 1 &&
	    sqlite3_exec(db, "ALTER TABLE jobs ADD COLUMN outcome TEXT;", NULL,
			 NULL, NULL) != SQLITE_OK)
		return -1;
	if ((version == 1 || version == 2) &&
	    sqlite3_exec(db, "ALTER TABLE jobs ADD COLUMN owner TEXT;", NULL,
			 NULL, NULL) != SQLITE_OK)
		return -1;
	/* a worker registered before this is bound to no token: its next
	 * poll is refused, and it registers again */
	if (version >= 1 && version <= 3 &&
	    sqlite3_exec(db, "ALTER TABLE workers ADD COLUMN token TEXT;", NULL,
			 NULL, NULL) != SQLITE_OK)
		return -1;
	return 0;
}

static int db_err(struct store *s, const char *what)
{
	return err_set(ERR_INFRA, "state database: %s: %s", what,
		       sqlite3_errmsg(s->db));
}

double store_time(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int store_autocheckpoint_off(struct store *s)
{
	/* the log's file is cut back to 16 MiB when it starts again */
	return sqlite3_exec(s->db,
			    "PRAGMA wal_autocheckpoint=0;"
			    "PRAGMA journal_size_limit=16777216;",
			    NULL, NULL, NULL) == SQLITE_OK
		       ? 0
		       : db_err(s, "wal_autocheckpoint");
}

int store_cache_kib(struct store *s, int kib)
{
	char sql[64];

	snprintf(sql, sizeof(sql), "PRAGMA cache_size=-%d", kib);
	return sqlite3_exec(s->db, sql, NULL, NULL, NULL) == SQLITE_OK
		       ? 0
		       : db_err(s, "cache_size");
}

int store_checkpoint(struct store *s)
{
	int rc = sqlite3_wal_checkpoint_v2(
		s->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);

	return rc == SQLITE_OK || rc == SQLITE_BUSY ? 0
						    : db_err(s, "checkpoint");
}

int store_open(struct store **out, const char *path)
{
	struct store *s = calloc(1, sizeof(*s));
	int rc;

	*out = NULL;
	if (!s)
		return err_set(ERR_NOMEM, "out of memory");
	rc = sqlite3_open_v2(path, &s->db,
			     SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
				     SQLITE_OPEN_FULLMUTEX,
			     NULL);
	if (rc != SQLITE_OK) {
		rc = err_set(ERR_INFRA, "cannot open state database '%s': %s",
			     path, s->db ? sqlite3_errmsg(s->db) : "no memory");
		sqlite3_close(s->db);
		free(s);
		return rc;
	}
	sqlite3_busy_timeout(s->db, 5000);
	if (sqlite3_exec(s->db,
			 "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
			 "PRAGMA foreign_keys=ON;",
			 NULL, NULL, NULL) != SQLITE_OK ||
	    upgrade(s->db) ||
	    sqlite3_exec(s->db, schema, NULL, NULL, NULL) != SQLITE_OK) {
		rc = err_set(ERR_INFRA, "state database '%s': %s", path,
			     sqlite3_errmsg(s->db));
		sqlite3_close(s->db);
		free(s);
		return rc;
	}
	*out = s;
	return 0;
}

void store_close(struct store *s)
{
	if (!s)
		return;
	sqlite3_close(s->db);
	free(s);
}

static int exec(struct store *s, const char *sql)
{
	if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return db_err(s, sql);
	return 0;
}

int store_begin(struct store *s)
{
	return exec(s, "BEGIN IMMEDIATE");
}

int store_commit(struct store *s)
{
	return exec(s, "COMMIT");
}

void store_rollback(struct store *s)
{
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

/*
 * Prepare sql and bind the arguments that fmt describes, one letter each:
 * i (int), l (long long), d (double), s (string, NULL binds NULL).
 */
static sqlite3_stmt *prep(struct store *s, const char *sql, const char *fmt,
			  ...)
{
	sqlite3_stmt *st;
	va_list ap;
	int i;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
		db_err(s, "prepare");
		return NULL;
	}
	va_start(ap, fmt);
	for (i = 0; fmt[i]; i++) {
		const char *str;

		switch (fmt[i]) {
		case 'i':
			sqlite3_bind_int(st, i + 1, va_arg(ap, int));
			break;
		case 'l':
			sqlite3_bind_int64(st, i + 1, va_arg(ap, long long));
			break;
		case 'd':
			sqlite3_bind_double(st, i + 1, va_arg(ap, double));
			break;
		case 's':
			str = va_arg(ap, const char *);
			if (str)
				sqlite3_bind_text(st, i + 1, str, -1,
						  SQLITE_TRANSIENT);
			else
				sqlite3_bind_null(st, i + 1);
			break;
		}
	}
	va_end(ap);
	return st;
}

/* Step a statement that returns no rows, and finalize it. */
static int run(struct store *s, sqlite3_stmt *st)
{
	int rc;

	if (!st)
		return ERR_INFRA;
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_err(s, "write");
	return 0;
}

static char *col_dup(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	return t ? strdup((const char *)t) : NULL;
}

static void col_copy(char *out, size_t size, sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	snprintf(out, size, "%s", t ? (const char *)t : "");
}

int store_job_insert(struct store *s, long long *id, const char *type,
		     int state, const char *spec, const char *callback,
		     const char *owner)
{
	int rc = run(s, prep(s,
			     "INSERT INTO jobs(type, state, spec, created, "
			     "callback, owner) VALUES(?, ?, ?, ?, ?, ?)",
			     "sisdss", type, state, spec, store_time(),
			     callback, owner));

	if (!rc)
		*id = sqlite3_last_insert_rowid(s->db);
	return rc;
}

int store_job_fetched(struct store *s, long long id, const char *spec)
{
	int rc = run(s, prep(s,
			     "UPDATE jobs SET spec = ?, state = ? "
			     "WHERE id = ? AND state = ?",
			     "sili", spec, JOB_QUEUED, id, JOB_FETCHING));

	if (rc)
		return rc;
	return sqlite3_changes(s->db) > 0
		       ? 0
		       : err_set(ERR_NOTFOUND, "job %lld is not fetching", id);
}

#define JOB_COLUMNS                                                            \
	"id, type, state, spec, result, culprit, reason, created, started,"    \
	" finished, callback, hook_state, hook_attempts, hook_next,"           \
	" hook_error, candidates, outcome, owner"

static void job_from_row(struct store_job *j, sqlite3_stmt *st)
{
	j->id = sqlite3_column_int64(st, 0);
	j->type = col_dup(st, 1);
	j->state = sqlite3_column_int(st, 2);
	j->spec = col_dup(st, 3);
	j->result = col_dup(st, 4);
	j->culprit = col_dup(st, 5);
	j->reason = col_dup(st, 6);
	j->created = sqlite3_column_double(st, 7);
	j->started = sqlite3_column_double(st, 8);
	j->finished = sqlite3_column_double(st, 9);
	j->callback = col_dup(st, 10);
	j->hook_state = col_dup(st, 11);
	j->hook_attempts = sqlite3_column_int(st, 12);
	j->hook_next = sqlite3_column_double(st, 13);
	j->hook_error = col_dup(st, 14);
	j->candidates = sqlite3_column_int64(st, 15);
	j->outcome = col_dup(st, 16);
	j->owner = col_dup(st, 17);
}

int store_job_get(struct store *s, long long id, struct store_job *out)
{
	sqlite3_stmt *st = prep(
		s, "SELECT " JOB_COLUMNS " FROM jobs WHERE id = ?", "l", id);
	int rc;

	memset(out, 0, sizeof(*out));
	if (!st)
		return ERR_INFRA;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		job_from_row(out, st);
		rc = out->type && out->spec
			     ? 0
			     : err_set(ERR_NOMEM, "out of memory");
	} else if (rc == SQLITE_DONE) {
		rc = err_set(ERR_NOTFOUND, "no job %lld", id);
	} else {
		rc = db_err(s, "read job");
	}
	sqlite3_finalize(st);
	return rc;
}

/* Each job that the query st (of JOB_COLUMNS) gives to fn; st is taken. */
static int each_job(struct store *s, sqlite3_stmt *st,
		    int (*fn)(const struct store_job *j, void *payload),
		    void *payload)
{
	int rc;

	if (!st)
		return ERR_INFRA;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_job j = { 0 };
		int stop;

		job_from_row(&j, st);
		stop = fn(&j, payload);
		store_job_release(&j);
		if (stop)
			break;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_err(s, "list jobs");
	return 0;
}

int store_job_list(struct store *s, int state, long long before, int limit,
		   int (*fn)(const struct store_job *j, void *payload),
		   void *payload)
{
	return each_job(s,
			prep(s,
			     "SELECT " JOB_COLUMNS " FROM jobs WHERE "
			     "(? < 0 OR state = ?) AND (? <= 0 OR id < ?) "
			     "ORDER BY id DESC LIMIT ?",
			     "iilli", state, state, before, before, limit),
			fn, payload);
}

int store_job_each(struct store *s, int state,
		   int (*fn)(const struct store_job *j, void *payload),
		   void *payload)
{
	return each_job(s,
			prep(s,
			     "SELECT " JOB_COLUMNS " FROM jobs WHERE "
			     "state = ? ORDER BY id",
			     "i", state),
			fn, payload);
}

int store_job_count_open(struct store *s, const char *owner, long long *out)
{
	sqlite3_stmt *st =
		prep(s,
		     "SELECT COUNT(*) FROM jobs WHERE state IN "
		     "(?, ?, ?) AND owner = ?",
		     "iiis", JOB_QUEUED, JOB_RUNNING, JOB_FETCHING, owner);
	int rc;

	*out = 0;
	if (!st)
		return ERR_INFRA;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : db_err(s, "count jobs");
}

/* Collect the first column (ids) of a query into *ids. */
static int collect_ids(struct store *s, sqlite3_stmt *st, long long **ids,
		       size_t *n)
{
	size_t cap = 0;
	int rc;

	*ids = NULL;
	*n = 0;
	if (!st)
		return ERR_INFRA;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			long long *p;

			cap = cap ? cap * 2 : 16;
			p = realloc(*ids, cap * sizeof(*p));
			if (!p) {
				sqlite3_finalize(st);
				free(*ids);
				*ids = NULL;
				*n = 0;
				return err_set(ERR_NOMEM, "out of memory");
			}
			*ids = p;
		}
		(*ids)[(*n)++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(*ids);
		*ids = NULL;
		*n = 0;
		return db_err(s, "read ids");
	}
	return 0;
}

int store_job_ids(struct store *s, int state, long long **ids, size_t *n)
{
	return collect_ids(
		s,
		prep(s, "SELECT id FROM jobs WHERE state = ? ORDER BY id", "i",
		     state),
		ids, n);
}

int store_job_set_candidates(struct store *s, long long id, long long n)
{
	return run(s, prep(s,
			   "UPDATE jobs SET candidates = ? WHERE id = ? AND "
			   "candidates = 0",
			   "ll", n, id));
}

int store_job_set_outcome(struct store *s, long long id, const char *outcome)
{
	return run(s, prep(s, "UPDATE jobs SET outcome = ? WHERE id = ?", "sl",
			   outcome, id));
}

int store_job_start(struct store *s, long long id)
{
	return run(s, prep(s,
			   "UPDATE jobs SET state = ?, started = ? "
			   "WHERE id = ? AND state = ?",
			   "idli", JOB_RUNNING, store_time(), id, JOB_QUEUED));
}

int store_job_end(struct store *s, long long id, int state, const char *result,
		  const char *culprit, const char *reason)
{
	int rc = run(s, prep(s,
			     "UPDATE jobs SET state = ?, result = ?, "
			     "culprit = ?, reason = ?, finished = ?, "
			     "hook_state = CASE WHEN callback IS NULL "
			     "THEN 'none' ELSE 'pending' END, hook_next = ? "
			     "WHERE id = ? AND state IN (?, ?, ?)",
			     "isssddliii", state, result, culprit, reason,
			     store_time(), store_time(), id, JOB_QUEUED,
			     JOB_RUNNING, JOB_FETCHING));

	if (rc)
		return rc;
	return sqlite3_changes(s->db) > 0;
}

int store_hooks_due(struct store *s, double now, long long **ids, size_t *n)
{
	return collect_ids(s,
			   prep(s,
				"SELECT id FROM jobs WHERE hook_state = "
				"'pending' AND hook_next <= ? ORDER BY id",
				"d", now),
			   ids, n);
}

int store_hook_update(struct store *s, long long id, const char *state,
		      int attempts, double next, const char *error)
{
	return run(s, prep(s,
			   "UPDATE jobs SET hook_state = ?, hook_attempts = ?,"
			   " hook_next = ?, hook_error = ? WHERE id = ?",
			   "sidsl", state, attempts, next, error, id));
}

#define STEP_COLUMNS                                                           \
	"id, job, hex, role, state, round, candidates, worker, lease,"         \
	" lease_until, attempts, cache_key, cached, verdict, result, queued,"  \
	" started, finished"

static void step_from_row(struct store_step *o, sqlite3_stmt *st)
{
	memset(o, 0, sizeof(*o));
	o->id = sqlite3_column_int64(st, 0);
	o->job = sqlite3_column_int64(st, 1);
	col_copy(o->hex, sizeof(o->hex), st, 2);
	col_copy(o->role, sizeof(o->role), st, 3);
	o->state = sqlite3_column_int(st, 4);
	o->round = sqlite3_column_int(st, 5);
	o->candidates = sqlite3_column_int64(st, 6);
	o->worker = sqlite3_column_int64(st, 7);
	col_copy(o->lease, sizeof(o->lease), st, 8);
	o->lease_until = sqlite3_column_double(st, 9);
	o->attempts = sqlite3_column_int(st, 10);
	col_copy(o->cache_key, sizeof(o->cache_key), st, 11);
	o->cached = sqlite3_column_int(st, 12);
	col_copy(o->verdict, sizeof(o->verdict), st, 13);
	o->result = col_dup(st, 14);
	o->queued = sqlite3_column_double(st, 15);
	o->started = sqlite3_column_double(st, 16);
	o->finished = sqlite3_column_double(st, 17);
}

int store_steps_of_job(struct store *s, long long job, struct store_step **out,
		       size_t *n)
{
	sqlite3_stmt *st = prep(s,
				"SELECT " STEP_COLUMNS
				" FROM steps WHERE job = ? ORDER BY id",
				"l", job);
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (!st)
		return ERR_INFRA;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			struct store_step *p;

			cap = cap ? cap * 2 : 32;
			p = realloc(*out, cap * sizeof(*p));
			if (!p) {
				rc = SQLITE_NOMEM;
				break;
			}
			*out = p;
		}
		step_from_row(&(*out)[(*n)++], st);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		store_steps_release(*out, *n);
		*out = NULL;
		*n = 0;
		return rc == SQLITE_NOMEM ? err_set(ERR_NOMEM, "out of memory")
					  : db_err(s, "read steps");
	}
	return 0;
}

static int one_step(struct store *s, sqlite3_stmt *st, struct store_step *out,
		    const char *what)
{
	int rc;

	if (!st)
		return ERR_INFRA;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		step_from_row(out, st);
		rc = 0;
	} else if (rc == SQLITE_DONE) {
		rc = err_set(ERR_NOTFOUND, "no such %s", what);
	} else {
		rc = db_err(s, "read step");
	}
	sqlite3_finalize(st);
	return rc;
}

int store_step_get(struct store *s, long long id, struct store_step *out)
{
	return one_step(s,
			prep(s,
			     "SELECT " STEP_COLUMNS " FROM steps WHERE id = ?",
			     "l", id),
			out, "step");
}

int store_step_insert(struct store *s, long long *id, long long job,
		      const char *hex, const char *role, int round,
		      long long candidates, const char *cache_key)
{
	int rc = run(s, prep(s,
			     "INSERT INTO steps(job, hex, role, state, round, "
			     "candidates, cache_key, queued) "
			     "VALUES(?, ?, ?, ?, ?, ?, ?, ?)",
			     "lssiilsd", job, hex, role, STEP_QUEUED, round,
			     candidates, cache_key, store_time()));

	if (!rc && id)
		*id = sqlite3_last_insert_rowid(s->db);
	return rc;
}

int store_step_done(struct store *s, long long id, const char *verdict,
		    const char *result, int cached)
{
	return run(s, prep(s,
			   "UPDATE steps SET state = ?, verdict = ?, "
			   "result = ?, cached = ?, finished = ?, lease = NULL "
			   "WHERE id = ?",
			   "issidl", STEP_DONE, verdict, result, cached,
			   store_time(), id));
}

int store_step_cancel(struct store *s, long long id)
{
	return run(s, prep(s,
			   "UPDATE steps SET state = ?, finished = ?, "
			   "lease = NULL WHERE id = ? AND state IN (?, ?)",
			   "idlii", STEP_CANCELLED, store_time(), id,
			   STEP_QUEUED, STEP_LEASED));
}

int store_job_cancel_steps(struct store *s, long long job)
{
	return run(s, prep(s,
			   "UPDATE steps SET state = ?, finished = ?, "
			   "lease = NULL WHERE job = ? AND state IN (?, ?)",
			   "idlii", STEP_CANCELLED, store_time(), job,
			   STEP_QUEUED, STEP_LEASED));
}

int store_step_lease(struct store *s, long long worker, double lease_s,
		     int (*fn)(const struct store_step *st, void *payload),
		     void *payload, struct store_step *out)
{
	sqlite3_stmt *st = prep(s,
				"SELECT " STEP_COLUMNS " FROM steps "
				"WHERE state = ? ORDER BY job, id",
				"i", STEP_QUEUED);
	char lease[33];
	int rc, found = 0;

	if (!st)
		return ERR_INFRA;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		step_from_row(out, st);
		if (fn(out, payload) == 1) {
			found = 1;
			break;
		}
		free(out->result);
		out->result = NULL;
	}
	sqlite3_finalize(st);
	if (!found)
		return rc == SQLITE_DONE || rc == SQLITE_ROW
			       ? err_set(ERR_NOTFOUND, "no step to take")
			       : db_err(s, "read queue");
	if ((rc = digest_random_hex(lease, 16)))
		return rc;
	out->state = STEP_LEASED;
	out->worker = worker;
	out->started = store_time();
	out->lease_until = out->started + lease_s;
	snprintf(out->lease, sizeof(out->lease), "%s", lease);
	return run(s, prep(s,
			   "UPDATE steps SET state = ?, worker = ?, lease = ?, "
			   "lease_until = ?, started = ? WHERE id = ?",
			   "ilsddl", STEP_LEASED, worker, lease,
			   out->lease_until, out->started, out->id));
}

int store_lease_find(struct store *s, const char *lease, struct store_step *out)
{
	return one_step(s,
			prep(s,
			     "SELECT " STEP_COLUMNS " FROM steps WHERE "
			     "lease = ? AND state = ? AND lease_until >= ?",
			     "sid", lease, STEP_LEASED, store_time()),
			out, "lease");
}

int store_lease_extend(struct store *s, const char *lease, double lease_s)
{
	int rc = run(s, prep(s,
			     "UPDATE steps SET lease_until = ? WHERE lease = ? "
			     "AND state = ? AND lease_until >= ?",
			     "dsid", store_time() + lease_s, lease, STEP_LEASED,
			     store_time()));

	if (rc)
		return rc;
	return sqlite3_changes(s->db) > 0
		       ? 0
		       : err_set(ERR_NOTFOUND, "lease expired or cancelled");
}

int store_expire_leases(struct store *s, double now, int max_attempts,
			long long **jobs, size_t *n)
{
	int rc = collect_ids(s,
			     prep(s,
				  "SELECT DISTINCT job FROM steps WHERE "
				  "state = ? AND lease_until < ?",
				  "id", STEP_LEASED, now),
			     jobs, n);

	if (rc || *n == 0)
		return rc;
	rc = run(s, prep(s,
			 "UPDATE steps SET attempts = attempts + 1, "
			 "lease = NULL, worker = NULL, state = CASE WHEN "
			 "attempts + 1 >= ? THEN ? ELSE ? END, verdict = CASE "
			 "WHEN attempts + 1 >= ? THEN 'infra' END, "
			 "result = CASE WHEN attempts + 1 >= ? THEN "
			 "'{\"verdict\":\"infra\",\"title\":\"worker lost "
			 "(lease expired)\"}' END "
			 "WHERE state = ? AND lease_until < ?",
			 "iiiiiid", max_attempts, STEP_DONE, STEP_QUEUED,
			 max_attempts, max_attempts, STEP_LEASED, now));
	if (rc) {
		free(*jobs);
		*jobs = NULL;
		*n = 0;
	}
	return rc;
}

int store_cache_get(struct store *s, const char *key, char verdict[8],
		    char **result)
{
	sqlite3_stmt *st = prep(
		s, "SELECT verdict, result FROM cache WHERE key = ?", "s", key);
	int rc;

	*result = NULL;
	if (!st)
		return ERR_INFRA;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		col_copy(verdict, 8, st, 0);
		*result = col_dup(st, 1);
		rc = 0;
	} else {
		rc = rc == SQLITE_DONE ? ERR_NOTFOUND : db_err(s, "cache");
	}
	sqlite3_finalize(st);
	return rc;
}

int store_cache_put(struct store *s, const char *key, const char *verdict,
		    const char *result)
{
	return run(s, prep(s,
			   "INSERT OR REPLACE INTO cache(key, verdict, result,"
			   " created) VALUES(?, ?, ?, ?)",
			   "sssd", key, verdict, result, store_time()));
}

int store_worker_add(struct store *s, long long *id, const char *name,
		     const char *token, const char *caps)
{
	int rc = run(s, prep(s,
			     "INSERT INTO workers(name, caps, registered, "
			     "last_seen, token) VALUES(?, ?, ?, ?, ?)",
			     "ssdds", name, caps, store_time(), store_time(),
			     token));

	if (!rc)
		*id = sqlite3_last_insert_rowid(s->db);
	return rc;
}

int store_worker_seen(struct store *s, long long id)
{
	int rc = run(s, prep(s, "UPDATE workers SET last_seen = ? WHERE id = ?",
			     "dl", store_time(), id));

	if (rc)
		return rc;
	return sqlite3_changes(s->db) > 0
		       ? 0
		       : err_set(ERR_NOTFOUND, "unknown worker %lld", id);
}

int store_worker_token(struct store *s, long long id, char token[65])
{
	sqlite3_stmt *st =
		prep(s, "SELECT token FROM workers WHERE id = ?", "l", id);
	int rc;

	token[0] = '\0';
	if (!st)
		return ERR_INFRA;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		col_copy(token, 65, st, 0);
		rc = 0;
	} else {
		rc = rc == SQLITE_DONE
			     ? err_set(ERR_NOTFOUND, "unknown worker %lld", id)
			     : db_err(s, "read worker");
	}
	sqlite3_finalize(st);
	return rc;
}

int store_worker_caps(struct store *s, long long id, char **caps)
{
	sqlite3_stmt *st =
		prep(s, "SELECT caps FROM workers WHERE id = ?", "l", id);
	int rc;

	*caps = NULL;
	if (!st)
		return ERR_INFRA;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*caps = col_dup(st, 0);
		rc = *caps ? 0 : err_set(ERR_NOMEM, "out of memory");
	} else {
		rc = rc == SQLITE_DONE
			     ? err_set(ERR_NOTFOUND, "unknown worker %lld", id)
			     : db_err(s, "read worker");
	}
	sqlite3_finalize(st);
	return rc;
}

int store_workers_live(struct store *s, double since,
		       int (*fn)(long long id, const char *caps, void *payload),
		       void *payload)
{
	sqlite3_stmt *st =
		prep(s, "SELECT id, caps FROM workers WHERE last_seen >= ?",
		     "d", since);
	int rc;

	if (!st)
		return ERR_INFRA;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (fn(sqlite3_column_int64(st, 0),
		       (const char *)sqlite3_column_text(st, 1), payload))
			break;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_err(s, "read workers");
	return 0;
}

int store_token_add(struct store *s, const char *hash, const char *role,
		    const char *name)
{
	int rc = run(s, prep(s,
			     "INSERT OR REPLACE INTO tokens(hash, role, name) "
			     "SELECT ?, ?, ? WHERE NOT EXISTS "
			     "(SELECT 1 FROM tokens WHERE name = ?)",
			     "ssss", hash, role, name, name));

	if (!rc && !sqlite3_changes(s->db))
		rc = err_set(ERR_INPUT,
			     "there is a token named '%s' already (token "
			     "revoke '%s' first)",
			     name, name);
	return rc;
}

int store_token_role(struct store *s, const char *hash, char role[16],
		     char name[64])
{
	sqlite3_stmt *st = prep(
		s, "SELECT role, name FROM tokens WHERE hash = ?", "s", hash);
	int rc;

	if (!st)
		return ERR_INFRA;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		col_copy(role, 16, st, 0);
		col_copy(name, 64, st, 1);
		rc = 0;
	} else {
		rc = rc == SQLITE_DONE ? ERR_NOTFOUND : db_err(s, "tokens");
	}
	sqlite3_finalize(st);
	return rc;
}

int store_token_list(struct store *s,
		     int (*fn)(const char *hash, const char *role,
			       const char *name, void *payload),
		     void *payload)
{
	sqlite3_stmt *st = prep(
		s, "SELECT hash, role, name FROM tokens ORDER BY name, role",
		"");
	int rc;

	if (!st)
		return ERR_INFRA;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (fn((const char *)sqlite3_column_text(st, 0),
		       (const char *)sqlite3_column_text(st, 1),
		       (const char *)sqlite3_column_text(st, 2), payload))
			break;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_err(s, "read tokens");
	return 0;
}

int store_token_revoke(struct store *s, const char *name, int *count)
{
	int rc =
		run(s, prep(s, "DELETE FROM tokens WHERE name = ?", "s", name));

	*count = rc ? 0 : sqlite3_changes(s->db);
	return rc;
}

int store_artifact_add(struct store *s, long long step, const char *name,
		       long long size, const char *sha256)
{
	return run(s, prep(s,
			   "INSERT OR REPLACE INTO artifacts(step, name, size,"
			   " sha256) VALUES(?, ?, ?, ?)",
			   "lsls", step, name, size, sha256));
}

int store_artifacts(struct store *s, long long step,
		    int (*fn)(const char *name, long long size,
			      const char *sha256, void *payload),
		    void *payload)
{
	sqlite3_stmt *st = prep(s,
				"SELECT name, size, sha256 FROM artifacts "
				"WHERE step = ? ORDER BY name",
				"l", step);
	int rc;

	if (!st)
		return ERR_INFRA;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (fn((const char *)sqlite3_column_text(st, 0),
		       sqlite3_column_int64(st, 1),
		       (const char *)sqlite3_column_text(st, 2), payload))
			break;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_err(s, "read artifacts");
	return 0;
}

/* --- regressions per subsystem -------------------------------------------- */

int store_stats_pending(struct store *s, long long **ids, size_t *n)
{
	return collect_ids(
		s,
		prep(s,
		     "SELECT id FROM jobs WHERE type = 'bisect' AND state = ? "
		     "AND result = 'found' AND culprit IS NOT NULL AND "
		     "json_valid(outcome) AND "
		     "json_extract(outcome, '$.verified') = 1 AND "
		     /* a fix is no regression */
		     "json_extract(outcome, '$.fix') IS NOT 1 AND "
		     "id NOT IN (SELECT job FROM stats_jobs) ORDER BY id",
		     "i", JOB_DONE),
		ids, n);
}

int store_stats_add(struct store *s, long long job, const char *repo,
		    const char *culprit, double days, const char *const *subs,
		    size_t nsubs, const struct store_stats_row *rows,
		    size_t nrows)
{
	sqlite3_stmt *st;
	size_t i;
	int rc = store_begin(s);

	if (rc)
		return rc;
	st = prep(s,
		  "INSERT OR IGNORE INTO stats_jobs (job, repo, culprit) "
		  "VALUES (?, ?, ?)",
		  "lss", job, repo, culprit);
	rc = run(s, st);
	if (!rc && sqlite3_changes(s->db) == 0) {
		/* counted already, by another request */
		store_rollback(s);
		return 0;
	}
	for (i = 0; !rc && culprit && i < nsubs; i++)
		rc = run(s, prep(s,
				 "INSERT OR IGNORE INTO stats_regressions "
				 "(repo, culprit, subsystem, days) "
				 "VALUES (?, ?, ?, ?)",
				 "sssd", repo, culprit, subs[i], days));
	st = rc ? NULL
		: prep(s,
		       "INSERT OR IGNORE INTO stats_commits (repo, hex, "
		       "subsystem) VALUES (?, ?, ?)",
		       "");
	for (i = 0; st && i < nrows; i++) {
		sqlite3_bind_text(st, 1, repo, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, rows[i].hex, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, rows[i].subsystem, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE) {
			rc = db_err(s, "write");
			break;
		}
		sqlite3_reset(st);
	}
	if (!rc && !st)
		rc = ERR_INFRA;
	sqlite3_finalize(st);
	if (rc) {
		store_rollback(s);
		return rc;
	}
	return store_commit(s);
}

/* A number from a query of one row and one column. */
static long long count_of(struct store *s, const char *sql)
{
	sqlite3_stmt *st = prep(s, sql, "");
	long long v = -1;

	if (st && sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* The subsystem named name in out, added when it is not there yet. */
static struct regstats_subsystem *sub_named(struct regstats *out,
					    const char *name, size_t *cap)
{
	struct regstats_subsystem *sub;

	if (out->nsubs && !strcmp(out->subs[out->nsubs - 1].name, name))
		return &out->subs[out->nsubs - 1];
	if (out->nsubs == *cap) {
		size_t c = *cap ? 2 * *cap : 64;

		sub = realloc(out->subs, c * sizeof(*sub));
		if (!sub)
			return NULL;
		out->subs = sub;
		*cap = c;
	}
	sub = &out->subs[out->nsubs];
	memset(sub, 0, sizeof(*sub));
	sub->median_days = -1;
	if (!(sub->name = strdup(name)))
		return NULL;
	out->nsubs++;
	return sub;
}

int store_stats_load(struct store *s, struct regstats *out)
{
	/* one row per subsystem: its regressions' days in order, then its
	 * commits, subsystems in order */
	sqlite3_stmt *st = prep(
		s,
		"SELECT subsystem, 0, days FROM stats_regressions UNION ALL "
		"SELECT subsystem, 1, COUNT(*) FROM stats_commits "
		"GROUP BY subsystem ORDER BY 1, 2, 3",
		"");
	double *days = NULL;
	size_t ndays = 0, capdays = 0, cap = 0;
	long long jobs, regressions, commits;
	int rc = 0, r;

	memset(out, 0, sizeof(*out));
	out->from_bisections = 1;
	jobs = count_of(s, "SELECT COUNT(*) FROM stats_jobs");
	regressions = count_of(s, "SELECT COUNT(*) FROM (SELECT DISTINCT "
				  "repo, culprit FROM stats_jobs WHERE culprit "
				  "IS NOT NULL)");
	commits = count_of(s, "SELECT COUNT(*) FROM (SELECT DISTINCT repo, "
			      "hex FROM stats_commits)");
	if (!st || jobs < 0 || regressions < 0 || commits < 0) {
		sqlite3_finalize(st);
		return db_err(s, "read the stats");
	}
	out->bisections = (unsigned)jobs;
	out->regressions = (unsigned)regressions;
	out->commits = (unsigned)commits;
	out->range = strdup("bisectd's verified bisections");
	while (!rc && (r = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		struct regstats_subsystem *sub = sub_named(out, name, &cap);

		if (!sub) {
			rc = err_set(ERR_NOMEM, "out of memory");
		} else if (sqlite3_column_int(st, 1) == 0) {
			if (ndays && sub->regressions == 0)
				ndays = 0; /* a new subsystem */
			if (ndays == capdays) {
				double *d;

				capdays = capdays ? 2 * capdays : 64;
				d = realloc(days, capdays * sizeof(*d));
				if (!d) {
					rc = err_set(ERR_NOMEM,
						     "out of memory");
					break;
				}
				days = d;
			}
			/* in ascending order: the median so far */
			days[ndays++] = sqlite3_column_double(st, 2);
			sub->regressions++;
			sub->median_days = regstats_median(days, ndays);
		} else {
			sub->commits = (unsigned)sqlite3_column_int64(st, 2);
		}
	}
	if (!rc && r != SQLITE_DONE)
		rc = db_err(s, "read the stats");
	sqlite3_finalize(st);
	free(days);
	if (rc || !out->range) {
		regstats_release(out);
		return rc ? rc : err_set(ERR_NOMEM, "out of memory");
	}
	regstats_sort(out);
	return 0;
}

/* --- counts for /metrics -------------------------------------------------- */

/* "SELECT state, COUNT(*) ... GROUP BY state" into v[state]. */
static int by_state(struct store *s, const char *sql, long long *v, int n)
{
	sqlite3_stmt *st = prep(s, sql, "");
	int rc;

	if (!st)
		return ERR_INFRA;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int state = sqlite3_column_int(st, 0);

		if (state >= 0 && state < n)
			v[state] = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_err(s, "count");
}

int store_counts(struct store *s, struct store_counts *out)
{
	int rc;

	memset(out, 0, sizeof(*out));
	rc = by_state(s, "SELECT state, COUNT(*) FROM jobs GROUP BY state",
		      out->jobs, 6);
	if (!rc)
		rc = by_state(
			s, "SELECT state, COUNT(*) FROM steps GROUP BY state",
			out->steps, 4);
	out->expired = count_of(s, "SELECT COALESCE(SUM(attempts), 0) "
				   "FROM steps");
	out->hooks_pending = count_of(s, "SELECT COUNT(*) FROM jobs WHERE "
					 "hook_state = 'pending'");
	out->workers = count_of(s, "SELECT COUNT(*) FROM workers");
	if (!rc &&
	    (out->expired < 0 || out->hooks_pending < 0 || out->workers < 0))
		rc = db_err(s, "count");
	return rc;
}
