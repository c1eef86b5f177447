/* Honest validation of the speed model: leave out one whole source (or one
 * whole device family) at a time, refit the constants on the rest, predict
 * what was left out. What a user asks about is hardware and builds we never
 * fitted on; an in-sample error says nothing about that. */
#include "planner/planner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CV_KEY_MAX 96

static void cv_key(const plan_meas *m, int by, char *key) {
    if (by == PLAN_CV_FAMILY) plan_corpus_family(m->device, key, CV_KEY_MAX);
    else snprintf(key, CV_KEY_MAX, "%016llx", (unsigned long long)m->origin);
}

int plan_cross_validate(const plan_efficiency *base, const plan_meas_set *s, int by, double *pred, fc_err *err) {
    plan_meas_set train = {0};
    plan_efficiency *e = malloc(sizeof *e);
    bool *done = calloc((size_t)s->n + 1, sizeof *done);
    train.m = malloc(sizeof *train.m * ((size_t)s->n + 1));
    int rc = e && done && train.m ? FC_OK : fc_err_set(err, FC_ERUNTIME, "out of memory");
    for (int g = 0; !rc && g < s->n; g++) {
        if (done[g]) continue;
        char key[CV_KEY_MAX], k2[CV_KEY_MAX];
        cv_key(&s->m[g], by, key);
        train.n = 0;
        for (int i = 0; i < s->n; i++) {
            cv_key(&s->m[i], by, k2);
            if (strcmp(key, k2)) train.m[train.n++] = s->m[i];
        }
        *e = *base;
        /* A group that is everything there is cannot be predicted out of sample: the base constants. */
        if (train.n > 0) rc = plan_calibrate(e, &train, NULL, NULL, err);
        for (int i = g; !rc && i < s->n; i++) {
            cv_key(&s->m[i], by, k2);
            if (strcmp(key, k2)) continue;
            pred[i] = plan_meas_predict(&s->m[i], e);
            done[i] = true;
        }
    }
    free(train.m);
    free(done);
    free(e);
    return rc;
}

/* Whether two rows ran the same test: what the label names (device, model,
 * type, test) and the flags that change the speed. */
static bool same_test(const plan_meas *a, const plan_meas *b) {
    return a->backend == b->backend && a->n_threads == b->n_threads && a->setup.no_fa == b->setup.no_fa &&
           a->setup.n_ubatch == b->setup.n_ubatch && !strcmp(a->label, b->label);
}

