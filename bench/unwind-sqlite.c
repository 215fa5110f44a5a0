// SPDX-License-Identifier: MIT
/*
 * bench/unwind.sh workload: sqlite (Debian's libsqlite3, built without frame pointers)
 * on an in-memory database: indexed inserts, a group-by, a self-join and a recursive CTE.
 * Usage: unwind-sqlite [ROWS] (default 100000). Prints "cpu_ms=N" (its own CPU time).
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void run(sqlite3 *db, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, "unwind-sqlite: %s\n", err ? err : "error");
		exit(2);
	}
}

int main(int argc, char **argv)
{
	int rows = argc > 1 ? atoi(argv[1]) : 100000, i;
	struct timespec ts;
	sqlite3_stmt *st;
	sqlite3 *db;
	char key[32];

	if (sqlite3_open(":memory:", &db) != SQLITE_OK)
		return 2;
	run(db, "create table t(a integer primary key, b text, c real); create index tb on t(b)");
	run(db, "begin");
	if (sqlite3_prepare_v2(db, "insert into t(b, c) values (?, ?)", -1, &st, NULL) != SQLITE_OK)
		return 2;
	for (i = 0; i < rows; i++) {
		snprintf(key, sizeof(key), "k%08x", (unsigned)i * 2654435761u);
		sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
		sqlite3_bind_double(st, 2, i * 0.5);
		sqlite3_step(st);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	run(db, "commit");
	run(db, "select b, sum(c) from t group by substr(b, 1, 3) order by 2 desc");
	run(db, "select count(*) from t t1 join t t2 on t1.b = t2.b where t1.c > 10");
	run(db, "with recursive r(x) as (select 1 union all select x + 1 from r where x < 100000) "
		"select sum(x) from r");
	sqlite3_close(db);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	printf("cpu_ms=%.1f\n", ts.tv_sec * 1e3 + ts.tv_nsec / 1e6);
	return 0;
}
