/* The llama-bench importer on real-shaped json and jsonl output (this
 * machine's llama.cpp results, tests/planner_speed/fixtures), on hostile
 * input, and calibration: the fit improves on a synthetic set whose true
 * constants are known. */
#include "planner/planner.h"
#include "tests/check.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIXTURE_MAX (1u << 20)

static probe_profile this_machine(void) {
    /* the reference profile of docs/speed-model.md: 2 cores, 50 GB/s, 100 GFLOP/s per thread */
    probe_profile p;
    memset(&p, 0, sizeof p);
    p.n_cores = 2;
    p.read_gbs = 50;
    p.sgemm_gflops_1t = 100;
    return p;
}

static int import_file(plan_meas_set *s, const char *file, fc_err *err) {
    const char *src = getenv("FITCHECK_SRC");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/planner_speed/fixtures/%s", src ? src : ".", file);
    char *text;
    size_t len;
    int rc = fc_read_file(path, FIXTURE_MAX, &text, &len, err);
    if (rc) return rc;
    probe_profile p = this_machine();
    rc = plan_meas_import(s, text, len, file, &p, err);
    free(text);
    return rc;
}

static int import_text(const char *text, fc_err *err) {
    plan_meas_set s = {0};
    probe_profile p = this_machine();
    int rc = plan_meas_import(&s, text, strlen(text), "hostile.json", &p, err);
    plan_meas_set_free(&s);
    return rc;
}

#define OBJ_FIELDS "\"model_type\":\"llama 7B Q4_0\",\"model_size\":3825065984,\"model_n_params\":6738415616," \
                   "\"n_threads\":4,\"n_prompt\":0,\"n_gen\":128,\"avg_ts\":10.5"
#define OBJ "{" OBJ_FIELDS "}"
/* OBJ with more fields (ones it does not have: a duplicate key is refused) */
#define OBJ_AND(more) "{" OBJ_FIELDS "," more "}"

/* OBJ with the fields of `with` replaced (a duplicate key is refused, so a
 * bad value must replace the good one, not follow it). */
static int import_with(const char *with, fc_err *err) {
    json_t *o = json_loads(OBJ, 0, NULL), *w = json_loads(with, 0, NULL);
    CHECK(o && w);
    json_object_update(o, w);
    char *text = json_dumps(o, JSON_COMPACT);
    char arr[1024];
    snprintf(arr, sizeof arr, "[%s]", text);
    int rc = import_text(arr, err);
    free(text);
    json_decref(o);
    json_decref(w);
    return rc;
}

static void test_hostile(void) {
    fc_err err = {0};
    CHECK(import_text("[" OBJ "]", &err) == FC_OK);
    CHECK(import_text(OBJ "\n\n" OBJ "\n", &err) == FC_OK);
    static const struct { const char *with, *field; } bad[] = {
        {"{\"avg_ts\":\"fast\"}", "avg_ts"},
        {"{\"avg_ts\":-3}", "avg_ts"},
        {"{\"n_threads\":1e12}", "n_threads"},
        {"{\"model_type\":\"llama 7B Q9_9\"}", "model_type"},
        {"{\"model_type\":7}", "model_type"},
        {"{\"model_size\":null}", "model_size"},
        {"{\"engine\":\"vllm\"}", "engine"},
        {"{\"n_depth\":1e300}", "n_depth"},
        {"{\"flash_attn\":\"on\"}", "flash_attn"},
    };
    for (size_t i = 0; i < FC_ARRAY_LEN(bad); i++) {
        memset(&err, 0, sizeof err);
        int rc = import_with(bad[i].with, &err);
        CHECK_MSG(rc == FC_EINPUT && strstr(err.msg, bad[i].field), "case %zu: rc %d, '%s' lacks '%s'", i, rc, err.msg,
                  bad[i].field);
    }
    static const struct { const char *text, *what; } broken[] = {
        {"[{\"n_gen\":128}]", "n_prompt"},
        {"[1,2,3]", "not a JSON object"},
        {"[" OBJ ",", "hostile.json:1"},
        {OBJ "\n{\"n_gen\":", "hostile.json:2"},
        {"[{\"n_gen\":128,\"n_gen\":64}]", "duplicate"},
    };
    for (size_t i = 0; i < FC_ARRAY_LEN(broken); i++) {
        memset(&err, 0, sizeof err);
        int rc = import_text(broken[i].text, &err);
        CHECK_MSG(rc == FC_EINPUT && strstr(err.msg, broken[i].what), "broken %zu: rc %d, '%s' lacks '%s'", i, rc,
                  err.msg, broken[i].what);
    }
    /* A GPU result needs a GPU in the profile. */
    CHECK(import_with("{\"backends\":\"CUDA\",\"n_gpu_layers\":99}", &err) == FC_EINPUT);
    CHECK(strstr(err.msg, "GPU") != NULL);
    /* llama-bench's own spellings of the backends: a Mac build's "MTL,BLAS"
     * is Metal, not the CPU its BLAS might suggest; "Vulkan,BLAS" Vulkan;
     * BLAS alone the CPU (tools/llama-bench test::get_backend) */
    static const struct { const char *backends, *named; } spelled[] = {
        {"MTL,BLAS", "Metal"}, {"Metal", "Metal"}, {"SYCL", "SYCL"}, {"Vulkan,BLAS", "Vulkan"}, {"ROCm", "ROCm"},
    };
    for (size_t i = 0; i < FC_ARRAY_LEN(spelled); i++) {
        char with[96];
        snprintf(with, sizeof with, "{\"backends\":\"%s\",\"n_gpu_layers\":-1}", spelled[i].backends);
        CHECK_MSG(import_with(with, &err) == FC_EINPUT && strstr(err.msg, spelled[i].named), "%s: '%s'",
                  spelled[i].backends, err.msg);
    }
    CHECK(import_with("{\"backends\":\"BLAS\",\"n_gpu_layers\":-1}", &err) == FC_OK);
    /* Binary junk */
    char junk[8] = {'[', 0, 1, 2, ']', 0, 0, 0};
    plan_meas_set s = {0};
    probe_profile p = this_machine();
    CHECK(plan_meas_import(&s, junk, 5, "junk", &p, &err) == FC_EINPUT);
}

