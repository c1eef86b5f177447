/* BPE pre-tokenizers: the regular expressions of GPT-2 and Llama 3 written
 * out by hand (as llama.cpp's unicode.cpp does), so no regex library is
 * needed. Each splits text into words that BPE then encodes separately.
 *
 *   gpt2:   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
 *   llama3: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
 *           ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
 *
 * Variants from the table in tokenizer.c: qwen2 is llama3 with single
 * digits; smollm is gpt2 after first splitting every digit off on its own. */
#include "engine/tokenizer_impl.h"
#include "engine/unicode.h"

#include <stdlib.h>

#define UC_NONE (-1) /* past the end of the chunk */

typedef struct pre_ctx {
    const uint32_t *cp;
    const size_t *off; /* byte offset of each codepoint, off[n] = len */
    size_t end;        /* end of the current chunk (codepoint index) */
    const char *text;
    int (*emit)(void *ctx, const char *word, size_t n);
    void *ctx;
} pre_ctx;

static int cls(const pre_ctx *p, size_t i) { return i < p->end ? eng_uc_class(p->cp[i]) : UC_NONE; }
static uint32_t cp_at(const pre_ctx *p, size_t i) { return i < p->end ? p->cp[i] : 0; }
static bool is_crlf(uint32_t c) { return c == '\r' || c == '\n'; }
static uint32_t ascii_lower(uint32_t c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* Length of a contraction ('s 't 're 've 'm 'll 'd) at i, 0 if none. */
static size_t contraction(const pre_ctx *p, size_t i, bool fold_case) {
    if (cp_at(p, i) != '\'') return 0;
    uint32_t a = cp_at(p, i + 1), b = cp_at(p, i + 2);
    if (fold_case) a = ascii_lower(a), b = ascii_lower(b);
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
    if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
    return 0;
}

static size_t run_of(const pre_ctx *p, size_t i, int c) {
    while (cls(p, i) == c) i++;
    return i;
}

/* The whitespace alternatives shared by both expressions; returns the end. */
static size_t whitespace(const pre_ctx *p, size_t i, bool newline_rule) {
    size_t n = 0, last_nl = 0;
    while (cls(p, i + n) == UC_SPACE) {
        if (is_crlf(cp_at(p, i + n))) last_nl = i + n + 1;
        n++;
    }
    if (newline_rule && last_nl) return last_nl;       /* \s*[\r\n]+ */
    if (n > 1 && i + n < p->end) return i + n - 1;    /* \s+(?!\S): leave one space for the next word */
    return n ? i + n : i + 1;                          /* \s+, or a lone unmatched character */
}

static size_t next_gpt2(const pre_ctx *p, size_t i) {
    size_t k = contraction(p, i, false);
    if (k) return i + k;
    uint32_t c = cp_at(p, i);
    int c2 = c == ' ' ? cls(p, i + 1) : cls(p, i);
    if (c2 == UC_LETTER || c2 == UC_NUMBER || c2 == UC_OTHER) return run_of(p, i + (c == ' '), c2);
    return whitespace(p, i, false);
}

static size_t next_llama3(const pre_ctx *p, size_t i, uint32_t digits_max) {
    size_t k = contraction(p, i, true);
    if (k) return i + k;
    uint32_t c = cp_at(p, i);
    int ci = cls(p, i);
    if (!is_crlf(c) && ci != UC_NUMBER && (ci == UC_LETTER || cls(p, i + 1) == UC_LETTER))
        return run_of(p, i + 1, UC_LETTER);
    if (ci == UC_NUMBER) {
        size_t j = i;
        while (cls(p, j) == UC_NUMBER && (!digits_max || j - i < digits_max)) j++;
        return j;
    }
    int c2 = c == ' ' ? cls(p, i + 1) : ci;
    if (c2 == UC_OTHER) {
        size_t j = run_of(p, i + (c == ' '), UC_OTHER);
        while (j < p->end && is_crlf(p->cp[j])) j++;
        return j;
    }
    return whitespace(p, i, true);
}

static int split_chunk(const eng_tokenizer *t, pre_ctx *p, size_t i, size_t end) {
    p->end = end;
    while (i < end) {
        size_t j = t->pre == PRE_LLAMA3 ? next_llama3(p, i, t->digits_max) : next_gpt2(p, i);
        int rc = p->emit(p->ctx, p->text + p->off[i], p->off[j] - p->off[i]);
        if (rc) return rc;
        i = j;
    }
    return FC_OK;
}

int tok_bpe_pretokenize(const eng_tokenizer *t, const char *text, size_t len,
                        int (*emit)(void *ctx, const char *word, size_t n), void *ctx, fc_err *err) {
    uint32_t *cp = fc_malloc((len + 1) * sizeof *cp, err);
    size_t *off = fc_malloc((len + 1) * sizeof *off, err);
    int rc = cp && off ? FC_OK : FC_ERUNTIME;
    size_t n = 0;
    for (size_t i = 0; !rc && i < len; n++) {
        off[n] = i;
        i += eng_utf8_decode(text + i, len - i, &cp[n]);
    }
    if (!rc) off[n] = len;
    pre_ctx p = {cp, off, 0, text, emit, ctx};
    size_t start = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        if (!t->isolate_digits || eng_uc_class(cp[i]) != UC_NUMBER) continue;
        rc = split_chunk(t, &p, start, i);
        if (!rc) rc = split_chunk(t, &p, i, i + 1);
        start = i + 1;
    }
    if (!rc) rc = split_chunk(t, &p, start, n);
    free(cp);
    free(off);
    return rc;
}
