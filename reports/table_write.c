/* The writers of rep_table: one function per format, chosen from a table. */
#include "reports/table_impl.h"

#include <string.h>

/* Columns shown to people have a title; columns for machines have a key. */
static bool col_human(const rep_col *c) { return c->title != NULL; }
static bool col_machine(const rep_col *c) { return c->key != NULL; }
static bool col_csv(const rep_col *c) { return c->key != NULL && !c->no_csv; }

static const char *cell_text(const rep_table *t, int r, int c) {
    const rep_cell *cell = &t->rows[r].cells[c];
    return cell->set ? cell->text : "-";
}

/* Display width of UTF-8 text in columns: one per code point ("±" is two
 * bytes, one column); in Markdown '|' grows a backslash. Cell texts are safe
 * already (rep_cell_*), titles are ours. */
static int text_width(const char *s, bool md) {
    int w = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p & 0xC0) == 0x80) continue;
        w += (md && *p == '|') ? 2 : 1;
    }
    return w;
}

static void text_put(FILE *fp, const char *s, int width, enum rep_align align, bool md) {
    int pad = width - text_width(s, md);
    if (align == REP_RIGHT)
        for (int i = 0; i < pad; i++) fputc(' ', fp);
    for (const char *p = s; *p; p++) {
        if (md && *p == '|') fputc('\\', fp);
        fputc(*p, fp);
    }
    if (align == REP_LEFT)
        for (int i = 0; i < pad; i++) fputc(' ', fp);
}

static void widths_compute(const rep_table *t, int *w, bool md) {
    for (int c = 0; c < t->n_cols; c++) {
        w[c] = col_human(&t->cols[c]) ? text_width(t->cols[c].title, md) : 0;
        if (w[c] && w[c] < t->min_width[c]) w[c] = t->min_width[c];
        for (int r = 0; r < t->n_rows && col_human(&t->cols[c]); r++) {
            int x = text_width(cell_text(t, r, c), md);
            if (x > w[c]) w[c] = x;
        }
    }
}

static void write_term(const rep_table *t, FILE *fp) {
    int w[REP_TABLE_MAX_COLS];
    widths_compute(t, w, false);
    bool color = rep_color_enabled(fp);
    if (color) fputs(REP_COLOR_BOLD, fp);
    const char *sep = "";
    for (int c = 0; c < t->n_cols; c++) {
        if (!col_human(&t->cols[c])) continue;
        fputs(sep, fp);
        text_put(fp, t->cols[c].title, w[c], t->cols[c].align, false);
        sep = "  ";
    }
    if (color) fputs(REP_COLOR_RESET, fp);
    fputc('\n', fp);
    for (int r = 0; r < t->n_rows; r++) {
        const char *start = color ? rep_color_start(t->rows[r].mark) : "";
        fputs(start, fp);
        sep = "";
        for (int c = 0; c < t->n_cols; c++) {
            if (!col_human(&t->cols[c])) continue;
            fputs(sep, fp);
            text_put(fp, cell_text(t, r, c), w[c], t->cols[c].align, false);
            sep = "  ";
        }
        if (start[0]) fputs(REP_COLOR_RESET, fp);
        fputc('\n', fp);
    }
}

static void write_md(const rep_table *t, FILE *fp) {
    int w[REP_TABLE_MAX_COLS];
    widths_compute(t, w, true);
    for (int c = 0; c < t->n_cols; c++) {
        if (!col_human(&t->cols[c])) continue;
        /* The separator needs at least three dashes. */
        if (w[c] < 3) w[c] = 3;
        fputs("| ", fp);
        text_put(fp, t->cols[c].title, w[c], t->cols[c].align, true);
        fputc(' ', fp);
    }
    fputs("|\n", fp);
    for (int c = 0; c < t->n_cols; c++) {
        if (!col_human(&t->cols[c])) continue;
        fputs("| ", fp);
        bool right = t->cols[c].align == REP_RIGHT;
        for (int i = 0; i < w[c] - right; i++) fputc('-', fp);
        if (right) fputc(':', fp);
        fputc(' ', fp);
    }
    fputs("|\n", fp);
    for (int r = 0; r < t->n_rows; r++) {
        for (int c = 0; c < t->n_cols; c++) {
            if (!col_human(&t->cols[c])) continue;
            fputs("| ", fp);
            text_put(fp, cell_text(t, r, c), w[c], t->cols[c].align, true);
            fputc(' ', fp);
        }
        fputs("|\n", fp);
    }
}

static void csv_put(FILE *fp, const json_t *v) {
    fputc('"', fp);
    if (json_is_string(v)) {
        /* CSV is read by people on a terminal as often as by programs: the
         * raw value is in -o json (common/fc.h's rule). */
        char safe[REP_CELL_TEXT_MAX];
        fc_text_safe(safe, sizeof safe, json_string_value(v), sizeof safe - 1);
        for (const char *p = safe; *p; p++) {
            if (*p == '"') fputc('"', fp);
            fputc(*p, fp);
        }
    } else if (json_is_integer(v)) {
        fprintf(fp, "%lld", (long long)json_integer_value(v));
    } else if (json_is_real(v)) {
        fprintf(fp, "%.10g", json_real_value(v));
    }
    fputc('"', fp);
}

