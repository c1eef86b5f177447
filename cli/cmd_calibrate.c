/* fitcheck calibrate FILES...: refits the speed model's efficiency constants
 * to the user's own measurements (llama-bench -o json/jsonl output imported
 * as-is, fitcheck run --bench results, published-result tables) and saves
 * them where `fitcheck plan` finds them. */
#include "cli/cli.h"
#include "planner/planner.h"
#include "reports/reports.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CALIBRATE_MAX_FILES 64

typedef struct calibrate_request {
    const char *files[CALIBRATE_MAX_FILES];
    int n_files;
    const char *hw;      /* a probe profile of the machine the runs came from */
    const char *out;     /* NULL: the default calibration file */
    bool dry_run, json, cross_validate, evaluate, from_prior, csv;
} calibrate_request;

static void calibrate_usage(FILE *out) {
    fprintf(out,
            "usage: fitcheck calibrate FILE... [options]\n\n"
            "Refits the speed model's efficiency constants (bandwidth efficiency, per-type kernel\n"
            "rates, attention, fixed costs; docs/speed-model.md) to measurements and saves them for\n"
            "'fitcheck plan'. Prints the prediction error before and after the fit.\n\n"
            "FILE is any of:\n"
            "  llama-bench output: llama-bench -o json > a.json, or -o jsonl, or -o csv\n"
            "  fitcheck run --bench results saved with -o jsonl\n"
            "  a published-results table shaped like data/published_bench.csv or data/bench_corpus.csv\n\n"
            "options:\n"
            "  --hw FILE.json   probe profile of the machine the runs came from (default: this one)\n"
            "  --out FILE       where to save (default: $XDG_CACHE_HOME/fitcheck/calibration.json)\n"
            "  --dry-run        fit and report, save nothing\n"
            "  --from-prior     start the fit from data/efficiency_prior.csv, not the constants in use\n"
            "  --csv            print the fitted constants of the backends measured as\n"
            "                   data/efficiency.csv rows (with --dry-run: how the built-ins are refitted);\n"
            "                   with --cross-validate: the held-out medians as data/speed_accuracy.csv\n"
            "  --cross-validate report out-of-sample errors, save nothing: refit without one source\n"
            "                   at a time and without one device family at a time, predict what was\n"
            "                   left out (fitcheck calibrate --cross-validate data/bench_corpus.csv)\n"
            "  --evaluate       predict the measurements with the constants in use and report the\n"
            "                   errors as --cross-validate does, fit and save nothing (results no fit\n"
            "                   has seen: fitcheck calibrate --evaluate data/holdout_bench.csv)\n"
            "  --json           machine-readable output\n");
}

static int calibrate_parse(int argc, char **argv, calibrate_request *rq) {
    static const struct option opts[] = {
        {"hw", required_argument, 0, 'w'}, {"out", required_argument, 0, 'o'}, {"dry-run", no_argument, 0, 'n'},
        {"json", no_argument, 0, 'j'},     {"help", no_argument, 0, 'h'},      {"cross-validate", no_argument, 0, 'x'},
        {"from-prior", no_argument, 0, 'p'},   {"csv", no_argument, 0, 'c'},     {"evaluate", no_argument, 0, 'e'},
        {0, 0, 0, 0},
    };
    memset(rq, 0, sizeof *rq);
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'w': rq->hw = optarg; break;
        case 'o': rq->out = optarg; break;
        case 'n': rq->dry_run = true; break;
        case 'j': rq->json = true; break;
        case 'x': rq->cross_validate = rq->dry_run = true; break;
        case 'e': rq->evaluate = rq->dry_run = true; break;
        case 'p': rq->from_prior = true; break;
        case 'c': rq->csv = true; break;
        case 'h': calibrate_usage(stdout); return -1;
        default: return cli_usage_error("calibrate", "unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    for (; optind < argc; optind++) {
        if (rq->n_files >= CALIBRATE_MAX_FILES)
            return cli_usage_error("calibrate", "more than %d files", CALIBRATE_MAX_FILES);
        rq->files[rq->n_files++] = argv[optind];
    }
    if (!rq->n_files) return cli_usage_error("calibrate", "no measurement FILE given");
    if (rq->evaluate && (rq->cross_validate || rq->csv || rq->from_prior))
        return cli_usage_error("calibrate", "--evaluate fits nothing: not with --cross-validate, --csv or --from-prior");
    if (rq->out && rq->dry_run)
        return cli_usage_error("calibrate", "--out says where to save, and --dry-run, --evaluate and --cross-validate "
                                            "save nothing");
    return FC_OK;
}

