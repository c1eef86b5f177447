/* Fuzz target: the checks on an HTTP range reply (model/http.c). The input is
 * a reply's header lines (as a server sends them, split at '\n'), fed one by
 * one the way libcurl hands them over, then checked against a request whose
 * offset, length and body bytes come from the input's first 12 bytes. */
#include "fuzz/fuzz.h"
#include "model/model.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 12) return 0;
    uint32_t off, len, got;
    memcpy(&off, data, 4);
    memcpy(&len, data + 4, 4);
    memcpy(&got, data + 8, 4);
    const char *p = (const char *)data + 12, *end = (const char *)data + size;
    http_reply r;
    http_reply_reset(&r);
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *stop = nl ? nl + 1 : end;
        http_reply_line(&r, p, (size_t)(stop - p));
        p = stop;
    }
    fc_err err = {0};
    int rc = http_reply_check(&r, off, len ? len : 1, got, "http://fuzz/x.gguf", &err);
    /* An accepted reply must describe exactly the bytes that arrived. */
    if (rc == FC_OK && (r.first != off || r.last - r.first + 1 != got || r.last >= r.total)) __builtin_trap();
    return 0;
}
