/* Fuzz target: the rule for untrusted text (common/text.c). Oracle: whatever
 * the bytes, the output is well-formed UTF-8 with no C0/C1 control, DEL, bidi
 * override or line separator, fits the limit, and is unchanged by a second
 * pass. The checker below decodes UTF-8 on its own, not with text.c's code.
 * Input: two bytes of max_len, then the text. */
#include "common/fc.h"
#include "fuzz/fuzz.h"

#include <stdlib.h>
#include <string.h>

/* 0 when s[0..n) is well-formed UTF-8 with no forbidden code point (tab and
 * newline allowed when lines), else the offset + 1 of the first bad one. */
static size_t first_unsafe(const unsigned char *s, size_t n, bool lines) {
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (!len || i + len > n) return i + 1;
        uint32_t cp = len == 1 ? c : c & (0x7F >> len);
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80) return i + 1;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        static const uint32_t min_of_len[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < min_of_len[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i + 1;
        bool control = cp < 0x20 || (cp >= 0x7F && cp <= 0x9F);
        if (control && !(lines && (cp == '\n' || cp == '\t'))) return i + 1;
        if (cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x2028 && cp <= 0x202E) ||
            (cp >= 0x2066 && cp <= 0x2069))
            return i + 1;
        i += len;
    }
    return 0;
}

static void fail(const char *what, const char *out) {
    fprintf(stderr, "%s: \"%s\"\n", what, out);
    abort();
}

/* The rule works character by character and cuts at FC_TEXT_MAX: text past a
 * few times that finds nothing new, and libFuzzer's 64 KiB inputs would only
 * slow each execution down (libFuzzer's executions per second fall with the input length). */
#define TEXT_FUZZ_MAX (4 * FC_TEXT_MAX)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    if (size > TEXT_FUZZ_MAX + 2) size = TEXT_FUZZ_MAX + 2;
    size_t max_len = (size_t)data[0] | (size_t)data[1] << 8;
    char *src = malloc(size - 1);
    char *out = malloc(FC_TEXT_MAX + 1), *again = malloc(FC_TEXT_MAX + 1);
    if (!src || !out || !again) goto done;
    memcpy(src, data + 2, size - 2);
    src[size - 2] = '\0';

    size_t n = fc_text_safe(out, FC_TEXT_MAX + 1, src, max_len);
    if (n != strlen(out) || n > max_len || n > FC_TEXT_MAX) fail("over the limit", out);
    if (first_unsafe((const unsigned char *)out, n, false)) fail("unsafe output", out);
    fc_text_safe(again, FC_TEXT_MAX + 1, out, max_len);
    if (strcmp(out, again)) fail("not idempotent", out);
    /* Unchanged text is copied whole when it fits: the rule never eats a safe character. */
    size_t in_len = strlen(src);
    if (!first_unsafe((const unsigned char *)src, in_len, false) && in_len <= max_len && in_len <= FC_TEXT_MAX &&
        strcmp(out, src))
        fail("safe text changed", out);

    /* fc_safe and fc_err_set: the same rule through the other doors. */
    const char *s = fc_safe(src);
    if (first_unsafe((const unsigned char *)s, strlen(s), false)) fail("fc_safe", s);
    fc_err e;
    fc_err_set(&e, FC_EINPUT, "key %s at byte %zu", src, size);
    fc_err_prefix(&e, "%s: ", src);
    if (first_unsafe((const unsigned char *)e.msg, strlen(e.msg), false)) fail("fc_err", e.msg);

    /* Multi-line text: newlines and tabs kept, nothing else. */
    char *buf = NULL;
    size_t blen = 0;
    FILE *fp = open_memstream(&buf, &blen);
    if (fp) {
        fc_text_fputs(src, fp);
        fclose(fp);
        if (first_unsafe((const unsigned char *)buf, blen, true)) fail("fc_text_fputs", buf);
        free(buf);
    }
done:
    free(src);
    free(out);
    free(again);
    return 0;
}