static int load_profile(const calibrate_request *rq, probe_profile *p, fc_err *err) {
    if (rq->hw) return probe_profile_load(p, rq->hw, err);
    fc_err perr = {0};
    /* No profile is fine for GPU and published results; CPU results then
     * fail with a message that says to run 'fitcheck probe'. */
    if (probe_profile_get(p, false, &perr)) memset(p, 0, sizeof *p);
    return FC_OK;
}

static int import_all(const calibrate_request *rq, const probe_profile *p, plan_meas_set *set, fc_err *err) {
    for (int i = 0; i < rq->n_files; i++) {
        char *text;
        size_t len;
        int rc = fc_read_file(rq->files[i], PLAN_MEAS_FILE_MAX, &text, &len, err);
        if (rc) return rc;
        rc = plan_meas_import(set, text, len, rq->files[i], p, err);
        free(text);
        if (rc) return rc;
    }
    return FC_OK;
}

/* --evaluate: the constants in use against the measurements, nothing fitted. */
static int calibrate_evaluate(const calibrate_request *rq, const plan_meas_set *set, const plan_efficiency *in_use,
                              fc_err *err) {
    if (set->n <= 0) return fc_err_set(err, FC_EINPUT, "no measurements to evaluate");
    double *pred = calloc((size_t)set->n + 1, sizeof *pred);
    if (!pred) return fc_err_set(err, FC_ERUNTIME, "out of memory");
    for (int i = 0; i < set->n; i++) pred[i] = plan_meas_predict(&set->m[i], in_use);
    plan_cv_stats st;
    plan_cv_summarize(set, pred, &st);
    if (rq->json) cli_print_json(rep_eval_json(set, &st, pred));
    else rep_eval_text(stdout, &st);
    free(pred);
    return FC_OK;
}

static int calibrate_cross_validate(const calibrate_request *rq, const plan_meas_set *set,
                                    const plan_efficiency *in_use, fc_err *err) {
    plan_cv_report cv;
    int rc = plan_cv_report_make(in_use, set, &cv, err);
    if (rc) return rc;
    if (rq->csv) rep_cv_csv(stdout, &cv);
    else if (rq->json) cli_print_json(rep_cv_json(set, &cv));
    else rep_cv_text(stdout, &cv);
    plan_cv_report_free(&cv);
    return FC_OK;
}

static int calibrate_fit(const calibrate_request *rq, const plan_meas_set *set, const plan_efficiency *before,
                         plan_efficiency *after, const char *path, fc_err *err) {
    plan_fit_stats b = {0}, a = {0};
    *after = *before;
    int rc = plan_calibrate(after, set, &b, &a, err);
    if (!rc && !rq->dry_run) rc = plan_efficiency_save(after, path, err);
    if (rc) return rc;
    const rep_calibrate_view v = {set, before, after, b, a, rq->dry_run ? NULL : path};
    if (rq->csv) rep_calibrate_csv(stdout, &v);
    else if (rq->json) cli_print_json(rep_calibrate_json(&v));
    else rep_calibrate_text(stdout, &v);
    return FC_OK;
}

int cli_calibrate(int argc, char **argv) {
    calibrate_request rq;
    int rc = calibrate_parse(argc, argv, &rq);
    if (rc) return rc < 0 ? 0 : rc;
    fc_err err = {0};
    probe_profile *p = calloc(1, sizeof *p);
    plan_efficiency *before = calloc(1, sizeof *before), *after = calloc(1, sizeof *after);
    plan_meas_set set = {0};
    char path[4096];
    if (!p || !before || !after) rc = fc_err_set(&err, FC_ERUNTIME, "out of memory");
    if (!rc) rc = rq.out ? (snprintf(path, sizeof path, "%s", rq.out), FC_OK)
                         : plan_calibration_default_path(path, sizeof path, &err);
    /* Find out it cannot be saved before the work, not after. */
    if (!rc && !rq.dry_run) rc = fc_check_writable(path, &err);
    if (!rc) rc = load_profile(&rq, p, &err);
    if (!rc) rc = import_all(&rq, p, &set, &err);
    /* Start from the constants in use: the file being refitted, else the default calibration. */
    if (!rc) rc = rq.from_prior ? plan_efficiency_prior(before, &err)
                                : plan_efficiency_load(before, access(path, F_OK) == 0 ? path : NULL, &err);
    if (!rc) rc = rq.evaluate         ? calibrate_evaluate(&rq, &set, before, &err)
                  : rq.cross_validate ? calibrate_cross_validate(&rq, &set, before, &err)
                                      : calibrate_fit(&rq, &set, before, after, path, &err);
    plan_meas_set_free(&set);
    free(p);
    free(before);
    free(after);
    return rc ? cli_report_error("calibrate", &err) : 0;
}
