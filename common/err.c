#include "common/fc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int fc_err_set(fc_err *err, int status, const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->status = status;
    }
    return status;
}

int fc_err_prefix(fc_err *err, const char *fmt, ...) {
    if (!err) return FC_ERUNTIME;
    char head[FC_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(head, sizeof head, fmt, ap);
    va_end(ap);
    /* Shift the old message right to make room; truncate what no longer fits. */
    size_t h = strlen(head), o = strlen(err->msg);
    if (h >= sizeof err->msg) h = sizeof err->msg - 1;
    if (h + o >= sizeof err->msg) o = sizeof err->msg - 1 - h;
    memmove(err->msg + h, err->msg, o);
    memcpy(err->msg, head, h);
    err->msg[h + o] = '\0';
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
