/* Terminal colour: only on a terminal, never with NO_COLOR (no-color.org:
 * set and non-empty disables it) or on a dumb terminal. */
#include "reports/table_impl.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool rep_color_enabled(FILE *fp) {
    const char *no = getenv("NO_COLOR");
    if (no && no[0]) return false;
    const char *term = getenv("TERM");
    if (term && !strcmp(term, "dumb")) return false;
    return isatty(fileno(fp));
}

/* One row per mark: terminal colour and HTML class, so both outputs agree. */
static const struct {
    const char *ansi;
    const char *css;
} mark_styles[REP_MARK_COUNT] = {
    [REP_MARK_NONE] = {"", ""},
    [REP_MARK_BEST] = {"\033[1;32m", "best"},
    [REP_MARK_GOOD] = {"\033[32m", "good"},
    [REP_MARK_WARN] = {"\033[33m", "warn"},
    [REP_MARK_BAD] = {"\033[31m", "bad"},
};

const char *rep_color_start(enum rep_mark mark) {
    return mark >= 0 && mark < REP_MARK_COUNT ? mark_styles[mark].ansi : "";
}

const char *rep_mark_class(enum rep_mark mark) {
    return mark >= 0 && mark < REP_MARK_COUNT ? mark_styles[mark].css : "";
}
