/* The least a fresh process can do towards a 31-day calendar.agenda: open the database and read the rows
 * the host reads (the statement of EventRows.touching, the same bound values), touching every byte of each
 * body. No rule expanded, no answer written. Usage: agenda-rows DB FIRST_DAY LAST_DAY (days since 1970). */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 4) return 64;
    sqlite3 *db;
    sqlite3_stmt *statement;
    if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) return 1;
    const char *sql = "SELECT id, first_day, last_day, body FROM calendar_event "
                      "WHERE (long_span = 0 AND first_day BETWEEN ? AND ? AND last_day >= ?) "
                      "OR (long_span = 1 AND first_day <= ? AND (last_day IS NULL OR last_day >= ?))";
    if (sqlite3_prepare_v2(db, sql, -1, &statement, NULL) != SQLITE_OK) return 2;
    long long lower = atoll(argv[2]), upper = atoll(argv[3]);
    sqlite3_bind_int64(statement, 1, lower - 31); /* EventRow.shortSpanDays */
    sqlite3_bind_int64(statement, 2, upper);
    sqlite3_bind_int64(statement, 3, lower);
    sqlite3_bind_int64(statement, 4, upper);
    sqlite3_bind_int64(statement, 5, lower);
    long rows = 0, bytes = 0;
    unsigned sum = 0;
    int step;
    while ((step = sqlite3_step(statement)) == SQLITE_ROW) {
        const unsigned char *body = sqlite3_column_text(statement, 3);
        int count = sqlite3_column_bytes(statement, 3);
        for (int i = 0; i < count; i++) sum += body[i];
        rows++;
        bytes += count;
    }
    if (step != SQLITE_DONE) return 3;
    printf("%ld rows, %ld bytes (sum %u)\n", rows, bytes, sum);
    sqlite3_finalize(statement);
    sqlite3_close(db);
    return 0;
}
