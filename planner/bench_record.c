/* The one reader of llama-bench output: -o json (an array of objects),
 * -o jsonl (an object per line) and -o csv (a header of field names, every
 * value quoted), as tools/llama-bench/llama-bench.cpp writes them, and
 * fitcheck's own output of the same shapes. Each field is checked for type
 * and range: these files come from anywhere. */
#include "planner/planner.h"

#include <ctype.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_WHERE_MAX 4200          /* a path and a record number */
#define BENCH_CSV_LINE_MAX 65536      /* llama-bench's csv rows are well under 1 KiB */
#define BENCH_CSV_MAX_COLS 256        /* it writes 42 columns (llama-bench.cpp, get_fields) */

/* F_NS: a duration in nanoseconds, kept as a double but printed as an int64,
 * so it must fit one (found by fuzzing: 3e78 ns overflowed the cast).
 * F_FLAG: an int or a bool: flash_attn, an int (-1 auto, 0, 1) since
 * llama-bench's -fa on|off|auto, a bool before that (the fixtures' b4732
 * build); repack, a bool. */
enum field_kind { F_STR, F_INT, F_U64, F_F64, F_NS, F_FLAG, F_SAMPLES };

/* One row per field read; the offset says where it lands. */
static const struct bench_field {
    const char *key;
    enum field_kind kind;
    size_t off, size;
    double min, max;  /* range accepted */
    bool required;
} bench_fields[] = {
#define STR(k) {#k, F_STR, offsetof(plan_bench_record, k), sizeof(((plan_bench_record *)0)->k), 0, 0, false}
#define NUM(key, k, kind, min, max, req) {key, kind, offsetof(plan_bench_record, k), 0, min, max, req}
    STR(build_commit), STR(cpu_info), STR(gpu_info), STR(backends), STR(engine), STR(isa), STR(model_filename),
    STR(model_type), STR(type_k), STR(type_v), STR(tensor_split), STR(test_time),
    NUM("build_number", build_number, F_INT, 0, PLAN_BUILD_MAX, false),
    NUM("model_size", model_size, F_U64, 0, PLAN_BENCH_MAX_BYTES, false),
    NUM("model_n_params", model_n_params, F_U64, 0, PLAN_BENCH_MAX_PARAMS, false),
    NUM("n_batch", n_batch, F_INT, 0, INT_MAX, false),
    NUM("n_ubatch", n_ubatch, F_INT, 0, INT_MAX, false),
    NUM("n_threads", n_threads, F_INT, 0, PLAN_BENCH_MAX_THREADS, false),
    NUM("n_gpu_layers", n_gpu_layers, F_INT, -1, INT_MAX, false),
    NUM("flash_attn", flash_attn, F_FLAG, -1, 1, false),
    NUM("repack", repack, F_FLAG, 0, 1, false),
    NUM("n_prompt", test.n_prompt, F_INT, 0, PLAN_BENCH_MAX_TOKENS, true),
    NUM("n_gen", test.n_gen, F_INT, 0, PLAN_BENCH_MAX_TOKENS, true),
    NUM("n_depth", test.n_depth, F_INT, 0, PLAN_BENCH_MAX_TOKENS, false),
    NUM("avg_ns", avg_ns, F_NS, 0, 9.2e18, false),
    NUM("stddev_ns", stddev_ns, F_NS, 0, 9.2e18, false),
    NUM("avg_ts", avg_ts, F_F64, 0, PLAN_BENCH_MAX_TPS, true),
    NUM("stddev_ts", stddev_ts, F_F64, 0, PLAN_BENCH_MAX_TPS, false),
    NUM("predicted_ts", predicted_ts, F_F64, 0, PLAN_BENCH_MAX_TPS, false),
    NUM("read_gbs_now", read_gbs_now, F_F64, 0, 1e6, false),
    NUM("predicted_now_ts", predicted_now_ts, F_F64, 0, PLAN_BENCH_MAX_TPS, false),
    NUM("samples_ns", samples_ns, F_SAMPLES, 0, 9.2e18, false),
    NUM("samples_ts", samples_ts, F_SAMPLES, 0, PLAN_BENCH_MAX_TPS, false),
#undef STR
#undef NUM
};

