/* Measurements for calibration, in three shapes:
 * - llama-bench `-o json` (one array of result objects) and `-o jsonl` (one
 *   object per line), imported as-is;
 * - fitcheck's own `run --bench` results (the same fields; "backends" names
 *   "fitcheck" or an "engine" field says so);
 * - the published-results table (data/published_bench.csv): CSV whose header
 *   starts with "device,backend,mem_gbs".
 * Every field is checked for type and range: these files come from anywhere. */
#include "planner/planner.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define IMPORT_MAX_TOKENS 1000000   /* prompt/gen/depth sizes beyond any real bench */
#define IMPORT_MAX_THREADS 4096
#define IMPORT_MAX_TPS 1e7
#define IMPORT_MAX_PARAMS 1e13      /* 10 T parameters */
#define IMPORT_MAX_BYTES 1e14
#define PUB_FIELDS 19
#define PUB_LINE_MAX 1024
#define PUB_HEADER "device,backend,mem_gbs"

int plan_meas_push(plan_meas_set *s, plan_meas **out, fc_err *err) {
    if (s->n >= PLAN_MEAS_MAX) return fc_err_set(err, FC_EINPUT, "more than %d measurements", PLAN_MEAS_MAX);
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 16;
        if (cap > PLAN_MEAS_MAX) cap = PLAN_MEAS_MAX;
        plan_meas *m = realloc(s->m, sizeof *m * cap);
        if (!m) return fc_err_set(err, FC_ERUNTIME, "out of memory for %d measurements", cap);
        s->m = m;
        s->cap = cap;
    }
    *out = &s->m[s->n++];
    memset(*out, 0, sizeof **out);
    return FC_OK;
}

/* ---- llama-bench JSON ---------------------------------------------------- */

typedef struct jctx {
    const char *name;   /* file name for messages */
    size_t index;       /* result number */
    fc_err *err;
} jctx;

static int jfail(const jctx *c, const char *field, const char *what) {
    return fc_err_set(c->err, FC_EINPUT, "%s: result %zu: field '%s' %s", c->name, c->index, field, what);
}

static int jnum(const jctx *c, json_t *o, const char *field, double lo, double hi, bool required, double *out) {
    json_t *v = json_object_get(o, field);
    if (!v) {
        if (required) return jfail(c, field, "is missing");
        return FC_OK;
    }
    if (!json_is_number(v)) return jfail(c, field, "must be a number");
    double d = json_number_value(v);
    if (!isfinite(d) || d < lo || d > hi) {
        char what[96];
        snprintf(what, sizeof what, "out of range [%g, %g]", lo, hi);
        return jfail(c, field, what);
    }
    *out = d;
    return FC_OK;
}

static int jstr(const jctx *c, json_t *o, const char *field, const char **out) {
    json_t *v = json_object_get(o, field);
    if (!v) return FC_OK;
    if (!json_is_string(v)) return jfail(c, field, "must be a string");
    *out = json_string_value(v);
    return FC_OK;
}

/* "llama 7B Q4_0", "llama 8B Q4_K - Medium", "qwen2 1.5B all F32": the word
 * after the size is the dominant tensor type. */
static int type_from_model_type(const char *mt) {
    const char *p = mt;
    while (*p) {
        const char *w = p;
        while (*p && *p != ' ') p++;
        size_t n = (size_t)(p - w);
        while (*p == ' ') p++;
        char word[32];
        if (n == 0 || n >= sizeof word) continue;
        memcpy(word, w, n);
        word[n] = '\0';
        if (!strcasecmp(word, "all")) continue;
        int t = ggml_type_from_name(word);
        if (t >= 0 && (n < 2 || !isdigit((unsigned char)word[0]))) return t;
    }
    return -1;
}

static int backend_from_list(const char *backends, int *engine) {
    static const struct { const char *key; int be; } map[] = {
        {"cuda", PLAN_CUDA}, {"metal", PLAN_METAL}, {"rocm", PLAN_ROCM}, {"hip", PLAN_ROCM},
        {"vulkan", PLAN_VULKAN},
    };
    *engine = strcasestr(backends, "fitcheck") ? PLAN_ENG_FITCHECK : PLAN_ENG_LLAMACPP;
    for (size_t i = 0; i < FC_ARRAY_LEN(map); i++)
        if (strcasestr(backends, map[i].key)) return map[i].be;
    return PLAN_CPU;
}

/* Devices for a result: the CPU of the profile, plus its first GPU when the
 * run offloaded layers. */
