/* `fitcheck calibrate`: the fit (text, --json, --csv rows shaped like
 * data/efficiency.csv), the --cross-validate summary and the --evaluate one (text, --json). */
#include "reports/reports.h"

#include <stdbool.h>

void rep_calibrate_text(FILE *out, const rep_calibrate_view *v) {
    const plan_meas_set *set = v->set;
    fprintf(out, "%-48s %10s %10s %10s\n", "measurement", "measured", "before", "after");
    for (int i = 0; i < set->n; i++)
        fprintf(out, "%-48s %10.2f %10.2f %10.2f\n", fc_safe(set->m[i].label), set->m[i].tps,
                plan_meas_predict(&set->m[i], v->before_e), plan_meas_predict(&set->m[i], v->after_e));
    fprintf(out, "\n%d measurements: median |error| %.1f%% -> %.1f%%, max %.1f%% -> %.1f%%\n", v->before.n,
            100 * v->before.median_abs_err, 100 * v->after.median_abs_err, 100 * v->before.max_abs_err,
            100 * v->after.max_abs_err);
    if (v->saved)
        fprintf(out, "saved %s (used by 'fitcheck plan'; delete it to return to the built-in constants)\n",
                fc_safe(v->saved));
    else fprintf(out, "not saved (--dry-run)\n");
}

json_t *rep_calibrate_json(const rep_calibrate_view *v) {
    const plan_meas_set *set = v->set;
    json_t *rows = json_array();
    for (int i = 0; i < set->n; i++)
        json_array_append_new(rows, json_pack("{s:s,s:f,s:f,s:f}", "label", set->m[i].label, "measured_tps",
                                              set->m[i].tps, "before_tps", plan_meas_predict(&set->m[i], v->before_e),
                                              "after_tps", plan_meas_predict(&set->m[i], v->after_e)));
    return json_pack("{s:i,s:{s:f,s:f},s:{s:f,s:f},s:o,s:o}", "n", v->before.n, "before", "median_abs_err",
                     v->before.median_abs_err, "max_abs_err", v->before.max_abs_err, "after", "median_abs_err",
                     v->after.median_abs_err, "max_abs_err", v->after.max_abs_err, "saved",
                     v->saved ? json_string(v->saved) : json_null(), "measurements", rows);
}

void rep_calibrate_csv(FILE *out, const rep_calibrate_view *v) {
    char source[256];
    snprintf(source, sizeof source,
             "fitted by 'fitcheck calibrate --from-prior' to %d published llama-bench results (data/bench_corpus.csv; "
             "in-sample median %.1f%%; out of sample: docs/speed-model.md)", v->after.n, 100 * v->after.median_abs_err);
    /* the sets the measurements' devices ran on, each once */
    bool done[PLAN_EFF_SETS][PLAN_ENG_COUNT] = {{false}};
    for (int i = 0; i < v->set->n; i++) {
        const plan_speed_setup *su = &v->set->m[i].setup;
        int eng = su->engine;
        if (eng < 0 || eng >= PLAN_ENG_COUNT) continue;
        for (int d = 0; d < su->n_dev; d++) {
            int set = plan_eff_set_of(&su->dev[d], eng);
            if (done[set][eng] || !plan_speed_load_busy(&su->load[d])) continue;
            done[set][eng] = true;
            plan_efficiency_write_csv(v->after_e, set, eng, source, out);
        }
    }
}

static const char *const cv_what[PLAN_CV_RUNS] = {"constants in use", "fitted on all from prior (in-sample)",
                                                  "leave one source out", "leave one device family out",
                                                  "repeated tests: the other sources", "repeated tests: leave one source out"};
static const char *const cv_keys[PLAN_CV_RUNS] = {"current", "in_sample", "leave_one_source_out",
                                                  "leave_one_family_out", "repeat_other_sources", "repeat_loso"};

static void cv_header(FILE *out) {
    fprintf(out, "median |predicted/measured - 1|         rows     all  decode prefill  d>=%dk   per backend\n",
            PLAN_CV_DEEP / 1024);
}

static void cv_line(FILE *out, const char *what, const plan_cv_stats *st) {
    fprintf(out, "%-38s %5d", what, st->n);
    const int n[4] = {st->n, st->n_dec, st->n_pp, st->n_deep};
    const double med[4] = {st->med, st->med_dec, st->med_pp, st->med_deep};
    for (int c = 0; c < 4; c++)
        if (n[c]) fprintf(out, "  %6.1f%%", 100 * med[c]);
        else fprintf(out, "  %7s", "-"); /* no such rows: no median */
    fprintf(out, "  ");
    for (int b = 0; b < PLAN_BACKEND_COUNT; b++)
        if (st->n_be[b]) fprintf(out, " %s %.1f%% (%d)", plan_backend_name(b), 100 * st->med_be[b], st->n_be[b]);
    fprintf(out, "\n");
}

void rep_cv_text(FILE *out, const plan_cv_report *r) {
    cv_header(out);
    for (int k = 0; k < PLAN_CV_RUNS; k++) cv_line(out, cv_what[k], &r->st[k]);
}

void rep_eval_text(FILE *out, const plan_cv_stats *st) {
    cv_header(out);
    cv_line(out, cv_what[PLAN_CV_IN_USE], st);
}

