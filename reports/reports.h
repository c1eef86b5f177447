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
#include "planner/planner.h"
#include "probe/probe.h"

#include <jansson.h>

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
/* True when s is one of the -o table formats (md, csv, json, jsonl), so a
 * verb whose -o also takes a file name can tell the two apart. */
bool rep_format_is_table(const char *s, enum rep_format *out);

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
/* Terminal/Markdown columns at least this wide, one per column (0: as the
 * cells need): another tool's layout, to set a table beside its output. */
void rep_table_min_widths(rep_table *t, const int *min_width);
/* Starts a row; the rep_cell_* calls fill the newest row. Allocation
 * failures are sticky: the table remembers them and rep_table_write reports
 * them, so builders need not check every cell. */
void rep_table_add_row(rep_table *t);
void rep_row_mark(rep_table *t, enum rep_mark mark);
int rep_table_rows(const rep_table *t);

void rep_cell_str(rep_table *t, int col, const char *s);
void rep_cell_i64(rep_table *t, int col, int64_t v);
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

/* Versions of the -o table schemas (docs/schema-*.md). Each row carries
 * "schema": "fitcheck.NAME/VERSION"; a version changes when a field is
 * renamed, removed or changes meaning, never for an added field. */
#define REP_SCHEMA_BENCH "fitcheck.bench/1"
#define REP_SCHEMA_PROBE "fitcheck.probe/1"
#define REP_SCHEMA_PLAN "fitcheck.plan/2"

/* ---- the machine and the plan as tables -------------------------------------
 * For -o md|csv|json|jsonl on probe and plan (docs/schema-probe.md,
 * docs/schema-plan.md). The caller frees the table. */
rep_table *rep_probe_table(const probe_profile *p, fc_err *err);
/* The summary `fitcheck probe` prints (reports/probe_screen.c): topology,
 * memory, caches, bandwidth, latency, compute, storage, the conditions it was
 * measured under, then the GPUs, their links and the NVMe links. */
void rep_probe_print(const probe_profile *p, FILE *out);
void rep_probe_gpus_print(const probe_profile *p, FILE *out);
/* One measured network link (probe --peer). */
void rep_probe_link_print(const probe_net_link *l, FILE *out);
struct plan_result;
struct plan_rank;
rep_table *rep_plan_table(const struct plan_result *r, fc_err *err);

/* ---- a plan as text and as a JSON document ---------------------------------
 * What `fitcheck plan` prints (docs/schema-plan.md: the --json document and
 * the -o rows share field names and meanings). */
void rep_plan_text(FILE *out, const struct plan_result *r);
json_t *rep_plan_json(const struct plan_result *r);
/* --hw all: the catalog ranked for one model. */
void rep_rank_text(FILE *out, const struct plan_result *r, const struct plan_rank *rk, double min_tps);
json_t *rep_rank_json(const struct plan_result *r, const struct plan_rank *rk, double min_tps);
/* A plan across hosts on llama.cpp's RPC backend (plan --hw 'a=...;b=...'). */
struct plan_cluster_plan;
void rep_cluster_text(FILE *out, const struct plan_cluster_plan *p);
json_t *rep_cluster_json(const struct plan_cluster_plan *p);
/* The bare `fitcheck` main job: one line per catalog model; the tail ends
 * with the held-out errors of the plans' sets (rep_accuracy_line). */
void rep_fits_head(FILE *out, const struct plan_result *first);
void rep_fits_row(FILE *out, const char *name, double params_b, const struct plan_result *r);
void rep_fits_tail(FILE *out, int n_fit, int n_models, const struct plan_result *last, const plan_accuracy *acc,
                   size_t n_acc);

/* ---- inspect, hw, models -------------------------------------------------
 * One result each, rendered as text and as the --json document documented in
 * docs/schema-inspect.md, docs/schema-hw.md and docs/schema-models.md. */

/* `fitcheck inspect`: a GGUF file, its description and its summary
 * (model_summary_make). */
typedef struct rep_inspect_view {
    const char *path;          /* as the user gave it */
    const gguf_file *file;
    const model_desc *desc;
    const model_summary *sum;
    bool tensors;              /* --tensors: list every tensor */
} rep_inspect_view;
#define REP_INSPECT_LAYERS_MAX 1024 /* "0-3,6,9-12": a longer list is cut */
void rep_inspect_text(FILE *out, const rep_inspect_view *v);
json_t *rep_inspect_json(const rep_inspect_view *v);
/* "(read in 1.2 ms)", or the bytes fetched for a URL: the line on stderr. */
void rep_inspect_read_time(FILE *out, const model_summary *s, double seconds);
/* Layers of role stored as type, as ranges "0-3,6,9-12" ("" when none). */
void rep_inspect_layers(const rep_inspect_view *v, int role, uint32_t type, char *buf, size_t cap);
/* hp->tokenizer clamped into enum model_tokenizer. */
int rep_inspect_tokenizer(const model_hparams *hp);

