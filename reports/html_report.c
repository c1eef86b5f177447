/* The report page: one self-contained HTML file (inline CSS and SVG, no
 * script, no fonts or images fetched), readable printed and in a narrow
 * window. Sections are a table so the order and the contents list agree. */
#include "reports/html_impl.h"

#include <time.h>

static const struct {
    const char *id, *heading;
    int (*write)(FILE *fp, const rep_report *r, fc_err *err);
} sections[] = {
    {"machine", "The machine", html_machine},
    {"bandwidth", "Memory bandwidth", html_bandwidth},
    {"fit", "Memory fit per device", html_fit},
    {"quants", "Quantizations", html_quants},
    {"depth", "Speed against context depth", html_depth},
    {"accuracy", "Predicted against measured", html_accuracy},
    {"commands", "Running it with llama.cpp", html_commands},
};

/* Colours meet WCAG AA contrast on white; marks repeat in words, never colour alone. */
static const char css[] =
    ":root{--fg:#1a1a1a;--mute:#555;--line:#ccc;--best:#0b6e3d;--bestbg:#e4f5ea;--bad:#a4161a;"
    "--badbg:#fbe9e9;--warnbg:#fff4d6}\n"
    "*{box-sizing:border-box}\n"
    "body{font:16px/1.5 system-ui,-apple-system,'Segoe UI',sans-serif;color:var(--fg);margin:0 auto;"
    "max-width:62rem;padding:1rem}\n"
    "h1{font-size:1.7rem;margin:.2rem 0}h2{font-size:1.3rem;border-bottom:2px solid var(--line);"
    "padding-bottom:.2rem;margin-top:2.2rem}h3{font-size:1.05rem}\n"
    ".meta,.note{color:var(--mute)}\n"
    "nav ol{columns:2;padding-left:1.2rem}\n"
    ".skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:#fff;padding:.3rem}\n"
    ".tw{overflow-x:auto;margin:.6rem 0}\n"
    "table{border-collapse:collapse;font-variant-numeric:tabular-nums;min-width:50%}\n"
    "caption{text-align:left;font-weight:600;padding:.3rem 0}\n"
    "th,td{border-bottom:1px solid var(--line);padding:.25rem .6rem;text-align:left;vertical-align:top}\n"
    "thead th{border-bottom:2px solid var(--fg)}tbody th{min-width:9rem}\n"
    ".r{text-align:right}td.r{white-space:nowrap}\n"
    "tr.best{background:var(--bestbg);font-weight:600}tr.best th{border-left:4px solid var(--best)}\n"
    "tr.bad{background:var(--badbg)}tr.warn{background:var(--warnbg)}\n"
    "figure{margin:1rem 0}figcaption{color:var(--mute);font-size:.9rem}\n"
    /* Charts keep a legible size and scroll sideways in a very narrow window. */
    "figure{overflow-x:auto}svg.chart{width:100%;min-width:34rem;height:auto;display:block}\n"
    "svg .grid{stroke:#e3e3e3}svg .axis{stroke:#333}svg .mark{stroke:#777;stroke-dasharray:4 3}\n"
    "svg .limit{stroke:#000;stroke-width:2}svg .marklabel{fill:#444;font-size:11px}svg .val,svg .rowlabel{fill:#333;font-size:11px}\n"
    "svg text{fill:#222}\n"
    ".missing{border-left:4px solid #b26b00;background:#fff8ec;padding:.5rem .8rem}\n"
    "pre{background:#f4f4f4;padding:.6rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all}\n"
    "details{margin:.3rem 0 1rem}summary{cursor:pointer;color:var(--mute)}\n"
    "@media (max-width:40rem){body{padding:.5rem;font-size:15px}nav ol{columns:1}th,td{padding:.2rem .3rem}}\n"
    "@media print{nav,.skip{display:none}body{max-width:none;font-size:11pt}"
    "section,figure,table{break-inside:avoid}h2{break-after:avoid}"
    
    "*{-webkit-print-color-adjust:exact;print-color-adjust:exact}a{color:inherit;text-decoration:none}}\n";

void html_missing(FILE *fp, const char *what, const char *why) {
    fputs("<p class=\"missing\"><strong>", fp);
    rep_html_escape(fp, what);
    fputs("</strong> ", fp);
    rep_html_escape(fp, why);
    fputs("</p>\n", fp);
}

void html_figure_open(FILE *fp) { fputs("<figure>\n", fp); }

void html_figure_close(FILE *fp, const char *caption) {
    fputs("<figcaption>", fp);
    rep_html_escape(fp, caption);
    fputs("</figcaption>\n</figure>\n", fp);
}

int html_data_table(FILE *fp, const rep_table *t, fc_err *err) {
    fputs("<details><summary>The numbers as a table</summary>\n", fp);
    int rc = rep_table_write(t, fp, REP_FMT_HTML, err);
    fputs("</details>\n", fp);
    return rc;
}

static void header_write(FILE *fp, const rep_report *r) {
    const char *title = r->title && r->title[0] ? r->title : "fitcheck report";
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          /* The page must never reach the network or run script, even if a
           * hostile string slipped through: the browser enforces it. */
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
          "img-src data:\">\n<title>",
          fp);
    rep_html_escape(fp, title);
    fprintf(fp, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<a class=\"skip\" href=\"#main\">Skip to the report</a>\n",
            css);
    fputs("<header>\n<h1>", fp);
    rep_html_escape(fp, title);
    fputs("</h1>\n<p class=\"meta\">", fp);
    char when[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", &tm);
    fprintf(fp, "Written by fitcheck %s on %s", FITCHECK_VERSION, when);
    if (r->profile) {
        fputs(" for <strong>", fp);
        rep_html_escape(fp, r->profile->hostname);
        fputs("</strong> (machine measured ", fp);
        rep_html_escape(fp, r->profile->created);
        fputs(r->profile->quick ? ", quick probe)" : ")", fp);
    }
    fputs(".</p>\n<nav aria-label=\"Contents\"><ol>\n", fp);
    for (size_t i = 0; i < FC_ARRAY_LEN(sections); i++)
        fprintf(fp, "<li><a href=\"#%s\">%s</a></li>\n", sections[i].id, sections[i].heading);
    fputs("</ol></nav>\n</header>\n<main id=\"main\">\n", fp);
}

int rep_report_write(FILE *fp, const rep_report *r, fc_err *err) {
    header_write(fp, r);
    for (size_t i = 0; i < FC_ARRAY_LEN(sections); i++) {
        fprintf(fp, "<section id=\"%s\" aria-labelledby=\"%s-h\">\n<h2 id=\"%s-h\">%s</h2>\n", sections[i].id,
                sections[i].id, sections[i].id, sections[i].heading);
        int rc = sections[i].write(fp, r, err);
        if (rc) return rc;
        fputs("</section>\n", fp);
    }
    fputs("</main>\n<footer><p class=\"note\">Bandwidth in GB/s (10<sup>9</sup> bytes per second), capacity in GiB "
          "(2<sup>30</sup> bytes), speed in tokens per second. Predictions are fitcheck's model of the machine; "
          "measurements are marked as such. Made by <code>fitcheck report</code>.</p></footer>\n</body>\n</html>\n",
          fp);
    if (ferror(fp)) return fc_err_set(err, FC_ERUNTIME, "writing the report failed");
    return FC_OK;
}
