/* --hw all: which catalog device runs the model best (what to buy). Each
 * entry is planned alone — a GPU with this machine's RAM as its host — with
 * the same placement search as one plan (plan_place). */
#include "planner/planner.h"

#include <stdlib.h>
#include <string.h>

/* Reaching the floor, then below it, then not fitting at all. */
static int rank_tier(const plan_rank_row *r) { return r->where == PLAN_ON_NONE ? 2 : r->below_floor; }

static int rank_cmp(const void *a, const void *b) {
    const plan_rank_row *x = a, *y = b;
    if (rank_tier(x) != rank_tier(y)) return rank_tier(x) - rank_tier(y);
    if (x->where != y->where) return x->where - y->where;
    return (x->speed.tg128 < y->speed.tg128) - (x->speed.tg128 > y->speed.tg128);
}

int plan_rank_hardware(const plan_request *rq, double budget_usd, plan_rank *out, fc_err *err) {
    memset(out, 0, sizeof *out);
    size_t n = plan_hwcat_count();
    out->row = calloc(n ? n : 1, sizeof *out->row);
    plan_hw *hw = malloc(sizeof *hw);
    plan_memory *m = malloc(sizeof *m);
    plan_efficiency *own_eff = NULL;
    const plan_efficiency *e = NULL;
    int rc = out->row && hw && m ? FC_OK : fc_err_set(err, FC_ERUNTIME, "out of memory");
    if (!rc) rc = plan_efficiency_resolve(rq->eff, &own_eff, &e, err);
    for (size_t i = 0; !rc && i < n; i++) {
        plan_hw_entry ent;
        if ((rc = plan_hwcat_get(i, &ent, err)) || (rc = plan_hw_from_catalog(hw, ent.id, err))) break;
        if (budget_usd > 0 && (ent.price_usd <= 0 || ent.price_usd > budget_usd)) continue;
        /* --backend ranks the devices that can run it, on it; the CPU backend the CPU
         * platforms: a GPU's entry would plan this machine's CPU, and a unified
         * machine's CPU cores are not in the catalog (its figures are its GPU's). */
        fc_err unfit = {0};
        if (rq->set_backend && (rq->backend == PLAN_CPU ? hw->n_gpu > 0 : plan_hw_use_backend(hw, rq->backend, true, &unfit)))
            continue;
        plan_rank_row *r = &out->row[out->n++];
        r->backend = hw->n_gpu ? hw->gpu[0].backend : PLAN_CPU;
        snprintf(r->id, sizeof r->id, "%s", ent.id);
        r->price_usd = ent.price_usd;
        r->mem_gib = (double)(hw->n_gpu ? hw->gpu[0].mem_total : hw->host.mem_total) / FC_GIB;
        r->params = rq->params;
        r->where = plan_place(rq->model, hw, &r->params, m);
        fc_err serr = {0};
        /* A device whose speed cannot be predicted is not ranked as a fit. */
        if (r->where != PLAN_ON_NONE &&
            plan_speed_predict(rq->model, hw, m, &r->params, e, plan_full_depth(&r->params), &r->speed, &serr))
            r->where = PLAN_ON_NONE;
        r->below_floor = r->where != PLAN_ON_NONE && r->speed.tg128 < rq->min_tps;
        r->prefill_unvalidated = hw->n_gpu && plan_prefill_unvalidated(&hw->gpu[0], NULL);
        if (r->where != PLAN_ON_NONE) rc = plan_accuracy_of_plan(hw, m, rq->model, &r->params, &r->accuracy, err);
    }
    if (!rc) qsort(out->row, out->n, sizeof *out->row, rank_cmp);
    free(hw);
    free(m);
    free(own_eff);
    if (rc) plan_rank_free(out);
    return rc;
}

void plan_rank_free(plan_rank *r) {
    free(r->row);
    r->row = NULL;
    r->n = 0;
}
