#include "reports/reports.h"

#include <unistd.h>

/* Width of the bar in characters; the whole line stays under 80 columns. */
#define BAR_WIDTH 30

void rep_progress(const char *step, double frac) {
    if (!isatty(STDERR_FILENO)) return;
    if (frac < 0) frac = 0;
    if (frac > 1) frac = 1;
    int filled = (int)(frac * BAR_WIDTH + 0.5);
    fprintf(stderr, "\r[");
    for (int i = 0; i < BAR_WIDTH; i++) fputc(i < filled ? '#' : '.', stderr);
    fprintf(stderr, "] %3d%% %-38.38s", (int)(frac * 100 + 0.5), fc_safe(step)); /* a file name: common/fc.h */
    fflush(stderr);
}

void rep_progress_done(void) {
    if (!isatty(STDERR_FILENO)) return;
    fprintf(stderr, "\r%*s\r", BAR_WIDTH + 46, "");
    fflush(stderr);
}
