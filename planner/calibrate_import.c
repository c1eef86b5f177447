/* Measurements for calibration, in three shapes:
 * - llama-bench records (json, jsonl, csv: planner/bench_record.c reads
 *   them), and fitcheck's own `run --bench` results (the same fields;
 *   "backends" names "fitcheck" or an "engine" field says so);
 * - the published-results table (data/published_bench.csv): CSV whose header
 *   starts with "device,backend,mem_gbs".
 * Every field is checked for type and range: these files come from anywhere. */
#include "planner/planner.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MEAS_WHERE_MAX 4200  /* a path and a record number */
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

/* ---- llama-bench records ------------------------------------------------ */

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

/* llama-bench's "backends": its build's registries but the CPU's ("CUDA",
 * "MTL,BLAS", "Vulkan,BLAS"; plan_backend_bench_name), older builds' "Metal"
 * and "HIP" too. A list naming no GPU registry ("CPU", "BLAS") ran on the CPU. */
static int backend_from_list(const char *backends, int *engine) {
    static const struct { const char *key; int be; } map[] = {
        {"cuda", PLAN_CUDA}, {"metal", PLAN_METAL}, {"mtl", PLAN_METAL}, {"rocm", PLAN_ROCM}, {"hip", PLAN_ROCM},
        {"vulkan", PLAN_VULKAN}, {"sycl", PLAN_SYCL},
    };
    *engine = strcasestr(backends, "fitcheck") ? PLAN_ENG_FITCHECK : PLAN_ENG_LLAMACPP;
    for (size_t i = 0; i < FC_ARRAY_LEN(map); i++)
        if (strcasestr(backends, map[i].key)) return map[i].be;
    return PLAN_CPU;
}

/* Devices for a record: the CPU of the profile, plus its first GPU when the
 * run offloaded layers. */
static int record_setup(plan_meas *m, const probe_profile *p, int be, int ngl, const char *where, fc_err *err) {
    plan_speed_setup *s = &m->setup;
    s->n_ubatch = PLAN_DEFAULT_UBATCH;
    if (plan_speed_dev_cpu(&s->dev[0], p, m->n_threads))
        return fc_err_set(err, FC_EINPUT, "%s: the machine profile has no memory bandwidth (run 'fitcheck probe')",
                          where);
    s->n_dev = 1;
    if (be != PLAN_CPU && ngl != 0) {
        if (p->n_gpus < 1)
            return fc_err_set(err, FC_EINPUT, "%s: ran on a %s GPU, but the machine profile has no measured GPU", where,
                              plan_backend_name(be));
        plan_device g;
        plan_device_from_gpu(&g, &p->gpus[0]);
        g.backend = be;
        plan_speed_dev_from_device(&s->dev[1], &g);
        if (!(s->dev[1].mem_gbs > 0) || !(s->dev[1].gflops > 0))
            return fc_err_set(err, FC_EINPUT, "%s: the profile's GPU has no bandwidth or compute figure", where);
        s->n_dev = 2;
    }
    return FC_OK;
}

/* Exact loads when the model file is on this machine, else from its totals.
 * ngl < 0 (llama-bench's "all") or past the layer count puts every layer
 * and the output on the GPU. */
static int record_loads(plan_meas *m, const char *filename, const plan_model_summary *ms, int ngl, const char *where,
                        fc_err *err) {
    plan_speed_setup *s = &m->setup;
    int gpu = s->n_dev - 1;
    gguf_file *f = NULL;
    fc_err e2 = {0};
    if (filename[0] && gguf_open(&f, filename, &e2) == FC_OK) {
        model_desc d;
        memset(&d, 0, sizeof d);
        int rc = model_desc_from_gguf(&d, f, err);
        if (!rc) {
            plan_speed_place pl;
            memset(&pl, 0, sizeof pl);
            uint32_t n_gpu = ngl < 0 || (uint32_t)ngl > d.hp.n_layer ? d.hp.n_layer + 1 : (uint32_t)ngl;
            uint32_t n_cpu = n_gpu >= d.hp.n_layer ? 0 : d.hp.n_layer - n_gpu;
            for (uint32_t il = 0; il < d.hp.n_layer; il++) pl.layer_dev[il] = il < n_cpu ? 0 : gpu;
            pl.output_dev = n_gpu > d.hp.n_layer ? gpu : 0;
            pl.exps_dev = -1;
            pl.kv_type = GGML_TYPE_F16;
            rc = plan_speed_loads(s, &d, &pl, err);
        }
        model_desc_free(&d);
        gguf_close(f);
        return rc;
    }
    int rc = plan_speed_load_summary(s, gpu, ms, err);
    if (rc) return fc_err_prefix(err, "%s: ", where);
    return FC_OK;
}

static int record_missing(const char *where, const char *field, fc_err *err) {
    return fc_err_set(err, FC_EINPUT, "%s: field '%s' is missing or 0 (the speed model needs it)", where, field);
}

