/* Fuzz target: a GGUF header read in pieces (model/gguf.c's gguf_open_header,
 * as gguf_url.c calls it). The first 4 bytes say how many of the rest are
 * "read so far" and 4 more how large the whole file claims to be; a short
 * read must say so, and more bytes must never make an accepted header fail. */
#include "fuzz/fuzz.h"
#include "model/model.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 8) return 0;
    uint32_t cut, extra;
    memcpy(&cut, data, 4);
    memcpy(&extra, data + 4, 4);
    const uint8_t *buf = data + 8;
    uint64_t n = size - 8, avail = n ? cut % (n + 1) : 0, total = n + extra;
    gguf_file *f = NULL;
    bool short_read = false;
    fc_err err = {0};
    int rc = gguf_open_header(&f, buf, avail, total, "fuzz", &short_read, &err);
    if (rc == FC_OK) {
        model_desc d;
        if (model_desc_from_gguf(&d, f, &err) == FC_OK) model_desc_free(&d);
        for (uint64_t i = 0; i < f->n_tensors; i++)
            if (f->tensors[i].data && avail != total) __builtin_trap(); /* no data behind a header */
        gguf_close(f);
        /* The whole buffer holds at least as much: it must parse too. */
        rc = gguf_open_header(&f, buf, n, total, "fuzz", &short_read, &err);
        if (rc != FC_OK) __builtin_trap();
        gguf_close(f);
    } else if (short_read && avail == total) {
        __builtin_trap(); /* nothing more to read */
    }
    return 0;
}
