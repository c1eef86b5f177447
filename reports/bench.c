/* llama-bench-shaped results: the table that writes them (md/csv/json/jsonl
 * exactly where llama-bench has the same field) and the reader that imports
 * llama-bench's own -o json / -o jsonl files. */
#include "reports/table_impl.h"

#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

const char *rep_bench_test_name(const rep_bench_row *r, char *buf, size_t cap) {
    int n;
    if (r->n_prompt > 0 && r->n_gen > 0)
        n = snprintf(buf, cap, "pp%d+tg%d", r->n_prompt, r->n_gen);
    else if (r->n_prompt > 0)
        n = snprintf(buf, cap, "pp%d", r->n_prompt);
    else
        n = snprintf(buf, cap, "tg%d", r->n_gen);
    if (r->n_depth > 0 && n > 0 && (size_t)n < cap) snprintf(buf + n, cap - (size_t)n, " @ d%d", r->n_depth);
    return buf;
}

/* Columns in llama-bench's order. Keyed columns are its CSV/JSON fields;
 * titled columns are its Markdown table. */
enum {
    B_COMMIT, B_CPU, B_GPU, B_BACKENDS, B_ENGINE, B_ISA, B_FILE, B_MODEL, B_SIZE, B_PARAMS, B_BACKEND_MD,
    B_BATCH, B_UBATCH, B_THREADS, B_TYPE_K, B_TYPE_V, B_NGL, B_FA, B_PROMPT, B_GEN, B_DEPTH,
    B_TEST, B_TIME, B_AVG_NS, B_SD_NS, B_AVG_TS, B_SD_TS, B_TS, B_PRED, B_ERR, B_BW_NOW, B_PRED_NOW, B_ERR_NOW,
    B_SAMPLES_NS, B_SAMPLES_TS, B_SCHEMA, B_COUNT
};