static void test_fixtures(void) {
    fc_err err = {0};
    plan_meas_set a = {0}, b = {0};
    CHECK_MSG(import_file(&a, "llama-bench-cpu.json", &err) == FC_OK, "%s", err.msg);
    CHECK_MSG(import_file(&b, "llama-bench-cpu.jsonl", &err) == FC_OK, "%s", err.msg);
    CHECK(a.n == 8 && b.n == 8);
    for (int i = 0; i < a.n && i < b.n; i++) {
        CHECK(a.m[i].tps == b.m[i].tps && a.m[i].n_gen == b.m[i].n_gen && a.m[i].n_prompt == b.m[i].n_prompt);
        CHECK(a.m[i].backend == PLAN_CPU && a.m[i].engine == PLAN_ENG_LLAMACPP && a.m[i].n_threads == 2);
        CHECK(a.m[i].setup.no_fa && b.m[i].setup.no_fa); /* "flash_attn": 0, llama-bench's -fa 0 */
    }
    /* an older llama-bench wrote -fa 0 and 1 as booleans */
    static const struct { const char *text; bool no_fa; } spelled[] = {
        {"[" OBJ_AND("\"flash_attn\":false") "]", true}, {"[" OBJ_AND("\"flash_attn\":true") "]", false},
        {"[" OBJ_AND("\"flash_attn\":1") "]", false},
    };
    for (size_t i = 0; i < FC_ARRAY_LEN(spelled); i++) {
        plan_meas_set s = {0};
        probe_profile p = this_machine();
        CHECK_MSG(plan_meas_import(&s, spelled[i].text, strlen(spelled[i].text), "fa.json", &p, &err) == FC_OK, "%s",
                  err.msg);
        CHECK_MSG(s.n == 1 && s.m[0].setup.no_fa == spelled[i].no_fa, "%s", spelled[i].text);
        plan_meas_set_free(&s);
    }
    CHECK(a.m[4].setup.load[0].elems[GGML_TYPE_Q4_K] > 0); /* "Q4_K - Medium" */
    /* The built-in CPU constants come from these very runs: the summary-shaped
     * model (no file here) must land near them. */
    plan_efficiency e;
    CHECK(plan_efficiency_builtin(&e, &err) == FC_OK);
    plan_fit_stats st = plan_fit_evaluate(&a, &e);
    printf("llama.cpp on this machine, built-in constants: median %.1f%%, max %.1f%%\n", 100 * st.median_abs_err,
           100 * st.max_abs_err);
    for (int i = 0; i < a.n; i++)
        printf("  %-40s measured %7.2f predicted %7.2f\n", a.m[i].label, a.m[i].tps, plan_meas_predict(&a.m[i], &e));
    CHECK(st.median_abs_err < 0.15);
    CHECK(st.max_abs_err < 0.30);
    plan_meas_set_free(&a);
    plan_meas_set_free(&b);
}