int plan_meas_from_record(plan_meas *m, const plan_bench_record *r, const probe_profile *p, const char *where,
                          fc_err *err) {
    memset(m, 0, sizeof *m);
    if (!r->model_type[0]) return record_missing(where, "model_type", err);
    if (!r->model_size) return record_missing(where, "model_size", err);
    if (!r->model_n_params) return record_missing(where, "model_n_params", err);
    if (!r->n_threads) return record_missing(where, "n_threads", err);
    if (!(r->avg_ts > 0)) return record_missing(where, "avg_ts", err);
    int type = type_from_model_type(r->model_type);
    if (type < 0)
        return fc_err_set(err, FC_EINPUT, "%s: field 'model_type' ('%s') names no tensor type this planner knows",
                          where, r->model_type);
    int engine;
    int be = backend_from_list(r->backends, &engine);
    if (r->engine[0]) {
        engine = plan_engine_from_name(r->engine);
        if (engine < 0) return fc_err_set(err, FC_EINPUT, "%s: field 'engine' must be \"llama.cpp\" or \"fitcheck\"", where);
    }
    m->backend = be;
    m->engine = engine;
    m->n_threads = r->n_threads;
    m->n_prompt = r->test.n_prompt;
    m->n_gen = r->test.n_gen;
    m->n_depth = r->test.n_depth;
    m->tps = r->avg_ts;
    m->setup.engine = engine;
    char test[PLAN_BENCH_NAME_MAX];
    snprintf(m->label, sizeof m->label, "%.40s %s t%d%s", r->model_type, plan_bench_test_name(&r->test, test, sizeof test),
             r->n_threads, r->repack ? "" : " nr");
    int ngl = be == PLAN_CPU ? 0 : r->n_gpu_layers;
    int rc = record_setup(m, p, be, ngl, where, err);
    /* A run --bench record carries the read bandwidth measured beside its test
     * (at its thread count): fitted against that, bw_eff is what the kernels
     * get of the memory of that minute — the basis of the same-minute
     * prediction — not of a profile probed in another minute (this VM's DRAM
     * swings between 32 and 55 GB/s). */
    if (!rc && r->read_gbs_now > 0) m->setup.dev[0].mem_gbs = r->read_gbs_now;
    /* --repack 0: llama.cpp's CPU weights in plain buffers (planner/speed.c) */
    if (!rc && !r->repack && engine == PLAN_ENG_LLAMACPP) m->setup.dev[0].plain = true;
    /* -fa 0 (an older llama-bench's false); fitcheck's engine has one attention kernel */
    m->setup.no_fa = engine == PLAN_ENG_LLAMACPP && r->flash_attn == 0;
    /* a llama.cpp build of before int8 tensor-core MMQ, or before the x86 tiled GEMM, told by its build
     * number, else by when its test ran (as the corpus's rows): an old build run today is still old. Build 1
     * is no number: llama.cpp's build-info.cmake counts the checkout's commits, one in a shallow clone
     * (`git clone --depth 1`, and the tree of bench/llamacpp_build.sh) */
    uint32_t build = r->build_number > 1 ? (uint32_t)r->build_number : 0;
    bool llama = engine == PLAN_ENG_LLAMACPP;
    m->setup.old_build = llama && plan_run_before(build, r->test_time, PLAN_CURRENT_ERA_BUILD, PLAN_CURRENT_ERA);
    m->setup.pre_tiled = llama && plan_run_before(build, r->test_time, PLAN_TILED_BUILD, PLAN_TILED_ERA);
    plan_model_summary ms = {.n_params = (double)r->model_n_params, .size_bytes = (double)r->model_size,
                             .type = (uint32_t)type};
    if (!rc) rc = record_loads(m, r->model_filename, &ms, ngl, where, err);
    return rc;
}

static int import_records(plan_meas_set *s, const char *text, size_t len, const char *name, const probe_profile *p,
                          fc_err *err) {
    plan_bench_record *r;
    int n;
    int rc = plan_bench_parse(text, len, name, &r, &n, err);
    for (int i = 0; !rc && i < n; i++) {
        plan_meas *m;
        char where[MEAS_WHERE_MAX];
        snprintf(where, sizeof where, "%s: record %d", name, i + 1);
        if ((rc = plan_meas_push(s, &m, err))) break;
        if ((rc = plan_meas_from_record(m, &r[i], p, where, err))) s->n--;
    }
    free(r);
    return rc;
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
    if ((strncmp(s, "pp", 2) && strncmp(s, "tg", 2)) || !pub_num(s + 2, 1, PLAN_BENCH_MAX_TOKENS, &n)) return false;
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
                          : !pub_num(f[DEPTH], 0, PLAN_BENCH_MAX_TOKENS, &depth) ? "n_depth"
                          : !pub_num(f[TPS], 1e-6, PLAN_BENCH_MAX_TPS, &tps) ? "tps"
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
        su->pre_tiled = true;
        su->no_fa = true;     /* whose llama-bench ran without flash attention unless told (PLAN_FA_AUTO_ERA) */
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
    return import_records(s, text, len, name, p, err);
}
