/* fitcheck with no arguments: probe this machine quickly (or reuse its saved
 * profile), then say, for every catalog model, which quantization the
 * planner recommends, where it runs and how fast — the same request as
 * `fitcheck plan NAME`, rendered one line per model. */
#include "cli/cli.h"
#include "planner/planner.h"
#include "reports/reports.h"

#include <stdlib.h>

int cli_main_job(void) {
    fc_err err = {0};
    plan_hw *hw = calloc(1, sizeof *hw);
    plan_efficiency *eff = calloc(1, sizeof *eff);
    plan_result *r = calloc(1, sizeof *r);
    int rc = hw && eff && r ? FC_OK : fc_err_set(&err, FC_ERUNTIME, "out of memory");
    if (!rc) rc = plan_hw_this_machine(hw, true, &err);
    if (!rc) rc = plan_efficiency_load(eff, NULL, &err);
    plan_request rq = {.hw = hw, .eff = eff, .min_tps = PLAN_DEFAULT_MIN_TPS, .want = PLAN_WANT_CHOICE};
    plan_params_default(&rq.params);
    int n_fit = 0, n_models = (int)model_catalog_count();
    plan_accuracy *acc = calloc((size_t)n_models + 1, sizeof *acc); /* each plan's, for the tail */
    size_t n_acc = 0;
    if (!rc && !acc) rc = fc_err_set(&err, FC_ERUNTIME, "out of memory");
    for (int i = 0; !rc && i < n_models; i++) {
        model_catalog_info info;
        model_desc model;
        if ((rc = model_catalog_get((size_t)i, &info, NULL, &err)) || (rc = model_load(&model, info.name, NULL, &err)))
            break;
        rq.model = &model;
        rq.model_spec = info.name;
        rc = plan_make(&rq, r, &err);
        if (!rc) {
            if (i == 0) rep_fits_head(stdout, r);
            rep_fits_row(stdout, info.name, (double)info.params_reference / 1e9, r);
            n_fit += r->choice && r->choice->best >= 0;
            if (r->has_speed) acc[n_acc++] = r->accuracy;
            if (i == n_models - 1) rep_fits_tail(stdout, n_fit, n_models, r, acc, n_acc);
            plan_result_free(r);
        }
        model_desc_free(&model);
    }
    free(acc);
    free(hw);
    free(eff);
    free(r);
    return rc ? cli_report_error("", &err) : 0;
}
