/* Internals shared by the files of reports/ (not part of the public API). */
#ifndef FC_REPORTS_TABLE_IMPL_H
#define FC_REPORTS_TABLE_IMPL_H

#include "reports/reports.h"

#include <jansson.h>
#include <math.h>

typedef struct rep_cell {
    json_t *value; /* NULL: JSON null / CSV empty */
    char *text;    /* what people see */
    bool set;
} rep_cell;

typedef struct rep_row {
    rep_cell *cells;
    enum rep_mark mark;
} rep_row;

struct rep_table {
    rep_col cols[REP_TABLE_MAX_COLS]; /* copied: callers may build them on the stack */
    int min_width[REP_TABLE_MAX_COLS];
    int n_cols;
    char *caption;
    rep_row *rows;
    int n_rows, cap_rows;
    int failed;
    char fail_msg[FC_ERR_MSG_MAX];
};

/* HTML text escaping: & < > " ' and control characters. */
void rep_html_escape(FILE *fp, const char *s);
/* Writes t as an HTML <table> (used by rep_table_write and the report). */
void rep_table_write_html(const rep_table *t, FILE *fp);
/* CSS class of a mark ("best", "good", "warn", "bad"; "" for none). */
const char *rep_mark_class(enum rep_mark mark);

#endif
