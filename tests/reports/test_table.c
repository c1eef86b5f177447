/* rep_table: every writer renders the same data, aligned and escaped. */
#include "reports/reports.h"
#include "tests/check.h"

#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { C_NAME, C_SIZE, C_BW, C_TS, C_NOTE, C_COUNT };
static const rep_col cols[C_COUNT] = {
    {"name", "model", REP_LEFT, false},
    {"size_bytes", "size", REP_RIGHT, false},
    {"read_gbs", "read", REP_RIGHT, false},
    {NULL, "t/s", REP_RIGHT, false},
    {"note", NULL, REP_LEFT, false},
};

static char *render(const rep_table *t, enum rep_format fmt) {
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    fc_err err = {0};
    CHECK(rep_table_write(t, fp, fmt, &err) == FC_OK);
    fclose(fp);
    return buf;
}

/* Column of the n-th occurrence of `needle` on each line: equal when aligned. */
static int col_of(const char *line, const char *needle) {
    const char *p = strstr(line, needle);
    if (!p) return -1;
    int col = 0;
    for (const char *q = line; q < p; q++)
        if ((*q & 0xC0) != 0x80) col++;
    return col;
}

/* Renders the table to a pseudo-terminal, as a user's shell would see it;
 * returns what arrived (NULL when this system has no ptys). */
static char *render_on_tty(const rep_table *t) {
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) || unlockpt(master)) return NULL;
    FILE *slave = fopen(ptsname(master), "w");
    if (!slave) return NULL;
    fc_err err = {0};
    CHECK(rep_table_write(t, slave, REP_FMT_TERM, &err) == FC_OK);
    fclose(slave);
    static char buf[8192];
    size_t n = 0;
    ssize_t got;
    /* Closing the slave ends the stream (EIO) once everything was read. */
    while (n < sizeof buf - 1 && (got = read(master, buf + n, sizeof buf - 1 - n)) > 0) n += (size_t)got;
    buf[n] = '\0';
    close(master);
    return buf;
}

static rep_table *build(void) {
    fc_err err = {0};
    rep_table *t = rep_table_new(cols, C_COUNT, "sample", &err);
    CHECK(t != NULL);
    rep_table_add_row(t);
    rep_cell_str(t, C_NAME, "tiny");
    rep_cell_gib(t, C_SIZE, 80u << 20);
    rep_cell_gbs(t, C_BW, 12.345);
    rep_cell_ts(t, C_TS, 812.4, 3.1);
    rep_cell_str(t, C_NOTE, "a \"quoted\", comma");
    rep_table_add_row(t);
    rep_row_mark(t, REP_MARK_BEST);
    rep_cell_str(t, C_NAME, "evil|<script>alert(1)</script>\033[31m");
    rep_cell_gib(t, C_SIZE, 40ull << 30);
    rep_cell_gbs(t, C_BW, 0); /* not measured */
    rep_cell_ts(t, C_TS, 5.25, 0);
    rep_cell_none(t, C_NOTE);
    return t;
}

