/* The report's sections (internal to reports/). Each writes one <section>
 * and says plainly what is missing when its data is absent. */
#ifndef FC_REPORTS_HTML_IMPL_H
#define FC_REPORTS_HTML_IMPL_H

#include "reports/svg_impl.h"

int html_machine(FILE *fp, const rep_report *r, fc_err *err);
int html_bandwidth(FILE *fp, const rep_report *r, fc_err *err);
int html_fit(FILE *fp, const rep_report *r, fc_err *err);
int html_quants(FILE *fp, const rep_report *r, fc_err *err);
int html_depth(FILE *fp, const rep_report *r, fc_err *err);
int html_accuracy(FILE *fp, const rep_report *r, fc_err *err);
int html_commands(FILE *fp, const rep_report *r, fc_err *err);

/* "<p class="missing">What is missing. Why.</p>" */
void html_missing(FILE *fp, const char *what, const char *why);
/* Opens a <figure> around a chart; the caption repeats its finding. */
void html_figure_open(FILE *fp);
void html_figure_close(FILE *fp, const char *caption);
/* A <details> holding the chart's numbers as a real table. */
int html_data_table(FILE *fp, const rep_table *t, fc_err *err);

#endif
