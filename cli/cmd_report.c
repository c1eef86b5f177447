/* fitcheck report: one self-contained HTML file from the machine profile,
 * the plans of some models and any saved benchmark runs. */
#include "cli/cli.h"
#include "reports/reports.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define REPORT_MAX_RUN_FILES 16
#define REPORT_DEFAULT_PATH "report.html"

static void usage(FILE *out) {
    fprintf(out,
            "usage: fitcheck report [-o FILE.html] [--profile FILE.json] [--runs FILE.jsonl]... [MODEL ...]\n"
            "\n"
            "Writes one self-contained HTML page (inline CSS and SVG charts, no script, no network):\n"
            "the machine (measured beside theoretical), bandwidth against working set and threads,\n"
            "memory fit per device, the quantization table, speed against context depth,\n"
            "predicted against measured, and the llama.cpp command for each model.\n"
            "\n"
            "  -o, --output FILE    where to write (default " REPORT_DEFAULT_PATH "); written atomically\n"
            "      --profile FILE   machine profile to use (default: the saved one from 'fitcheck probe')\n"
            "      --runs FILE      benchmark results: 'fitcheck run --bench -o jsonl' or llama-bench\n"
            "                       -o json/jsonl output (repeatable, up to %d files)\n"
            "      --title TEXT     page title\n"
            "  -h, --help           this help\n"
            "\n"
            "MODEL is a GGUF file, a config.json or a catalog name ('fitcheck models').\n"
            "Sections whose data is missing say so instead of showing numbers.\n",
            REPORT_MAX_RUN_FILES);
}

typedef struct report_args {
    const char *output, *profile, *title;
    const char *runs[REPORT_MAX_RUN_FILES];
    int n_runs;
    char **models;
    int n_models;
} report_args;

static int args_parse(int argc, char **argv, report_args *a) {
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'}, {"profile", required_argument, NULL, 'p'},
        {"runs", required_argument, NULL, 'r'},   {"title", required_argument, NULL, 't'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof *a);
    a->output = REPORT_DEFAULT_PATH;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': a->output = optarg; break;
        case 'p': a->profile = optarg; break;
        case 't': a->title = optarg; break;
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
    return FC_OK;
}

/* All --runs files into one list; the first bad file stops the report. */
static int runs_load(const report_args *a, rep_bench_row **rows, int *n, fc_err *err) {
    *rows = NULL;
    *n = 0;
    for (int i = 0; i < a->n_runs; i++) {
        rep_bench_row *part;
        int np;
        int rc = rep_bench_load(a->runs[i], &part, &np, err);
        if (rc) return rc;
        if (*n + np > REP_BENCH_MAX_ROWS) {
            free(part);
            return fc_err_set(err, FC_EINPUT, "more than %d benchmark records in the --runs files", REP_BENCH_MAX_ROWS);
        }
        rep_bench_row *all = realloc(*rows, (size_t)(*n + np) * sizeof *all);
        if (!all) {
            free(part);
            return fc_err_set(err, FC_ERUNTIME, "out of memory reading %s", a->runs[i]);
        }
        memcpy(all + *n, part, (size_t)np * sizeof *part);
        free(part);
        *rows = all;
        *n += np;
    }
    return FC_OK;
}

int cli_report(int argc, char **argv) {
    report_args a;
    int rc = args_parse(argc, argv, &a);
    if (rc < 0) return 0;
    if (rc) return rc;
    fc_err err = {0};
    rep_report r = {.title = a.title};
    rep_bench_row *runs = NULL;
    int n_runs = 0;
    rc = runs_load(&a, &runs, &n_runs, &err);
    if (rc) {
        free(runs);
        return cli_report_error("report", &err);
    }
    r.runs = runs;
    r.n_runs = n_runs;
    r.profile_note = "This build has no machine probe yet (issue #3), so nothing about this machine was measured.";
    r.plans_note = "This build has no planner yet (issue #4), so no model was planned.";

    fc_atomic_file af;
    rc = fc_atomic_open(&af, a.output, &err);
    if (!rc) {
        rc = rep_report_write(af.fp, &r, &err);
        if (rc)
            fc_atomic_abort(&af);
        else
            rc = fc_atomic_commit(&af, &err);
    }
    free(runs);
    if (rc) return cli_report_error("report", &err);
    fprintf(stderr, "fitcheck report: wrote %s\n", a.output);
    return 0;
}
