/* llama-bench-shaped results: the table that writes them (md/csv/json/jsonl
 * exactly where llama-bench has the same field). planner/bench_record.c
 * reads them back. */
#include "reports/table_impl.h"

#include <stdlib.h>
#include <string.h>

/* Columns in llama-bench's order. Keyed columns are its CSV/JSON fields;
 * titled columns are its Markdown table. */
enum {
    B_COMMIT, B_BUILD, B_CPU, B_GPU, B_BACKENDS, B_ENGINE, B_ISA, B_FILE, B_MODEL, B_SIZE, B_PARAMS, B_BACKEND_MD,
    B_NGL_MD, B_THREADS_MD, B_BATCH, B_UBATCH, B_THREADS, B_TYPE_K, B_TYPE_V, B_NGL, B_FA, B_SPLIT, B_PROMPT, B_GEN, B_DEPTH,
    B_TEST, B_TIME, B_AVG_NS, B_SD_NS, B_AVG_TS, B_SD_TS, B_TS, B_PRED, B_ERR, B_BW_NOW, B_PRED_NOW, B_ERR_NOW,
    B_SAMPLES_NS, B_SAMPLES_TS, B_SCHEMA, B_COUNT
};

/* Titles set NULL here appear only when a row needs them (rep_bench_table). */
static const rep_col bench_cols[B_COUNT] = {
    [B_COMMIT] = {"build_commit", NULL, REP_LEFT, false},
    [B_BUILD] = {"build_number", NULL, REP_RIGHT, false},
    [B_CPU] = {"cpu_info", NULL, REP_LEFT, false},
    [B_GPU] = {"gpu_info", NULL, REP_LEFT, false},
    [B_BACKENDS] = {"backends", NULL, REP_LEFT, false},
    [B_ENGINE] = {"engine", NULL, REP_LEFT, false}, /* fitcheck's addition, read by calibrate */
    [B_ISA] = {"isa", NULL, REP_LEFT, false},
    [B_FILE] = {"model_filename", NULL, REP_LEFT, false},
    [B_MODEL] = {"model_type", "model", REP_LEFT, false},
    [B_SIZE] = {"model_size", "size", REP_RIGHT, false},
    [B_PARAMS] = {"model_n_params", "params", REP_RIGHT, false},
    [B_BACKEND_MD] = {NULL, "backend", REP_LEFT, false},
    [B_NGL_MD] = {NULL, NULL, REP_RIGHT, false},     /* "ngl" where a row is a GPU backend's */
    [B_THREADS_MD] = {NULL, NULL, REP_RIGHT, false}, /* "threads" where a row is a CPU's (or BLAS beside) */
    [B_BATCH] = {"n_batch", NULL, REP_RIGHT, false},
    [B_UBATCH] = {"n_ubatch", NULL, REP_RIGHT, false},
    [B_THREADS] = {"n_threads", NULL, REP_RIGHT, false},
    [B_TYPE_K] = {"type_k", NULL, REP_LEFT, false},
    [B_TYPE_V] = {"type_v", NULL, REP_LEFT, false},
    [B_NGL] = {"n_gpu_layers", NULL, REP_RIGHT, false},
    [B_FA] = {"flash_attn", NULL, REP_RIGHT, false},
    [B_SPLIT] = {"tensor_split", NULL, REP_LEFT, false},
    [B_PROMPT] = {"n_prompt", NULL, REP_RIGHT, false},
    [B_GEN] = {"n_gen", NULL, REP_RIGHT, false},
    [B_DEPTH] = {"n_depth", NULL, REP_RIGHT, false},
    [B_TEST] = {NULL, "test", REP_RIGHT, false},
    [B_TIME] = {"test_time", NULL, REP_LEFT, false},
    [B_AVG_NS] = {"avg_ns", NULL, REP_RIGHT, false},
    [B_SD_NS] = {"stddev_ns", NULL, REP_RIGHT, false},
    [B_AVG_TS] = {"avg_ts", NULL, REP_RIGHT, false},
    [B_SD_TS] = {"stddev_ts", NULL, REP_RIGHT, false},
    [B_TS] = {NULL, "t/s", REP_RIGHT, false},
    [B_PRED] = {"predicted_ts", "predicted t/s", REP_RIGHT, false}, /* fitcheck's addition */
    [B_ERR] = {NULL, "error", REP_RIGHT, false},
    [B_BW_NOW] = {"read_gbs_now", "GB/s now", REP_RIGHT, false},          /* fitcheck's addition */
    [B_PRED_NOW] = {"predicted_now_ts", "same-minute t/s", REP_RIGHT, false}, /* fitcheck's addition */
    [B_ERR_NOW] = {NULL, "error now", REP_RIGHT, false},
    [B_SAMPLES_NS] = {"samples_ns", NULL, REP_RIGHT, true},
    [B_SAMPLES_TS] = {"samples_ts", NULL, REP_RIGHT, true},
    [B_SCHEMA] = {"schema", NULL, REP_LEFT, false},
};

