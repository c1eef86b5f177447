/* fitcheck calibrate FILES...: refits the speed model's efficiency constants
 * to the user's own measurements (llama-bench -o json/jsonl output imported
 * as-is, fitcheck run --bench results, published-result tables) and saves
 * them where `fitcheck plan` finds them. */
#include "cli/cli.h"
#include "planner/planner.h"

#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CALIBRATE_MAX_FILES 64

typedef struct calibrate_request {
    const char *files[CALIBRATE_MAX_FILES];
    int n_files;
    const char *hw;      /* a probe profile of the machine the runs came from */
    const char *out;     /* NULL: the default calibration file */
    bool dry_run, json, cross_validate, from_prior, csv;
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
            "  a published-results table shaped like data/published_bench.csv\n\n"
            "options:\n"
            "  --hw FILE.json   probe profile of the machine the runs came from (default: this one)\n"
            "  --out FILE       where to save (default: $XDG_CACHE_HOME/fitcheck/calibration.json)\n"
            "  --dry-run        fit and report, save nothing\n"
            "  --from-prior     start the fit from data/efficiency_prior.csv, not the constants in use\n"
            "  --csv            print the fitted constants of the backends measured as\n"
            "                   data/efficiency.csv rows (with --dry-run: how the built-ins are refitted)\n"
            "  --cross-validate report out-of-sample errors, save nothing: refit without one source\n"
            "                   at a time and without one device family at a time, predict what was\n"
            "                   left out (fitcheck calibrate --cross-validate data/bench_corpus.csv)\n"
            "  --json           machine-readable output\n");
}