static int result_setup(const jctx *c, plan_meas *m, const probe_profile *p, int be, double ngl) {
    plan_speed_setup *s = &m->setup;
    s->n_ubatch = PLAN_DEFAULT_UBATCH;
    if (plan_speed_dev_cpu(&s->dev[0], p, m->n_threads))
        return fc_err_set(c->err, FC_EINPUT, "%s: the machine profile has no memory bandwidth (run 'fitcheck probe')",
                          c->name);
    s->n_dev = 1;
    if (be != PLAN_CPU && ngl > 0) {
        if (p->n_gpus < 1)
            return fc_err_set(c->err, FC_EINPUT,
                              "%s: result %zu ran on a %s GPU, but the machine profile has no measured GPU", c->name,
                              c->index, plan_backend_name(be));
        plan_device g;
        plan_device_from_gpu(&g, &p->gpus[0]);
        g.backend = be;
        plan_speed_dev_from_device(&s->dev[1], &g);
        if (!(s->dev[1].mem_gbs > 0) || !(s->dev[1].gflops > 0))
            return fc_err_set(c->err, FC_EINPUT, "%s: the profile's GPU has no bandwidth or compute figure", c->name);
        s->n_dev = 2;
    }
    return FC_OK;
}

/* Exact loads when the model file is on this machine, else from its totals. */
static int result_loads(const jctx *c, plan_meas *m, const char *filename, const plan_model_summary *ms, double ngl) {
    plan_speed_setup *s = &m->setup;
    int gpu = s->n_dev - 1;
    gguf_file *f = NULL;
    fc_err e2 = {0};
    if (filename && gguf_open(&f, filename, &e2) == FC_OK) {
        model_desc d;
        memset(&d, 0, sizeof d);
        int rc = model_desc_from_gguf(&d, f, c->err);
        if (!rc) {
            plan_speed_place pl;
            memset(&pl, 0, sizeof pl);
            uint32_t n_cpu = ngl >= d.hp.n_layer ? 0 : d.hp.n_layer - (uint32_t)ngl;
            for (uint32_t il = 0; il < d.hp.n_layer; il++) pl.layer_dev[il] = il < n_cpu ? 0 : gpu;
            pl.output_dev = ngl > d.hp.n_layer ? gpu : 0;
            pl.exps_dev = -1;
            pl.kv_type = GGML_TYPE_F16;
            rc = plan_speed_loads(s, &d, &pl, c->err);
        }
        model_desc_free(&d);
        gguf_close(f);
        return rc;
    }
    int rc = plan_speed_load_summary(s, gpu, ms, c->err);
    if (rc) return fc_err_prefix(c->err, "%s: result %zu: ", c->name, c->index);
    return FC_OK;
}

static int import_result(const jctx *c, json_t *o, plan_meas_set *set, const probe_profile *p) {
    if (!json_is_object(o)) return fc_err_set(c->err, FC_EINPUT, "%s: result %zu is not an object", c->name, c->index);
    double n_prompt = 0, n_gen = 0, n_depth = 0, n_threads = 0, avg_ts = 0, size = 0, params = 0, ngl = 0;
    const char *model_type = NULL, *backends = "", *filename = NULL, *engine_s = NULL;
    int rc;
    if ((rc = jnum(c, o, "n_prompt", 0, IMPORT_MAX_TOKENS, true, &n_prompt)) ||
        (rc = jnum(c, o, "n_gen", 0, IMPORT_MAX_TOKENS, true, &n_gen)) ||
        (rc = jnum(c, o, "n_depth", 0, IMPORT_MAX_TOKENS, false, &n_depth)) ||
        (rc = jnum(c, o, "n_threads", 1, IMPORT_MAX_THREADS, true, &n_threads)) ||
        (rc = jnum(c, o, "avg_ts", 1e-6, IMPORT_MAX_TPS, true, &avg_ts)) ||
        (rc = jnum(c, o, "model_size", 1, IMPORT_MAX_BYTES, true, &size)) ||
        (rc = jnum(c, o, "model_n_params", 1, IMPORT_MAX_PARAMS, true, &params)) ||
        (rc = jnum(c, o, "n_gpu_layers", 0, MODEL_MAX_LAYERS + 1, false, &ngl)) ||
        (rc = jstr(c, o, "model_type", &model_type)) || (rc = jstr(c, o, "backends", &backends)) ||
        (rc = jstr(c, o, "model_filename", &filename)) || (rc = jstr(c, o, "engine", &engine_s)))
        return rc;
    if (!model_type) return jfail(c, "model_type", "is missing");
    if ((n_prompt > 0) == (n_gen > 0)) return jfail(c, "n_gen", "and n_prompt: exactly one must be non-zero");
    int type = type_from_model_type(model_type);
    if (type < 0) return jfail(c, "model_type", "names no tensor type this planner knows");
    int engine;
    int be = backend_from_list(backends, &engine);
    if (engine_s) {
        engine = plan_engine_from_name(engine_s);
        if (engine < 0) return jfail(c, "engine", "must be \"llama.cpp\" or \"fitcheck\"");
    }
    plan_meas *m;
    if ((rc = plan_meas_push(set, &m, c->err))) return rc;
    m->backend = be;
    m->engine = engine;
    m->n_threads = (int)n_threads;
    m->n_prompt = (int)n_prompt;
    m->n_gen = (int)n_gen;
    m->n_depth = (int)n_depth;
    m->tps = avg_ts;
    m->setup.engine = engine;
    snprintf(m->label, sizeof m->label, "%.40s %s%d t%d", model_type, n_gen > 0 ? "tg" : "pp",
             (int)(n_gen > 0 ? n_gen : n_prompt), (int)n_threads);
    if (n_depth > 0) {
        size_t l = strlen(m->label);
        snprintf(m->label + l, sizeof m->label - l, " d%d", (int)n_depth);
    }
    if (be == PLAN_CPU) ngl = 0;
    if ((rc = result_setup(c, m, p, be, ngl))) goto fail;
    plan_model_summary ms = {.n_params = params, .size_bytes = size, .type = (uint32_t)type};
    if ((rc = result_loads(c, m, filename, &ms, ngl))) goto fail;
    return FC_OK;
fail:
    set->n--;
    return rc;
}

