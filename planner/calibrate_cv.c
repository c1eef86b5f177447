/* Honest validation of the speed model: leave out one whole source (or one
 * whole device family) at a time, refit the constants on the rest, predict
 * what was left out. What a user asks about is hardware and builds we never
 * fitted on; an in-sample error says nothing about that. */
#include "planner/planner.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CV_KEY_MAX 96
/* Folds fitted at once, at most: one per core, each a whole fit of its own (the cross-validation's time
 * on the corpus: docs/speed-model.md, "How good"). */
#define CV_MAX_WORKERS 64

static void cv_key(const plan_meas *m, int by, char *key) {
    if (by == PLAN_CV_FAMILY) plan_corpus_family(m->device, key, CV_KEY_MAX);
    else snprintf(key, CV_KEY_MAX, "%016llx", (unsigned long long)m->origin);
}

/* The folds, shared by the workers: each takes the next group not yet taken, fits the constants
 * without it and predicts it. A fold depends only on its rows and the base constants, so the
 * predictions are the same in any order and on any number of cores. */
typedef struct cv_folds {
    const plan_efficiency *base;
    const plan_meas_set *s;
    const int *group;   /* per row: the first row of its group */
    double *pred;
    pthread_mutex_t lock;
    int next;           /* the next row whose group is not taken yet */
    int rc;             /* the first failure, and its message */
    fc_err err;
} cv_folds;

/* The first row of a group not taken yet, or -1. */
static int folds_take(cv_folds *f) {
    pthread_mutex_lock(&f->lock);
    int g = -1;
    while (!f->rc && f->next < f->s->n && g < 0) {
        if (f->group[f->next] == f->next) g = f->next;
        f->next++;
    }
    pthread_mutex_unlock(&f->lock);
    return g;
}

static void *folds_run(void *arg) {
    cv_folds *f = arg;
    const plan_meas_set *s = f->s;
    plan_meas_set train = {0};
    plan_efficiency *e = malloc(sizeof *e);
    train.m = malloc(sizeof *train.m * ((size_t)s->n + 1));
    fc_err err = {0};
    int rc = e && train.m ? FC_OK : fc_err_set(&err, FC_ERUNTIME, "out of memory");
    for (int g; !rc && (g = folds_take(f)) >= 0;) {
        train.n = 0;
        for (int i = 0; i < s->n; i++)
            if (f->group[i] != g) train.m[train.n++] = s->m[i];
        *e = *f->base;
        /* A group that is everything there is cannot be predicted out of sample: the base constants. */
        if (train.n > 0) rc = plan_calibrate(e, &train, NULL, NULL, &err);
        for (int i = g; !rc && i < s->n; i++)
            if (f->group[i] == g) f->pred[i] = plan_meas_predict(&s->m[i], e);
    }
    if (rc) {
        pthread_mutex_lock(&f->lock);
        if (!f->rc) f->rc = rc, f->err = err;
        pthread_mutex_unlock(&f->lock);
    }
    free(train.m);
    free(e);
    return NULL;
}

int plan_cross_validate(const plan_efficiency *base, const plan_meas_set *s, int by, double *pred, fc_err *err) {
    int *group = malloc(sizeof *group * ((size_t)s->n + 1));
    char (*keys)[CV_KEY_MAX] = malloc(sizeof *keys * ((size_t)s->n + 1));
    if (!group || !keys) {
        free(group);
        free(keys);
        return fc_err_set(err, FC_ERUNTIME, "out of memory");
    }
    for (int i = 0; i < s->n; i++) {
        cv_key(&s->m[i], by, keys[i]);
        group[i] = i;
        for (int j = 0; j < i; j++)
            if (!strcmp(keys[i], keys[j])) {
                group[i] = group[j];
                break;
            }
    }
    cv_folds f = {.base = base, .s = s, .group = group, .pred = pred};
    pthread_mutex_init(&f.lock, NULL);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int n_workers = cores < 1 ? 1 : cores > CV_MAX_WORKERS ? CV_MAX_WORKERS : (int)cores;
    pthread_t worker[CV_MAX_WORKERS];
    int started = 0;
    /* this thread is one of the workers; a thread that cannot start leaves its folds to the others */
    while (started < n_workers - 1 && !pthread_create(&worker[started], NULL, folds_run, &f)) started++;
    folds_run(&f);
    for (int k = 0; k < started; k++) pthread_join(worker[k], NULL);
    pthread_mutex_destroy(&f.lock);
    if (f.rc) *err = f.err;
    free(keys);
    free(group);
    return f.rc;
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

bool plan_meas_moe(const plan_meas *m) {
    for (int d = 0; d < m->setup.n_dev; d++)
        if (m->setup.load[d].exp_frac > 0) return true;
    return false;
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
    /* per set and phase: every result, those of old builds, of models of experts, at depth */
    enum { SUB_ALL, SUB_OLD, SUB_MOE, SUB_DEEP, SUBSETS };
    int (*n_of[SUBSETS])[PLAN_PHASES] = {st->n_set, st->n_old, st->n_moe, st->n_deep_set};
    double (*med_of[SUBSETS])[PLAN_PHASES] = {st->med_set, st->med_old, st->med_moe, st->med_deep_set};
    for (int set = 0; set < PLAN_EFF_SETS; set++)
        for (int ph = 0; ph < PLAN_PHASES; ph++)
            for (int sub = 0; sub < SUBSETS; sub++) {
                int n = 0;
                for (int i = 0; i < s->n; i++)
                    if (plan_meas_eff_set(&s->m[i]) == set && plan_meas_phase(&s->m[i]) == ph &&
                        (sub != SUB_OLD || s->m[i].setup.old_build) && (sub != SUB_MOE || plan_meas_moe(&s->m[i])) &&
                        (sub != SUB_DEEP || s->m[i].n_depth >= PLAN_CV_DEEP))
                        tmp[n++] = fabs(pred[i] / s->m[i].tps - 1.0);
                n_of[sub][set][ph] = n;
                med_of[sub][set][ph] = median(tmp, n);
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