static json_t *cv_stats_json(const plan_cv_stats *st) {
    json_t *be = json_object(), *sets = json_object();
    for (int b = 0; b < PLAN_BACKEND_COUNT; b++)
        if (st->n_be[b])
            json_object_set_new(be, plan_backend_name(b),
                                json_pack("{s:i,s:f}", "n", st->n_be[b], "median_abs_err", st->med_be[b]));
    for (int set = 0; set < PLAN_EFF_SETS; set++) {
        json_t *phases = json_object();
        for (int ph = 0; ph < PLAN_PHASES; ph++)
            if (st->n_set[set][ph])
                json_object_set_new(phases, plan_phase_name(ph),
                                    json_pack("{s:i,s:f}", "n", st->n_set[set][ph], "median_abs_err", st->med_set[set][ph]));
        if (json_object_size(phases)) json_object_set_new(sets, plan_eff_set_name(set), phases);
        else json_decref(phases);
    }
    return json_pack("{s:i,s:f,s:i,s:f,s:i,s:f,s:i,s:f,s:o,s:o}", "n", st->n, "median_abs_err", st->med, "n_decode",
                     st->n_dec, "decode", st->med_dec, "n_prefill", st->n_pp, "prefill", st->med_pp, "n_deep",
                     st->n_deep, "deep", st->med_deep, "backends", be, "sets", sets);
}

/* data/speed_accuracy.csv: the held-out medians per efficiency set and phase (plan_accuracy_of_set),
 * one source left out at a time and one device family. */
void rep_cv_csv(FILE *out, const plan_cv_report *r) {
    const plan_cv_stats *st = &r->st[PLAN_CV_LOSO], *fam = &r->st[PLAN_CV_LOFO];
    fprintf(out, "# How far the speed model was off on published llama-bench results it was not fitted on: refitted without\n"
                 "# one source at a time, predicting that source (median_abs_err), and without one device family (one chip\n"
                 "# generation) at a time, predicting that family (family_median_abs_err: what to expect on a device whose\n"
                 "# generation nobody measured). Per efficiency set and phase (decode: tgN tests; prefill: ppN and ppN+tgN),\n"
                 "# the results and the median |predicted/measured - 1|; old_rows and old_median_abs_err: those of them\n"
                 "# from llama.cpp builds before July 2024 (what 'plan --llama-build' predicts), one source held out;\n"
                 "# moe_rows and moe_median_abs_err: those of models of experts (gpt-oss, Qwen3-30B-A3B, ...);\n"
                 "# deep_rows and deep_median_abs_err: those at a depth of %d tokens or more.\n"
                 "# Written by 'fitcheck calibrate --cross-validate --csv' over %d results (data/bench_corpus.csv;\n"
                 "# docs/speed-model.md); 'fitcheck plan' prints it beside a speed.\n"
                 "set,phase,rows,median_abs_err,family_median_abs_err,old_rows,old_median_abs_err,moe_rows,"
                 "moe_median_abs_err,deep_rows,deep_median_abs_err\n", PLAN_CV_DEEP, st->n);
    for (int set = 0; set < PLAN_EFF_SETS; set++)
        for (int ph = 0; ph < PLAN_PHASES; ph++)
            if (st->n_set[set][ph])
                fprintf(out, "%s,%s,%d,%.4f,%.4f,%d,%.4f,%d,%.4f,%d,%.4f\n", plan_eff_set_name(set),
                        plan_phase_name(ph), st->n_set[set][ph], st->med_set[set][ph], fam->med_set[set][ph],
                        st->n_old[set][ph], st->med_old[set][ph], st->n_moe[set][ph], st->med_moe[set][ph],
                        st->n_deep_set[set][ph], st->med_deep_set[set][ph]);
}

/* A measurement as the row of a --cross-validate or --evaluate report, its predictions added by the caller. */
static json_t *meas_row_json(const plan_meas *m) {
    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:i,s:i,s:i,s:f}", "label", m->label, "source", m->source, "device",
                     m->device, "backend", plan_backend_name(m->backend), "phase", plan_phase_name(plan_meas_phase(m)),
                     "n_prompt", m->n_prompt, "n_gen", m->n_gen, "n_depth", m->n_depth, "measured_tps", m->tps);
}

json_t *rep_cv_json(const plan_meas_set *set, const plan_cv_report *r) {
    json_t *root = json_object();
    for (int k = 0; k < PLAN_CV_RUNS; k++) json_object_set_new(root, cv_keys[k], cv_stats_json(&r->st[k]));
    /* each row's out-of-sample predictions, to see where the error comes from */
    json_t *rows = json_array();
    for (int i = 0; i < set->n; i++) {
        json_t *row = meas_row_json(&set->m[i]);
        json_object_set_new(row, "loso_tps", json_real(r->loso[i]));
        json_object_set_new(row, "lofo_tps", json_real(r->lofo[i]));
        if (r->repeat[i] > 0) json_object_set_new(row, "other_sources_tps", json_real(r->repeat[i]));
        json_array_append_new(rows, row);
    }
    json_object_set_new(root, "rows", rows);
    return root;
}

json_t *rep_eval_json(const plan_meas_set *set, const plan_cv_stats *st, const double *pred) {
    json_t *root = json_object();
    json_object_set_new(root, cv_keys[PLAN_CV_IN_USE], cv_stats_json(st));
    json_t *rows = json_array();
    for (int i = 0; i < set->n; i++) {
        json_t *row = meas_row_json(&set->m[i]);
        json_object_set_new(row, "predicted_tps", json_real(pred[i]));
        json_array_append_new(rows, row);
    }
    json_object_set_new(root, "rows", rows);
    return root;
}
