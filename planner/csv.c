/* The planner's data tables (data/efficiency.csv, quality.csv,
 * published_bench.csv) are plain CSV without quoting: one reader for all. */
#include "planner/planner.h"

#include <string.h>

int plan_csv_line(const char **cursor, char *line, size_t cap) {
    const char *p = *cursor;
    if (!*p) return 0;
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    *cursor = nl ? nl + 1 : p + len;
    if (len >= cap) return -1;
    memcpy(line, p, len);
    if (len && line[len - 1] == '\r') len--;
    line[len] = '\0';
    return 1;
}

int plan_csv_fields(char *line, char **f, int max) {
    int n = 0;
    for (char *p = line; n < max;) {
        f[n++] = p;
        if (n == max) break; /* the last field keeps the rest, commas included */
        char *c = strchr(p, ',');
        if (!c) break;
        *c = '\0';
        p = c + 1;
    }
    return n;
}

int plan_csv_data_line(const char **cursor, char *line, size_t cap, bool *header) {
    int got;
    while ((got = plan_csv_line(cursor, line, cap)) != 0) {
        if (got < 0 || !line[0] || line[0] == '#') continue;
        if (*header) return 1;
        *header = true;
    }
    return 0;
}
