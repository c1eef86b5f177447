/* The public benchmark corpus (data/bench_corpus.csv, built by
 * scripts/corpus_build.py from data/corpus/): llama-bench results on devices
 * we do not have, each row a device id (the hardware catalog, else
 * data/bench_devices.csv), a catalog model and a quantization (the tensor
 * table is emulated per llama.cpp's quantization rules), a llama-bench test
 * and its flags. Every row becomes a plan_meas with its group keys (source,
 * device family) for cross-validation. Hostile input assumed: every field is
 * checked and an error names file, line and field. */
#include "planner/planner.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CORPUS_LINE_MAX 1024
#define CORPUS_FIELDS 19
#define CORPUS_MAX_TPS 1e7
#define CORPUS_MAX_UBATCH 65536
#define DEVICES_FIELDS 9
enum { D_ID, D_BACKEND, D_GBS, D_TFLOPS, D_CORES, D_SOC, D_INT8, D_FP32, D_SOURCE };
#define CORPUS_MAX_CORES 1024

enum { C_DEVICE, C_BACKEND, C_MODEL, C_QUANT, C_TEST, C_NPROMPT, C_NGEN, C_NDEPTH, C_TPS, C_FA, C_UB, C_NGL,
       C_THREADS, C_MMAP, C_BUILD, C_DATE, C_ERA, C_SOURCE, C_URL };

static bool num_in(const char *s, double lo, double hi, double *out) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !isfinite(v) || v < lo || v > hi) return false;
    *out = v;
    return true;
}

/* Datasheet figures to the speed model's basis (plan_speed_dev_from_device, the
 * one conversion): a GPU's for the backend it runs (its Vulkan rate, where
 * that is not its matrix rate); a CPU (cores > 0) gets its all-core FP32 peak
 * and its theoretical bandwidth, which that conversion turns into what
 * llama.cpp's threads sustain, and its ISA's int8 multiply-adds per FP32 one. */
static int corpus_dev(plan_speed_dev *d, const char *id, int backend, double spec_gbs, double tflops, double fp32,
                      double vulkan_tflops, double int8_tops, int cores, double cpu_int8, bool soc, fc_err *err) {
    plan_device pd = {.backend = cores > 0 ? PLAN_CPU : backend, .bandwidth_gbs = spec_gbs, .n_cores = cores,
                      .vulkan_tflops = vulkan_tflops, .int8_tops = int8_tops, .int8_per_fp32 = cpu_int8,
                      .unified = soc};
    if (cores > 0) pd.fp32_tflops = tflops;
    else pd.fp16_tflops = tflops, pd.fp32_tflops = fp32;
    snprintf(pd.id, sizeof pd.id, "%s", id);
    plan_speed_dev_from_device(d, &pd);
    return d->mem_gbs > 0 && d->gflops > 0 ? FC_OK : fc_err_set(err, FC_EINPUT, "device '%s' has no bandwidth or TFLOPS", id);
}

/* Bandwidth and dense throughput of a device id: the catalog first, then the
 * corpus's own device table (binned variants, cards and CPUs the catalog
 * lacks). *cores: a CPU's core count (0 for a GPU). */