static int import_json(plan_meas_set *s, const char *text, size_t len, const char *name, const probe_profile *p,
                       fc_err *err) {
    jctx c = {name, 0, err};
    const char *q = text;
    while (q < text + len && isspace((unsigned char)*q)) q++;
    if (q < text + len && *q == '[') {
        json_error_t je;
        json_t *root = json_loadb(text, len, 0, &je);
        if (!root) return fc_err_set(err, FC_EINPUT, "%s:%d:%d: %s", name, je.line, je.column, je.text);
        int rc = FC_OK;
        for (size_t i = 0; !rc && i < json_array_size(root); i++) {
            c.index = i;
            rc = import_result(&c, json_array_get(root, i), s, p);
        }
        json_decref(root);
        return rc;
    }
    /* jsonl: one object per line, blank lines allowed */
    const char *end = text + len;
    size_t line = 0;
    for (const char *a = text; a < end;) {
        const char *nl = memchr(a, '\n', (size_t)(end - a));
        const char *b = nl ? nl : end;
        line++;
        const char *t = a;
        while (t < b && isspace((unsigned char)*t)) t++;
        if (t < b) {
            json_error_t je;
            json_t *o = json_loadb(a, (size_t)(b - a), 0, &je);
            if (!o) return fc_err_set(err, FC_EINPUT, "%s:%zu:%d: %s", name, line, je.column, je.text);
            c.index = line - 1;
            int rc = import_result(&c, o, s, p);
            json_decref(o);
            if (rc) return rc;
        }
        a = nl ? nl + 1 : end;
    }
    return FC_OK;
}

/* ---- the published-results table ---------------------------------------- */

static bool pub_num(const char *s, double lo, double hi, double *out) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !isfinite(v) || v < lo || v > hi) return false;
    *out = v;
    return true;
}

/* "pp512" / "tg128" */
static bool pub_test(const char *s, int *n_prompt, int *n_gen) {
    double n;
    if ((strncmp(s, "pp", 2) && strncmp(s, "tg", 2)) || !pub_num(s + 2, 1, IMPORT_MAX_TOKENS, &n)) return false;
    *n_prompt = s[0] == 'p' ? (int)n : 0;
    *n_gen = s[0] == 't' ? (int)n : 0;
    return true;
}

