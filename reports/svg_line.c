/* Line chart: bandwidth against working set (log axis, cache sizes marked),
 * against threads, tokens/s against context depth. */
#include "reports/svg_impl.h"

#include <string.h>

#define LINE_H 340.0
#define PLOT_L 64.0
#define PLOT_R (SVG_W - 16.0)
#define PLOT_T 52.0
#define PLOT_B (LINE_H - 46.0)

typedef struct line_scale {
    bool log;
    double x0, x1, ytop;
} line_scale;

static double map_x(const line_scale *s, double x) {
    double v = s->log ? log2(x) : x;
    return PLOT_L + (v - s->x0) / (s->x1 - s->x0) * (PLOT_R - PLOT_L);
}

static double map_y(const line_scale *s, double y) { return PLOT_B - y / s->ytop * (PLOT_B - PLOT_T); }

static bool point_ok(const line_scale *s, double x, double y) {
    return isfinite(x) && isfinite(y) && y >= 0 && (!s->log || x > 0);
}

static int validate(const rep_line_chart *c, fc_err *err) {
    if (!svg_id_ok(c->id)) return fc_err_set(err, FC_ERUNTIME, "chart id '%s' is not [a-z0-9-]", c->id ? c->id : "");
    if (c->n_series < 0 || c->n_series > REP_CHART_MAX_SERIES || c->n_x_marks < 0 ||
        c->n_x_marks > REP_CHART_MAX_MARKS || c->n_y_marks < 0 || c->n_y_marks > REP_CHART_MAX_MARKS)
        return fc_err_set(err, FC_ERUNTIME, "chart %s: too many series or marks", c->id);
    for (int i = 0; i < c->n_series; i++)
        if (c->series[i].n < 0 || c->series[i].n > REP_CHART_MAX_POINTS)
            return fc_err_set(err, FC_ERUNTIME, "chart %s: series %d has %d points (limit %d)", c->id, i,
                              c->series[i].n, REP_CHART_MAX_POINTS);
    return FC_OK;
}

/* Axis ranges from the data; false when there is nothing to draw. */
static bool scale_fit(const rep_line_chart *c, line_scale *s) {
    s->log = c->x_log;
    double lo = INFINITY, hi = -INFINITY, ymax = 0;
    for (int i = 0; i < c->n_series; i++)
        for (int k = 0; k < c->series[i].n; k++) {
            double x = c->series[i].x[k], y = c->series[i].y[k];
            if (!point_ok(s, x, y)) continue;
            double v = s->log ? log2(x) : x;
            lo = fmin(lo, v);
            hi = fmax(hi, v);
            ymax = fmax(ymax, y);
        }
    if (!(lo <= hi)) return false;
    for (int i = 0; i < c->n_y_marks; i++)
        if (isfinite(c->y_marks[i].v)) ymax = fmax(ymax, c->y_marks[i].v);
    if (s->log) {
        s->x0 = floor(lo);
        s->x1 = ceil(hi);
    } else {
        double ticks[SVG_MAX_TICKS];
        s->x0 = lo > 0 && lo < hi * 0.5 ? 0 : lo; /* counts start at zero unless they sit far from it */
        svg_ticks(hi, ticks, &s->x1);
        if (s->x0 != 0) s->x1 = hi;
    }
    if (s->x1 <= s->x0) s->x1 = s->x0 + 1;
    double yt[SVG_MAX_TICKS];
    svg_ticks(ymax * 1.05, yt, &s->ytop);
    return true;
}

static void x_tick(FILE *fp, const rep_line_chart *c, const line_scale *s, double x) {
    char buf[32];
    double px = map_x(s, x);
    fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>", px, PLOT_T, px, PLOT_B);
    fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", px, PLOT_B + 16,
            c->x_bytes ? rep_fmt_size(x, buf, sizeof buf) : svg_num(x, buf, sizeof buf));
}

