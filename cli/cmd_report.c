/* fitcheck report: one self-contained HTML file from the machine profile,
 * the plans of some models and any saved benchmark runs. */
#include "cli/cli.h"
#include "planner/planner.h"
#include "reports/reports.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define REPORT_MAX_RUN_FILES 16
#define REPORT_DEFAULT_PATH "report.html"
#define REPORT_CTX_MAX (1 << 24)

/* Planned when no MODEL is named: small, medium and large dense models and a
 * mixture of experts, so the page shows where this machine's limits are. */
static const char *const default_models[] = {"llama-3.2-3b", "qwen3-8b", "gemma-3-27b", "qwen3-30b-a3b"};

static void usage(FILE *out) {
    fprintf(out,
            "usage: fitcheck report [-o FILE.html] [--profile FILE.json] [--hw SPEC] [--runs FILE.jsonl]...\n"
            "                       [--ctx N] [MODEL ...]\n"
            "\n"
            "Writes one self-contained HTML page (inline CSS and SVG charts, no script, no network):\n"
            "the machine (measured beside theoretical), bandwidth against working set and threads,\n"
            "memory fit per device, the quantization table, speed against context depth,\n"
            "predicted against measured, and the llama.cpp command for each model.\n"
            "\n"
            "  -o, --output FILE    where to write (default " REPORT_DEFAULT_PATH "); written atomically\n"
            "      --profile FILE   machine profile to use (default: the saved one from 'fitcheck probe';\n"
            "                       a quick probe is run when there is none, saved unless busy)\n"
            "      --hw SPEC        plan for catalog hardware instead ('rtx-4090,rtx-4090',\n"
            "                       'apple-m4-max-40c:128', see 'fitcheck hw') or a profile FILE.json\n"
            "      --ctx N          context to plan for (default %d)\n"
            "      --runs FILE      benchmark results: 'fitcheck run --bench -o jsonl', llama-bench\n"
            "                       -o json/jsonl/csv output, or 'fitcheck plan --bench' predictions\n"
            "                       (paired with the measured test they predict); repeatable, up to %d files\n"
            "      --title TEXT     page title\n"
            "  -h, --help           this help\n"
            "\n"
            "MODEL is a GGUF file, a config.json or a catalog name ('fitcheck models');\n"
            "without one: %s, %s, %s and %s.\n"
            "Sections whose data is missing say so instead of showing numbers.\n",
            PLAN_DEFAULT_CTX, REPORT_MAX_RUN_FILES, default_models[0], default_models[1], default_models[2],
            default_models[3]);
}

typedef struct report_args {
    const char *output, *profile, *title, *hw;
    uint32_t n_ctx;
    const char *runs[REPORT_MAX_RUN_FILES];
    int n_runs;
    char **models;
    int n_models;
} report_args;

static int args_parse(int argc, char **argv, report_args *a) {
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'}, {"profile", required_argument, NULL, 'p'},
        {"runs", required_argument, NULL, 'r'},   {"title", required_argument, NULL, 't'},
        {"hw", required_argument, NULL, 'w'},     {"ctx", required_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof *a);
    a->output = REPORT_DEFAULT_PATH;
    a->n_ctx = PLAN_DEFAULT_CTX;
    optind = 1;
    int c;
    int64_t v;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': a->output = optarg; break;
        case 'p': a->profile = optarg; break;
        case 't': a->title = optarg; break;
        case 'w': a->hw = optarg; break;
        case 'c':
            if (!cli_parse_i64(optarg, 1, REPORT_CTX_MAX, &v))
                return cli_usage_error("report", "--ctx: '%s' is not a context size in 1..%d", optarg, REPORT_CTX_MAX);
            a->n_ctx = (uint32_t)v;
            break;
        case 'r':
            if (a->n_runs >= REPORT_MAX_RUN_FILES)
                return cli_usage_error("report", "at most %d --runs files", REPORT_MAX_RUN_FILES);
            a->runs[a->n_runs++] = optarg;
            break;
        case 'h': usage(stdout); return -1;
        default: return cli_usage_error("report", "unknown option");
        }
    }
    if (!a->output[0]) return cli_usage_error("report", "-o needs a file name");
    a->models = argv + optind;
    a->n_models = argc - optind;
    if (a->n_models > REP_MAX_PLANS) return cli_usage_error("report", "at most %d models", REP_MAX_PLANS);
    return FC_OK;
}