static int field_read(const struct bench_field *f, const json_t *v, plan_bench_record *r, const char *where,
                      fc_err *err) {
    char *dst = (char *)r + f->off;
    if (f->kind == F_STR) {
        if (!json_is_string(v)) return fc_err_set(err, FC_EINPUT, "%s: field '%s' is not a string", where, f->key);
        snprintf(dst, f->size, "%s", json_string_value(v));
        return FC_OK;
    }
    if (f->kind == F_SAMPLES) {
        if (!json_is_array(v)) return fc_err_set(err, FC_EINPUT, "%s: field '%s' is not an array", where, f->key);
        double *out = (double *)dst;
        size_t n = json_array_size(v);
        /* Only the first PLAN_BENCH_MAX_SAMPLES repetitions are kept; the
         * mean and deviation come from the file, not from these. */
        if (n > PLAN_BENCH_MAX_SAMPLES) n = PLAN_BENCH_MAX_SAMPLES;
        for (size_t i = 0; i < n; i++) {
            const json_t *e = json_array_get(v, i);
            double d = json_is_number(e) ? json_number_value(e) : -1;
            if (!isfinite(d) || d < f->min || d > f->max)
                return fc_err_set(err, FC_EINPUT, "%s: %s[%zu] is not a number in [%g, %g]", where, f->key, i, f->min,
                                  f->max);
            out[i] = d;
        }
        if ((int)n > r->n_samples) r->n_samples = (int)n;
        return FC_OK;
    }
    if (f->kind == F_FLAG && json_is_boolean(v)) {
        *(int *)dst = json_is_true(v);
        return FC_OK;
    }
    if (!json_is_number(v)) return fc_err_set(err, FC_EINPUT, "%s: field '%s' is not a number", where, f->key);
    double d = json_number_value(v);
    if (!isfinite(d) || d < f->min || d > f->max)
        return fc_err_set(err, FC_EINPUT, "%s: field '%s' = %g is out of range [%g, %g]", where, f->key, d, f->min,
                          f->max);
    if (f->kind == F_INT || f->kind == F_FLAG) {
        if (d != floor(d)) return fc_err_set(err, FC_EINPUT, "%s: field '%s' is not an integer", where, f->key);
        *(int *)dst = (int)d;
    } else if (f->kind == F_U64) {
        *(uint64_t *)dst = json_is_integer(v) ? (uint64_t)json_integer_value(v) : (uint64_t)d;
    } else {
        *(double *)dst = d;
    }
    return FC_OK;
}

static int record_read(const json_t *o, plan_bench_record *r, const char *where, fc_err *err) {
    if (!json_is_object(o)) return fc_err_set(err, FC_EINPUT, "%s: not a JSON object", where);
    memset(r, 0, sizeof *r);
    r->repack = 1; /* llama-bench's default, and every file from before it had the flag */
    r->flash_attn = PLAN_BENCH_FA_AUTO; /* not given: the build's default */
    for (size_t i = 0; i < FC_ARRAY_LEN(bench_fields); i++) {
        const struct bench_field *f = &bench_fields[i];
        const json_t *v = json_object_get(o, f->key);
        if (!v || json_is_null(v)) {
            if (f->required) return fc_err_set(err, FC_EINPUT, "%s: field '%s' is missing", where, f->key);
            continue;
        }
        int rc = field_read(f, v, r, where, err);
        if (rc) return rc;
    }
    if (r->test.n_prompt == 0 && r->test.n_gen == 0)
        return fc_err_set(err, FC_EINPUT, "%s: neither n_prompt nor n_gen is set", where);
    return FC_OK;
}

typedef struct bench_list {
    plan_bench_record *r;
    int n, cap;
} bench_list;

static int list_add(bench_list *l, const json_t *o, const char *where, fc_err *err) {
    if (l->n >= PLAN_BENCH_MAX_RECORDS)
        return fc_err_set(err, FC_EINPUT, "%s: more than %d records", where, PLAN_BENCH_MAX_RECORDS);
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 16;
        plan_bench_record *nr = realloc(l->r, (size_t)cap * sizeof *nr);
        if (!nr) return fc_err_set(err, FC_ERUNTIME, "%s: out of memory", where);
        l->r = nr;
        l->cap = cap;
    }
    int rc = record_read(o, &l->r[l->n], where, err);
    if (rc == FC_OK) l->n++;
    return rc;
}

/* ---- csv ------------------------------------------------------------------ */

/* Splits one csv line in place: fields quoted ("a ""b""") or bare. Returns
 * the number of fields, -1 when a quote is left open or past max. */
static int csv_split(char *line, char **f, int max) {
    int n = 0;
    char *p = line;
    for (;;) {
        if (n >= max) return -1;
        char *out = p;
        f[n++] = out;
        if (*p == '"') {
            p++;
            for (;;) {
                if (!*p) return -1;
                if (*p == '"' && p[1] == '"') {
                    *out++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    *out++ = *p++;
                }
            }
            if (*p && *p != ',') return -1;
        } else {
            while (*p && *p != ',') *out++ = *p++;
        }
        char sep = *p;
        *out = '\0';
        if (!sep) return n;
        p++;
    }
}