static void axes_draw(FILE *fp, const rep_line_chart *c, const line_scale *s) {
    double ticks[SVG_MAX_TICKS], top;
    int n = svg_ticks(s->ytop, ticks, &top);
    char buf[32];
    for (int i = 0; i < n; i++) {
        double py = map_y(s, ticks[i]);
        fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>", PLOT_L, py, PLOT_R, py);
        fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", PLOT_L - 6, py + 4,
                svg_num(ticks[i], buf, sizeof buf));
    }
    if (s->log) {
        /* A tick every power of two, thinned so at most ~8 are labelled. */
        int span = (int)(s->x1 - s->x0), step = span > 8 ? (span + 7) / 8 : 1;
        for (int e = (int)s->x0; e <= (int)s->x1; e += step) x_tick(fp, c, s, ldexp(1.0, e));
    } else {
        int nx = svg_ticks(s->x1 - s->x0, ticks, &top);
        for (int i = 0; i < nx; i++)
            if (!c->x_int || s->x0 + ticks[i] == floor(s->x0 + ticks[i])) x_tick(fp, c, s, s->x0 + ticks[i]);
    }
    fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"axis\"/>", PLOT_L, PLOT_B, PLOT_R, PLOT_B);
    fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"axis\"/>\n", PLOT_L, PLOT_T, PLOT_L, PLOT_B);
    fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", (PLOT_L + PLOT_R) / 2, LINE_H - 8);
    rep_html_escape(fp, c->x_label);
    fprintf(fp, "</text>\n<text transform=\"translate(14 %.1f) rotate(-90)\" text-anchor=\"middle\">",
            (PLOT_T + PLOT_B) / 2);
    rep_html_escape(fp, c->y_label);
    fputs("</text>\n", fp);
}

static void marks_draw(FILE *fp, const rep_line_chart *c, const line_scale *s) {
    for (int i = 0; i < c->n_x_marks; i++) {
        double v = c->x_marks[i].v;
        if (!isfinite(v) || (s->log && v <= 0)) continue;
        double px = map_x(s, v);
        if (px < PLOT_L || px > PLOT_R) continue;
        fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"mark\"/>", px, PLOT_T, px, PLOT_B);
        /* Staggered so neighbouring cache levels do not overprint. */
        fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" class=\"marklabel\">", px + 3, PLOT_T + 12 + (i % 3) * 13);
        rep_html_escape(fp, c->x_marks[i].label);
        fputs("</text>\n", fp);
    }
    for (int i = 0; i < c->n_y_marks; i++) {
        double v = c->y_marks[i].v;
        if (!isfinite(v) || v < 0 || v > s->ytop) continue;
        double py = map_y(s, v);
        fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"mark\"/>", PLOT_L, py, PLOT_R, py);
        fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" class=\"marklabel\">", PLOT_R - 4, py - 4);
        rep_html_escape(fp, c->y_marks[i].label);
        fputs("</text>\n", fp);
    }
}

static void series_draw(FILE *fp, const rep_line_chart *c, const line_scale *s, int i) {
    const rep_series *se = &c->series[i];
    fprintf(fp, "<g class=\"series\" data-series=\"%d\"><polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"",
            i, svg_color(i), se->dashed ? " stroke-dasharray=\"6 4\"" : "");
    for (int k = 0; k < se->n; k++)
        if (point_ok(s, se->x[k], se->y[k])) fprintf(fp, "%.1f,%.1f ", map_x(s, se->x[k]), map_y(s, se->y[k]));
    fputs("\"/>\n", fp);
    char xb[32], yb[32];
    for (int k = 0; k < se->n; k++) {
        if (!point_ok(s, se->x[k], se->y[k])) continue;
        /* Each marked point names its values on hover, without script. */
        fprintf(fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>", map_x(s, se->x[k]),
                map_y(s, se->y[k]), svg_color(i));
        rep_html_escape(fp, se->name);
        fprintf(fp, ": %s, %s</title></circle>\n",
                c->x_bytes ? rep_fmt_size(se->x[k], xb, sizeof xb) : svg_num(se->x[k], xb, sizeof xb),
                svg_num(se->y[k], yb, sizeof yb));
    }
    fputs("</g>\n", fp);
}

int rep_svg_line(FILE *fp, const rep_line_chart *c, fc_err *err) {
    int rc = validate(c, err);
    if (rc) return rc;
    svg_open(fp, c->id, c->title, c->desc, LINE_H);
    line_scale s;
    if (!scale_fit(c, &s)) {
        fprintf(fp, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">no data</text>\n", SVG_W / 2, LINE_H / 2);
        svg_close(fp);
        return FC_OK;
    }
    const char *names[REP_CHART_MAX_SERIES];
    bool dashed[REP_CHART_MAX_SERIES];
    for (int i = 0; i < c->n_series; i++) {
        names[i] = c->series[i].name;
        dashed[i] = c->series[i].dashed;
    }
    svg_legend(fp, names, dashed, NULL, c->n_series, 18);
    axes_draw(fp, c, &s);
    marks_draw(fp, c, &s);
    for (int i = 0; i < c->n_series; i++) series_draw(fp, c, &s, i);
    svg_close(fp);
    return FC_OK;
}
