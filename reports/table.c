/* The table every tabular result goes through: cells hold a JSON value for
 * machines and a text for people; table_write.c renders them. */
#include "reports/table_impl.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const format_names[REP_FMT_COUNT] = {
    [REP_FMT_TERM] = "term", [REP_FMT_MD] = "md", [REP_FMT_CSV] = "csv",
    [REP_FMT_JSON] = "json", [REP_FMT_JSONL] = "jsonl", [REP_FMT_HTML] = "html",
};

int rep_format_parse(const char *s, enum rep_format *out, fc_err *err) {
    for (int i = 0; i < REP_FMT_COUNT; i++)
        if (s && !strcmp(s, format_names[i])) {
            *out = (enum rep_format)i;
            return FC_OK;
        }
    return fc_err_set(err, FC_EINPUT, "unknown output format '%s' (choose md, csv, json or jsonl)", s ? s : "");
}

bool rep_format_is_table(const char *s, enum rep_format *out) {
    enum rep_format f;
    if (rep_format_parse(s, &f, NULL) != FC_OK || f == REP_FMT_TERM || f == REP_FMT_HTML) return false;
    *out = f;
    return true;
}

rep_table *rep_table_new(const rep_col *cols, int n_cols, const char *caption, fc_err *err) {
    if (n_cols <= 0 || n_cols > REP_TABLE_MAX_COLS) {
        fc_err_set(err, FC_ERUNTIME, "table with %d columns (limit %d)", n_cols, REP_TABLE_MAX_COLS);
        return NULL;
    }
    rep_table *t = fc_calloc(1, sizeof *t, err);
    if (!t) return NULL;
    memcpy(t->cols, cols, (size_t)n_cols * sizeof *cols);
    t->n_cols = n_cols;
    t->caption = strdup(caption ? caption : "");
    if (!t->caption) {
        free(t);
        fc_err_set(err, FC_ERUNTIME, "out of memory for a table caption");
        return NULL;
    }
    return t;
}

void rep_table_min_widths(rep_table *t, const int *min_width) {
    memcpy(t->min_width, min_width, (size_t)t->n_cols * sizeof *min_width);
}

void rep_table_free(rep_table *t) {
    if (!t) return;
    for (int r = 0; r < t->n_rows; r++) {
        for (int c = 0; c < t->n_cols; c++) {
            json_decref(t->rows[r].cells[c].value);
            free(t->rows[r].cells[c].text);
        }
        free(t->rows[r].cells);
    }
    free(t->rows);
    free(t->caption);
    free(t);
}

/* The first failure wins; later cells are ignored so the message names the cause. */
static void table_fail(rep_table *t, const char *fmt, ...) {
    if (t->failed) return;
    t->failed = 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->fail_msg, sizeof t->fail_msg, fmt, ap);
    va_end(ap);
}

void rep_table_add_row(rep_table *t) {
    if (t->failed) return;
    if (t->n_rows >= REP_TABLE_MAX_ROWS) {
        table_fail(t, "table '%s' has more than %d rows", t->caption, REP_TABLE_MAX_ROWS);
        return;
    }
    if (t->n_rows == t->cap_rows) {
        int cap = t->cap_rows ? t->cap_rows * 2 : 16;
        rep_row *nr = realloc(t->rows, (size_t)cap * sizeof *nr);
        if (!nr) {
            table_fail(t, "out of memory growing table '%s' to %d rows", t->caption, cap);
            return;
        }
        t->rows = nr;
        t->cap_rows = cap;
    }
    rep_row *row = &t->rows[t->n_rows];
    row->mark = REP_MARK_NONE;
    row->cells = calloc((size_t)t->n_cols, sizeof *row->cells);
    if (!row->cells) {
        table_fail(t, "out of memory for a row of table '%s'", t->caption);
        return;
    }
    t->n_rows++;
}

int rep_table_rows(const rep_table *t) { return t->n_rows; }

void rep_row_mark(rep_table *t, enum rep_mark mark) {
    if (t->failed || !t->n_rows) return;
    t->rows[t->n_rows - 1].mark = mark;
}

/* Takes ownership of value (may be NULL = JSON null). */
static void cell_set(rep_table *t, int col, json_t *value, const char *text) {
    if (t->failed) {
        json_decref(value);
        return;
    }
    if (!t->n_rows || col < 0 || col >= t->n_cols) {
        json_decref(value);
        table_fail(t, "cell %d of table '%s' set outside a row", col, t->caption);
        return;
    }
    rep_cell *cell = &t->rows[t->n_rows - 1].cells[col];
    /* Cells show model names, tensor names, hostnames: every text a person
     * sees is made safe here, once (common/fc.h); the value stays raw. */
    char safe[REP_CELL_TEXT_MAX];
    fc_text_safe(safe, sizeof safe, text, sizeof safe - 1);
    char *dup = strdup(safe);
    if (!dup) {
        json_decref(value);
        table_fail(t, "out of memory for a cell of table '%s'", t->caption);
        return;
    }
    json_decref(cell->value);
    free(cell->text);
    cell->value = value;
    cell->text = dup;
    cell->set = true;
}