/* Measurements generated from known constants; calibration from the built-in
 * ones must find a fit at least as good as the truth's. */
static void test_calibrate_synthetic(void) {
    fc_err err = {0};
    plan_meas_set s = {0};
    CHECK(import_file(&s, "llama-bench-cpu.json", &err) == FC_OK);
    plan_efficiency truth, e;
    CHECK(plan_efficiency_builtin(&truth, &err) == FC_OK);
    plan_eff_set *t = &truth.set[PLAN_CPU][PLAN_ENG_LLAMACPP];
    t->typed[PLAN_EFF_DEC_RATE][GGML_TYPE_Q4_0] *= 0.6;
    t->typed[PLAN_EFF_PP][GGML_TYPE_Q8_0] *= 1.5;
    t->typed[PLAN_EFF_DEC_RATE][GGML_TYPE_F16] *= 0.8;
    for (int i = 0; i < s.n; i++) s.m[i].tps = plan_meas_predict(&s.m[i], &truth);
    CHECK(plan_efficiency_builtin(&e, &err) == FC_OK);
    plan_fit_stats before, after;
    CHECK(plan_calibrate(&e, &s, &before, &after, &err) == FC_OK);
    printf("synthetic calibration: median %.2f%% -> %.2f%%, max %.2f%% -> %.2f%%\n", 100 * before.median_abs_err,
           100 * after.median_abs_err, 100 * before.max_abs_err, 100 * after.max_abs_err);
    CHECK(before.max_abs_err > 0.15);
    CHECK(after.max_abs_err < 0.02);
    /* (the constants themselves need not come back: memory and compute terms can trade places) */
    /* Save and load round-trip through the calibration file. */
    char path[] = "/tmp/fitcheck-calib-test-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) close(fd);
    CHECK_MSG(plan_efficiency_save(&e, path, &err) == FC_OK, "%s", err.msg);
    plan_efficiency back;
    CHECK_MSG(plan_efficiency_load(&back, path, &err) == FC_OK, "%s", err.msg);
    CHECK(fabs(plan_meas_predict(&s.m[1], &back) / plan_meas_predict(&s.m[1], &e) - 1) < 1e-5);
    /* A hostile calibration file is refused, naming what is wrong. */
    FILE *fp = fopen(path, "w");
    if (fp) {
        fputs("{\"schema\":1,\"rows\":[{\"backend\":\"cpu\",\"engine\":\"llama.cpp\",\"param\":\"bw_eff\","
              "\"type\":\"\",\"value\":\"x\"}]}",
              fp);
        fclose(fp);
    }
    CHECK(plan_efficiency_load(&back, path, &err) == FC_EINPUT && strstr(err.msg, "rows[0]"));
    unlink(path);
    plan_meas_set_free(&s);
}

/* A CPU type that is never a file's main type (q6_K here: a quarter of the
 * Q4_K_M runs' weights, as in a real Q4_K_M file) is not measured by these
 * runs: calibration keeps its constant, however the runs would pull it, while
 * the main types move. */
