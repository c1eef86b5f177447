/* reports/: renders results — terminal tables, progress, JSON/CSV/Markdown in
 * llama-bench's style, and the self-contained HTML report.
 *
 * Every tabular result goes through one rep_table: each cell holds a value
 * for machines (JSON/CSV: raw numbers, bytes, GB/s) and a text for people
 * (terminal/Markdown/HTML: "3.56 GiB", "812.4 ± 3.1"). One table, five
 * writers, so the formats can never disagree about the data. */
#ifndef FC_REPORTS_H
#define FC_REPORTS_H

#include "common/fc.h"

/* Progress bar with the current step on stderr; draws only when stderr is a
 * terminal. frac in [0, 1]; rep_progress_done() clears the line. */
void rep_progress(const char *step, double frac);
void rep_progress_done(void);

/* ---- colour -------------------------------------------------------------
 * Colour only on a terminal, never when NO_COLOR is set (no-color.org) or
 * TERM is "dumb". */
bool rep_color_enabled(FILE *fp);

enum rep_mark {
    REP_MARK_NONE = 0,
    REP_MARK_BEST,  /* the recommendation */
    REP_MARK_GOOD,  /* fits */
    REP_MARK_WARN,  /* fits, tightly */
    REP_MARK_BAD,   /* does not fit */
    REP_MARK_COUNT,
};
/* ANSI sequence that starts a mark's colour ("" for none). */
const char *rep_color_start(enum rep_mark mark);
#define REP_COLOR_BOLD "\033[1m"
#define REP_COLOR_RESET "\033[0m"

/* ---- tables -------------------------------------------------------------- */

enum rep_format {
    REP_FMT_TERM = 0, /* aligned columns for a terminal */
    REP_FMT_MD,       /* Markdown, padded like llama-bench's */
    REP_FMT_CSV,      /* header of keys, every value quoted (as llama-bench) */
    REP_FMT_JSON,     /* array of objects */
    REP_FMT_JSONL,    /* one object per line */
    REP_FMT_HTML,     /* <table> with <caption>, <th scope>, marks as classes */
    REP_FMT_COUNT,
};
/* "md", "csv", "json", "jsonl" (the -o values; also "term", "html"). FC_EINPUT
 * with a message listing the choices otherwise. */
int rep_format_parse(const char *s, enum rep_format *out, fc_err *err);
const char *rep_format_name(enum rep_format fmt);

enum rep_align { REP_LEFT = 0, REP_RIGHT };

#define REP_TABLE_MAX_COLS 64
#define REP_TABLE_MAX_ROWS 100000
#define REP_CELL_TEXT_MAX 256

typedef struct rep_col {
    const char *key;   /* field name in CSV/JSON; NULL: shown to people only */
    const char *title; /* header in the terminal/Markdown/HTML; NULL: machines only */
    enum rep_align align;
    bool no_csv;       /* arrays (per-repetition samples): JSON only, as llama-bench */
} rep_col;

typedef struct rep_table rep_table;

/* cols are copied (their strings must outlive the table). caption titles the HTML table. */
rep_table *rep_table_new(const rep_col *cols, int n_cols, const char *caption, fc_err *err);
void rep_table_free(rep_table *t);
/* Starts a row; the rep_cell_* calls fill the newest row. Allocation
 * failures are sticky: the table remembers them and rep_table_write reports
 * them, so builders need not check every cell. */
void rep_table_add_row(rep_table *t);
void rep_row_mark(rep_table *t, enum rep_mark mark);
int rep_table_rows(const rep_table *t);

void rep_cell_str(rep_table *t, int col, const char *s);
void rep_cell_i64(rep_table *t, int col, int64_t v);
void rep_cell_bool(rep_table *t, int col, bool v);
/* A float printed with `decimals` digits for people, full precision for machines. */
void rep_cell_f64(rep_table *t, int col, double v, int decimals);
/* Capacity: value in bytes, text in GiB ("3.56 GiB") so a column never mixes units. */
void rep_cell_gib(rep_table *t, int col, uint64_t bytes);
/* Small sizes (caches): value in bytes, text "48 KiB" / "2 MiB". */
void rep_cell_size(rep_table *t, int col, uint64_t bytes);
/* Bandwidth: value GB/s (1e9 bytes/s), text "12.3 GB/s". */
void rep_cell_gbs(rep_table *t, int col, double gbs);
/* Throughput as llama-bench shows it: "812.40 ± 3.10" (value = mean). */
void rep_cell_ts(rep_table *t, int col, double mean, double stddev);
/* A list of numbers (per-repetition samples): JSON array, text "n values". */
void rep_cell_f64_array(rep_table *t, int col, const double *v, int n);
/* Not known/measured: JSON null, CSV empty, text "-". */
void rep_cell_none(rep_table *t, int col);
/* Replaces the people's text of a cell (value unchanged). */
void rep_cell_text(rep_table *t, int col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

int rep_table_write(const rep_table *t, FILE *fp, enum rep_format fmt, fc_err *err);

/* Human units shared by tables and charts. */
const char *rep_fmt_gib(uint64_t bytes, char *buf, size_t cap);   /* "3.56 GiB" */
const char *rep_fmt_size(double bytes, char *buf, size_t cap);    /* "48 KiB", "1.5 MiB" */

/* ---- llama-bench results --------------------------------------------------
 * One row of llama-bench's output (the fields fitcheck produces and reads).
 * `fitcheck run --bench` writes these and `fitcheck report --runs` imports
 * them back, together with files written by llama-bench itself. */

#define REP_BENCH_MAX_SAMPLES 64
#define REP_BENCH_MAX_ROWS 4096
#define REP_BENCH_FILE_MAX (64u << 20)

typedef struct rep_bench_row {
    char build_commit[48];
    char cpu_info[128];
    char gpu_info[128];
    char backends[32];
    char model_filename[512];
    char model_type[128];   /* "llama 135M Q4_1" */
    uint64_t model_size;    /* bytes */
    uint64_t model_n_params;
    int n_batch, n_ubatch, n_threads, n_gpu_layers;
    char type_k[16], type_v[16];
    int flash_attn;
    int n_prompt, n_gen, n_depth;
    char test_time[32];     /* ISO 8601 UTC */
    double avg_ns, stddev_ns, avg_ts, stddev_ts;
    double samples_ns[REP_BENCH_MAX_SAMPLES];
    double samples_ts[REP_BENCH_MAX_SAMPLES];
    int n_samples;
    double predicted_ts;    /* fitcheck's prediction for this test; 0 = none */
} rep_bench_row;

/* The llama-bench "test" label: "pp512", "tg128", "pp512 @ d4096". */
const char *rep_bench_test_name(const rep_bench_row *r, char *buf, size_t cap);
/* Builds the llama-bench-shaped table (md: model | size | params | backend |
 * threads | test | t/s; csv/json: every field). */
rep_table *rep_bench_table(const rep_bench_row *rows, int n, fc_err *err);
int rep_bench_write(const rep_bench_row *rows, int n, FILE *fp, enum rep_format fmt, fc_err *err);
/* Reads llama-bench -o json or -o jsonl output (or fitcheck's). *rows is
 * malloc'd. Unknown fields are ignored; wrong types are FC_EINPUT naming the
 * file, the record and the field. */
int rep_bench_load(const char *path, rep_bench_row **rows, int *n, fc_err *err);

#endif
