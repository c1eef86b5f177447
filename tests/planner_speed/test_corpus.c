/* The public benchmark corpus (data/bench_corpus.csv): its parser on good and
 * hostile input, its coverage, and the built-in constants on it (an in-sample
 * guard; the out-of-sample figures come from
 * 'fitcheck calibrate --cross-validate', bench/speed_vs_published.sh). */
#include "planner/planner.h"
#include "tests/check.h"
#include "tests/planner_speed/meas_load.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CORPUS_MIN_ROWS 600
#define CORPUS_MIN_DEVICES 60
#define CORPUS_DEEP 16384 /* rows at this depth or more must come from more than one source */
/* In sample after the refit on 632 rows: decode 7.1%, prefill 9.1%, depth >= 16k 7.5% (2026-12-01); a regression
 * guard a little above (in sample: not a claim; docs/speed-model.md has the out-of-sample figures). */
#define CORPUS_DECODE_MAX 0.08
#define CORPUS_PREFILL_MAX 0.10
#define CORPUS_DEEP_MAX 0.09

static void test_test_names(void) {
    static const struct { const char *s; int ok, p, g, d; } cases[] = {
        {"pp512", 1, 512, 0, 0},           {"tg128", 1, 0, 128, 0},        {"pp512@d4096", 1, 512, 0, 4096},
        {"tg32@d32768", 1, 0, 32, 32768}, {"pp4096+tg128", 1, 4096, 128, 0}, {"pp512+tg64@d1024", 1, 512, 64, 1024},
        {"", 0, 0, 0, 0},                  {"pp", 0, 0, 0, 0},             {"pp0", 0, 0, 0, 0},
        {"tg128+pp512", 0, 0, 0, 0},       {"pp512@x4", 0, 0, 0, 0},       {"pp512@d", 0, 0, 0, 0},
        {"pp512x", 0, 0, 0, 0},            {"pp-5", 0, 0, 0, 0},           {"pp512+pp512", 0, 0, 0, 0},
        {"tg1+", 0, 0, 0, 0},              {"pp99999999", 0, 0, 0, 0},     {"pp512@d-1", 0, 0, 0, 0},
        {"pp512 @ d4096", 1, 512, 0, 4096}, {"tg128@d0", 1, 0, 128, 0},    {"pp512+tg0", 0, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        plan_bench_test t;
        int rc = plan_bench_test_parse(cases[i].s, &t);
        int p = t.n_prompt, g = t.n_gen, d = t.n_depth;
        CHECK_MSG((rc == FC_OK) == cases[i].ok, "'%s'", cases[i].s);
        if (cases[i].ok && rc == FC_OK)
            CHECK_MSG(p == cases[i].p && g == cases[i].g && d == cases[i].d, "'%s' -> %d %d %d", cases[i].s, p, g, d);
    }
}

static void test_families(void) {
    static const char *const pairs[][2] = {
        {"apple-m3-max-40c", "apple-m3"}, {"apple-m1", "apple-m1"},  {"rtx-4090", "nvidia-ada"},
        {"rtx-3060-12gb", "nvidia-ampere"}, {"rtx-pro-6000-blackwell", "nvidia-blackwell"},
        {"rx-7900-xtx", "amd-rdna3"},      {"radeon-780m", "amd-rdna3"}, {"rx-9060-xt", "amd-rdna4"},
        {"rx-6800-xt", "amd-rdna2"},       {"arc-b580", "intel-xe2"},   {"arc-140v", "intel-xe2"},
        {"arc-a770-16gb", "intel-alchemist"}, {"unknown-thing", "unknown-thing"}, {"p40", "nvidia-pascal"},
        {"mi50", "amd-gcn5"},              {"mi100", "amd-cdna"},       {"radeon-pro-w7900", "amd-rdna3"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        char f[64];
        plan_corpus_family(pairs[i][0], f, sizeof f);
        CHECK_MSG(!strcmp(f, pairs[i][1]), "%s -> %s", pairs[i][0], f);
    }
}

/* A device is described once: data/bench_devices.csv holds only what the
 * hardware catalog lacks (the catalog is read first, so a row in both would
 * be shadowed there, its figures silently unused). */
/* Which chip generations a published result measures: what plan's accuracy line quotes depends on it. */
static void test_families_measured(void) {
    CHECK(plan_corpus_family_measured("nvidia-ada") && plan_corpus_family_measured("apple-m2") &&
          plan_corpus_family_measured("amd-rdna3"));
    CHECK(!plan_corpus_family_measured("nvidia-pascal") && !plan_corpus_family_measured("amd-epyc-9005") &&
          !plan_corpus_family_measured(""));
}

static void test_devices_once(void) {
    const char *cur = plan_data_file("bench_devices.csv");
    CHECK(cur != NULL);
    char line[8192];
    bool header = false;
    int n = 0;
    while (cur && plan_csv_data_line(&cur, line, sizeof line, &header)) {
        char *f[7];
        if (plan_csv_fields(line, f, 7) < 1) continue;
        plan_hw_entry e;
        fc_err err = {0};
        CHECK_MSG(plan_hwcat_find(f[0], &e, &err) != FC_OK, "%s is in the catalog and in data/bench_devices.csv", f[0]);
        n++;
    }
    CHECK(n > 0);
}

#define HDR PLAN_CORPUS_HEADER ",n_prompt,n_gen,n_depth,tps,fa,ub,ngl,threads,mmap,build,date,era,source,url\n"

static void expect_error(const char *text, const char *needle) {
    plan_meas_set s = {0};
    fc_err err = {0};
    int rc = plan_corpus_import(&s, text, "bad.csv", &err);
    CHECK_MSG(rc == FC_EINPUT, "accepted: %s", text);
    CHECK_MSG(strstr(err.msg, needle) != NULL, "message '%s' lacks '%s'", err.msg, needle);
    CHECK(s.n == 0);
    plan_meas_set_free(&s);
}

static void test_hostile(void) {
    expect_error("x,y\n", "header");
    expect_error("", "no header");
    expect_error(HDR "rtx-4090,cuda,llama-2-7b,Q4_0,pp512,512,0,0,abc,,,,,,,,,s,u\n", "bad.csv:2: bad t/s");
    expect_error(HDR "rtx-4090,cuda,llama-2-7b,Q4_0,pp512,512,0,0,-3,,,,,,,,,s,u\n", "bad t/s");
    expect_error(HDR "rtx-4090,cuda,llama-2-7b,Q4_0,pp0,512,0,0,1,,,,,,,,,s,u\n", "not a llama-bench test");
    expect_error(HDR "rtx-4090,warp,llama-2-7b,Q4_0,pp512,512,0,0,1,,,,,,,,,s,u\n", "unknown backend");
    expect_error(HDR "no-such-gpu,cuda,llama-2-7b,Q4_0,pp512,512,0,0,1,,,,,,,,,s,u\n", "no-such-gpu");
    expect_error(HDR "rtx-4090,cuda,no-such-model,Q4_0,pp512,512,0,0,1,,,,,,,,,s,u\n", "bad.csv:2");
    expect_error(HDR "rtx-4090,cuda,llama-2-7b,Q9_9,pp512,512,0,0,1,,,,,,,,,s,u\n", "bad.csv:2");
    expect_error(HDR "rtx-4090,cuda,llama-2-7b,Q4_0,pp512,512,0,0,1,,0,,,,,,,s,u\n", "bad ubatch");
    expect_error(HDR "rtx-4090,cuda,llama-2-7b,Q4_0,pp512,512,0,0,1,2,,,,,,,,s,u\n", "bad fa '2'");
    expect_error(HDR "rtx-4090,cuda,llama-2-7b,Q4_0,pp512,512,0,0,1,,,,,,,2024-06,new,s,u\n", "bad era 'new'");
    expect_error(HDR "rtx-4090,cuda,llama-2-7b\n", "expected 19 fields");
    expect_error(HDR "rtx-4090,cpu,llama-2-7b,Q4_0,pp512,512,0,0,1,,,,,,,,,s,u\n", "backend 'cpu' on GPU device");
    expect_error(HDR "cpu-threadripper-pro-5995wx,cuda,llama-2-7b,Q4_0,pp512,512,0,0,1,,,,,,,,,s,u\n", "on CPU device");
    expect_error(HDR "cpu-threadripper-pro-5995wx,cpu,llama-2-7b,Q4_0,pp512,512,0,0,1,,,,x,,,,,s,u\n", "bad threads");
    expect_error(HDR "amd-epyc-9005,cpu,llama-2-7b,Q4_0,pp512,512,0,0,1,,,,,,,,,s,u\n", "core count");
}

/* Imports rows of the corpus's shape and the built-in constants: true when the rows parsed, n of them. */
static bool import_rows(const char *text, const char *name, int n, plan_meas_set *s, plan_efficiency *e) {
    fc_err err = {0};
    CHECK_MSG(plan_corpus_import(s, text, name, &err) == FC_OK, "%s", err.msg);
    CHECK(plan_efficiency_builtin(e, &err) == FC_OK);
    CHECK_MSG(s->n == n, "%s: %d rows", name, s->n);
    return s->n == n;
}

/* -fa as the row gives it, else its build's default (PLAN_FA_AUTO_ERA); without flash attention decode at depth
 * is slower on Metal, where the corpus's -fa 0 rows put the plain path's rate at a third of the fused kernel's. */
static void test_flash_attn(void) {
    const char *text = HDR "apple-m2-ultra,metal,llama-3.1-8b,Q4_0,tg128@d8192,0,128,8192,1,0,,,,,,2025-10,,s,u\n"
                           "apple-m2-ultra,metal,llama-3.1-8b,Q4_0,tg128@d8192,0,128,8192,1,1,,,,,,2025-10,,s,u\n"
                           "apple-m2-ultra,metal,llama-3.1-8b,Q4_0,tg128@d8192,0,128,8192,1,,,,,,,2025-03,,s,u\n"
                           "apple-m2-ultra,metal,llama-3.1-8b,Q4_0,tg128@d8192,0,128,8192,1,,,,,,,2026-01,,s,u\n";
    plan_meas_set s = {0};
    plan_efficiency e;
    if (import_rows(text, "fa.csv", 4, &s, &e)) {
        CHECK(s.m[0].setup.no_fa && !s.m[1].setup.no_fa && s.m[2].setup.no_fa && !s.m[3].setup.no_fa);
        double off = plan_meas_predict(&s.m[0], &e), on = plan_meas_predict(&s.m[1], &e);
        CHECK_MSG(off < 0.95 * on, "tg128@d8192 without flash attention %.1f, with %.1f t/s", off, on);
    }
    plan_meas_set_free(&s);
}

/* The build era as the row states it, else from its date (PLAN_CURRENT_ERA): June 2024 held both #7716's dp4a MMQ
 * and the PR columns of #7676/#7860's int8 tensor-core MMQ, so a date alone cannot tell an old build there. An old
 * build's quantized prefill runs at its backend's era_pp share (CUDA's fitted below 1). */
static void test_era(void) {
    const char *text = HDR "rtx-4090,cuda,llama-3.1-8b,Q4_K_S,pp2048,2048,0,0,1,0,,,,,,2024-06,,s,u\n"
                           "rtx-4090,cuda,llama-3.1-8b,Q4_K_S,pp2048,2048,0,0,1,0,,,,,,2024-06,current,s,u\n"
                           "rtx-4090,cuda,llama-3.1-8b,Q4_K_S,pp2048,2048,0,0,1,0,,,,,,2025-01,old,s,u\n"
                           "rtx-4090,cuda,llama-3.1-8b,Q4_K_S,pp2048,2048,0,0,1,0,,,,,,2024-07,,s,u\n";
    plan_meas_set s = {0};
    plan_efficiency e;
    if (import_rows(text, "era.csv", 4, &s, &e)) {
        CHECK(s.m[0].setup.old_build && !s.m[1].setup.old_build && s.m[2].setup.old_build && !s.m[3].setup.old_build);
        double old_tps = plan_meas_predict(&s.m[0], &e), cur_tps = plan_meas_predict(&s.m[1], &e);
        CHECK_MSG(old_tps < 0.9 * cur_tps, "pp2048 as an old build %.0f, as the current one %.0f t/s", old_tps, cur_tps);
    }
    plan_meas_set_free(&s);
}

/* A source is its publication (plan_meas.origin): two tables of one thread are one source however their names
 * differ, and two threads are two however long the part of their names they share (96 bytes of it once made
 * ik_llama.cpp#164's x86 and Arm tables one source, and #18749's two columns, by accident). */
static void test_origin(void) {
#define ROW "rtx-4090,cuda,llama-2-7b,Q4_0,pp512,512,0,0,1,,,,,,,2025-01,,"
#define LONG_NAME "ik_llama.cpp#164 (discussion \"Latest CPU performance comparison with llama.cpp\"; mainline columns; "
    _Static_assert(sizeof LONG_NAME > sizeof ((plan_meas *)0)->source, "the name must outrun what is kept of it");
    const char *text = HDR ROW LONG_NAME "x86 table,u1\n" ROW LONG_NAME "Arm table,u1\n" ROW LONG_NAME "x86 table,u2\n"
                           ROW LONG_NAME "x86 table,\n" ROW LONG_NAME "Arm table,\n";
    plan_meas_set s = {0};
    plan_efficiency e;
    if (import_rows(text, "origin.csv", 5, &s, &e)) {
        CHECK(!strcmp(s.m[3].source, s.m[4].source)); /* the names as kept are one */
        CHECK(s.m[0].origin == s.m[1].origin && s.m[0].origin != s.m[2].origin);
        CHECK(s.m[3].origin != s.m[4].origin && s.m[3].origin != s.m[0].origin);
    }
    plan_meas_set_free(&s);
#undef ROW
#undef LONG_NAME
}

/* plan_cv_repeats: the geometric mean of the other sources' numbers for the same test, never the row's own source. */
static void test_repeats(void) {
    static const struct { const char *label, *source; bool no_fa; double tps, want; } rows[] = {
        {"rtx-4090 llama-2-7b Q4_0 pp512", "A", false, 100, 282.842712}, /* sqrt(200 x 400) */
        {"rtx-4090 llama-2-7b Q4_0 pp512", "B", false, 200, 200},        /* A and C: sqrt(100 x 400) */
        {"rtx-4090 llama-2-7b Q4_0 pp512", "C", false, 400, 141.421356}, /* sqrt(100 x 200) */
        {"rtx-4090 llama-2-7b Q4_0 pp512", "C", true, 50, 0},            /* another -fa: another test */
        {"rtx-4090 llama-2-7b Q4_0 tg128", "A", false, 150, 0},          /* its source's only run of it */
        {"rtx-4090 llama-2-7b Q4_0 tg128", "A", false, 160, 0},          /* the same source twice is no repeat */
    };
    enum { N = sizeof rows / sizeof rows[0] };
    plan_meas m[N];
    memset(m, 0, sizeof m);
    for (int i = 0; i < N; i++) {
        snprintf(m[i].label, sizeof m[i].label, "%s", rows[i].label);
        snprintf(m[i].source, sizeof m[i].source, "%s", rows[i].source);
        m[i].origin = (unsigned char)rows[i].source[0];
        m[i].setup.no_fa = rows[i].no_fa;
        m[i].tps = rows[i].tps;
    }
    plan_meas_set s = {m, N, N};
    double other[N];
    plan_cv_repeats(&s, other);
    for (int i = 0; i < N; i++)
        CHECK_MSG(fabs(other[i] - rows[i].want) < 1e-4, "row %d: %.6f, want %.6f", i, other[i], rows[i].want);
}

/* soc_pp is one constant for every GPU backend but Metal: fitted to the ROCm
 * rows alone, the Strix Halo's beside the discrete cards' (the SoC's alone
 * cannot tell it from the per-type rates), it moves, and the CUDA, Vulkan and
 * SYCL sets, which have no row here, carry the same value
 * (planner/calibrate.c add_soc_param). */
static void test_soc_shared(const plan_meas_set *set) {
    plan_meas_set rocm = {0};
    rocm.m = malloc(sizeof *rocm.m * ((size_t)set->n + 1));
    plan_efficiency *e = malloc(sizeof *e);
    fc_err err = {0};
    CHECK(rocm.m && e);
    if (!rocm.m || !e) goto out;
    int n_soc = 0;
    for (int i = 0; i < set->n; i++)
        if (set->m[i].backend == PLAN_ROCM) {
            rocm.m[rocm.n++] = set->m[i];
            n_soc += set->m[i].setup.dev[0].soc;
        }
    CHECK_MSG(n_soc >= 10 && rocm.n - n_soc >= 10, "%d ROCm SoC rows, %d others", n_soc, rocm.n - n_soc);
    CHECK_MSG(plan_efficiency_prior(e, &err) == FC_OK, "%s", err.msg);
    CHECK_MSG(plan_calibrate(e, &rocm, NULL, NULL, &err) == FC_OK, "%s", err.msg);
    double v = e->set[PLAN_ROCM][PLAN_ENG_LLAMACPP].scalar[PLAN_EFF_SOC_PP];
    printf("soc_pp fitted to %d ROCm rows, %d of them SoC: %.3f\n", rocm.n, n_soc, v);
    CHECK(v > 0 && v < 1);
    CHECK(e->set[PLAN_CUDA][PLAN_ENG_LLAMACPP].scalar[PLAN_EFF_SOC_PP] == v);
    CHECK(e->set[PLAN_VULKAN][PLAN_ENG_LLAMACPP].scalar[PLAN_EFF_SOC_PP] == v);
    CHECK(e->set[PLAN_SYCL][PLAN_ENG_LLAMACPP].scalar[PLAN_EFF_SOC_PP] == v);
    CHECK(e->set[PLAN_METAL][PLAN_ENG_LLAMACPP].scalar[PLAN_EFF_SOC_PP] == 1);
out:
    free(e);
    free(rocm.m);
}

static bool differ(double x, double y) { return fabs(x - y) > 1e-9 * x; }

/* How many constants of two sets differ beyond rounding. */
static int sets_differ(const plan_eff_set *x, const plan_eff_set *y) {
    int n = 0;
    for (int k = 0; k < PLAN_EFF_SCALAR_COUNT; k++) n += differ(x->scalar[k], y->scalar[k]);
    for (int k = 0; k < PLAN_EFF_TYPED_COUNT; k++) {
        n += differ(x->typed_default[k], y->typed_default[k]);
        for (uint32_t t = 0; t < GGML_TYPE_COUNT; t++) n += differ(x->typed[k][t], y->typed[k][t]);
    }
    return n;
}

/* The fit is a function of the rows, not of their order: the Vulkan and ROCm rows fitted as the file has them
 * and reversed give the same constants (planner/calibrate.c visits the constants in table order), and Vulkan's
 * default prefill rate, the main type of none of its rows, keeps its prior. */
static void test_order_free(const plan_meas_set *set) {
    plan_meas_set fwd = {0}, rev = {0};
    fwd.m = malloc(sizeof *fwd.m * ((size_t)set->n + 1));
    rev.m = malloc(sizeof *rev.m * ((size_t)set->n + 1));
    plan_efficiency *prior = malloc(sizeof *prior), *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    fc_err err = {0};
    CHECK(fwd.m && rev.m && prior && a && b);
    if (!fwd.m || !rev.m || !prior || !a || !b) goto out;
    for (int i = 0; i < set->n; i++)
        if (set->m[i].backend == PLAN_VULKAN || set->m[i].backend == PLAN_ROCM) fwd.m[fwd.n++] = set->m[i];
    for (int i = 0; i < fwd.n; i++) rev.m[rev.n++] = fwd.m[fwd.n - 1 - i];
    CHECK_MSG(fwd.n >= 100, "%d Vulkan and ROCm rows", fwd.n);
    CHECK_MSG(plan_efficiency_prior(prior, &err) == FC_OK, "%s", err.msg);
    *a = *b = *prior;
    CHECK_MSG(plan_calibrate(a, &fwd, NULL, NULL, &err) == FC_OK, "%s", err.msg);
    CHECK_MSG(plan_calibrate(b, &rev, NULL, NULL, &err) == FC_OK, "%s", err.msg);
    const int fitted[] = {PLAN_VULKAN, PLAN_ROCM};
    for (size_t i = 0; i < FC_ARRAY_LEN(fitted); i++) {
        const plan_eff_set *x = &a->set[fitted[i]][PLAN_ENG_LLAMACPP];
        CHECK_MSG(sets_differ(&prior->set[fitted[i]][PLAN_ENG_LLAMACPP], x) > 0, "%s not fitted",
                  plan_backend_name(fitted[i]));
        int n = sets_differ(x, &b->set[fitted[i]][PLAN_ENG_LLAMACPP]);
        CHECK_MSG(n == 0, "%s: %d constants differ between the orders", plan_backend_name(fitted[i]), n);
    }
    CHECK(a->set[PLAN_VULKAN][PLAN_ENG_LLAMACPP].typed_default[PLAN_EFF_PP] ==
          prior->set[PLAN_VULKAN][PLAN_ENG_LLAMACPP].typed_default[PLAN_EFF_PP]);
    /* A type gets a prefill rate of its own where it is the main type of enough prefill rows, its decode rows not
     * counted: among these sets at least one type (ROCm's Q8_0) has enough rows of both phases but too few prompts. */
    int split = 0;
    for (size_t i = 0; i < FC_ARRAY_LEN(fitted); i++)
        for (uint32_t t = 0; t < GGML_TYPE_COUNT; t++) {
            int n_pp = 0, n_all = 0;
            for (int r = 0; r < fwd.n; r++) {
                if (fwd.m[r].backend != fitted[i] || plan_speed_load_main_type(&fwd.m[r].setup.load[0]) != t) continue;
                n_all++;
                n_pp += fwd.m[r].n_prompt > 0;
            }
            bool own = a->set[fitted[i]][PLAN_ENG_LLAMACPP].typed[PLAN_EFF_PP][t] > 0;
            CHECK_MSG(own == (n_pp >= PLAN_FIT_TYPE_MIN_ROWS), "%s %s: %d prefill rows, own rate %d",
                      plan_backend_name(fitted[i]), ggml_type_get(t)->name, n_pp, own);
            split += n_pp < PLAN_FIT_TYPE_MIN_ROWS && n_all >= PLAN_FIT_TYPE_MIN_ROWS;
        }
    CHECK_MSG(split > 0, "no type with too few prefill rows among enough rows");
out:
    free(prior);
    free(a);
    free(b);
    free(fwd.m);
    free(rev.m);
}

/* Constants no row ties together are separate problems: fitted beside the CPU rows, Metal's constants are those
 * of a fit to its rows alone, and the CPU's those of theirs. Kept as whole tables, the lower of the two descents
 * had given Metal the forward one's constants here, because the CPU's ended lower forwards (planner/calibrate.c). */
static void test_blocks_apart(const plan_meas_set *set) {
    plan_meas_set metal = {0}, cpu = {0}, both = {0};
    metal.m = malloc(sizeof *metal.m * ((size_t)set->n + 1));
    cpu.m = malloc(sizeof *cpu.m * ((size_t)set->n + 1));
    both.m = malloc(sizeof *both.m * ((size_t)set->n + 1));
    plan_efficiency *prior = malloc(sizeof *prior), *a = malloc(sizeof *a), *b = malloc(sizeof *b),
                    *c = malloc(sizeof *c);
    fc_err err = {0};
    CHECK(metal.m && cpu.m && both.m && prior && a && b && c);
    if (!metal.m || !cpu.m || !both.m || !prior || !a || !b || !c) goto out;
    for (int i = 0; i < set->n; i++) {
        if (set->m[i].backend == PLAN_METAL) metal.m[metal.n++] = set->m[i];
        else if (set->m[i].backend == PLAN_CPU) cpu.m[cpu.n++] = set->m[i];
        else continue;
        both.m[both.n++] = set->m[i];
    }
    CHECK_MSG(plan_efficiency_prior(prior, &err) == FC_OK, "%s", err.msg);
    *a = *b = *c = *prior;
    CHECK_MSG(plan_calibrate(a, &metal, NULL, NULL, &err) == FC_OK, "%s", err.msg);
    CHECK_MSG(plan_calibrate(b, &cpu, NULL, NULL, &err) == FC_OK, "%s", err.msg);
    CHECK_MSG(plan_calibrate(c, &both, NULL, NULL, &err) == FC_OK, "%s", err.msg);
    const plan_eff_set *m_alone = &a->set[PLAN_METAL][PLAN_ENG_LLAMACPP], *m_both = &c->set[PLAN_METAL][PLAN_ENG_LLAMACPP];
    CHECK_MSG(sets_differ(&prior->set[PLAN_METAL][PLAN_ENG_LLAMACPP], m_alone) > 0, "Metal not fitted");
    int n = sets_differ(m_alone, m_both);
    CHECK_MSG(n == 0, "Metal: %d constants differ beside the CPU rows", n);
    for (int set_i = 0; set_i < PLAN_EFF_SETS; set_i++) {
        if (set_i == PLAN_METAL) continue;
        n = sets_differ(&b->set[set_i][PLAN_ENG_LLAMACPP], &c->set[set_i][PLAN_ENG_LLAMACPP]);
        CHECK_MSG(n == 0, "%s: %d constants differ beside the Metal rows", plan_eff_set_name(set_i), n);
    }
out:
    free(prior);
    free(a);
    free(b);
    free(c);
    free(metal.m);
    free(cpu.m);
    free(both.m);
}

/* plan_cross_validate fits its folds on every core at once: over the ROCm rows, one source held out at a time,
 * each row's prediction is that of a fit without its source made here one at a time. */
static void test_cv_folds(const plan_meas_set *set) {
    plan_meas_set rocm = {0}, train = {0};
    rocm.m = malloc(sizeof *rocm.m * ((size_t)set->n + 1));
    train.m = malloc(sizeof *train.m * ((size_t)set->n + 1));
    double *pred = calloc((size_t)set->n + 1, sizeof *pred);
    plan_efficiency *prior = malloc(sizeof *prior), *e = malloc(sizeof *e);
    fc_err err = {0};
    CHECK(rocm.m && train.m && pred && prior && e);
    if (!rocm.m || !train.m || !pred || !prior || !e) goto out;
    for (int i = 0; i < set->n; i++)
        if (set->m[i].backend == PLAN_ROCM) rocm.m[rocm.n++] = set->m[i];
    CHECK_MSG(plan_efficiency_prior(prior, &err) == FC_OK, "%s", err.msg);
    CHECK_MSG(plan_cross_validate(prior, &rocm, PLAN_CV_SOURCE, pred, &err) == FC_OK, "%s", err.msg);
    int n_src = 0, n_same = 0;
    for (int g = 0; g < rocm.n; g++) {
        bool first = true;
        for (int k = 0; k < g && first; k++) first = rocm.m[k].origin != rocm.m[g].origin;
        if (!first) continue;
        n_src++;
        train.n = 0;
        for (int i = 0; i < rocm.n; i++)
            if (rocm.m[i].origin != rocm.m[g].origin) train.m[train.n++] = rocm.m[i];
        *e = *prior;
        CHECK_MSG(plan_calibrate(e, &train, NULL, NULL, &err) == FC_OK, "%s", err.msg);
        for (int i = 0; i < rocm.n; i++)
            if (rocm.m[i].origin == rocm.m[g].origin) {
                double want = plan_meas_predict(&rocm.m[i], e);
                CHECK_MSG(pred[i] == want, "row %d (%s): %.6g, alone %.6g", i, rocm.m[i].label, pred[i], want);
                n_same += pred[i] == want;
            }
    }
    printf("cross-validation over %d ROCm rows, %d sources: %d predictions as the folds fitted one by one\n", rocm.n,
           n_src, n_same);
    CHECK(n_src >= 5 && n_same == rocm.n);
out:
    free(prior);
    free(e);
    free(pred);
    free(train.m);
    free(rocm.m);
}

/* Metal decodes bandwidth-bound: fitted to the Metal and CUDA rows, the Metal
 * set keeps its unbound decode rate and gains no per-family one, while CUDA's
 * rates are fitted (planner/calibrate.c, PLAN_DEC_RATE_UNBOUND). */
static void test_metal_unbound(const plan_meas_set *set) {
    plan_meas_set sub = {0};
    sub.m = malloc(sizeof *sub.m * ((size_t)set->n + 1));
    plan_efficiency *e = malloc(sizeof *e);
    fc_err err = {0};
    CHECK(sub.m && e);
    if (!sub.m || !e) goto out;
    for (int i = 0; i < set->n; i++)
        if (set->m[i].backend == PLAN_METAL || set->m[i].backend == PLAN_CUDA) sub.m[sub.n++] = set->m[i];
    CHECK_MSG(plan_efficiency_prior(e, &err) == FC_OK, "%s", err.msg);
    const plan_eff_set *metal = &e->set[PLAN_METAL][PLAN_ENG_LLAMACPP], *cuda = &e->set[PLAN_CUDA][PLAN_ENG_LLAMACPP];
    CHECK(metal->typed_default[PLAN_EFF_DEC_RATE] == PLAN_DEC_RATE_UNBOUND);
    double cuda_prior = cuda->typed_default[PLAN_EFF_DEC_RATE];
    CHECK_MSG(plan_calibrate(e, &sub, NULL, NULL, &err) == FC_OK, "%s", err.msg);
    CHECK(metal->typed_default[PLAN_EFF_DEC_RATE] == PLAN_DEC_RATE_UNBOUND);
    int n_metal = 0, n_cuda = 0;
    for (uint32_t t = 0; t < GGML_TYPE_COUNT; t++) {
        n_metal += metal->typed[PLAN_EFF_DEC_RATE][t] > 0;
        n_cuda += cuda->typed[PLAN_EFF_DEC_RATE][t] > 0 && cuda->typed[PLAN_EFF_DEC_RATE][t] != cuda_prior;
    }
    CHECK_MSG(n_metal == 0, "%d Metal decode rates fitted", n_metal);
    CHECK_MSG(n_cuda > 0, "no CUDA decode rate fitted");
out:
    free(e);
    free(sub.m);
}

/* data/speed_accuracy.csv is `calibrate --cross-validate --csv` over this corpus: its rows per efficiency set and
 * phase, and those of old builds, of models of experts and at depth among them, are the corpus's (a corpus changed
 * without rewriting it fails here), its medians are fractions. */
static void test_accuracy_file(const plan_meas_set *set) {
    int n[PLAN_EFF_SETS][PLAN_PHASES] = {{0}}, n_old[PLAN_EFF_SETS][PLAN_PHASES] = {{0}},
        n_moe[PLAN_EFF_SETS][PLAN_PHASES] = {{0}}, n_deep[PLAN_EFF_SETS][PLAN_PHASES] = {{0}};
    for (int i = 0; i < set->n; i++) {
        n[plan_meas_eff_set(&set->m[i])][plan_meas_phase(&set->m[i])]++;
        n_old[plan_meas_eff_set(&set->m[i])][plan_meas_phase(&set->m[i])] += set->m[i].setup.old_build;
        n_moe[plan_meas_eff_set(&set->m[i])][plan_meas_phase(&set->m[i])] += plan_meas_moe(&set->m[i]);
        n_deep[plan_meas_eff_set(&set->m[i])][plan_meas_phase(&set->m[i])] += set->m[i].n_depth >= PLAN_CV_DEEP;
    }
    /* gpt-oss and Qwen3-30B-A3B are measured on CUDA; no model of experts on SYCL */
    CHECK(n_moe[PLAN_CUDA][PLAN_PHASE_DECODE] > 0 && n_moe[PLAN_SYCL][PLAN_PHASE_DECODE] == 0);
    for (int s = 0; s < PLAN_EFF_SETS; s++) {
        plan_accuracy a;
        fc_err err = {0};
        CHECK_MSG(plan_accuracy_of_set(s, &a, &err) == FC_OK, "%s", err.msg);
        for (int ph = 0; ph < PLAN_PHASES; ph++) {
            CHECK_MSG(a.rows[ph] == n[s][ph], "%s %s: %d rows in data/speed_accuracy.csv, %d in the corpus",
                      plan_eff_set_name(s), plan_phase_name(ph), a.rows[ph], n[s][ph]);
            CHECK(a.rows[ph] == 0 || (a.median[ph] > 0 && a.median[ph] < 1 && a.family_median[ph] > 0 &&
                                      a.family_median[ph] < 1));
            CHECK_MSG(a.old_rows[ph] == n_old[s][ph], "%s %s: %d old-build rows in data/speed_accuracy.csv, %d in "
                      "the corpus", plan_eff_set_name(s), plan_phase_name(ph), a.old_rows[ph], n_old[s][ph]);
            CHECK(a.old_rows[ph] == 0 || (a.old_median[ph] > 0 && a.old_median[ph] < 1));
            CHECK_MSG(a.moe_rows[ph] == n_moe[s][ph], "%s %s: %d rows of models of experts in "
                      "data/speed_accuracy.csv, %d in the corpus", plan_eff_set_name(s), plan_phase_name(ph),
                      a.moe_rows[ph], n_moe[s][ph]);
            CHECK(a.moe_rows[ph] == 0 || (a.moe_median[ph] > 0 && a.moe_median[ph] < 1));
            CHECK_MSG(a.deep_rows[ph] == n_deep[s][ph], "%s %s: %d rows at depth in data/speed_accuracy.csv, %d "
                      "in the corpus", plan_eff_set_name(s), plan_phase_name(ph), a.deep_rows[ph], n_deep[s][ph]);
            CHECK(a.deep_rows[ph] == 0 || (a.deep_median[ph] > 0 && a.deep_median[ph] < 2));
        }
    }
}

int main(void) {
    test_origin();
    test_repeats();
    test_test_names();
    test_era();
    test_flash_attn();
    test_families();
    test_devices_once();
    test_families_measured();
    test_hostile();
    fc_err err = {0};
    plan_meas_set set = {0};
    int rc = meas_load(&set, "bench_corpus.csv", &err);
    CHECK_MSG(rc == FC_OK, "%s", err.msg);
    CHECK_MSG(set.n >= CORPUS_MIN_ROWS, "%d rows", set.n);
    int n_dev = 0, n_be[PLAN_BACKEND_COUNT] = {0}, n_moe = 0, n_deep = 0, n_pg = 0, n_iq = 0, n_deep_src = 0;
    for (int i = 0; i < set.n; i++) {
        const plan_meas *m = &set.m[i];
        bool seen = false;
        for (int k = 0; k < i && !seen; k++) seen = !strcmp(set.m[k].device, m->device);
        n_dev += !seen;
        n_be[m->backend]++;
        n_moe += m->setup.load[0].exp_frac > 0;
        n_deep += m->n_depth >= 32768;
        n_pg += m->n_prompt > 0 && m->n_gen > 0;
        for (uint32_t t = 0; t < GGML_TYPE_COUNT; t++)
            if (m->setup.load[0].elems[t] > 0 && ggml_type_get(t)->name[0] == 'i' && ggml_type_get(t)->name[1] == 'q') {
                n_iq++;
                break;
            }
        bool src_seen = false; /* a source of deep rows not counted yet */
        for (int k = 0; k < i && !src_seen && m->n_depth >= CORPUS_DEEP; k++)
            src_seen = set.m[k].n_depth >= CORPUS_DEEP && set.m[k].origin == m->origin;
        n_deep_src += m->n_depth >= CORPUS_DEEP && !src_seen;
        CHECK_MSG(m->source[0] && m->device[0], "row %d has no source or device", i);
    }
    printf("corpus: %d rows, %d devices, %d MoE rows, %d at depth >= 32k, %d -pg rows, %d with IQ types, "
           "%d sources of rows at depth >= 16k\n", set.n, n_dev, n_moe, n_deep, n_pg, n_iq, n_deep_src);
    CHECK(n_dev >= CORPUS_MIN_DEVICES);
    for (int be = 0; be < PLAN_BACKEND_COUNT; be++) CHECK_MSG(n_be[be] > 0, "no %s rows", plan_backend_name(be));
    CHECK(n_moe > 0 && n_deep > 0 && n_pg > 0 && n_iq > 0);
    CHECK_MSG(n_deep_src > 1, "rows at depth >= 16k come from %d source(s)", n_deep_src);
    plan_efficiency e;
    CHECK(plan_efficiency_builtin(&e, &err) == FC_OK);
    double *pred = calloc((size_t)set.n + 1, sizeof *pred);
    CHECK(pred != NULL);
    if (pred) {
        for (int i = 0; i < set.n; i++) pred[i] = plan_meas_predict(&set.m[i], &e);
        plan_cv_stats st;
        plan_cv_summarize(&set, pred, &st);
        printf("built-in constants, in sample: decode %.1f%% (%d), prefill %.1f%% (%d), depth >= 16k %.1f%% (%d)\n",
               100 * st.med_dec, st.n_dec, 100 * st.med_pp, st.n_pp, 100 * st.med_deep, st.n_deep);
        CHECK_MSG(st.med_dec <= CORPUS_DECODE_MAX, "decode %.3f", st.med_dec);
        CHECK_MSG(st.med_pp <= CORPUS_PREFILL_MAX, "prefill %.3f", st.med_pp);
        CHECK_MSG(st.med_deep <= CORPUS_DEEP_MAX, "deep %.3f", st.med_deep);
    }
    free(pred);
    test_accuracy_file(&set);
    test_soc_shared(&set);
    test_order_free(&set);
    test_metal_unbound(&set);
    test_blocks_apart(&set);
    test_cv_folds(&set);
    plan_meas_set_free(&set);
    return check_done("corpus");
}