/* `fitcheck hw`: the hardware catalog (plan_hwcat_list). */
void rep_hw_text(FILE *out, const plan_hw_entry *v, size_t n);
json_t *rep_hw_json(const plan_hw_entry *v, size_t n);

/* `fitcheck models`: the model catalog (model_catalog_summaries) and
 * `models --local`: the models on this machine, planned (plan_local_make). */
void rep_models_text(FILE *out, const model_catalog_summary *v, size_t n);
json_t *rep_models_json(const model_catalog_summary *v, size_t n);
void rep_models_local_text(FILE *out, const plan_local_model *v, size_t n);
json_t *rep_models_local_json(const plan_local_model *v, size_t n);

/* `fitcheck calibrate`: each measurement predicted by the constants before
 * and after the fit, the fit's errors, where it was saved (NULL: --dry-run);
 * --csv: the fitted constants of every backend measured, as
 * data/efficiency.csv rows. --cross-validate: plan_cv_report_make's result
 * (with --csv: the held-out medians as data/speed_accuracy.csv rows).
 * --evaluate: the constants in use against the measurements, nothing fitted
 * (pred[i]: measurement i's prediction, st: their errors). */
typedef struct rep_calibrate_view {
    const plan_meas_set *set;
    const plan_efficiency *before_e, *after_e;
    plan_fit_stats before, after;
    const char *saved;
} rep_calibrate_view;
void rep_calibrate_text(FILE *out, const rep_calibrate_view *v);
json_t *rep_calibrate_json(const rep_calibrate_view *v);
void rep_calibrate_csv(FILE *out, const rep_calibrate_view *v);
void rep_cv_text(FILE *out, const plan_cv_report *r);
void rep_cv_csv(FILE *out, const plan_cv_report *r);
json_t *rep_cv_json(const plan_meas_set *set, const plan_cv_report *r);
void rep_eval_text(FILE *out, const plan_cv_stats *st);
json_t *rep_eval_json(const plan_meas_set *set, const plan_cv_stats *st, const double *pred);

/* ---- charts (inline SVG) ---------------------------------------------------
 * Each chart carries its own text alternative (<title> and <desc>, role=img)
 * and scales to the width of the page. The report puts the same numbers in a
 * real <table> next to it. */

#define REP_CHART_MAX_SERIES 12
#define REP_CHART_MAX_POINTS 1024
#define REP_CHART_MAX_MARKS 16
#define REP_CHART_MAX_ROWS 64

typedef struct rep_series {
    const char *name;
    const double *x, *y;
    int n;
    bool dashed;      /* predictions dashed, measurements solid */
} rep_series;

typedef struct rep_level {
    double v;
    const char *label;
} rep_level;

typedef struct rep_line_chart {
    const char *id;                       /* unique in the page: [a-z0-9-] */
    const char *title, *desc;             /* desc: the chart's finding in words */
    const char *x_label, *y_label;
    bool x_log;                           /* log2 x axis (working-set sizes) */
    bool x_bytes;                         /* x ticks as sizes: "32 KiB" */
    bool x_int;                           /* x counts things (threads, tokens): whole ticks only */
    const rep_series *series;
    int n_series;
    const rep_level *x_marks;             /* vertical lines: cache sizes */
    int n_x_marks;
    const rep_level *y_marks;             /* horizontal lines: theoretical peaks */
    int n_y_marks;
} rep_line_chart;

typedef struct rep_bar_chart {
    const char *id, *title, *desc;
    const char *unit;                     /* axis unit: "GiB", "t/s" */
    bool stacked;                         /* one bar of parts per row, else one bar per part */
    const char *const *parts;             /* legend: segment or series names */
    int n_parts;
    const char *const *rows;              /* bar (group) labels */
    int n_rows;
    const double *v;                      /* n_rows x n_parts, row-major; NAN = missing */
    const double *limit;                  /* per row: capacity line (NULL = none) */
    const char *const *colors;            /* per part, "#rrggbb"; NULL = the palette */
} rep_bar_chart;

int rep_svg_line(FILE *fp, const rep_line_chart *c, fc_err *err);
int rep_svg_bars(FILE *fp, const rep_bar_chart *c, fc_err *err);

/* ---- llama-bench results --------------------------------------------------
 * Records (planner.h, plan_bench_record: the one record type and reader) in
 * llama-bench's shapes. */

/* Builds the llama-bench-shaped table (md: model | size | params | backend |
 * threads | test | t/s; csv/json: every field). */
rep_table *rep_bench_table(const plan_bench_record *rows, int n, fc_err *err);
int rep_bench_write(const plan_bench_record *rows, int n, FILE *fp, enum rep_format fmt, fc_err *err);
/* Appends the records to path as jsonl lines (llama-bench's shape) for
 * `fitcheck calibrate`, atomically: the old lines, then these. */