/* llama-bench's parameter count and size: "134.52 M", "6.74 B"; "99.54 MiB", "4.58 GiB". */
static void params_text(rep_table *t, uint64_t n) {
    if (n >= 1000000000ull)
        rep_cell_text(t, B_PARAMS, "%.2f B", (double)n / 1e9);
    else
        rep_cell_text(t, B_PARAMS, "%.2f M", (double)n / 1e6);
}

static void size_text(rep_table *t, uint64_t bytes) {
    if (bytes >= 1ull << 30)
        rep_cell_text(t, B_SIZE, "%.2f GiB", (double)bytes / (1ull << 30));
    else
        rep_cell_text(t, B_SIZE, "%.2f MiB", (double)bytes / (1ull << 20));
}

/* The Markdown table's widths are llama-bench's (markdown_printer's
 * get_field_width), so that a prediction and a real run line up column for
 * column; a wider cell widens its column, where llama-bench's printf would
 * only push that row out of line. */
static const int bench_md_width[B_COUNT] = {
    [B_MODEL] = 30, [B_SIZE] = 10,    [B_PARAMS] = 10, [B_BACKEND_MD] = 10, [B_NGL_MD] = 3, [B_THREADS_MD] = 7,
    [B_BATCH] = 7,  [B_UBATCH] = 8,   [B_TYPE_K] = 6,  [B_TYPE_V] = 6,      [B_FA] = 3,     [B_SPLIT] = 12,
    [B_TEST] = 15,  [B_TS] = 20,
};

/* A cache type other than llama-bench's default (f16). */
static bool kv_not_default(const char *type) { return type[0] && strcmp(type, "f16") != 0; }