int main(int argc, char **argv) {
    rep_table *t = build();

    /* Colour on a terminal; none with NO_COLOR, none on a dumb terminal. */
    unsetenv("NO_COLOR");
    setenv("TERM", "xterm", 1);
    char *tty = render_on_tty(t);
    if (tty) {
        CHECK_MSG(strstr(tty, "\033[1;32m") && strstr(tty, REP_COLOR_RESET), "no colour on a terminal:\n%s", tty);
        CHECK_MSG(!strstr(tty, "\033[31m"), "a cell's escape sequence reached the terminal");
        setenv("NO_COLOR", "1", 1);
        tty = render_on_tty(t);
        CHECK_MSG(tty && !strchr(tty, '\033'), "colour despite NO_COLOR:\n%s", tty);
        unsetenv("NO_COLOR");
        setenv("TERM", "dumb", 1);
        tty = render_on_tty(t);
        CHECK_MSG(tty && !strchr(tty, '\033'), "colour on a dumb terminal:\n%s", tty);
    }
    setenv("TERM", "xterm", 1); /* below, output goes to memory: never a terminal, never colour */

    char *term = render(t, REP_FMT_TERM);
    CHECK_MSG(!strchr(term, '\033'), "escape sequence reached the terminal:\n%s", term);
    char *l1 = strtok(term, "\n"), *l2 = strtok(NULL, "\n"), *l3 = strtok(NULL, "\n");
    CHECK(l1 && l2 && l3);
    if (l1 && l2 && l3) {
        /* right-aligned: the ends of "size" and its values line up */
        CHECK_MSG(col_of(l1, "size") + 4 == col_of(l2, "GiB") + 3, "size column misaligned:\n%s\n%s", l1, l2);
        CHECK(col_of(l2, "GiB") == col_of(l3, "GiB"));
        CHECK_MSG(col_of(l2, "3.10") == col_of(l3, "5.25"), "t/s not right-aligned:\n%s\n%s", l2, l3);
        CHECK(strstr(l3, "-") != NULL);
        CHECK(strstr(l2, "0.078 GiB") && strstr(l3, "40.00 GiB"));
        CHECK(strstr(l2, "12.3 GB/s") != NULL);
        CHECK(!strstr(l1, "note")); /* machine-only column */
    }
    free(term);

    char *md = render(t, REP_FMT_MD);
    CHECK(strstr(md, "| model ") == md);
    CHECK(strstr(md, "---: |") != NULL);
    CHECK_MSG(strstr(md, "evil\\|") != NULL, "pipe not escaped in Markdown:\n%s", md);
    free(md);

    char *json = render(t, REP_FMT_JSON);
    json_error_t je;
    json_t *doc = json_loads(json, 0, &je);
    CHECK_MSG(doc && json_array_size(doc) == 2, "bad JSON: %s\n%s", je.text, json);
    if (doc) {
        json_t *r0 = json_array_get(doc, 0), *r1 = json_array_get(doc, 1);
        CHECK(json_integer_value(json_object_get(r0, "size_bytes")) == 80 << 20);
        CHECK_NEAR(json_real_value(json_object_get(r0, "read_gbs")), 12.345, 1e-9);
        CHECK(json_is_null(json_object_get(r1, "read_gbs")));
        CHECK(json_object_get(r0, "t/s") == NULL);
    }
    json_decref(doc);
    free(json);

    char *jsonl = render(t, REP_FMT_JSONL);
    int lines = 0;
    for (char *p = jsonl; *p; p++) lines += *p == '\n';
    CHECK(lines == 2);
    free(jsonl);

    char *csv = render(t, REP_FMT_CSV);
    if (argc > 1) { /* left for test_report_cli.sh to parse with Python's csv */
        char path[4200];
        snprintf(path, sizeof path, "%s/table.csv", argv[1]);
        FILE *fp = fopen(path, "w");
        CHECK(fp != NULL);
        if (fp) {
            fputs(csv, fp);
            fclose(fp);
        }
    }
    CHECK_MSG(strstr(csv, "name,size_bytes,read_gbs,note\n") == csv, "csv header:\n%s", csv);
    CHECK(strstr(csv, "\"a \"\"quoted\"\", comma\"") != NULL);
    free(csv);

    char *html = render(t, REP_FMT_HTML);
    CHECK_MSG(!strstr(html, "<script>"), "unescaped markup in HTML:\n%s", html);
    CHECK(strstr(html, "&lt;script&gt;") != NULL);
    CHECK(strstr(html, "<tr class=\"best\">") != NULL);
    CHECK(strstr(html, "<caption>sample</caption>") != NULL);
    free(html);

    fc_err err = {0};
    enum rep_format f;
    CHECK(rep_format_parse("jsonl", &f, &err) == FC_OK && f == REP_FMT_JSONL);
    CHECK(rep_format_parse("xml", &f, &err) == FC_EINPUT && strstr(err.msg, "xml"));

    /* Sticky errors: a cell outside a row is reported at write time. */
    rep_table *bad = rep_table_new(cols, C_COUNT, "bad", &err);
    rep_cell_str(bad, C_NAME, "no row");
    FILE *devnull = fopen("/dev/null", "w");
    CHECK(rep_table_write(bad, devnull, REP_FMT_TERM, &err) == FC_ERUNTIME);
    fclose(devnull);
    rep_table_free(bad);
    rep_table_free(t);
    return check_done("table");
}
