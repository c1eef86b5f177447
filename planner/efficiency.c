/* Efficiency constants of the speed model: a table per backend, engine and
 * tensor type, read from data/efficiency.csv (compiled in) and overlaid by the
 * user's calibration file, which `fitcheck calibrate` writes. */
#include "planner/planner.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern const fc_embed_file plan_data_files[]; /* data/efficiency.csv, data/quality.csv, ... (planner/meson.build) */
extern const size_t plan_data_files_count;

#define EFF_LINE_MAX 1024
#define EFF_FIELDS 6
#define EFF_VALUE_MAX 1e9   /* no constant is anywhere near this; larger means a broken file */
#define CALIB_SCHEMA 1
#define CALIB_FILE_MAX (4u << 20)

static const char *const engine_names[PLAN_ENG_COUNT] = {"llama.cpp", "fitcheck"};
static const char *const scalar_names[PLAN_EFF_SCALAR_COUNT] = {
    "bw_eff", "attn_dec", "attn_kv", "attn_pp", "layer_us", "token_us", "ubatch_us", "hop_us", "link_eff", "era_dec", "era_pp",
    "nofa_dec", "nofa_pp", "soc_pp"};
static const char *const typed_names[PLAN_EFF_TYPED_COUNT] = {"dec_rate", "pp_eff"};

static int name_index(const char *const *names, int n, const char *s) {
    for (int i = 0; i < n; i++)
        if (!strcasecmp(names[i], s)) return i;
    return -1;
}

const char *plan_eff_set_name(int set) {
    return set == PLAN_EFF_SET_CPU_DATASHEET ? "CPU-datasheet" : plan_backend_name(set);
}
bool plan_eff_set_used(int set, int engine) {
    return set >= 0 && set < PLAN_EFF_SETS && engine >= 0 && engine < PLAN_ENG_COUNT &&
           (set != PLAN_EFF_SET_CPU_DATASHEET || engine == PLAN_ENG_LLAMACPP);
}

int plan_eff_set_of(const plan_speed_dev *d, int engine) {
    if (d->backend < 0 || d->backend >= PLAN_BACKEND_COUNT) return PLAN_CPU;
    if (d->backend == PLAN_CPU && d->datasheet && plan_eff_set_used(PLAN_EFF_SET_CPU_DATASHEET, engine))
        return PLAN_EFF_SET_CPU_DATASHEET;
    return d->backend;
}

static int set_from_name(const char *s) {
    for (int i = 0; i < PLAN_EFF_SETS; i++)
        if (!strcasecmp(plan_eff_set_name(i), s)) return i;
    return -1;
}

int plan_backend_from_name(const char *s) {
    for (int b = 0; b < PLAN_BACKEND_COUNT; b++)
        if (!strcasecmp(plan_backend_name(b), s)) return b;
    return -1;
}
const char *plan_engine_name(int e) { return e >= 0 && e < PLAN_ENG_COUNT ? engine_names[e] : "?"; }
int plan_engine_from_name(const char *s) { return name_index(engine_names, PLAN_ENG_COUNT, s); }
const char *plan_eff_scalar_name(int p) { return p >= 0 && p < PLAN_EFF_SCALAR_COUNT ? scalar_names[p] : "?"; }
const char *plan_eff_typed_name(int p) { return p >= 0 && p < PLAN_EFF_TYPED_COUNT ? typed_names[p] : "?"; }

const char *plan_data_file(const char *name) {
    for (size_t i = 0; i < plan_data_files_count; i++)
        if (!strcmp(plan_data_files[i].name, name)) return (const char *)plan_data_files[i].data;
    return NULL;
}

double plan_eff_typed_get(const plan_eff_set *s, int param, uint32_t type) {
    double v = type < GGML_TYPE_COUNT ? s->typed[param][type] : 0;
    return v > 0 ? v : s->typed_default[param];
}