/* One csv value as the JSON value its field holds, so that csv goes through
 * the same checks as json: strings as they are, numbers and booleans
 * ("true", and the "0"/"1" llama-bench's csv writes) parsed as JSON. */
static json_t *csv_value(const struct bench_field *f, const char *v) {
    if (f->kind == F_STR) return json_string(v);
    return json_loads(v, JSON_DECODE_ANY, NULL);
}

/* Copies line [s, s+n) (its '\r' dropped) into buf; false when too long. */
static bool line_copy(char *buf, const char *s, size_t n) {
    if (n && s[n - 1] == '\r') n--;
    if (n >= BENCH_CSV_LINE_MAX) return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return true;
}

/* One data row: the known columns into a JSON object, then read as json is. */
static int csv_row(char **vals, int n, const struct bench_field *const *col_field, bench_list *l, const char *where,
                   fc_err *err) {
    json_t *o = json_object();
    if (!o) return fc_err_set(err, FC_ERUNTIME, "%s: out of memory", where);
    int rc = FC_OK;
    for (int c = 0; !rc && c < n; c++) {
        const struct bench_field *f = col_field[c];
        if (!f || !vals[c][0]) continue; /* an unknown column, or an empty value: absent */
        json_t *v = csv_value(f, vals[c]);
        if (!v) rc = fc_err_set(err, FC_EINPUT, "%s: field '%s' = '%s' is not a %s", where, f->key, vals[c],
                                f->kind == F_STR ? "UTF-8 string" : "number");
        else json_object_set_new(o, f->key, v);
    }
    if (!rc) rc = list_add(l, o, where, err);
    json_decref(o);
    return rc;
}

static int parse_csv(const char *text, size_t len, const char *name, bench_list *l, fc_err *err) {
    char *line = malloc(BENCH_CSV_LINE_MAX);
    char **vals = malloc(BENCH_CSV_MAX_COLS * sizeof *vals);
    const struct bench_field **col_field = malloc(BENCH_CSV_MAX_COLS * sizeof *col_field);
    int rc = line && vals && col_field ? FC_OK : fc_err_set(err, FC_ERUNTIME, "%s: out of memory", name);
    int n_cols = 0, line_no = 0;
    char where[BENCH_WHERE_MAX];
    for (const char *a = text, *end = text + len; !rc && a < end;) {
        const char *nl = memchr(a, '\n', (size_t)(end - a));
        const char *s = a;
        size_t n = (size_t)((nl ? nl : end) - a);
        a = nl ? nl + 1 : end;
        line_no++;
        snprintf(where, sizeof where, "%s:%d", name, line_no);
        if (!line_copy(line, s, n)) {
            rc = fc_err_set(err, FC_EINPUT, "%s: line longer than %d bytes", where, BENCH_CSV_LINE_MAX);
            break;
        }
        if (!line[0]) continue;
        int got = csv_split(line, vals, BENCH_CSV_MAX_COLS);
        if (got < 0) {
            rc = fc_err_set(err, FC_EINPUT, "%s: an open quote, or more than %d fields", where, BENCH_CSV_MAX_COLS);
        } else if (!n_cols) {
            /* the header: each column's field, NULL for those not read */
            n_cols = got;
            for (int c = 0; c < got; c++) {
                col_field[c] = NULL;
                for (size_t k = 0; k < FC_ARRAY_LEN(bench_fields); k++)
                    if (bench_fields[k].kind != F_SAMPLES && !strcmp(vals[c], bench_fields[k].key))
                        col_field[c] = &bench_fields[k];
            }
        } else if (got != n_cols) {
            rc = fc_err_set(err, FC_EINPUT, "%s: %d fields where the header has %d", where, got, n_cols);
        } else {
            rc = csv_row(vals, got, col_field, l, where, err);
        }
    }
    free(line);
    free(vals);
    free(col_field);
    return rc;
}

/* ---- json and jsonl --------------------------------------------------------- */