static int calibrate_parse(int argc, char **argv, calibrate_request *rq) {
    static const struct option opts[] = {
        {"hw", required_argument, 0, 'w'}, {"out", required_argument, 0, 'o'}, {"dry-run", no_argument, 0, 'n'},
        {"json", no_argument, 0, 'j'},     {"help", no_argument, 0, 'h'},      {"cross-validate", no_argument, 0, 'x'},
        {"from-prior", no_argument, 0, 'p'},   {"csv", no_argument, 0, 'c'},     {0, 0, 0, 0},
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

static void report_text(const plan_meas_set *set, const plan_efficiency *before_e, const plan_efficiency *after_e,
                        const plan_fit_stats *b, const plan_fit_stats *a, const char *saved) {
    printf("%-48s %10s %10s %10s\n", "measurement", "measured", "before", "after");
    for (int i = 0; i < set->n; i++)
        printf("%-48s %10.2f %10.2f %10.2f\n", fc_safe(set->m[i].label), set->m[i].tps, plan_meas_predict(&set->m[i], before_e),
               plan_meas_predict(&set->m[i], after_e));
    printf("\n%d measurements: median |error| %.1f%% -> %.1f%%, max %.1f%% -> %.1f%%\n", b->n, 100 * b->median_abs_err,
           100 * a->median_abs_err, 100 * b->max_abs_err, 100 * a->max_abs_err);
    if (saved) printf("saved %s (used by 'fitcheck plan'; delete it to return to the built-in constants)\n", fc_safe(saved));
    else printf("not saved (--dry-run)\n");
}

static void report_json(const plan_meas_set *set, const plan_efficiency *before_e, const plan_efficiency *after_e,
                        const plan_fit_stats *b, const plan_fit_stats *a, const char *saved) {
    json_t *rows = json_array();
    for (int i = 0; i < set->n; i++)
        json_array_append_new(rows, json_pack("{s:s,s:f,s:f,s:f}", "label", set->m[i].label, "measured_tps",
                                              set->m[i].tps, "before_tps", plan_meas_predict(&set->m[i], before_e),
                                              "after_tps", plan_meas_predict(&set->m[i], after_e)));
    json_t *root = json_pack("{s:i,s:{s:f,s:f},s:{s:f,s:f},s:o,s:o}", "n", b->n, "before", "median_abs_err",
                             b->median_abs_err, "max_abs_err", b->max_abs_err, "after", "median_abs_err",
                             a->median_abs_err, "max_abs_err", a->max_abs_err, "saved",
                             saved ? json_string(saved) : json_null(), "measurements", rows);
    cli_print_json(root);
}

static json_t *cv_json(const plan_cv_stats *st) {
    json_t *be = json_object();
    for (int b = 0; b < PLAN_BACKEND_COUNT; b++)
        if (st->n_be[b]) json_object_set_new(be, plan_backend_name(b), json_pack("{s:i,s:f}", "n", st->n_be[b], "median_abs_err", st->med_be[b]));
    return json_pack("{s:i,s:f,s:i,s:f,s:i,s:f,s:i,s:f,s:o}", "n", st->n, "median_abs_err", st->med, "n_decode", st->n_dec,
                     "decode", st->med_dec, "n_prefill", st->n_pp, "prefill", st->med_pp, "n_deep", st->n_deep,
                     "deep", st->med_deep, "backends", be);
}

static void cv_text(const char *what, const plan_cv_stats *st) {
    printf("%-34s %5d  %6.1f%%  %6.1f%%  %6.1f%%  %6.1f%%  ", what, st->n, 100 * st->med, 100 * st->med_dec,
           100 * st->med_pp, 100 * st->med_deep);
    for (int b = 0; b < PLAN_BACKEND_COUNT; b++)
        if (st->n_be[b]) printf(" %s %.1f%% (%d)", plan_backend_name(b), 100 * st->med_be[b], st->n_be[b]);
    printf("\n");
}

/* The constants in use, a fit to everything from the prior (in-sample), then
 * leave-one-source-out and leave-one-family-out fits from the prior: a
 * held-out group must not have shaped the constants that predict it. */
static int cross_validate(const calibrate_request *rq, const plan_efficiency *in_use, const plan_meas_set *set,
                          fc_err *err) {
    double *pred = calloc((size_t)set->n + 1, sizeof *pred), *loso = calloc((size_t)set->n + 1, sizeof *loso);
    plan_efficiency *fit = malloc(sizeof *fit), *base = malloc(sizeof *base);
    int rc = pred && loso && fit && base ? plan_efficiency_prior(base, err) : fc_err_set(err, FC_ERUNTIME, "out of memory");
    if (rc) {
        free(pred);
        free(loso);
        free(fit);
        free(base);
        return rc;
    }
    plan_cv_stats st[4];
    for (int i = 0; i < set->n; i++) pred[i] = plan_meas_predict(&set->m[i], in_use);
    plan_cv_summarize(set, pred, &st[0]);
    *fit = *base;
    rc = plan_calibrate(fit, set, NULL, NULL, err);
    if (!rc) {
        for (int i = 0; i < set->n; i++) pred[i] = plan_meas_predict(&set->m[i], fit);
        plan_cv_summarize(set, pred, &st[1]);
        rc = plan_cross_validate(base, set, PLAN_CV_SOURCE, pred, err);
    }
    if (!rc) {
        plan_cv_summarize(set, pred, &st[2]);
        memcpy(loso, pred, sizeof *loso * (size_t)set->n);
        rc = plan_cross_validate(base, set, PLAN_CV_FAMILY, pred, err);
    }
    if (!rc) {
        plan_cv_summarize(set, pred, &st[3]);
        static const char *const what[] = {"constants in use", "fitted on all from prior (in-sample)",
                                           "leave one source out", "leave one device family out"};
        if (rq->json) {
            json_t *root = json_object();
            static const char *const keys[] = {"current", "in_sample", "leave_one_source_out", "leave_one_family_out"};
            for (int k = 0; k < 4; k++) json_object_set_new(root, keys[k], cv_json(&st[k]));
            /* each row's out-of-sample predictions, to see where the error comes from */
            json_t *rows = json_array();
            for (int i = 0; i < set->n; i++) {
                const plan_meas *m = &set->m[i];
                json_array_append_new(rows, json_pack("{s:s,s:s,s:s,s:s,s:i,s:i,s:i,s:f,s:f,s:f}", "label", m->label,
                                                      "source", m->source, "device", m->device, "backend",
                                                      plan_backend_name(m->backend), "n_prompt", m->n_prompt, "n_gen",
                                                      m->n_gen, "n_depth", m->n_depth, "measured_tps", m->tps,
                                                      "loso_tps", loso[i], "lofo_tps", pred[i]));
            }
            json_object_set_new(root, "rows", rows);
            cli_print_json(root);
        } else {
            printf("median |predicted/measured - 1|     rows     all  decode prefill  d>=%dk   per backend\n",
                   PLAN_CV_DEEP / 1024);
            for (int k = 0; k < 4; k++) cv_text(what[k], &st[k]);
        }
    }
    free(pred);
    free(loso);
    free(fit);
    free(base);
    return rc;
}

/* The fitted constants of every backend measured, as data/efficiency.csv rows. */
static void report_csv(const plan_meas_set *set, const plan_efficiency *e, const plan_fit_stats *a) {
    char source[256];
    snprintf(source, sizeof source,
             "fitted by 'fitcheck calibrate --from-prior' to %d published llama-bench results (data/bench_corpus.csv; "
             "in-sample median %.1f%%; out of sample: docs/speed-model.md)", a->n, 100 * a->median_abs_err);
    bool done[PLAN_BACKEND_COUNT][PLAN_ENG_COUNT] = {{false}};
    for (int i = 0; i < set->n; i++) {
        int be = set->m[i].backend, eng = set->m[i].engine;
        if (be < 0 || be >= PLAN_BACKEND_COUNT || eng < 0 || eng >= PLAN_ENG_COUNT || done[be][eng]) continue;
        done[be][eng] = true;
        plan_efficiency_write_csv(e, be, eng, source, stdout);
    }
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
    plan_fit_stats b = {0}, a = {0};
    if (!rc && rq.cross_validate) {
        rc = cross_validate(&rq, before, &set, &err);
        plan_meas_set_free(&set);
        free(p);
        free(before);
        free(after);
        return rc ? cli_report_error("calibrate", &err) : 0;
    }
    if (!rc) {
        *after = *before;
        rc = plan_calibrate(after, &set, &b, &a, &err);
    }
    if (!rc && !rq.dry_run) rc = plan_efficiency_save(after, path, &err);
    if (!rc) {
        const char *saved = rq.dry_run ? NULL : path;
        if (rq.csv) report_csv(&set, after, &a);
        else if (rq.json) report_json(&set, before, after, &b, &a, saved);
        else report_text(&set, before, after, &b, &a, saved);
    }
    plan_meas_set_free(&set);
    free(p);
    free(before);
    free(after);
    return rc ? cli_report_error("calibrate", &err) : 0;
}