double plan_eff_family_get(const plan_eff_set *s, int param, uint32_t type) {
    double v = type < GGML_TYPE_COUNT ? s->typed[param][type] : 0;
    if (v > 0) return v;
    double log_sum = 0;
    int n = 0;
    for (uint32_t t = 0; t < GGML_TYPE_COUNT; t++)
        if (s->typed[param][t] > 0 && plan_kernel_family(t) == plan_kernel_family(type)) {
            log_sum += log(s->typed[param][t]);
            n++;
        }
    return n ? exp(log_sum / n) : s->typed_default[param];
}

bool plan_eff_two_attn_paths(const plan_eff_set *s) {
    return s->scalar[PLAN_EFF_ATTN_DEC] > 0 && s->scalar[PLAN_EFF_ATTN_KV] > 0;
}

bool plan_pp_pools_family(int backend) { return backend != PLAN_CPU && backend != PLAN_ROCM; }

uint32_t plan_kernel_family(uint32_t type) {
    switch (type) {
    case GGML_TYPE_F32: case GGML_TYPE_F16: case GGML_TYPE_BF16: return GGML_TYPE_F16;
    case GGML_TYPE_Q4_0: case GGML_TYPE_Q4_1: case GGML_TYPE_Q5_0: case GGML_TYPE_Q5_1: case GGML_TYPE_Q8_0:
        return GGML_TYPE_Q4_0;
    case GGML_TYPE_Q2_K: case GGML_TYPE_Q3_K: case GGML_TYPE_Q4_K: case GGML_TYPE_Q5_K: case GGML_TYPE_Q6_K:
        return GGML_TYPE_Q4_K;
    case GGML_TYPE_IQ2_XXS: case GGML_TYPE_IQ2_XS: case GGML_TYPE_IQ3_XXS: case GGML_TYPE_IQ1_S:
    case GGML_TYPE_IQ4_NL: case GGML_TYPE_IQ3_S: case GGML_TYPE_IQ2_S: case GGML_TYPE_IQ4_XS: case GGML_TYPE_IQ1_M:
        return GGML_TYPE_IQ4_XS;
    default: return type;
    }
}

static int eff_store_one(plan_efficiency *e, int set, const char *eng_s, const char *param, const char *type_s, double v,
                         const char *where, fc_err *err);

/* Stores one constant; type "" or "*" sets the default for types without a
 * row; backend "gpu" stores it for every GPU backend. */
static int eff_store(plan_efficiency *e, const char *be_s, const char *eng_s, const char *param, const char *type_s,
                     double v, const char *where, fc_err *err) {
    if (!strcasecmp(be_s, "gpu")) {
        for (int be = 0; be < PLAN_BACKEND_COUNT; be++) {
            if (be == PLAN_CPU) continue;
            int rc = eff_store_one(e, be, eng_s, param, type_s, v, where, err);
            if (rc) return rc;
        }
        return FC_OK;
    }
    int set = set_from_name(be_s);
    if (set < 0) return fc_err_set(err, FC_EINPUT, "%s: unknown backend '%s'", where, be_s);
    return eff_store_one(e, set, eng_s, param, type_s, v, where, err);
}

