/* The header of a GGUF by URL: range reads that grow until it parses.
 *
 * The first read asks for GGUF_URL_FIRST_BYTES; while the header runs past
 * the bytes held, the next read asks for as many again (bytes already held
 * are never asked for twice), up to GGUF_URL_HEADER_MAX. A model's header is
 * its metadata (the vocabulary is most of it) and tensor table, so a 40 GB
 * model costs a few MiB. Every reply must agree on the file's size. */
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

int gguf_open_url(gguf_file **out, const char *url, fc_err *err) {
    *out = NULL;
    http_conn *c;
    int rc = http_conn_open(&c, url, err);
    if (rc) return rc;
    uint8_t *buf = NULL;
    uint64_t have = 0, total = 0, want = GGUF_URL_FIRST_BYTES;
    for (;;) {
        uint8_t *nb = realloc(buf, want);
        if (!nb) {
            rc = fc_err_set(err, FC_ERUNTIME, "out of memory reading the header of %s", url);
            break;
        }
        buf = nb;
        uint64_t got = 0, t = 0;
        if ((rc = http_conn_read(c, have, want - have, buf + have, &got, &t, err))) break;
        if (have && t != total) {
            rc = fc_err_set(err, FC_EINPUT, "%s: the file's size changed from %llu to %llu bytes between two reads", url,
                            (unsigned long long)total, (unsigned long long)t);
            break;
        }
        total = t;
        have += got;
        bool short_read = false;
        gguf_file *f;
        fc_err perr = {0};
        rc = gguf_open_header(&f, buf, have, total, url, &short_read, &perr);
        if (rc == FC_OK) {
            f->heap = buf;
            *out = f;
            http_conn_close(c);
            return FC_OK;
        }
        if (!short_read) {
            *err = perr;
            break;
        }
        if (have >= GGUF_URL_HEADER_MAX) {
            rc = fc_err_set(err, FC_EINPUT, "%s: the GGUF header is larger than %u MiB (the limit read over HTTP): %s", url,
                            GGUF_URL_HEADER_MAX >> 20, perr.msg);
            break;
        }
        want = have * 2 < GGUF_URL_HEADER_MAX ? have * 2 : GGUF_URL_HEADER_MAX;
        if (want > total) want = total;
    }
    free(buf);
    http_conn_close(c);
    return rc;
}
