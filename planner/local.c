/* `fitcheck models --local`: every GGUF already on this machine, each planned
 * as `fitcheck plan SPEC` would plan it (defaults, the speed floor; no probe
 * is run, nothing is written). One request; reports/models_local.c renders it. */
#include "planner/planner.h"

#include <stdlib.h>
#include <string.h>

/* One model found on disk, planned for hw. */
static void local_plan(plan_local_model *m, const plan_hw *hw, const plan_efficiency *eff, plan_result *r) {
    fc_err err = {0};
    model_desc d;
    if (m->found.error[0]) {
        snprintf(m->error, sizeof m->error, "%s", m->found.error);
        return;
    }
    if (model_load(&d, m->found.spec, NULL, &err)) {
        snprintf(m->error, sizeof m->error, "%s", err.msg);
        return;
    }
    plan_request rq = {.model = &d, .model_spec = m->found.spec, .hw = hw, .eff = eff, .min_tps = PLAN_DEFAULT_MIN_TPS};
    plan_params_default(&rq.params);
    if (plan_make(&rq, r, &err)) snprintf(m->error, sizeof m->error, "%s", err.msg);
    else {
        m->planned = true;
        m->verdict = r->mem.verdict;
        if (r->has_speed) {
            m->tg128 = r->speed.tg128;
            m->accuracy = r->accuracy;
        }
        plan_result_free(r);
    }
    model_desc_free(&d);
}

int plan_local_make(const char *models_dir, plan_local_model **out, size_t *n_out, fc_err *err) {
    model_found *found = NULL;
    size_t n = 0;
    plan_local_model *v = NULL;
    plan_hw *hw = calloc(1, sizeof *hw);
    plan_efficiency *eff = calloc(1, sizeof *eff);
    plan_result *r = calloc(1, sizeof *r);
    int rc = hw && eff && r ? FC_OK : fc_err_set(err, FC_ERUNTIME, "out of memory");
    if (!rc) rc = model_stores_scan(models_dir, &found, &n, err);
    if (!rc) rc = plan_hw_this_machine(hw, false, err);
    if (!rc) rc = plan_efficiency_load(eff, NULL, err);
    if (!rc && !(v = calloc(n ? n : 1, sizeof *v))) rc = fc_err_set(err, FC_ERUNTIME, "out of memory");
    for (size_t i = 0; !rc && i < n; i++) {
        v[i].found = found[i];
        local_plan(&v[i], hw, eff, r);
    }
    free(found);
    free(hw);
    free(eff);
    free(r);
    if (rc) {
        free(v);
        return rc;
    }
    *out = v;
    *n_out = n;
    return FC_OK;
}