static int eff_store_one(plan_efficiency *e, int set, const char *eng_s, const char *param, const char *type_s, double v,
                         const char *where, fc_err *err) {
    int eng = plan_engine_from_name(eng_s);
    if (eng < 0) return fc_err_set(err, FC_EINPUT, "%s: unknown engine '%s'", where, eng_s);
    if (!plan_eff_set_used(set, eng))
        return fc_err_set(err, FC_EINPUT, "%s: %s has no %s set", where, plan_eff_set_name(set), eng_s);
    int p = name_index(scalar_names, PLAN_EFF_SCALAR_COUNT, param);
    /* 0 switches a decode attention term off: a set costs attention per query MAC, per cached element, or both
     * (planner.h), and the prior must be able to say which for a backend whose fitted table had the other. */
    bool may_be_off = p == PLAN_EFF_ATTN_DEC || p == PLAN_EFF_ATTN_KV;
    if (!isfinite(v) || v < 0 || (v == 0 && !may_be_off) || v > EFF_VALUE_MAX)
        return fc_err_set(err, FC_EINPUT, "%s: value %g out of range %s0, %g]", where, v, may_be_off ? "[" : "(",
                          EFF_VALUE_MAX);
    plan_eff_set *s = &e->set[set][eng];
    if (p >= 0) {
        if (type_s[0] && strcmp(type_s, "*"))
            return fc_err_set(err, FC_EINPUT, "%s: '%s' takes no tensor type", where, param);
        s->scalar[p] = v;
        return FC_OK;
    }
    p = name_index(typed_names, PLAN_EFF_TYPED_COUNT, param);
    if (p < 0) return fc_err_set(err, FC_EINPUT, "%s: unknown parameter '%s'", where, param);
    if (!type_s[0] || !strcmp(type_s, "*")) {
        s->typed_default[p] = v;
        return FC_OK;
    }
    int t = ggml_type_from_name(type_s);
    if (t < 0) return fc_err_set(err, FC_EINPUT, "%s: unknown tensor type '%s'", where, type_s);
    s->typed[p][t] = v;
    return FC_OK;
}

int plan_efficiency_parse_csv(plan_efficiency *e, const char *text, const char *name, fc_err *err) {
    const char *cur = text;
    char line[EFF_LINE_MAX];
    int lineno = 0, got;
    bool header = false;
    while ((got = plan_csv_line(&cur, line, sizeof line)) != 0) {
        lineno++;
        if (got < 0) return fc_err_set(err, FC_EINPUT, "%s:%d: line longer than %d bytes", name, lineno, EFF_LINE_MAX - 1);
        if (!line[0] || line[0] == '#') continue;
        if (!header) { /* the first other line names the columns */
            header = true;
            continue;
        }
        char *f[EFF_FIELDS];
        if (plan_csv_fields(line, f, EFF_FIELDS) < 5)
            return fc_err_set(err, FC_EINPUT, "%s:%d: expected backend,engine,param,type,value,source", name, lineno);
        char *end;
        double v = strtod(f[4], &end);
        char where[160];
        snprintf(where, sizeof where, "%s:%d", name, lineno);
        if (end == f[4] || *end) return fc_err_set(err, FC_EINPUT, "%s: value '%s' is not a number", where, f[4]);
        int rc = eff_store(e, f[0], f[1], f[2], f[3], v, where, err);
        if (rc) return rc;
    }
    return FC_OK;
}

int plan_efficiency_builtin(plan_efficiency *e, fc_err *err) {
    memset(e, 0, sizeof *e);
    const char *csv = plan_data_file("efficiency.csv");
    if (!csv) return fc_err_set(err, FC_ERUNTIME, "data/efficiency.csv is not built in");
    int rc = plan_efficiency_parse_csv(e, csv, "data/efficiency.csv", err);
    if (rc) return rc;
    /* Every backend and engine must be complete: a missing constant would
     * silently predict infinity or zero. */
    for (int be = 0; be < PLAN_EFF_SETS; be++)
        for (int eng = 0; eng < PLAN_ENG_COUNT; eng++) {
            if (!plan_eff_set_used(be, eng)) continue;
            const plan_eff_set *s = &e->set[be][eng];
            for (int i = 0; i < PLAN_EFF_SCALAR_COUNT; i++)
                if (!(s->scalar[i] > 0) && i != PLAN_EFF_ATTN_DEC && i != PLAN_EFF_ATTN_KV)
                    return fc_err_set(err, FC_ERUNTIME, "data/efficiency.csv: no %s for %s/%s", scalar_names[i],
                                      plan_eff_set_name(be), engine_names[eng]);
            /* decode attention per query MAC, per cached element, or both (planner.h) */
            if (!(s->scalar[PLAN_EFF_ATTN_DEC] > 0) && !(s->scalar[PLAN_EFF_ATTN_KV] > 0))
                return fc_err_set(err, FC_ERUNTIME, "data/efficiency.csv: no attn_dec or attn_kv for %s/%s",
                                  plan_eff_set_name(be), engine_names[eng]);
            for (int i = 0; i < PLAN_EFF_TYPED_COUNT; i++)
                if (!(s->typed_default[i] > 0))
                    return fc_err_set(err, FC_ERUNTIME, "data/efficiency.csv: no default %s for %s/%s",
                                      typed_names[i], plan_eff_set_name(be), engine_names[eng]);
        }
    return FC_OK;
}