int rep_bench_append(const char *path, const plan_bench_record *recs, int n, fc_err *err);
/* `plan --bench`: the plan's predicted llama-bench tests as llama-bench writes
 * results (md table; csv/json/jsonl with its fields; avg_ts = the prediction). */
int rep_plan_bench_write(const struct plan_result *r, FILE *fp, enum rep_format fmt, fc_err *err);

/* ---- the HTML report -------------------------------------------------------
 * The page reads plain views, not the planner's own structures:
 * rep_plan_view_build fills them from the planner, so the page does not
 * change when the planner's internals do. */

#define REP_MAX_DEVICES (PROBE_MAX_GPUS + 1)
#define REP_MAX_QUANTS 40
#define REP_MAX_DEPTHS 32
#define REP_MAX_PLANS 32

/* Parts of a device's memory, in the order the stacked bars draw them. */
enum rep_mem_part { REP_MEM_WEIGHTS = 0, REP_MEM_KV, REP_MEM_COMPUTE, REP_MEM_OVERHEAD, REP_MEM_FREE, REP_MEM_PARTS };

typedef struct rep_plan_device {
    char name[64];                 /* "CPU (RAM)", "NVIDIA H200" */
    uint64_t capacity;             /* usable bytes */
    uint64_t part[REP_MEM_PARTS];  /* REP_MEM_FREE: capacity minus the rest (0 when over) */
} rep_plan_device;

typedef struct rep_plan_quant {
    char name[16];                 /* "Q4_K_M" */
    uint64_t size;                 /* file bytes */
    bool fits;
    char where[32];                /* "GPU", "split", "CPU", "does not fit" */
    double pp_ts, tg_ts;           /* predicted; 0 = not predicted */
    char tg_bound[16];             /* what bounds tg_ts (plan_bound_name); "" = not predicted */
    double quality_loss;           /* perplexity increase over f16, percent; < 0 = unknown */
    bool recommended;
} rep_plan_quant;

/* "held out one source at a time, CUDA predictions were off by a median 5% on
 * decode (94 published results) and 12% on prefill (164)": how far a plan's
 * speed may be off (plan_accuracy), as every view says it; "" when no
 * published result was held out for its set. */
#define REP_ACCURACY_LEN 320
void rep_accuracy_sentence(const plan_accuracy *a, char *buf, size_t cap);
/* Under a table of several plans: one line with the held-out decode / prefill
 * medians of each distinct set among a[0..n) (rows 0 ones skipped); nothing
 * when there is none (a CPU the probe measured). */
void rep_accuracy_line(FILE *out, const plan_accuracy *a, size_t n);
/* As JSON: {set, decode: {rows, median_abs_err}, prefill: {...}} with the
 * phases measured; null where none was. */
json_t *rep_accuracy_json(const plan_accuracy *a);

typedef struct rep_plan_view {
    char model[128];
    char source[64];               /* "catalog", "GGUF file", "config.json" */
    char quant[16];                /* the quantization planned */
    int n_ctx;
    rep_plan_device dev[REP_MAX_DEVICES];
    int n_dev;
    rep_plan_quant quants[REP_MAX_QUANTS];
    int n_quants;
    double depth[REP_MAX_DEPTHS], pp_ts[REP_MAX_DEPTHS], tg_ts[REP_MAX_DEPTHS];
    int n_depths;
    char command[2048];            /* llama.cpp command line (PLAN_CMD_MAX) */
    char note[256];                /* what is missing, said plainly */
    char accuracy[REP_ACCURACY_LEN]; /* rep_accuracy_sentence of the plan, "" when none */
    char warning[PLAN_NOTES_MAX][PLAN_NOTE_LEN]; /* the plan's notes, as `plan` prints them */
    int n_warning;
} rep_plan_view;

/* The page's view of a plan made with PLAN_WANT_CHOICE | PLAN_WANT_SWEEP:
 * memory per device, speed against depth, every quantization, the
 * recommendation and its command. Where speed could not be predicted the
 * view's note says why. */
void rep_plan_view_fill(rep_plan_view *v, const struct plan_result *r);

typedef struct rep_report {
    const char *title;
    const probe_profile *profile;  /* NULL: profile_note says why */
    const char *profile_note;
    const rep_plan_view *plans;
    int n_plans;
    const char *plans_note;        /* why there are no plans, when n_plans == 0 */
    const plan_bench_record *runs;
    int n_runs;
    const char *runs_note;         /* why there are no runs, or no predictions for some */
} rep_report;

/* Writes the whole self-contained page (inline CSS and SVG, no script, no
 * network). Sections without data say what is missing; nothing is invented. */
int rep_report_write(FILE *fp, const rep_report *r, fc_err *err);

#endif