static int parse_json(const char *text, size_t len, const char *name, bench_list *l, fc_err *err) {
    char where[BENCH_WHERE_MAX];
    json_error_t je;
    json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (doc) {
        int rc = FC_OK;
        if (json_is_array(doc)) {
            for (size_t i = 0; rc == FC_OK && i < json_array_size(doc); i++) {
                snprintf(where, sizeof where, "%s: record %zu", name, i + 1);
                rc = list_add(l, json_array_get(doc, i), where, err);
            }
        } else {
            snprintf(where, sizeof where, "%s: record 1", name);
            rc = list_add(l, doc, where, err);
        }
        json_decref(doc);
        return rc;
    }
    /* An array is one document: its error is where the document broke. */
    const char *q = text;
    while (q < text + len && isspace((unsigned char)*q)) q++;
    if (q < text + len && *q == '[')
        return fc_err_set(err, FC_EINPUT, "%s:%d:%d: not JSON: %s", name, je.line, je.column, je.text);
    /* jsonl: one object per line, blank lines allowed */
    int line_no = 0;
    for (const char *a = text, *end = text + len; a < end;) {
        const char *nl = memchr(a, '\n', (size_t)(end - a));
        const char *s = a;
        size_t n = (size_t)((nl ? nl : end) - a);
        a = nl ? nl + 1 : end;
        line_no++;
        size_t blank = 0;
        while (blank < n && isspace((unsigned char)s[blank])) blank++;
        if (blank == n) continue;
        json_t *o = json_loadb(s, n, JSON_REJECT_DUPLICATES, &je);
        if (!o) return fc_err_set(err, FC_EINPUT, "%s:%d:%d: not JSON: %s", name, line_no, je.column, je.text);
        snprintf(where, sizeof where, "%s:%d", name, line_no);
        int rc = list_add(l, o, where, err);
        json_decref(o);
        if (rc) return rc;
    }
    return FC_OK;
}

int plan_bench_parse(const char *text, size_t len, const char *name, plan_bench_record **recs, int *n, fc_err *err) {
    *recs = NULL;
    *n = 0;
    if (memchr(text, '\0', len)) return fc_err_set(err, FC_EINPUT, "%s: binary data (NUL byte)", name);
    const char *q = text;
    while (q < text + len && isspace((unsigned char)*q)) q++;
    bench_list l = {0};
    int rc = q < text + len && (*q == '[' || *q == '{') ? parse_json(text, len, name, &l, err)
                                                         : parse_csv(text, len, name, &l, err);
    if (rc == FC_OK && l.n == 0)
        rc = fc_err_set(err, FC_EINPUT, "%s: no benchmark records (llama-bench -o json, jsonl or csv)", name);
    if (rc) {
        free(l.r);
        return rc;
    }
    *recs = l.r;
    *n = l.n;
    return FC_OK;
}

int plan_bench_load(const char *path, plan_bench_record **recs, int *n, fc_err *err) {
    *recs = NULL;
    *n = 0;
    char *text;
    size_t len;
    int rc = fc_read_file(path, PLAN_BENCH_FILE_MAX, &text, &len, err);
    if (rc) return rc;
    rc = plan_bench_parse(text, len, path, recs, n, err);
    free(text);
    return rc;
}

bool plan_bench_same_test(const plan_bench_record *a, const plan_bench_record *b) {
    bool model = a->model_n_params && b->model_n_params
                     ? a->model_n_params == b->model_n_params && a->model_size == b->model_size
                     : a->model_type[0] && !strcmp(a->model_type, b->model_type);
    bool kv = !a->type_k[0] || !b->type_k[0] || (!strcmp(a->type_k, b->type_k) && !strcmp(a->type_v, b->type_v));
    return model && kv && a->test.n_prompt == b->test.n_prompt && a->test.n_gen == b->test.n_gen &&
           a->test.n_depth == b->test.n_depth;
}

int plan_bench_load_files(const char *const *paths, int n_paths, plan_bench_record **recs, int *n, fc_err *err) {
    *recs = NULL;
    *n = 0;
    for (int i = 0; i < n_paths; i++) {
        plan_bench_record *part;
        int np;
        int rc = plan_bench_load(paths[i], &part, &np, err);
        plan_bench_record *all = NULL;
        if (!rc && *n + np > PLAN_BENCH_MAX_RECORDS)
            rc = fc_err_set(err, FC_EINPUT, "%s: more than %d benchmark records in all", paths[i], PLAN_BENCH_MAX_RECORDS);
        if (!rc && !(all = realloc(*recs, (size_t)(*n + np) * sizeof *all)))
            rc = fc_err_set(err, FC_ERUNTIME, "out of memory reading %s", paths[i]);
        if (rc) {
            free(part);
            free(*recs);
            *recs = NULL;
            *n = 0;
            return rc;
        }
        memcpy(all + *n, part, (size_t)np * sizeof *part);
        free(part);
        *recs = all;
        *n += np;
    }
    return FC_OK;
}