int plan_efficiency_prior(plan_efficiency *e, fc_err *err) {
    int rc = plan_efficiency_builtin(e, err);
    if (rc) return rc;
    const char *csv = plan_data_file("efficiency_prior.csv");
    if (!csv) return fc_err_set(err, FC_ERUNTIME, "data/efficiency_prior.csv is not built in");
    /* llama.cpp's GPU sets start over: no per-type row survives from the fitted table */
    for (int be = 0; be < PLAN_BACKEND_COUNT; be++)
        if (be != PLAN_CPU) memset(e->set[be][PLAN_ENG_LLAMACPP].typed, 0, sizeof e->set[be][PLAN_ENG_LLAMACPP].typed);
    /* the datasheet CPU starts from this machine's measured one, which no corpus row shaped */
    e->set[PLAN_EFF_SET_CPU_DATASHEET][PLAN_ENG_LLAMACPP] = e->set[PLAN_CPU][PLAN_ENG_LLAMACPP];
    return plan_efficiency_parse_csv(e, csv, "data/efficiency_prior.csv", err);
}

void plan_efficiency_write_csv(const plan_efficiency *e, int set, int eng, const char *source, FILE *out) {
    const plan_eff_set *s = &e->set[set][eng];
    const char *be = plan_eff_set_name(set);
    for (int i = 0; i < PLAN_EFF_SCALAR_COUNT; i++)
        if (s->scalar[i] > 0) /* 0: a term this set does not have (attn_dec or attn_kv) */
            fprintf(out, "%s,%s,%s,,%.4g,%s\n", be, engine_names[eng], scalar_names[i], s->scalar[i],
                    source);
    for (int i = 0; i < PLAN_EFF_TYPED_COUNT; i++) {
        fprintf(out, "%s,%s,%s,*,%.4g,%s\n", be, engine_names[eng], typed_names[i], s->typed_default[i],
                source);
        for (int t = 0; t < GGML_TYPE_COUNT; t++)
            if (s->typed[i][t] > 0)
                fprintf(out, "%s,%s,%s,%s,%.4g,%s\n", be, engine_names[eng], typed_names[i],
                        ggml_type_get(t)->name, s->typed[i][t], source);
    }
}

int plan_calibration_default_path(char *buf, size_t cap, fc_err *err) {
    char dir[4096];
    int rc = fc_cache_dir(dir, sizeof dir, err);
    if (rc) return rc;
    if ((size_t)snprintf(buf, cap, "%s/calibration.json", dir) >= cap)
        return fc_err_set(err, FC_EINPUT, "calibration path too long");
    return FC_OK;
}

/* The calibration file holds the rows that differ from the built-in table:
 * {"schema":1,"rows":[{"backend":..,"engine":..,"param":..,"type":..,"value":..}]}. */
