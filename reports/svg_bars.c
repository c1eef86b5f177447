/* Horizontal bar charts: stacked (memory per device: weights, KV cache,
 * compute, overhead, free) or grouped (predicted against measured t/s).
 * Horizontal so long labels stay readable in a narrow window. */
#include "reports/svg_impl.h"

#include <string.h>

#define BAR_LABEL_W 190.0
#define BAR_L (BAR_LABEL_W + 8)
#define BAR_R (SVG_W - 70.0)
#define BAR_TOP 40.0
#define BAR_STACK_H 22.0
#define BAR_GROUP_H 13.0
#define BAR_GAP 12.0
#define BAR_LABEL_CHARS 26

static double cell(const rep_bar_chart *c, int r, int p) {
    double v = c->v[(size_t)r * (size_t)c->n_parts + (size_t)p];
    return isfinite(v) && v > 0 ? v : 0;
}

static double row_extent(const rep_bar_chart *c, int r) {
    double sum = 0, max = 0;
    for (int p = 0; p < c->n_parts; p++) {
        sum += cell(c, r, p);
        max = fmax(max, cell(c, r, p));
    }
    double e = c->stacked ? sum : max;
    if (c->limit && isfinite(c->limit[r])) e = fmax(e, c->limit[r]);
    return e;
}

/* Row labels are cut (with an ellipsis) rather than overlapping the bars;
 * the full label stays in the <title> and in the data table. */
static void label_draw(FILE *fp, const char *label, double y) {
    char buf[BAR_LABEL_CHARS * 4 + 8];
    size_t n = 0, chars = 0;
    for (const char *p = label; *p && n < sizeof buf - 4; p++) {
        if ((*p & 0xC0) != 0x80 && ++chars > BAR_LABEL_CHARS) break;
        buf[n++] = *p;
    }
    buf[n] = '\0';
    fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" class=\"rowlabel\"><title>", BAR_LABEL_W, y);
    rep_html_escape(fp, label);
    fputs("</title>", fp);
    rep_html_escape(fp, buf);
    fputs(chars > BAR_LABEL_CHARS ? "\u2026</text>\n" : "</text>\n", fp);
}

static void rect_draw(FILE *fp, double x, double y, double w, double h, const char *color, const char *part,
                      const char *row, double v, const char *unit) {
    char nb[32];
    fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>", x, y, w, h,
            color);
    rep_html_escape(fp, row);
    fputs(", ", fp);
    rep_html_escape(fp, part);
    fprintf(fp, ": %s ", svg_num(v, nb, sizeof nb));
    rep_html_escape(fp, unit);
    fputs("</title></rect>\n", fp);
}

int rep_svg_bars(FILE *fp, const rep_bar_chart *c, fc_err *err) {
    if (!svg_id_ok(c->id)) return fc_err_set(err, FC_ERUNTIME, "chart id '%s' is not [a-z0-9-]", c->id ? c->id : "");
    if (c->n_parts <= 0 || c->n_parts > REP_CHART_MAX_SERIES || c->n_rows < 0 || c->n_rows > REP_CHART_MAX_ROWS)
        return fc_err_set(err, FC_ERUNTIME, "chart %s: %d parts, %d rows (limits %d, %d)", c->id, c->n_parts,
                          c->n_rows, REP_CHART_MAX_SERIES, REP_CHART_MAX_ROWS);
    double row_h = c->stacked ? BAR_STACK_H : BAR_GROUP_H * c->n_parts;
    double height = BAR_TOP + c->n_rows * (row_h + BAR_GAP) + 40;
    svg_open(fp, c->id, c->title, c->desc, height);
    svg_legend(fp, c->parts, NULL, c->colors, c->n_parts, 18);

    double max = 0;
    for (int r = 0; r < c->n_rows; r++) max = fmax(max, row_extent(c, r));
    double ticks[SVG_MAX_TICKS], top;
    int nt = svg_ticks(max, ticks, &top);
    double scale = (BAR_R - BAR_L) / top, bottom = height - 34;
    char nb[32];
    for (int i = 0; i < nt; i++) {
        double x = BAR_L + ticks[i] * scale;
        fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>", x, BAR_TOP - 6, x, bottom);
        fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", x, bottom + 16,
                svg_num(ticks[i], nb, sizeof nb));
    }
    fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", (BAR_L + BAR_R) / 2, height - 4);
    rep_html_escape(fp, c->unit);
    fputs("</text>\n", fp);

    for (int r = 0; r < c->n_rows; r++) {
        double y = BAR_TOP + r * (row_h + BAR_GAP), x = BAR_L;
        fprintf(fp, "<g class=\"bar\" data-row=\"%d\">\n", r);
        label_draw(fp, c->rows[r], y + (c->stacked ? row_h / 2 + 4 : BAR_GROUP_H - 2));
        for (int p = 0; p < c->n_parts; p++) {
            double v = cell(c, r, p);
            const char *color = c->colors ? c->colors[p] : svg_color(p);
            if (c->stacked) {
                if (v > 0) rect_draw(fp, x, y, v * scale, row_h, color, c->parts[p], c->rows[r], v, c->unit);
                x += v * scale;
            } else {
                double yy = y + p * BAR_GROUP_H;
                if (v > 0) rect_draw(fp, BAR_L, yy, v * scale, BAR_GROUP_H - 2, color, c->parts[p], c->rows[r], v, c->unit);
                fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" class=\"val\">%s</text>\n", BAR_L + v * scale + 4,
                        yy + BAR_GROUP_H - 3, v > 0 ? svg_num(v, nb, sizeof nb) : "n/a");
            }
        }
        if (c->stacked) {
            /* Over capacity is said in words at the bar's end, not only by the line. */
            double used = 0, lim = c->limit ? c->limit[r] : NAN;
            for (int p = 0; p < c->n_parts; p++) used += cell(c, r, p);
            char over[48] = "";
            /* A relative tolerance: parts that add up to the capacity are not "over by 7e-15". */
            if (isfinite(lim) && lim > 0 && used > lim * (1 + 1e-6)) snprintf(over, sizeof over, ", over by %.3g", used - lim);
            fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" class=\"val\">%s%s</text>\n", x + 4, y + row_h / 2 + 4,
                    svg_num(row_extent(c, r), nb, sizeof nb), over);
        }
        if (c->limit && isfinite(c->limit[r]) && c->limit[r] > 0) {
            double lx = BAR_L + c->limit[r] * scale;
            fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"limit\"/>\n", lx, y - 3, lx,
                    y + row_h + 3);
        }
        fputs("</g>\n", fp);
    }
    svg_close(fp);
    return FC_OK;
}