static int corpus_device(const char *id, int backend, plan_speed_dev *d, int *cores, fc_err *err) {
    memset(d, 0, sizeof *d);
    *cores = 0;
    plan_hw_entry e;
    fc_err ignored = {0};
    if (plan_hwcat_find(id, &e, &ignored) == FC_OK) {
        if (!strcmp(e.category, "cpu_platform"))
            return fc_err_set(err, FC_EINPUT, "device '%s' is a CPU platform without a core count; list the CPU in "
                                              "data/bench_devices.csv", id);
        double tflops = e.fp16_tflops > 0 ? e.fp16_tflops : e.fp32_tflops;
        return corpus_dev(d, id, backend, e.bandwidth_gbs, tflops, e.fp32_tflops, e.vulkan_tflops, e.int8_tops, 0, 0,
                          plan_hwcat_unified(&e), err);
    }
    const char *cur = plan_data_file("bench_devices.csv");
    if (!cur) return fc_err_set(err, FC_ERUNTIME, "data/bench_devices.csv is not built in");
    char line[CORPUS_LINE_MAX];
    bool header = false;
    while (plan_csv_data_line(&cur, line, sizeof line, &header)) {
        char *f[DEVICES_FIELDS];
        if (plan_csv_fields(line, f, DEVICES_FIELDS) != DEVICES_FIELDS || strcasecmp(f[D_ID], id)) continue;
        double gbs, tflops, nc = 0, int8 = 0, fp32 = 0;
        bool cpu = !strcasecmp(f[D_BACKEND], "cpu");
        if (!num_in(f[D_GBS], 1, 1e5, &gbs) || !num_in(f[D_TFLOPS], 0.01, 1e5, &tflops) ||
            (cpu && !num_in(f[D_CORES], 1, CORPUS_MAX_CORES, &nc)) || (f[D_SOC][0] && strcmp(f[D_SOC], "1")) ||
            (cpu && !num_in(f[D_INT8], PROBE_INT8_AVX2, PROBE_INT8_I8MM, &int8)) || (!cpu && f[D_INT8][0]) ||
            (!cpu && !num_in(f[D_FP32], 0.01, 1e5, &fp32)) || (cpu && f[D_FP32][0]))
            return fc_err_set(err, FC_ERUNTIME, "data/bench_devices.csv: bad numbers for '%s'", id);
        *cores = (int)nc;
        return corpus_dev(d, id, backend, gbs, tflops, fp32, 0, 0, *cores, int8, !strcmp(f[D_SOC], "1"), err);
    }
    return fc_err_set(err, FC_EINPUT, "device '%s' is neither in the hardware catalog nor in data/bench_devices.csv", id);
}

int plan_corpus_device(const char *id, int backend, plan_speed_dev *d, fc_err *err) {
    int cores;
    return corpus_device(id, backend, d, &cores, err);
}

bool plan_dated_before(const char *date, const char *month) {
    return isdigit((unsigned char)date[0]) && strncmp(date, month, strlen(month)) < 0;
}

bool plan_build_old(uint32_t build) { return build > 0 && build < PLAN_CURRENT_ERA_BUILD; }

bool plan_build_fa_auto(uint32_t build) { return build == 0 || build >= PLAN_FA_AUTO_BUILD; }
bool plan_build_tiled(uint32_t build) { return build == 0 || build >= PLAN_TILED_BUILD; }

bool plan_run_before(uint32_t build, const char *date, uint32_t era_build, const char *era_month) {
    return build > 0 ? build < era_build : plan_dated_before(date, era_month);
}

/* A row's build number, 0 where it has none (a commit hash, 7 or more hex digits, never reads as one: all
 * digits, it is beyond PLAN_BUILD_MAX). */
static uint32_t corpus_row_build(char **f) {
    double build;
    return num_in(f[C_BUILD], 1, PLAN_BUILD_MAX, &build) ? (uint32_t)build : 0;
}

/* A row's build era: what its source says its build ran, else its build number, else its date, as a llama-bench
 * record's (calibrate_import.c). */
static bool corpus_row_old(char **f) {
    if (f[C_ERA][0]) return !strcmp(f[C_ERA], "old");
    return plan_run_before(corpus_row_build(f), f[C_DATE], PLAN_CURRENT_ERA_BUILD, PLAN_CURRENT_ERA);
}

#define CORPUS_MAX_SOURCES 256 /* distinct publications counted; the corpus has 84 */

/* A row's publication (plan_meas.origin): FNV-1a of its URL, else of its source's text; told apart by a
 * 64-bit hash, not kept whole. */