int plan_efficiency_load(plan_efficiency *e, const char *path, fc_err *err) {
    int rc = plan_efficiency_builtin(e, err);
    if (rc) return rc;
    char def[4096];
    if (!path) {
        if (plan_calibration_default_path(def, sizeof def, err)) return FC_OK; /* no cache dir: built-ins */
        path = def;
        FILE *fp = fopen(path, "rb");
        if (!fp) return FC_OK;
        fclose(fp);
    }
    char *text;
    size_t len;
    rc = fc_read_file(path, CALIB_FILE_MAX, &text, &len, err);
    if (rc) return rc;
    json_error_t je;
    json_t *root = json_loadb(text, len, 0, &je);
    free(text);
    if (!root) return fc_err_set(err, FC_EINPUT, "%s:%d: %s", path, je.line, je.text);
    rc = FC_OK;
    json_t *schema = json_object_get(root, "schema"), *rows = json_object_get(root, "rows");
    if (!json_is_integer(schema) || json_integer_value(schema) != CALIB_SCHEMA)
        rc = fc_err_set(err, FC_EINPUT, "%s: field 'schema' must be %d", path, CALIB_SCHEMA);
    else if (!json_is_array(rows))
        rc = fc_err_set(err, FC_EINPUT, "%s: field 'rows' must be an array", path);
    for (size_t i = 0; !rc && i < json_array_size(rows); i++) {
        json_t *r = json_array_get(rows, i);
        const char *be = json_string_value(json_object_get(r, "backend"));
        const char *eng = json_string_value(json_object_get(r, "engine"));
        const char *param = json_string_value(json_object_get(r, "param"));
        const char *type = json_string_value(json_object_get(r, "type"));
        json_t *v = json_object_get(r, "value");
        char where[4200];
        snprintf(where, sizeof where, "%s: rows[%zu]", path, i);
        if (!be || !eng || !param || !type || !json_is_number(v))
            rc = fc_err_set(err, FC_EINPUT, "%s: needs string backend, engine, param, type and a number value",
                            where);
        else
            rc = eff_store(e, be, eng, param, type, json_number_value(v), where, err);
    }
    json_decref(root);
    return rc;
}

static json_t *calib_row(int be, int eng, const char *param, const char *type, double v) {
    return json_pack("{s:s,s:s,s:s,s:s,s:f}", "backend", plan_eff_set_name(be), "engine", engine_names[eng], "param",
                     param, "type", type, "value", v);
}

int plan_efficiency_save(const plan_efficiency *e, const char *path, fc_err *err) {
    plan_efficiency base;
    int rc = plan_efficiency_builtin(&base, err);
    if (rc) return rc;
    json_t *rows = json_array();
    for (int be = 0; be < PLAN_EFF_SETS; be++)
        for (int eng = 0; eng < PLAN_ENG_COUNT; eng++) {
            if (!plan_eff_set_used(be, eng)) continue;
            const plan_eff_set *s = &e->set[be][eng], *b = &base.set[be][eng];
            for (int i = 0; i < PLAN_EFF_SCALAR_COUNT; i++)
                if (s->scalar[i] != b->scalar[i])
                    json_array_append_new(rows, calib_row(be, eng, scalar_names[i], "", s->scalar[i]));
            for (int i = 0; i < PLAN_EFF_TYPED_COUNT; i++) {
                if (s->typed_default[i] != b->typed_default[i])
                    json_array_append_new(rows, calib_row(be, eng, typed_names[i], "*", s->typed_default[i]));
                for (int t = 0; t < GGML_TYPE_COUNT; t++)
                    if (s->typed[i][t] > 0 && s->typed[i][t] != b->typed[i][t])
                        json_array_append_new(rows, calib_row(be, eng, typed_names[i], ggml_type_get(t)->name,
                                                              s->typed[i][t]));
            }
        }
    json_t *root = json_pack("{s:i,s:o}", "schema", CALIB_SCHEMA, "rows", rows);
    char *text = json_dumps(root, JSON_INDENT(1) | JSON_REAL_PRECISION(6));
    json_decref(root);
    if (!text) return fc_err_set(err, FC_ERUNTIME, "out of memory writing %s", path);
    rc = fc_write_file_atomic(path, text, strlen(text), err);
    free(text);
    return rc;
}

int plan_efficiency_resolve(const plan_efficiency *given, plan_efficiency **own, const plan_efficiency **e,
                            fc_err *err) {
    *own = NULL;
    *e = given;
    if (given) return FC_OK;
    if (!(*own = fc_malloc(sizeof **own, err))) return FC_ERUNTIME;
    int rc = plan_efficiency_load(*own, NULL, err);
    if (rc) {
        free(*own);
        *own = NULL;
        return rc;
    }
    *e = *own;
    return FC_OK;
}
