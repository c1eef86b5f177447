/* The plan sections: memory fit per device, the quantization table, speed
 * against context depth, and the llama.cpp command. */
#include "reports/html_impl.h"

#include <string.h>

static const char *const mem_parts[REP_MEM_PARTS] = {
    [REP_MEM_WEIGHTS] = "weights", [REP_MEM_KV] = "KV cache", [REP_MEM_COMPUTE] = "compute buffers",
    [REP_MEM_OVERHEAD] = "overhead", [REP_MEM_FREE] = "free",
};

/* Used memory in the palette's colours; free memory pale, as empty space reads. */
static const char *const mem_colors[REP_MEM_PARTS] = {
    [REP_MEM_WEIGHTS] = "#0072B2", [REP_MEM_KV] = "#E69F00", [REP_MEM_COMPUTE] = "#009E73",
    [REP_MEM_OVERHEAD] = "#D55E00", [REP_MEM_FREE] = "#D9D9D9",
};

static const char no_plans[] = "No models were planned. Name models on the command line: fitcheck report MODEL ...";

static bool plans_missing(FILE *fp, const rep_report *r) {
    if (r->n_plans > 0) return false;
    html_missing(fp, "No plans.", r->plans_note ? r->plans_note : no_plans);
    return true;
}

static uint64_t dev_used(const rep_plan_device *d) {
    uint64_t used = 0;
    for (int p = 0; p < REP_MEM_PARTS; p++)
        if (p != REP_MEM_FREE) used += d->part[p];
    return used;
}

enum { F_MODEL, F_DEV, F_W, F_KV, F_CB, F_OH, F_FREE, F_CAP, F_FITS, F_COUNT };
static const rep_col fit_cols[F_COUNT] = {
    {NULL, "model", REP_LEFT, false},   {NULL, "device", REP_LEFT, false},  {NULL, "weights", REP_RIGHT, false},
    {NULL, "KV cache", REP_RIGHT, false}, {NULL, "compute", REP_RIGHT, false}, {NULL, "overhead", REP_RIGHT, false},
    {NULL, "free", REP_RIGHT, false},   {NULL, "capacity", REP_RIGHT, false}, {NULL, "fits", REP_LEFT, false},
};

int html_fit(FILE *fp, const rep_report *r, fc_err *err) {
    if (plans_missing(fp, r)) return FC_OK;
    int n_rows = 0;
    for (int i = 0; i < r->n_plans; i++) n_rows += r->plans[i].n_dev;
    if (n_rows == 0) {
        html_missing(fp, "No memory breakdown.", "The plans carry no per-device memory figures.");
        return FC_OK;
    }
    if (n_rows > REP_CHART_MAX_ROWS) n_rows = REP_CHART_MAX_ROWS;
    char labels[REP_CHART_MAX_ROWS][200];
    const char *rows[REP_CHART_MAX_ROWS];
    double v[REP_CHART_MAX_ROWS * REP_MEM_PARTS], limit[REP_CHART_MAX_ROWS];
    rep_table *t = rep_table_new(fit_cols, F_COUNT, "Memory per device (GiB)", err);
    if (!t) return err->status;
    int k = 0, n_over = 0;
    for (int i = 0; i < r->n_plans; i++)
        for (int d = 0; d < r->plans[i].n_dev && k < n_rows; d++, k++) {
            const rep_plan_device *dev = &r->plans[i].dev[d];
            bool fits = dev_used(dev) <= dev->capacity;
            n_over += !fits;
            snprintf(labels[k], sizeof labels[k], "%.120s, %s%s", r->plans[i].model, dev->name, fits ? "" : " (over)");
            rows[k] = labels[k];
            limit[k] = (double)dev->capacity / FC_GIB;
            rep_table_add_row(t);
            rep_row_mark(t, fits ? REP_MARK_NONE : REP_MARK_BAD);
            rep_cell_str(t, F_MODEL, r->plans[i].model);
            rep_cell_str(t, F_DEV, dev->name);
            for (int p = 0; p < REP_MEM_PARTS; p++) {
                uint64_t b = p == REP_MEM_FREE ? (fits ? dev->capacity - dev_used(dev) : 0) : dev->part[p];
                v[k * REP_MEM_PARTS + p] = (double)b / FC_GIB;
                rep_cell_gib(t, F_W + p, b);
            }
            rep_cell_gib(t, F_CAP, dev->capacity);
            rep_cell_str(t, F_FITS, fits ? "yes" : "no: over capacity");
        }
    char desc[256];
    snprintf(desc, sizeof desc,
             "%d device placement%s planned; %d over capacity. The black line on each bar is the device's usable memory.",
             k, k == 1 ? "" : "s", n_over);
    rep_bar_chart c = {
        .id = "chart-fit", .title = "Memory per device: weights, KV cache, compute buffers, overhead, free", .desc = desc,
        .unit = "GiB", .stacked = true, .parts = mem_parts, .n_parts = REP_MEM_PARTS, .rows = rows, .n_rows = k,
        .v = v, .limit = limit, .colors = mem_colors,
    };
    html_figure_open(fp);
    int rc = rep_svg_bars(fp, &c, err);
    html_figure_close(fp, desc);
    if (!rc) rc = html_data_table(fp, t, err);
    rep_table_free(t);
    return rc;
}

