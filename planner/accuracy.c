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
#define ACC_FIELDS 9 /* set, phase, rows, median_abs_err, family_median_abs_err, old_rows, old_median_abs_err,
                       * moe_rows, moe_median_abs_err */
#define ACC_MEDIAN_MAX 10.0 /* a median error of 1000%: beyond it the file is broken, not the model */

static const char *const phase_names[PLAN_PHASES] = {"decode", "prefill"};

const char *plan_phase_name(int phase) {
    return phase >= 0 && phase < PLAN_PHASES ? phase_names[phase] : "?";
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
        char *end1, *end2, *end3, *end4, *end5, *end6, *end7;
        long rows = strtol(f[2], &end1, 10), old = strtol(f[5], &end4, 10), moe = strtol(f[7], &end6, 10);
        double med = strtod(f[3], &end2), fam = strtod(f[4], &end3), old_med = strtod(f[6], &end5),
               moe_med = strtod(f[8], &end7);
        if (ph < 0 || *end1 || *end2 || *end3 || *end4 || *end5 || *end6 || *end7 || rows <= 0 ||
            rows > PLAN_MEAS_MAX || old < 0 || old > rows || moe < 0 || moe > rows ||
            !(med >= 0 && med < ACC_MEDIAN_MAX) || !(fam >= 0 && fam < ACC_MEDIAN_MAX) ||
            !(old_med >= 0 && old_med < ACC_MEDIAN_MAX) || !(moe_med >= 0 && moe_med < ACC_MEDIAN_MAX))
            return fc_err_set(err, FC_ERUNTIME, "data/speed_accuracy.csv: bad row for '%s'", f[0]);
        a->rows[ph] = (int)rows;
        a->median[ph] = med;
        a->family_median[ph] = fam;
        a->old_rows[ph] = (int)old;
        a->old_median[ph] = old_med;
        a->moe_rows[ph] = (int)moe;
        a->moe_median[ph] = moe_med;
    }
    return FC_OK;
}

const plan_device *plan_main_device(const plan_hw *hw, const plan_memory *mem) {
    for (int g = 0; g < hw->n_gpu; g++)
        if (mem->gpu[g].n_layers > 0) return &hw->gpu[g];
    return &hw->host;
}

int plan_accuracy_of_plan(const plan_hw *hw, const plan_memory *mem, uint32_t llama_build, bool moe,
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
    a->old_build = plan_build_old(llama_build);
    a->moe = moe;
    return rc;
}