void rep_cell_str(rep_table *t, int col, const char *s) {
    if (!s) s = "";
    json_t *v = json_string(s);
    if (v) {
        cell_set(t, col, v, s);
        return;
    }
    /* Not UTF-8 (a hostile file name, a mangled model name): JSON cannot
     * hold it raw, so the value is the safe text, with U+FFFD for each bad byte. */
    char buf[REP_CELL_TEXT_MAX];
    fc_text_safe(buf, sizeof buf, s, sizeof buf - 1);
    cell_set(t, col, json_string(buf), buf);
}

void rep_cell_i64(rep_table *t, int col, int64_t v) {
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)v);
    cell_set(t, col, json_integer(v), buf);
}

void rep_cell_f64(rep_table *t, int col, double v, int decimals) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.*f", decimals, v);
    cell_set(t, col, isfinite(v) ? json_real(v) : NULL, isfinite(v) ? buf : "-");
}

void rep_cell_gib(rep_table *t, int col, uint64_t bytes) {
    char buf[32];
    cell_set(t, col, json_integer((json_int_t)bytes), rep_fmt_gib(bytes, buf, sizeof buf));
}

void rep_cell_size(rep_table *t, int col, uint64_t bytes) {
    char buf[32];
    cell_set(t, col, json_integer((json_int_t)bytes), rep_fmt_size((double)bytes, buf, sizeof buf));
}

void rep_cell_gbs(rep_table *t, int col, double gbs) {
    if (!(gbs > 0) || !isfinite(gbs)) {
        rep_cell_none(t, col);
        return;
    }
    char buf[32];
    snprintf(buf, sizeof buf, gbs < 10 ? "%.2f GB/s" : "%.1f GB/s", gbs);
    cell_set(t, col, json_real(gbs), buf);
}

void rep_cell_ts(rep_table *t, int col, double mean, double stddev) {
    if (!(mean > 0) || !isfinite(mean)) {
        rep_cell_none(t, col);
        return;
    }
    char buf[64];
    if (stddev > 0 && isfinite(stddev))
        snprintf(buf, sizeof buf, "%.2f \u00b1 %.2f", mean, stddev);
    else
        snprintf(buf, sizeof buf, "%.2f", mean);
    cell_set(t, col, json_real(mean), buf);
}

void rep_cell_f64_array(rep_table *t, int col, const double *v, int n) {
    json_t *arr = json_array();
    for (int i = 0; arr && i < n; i++)
        if (json_array_append_new(arr, isfinite(v[i]) ? json_real(v[i]) : json_null()) != 0) {
            json_decref(arr);
            arr = NULL;
        }
    if (!arr) {
        table_fail(t, "out of memory for a list in table '%s'", t->caption);
        return;
    }
    char buf[32];
    snprintf(buf, sizeof buf, "%d values", n);
    cell_set(t, col, arr, buf);
}

void rep_cell_none(rep_table *t, int col) { cell_set(t, col, NULL, "-"); }

void rep_cell_text(rep_table *t, int col, const char *fmt, ...) {
    if (t->failed) return;
    if (!t->n_rows || col < 0 || col >= t->n_cols) {
        table_fail(t, "cell %d of table '%s' set outside a row", col, t->caption);
        return;
    }
    char buf[REP_CELL_TEXT_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    rep_cell *cell = &t->rows[t->n_rows - 1].cells[col];
    json_t *keep = cell->value ? json_incref(cell->value) : NULL;
    cell_set(t, col, keep, buf);
}

const char *rep_fmt_gib(uint64_t bytes, char *buf, size_t cap) {
    double g = (double)bytes / FC_GIB;
    /* Two decimals as llama-bench prints; three below 0.1 GiB so small
     * models do not all read "0.08 GiB". */
    snprintf(buf, cap, g < 0.1 && bytes ? "%.3f GiB" : "%.2f GiB", g);
    return buf;
}

const char *rep_fmt_size(double bytes, char *buf, size_t cap) {
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024 && u < (int)FC_ARRAY_LEN(units) - 1) {
        bytes /= 1024;
        u++;
    }
    if (bytes == (double)(int64_t)bytes)
        snprintf(buf, cap, "%lld %s", (long long)bytes, units[u]);
    else
        snprintf(buf, cap, "%.1f %s", bytes, units[u]);
    return buf;
}