/* decode bound by: memory (a smaller quantization decodes faster), kernel (not one of the same kernel family),
 * fixed (per-token costs), storage (paged weights): plan_speed_decode_bound, docs/schema-plan.md */
enum { Q_NAME, Q_SIZE, Q_FITS, Q_PP, Q_TG, Q_BOUND, Q_LOSS, Q_COUNT };
static const rep_col quant_cols[Q_COUNT] = {
    {NULL, "quantization", REP_LEFT, false}, {NULL, "size", REP_RIGHT, false},
    {NULL, "runs on", REP_LEFT, false},      {NULL, "pp512 t/s (predicted)", REP_RIGHT, false},
    {NULL, "tg128 t/s (predicted)", REP_RIGHT, false}, {NULL, "decode bound by", REP_LEFT, false},
    {NULL, "quality loss", REP_RIGHT, false},
};

static int quant_table(FILE *fp, const rep_plan_view *pv, fc_err *err) {
    char caption[200];
    snprintf(caption, sizeof caption, "%.120s: quantizations at %d tokens of context", pv->model, pv->n_ctx);
    rep_table *t = rep_table_new(quant_cols, Q_COUNT, caption, err);
    if (!t) return err->status;
    for (int q = 0; q < pv->n_quants && q < REP_MAX_QUANTS; q++) {
        const rep_plan_quant *x = &pv->quants[q];
        rep_table_add_row(t);
        rep_row_mark(t, x->recommended ? REP_MARK_BEST : x->fits ? REP_MARK_NONE : REP_MARK_BAD);
        rep_cell_str(t, Q_NAME, x->name);
        rep_cell_gib(t, Q_SIZE, x->size);
        rep_cell_str(t, Q_FITS, x->where[0] ? x->where : x->fits ? "fits" : "does not fit");
        rep_cell_ts(t, Q_PP, x->pp_ts, 0);
        rep_cell_ts(t, Q_TG, x->tg_ts, 0);
        rep_cell_str(t, Q_BOUND, x->tg_bound);
        if (x->quality_loss >= 0)
            rep_cell_text(t, Q_LOSS, x->quality_loss < 1 ? "+%.2f%% perplexity" : "+%.1f%% perplexity",
                          x->quality_loss);
        else
            rep_cell_str(t, Q_LOSS, "unknown");
    }
    int rc = rep_table_write(t, fp, REP_FMT_HTML, err);
    rep_table_free(t);
    return rc;
}

int html_quants(FILE *fp, const rep_report *r, fc_err *err) {
    if (plans_missing(fp, r)) return FC_OK;
    int shown = 0;
    for (int i = 0; i < r->n_plans; i++) {
        const rep_plan_view *pv = &r->plans[i];
        if (pv->n_quants <= 0) {
            char what[200];
            snprintf(what, sizeof what, "%.120s: no quantization table.", pv->model);
            html_missing(fp, what, pv->note[0] ? pv->note : "The planner made no choice for this model.");
            continue;
        }
        int rc = quant_table(fp, pv, err);
        if (rc) return rc;
        if (pv->accuracy[0]) {
            fputs("<p class=\"note\">Accuracy: ", fp);
            rep_html_escape(fp, pv->accuracy);
            fputs(" (docs/speed-model.md).</p>\n", fp);
        }
        shown++;
    }
    if (shown)
        fputs("<p class=\"note\">The highlighted row is the planner's recommendation: the highest quality that fits "
              "wholly in the fastest memory (the reason is given with the command below). Speeds are predicted for "
              "llama.cpp, llama-bench's pp512 and tg128 with the context filled; quality loss is the perplexity "
              "increase over F16 from llama.cpp's published scoreboard.</p>\n",
              fp);
    return FC_OK;
}

/* Predicted (dashed) and measured (solid) speed against depth for one kind
 * of test: tg when gen, pp otherwise. *drawn says whether there was any. */
