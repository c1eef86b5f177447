/* Shared pieces of the SVG charts (internal to reports/). */
#ifndef FC_REPORTS_SVG_IMPL_H
#define FC_REPORTS_SVG_IMPL_H

#include "reports/table_impl.h"

/* Drawing box in viewBox units; the SVG scales to the page width. */
#define SVG_W 720.0
#define SVG_FONT 12.0
#define SVG_MAX_TICKS 12

/* Okabe-Ito palette: distinguishable with the common colour-vision deficiencies. */
const char *svg_color(int i);
/* Opens <svg> with role=img, <title> and <desc> (the text alternative). */
void svg_open(FILE *fp, const char *id, const char *title, const char *desc, double height);
void svg_close(FILE *fp);
/* "Nice" tick values (1, 2, 5 x 10^k) covering [0, max]; returns the count
 * and sets *top to the last tick. */
int svg_ticks(double max, double *ticks, double *top);
/* A number for an axis or label: "1.5k", "320", "0.25". */
const char *svg_num(double v, char *buf, size_t cap);
/* Checks an id is safe to use in attributes and fragment links. */
bool svg_id_ok(const char *id);
/* Legend row at (x, y) with coloured swatches; returns the height used. */
double svg_legend(FILE *fp, const char *const *names, const bool *dashed, const char *const *colors, int n, double y);

#endif
