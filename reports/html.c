/* HTML text escaping: everything shown in the report passes through here, so
 * a model called "<script>" prints as text and never runs. */
#include "reports/table_impl.h"

void rep_html_escape(FILE *fp, const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", fp); break;
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '"': fputs("&quot;", fp); break;
        case '\'': fputs("&#39;", fp); break;
        default:
            /* Control characters are not allowed in HTML text; tab and newline are. */
            if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f)
                fputc('?', fp);
            else
                fputc(*p, fp);
        }
    }
}
