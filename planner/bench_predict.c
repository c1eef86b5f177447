/* Predictions beside measured llama-bench records (`report --runs`): a
 * record of `plan --bench` for the same test when one was given, else the
 * speed model on the machine the runs came from. Pairing is by what the
 * test is (plan_bench_same_test), never by position in the files. */
#include "planner/planner.h"

#include <stdlib.h>
#include <string.h>

#define PREDICT_WHERE_MAX 64

static bool is_prediction(const plan_bench_record *r) { return !strcmp(r->build_commit, PLAN_BENCH_PREDICTED); }

void plan_bench_predict_records(plan_bench_record *recs, int *n, const probe_profile *p, const plan_efficiency *given,
                                char *note, size_t note_cap) {
    bool *paired = fc_calloc((size_t)*n + 1, sizeof *paired, NULL);
    int n_failed = 0;
    fc_err first = {0};
    plan_efficiency *own = NULL;
    const plan_efficiency *e = NULL;
    if (p && plan_efficiency_resolve(given, &own, &e, &first)) n_failed = -1; /* no model: the note says why */
    for (int i = 0; i < *n; i++) {
        plan_bench_record *r = &recs[i];
        if (is_prediction(r) || r->predicted_ts > 0) continue;
        for (int k = 0; k < *n; k++) {
            if (is_prediction(&recs[k]) && recs[k].avg_ts > 0 && plan_bench_same_test(&recs[k], r)) {
                r->predicted_ts = recs[k].avg_ts;
                if (paired) paired[k] = true;
                break;
            }
        }
        if (r->predicted_ts > 0 || !p || !e) continue;
        plan_meas m;
        fc_err err = {0};
        char where[PREDICT_WHERE_MAX];
        snprintf(where, sizeof where, "record %d", i + 1);
        if (plan_meas_from_record(&m, r, p, where, &err) == FC_OK) {
            r->predicted_ts = plan_meas_predict(&m, e);
        } else if (n_failed++ == 0) {
            first = err;
        }
    }
    free(own);
    /* The predictions that found their measurement are shown through it. */
    int kept = 0;
    for (int i = 0; i < *n; i++)
        if (!paired || !paired[i]) recs[kept++] = recs[i];
    *n = kept;
    free(paired);
    size_t used = note ? strlen(note) : note_cap;
    if (n_failed < 0 && used < note_cap)
        snprintf(note + used, note_cap - used, "%sNo predictions: %s.", used ? " " : "", first.msg);
    else if (n_failed > 0 && used < note_cap)
        snprintf(note + used, note_cap - used, "%sNo prediction for %d of the runs (the first, %s).", used ? " " : "",
                 n_failed, first.msg);
}

/* The profile's bandwidth at n threads is its all-core read figure scaled by
 * the thread-scaling curve (planner/speed.c). A --quick profile has no
 * curve, and then a run on fewer threads than cores is predicted at
 * all-core bandwidth: say so, since the same-minute figure is measured at n. */
static void note_scaling(const probe_profile *p, int n_threads, char *note, size_t cap) {
    if (n_threads >= p->n_cores) return;
    for (int i = 0; i < p->n_scaling; i++)
        if ((int)p->scaling[i].x == n_threads) return;
    snprintf(note, cap,
             "the machine profile has no thread-scaling point for %d thread%s (a --quick probe?): 'predicted' assumes "
             "all-core bandwidth; 'same-minute' is measured at %d",
             n_threads, n_threads == 1 ? "" : "s", n_threads);
}

/* One record's test on profile p: pp for a prompt test, else tg. */
static int predict_own(const plan_bench_record *r, const model_desc *m, const probe_profile *p, double *tps,
                       fc_err *err) {
    int kv = ggml_type_from_name(r->type_k[0] ? r->type_k : "f16");
    if (kv < 0) return fc_err_set(err, FC_EINPUT, "KV cache type '%s' is not a ggml type", r->type_k);
    double pp = 0, tg = 0;
    int rc = plan_predict_bench(m, p, r->n_threads, (uint32_t)kv, r->test.n_prompt, r->test.n_gen, r->test.n_depth,
                                &pp, &tg, err);
    if (!rc) *tps = r->test.n_prompt ? pp : tg;
    return rc;
}

int plan_bench_predict_own(plan_bench_record *recs, int n, const model_desc *m, const probe_profile *p, char *note,
                           size_t note_cap, fc_err *err) {
    if (note_cap) note[0] = '\0';
    probe_profile *now = fc_malloc(sizeof *now, err);
    if (!now) return FC_ERUNTIME;
    int rc = FC_OK;
    for (int i = 0; !rc && i < n; i++) {
        plan_bench_record *r = &recs[i];
        if (i == 0) note_scaling(p, r->n_threads, note, note_cap);
        rc = predict_own(r, m, p, &r->predicted_ts, err);
        if (rc || !(r->read_gbs_now > 0)) continue;
        /* the bandwidth measured beside the test, at its thread count: no scaling curve applies */
        *now = *p;
        now->read_gbs = r->read_gbs_now;
        now->n_scaling = 0;
        fc_err nerr = {0};
        if (predict_own(r, m, now, &r->predicted_now_ts, &nerr)) r->predicted_now_ts = 0;
    }
    free(now);
    return rc;
}