void plan_cv_repeats(const plan_meas_set *s, double *other) {
    for (int i = 0; i < s->n; i++) {
        double log_sum = 0;
        int n = 0;
        for (int j = 0; j < s->n; j++) {
            if (s->m[i].origin != s->m[j].origin && s->m[j].tps > 0 && same_test(&s->m[i], &s->m[j])) {
                log_sum += log(s->m[j].tps);
                n++;
            }
        }
        other[i] = n ? exp(log_sum / n) : 0;
    }
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    if (n <= 0) return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int plan_meas_phase(const plan_meas *m) {
    return m->n_gen > 0 && !m->n_prompt ? PLAN_PHASE_DECODE : PLAN_PHASE_PREFILL;
}

int plan_meas_eff_set(const plan_meas *m) {
    return m->backend == PLAN_CPU ? plan_eff_set_of(&m->setup.dev[0], m->engine) : m->backend;
}

void plan_cv_summarize(const plan_meas_set *s, const double *pred, plan_cv_stats *st) {
    memset(st, 0, sizeof *st);
    double *all = malloc(sizeof(double) * ((size_t)s->n + 1) * 4);
    if (!all) return;
    double *dec = all + s->n + 1, *pp = dec + s->n + 1, *tmp = pp + s->n + 1;
    for (int i = 0; i < s->n; i++) {
        const plan_meas *m = &s->m[i];
        double e = m->tps > 0 ? fabs(pred[i] / m->tps - 1.0) : 0;
        all[st->n++] = e;
        if (plan_meas_phase(m) == PLAN_PHASE_DECODE) dec[st->n_dec++] = e;
        else pp[st->n_pp++] = e;
    }
    st->med = median(all, st->n);
    st->med_dec = median(dec, st->n_dec);
    st->med_pp = median(pp, st->n_pp);
    for (int i = 0; i < s->n; i++)
        if (s->m[i].n_depth >= PLAN_CV_DEEP) tmp[st->n_deep++] = fabs(pred[i] / s->m[i].tps - 1.0);
    st->med_deep = median(tmp, st->n_deep);
    for (int be = 0; be < PLAN_BACKEND_COUNT; be++) {
        int n = 0;
        for (int i = 0; i < s->n; i++)
            if (s->m[i].backend == be) tmp[n++] = fabs(pred[i] / s->m[i].tps - 1.0);
        st->n_be[be] = n;
        st->med_be[be] = median(tmp, n);
    }
    for (int set = 0; set < PLAN_EFF_SETS; set++)
        for (int ph = 0; ph < PLAN_PHASES; ph++)
            for (int old_only = 0; old_only < 2; old_only++) {
                int n = 0;
                for (int i = 0; i < s->n; i++)
                    if (plan_meas_eff_set(&s->m[i]) == set && plan_meas_phase(&s->m[i]) == ph &&
                        (!old_only || s->m[i].setup.old_build))
                        tmp[n++] = fabs(pred[i] / s->m[i].tps - 1.0);
                *(old_only ? &st->n_old[set][ph] : &st->n_set[set][ph]) = n;
                *(old_only ? &st->med_old[set][ph] : &st->med_set[set][ph]) = median(tmp, n);
            }
    free(all);
}

void plan_cv_report_free(plan_cv_report *r) {
    free(r->loso);
    free(r->lofo);
    free(r->repeat);
    memset(r, 0, sizeof *r);
}

/* The rows another source repeats: their other-source numbers, and the
 * leave-one-source-out predictions of the same rows beside them. */
static int repeat_stats(const plan_meas_set *s, plan_cv_report *r, fc_err *err) {
    plan_meas_set sub = {0};
    double *o = malloc(sizeof *o * ((size_t)s->n + 1) * 2), *l = o ? o + s->n + 1 : NULL;
    sub.m = malloc(sizeof *sub.m * ((size_t)s->n + 1));
    int rc = o && sub.m ? FC_OK : fc_err_set(err, FC_ERUNTIME, "out of memory");
    if (!rc) {
        plan_cv_repeats(s, r->repeat);
        for (int i = 0; i < s->n; i++) {
            if (!(r->repeat[i] > 0)) continue;
            o[sub.n] = r->repeat[i];
            l[sub.n] = r->loso[i];
            sub.m[sub.n++] = s->m[i];
        }
        plan_cv_summarize(&sub, o, &r->st[PLAN_CV_REPEAT]);
        plan_cv_summarize(&sub, l, &r->st[PLAN_CV_REPEAT_LOSO]);
    }
    free(sub.m);
    free(o);
    return rc;
}

int plan_cv_report_make(const plan_efficiency *in_use, const plan_meas_set *s, plan_cv_report *r, fc_err *err) {
    memset(r, 0, sizeof *r);
    r->loso = calloc((size_t)s->n + 1, sizeof *r->loso);
    r->lofo = calloc((size_t)s->n + 1, sizeof *r->lofo);
    r->repeat = calloc((size_t)s->n + 1, sizeof *r->repeat);
    plan_efficiency *fit = malloc(sizeof *fit), *base = malloc(sizeof *base);
    int rc = r->loso && r->lofo && r->repeat && fit && base ? plan_efficiency_prior(base, err)
                                               : fc_err_set(err, FC_ERUNTIME, "out of memory");
    /* lofo serves as the scratch row of the in-use and in-sample runs before its own. */
    if (!rc) {
        for (int i = 0; i < s->n; i++) r->lofo[i] = plan_meas_predict(&s->m[i], in_use);
        plan_cv_summarize(s, r->lofo, &r->st[PLAN_CV_IN_USE]);
        *fit = *base;
        rc = plan_calibrate(fit, s, NULL, NULL, err);
    }
    if (!rc) {
        for (int i = 0; i < s->n; i++) r->lofo[i] = plan_meas_predict(&s->m[i], fit);
        plan_cv_summarize(s, r->lofo, &r->st[PLAN_CV_IN_SAMPLE]);
        rc = plan_cross_validate(base, s, PLAN_CV_SOURCE, r->loso, err);
    }
    if (!rc) {
        plan_cv_summarize(s, r->loso, &r->st[PLAN_CV_LOSO]);
        rc = plan_cross_validate(base, s, PLAN_CV_FAMILY, r->lofo, err);
    }
    if (!rc) plan_cv_summarize(s, r->lofo, &r->st[PLAN_CV_LOFO]);
    if (!rc) rc = repeat_stats(s, r, err);
    free(fit);
    free(base);
    if (rc) plan_cv_report_free(r);
    return rc;
}