/* The machine: --profile, else the saved profile (a quick probe is run and
 * saved when there is none). */
static int profile_get(const report_args *a, probe_profile *p, fc_err *err) {
    return a->profile ? probe_profile_load(p, a->profile, err) : probe_profile_get(p, true, err);
}

/* The plans: each named model (or the defaults) on --hw or this machine,
 * the same request `fitcheck plan` makes, with the depth sweep the page draws. */
static int plans_build(const report_args *a, const probe_profile *prof, rep_plan_view *plans, int *n, fc_err *err) {
    plan_hw *hw = fc_calloc(1, sizeof *hw, err);
    plan_result *r = fc_calloc(1, sizeof *r, err);
    int rc = hw && r ? FC_OK : FC_ERUNTIME;
    if (!rc) rc = a->hw || !prof ? plan_hw_resolve(hw, a->hw, err) : plan_hw_from_profile(hw, prof, err);
    plan_request rq = {.hw = hw, .min_tps = PLAN_DEFAULT_MIN_TPS, .want = PLAN_WANT_CHOICE | PLAN_WANT_SWEEP};
    plan_params_default(&rq.params);
    rq.params.n_ctx = a->n_ctx;
    const char *const *models = a->n_models ? (const char *const *)a->models : default_models;
    int count = a->n_models ? a->n_models : (int)FC_ARRAY_LEN(default_models);
    for (*n = 0; !rc && *n < count;) {
        const char *spec = models[*n];
        rep_progress(spec, (double)*n / count);
        model_desc model;
        if ((rc = model_load(&model, spec, NULL, err))) {
            fc_err_prefix(err, "planning %s: ", spec);
            break;
        }
        rq.model = &model;
        rq.model_spec = spec;
        if ((rc = plan_make(&rq, r, err))) {
            fc_err_prefix(err, "planning %s: ", spec);
        } else {
            rep_plan_view_fill(&plans[(*n)++], r);
            plan_result_free(r);
        }
        model_desc_free(&model);
    }
    rep_progress_done();
    free(hw);
    free(r);
    return rc;
}

static int report_write(const char *path, const rep_report *r, fc_err *err) {
    fc_atomic_file af;
    int rc = fc_atomic_open(&af, path, err);
    if (rc) return rc;
    rc = rep_report_write(af.fp, r, err);
    if (rc) {
        fc_atomic_abort(&af);
        return rc;
    }
    return fc_atomic_commit(&af, err);
}

int cli_report(int argc, char **argv) {
    report_args a;
    int rc = args_parse(argc, argv, &a);
    if (rc < 0) return 0;
    if (rc) return rc;
    fc_err err = {0};
    rep_report r = {.title = a.title};
    plan_bench_record *runs = NULL;
    probe_profile *prof = fc_malloc(sizeof *prof, &err);
    rep_plan_view *plans = fc_calloc(REP_MAX_PLANS, sizeof *plans, &err);
    if (!prof || !plans) rc = err.status;
    char profile_note[FC_ERR_MSG_MAX + 64];
    if (!rc) {
        /* No profile is not fatal: the page says why and plans from /proc/meminfo. */
        fc_err perr = {0};
        if (profile_get(&a, prof, &perr) == FC_OK) {
            r.profile = prof;
        } else if (a.profile) {
            rc = perr.status;
            err = perr;
        } else {
            snprintf(profile_note, sizeof profile_note, "No machine profile could be read or measured: %s", perr.msg);
            r.profile_note = profile_note;
        }
    }
    static char runs_note[2 * FC_ERR_MSG_MAX];
    runs_note[0] = '\0';
    if (!rc) rc = plan_bench_load_files(a.runs, a.n_runs, &runs, &r.n_runs, &err);
    if (!rc) plan_bench_predict_records(runs, &r.n_runs, r.profile, NULL, runs_note, sizeof runs_note);
    r.runs = runs;
    if (runs_note[0]) r.runs_note = runs_note;
    if (!rc) rc = plans_build(&a, r.profile, plans, &r.n_plans, &err);
    r.plans = plans;
    if (!rc) rc = report_write(a.output, &r, &err);
    free(runs);
    free(plans);
    free(prof);
    if (rc) return cli_report_error("report", &err);
    fprintf(stderr, "fitcheck report: wrote %s\n", fc_safe(a.output));
    return 0;
}