static int depth_chart(FILE *fp, const rep_report *r, bool gen, bool *drawn, fc_err *err) {
    *drawn = false;
    rep_series s[REP_CHART_MAX_SERIES];
    char names[REP_CHART_MAX_SERIES][160];
    double mx[REP_CHART_MAX_SERIES][REP_MAX_DEPTHS], my[REP_CHART_MAX_SERIES][REP_MAX_DEPTHS];
    int ns = 0;
    for (int i = 0; i < r->n_plans && ns < REP_CHART_MAX_SERIES; i++) {
        const rep_plan_view *pv = &r->plans[i];
        if (pv->n_depths <= 0) continue;
        snprintf(names[ns], sizeof names[ns], "%.120s %s, predicted", pv->model, pv->quant);
        s[ns] = (rep_series){names[ns], pv->depth, gen ? pv->tg_ts : pv->pp_ts, pv->n_depths, true};
        ns++;
    }
    /* Measured: one series per model, from the runs of this kind. */
    for (int i = 0; i < r->n_runs && ns < REP_CHART_MAX_SERIES; i++) {
        const plan_bench_record *b = &r->runs[i];
        if ((gen ? b->test.n_gen : b->test.n_prompt) <= 0 || (gen ? b->test.n_prompt : b->test.n_gen) > 0) continue;
        int k = 0;
        char name[160];
        snprintf(name, sizeof name, "%.120s, measured", b->model_type[0] ? b->model_type : b->model_filename);
        while (k < ns && strcmp(names[k], name)) k++;
        if (k == ns) {
            memcpy(names[ns], name, sizeof name);
            s[ns] = (rep_series){names[ns], mx[ns], my[ns], 0, false};
            ns++;
        }
        if (s[k].dashed || s[k].n >= REP_MAX_DEPTHS) continue;
        mx[k][s[k].n] = b->test.n_depth;
        my[k][s[k].n] = b->avg_ts;
        s[k].n++;
    }
    if (ns == 0) return FC_OK;
    *drawn = true;
    const char *what = gen ? "Generation" : "Prompt processing";
    char title[96], desc[256];
    snprintf(title, sizeof title, "%s speed against context depth", what);
    snprintf(desc, sizeof desc,
             "%s tokens per second as the KV cache fills: dashed lines are fitcheck's predictions, solid lines "
             "measurements. Speed falls with depth because every token reads the whole cache.",
             what);
    rep_line_chart c = {
        .id = gen ? "chart-depth-tg" : "chart-depth-pp", .title = title, .desc = desc, .x_label = "context depth (tokens)", .x_int = true,
        .y_label = "tokens/s", .series = s, .n_series = ns,
    };
    html_figure_open(fp);
    int rc = rep_svg_line(fp, &c, err);
    html_figure_close(fp, desc);
    return rc;
}

enum { D_MODEL, D_DEPTH, D_PP, D_TG, D_COUNT };
static const rep_col depth_cols[D_COUNT] = {
    {NULL, "model", REP_LEFT, false}, {NULL, "depth", REP_RIGHT, false},
    {NULL, "prefill t/s (predicted)", REP_RIGHT, false}, {NULL, "generation t/s (predicted)", REP_RIGHT, false},
};

int html_depth(FILE *fp, const rep_report *r, fc_err *err) {
    bool drawn_tg, drawn_pp;
    int rc = depth_chart(fp, r, true, &drawn_tg, err);
    if (!rc) rc = depth_chart(fp, r, false, &drawn_pp, err);
    if (rc) return rc;
    if (!drawn_tg && !drawn_pp) {
        html_missing(fp, "No speed curve.", r->n_plans ? "The plans carry no predictions by context depth, and no "
                                                         "runs were given (--runs FILE.jsonl)."
                                                       : no_plans);
        return FC_OK;
    }
    rep_table *t = rep_table_new(depth_cols, D_COUNT, "Predicted speed by context depth", err);
    if (!t) return err->status;
    for (int i = 0; i < r->n_plans; i++)
        for (int k = 0; k < r->plans[i].n_depths && k < REP_MAX_DEPTHS; k++) {
            rep_table_add_row(t);
            rep_cell_str(t, D_MODEL, r->plans[i].model);
            rep_cell_f64(t, D_DEPTH, r->plans[i].depth[k], 0);
            rep_cell_ts(t, D_PP, r->plans[i].pp_ts[k], 0);
            rep_cell_ts(t, D_TG, r->plans[i].tg_ts[k], 0);
        }
    rc = rep_table_rows(t) ? html_data_table(fp, t, err) : FC_OK;
    rep_table_free(t);
    return rc;
}

int html_commands(FILE *fp, const rep_report *r, fc_err *err) {
    (void)err;
    if (plans_missing(fp, r)) return FC_OK;
    for (int i = 0; i < r->n_plans; i++) {
        const rep_plan_view *pv = &r->plans[i];
        fputs("<h3>", fp);
        rep_html_escape(fp, pv->model);
        fputs("</h3>\n", fp);
        if (pv->note[0]) {
            fputs("<p class=\"note\">", fp);
            rep_html_escape(fp, pv->note);
            fputs("</p>\n", fp);
        }
        if (!pv->command[0]) {
            html_missing(fp, "No command.", "The plan did not produce a llama.cpp command for this model.");
            continue;
        }
        fputs("<pre><code>", fp);
        rep_html_escape(fp, pv->command);
        fputs("</code></pre>\n", fp);
        /* the notes are the requested plan's (its quantization), the command the recommendation's */
        for (int k = 0; k < pv->n_warning; k++) {
            fputs("<p class=\"note\">At ", fp);
            rep_html_escape(fp, pv->quant);
            fputs(": ", fp);
            rep_html_escape(fp, pv->warning[k]);
            fputs("</p>\n", fp);
        }
    }
    return FC_OK;
}
