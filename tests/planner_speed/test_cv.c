/* Out-of-sample guard of the speed model: refits the constants from the prior
 * without one whole source of data/bench_corpus.csv at a time, as
 * `fitcheck calibrate --cross-validate` does, and predicts what was left out.
 * A source is a publication (plan_meas.origin). For speed only the sources
 * that weigh most are held out: every source of CV_BIG_SOURCE rows or more and
 * every source of rows at depth >= PLAN_CV_DEEP (16 of 91 sources, 577 of 909
 * rows). Fails when a median |error| rises above what it was when
 * docs/speed-model.md's table was made, plus CV_MARGIN. No timing: the medians
 * are deterministic. */
#include "planner/planner.h"
#include "tests/check.h"
#include "tests/planner_speed/meas_load.h"

#include <stdlib.h>

#define CV_BIG_SOURCE 16
/* these held-out rows' medians on 2026-12-07 (late), 909 rows (docs/speed-model.md, "How good", has how each change
 * since moved them). They rose from 7.0 / 5.1 / 8.4 / 12.1% on the 833 rows of 2026-12-06 with the rows added on 7 Dec,
 * chiefly ik_llama.cpp#164's CPU rows, now among the sources held out here; the CPU anchors measured again took them to
 * 7.7 / 6.0 / 8.5 / 10.1%, and keeping the lower of the fit's two descents per block of constants no row ties together
 * (planner/calibrate.c) to 7.8 / 5.9 / 8.7 / 10.9%: of these rows' fits, some end in the other descent's constants;
 * a GPU's decode computed on its vector units' int8 dot rate (planner.h dec_gflops) to 7.8 / 5.6 / 8.8 / 10.4%,
 * and counted by NVIDIA's INT32 lanes to 7.7 / 5.5 / 8.8 / 9.8%. */
#define CV_ACHIEVED_ALL 0.077
#define CV_ACHIEVED_DECODE 0.055
#define CV_ACHIEVED_PREFILL 0.088
#define CV_ACHIEVED_DEEP 0.098
#define CV_MARGIN 0.005 /* half a point: a change that predicts worse out of sample shows */

static bool held_out(const plan_meas_set *s, uint64_t origin) {
    int n = 0;
    for (int i = 0; i < s->n; i++) {
        if (s->m[i].origin != origin) continue;
        if (s->m[i].n_depth >= PLAN_CV_DEEP) return true;
        n++;
    }
    return n >= CV_BIG_SOURCE;
}

int main(void) {
    fc_err err = {0};
    plan_meas_set set = {0};
    int rc = meas_load(&set, "bench_corpus.csv", &err);
    CHECK_MSG(rc == FC_OK, "%s", err.msg);
    plan_efficiency *base = malloc(sizeof *base), *fit = malloc(sizeof *fit);
    plan_meas_set train = {0}, out = {0};
    train.m = malloc(sizeof *train.m * ((size_t)set.n + 1));
    out.m = malloc(sizeof *out.m * ((size_t)set.n + 1));
    double *pred = calloc((size_t)set.n + 1, sizeof *pred);
    bool *done = calloc((size_t)set.n + 1, sizeof *done);
    CHECK(base && fit && train.m && out.m && pred && done);
    if (!rc && base && fit && train.m && out.m && pred && done) {
        CHECK_MSG(plan_efficiency_prior(base, &err) == FC_OK, "%s", err.msg);
        int n_src = 0;
        for (int g = 0; g < set.n; g++) {
            uint64_t key = set.m[g].origin;
            if (done[g] || !held_out(&set, key)) continue;
            n_src++;
            train.n = 0;
            for (int i = 0; i < set.n; i++)
                if (set.m[i].origin != key) train.m[train.n++] = set.m[i];
            *fit = *base;
            CHECK_MSG(plan_calibrate(fit, &train, NULL, NULL, &err) == FC_OK, "%s", err.msg);
            for (int i = g; i < set.n; i++) {
                if (set.m[i].origin != key) continue;
                pred[out.n] = plan_meas_predict(&set.m[i], fit);
                out.m[out.n++] = set.m[i];
                done[i] = true;
            }
        }
        plan_cv_stats st;
        plan_cv_summarize(&out, pred, &st);
        printf("%d sources held out one at a time, %d rows: all %.1f%%, decode %.1f%%, prefill %.1f%%, depth >= %dk "
               "%.1f%% (%d);", n_src, st.n, 100 * st.med, 100 * st.med_dec, 100 * st.med_pp, PLAN_CV_DEEP / 1024,
               100 * st.med_deep, st.n_deep);
        for (int be = 0; be < PLAN_BACKEND_COUNT; be++)
            if (st.n_be[be]) printf(" %s %.1f%% (%d)", plan_backend_name(be), 100 * st.med_be[be], st.n_be[be]);
        printf("\n");
        CHECK_MSG(st.med <= CV_ACHIEVED_ALL + CV_MARGIN, "all %.3f", st.med);
        CHECK_MSG(st.med_dec <= CV_ACHIEVED_DECODE + CV_MARGIN, "decode %.3f", st.med_dec);
        CHECK_MSG(st.med_pp <= CV_ACHIEVED_PREFILL + CV_MARGIN, "prefill %.3f", st.med_pp);
        CHECK_MSG(st.med_deep <= CV_ACHIEVED_DEEP + CV_MARGIN, "depth %.3f", st.med_deep);
    }
    free(done);
    free(pred);
    free(out.m);
    free(train.m);
    free(fit);
    free(base);
    plan_meas_set_free(&set);
    return check_done("cross-validation");
}