static void test_calibrate_minority_type(void) {
    fc_err err = {0};
    plan_meas_set s = {0};
    CHECK(import_file(&s, "llama-bench-cpu.json", &err) == FC_OK);
    /* These records name no file, so their loads are one type each: give the
     * Q4_K_M runs a real file's mix, a quarter of the weights in q6_K. */
    int mixed = 0;
    for (int i = 0; i < s.n; i++) {
        plan_speed_load *l = &s.m[i].setup.load[0];
        double el = 0.25 * l->elems[GGML_TYPE_Q4_K];
        if (!(el > 0)) continue;
        l->bytes[GGML_TYPE_Q4_K] *= 0.75;
        l->elems[GGML_TYPE_Q4_K] -= el;
        l->elems[GGML_TYPE_Q6_K] += el;
        l->bytes[GGML_TYPE_Q6_K] += el * 6.5625 / 8;
        mixed++;
    }
    CHECK(mixed == 2);
    plan_efficiency truth, e, shipped;
    CHECK(plan_efficiency_builtin(&truth, &err) == FC_OK);
    CHECK(plan_efficiency_builtin(&shipped, &err) == FC_OK);
    plan_eff_set *t = &truth.set[PLAN_CPU][PLAN_ENG_LLAMACPP];
    t->typed[PLAN_EFF_DEC_RATE][GGML_TYPE_Q6_K] *= 0.3;
    t->typed[PLAN_EFF_PP][GGML_TYPE_Q6_K] *= 0.3;
    t->typed[PLAN_EFF_DEC_RATE][GGML_TYPE_Q4_0] *= 0.6;
    for (int i = 0; i < s.n; i++) s.m[i].tps = plan_meas_predict(&s.m[i], &truth);
    CHECK(plan_efficiency_builtin(&e, &err) == FC_OK);
    CHECK(plan_calibrate(&e, &s, NULL, NULL, &err) == FC_OK);
    const plan_eff_set *f = &e.set[PLAN_CPU][PLAN_ENG_LLAMACPP], *b = &shipped.set[PLAN_CPU][PLAN_ENG_LLAMACPP];
    for (int k = 0; k < PLAN_EFF_TYPED_COUNT; k++)
        CHECK_MSG(f->typed[k][GGML_TYPE_Q6_K] == b->typed[k][GGML_TYPE_Q6_K], "%s of q6_K moved: %g -> %g",
                  plan_eff_typed_name(k), b->typed[k][GGML_TYPE_Q6_K], f->typed[k][GGML_TYPE_Q6_K]);
    CHECK(f->typed[PLAN_EFF_DEC_RATE][GGML_TYPE_Q4_0] != b->typed[PLAN_EFF_DEC_RATE][GGML_TYPE_Q4_0]);
    plan_meas_set_free(&s);
}

/* A run --bench record's bandwidth measured beside the test is the basis it
 * is fitted on; a record without one falls back to the profile's. */
static void test_same_minute_basis(void) {
    fc_err err = {0};
    plan_meas_set s = {0};
    probe_profile p = this_machine();
    const char *text = "[" OBJ ",{\"model_type\":\"llama 7B Q4_0\",\"model_size\":3825065984,"
                       "\"model_n_params\":6738415616,\"n_threads\":2,\"n_prompt\":0,\"n_gen\":128,"
                       "\"avg_ts\":10.5,\"read_gbs_now\":31.5}]";
    CHECK_MSG(plan_meas_import(&s, text, strlen(text), "now.json", &p, &err) == FC_OK, "%s", err.msg);
    CHECK(s.n == 2);
    if (s.n == 2) {
        CHECK(s.m[0].setup.dev[0].mem_gbs == p.read_gbs);
        CHECK(s.m[1].setup.dev[0].mem_gbs == 31.5);
    }
    plan_meas_set_free(&s);
}

/* A llama-bench record's build era is told by its build number where it has
 * one (PLAN_CURRENT_ERA_BUILD: an old build run today is old), else by when its
 * test ran, as the corpus's rows are by their date (PLAN_CURRENT_ERA): the era
 * factors apply to a June-2024 run, not to a later one, and never to
 * fitcheck's engine. */
static void test_record_era(void) {
    fc_err err = {0};
    plan_meas_set s = {0};
    probe_profile p = this_machine();
    const char *text = "[" OBJ "," OBJ_AND("\"test_time\":\"2024-06-02T10:00:00Z\"") ","
                       OBJ_AND("\"test_time\":\"2024-07-02T10:00:00Z\"") ","
                       OBJ_AND("\"engine\":\"fitcheck\",\"test_time\":\"2024-06-02T10:00:00Z\"") ","
                       OBJ_AND("\"build_number\":3000,\"test_time\":\"2026-12-06T10:00:00Z\"") ","
                       OBJ_AND("\"build_number\":3300,\"test_time\":\"2024-06-02T10:00:00Z\"") "]";
    CHECK_MSG(plan_meas_import(&s, text, strlen(text), "era.json", &p, &err) == FC_OK, "%s", err.msg);
    CHECK(s.n == 6);
    if (s.n == 6)
        CHECK_MSG(!s.m[0].setup.old_build && s.m[1].setup.old_build && !s.m[2].setup.old_build &&
                      !s.m[3].setup.old_build && s.m[4].setup.old_build && !s.m[5].setup.old_build,
                  "old_build %d %d %d %d %d %d", s.m[0].setup.old_build, s.m[1].setup.old_build,
                  s.m[2].setup.old_build, s.m[3].setup.old_build, s.m[4].setup.old_build, s.m[5].setup.old_build);
    plan_meas_set_free(&s);
}

int main(void) {
    test_hostile();
    test_record_era();
    test_fixtures();
    test_calibrate_synthetic();
    test_calibrate_minority_type();
    test_same_minute_basis();
    return check_done("speed_import");
}