static int import_published(plan_meas_set *s, const char *text, const char *name, fc_err *err) {
    enum { DEVICE, BACKEND, MEM, TFLOPS, MODEL, CATALOG, QUANT, SIZE_GIB, PARAMS_B, N_LAYER, N_EMBD, N_VOCAB,
           N_HEAD, N_HEAD_KV, HEAD_DIM, TEST, DEPTH, TPS, SOURCE };
    int lineno = 0, got;
    bool header = false;
    const char *cur = text;
    char line[PUB_LINE_MAX];
    while ((got = plan_csv_line(&cur, line, sizeof line)) != 0) {
        lineno++;
        if (got < 0) return fc_err_set(err, FC_EINPUT, "%s:%d: line too long", name, lineno);
        if (!line[0] || line[0] == '#') continue;
        if (!header) {
            header = true;
            continue;
        }
        char *f[PUB_FIELDS];
        if (plan_csv_fields(line, f, PUB_FIELDS) != PUB_FIELDS)
            return fc_err_set(err, FC_EINPUT, "%s:%d: expected %d fields", name, lineno, PUB_FIELDS);
        double mem, tfl, gib, pb, nl_, ne, nv, nh, nhk, hd, depth, tps;
        int be = plan_backend_from_name(f[BACKEND]), type = -1, n_prompt, n_gen;
        char quant[16];
        snprintf(quant, sizeof quant, "%s", f[QUANT]);
        char *dash = strstr(quant, "_M");
        if (!dash) dash = strstr(quant, "_S");
        if (dash && dash[2] == '\0') *dash = '\0'; /* Q4_K_M: its dominant type is Q4_K */
        type = ggml_type_from_name(quant);
        const char *bad = be < 0                                       ? "backend"
                          : type < 0                                   ? "quant"
                          : !pub_num(f[MEM], 1, 1e5, &mem)             ? "mem_gbs"
                          : !pub_num(f[TFLOPS], 0.01, 1e5, &tfl)       ? "tflops"
                          : !pub_num(f[SIZE_GIB], 0.001, 1e5, &gib)    ? "size_gib"
                          : !pub_num(f[PARAMS_B], 0.001, 1e4, &pb)     ? "params_b"
                          : !pub_num(f[N_LAYER], 1, MODEL_MAX_LAYERS, &nl_) ? "n_layer"
                          : !pub_num(f[N_EMBD], 1, 1e6, &ne)           ? "n_embd"
                          : !pub_num(f[N_VOCAB], 1, 1e7, &nv)          ? "n_vocab"
                          : !pub_num(f[N_HEAD], 1, 1e4, &nh)           ? "n_head"
                          : !pub_num(f[N_HEAD_KV], 1, 1e4, &nhk)       ? "n_head_kv"
                          : !pub_num(f[HEAD_DIM], 1, 1e4, &hd)         ? "head_dim"
                          : !pub_test(f[TEST], &n_prompt, &n_gen)      ? "test"
                          : !pub_num(f[DEPTH], 0, IMPORT_MAX_TOKENS, &depth) ? "n_depth"
                          : !pub_num(f[TPS], 1e-6, IMPORT_MAX_TPS, &tps) ? "tps"
                                                                       : NULL;
        if (bad) return fc_err_set(err, FC_EINPUT, "%s:%d: bad field '%s'", name, lineno, bad);
        plan_meas *m;
        int rc = plan_meas_push(s, &m, err);
        if (rc) return rc;
        snprintf(m->label, sizeof m->label, "%.24s %.24s %.8s %.8s", f[DEVICE], f[MODEL], f[QUANT], f[TEST]);
        m->backend = be;
        m->engine = PLAN_ENG_LLAMACPP;
        m->n_prompt = n_prompt;
        m->n_gen = n_gen;
        m->n_depth = (int)depth;
        m->tps = tps;
        plan_speed_setup *su = &m->setup;
        su->n_dev = 1;
        su->engine = PLAN_ENG_LLAMACPP;
        su->n_ubatch = PLAN_DEFAULT_UBATCH;
        su->old_build = true; /* the table's results are all from 2024 builds (its header) */
        plan_device pd = {.backend = be, .bandwidth_gbs = mem, .fp16_tflops = tfl}; /* the table's datasheet figures */
        plan_speed_dev_from_device(&su->dev[0], &pd);
        snprintf(su->dev[0].name, sizeof su->dev[0].name, "%s", f[DEVICE]);
        plan_model_summary ms = {.n_params = pb * 1e9, .size_bytes = gib * FC_GIB, .type = (uint32_t)type,
                                 .n_layer = (uint32_t)nl_, .n_embd = (uint32_t)ne, .n_vocab = (uint32_t)nv,
                                 .n_head = (uint32_t)nh, .n_head_kv = (uint32_t)nhk, .head_dim = (uint32_t)hd};
        rc = plan_speed_load_summary(su, 0, &ms, err);
        if (rc) {
            s->n--;
            return fc_err_prefix(err, "%s:%d: ", name, lineno);
        }
    }
    return FC_OK;
}

int plan_meas_import(plan_meas_set *s, const char *text, size_t len, const char *name, const probe_profile *p,
                     fc_err *err) {
    if (memchr(text, '\0', len)) return fc_err_set(err, FC_EINPUT, "%s: binary data (NUL byte)", name);
    if (len >= strlen(PUB_HEADER)) {
        /* the published table may open with comment lines */
        const char *h = text;
        while (*h == '#') {
            const char *nl = strchr(h, '\n');
            if (!nl) break;
            h = nl + 1;
        }
        if (!strncmp(h, PUB_HEADER, strlen(PUB_HEADER))) return import_published(s, text, name, err);
        if (!strncmp(h, PLAN_CORPUS_HEADER, strlen(PLAN_CORPUS_HEADER))) return plan_corpus_import(s, text, name, err);
    }
    return import_json(s, text, len, name, p, err);
}
