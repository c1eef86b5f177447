/* How far the speed model was off on published results it was not fitted on,
 * refitted without one source at a time (data/speed_accuracy.csv, written by
 * `fitcheck calibrate --cross-validate --csv data/bench_corpus.csv`): what
 * `plan` prints beside a speed, so a user knows how much to trust it on
 * their backend. */
#include "planner/planner.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ACC_LINE_MAX 256
#define ACC_FIELDS 11 /* set, phase, rows, median_abs_err, family_median_abs_err, old_rows, old_median_abs_err,
                        * moe_rows, moe_median_abs_err, deep_rows, deep_median_abs_err */
#define ACC_MEDIAN_MAX 10.0 /* a median error of 1000%: beyond it the file is broken, not the model */

static const char *const phase_names[PLAN_PHASES] = {"decode", "prefill"};

const char *plan_phase_name(int phase) {
    return phase >= 0 && phase < PLAN_PHASES ? phase_names[phase] : "?";
}

/* A median |error| as the file writes it: a fraction, below ACC_MEDIAN_MAX. */
static bool acc_number(const char *s, double *v) {
    char *end;
    *v = strtod(s, &end);
    return end != s && !*end && *v >= 0 && *v < ACC_MEDIAN_MAX;
}

int plan_accuracy_of_set(int set, plan_accuracy *a, fc_err *err) {
    memset(a, 0, sizeof *a);
    a->set = set;
    const char *cur = plan_data_file("speed_accuracy.csv");
    if (!cur) return fc_err_set(err, FC_ERUNTIME, "data/speed_accuracy.csv is not built in");
    char line[ACC_LINE_MAX];
    bool header = false;
    while (plan_csv_data_line(&cur, line, sizeof line, &header)) {
        char *f[ACC_FIELDS];
        if (plan_csv_fields(line, f, ACC_FIELDS) != ACC_FIELDS || strcasecmp(f[0], plan_eff_set_name(set))) continue;
        int ph = !strcmp(f[1], phase_names[PLAN_PHASE_DECODE]) ? PLAN_PHASE_DECODE
                 : !strcmp(f[1], phase_names[PLAN_PHASE_PREFILL]) ? PLAN_PHASE_PREFILL : -1;
        /* rows, then median pairs of subsets of them: every result (and its family median), old builds,
         * models of experts, depth */
        enum { SUBSETS = 4 };
        long n[SUBSETS];
        double med[SUBSETS], fam;
        static const int n_col[SUBSETS] = {2, 5, 7, 9}, med_col[SUBSETS] = {3, 6, 8, 10};
        bool ok = ph >= 0 && acc_number(f[4], &fam);
        for (int k = 0; k < SUBSETS && ok; k++) {
            char *end;
            n[k] = strtol(f[n_col[k]], &end, 10);
            ok = !*end && end != f[n_col[k]] && n[k] >= 0 && n[k] <= (k ? n[0] : PLAN_MEAS_MAX) &&
                 acc_number(f[med_col[k]], &med[k]);
        }
        if (!ok || n[0] <= 0) return fc_err_set(err, FC_ERUNTIME, "data/speed_accuracy.csv: bad row for '%s'", f[0]);
        a->rows[ph] = (int)n[0];
        a->median[ph] = med[0];
        a->family_median[ph] = fam;
        a->old_rows[ph] = (int)n[1];
        a->old_median[ph] = med[1];
        a->moe_rows[ph] = (int)n[2];
        a->moe_median[ph] = med[2];
        a->deep_rows[ph] = (int)n[3];
        a->deep_median[ph] = med[3];
    }
    return FC_OK;
}

const plan_device *plan_main_device(const plan_hw *hw, const plan_memory *mem) {
    for (int g = 0; g < hw->n_gpu; g++)
        if (mem->gpu[g].n_layers > 0) return &hw->gpu[g];
    return &hw->host;
}

int plan_accuracy_of_plan(const plan_hw *hw, const plan_memory *mem, const model_desc *model, const plan_params *p,
                          plan_accuracy *a, fc_err *err) {
    const plan_device *d = plan_main_device(hw, mem);
    plan_speed_dev sd;
    plan_speed_dev_from_device(&sd, d);
    int rc = plan_accuracy_of_set(plan_eff_set_of(&sd, PLAN_ENG_LLAMACPP), a, err);
    /* A catalog device is known by its id; this machine's devices ("cpu", "gpu0") have no family to look up. */
    plan_hw_entry e;
    fc_err ignored = {0};
    if (!rc && plan_hwcat_find(d->id, &e, &ignored) == FC_OK)
        a->unmeasured = !plan_corpus_device_measured(d->id, a->family, sizeof a->family);
    a->old_build = plan_build_old(p->llama_build);
    a->moe = plan_model_moe(model);
    a->deep = plan_full_depth(p) >= PLAN_CV_DEEP;
    return rc;
}