static void write_csv(const rep_table *t, FILE *fp) {
    const char *sep = "";
    for (int c = 0; c < t->n_cols; c++) {
        if (!col_csv(&t->cols[c])) continue;
        fprintf(fp, "%s%s", sep, t->cols[c].key);
        sep = ",";
    }
    fputc('\n', fp);
    for (int r = 0; r < t->n_rows; r++) {
        sep = "";
        for (int c = 0; c < t->n_cols; c++) {
            if (!col_csv(&t->cols[c])) continue;
            fputs(sep, fp);
            csv_put(fp, t->rows[r].cells[c].value);
            sep = ",";
        }
        fputc('\n', fp);
    }
}

static json_t *row_object(const rep_table *t, int r) {
    json_t *o = json_object();
    for (int c = 0; o && c < t->n_cols; c++) {
        if (!col_machine(&t->cols[c])) continue;
        json_t *v = t->rows[r].cells[c].value;
        if (json_object_set_new(o, t->cols[c].key, v ? json_incref(v) : json_null()) != 0) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

/* Ten significant digits: exact for every measured figure, no 0.30000000000000004. */
/* ASCII only: a C1 control or bidi override in a name is written \u009b, so
 * -o json on a terminal is as safe as the table (common/fc.h). */
#define REP_JSON_FLAGS (JSON_REAL_PRECISION(10) | JSON_ENSURE_ASCII)

static int write_json(const rep_table *t, FILE *fp, bool lines, fc_err *err) {
    json_t *arr = lines ? NULL : json_array();
    for (int r = 0; r < t->n_rows; r++) {
        json_t *o = row_object(t, r);
        if (!o) {
            json_decref(arr);
            return fc_err_set(err, FC_ERUNTIME, "out of memory writing table '%s' as JSON", t->caption);
        }
        if (lines) {
            json_dumpf(o, fp, JSON_COMPACT | REP_JSON_FLAGS);
            fputc('\n', fp);
            json_decref(o);
        } else if (!arr || json_array_append_new(arr, o) != 0) {
            json_decref(arr);
            return fc_err_set(err, FC_ERUNTIME, "out of memory writing table '%s' as JSON", t->caption);
        }
    }
    if (!lines) {
        json_dumpf(arr, fp, JSON_INDENT(2) | REP_JSON_FLAGS);
        fputc('\n', fp);
        json_decref(arr);
    }
    return FC_OK;
}

void rep_table_write_html(const rep_table *t, FILE *fp) {
    fputs("<div class=\"tw\"><table>\n", fp);
    if (t->caption[0]) {
        fputs("<caption>", fp);
        rep_html_escape(fp, t->caption);
        fputs("</caption>\n", fp);
    }
    fputs("<thead><tr>", fp);
    for (int c = 0; c < t->n_cols; c++) {
        if (!col_human(&t->cols[c])) continue;
        fprintf(fp, "<th scope=\"col\"%s>", t->cols[c].align == REP_RIGHT ? " class=\"r\"" : "");
        rep_html_escape(fp, t->cols[c].title);
        fputs("</th>", fp);
    }
    fputs("</tr></thead>\n<tbody>\n", fp);
    for (int r = 0; r < t->n_rows; r++) {
        const char *cls = rep_mark_class(t->rows[r].mark);
        fprintf(fp, cls[0] ? "<tr class=\"%s\">" : "<tr%s>", cls);
        bool first = true;
        for (int c = 0; c < t->n_cols; c++) {
            if (!col_human(&t->cols[c])) continue;
            /* The first column names the row: a row header for screen readers. */
            const char *tag = first ? "th" : "td";
            fprintf(fp, "<%s%s%s>", tag, first ? " scope=\"row\"" : "",
                    t->cols[c].align == REP_RIGHT ? " class=\"r\"" : "");
            rep_html_escape(fp, cell_text(t, r, c));
            if (first && t->rows[r].mark == REP_MARK_BEST) fputs(" <strong>(recommended)</strong>", fp);
            fprintf(fp, "</%s>", tag);
            first = false;
        }
        fputs("</tr>\n", fp);
    }
    fputs("</tbody></table></div>\n", fp);
}

int rep_table_write(const rep_table *t, FILE *fp, enum rep_format fmt, fc_err *err) {
    if (t->failed) return fc_err_set(err, FC_ERUNTIME, "%s", t->fail_msg);
    switch (fmt) {
    case REP_FMT_TERM: write_term(t, fp); break;
    case REP_FMT_MD: write_md(t, fp); break;
    case REP_FMT_CSV: write_csv(t, fp); break;
    case REP_FMT_JSON: return write_json(t, fp, false, err);
    case REP_FMT_JSONL: return write_json(t, fp, true, err);
    case REP_FMT_HTML: rep_table_write_html(t, fp); break;
    default: return fc_err_set(err, FC_EINPUT, "unknown table format %d", (int)fmt);
    }
    return FC_OK;
}