rep_table *rep_bench_table(const plan_bench_record *rows, int n, fc_err *err) {
    /* As llama-bench's print_header chooses its columns, so that a
     * prediction lines up with a real run's table: a GPU backend's rows show
     * ngl, a CPU's threads (a backend naming CPU or BLAS is a CPU one: a Mac's
     * "MTL,BLAS" shows threads); n_batch, n_ubatch, each cache type and fa
     * and ts only where a row is not at llama-bench's default (-b 2048, -ub 512,
     * f16, -fa auto = -1 or before it off, no -ts). The prediction columns appear only when there is one. */
    rep_col cols[B_COUNT];
    memcpy(cols, bench_cols, sizeof cols);
    bool any_pred = false, any_now = false, any_cpu = false, any_gpu = false;
    for (int i = 0; i < n; i++) {
        const plan_bench_record *r = &rows[i];
        bool cpu = !r->backends[0] || strstr(r->backends, "CPU") || strstr(r->backends, "BLAS");
        any_cpu |= cpu;
        any_gpu |= !cpu;
        any_pred |= r->predicted_ts > 0;
        any_now |= r->read_gbs_now > 0;
        if (r->n_batch > 0 && r->n_batch != PLAN_DEFAULT_BATCH) cols[B_BATCH].title = "n_batch";
        if (r->n_ubatch > 0 && r->n_ubatch != PLAN_DEFAULT_UBATCH) cols[B_UBATCH].title = "n_ubatch";
        if (kv_not_default(r->type_k)) cols[B_TYPE_K].title = "type_k";
        if (kv_not_default(r->type_v)) cols[B_TYPE_V].title = "type_v";
        /* -fa's default: auto (-1) since PLAN_FA_AUTO_BUILD, off (0) before it (a build_number of 0 is not given) */
        if (r->flash_attn == 1 || (r->flash_attn == 0 && plan_build_fa_auto((uint32_t)r->build_number)))
            cols[B_FA].title = "fa";
        if (r->tensor_split[0] && strcmp(r->tensor_split, "0.00")) cols[B_SPLIT].title = "ts";
    }
    if (!any_pred) cols[B_PRED].title = cols[B_ERR].title = NULL;
    if (!any_now) cols[B_BW_NOW].title = cols[B_PRED_NOW].title = cols[B_ERR_NOW].title = NULL;
    if (any_gpu) cols[B_NGL_MD].title = "ngl";
    if (any_cpu) cols[B_THREADS_MD].title = "threads";
    rep_table *t = rep_table_new(cols, B_COUNT, "Benchmark results (llama-bench style)", err);
    if (!t) return NULL;
    rep_table_min_widths(t, bench_md_width);
    for (int i = 0; i < n; i++) {
        const plan_bench_record *r = &rows[i];
        char test[PLAN_BENCH_NAME_MAX];
        rep_table_add_row(t);
        rep_cell_str(t, B_COMMIT, r->build_commit);
        if (r->build_number > 0) rep_cell_i64(t, B_BUILD, r->build_number);
        else rep_cell_none(t, B_BUILD);
        rep_cell_str(t, B_CPU, r->cpu_info);
        rep_cell_str(t, B_GPU, r->gpu_info);
        rep_cell_str(t, B_BACKENDS, r->backends);
        /* A row without an engine came from llama-bench, which is llama.cpp. */
        rep_cell_str(t, B_ENGINE, r->engine[0] ? r->engine : "llama.cpp");
        rep_cell_str(t, B_ISA, r->isa);
        rep_cell_str(t, B_FILE, r->model_filename);
        rep_cell_str(t, B_MODEL, r->model_type);
        rep_cell_gib(t, B_SIZE, r->model_size);
        size_text(t, r->model_size);
        rep_cell_i64(t, B_PARAMS, (int64_t)r->model_n_params);
        params_text(t, r->model_n_params);
        if (r->isa[0])
            rep_cell_text(t, B_BACKEND_MD, "%s (%s)", r->backends, r->isa);
        else
            rep_cell_str(t, B_BACKEND_MD, r->backends);
        rep_cell_i64(t, B_NGL_MD, r->n_gpu_layers);
        if (r->n_threads > 0) rep_cell_i64(t, B_THREADS_MD, r->n_threads);
        else rep_cell_none(t, B_THREADS_MD); /* a catalog machine's cores are not known */
        rep_cell_i64(t, B_BATCH, r->n_batch);
        rep_cell_i64(t, B_UBATCH, r->n_ubatch);
        rep_cell_i64(t, B_THREADS, r->n_threads);
        rep_cell_str(t, B_TYPE_K, r->type_k);
        rep_cell_str(t, B_TYPE_V, r->type_v);
        rep_cell_i64(t, B_NGL, r->n_gpu_layers);
        rep_cell_i64(t, B_FA, r->flash_attn);
        rep_cell_str(t, B_SPLIT, r->tensor_split[0] ? r->tensor_split : "0.00");
        rep_cell_i64(t, B_PROMPT, r->test.n_prompt);
        rep_cell_i64(t, B_GEN, r->test.n_gen);
        rep_cell_i64(t, B_DEPTH, r->test.n_depth);
        rep_cell_str(t, B_TEST, plan_bench_test_name(&r->test, test, sizeof test));
        rep_cell_str(t, B_TIME, r->test_time);
        rep_cell_i64(t, B_AVG_NS, (int64_t)r->avg_ns);
        rep_cell_i64(t, B_SD_NS, (int64_t)r->stddev_ns);
        rep_cell_f64(t, B_AVG_TS, r->avg_ts, 6);
        rep_cell_f64(t, B_SD_TS, r->stddev_ts, 6);
        rep_cell_ts(t, B_TS, r->avg_ts, r->stddev_ts);
        if (r->predicted_ts > 0 && r->avg_ts > 0) {
            rep_cell_f64(t, B_PRED, r->predicted_ts, 2);
            rep_cell_text(t, B_ERR, "%+.0f%%", 100.0 * (r->predicted_ts - r->avg_ts) / r->avg_ts);
        } else {
            rep_cell_none(t, B_PRED);
            rep_cell_none(t, B_ERR);
        }
        if (r->read_gbs_now > 0) rep_cell_f64(t, B_BW_NOW, r->read_gbs_now, 2);
        else rep_cell_none(t, B_BW_NOW);
        if (r->predicted_now_ts > 0 && r->avg_ts > 0) {
            rep_cell_f64(t, B_PRED_NOW, r->predicted_now_ts, 2);
            rep_cell_text(t, B_ERR_NOW, "%+.0f%%", 100.0 * (r->predicted_now_ts - r->avg_ts) / r->avg_ts);
        } else {
            rep_cell_none(t, B_PRED_NOW);
            rep_cell_none(t, B_ERR_NOW);
        }
        rep_cell_f64_array(t, B_SAMPLES_NS, r->samples_ns, r->n_samples);
        rep_cell_f64_array(t, B_SAMPLES_TS, r->samples_ts, r->n_samples);
        rep_cell_str(t, B_SCHEMA, REP_SCHEMA_BENCH);
    }
    return t;
}

int rep_bench_write(const plan_bench_record *rows, int n, FILE *fp, enum rep_format fmt, fc_err *err) {
    rep_table *t = rep_bench_table(rows, n, err);
    if (!t) return err ? err->status : FC_ERUNTIME;
    int rc = rep_table_write(t, fp, fmt, err);
    rep_table_free(t);
    return rc;
}

int rep_bench_append(const char *path, const plan_bench_record *recs, int n, fc_err *err) {
    char *old = NULL;
    size_t old_len = 0;
    if (fc_read_file(path, PLAN_BENCH_FILE_MAX, &old, &old_len, err)) {
        old = NULL;
        old_len = 0;
        fc_err_clear(err);
    }
    fc_atomic_file af;
    int rc = fc_atomic_open(&af, path, err);
    if (rc) {
        free(old);
        return rc;
    }
    if (old_len) fwrite(old, 1, old_len, af.fp);
    free(old);
    rc = rep_bench_write(recs, n, af.fp, REP_FMT_JSONL, err);
    if (rc) {
        fc_atomic_abort(&af);
        return rc;
    }
    return fc_atomic_commit(&af, err);
}
