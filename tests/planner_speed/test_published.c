/* The speed model against published llama.cpp results on GPUs and Apple
 * machines (data/published_bench.csv): prints each prediction beside the
 * measurement and checks the median error of the built-in constants. */
#include "planner/planner.h"
#include "tests/check.h"
#include "tests/planner_speed/meas_load.h"

#include <stdlib.h>
#include <string.h>

#define PUBLISHED_MEDIAN_MAX 0.10   /* issue #5: aim for a median error <= 10% */
/* The built-in constants predict current llama.cpp builds (fitted on data/bench_corpus.csv); this table holds
 * 2024 builds, whose prefill at 4096 tokens (RTX 4090, Llama-3-8B) ran at ~60% of what the model now predicts. */
#define PUBLISHED_MAX_MAX 0.70
#define PUBLISHED_LODO_MEDIAN_MAX 0.15  /* a device the constants were not fitted to */

/* A published split the constants never saw: Llama-3-70B Q4_K_M with its
 * layers across two RTX 3090s (XiongjieDai/GPU-Benchmarks-on-LLM-Inference,
 * llama-bench: tg512 16.57, pp512 357.32 t/s). */
#define SPLIT_TG512 16.57
#define SPLIT_PP512 357.32
#define SPLIT_TOL 0.15
/* Its pp512 wider, a regression guard: the constants put the same source's one-card Llama-3-8B Q4_K_M pp512 at 1.04
 * of its measurement, the 70B split at 1.25 (3 Dec 2026, 812 corpus rows): on two 3090s the 70B prefills at 1/1.28
 * of the 8B's rate per FLOP on one, a cost no term has (docs/speed-model.md). It was 1.04-1.10 while the -fa 0
 * prompt sweeps' falloff was made up for by a lower K-quant GEMM rate, which put the one-card pp512 at 0.94. */
#define SPLIT_PP_TOL 0.30

static void test_published_split(void) {
    fc_err err = {0};
    plan_hw hw;
    model_desc d;
    plan_memory mem;
    plan_params p;
    plan_efficiency e;
    plan_params_default(&p);
    p.n_ctx = 1024; /* llama-bench's context for pp512 + tg512 */
    CHECK(plan_efficiency_builtin(&e, &err) == FC_OK);
    CHECK_MSG(plan_hw_from_catalog(&hw, "rtx-3090,rtx-3090", &err) == FC_OK, "%s", err.msg);
    CHECK_MSG(model_load(&d, "llama-3.1-70b", "Q4_K_M", &err) == FC_OK, "%s", err.msg);
    CHECK_MSG(plan_memory_compute(&mem, &d, &hw, &p, &err) == FC_OK, "%s", err.msg);
    CHECK(mem.verdict != PLAN_NO_FIT && mem.gpu[0].n_layers > 0 && mem.gpu[1].n_layers > 0);
    plan_speed_setup *s = calloc(1, sizeof *s);
    CHECK(s && plan_speed_from_plan(s, &d, &hw, &mem, &p, &err) == FC_OK);
    if (s) {
        s->old_build = true; /* measured in May 2024: predicted at that build era's speed (the era factors) */
        s->no_fa = true;     /* and with its llama-bench's default, no flash attention (PLAN_FA_AUTO_ERA) */
        double tg = plan_speed_tg_tps(s, &e, 512, 0), pp = plan_speed_pp_tps(s, &e, 512, 0);
        printf("2x rtx-3090 llama 70B Q4_K_M: tg512 %.2f vs %.2f (%.3f), pp512 %.1f vs %.1f (%.3f)\n", tg, SPLIT_TG512,
               tg / SPLIT_TG512, pp, SPLIT_PP512, pp / SPLIT_PP512);
        CHECK_NEAR(tg / SPLIT_TG512, 1.0, SPLIT_TOL);
        CHECK_NEAR(pp / SPLIT_PP512, 1.0, SPLIT_PP_TOL);
    }
    free(s);
    model_desc_free(&d);
}

int main(void) {
    test_published_split();
    fc_err err = {0};
    plan_meas_set set = {0};
    int rc = meas_load(&set, "published_bench.csv", &err);
    CHECK_MSG(rc == FC_OK, "%s", err.msg);
    CHECK(set.n >= 30);
    plan_efficiency e;
    CHECK(plan_efficiency_builtin(&e, &err) == FC_OK);
    printf("%-52s %10s %10s %7s\n", "published result", "measured", "predicted", "ratio");
    for (int i = 0; i < set.n; i++) {
        double p = plan_meas_predict(&set.m[i], &e);
        printf("%-52s %10.2f %10.2f %7.3f\n", set.m[i].label, set.m[i].tps, p, p / set.m[i].tps);
    }
    plan_fit_stats st = plan_fit_evaluate(&set, &e);
    printf("n=%d median |error| %.1f%%, max %.1f%%\n", st.n, 100 * st.median_abs_err, 100 * st.max_abs_err);
    CHECK_MSG(st.median_abs_err <= PUBLISHED_MEDIAN_MAX, "median %.3f", st.median_abs_err);
    CHECK_MSG(st.max_abs_err <= PUBLISHED_MAX_MAX, "max %.3f", st.max_abs_err);
    /* Out of sample: refit without one device at a time, predict that device. */
    double lodo[PLAN_MEAS_MAX];
    int n_lodo = 0;
    for (int i = 0; i < set.n; i++) {
        const char *dev = set.m[i].setup.dev[0].name;
        bool seen = false;
        for (int k = 0; k < i; k++) seen |= !strcmp(set.m[k].setup.dev[0].name, dev);
        if (seen) continue;
        plan_meas_set train = {0};
        train.m = malloc(sizeof *train.m * set.n);
        for (int k = 0; k < set.n; k++)
            if (strcmp(set.m[k].setup.dev[0].name, dev)) train.m[train.n++] = set.m[k];
        plan_efficiency fit;
        CHECK(plan_efficiency_builtin(&fit, &err) == FC_OK);
        CHECK(plan_calibrate(&fit, &train, NULL, NULL, &err) == FC_OK);
        for (int k = 0; k < set.n; k++)
            if (!strcmp(set.m[k].setup.dev[0].name, dev) && n_lodo < PLAN_MEAS_MAX)
                lodo[n_lodo++] = fabs(plan_meas_predict(&set.m[k], &fit) / set.m[k].tps - 1);
        free(train.m);
    }
    for (int a = 1; a < n_lodo; a++) /* insertion sort: a few dozen values */
        for (int b = a; b > 0 && lodo[b] < lodo[b - 1]; b--) {
            double t = lodo[b];
            lodo[b] = lodo[b - 1];
            lodo[b - 1] = t;
        }
    if (n_lodo > 0) {
        printf("leave-one-device-out: n=%d median |error| %.1f%%, max %.1f%%\n", n_lodo, 100 * lodo[n_lodo / 2],
               100 * lodo[n_lodo - 1]);
        CHECK_MSG(lodo[n_lodo / 2] <= PUBLISHED_LODO_MEDIAN_MAX, "held-out median %.3f", lodo[n_lodo / 2]);
    }
    plan_meas_set_free(&set);
    return check_done("published");
}