static uint64_t corpus_origin(char **f) {
    const char *s = f[C_URL][0] ? f[C_URL] : f[C_SOURCE];
    uint64_t h = 14695981039346656037ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

int plan_corpus_old_rows(int backend, int *n_sources) {
    const char *cur = plan_data_file("bench_corpus.csv");
    char line[CORPUS_LINE_MAX];
    bool header = false;
    uint64_t seen[CORPUS_MAX_SOURCES];
    int rows = 0, n_seen = 0;
    while (cur && plan_csv_data_line(&cur, line, sizeof line, &header)) {
        char *f[CORPUS_FIELDS];
        if (plan_csv_fields(line, f, CORPUS_FIELDS) != CORPUS_FIELDS ||
            plan_backend_from_name(f[C_BACKEND]) != backend || !corpus_row_old(f))
            continue;
        rows++;
        uint64_t h = corpus_origin(f);
        int i = 0;
        while (i < n_seen && seen[i] != h) i++;
        if (i == n_seen && n_seen < CORPUS_MAX_SOURCES) seen[n_seen++] = h;
    }
    *n_sources = n_seen;
    return rows;
}

bool plan_corpus_family_measured(const char *family) {
    const char *cur = plan_data_file("bench_corpus.csv");
    char line[CORPUS_LINE_MAX];
    bool header = false;
    while (cur && plan_csv_data_line(&cur, line, sizeof line, &header)) {
        char *comma = strchr(line, ',');
        if (comma) *comma = '\0';
        char fam[64];
        plan_corpus_family(line, fam, sizeof fam);
        if (!strcmp(fam, family)) return true;
    }
    return false;
}

bool plan_corpus_device_measured(const char *id, char *family, size_t cap) {
    plan_corpus_family(id, family, cap);
    return plan_corpus_family_measured(family);
}

/* A device family: what a buyer asks about is a device nobody measured, and
 * its nearest measured relatives are its family (one chip generation: an SoC's
 * GPU goes with the discrete cards of its architecture, Strix Halo's RDNA 3.5
 * and the 780M with RDNA3, Lunar Lake's Arc 140V with Battlemage's Xe2). */
void plan_corpus_family(const char *id, char *out, size_t cap) {
    static const struct { const char *prefix, *family; } fam[] = {
        {"rtx-pro-6000-blackwell", "nvidia-blackwell"}, {"rtx-50", "nvidia-blackwell"},
        {"dgx-spark", "nvidia-blackwell"},             {"rtx-40", "nvidia-ada"},
        {"rtx-6000-ada", "nvidia-ada"},                 {"l40", "nvidia-ada"},
        {"l4", "nvidia-ada"},                           {"rtx-30", "nvidia-ampere"},
        {"rtx-a", "nvidia-ampere"},                     {"a100", "nvidia-ampere"},
        {"a10", "nvidia-ampere"},                       {"rtx-20", "nvidia-turing"},
        {"t4", "nvidia-turing"},                        {"h100", "nvidia-hopper"},
        {"h200", "nvidia-hopper"},                      {"gh200", "nvidia-hopper"},
        {"v100", "nvidia-volta"},                       {"p100", "nvidia-pascal"},
        {"p40", "nvidia-pascal"},                       {"mi50", "amd-gcn5"},
        {"radeon-pro-vii", "amd-gcn5"},
        {"radeon-pro-w7", "amd-rdna3"},
        {"rx-90", "amd-rdna4"},                         {"radeon-ai-pro-r9700", "amd-rdna4"},
        {"rx-7", "amd-rdna3"},                          {"ryzen-ai-max", "amd-rdna3"},
        {"radeon-780m", "amd-rdna3"},                   {"rx-6", "amd-rdna2"},
        {"mi", "amd-cdna"},                             {"arc-a", "intel-alchemist"},
        {"arc-b", "intel-xe2"},                         {"arc-pro-b", "intel-xe2"},
        {"arc-140v", "intel-xe2"},
    };
    for (size_t i = 0; i < FC_ARRAY_LEN(fam); i++)
        if (!strncasecmp(id, fam[i].prefix, strlen(fam[i].prefix))) {
            snprintf(out, cap, "%s", fam[i].family);
            return;
        }
    /* apple-m3-max-40c -> apple-m3: one generation of Apple silicon */
    if (!strncasecmp(id, "apple-m", 7)) {
        size_t n = 7;
        while (isdigit((unsigned char)id[n])) n++;
        snprintf(out, cap, "%.*s", (int)n, id);
        return;
    }
    snprintf(out, cap, "%s", id);
}

/* One model + quantization, emulated once and reused by the rows after it. */
typedef struct corpus_model {
    char model[64], quant[24];
    model_desc d;
    bool loaded;
} corpus_model;

static int corpus_model_get(corpus_model *cm, const char *model, const char *quant, fc_err *err) {
    if (cm->loaded && !strcmp(cm->model, model) && !strcmp(cm->quant, quant)) return FC_OK;
    if (cm->loaded) model_desc_free(&cm->d);
    cm->loaded = false;
    model_catalog_info info;
    model_hparams hp;
    int rc = model_catalog_find(model, &info, &hp, err);
    if (!rc) rc = model_desc_synthesize(&cm->d, &hp, quant, err);
    if (rc) return rc;
    snprintf(cm->model, sizeof cm->model, "%s", model);
    snprintf(cm->quant, sizeof cm->quant, "%s", quant);
    cm->loaded = true;
    return FC_OK;
}

static int corpus_row(plan_meas_set *s, char **f, corpus_model *cm, const char *where, fc_err *err) {
    int be = plan_backend_from_name(f[C_BACKEND]);
    if (be < 0) return fc_err_set(err, FC_EINPUT, "%s: unknown backend '%s'", where, f[C_BACKEND]);
    plan_bench_test bt;
    if (plan_bench_test_parse(f[C_TEST], &bt))
        return fc_err_set(err, FC_EINPUT, "%s: test '%s' is not a llama-bench test (pp512, tg128, pp512@d4096, pp4096+tg128)",
                          where, f[C_TEST]);
    double tps, ub = PLAN_DEFAULT_UBATCH;
    if (!num_in(f[C_TPS], 1e-6, CORPUS_MAX_TPS, &tps)) return fc_err_set(err, FC_EINPUT, "%s: bad t/s '%s'", where, f[C_TPS]);
    if (f[C_UB][0] && !num_in(f[C_UB], 1, CORPUS_MAX_UBATCH, &ub))
        return fc_err_set(err, FC_EINPUT, "%s: bad ubatch '%s'", where, f[C_UB]);
    if (f[C_FA][0] && strcmp(f[C_FA], "0") && strcmp(f[C_FA], "1"))
        return fc_err_set(err, FC_EINPUT, "%s: bad fa '%s' (0, 1 or empty)", where, f[C_FA]);
    if (f[C_ERA][0] && strcmp(f[C_ERA], "current") && strcmp(f[C_ERA], "old"))
        return fc_err_set(err, FC_EINPUT, "%s: bad era '%s' (current, old or empty)", where, f[C_ERA]);
    plan_speed_dev dev;
    int cores;
    int rc = corpus_device(f[C_DEVICE], be, &dev, &cores, err);
    if (!rc && (cores > 0) != (be == PLAN_CPU))
        rc = fc_err_set(err, FC_EINPUT, "backend '%s' on %s device '%s'", f[C_BACKEND], cores > 0 ? "CPU" : "GPU",
                        f[C_DEVICE]);
    if (!rc) rc = corpus_model_get(cm, f[C_MODEL], f[C_QUANT], err);
    if (rc) return fc_err_prefix(err, "%s: ", where);
    double threads;
    if (cores > 0 && f[C_THREADS][0]) {
        if (!num_in(f[C_THREADS], 1, CORPUS_MAX_CORES, &threads))
            return fc_err_set(err, FC_EINPUT, "%s: bad threads '%s'", where, f[C_THREADS]);
        /* llama.cpp's threads each run on a core; more threads than cores only contend */
        dev.gflops *= fmin(threads, cores) / cores;
        dev.threads = (int)fmin(threads, cores);
    }
    plan_meas *m;
    if ((rc = plan_meas_push(s, &m, err))) return rc;
    m->backend = be;
    m->engine = PLAN_ENG_LLAMACPP;
    m->n_prompt = bt.n_prompt;
    m->n_gen = bt.n_gen;
    m->n_depth = bt.n_depth;
    m->tps = tps;
    snprintf(m->label, sizeof m->label, "%.24s %.20s %.10s %.24s", f[C_DEVICE], f[C_MODEL], f[C_QUANT], f[C_TEST]);
    snprintf(m->device, sizeof m->device, "%s", f[C_DEVICE]);
    snprintf(m->source, sizeof m->source, "%s", f[C_SOURCE]);
    m->origin = corpus_origin(f);
    /* The build era as the source states it (which kernels ran), else from the date ("2024-05",
     * "2023-11..2025": its start). */
    m->setup.old_build = corpus_row_old(f);
    plan_speed_setup *su = &m->setup;
    su->pre_tiled = plan_run_before(corpus_row_build(f), f[C_DATE], PLAN_TILED_BUILD, PLAN_TILED_ERA);
    /* -fa as given, else its default in the row's build */
    su->no_fa = f[C_FA][0] ? !strcmp(f[C_FA], "0") : plan_dated_before(f[C_DATE], PLAN_FA_AUTO_ERA);
    su->n_dev = 1;
    su->engine = PLAN_ENG_LLAMACPP;
    su->n_ubatch = (uint32_t)ub;
    su->dev[0] = dev;
    plan_speed_place pl;
    memset(&pl, 0, sizeof pl); /* every layer, the output and the experts on the one device */
    pl.exps_dev = -1;
    pl.kv_type = GGML_TYPE_F16;
    rc = plan_speed_loads(su, &cm->d, &pl, err);
    if (rc) {
        s->n--;
        return fc_err_prefix(err, "%s: ", where);
    }
    return FC_OK;
}

int plan_corpus_import(plan_meas_set *s, const char *text, const char *name, fc_err *err) {
    const char *cur = text;
    char line[CORPUS_LINE_MAX];
    int lineno = 0, got, rc = FC_OK;
    bool header = false;
    corpus_model *cm = calloc(1, sizeof *cm);
    if (!cm) return fc_err_set(err, FC_ERUNTIME, "out of memory");
    while (!rc && (got = plan_csv_line(&cur, line, sizeof line)) != 0) {
        lineno++;
        if (got < 0) {
            rc = fc_err_set(err, FC_EINPUT, "%s:%d: line longer than %d bytes", name, lineno, CORPUS_LINE_MAX - 1);
            break;
        }
        if (!line[0] || line[0] == '#') continue;
        if (!header) {
            header = true;
            if (strncmp(line, PLAN_CORPUS_HEADER, strlen(PLAN_CORPUS_HEADER)))
                rc = fc_err_set(err, FC_EINPUT, "%s:%d: expected the header '%s...'", name, lineno, PLAN_CORPUS_HEADER);
            continue;
        }
        char *f[CORPUS_FIELDS];
        char where[160];
        snprintf(where, sizeof where, "%s:%d", name, lineno);
        if (plan_csv_fields(line, f, CORPUS_FIELDS) != CORPUS_FIELDS)
            rc = fc_err_set(err, FC_EINPUT, "%s: expected %d fields", where, CORPUS_FIELDS);
        else
            rc = corpus_row(s, f, cm, where, err);
    }
    if (cm->loaded) model_desc_free(&cm->d);
    free(cm);
    if (!rc && !header) rc = fc_err_set(err, FC_EINPUT, "%s: no header line", name);
    return rc;
}
