/* reports/: renders results — terminal tables, progress, JSON/CSV/Markdown in
 * llama-bench's style, and the self-contained HTML report. */
#ifndef FC_REPORTS_H
#define FC_REPORTS_H

#include "common/fc.h"

/* Progress bar with the current step on stderr; draws only when stderr is a
 * terminal. frac in [0, 1]; rep_progress_done() clears the line. */
void rep_progress(const char *step, double frac);
void rep_progress_done(void);

#endif