static const rep_col bench_cols[B_COUNT] = {
    [B_COMMIT] = {"build_commit", NULL, REP_LEFT, false},
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
    [B_BATCH] = {"n_batch", NULL, REP_RIGHT, false},
    [B_UBATCH] = {"n_ubatch", NULL, REP_RIGHT, false},
    [B_THREADS] = {"n_threads", "threads", REP_RIGHT, false},
    [B_TYPE_K] = {"type_k", NULL, REP_LEFT, false},
    [B_TYPE_V] = {"type_v", NULL, REP_LEFT, false},
    [B_NGL] = {"n_gpu_layers", NULL, REP_RIGHT, false},
    [B_FA] = {"flash_attn", NULL, REP_RIGHT, false},
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

/* llama-bench's parameter count: "134.52 M", "6.74 B". */
static void params_text(rep_table *t, uint64_t n) {
    if (n >= 1000000000ull)
        rep_cell_text(t, B_PARAMS, "%.2f B", (double)n / 1e9);
    else
        rep_cell_text(t, B_PARAMS, "%.2f M", (double)n / 1e6);
}

rep_table *rep_bench_table(const rep_bench_row *rows, int n, fc_err *err) {
    /* The prediction columns appear for people only when there is one; the
     * cache types, as in llama-bench's table, only when one is not f16. */
    rep_col cols[B_COUNT];
    memcpy(cols, bench_cols, sizeof cols);
    bool any_pred = false, any_now = false, any_kv = false;
    for (int i = 0; i < n; i++) {
        any_pred |= rows[i].predicted_ts > 0;
        any_now |= rows[i].read_gbs_now > 0;
        any_kv |= (rows[i].type_k[0] && strcmp(rows[i].type_k, "f16")) || (rows[i].type_v[0] && strcmp(rows[i].type_v, "f16"));
    }
    if (!any_pred) cols[B_PRED].title = cols[B_ERR].title = NULL;
    if (!any_now) cols[B_BW_NOW].title = cols[B_PRED_NOW].title = cols[B_ERR_NOW].title = NULL;
    if (any_kv) {
        cols[B_TYPE_K].title = "type_k";
        cols[B_TYPE_V].title = "type_v";
    }
    rep_table *t = rep_table_new(cols, B_COUNT, "Benchmark results (llama-bench style)", err);
    if (!t) return NULL;
    for (int i = 0; i < n; i++) {
        const rep_bench_row *r = &rows[i];
        char test[64];
        rep_table_add_row(t);
        rep_cell_str(t, B_COMMIT, r->build_commit);
        rep_cell_str(t, B_CPU, r->cpu_info);
        rep_cell_str(t, B_GPU, r->gpu_info);
        rep_cell_str(t, B_BACKENDS, r->backends);
        /* A row without an engine came from llama-bench, which is llama.cpp. */
        rep_cell_str(t, B_ENGINE, r->engine[0] ? r->engine : "llama.cpp");
        rep_cell_str(t, B_ISA, r->isa);
        rep_cell_str(t, B_FILE, r->model_filename);
        rep_cell_str(t, B_MODEL, r->model_type);
        rep_cell_gib(t, B_SIZE, r->model_size);
        rep_cell_i64(t, B_PARAMS, (int64_t)r->model_n_params);
        params_text(t, r->model_n_params);
        if (r->isa[0])
            rep_cell_text(t, B_BACKEND_MD, "%s (%s)", r->backends, r->isa);
        else
            rep_cell_str(t, B_BACKEND_MD, r->backends);
        rep_cell_i64(t, B_BATCH, r->n_batch);
        rep_cell_i64(t, B_UBATCH, r->n_ubatch);
        rep_cell_i64(t, B_THREADS, r->n_threads);
        rep_cell_str(t, B_TYPE_K, r->type_k);
        rep_cell_str(t, B_TYPE_V, r->type_v);
        rep_cell_i64(t, B_NGL, r->n_gpu_layers);
        rep_cell_i64(t, B_FA, r->flash_attn);
        rep_cell_i64(t, B_PROMPT, r->n_prompt);
        rep_cell_i64(t, B_GEN, r->n_gen);
        rep_cell_i64(t, B_DEPTH, r->n_depth);
        rep_cell_str(t, B_TEST, rep_bench_test_name(r, test, sizeof test));
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

int rep_bench_write(const rep_bench_row *rows, int n, FILE *fp, enum rep_format fmt, fc_err *err) {
    rep_table *t = rep_bench_table(rows, n, err);
    if (!t) return err ? err->status : FC_ERUNTIME;
    int rc = rep_table_write(t, fp, fmt, err);
    rep_table_free(t);
    return rc;
}

/* ---- reading ---------------------------------------------------------- */

/* F_NS: a duration in nanoseconds, kept as a double but printed as an int64,
 * so it must fit one (found by fuzzing: 3e78 ns overflowed the cast). */
enum field_kind { F_STR, F_INT, F_U64, F_F64, F_NS, F_SAMPLES };

/* One row per field read back; the offset says where it lands. */
static const struct bench_field {
    const char *key;
    enum field_kind kind;
    size_t off, size;
    double min;     /* smallest value accepted */
    bool required;
} bench_fields[] = {
#define STR(k) {#k, F_STR, offsetof(rep_bench_row, k), sizeof(((rep_bench_row *)0)->k), 0, false}
#define NUM(k, kind, min, req) {#k, kind, offsetof(rep_bench_row, k), 0, min, req}
    STR(build_commit), STR(cpu_info), STR(gpu_info), STR(backends), STR(engine), STR(isa), STR(model_filename),
    STR(model_type), STR(type_k), STR(type_v), STR(test_time),
    NUM(model_size, F_U64, 0, false), NUM(model_n_params, F_U64, 0, false),
    NUM(n_batch, F_INT, 0, false), NUM(n_ubatch, F_INT, 0, false), NUM(n_threads, F_INT, 0, false),
    NUM(n_gpu_layers, F_INT, -1, false), NUM(flash_attn, F_INT, -1, false),
    NUM(n_prompt, F_INT, 0, true), NUM(n_gen, F_INT, 0, true), NUM(n_depth, F_INT, 0, false),
    NUM(avg_ns, F_NS, 0, false), NUM(stddev_ns, F_NS, 0, false),
    NUM(avg_ts, F_F64, 0, true), NUM(stddev_ts, F_F64, 0, false),
    NUM(predicted_ts, F_F64, 0, false), NUM(read_gbs_now, F_F64, 0, false), NUM(predicted_now_ts, F_F64, 0, false),
    NUM(samples_ns, F_SAMPLES, 0, false), NUM(samples_ts, F_SAMPLES, 0, false),
#undef STR
#undef NUM
};

static int field_read(const struct bench_field *f, const json_t *v, rep_bench_row *row, const char *where,
                      fc_err *err) {
    char *dst = (char *)row + f->off;
    if (f->kind == F_STR) {
        if (!json_is_string(v)) return fc_err_set(err, FC_EINPUT, "%s: field '%s' is not a string", where, f->key);
        snprintf(dst, f->size, "%s", json_string_value(v));
        return FC_OK;
    }
    if (f->kind == F_SAMPLES) {
        if (!json_is_array(v)) return fc_err_set(err, FC_EINPUT, "%s: field '%s' is not an array", where, f->key);
        double *out = (double *)dst;
        size_t n = json_array_size(v);
        /* Only the first REP_BENCH_MAX_SAMPLES repetitions are kept; the
         * mean and deviation come from the file, not from these. */
        if (n > REP_BENCH_MAX_SAMPLES) n = REP_BENCH_MAX_SAMPLES;
        for (size_t i = 0; i < n; i++) {
            const json_t *e = json_array_get(v, i);
            if (!json_is_number(e) || !isfinite(json_number_value(e)) || json_number_value(e) < 0)
                return fc_err_set(err, FC_EINPUT, "%s: %s[%zu] is not a non-negative number", where, f->key, i);
            out[i] = json_number_value(e);
        }
        if ((int)n > row->n_samples) row->n_samples = (int)n;
        return FC_OK;
    }
    if (!json_is_number(v)) return fc_err_set(err, FC_EINPUT, "%s: field '%s' is not a number", where, f->key);
    double d = json_number_value(v);
    double max = f->kind == F_INT ? (double)INT_MAX : f->kind == F_U64 ? 1.8e19 : f->kind == F_NS ? 9.2e18 : 1e300;
    if (!isfinite(d) || d < f->min || d > max)
        return fc_err_set(err, FC_EINPUT, "%s: field '%s' = %g is out of range", where, f->key, d);
    if (f->kind == F_INT) {
        if (d != (double)(int)d) return fc_err_set(err, FC_EINPUT, "%s: field '%s' is not an integer", where, f->key);
        *(int *)dst = (int)d;
    } else if (f->kind == F_U64) {
        *(uint64_t *)dst = json_is_integer(v) ? (uint64_t)json_integer_value(v) : (uint64_t)d;
    } else {
        *(double *)dst = d;
    }
    return FC_OK;
}

static int record_read(const json_t *o, rep_bench_row *row, const char *where, fc_err *err) {
    if (!json_is_object(o)) return fc_err_set(err, FC_EINPUT, "%s: not a JSON object", where);
    memset(row, 0, sizeof *row);
    for (size_t i = 0; i < FC_ARRAY_LEN(bench_fields); i++) {
        const struct bench_field *f = &bench_fields[i];
        const json_t *v = json_object_get(o, f->key);
        if (!v || json_is_null(v)) {
            if (f->required) return fc_err_set(err, FC_EINPUT, "%s: field '%s' is missing", where, f->key);
            continue;
        }
        int rc = field_read(f, v, row, where, err);
        if (rc) return rc;
    }
    if (row->n_prompt == 0 && row->n_gen == 0)
        return fc_err_set(err, FC_EINPUT, "%s: neither n_prompt nor n_gen is set", where);
    return FC_OK;
}

typedef struct bench_list {
    rep_bench_row *rows;
    int n, cap;
} bench_list;

static int list_add(bench_list *l, const json_t *o, const char *path, int index, fc_err *err) {
    if (l->n >= REP_BENCH_MAX_ROWS)
        return fc_err_set(err, FC_EINPUT, "%s: more than %d records", path, REP_BENCH_MAX_ROWS);
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 16;
        rep_bench_row *nr = realloc(l->rows, (size_t)cap * sizeof *nr);
        if (!nr) return fc_err_set(err, FC_ERUNTIME, "out of memory reading %s", path);
        l->rows = nr;
        l->cap = cap;
    }
    char where[4200];
    snprintf(where, sizeof where, "%s: record %d", path, index + 1);
    int rc = record_read(o, &l->rows[l->n], where, err);
    if (rc == FC_OK) l->n++;
    return rc;
}

/* A JSON array (llama-bench -o json), one object, or one object per line
 * (-o jsonl). */
static int parse_text(char *text, const char *path, bench_list *l, fc_err *err) {
    json_error_t je;
    json_t *doc = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (doc) {
        int rc = FC_OK;
        if (json_is_array(doc)) {
            for (size_t i = 0; rc == FC_OK && i < json_array_size(doc); i++)
                rc = list_add(l, json_array_get(doc, i), path, (int)i, err);
        } else {
            rc = list_add(l, doc, path, 0, err);
        }
        json_decref(doc);
        return rc;
    }
    int line_no = 0, index = 0;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        line_no++;
        if (strspn(line, " \t\r") == strlen(line)) continue;
        json_t *o = json_loads(line, JSON_REJECT_DUPLICATES, &je);
        if (!o) return fc_err_set(err, FC_EINPUT, "%s:%d: not JSON: %s", path, line_no, je.text);
        int rc = list_add(l, o, path, index++, err);
        json_decref(o);
        if (rc) return rc;
    }
    return FC_OK;
}

/* The buffer half of rep_bench_load, public so the fuzz target
 * (fuzz/fuzz_bench.c) reads exactly what `report --runs` reads. */
int rep_bench_parse(char *text, const char *name, rep_bench_row **rows, int *n, fc_err *err) {
    *rows = NULL;
    *n = 0;
    bench_list l = {0};
    int rc = parse_text(text, name, &l, err);
    if (rc == FC_OK && l.n == 0) rc = fc_err_set(err, FC_EINPUT, "%s: no benchmark records", name);
    if (rc) {
        free(l.rows);
        return rc;
    }
    *rows = l.rows;
    *n = l.n;
    return FC_OK;
}

int rep_bench_load(const char *path, rep_bench_row **rows, int *n, fc_err *err) {
    *rows = NULL;
    *n = 0;
    char *text;
    int rc = fc_read_file(path, REP_BENCH_FILE_MAX, &text, NULL, err);
    if (rc) return rc;
    rc = rep_bench_parse(text, path, rows, n, err);
    free(text);
    return rc;
}
