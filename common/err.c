#include "common/fc.h"

#include <errno.h>
#include <stdlib.h>

int fc_err_set(fc_err *err, int status, const char *fmt, ...) {
    if (err) {
        /* Messages quote what a file said (a key name, a value): made safe
         * here, once, for every place a message is shown (common/fc.h). */
        char raw[2 * FC_ERR_MSG_MAX]; /* room to see that a message runs long: it gets the ellipsis */
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(raw, sizeof raw, fmt, ap);
        va_end(ap);
        fc_text_safe(err->msg, sizeof err->msg, raw, sizeof err->msg - 1);
        err->status = status;
    }
    return status;
}

int fc_err_prefix(fc_err *err, const char *fmt, ...) {
    if (!err) return FC_ERUNTIME;
    char raw[2 * FC_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    int h = vsnprintf(raw, FC_ERR_MSG_MAX, fmt, ap);
    va_end(ap);
    if (h < 0) h = 0;
    if (h > FC_ERR_MSG_MAX - 1) h = FC_ERR_MSG_MAX - 1;
    /* The prefix names a file or a key as often as the message does: the
     * whole goes through the rule again (the old part is unchanged by it). */
    snprintf(raw + h, sizeof raw - (size_t)h, "%s", err->msg);
    fc_text_safe(err->msg, sizeof err->msg, raw, sizeof err->msg - 1);
    return err->status;
}

void fc_err_clear(fc_err *err) {
    if (err) {
        err->status = FC_OK;
        err->msg[0] = '\0';
    }
}

void *fc_malloc(size_t n, fc_err *err) {
    void *p = malloc(n ? n : 1);
    if (!p) fc_err_set(err, FC_ERUNTIME, "out of memory allocating %zu bytes", n);
    return p;
}

void *fc_calloc(size_t count, size_t size, fc_err *err) {
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) fc_err_set(err, FC_ERUNTIME, "out of memory allocating %zu x %zu bytes", count, size);
    return p;
}
