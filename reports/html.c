/* HTML text escaping: everything shown in the report passes through here, so
 * a model called "<script>" prints as text and never runs. */
#include "reports/table_impl.h"

void rep_html_escape(FILE *fp, const char *s) {
    for (const char *p = s ? s : ""; *p;) {
        switch (*p) {
        case '&': fputs("&amp;", fp); break;
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '"': fputs("&quot;", fp); break;
        case '\'': fputs("&#39;", fp); break;
        case '\n': fputc('\n', fp); break; /* our own paragraphs and <pre> commands */
        default: {
            /* Everything else follows the terminal's rule (common/fc.h):
             * controls, bidi overrides and bad UTF-8 shown, never passed. */
            char rep[FC_TEXT_REP_MAX];
            size_t used;
            fc_text_next(p, rep, &used);
            fputs(rep, fp);
            p += used;
            continue;
        }
        }
        p++;
    }
}
