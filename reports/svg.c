/* SVG helpers shared by the line and bar charts. */
#include "reports/svg_impl.h"

#include <string.h>

static const char *const palette[] = {
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000",
};

const char *svg_color(int i) { return palette[(i < 0 ? 0 : i) % (int)FC_ARRAY_LEN(palette)]; }

bool svg_id_ok(const char *id) {
    if (!id || !*id || strlen(id) > 64) return false;
    for (const char *p = id; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-')) return false;
    return true;
}

void svg_open(FILE *fp, const char *id, const char *title, const char *desc, double height) {
    fprintf(fp,
            "<svg class=\"chart\" id=\"%s\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
            "aria-labelledby=\"%s-t %s-d\" xmlns=\"http://www.w3.org/2000/svg\" "
            "font-family=\"system-ui, sans-serif\" font-size=\"%.0f\">\n<title id=\"%s-t\">",
            id, SVG_W, height, id, id, SVG_FONT, id);
    rep_html_escape(fp, title);
    fprintf(fp, "</title>\n<desc id=\"%s-d\">", id);
    rep_html_escape(fp, desc);
    fputs("</desc>\n", fp);
}

void svg_close(FILE *fp) { fputs("</svg>\n", fp); }

int svg_ticks(double max, double *ticks, double *top) {
    if (!(max > 0) || !isfinite(max)) max = 1;
    double raw = max / 5, mag = pow(10, floor(log10(raw))), step = mag;
    static const double nice[] = {1, 2, 2.5, 5, 10};
    for (size_t i = 0; i < FC_ARRAY_LEN(nice); i++)
        if (nice[i] * mag >= raw) {
            step = nice[i] * mag;
            break;
        }
    int n = 0;
    while (n < SVG_MAX_TICKS) {
        double v = n * step; /* multiplied, not summed: 5 x 0.2 is exactly 1 */
        ticks[n++] = v;
        if (v >= max * 0.999) break;
    }
    *top = ticks[n - 1];
    return n;
}

const char *svg_num(double v, char *buf, size_t cap) {
    double a = fabs(v);
    if (a >= 1e6)
        snprintf(buf, cap, "%gM", round(v / 1e5) / 10);
    else if (a >= 1e4)
        snprintf(buf, cap, "%gk", round(v / 1e2) / 10);
    else if (a >= 100 || v == (double)(int64_t)v)
        snprintf(buf, cap, "%.0f", v);
    else
        snprintf(buf, cap, "%.3g", v);
    return buf;
}

double svg_legend(FILE *fp, const char *const *names, const bool *dashed, const char *const *colors, int n, double y) {
    double x = 64;
    for (int i = 0; i < n; i++) {
        /* Crude width estimate: the legend wraps before it leaves the box. */
        double w = 28 + 0.62 * SVG_FONT * (double)strlen(names[i]);
        if (x + w > SVG_W - 8 && x > 64) {
            x = 64;
            y += SVG_FONT + 6;
        }
        fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"4\"%s/>",
                x, y - 4, x + 18, y - 4, colors ? colors[i] : svg_color(i), dashed && dashed[i] ? " stroke-dasharray=\"5 3\"" : "");
        fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\">", x + 22, y);
        rep_html_escape(fp, names[i]);
        fputs("</text>\n", fp);
        x += w;
    }
    return y + SVG_FONT;
}
