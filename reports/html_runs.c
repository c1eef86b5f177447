/* Predicted against measured: runs (fitcheck run --bench, or llama-bench
 * files imported with --runs) beside the prediction recorded with them. */
#include "reports/html_impl.h"

#include <string.h>

static const char *const pm_parts[] = {"predicted", "measured"};

int html_accuracy(FILE *fp, const rep_report *r, fc_err *err) {
    if (r->n_runs <= 0) {
        html_missing(fp, "No measurements.",
                     r->runs_note ? r->runs_note
                                  : "Measure with 'fitcheck run --bench MODEL.gguf -o jsonl > runs.jsonl' (or llama-bench "
                                    "-o jsonl) and pass --runs runs.jsonl.");
        return FC_OK;
    }
    if (r->runs_note) {
        fputs("<p class=\"note\">", fp);
        rep_html_escape(fp, r->runs_note);
        fputs("</p>\n", fp);
    }
    char labels[REP_CHART_MAX_ROWS][200];
    const char *rows[REP_CHART_MAX_ROWS];
    double v[REP_CHART_MAX_ROWS * 2], abs_err = 0;
    int k = 0;
    for (int i = 0; i < r->n_runs && k < REP_CHART_MAX_ROWS; i++) {
        const plan_bench_record *b = &r->runs[i];
        if (!(b->predicted_ts > 0)) continue;
        char test[PLAN_BENCH_NAME_MAX];
        /* The test first: when the label is cut, the model name goes, not the test. */
        snprintf(labels[k], sizeof labels[k], "%s, %.120s", plan_bench_test_name(&b->test, test, sizeof test),
                 b->model_type[0] ? b->model_type : b->model_filename);
        rows[k] = labels[k];
        v[2 * k] = b->predicted_ts;
        v[2 * k + 1] = b->avg_ts;
        abs_err += fabs(b->predicted_ts - b->avg_ts) / b->avg_ts;
        k++;
    }
    if (k > 0) {
        char desc[256];
        snprintf(desc, sizeof desc,
                 "Over %d test%s the prediction is off by %.0f%% on average (mean absolute error, relative to the "
                 "measurement).",
                 k, k == 1 ? "" : "s", 100 * abs_err / k);
        rep_bar_chart c = {
            .id = "chart-accuracy", .title = "Predicted against measured tokens per second", .desc = desc, .unit = "t/s",
            .parts = pm_parts, .n_parts = 2, .rows = rows, .n_rows = k, .v = v,
        };
        html_figure_open(fp);
        int rc = rep_svg_bars(fp, &c, err);
        html_figure_close(fp, desc);
        if (rc) return rc;
    } else {
        html_missing(fp, "No predictions with these runs.",
                     "The runs carry no predicted_ts; runs from 'fitcheck run --bench' record one. The measurements "
                     "follow.");
    }
    rep_table *t = rep_bench_table(r->runs, r->n_runs, err);
    if (!t) return err->status;
    int rc = rep_table_write(t, fp, REP_FMT_HTML, err);
    rep_table_free(t);
    return rc;
}
