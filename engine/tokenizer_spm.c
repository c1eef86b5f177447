/* SentencePiece-style encoding (tokenizer.ggml.model "llama": Llama 2,
 * Gemma). Spaces become "▁", the text is split into characters, and the
 * adjacent pair whose concatenation is the highest-scoring token is merged
 * until no pair forms a token. Characters that never became a token are
 * spelled with the byte tokens "<0xNN>". Same order as llama.cpp's
 * llm_tokenizer_spm, so the ids match. */
#include "engine/tokenizer_impl.h"
#include "engine/unicode.h"

#include <stdlib.h>
#include <string.h>

static const char spm_space[] = "\xE2\x96\x81"; /* U+2581 "▁" */
#define SPM_SPACE_LEN 3

typedef struct spm_sym {
    uint32_t start, len; /* bytes in the escaped text; len 0 = merged away */
    int32_t prev, next;
} spm_sym;

typedef struct spm_ctx {
    const eng_tokenizer *t;
    const char *text;
    spm_sym *sym;
    tok_heap heap;
} spm_ctx;

static void try_pair(spm_ctx *c, int32_t l, int32_t r) {
    if (l < 0 || r < 0) return;
    uint32_t size = c->sym[l].len + c->sym[r].len;
    int32_t id = eng_token_find(c->t, c->text + c->sym[l].start, size);
    if (id < 0) return;
    tok_heap_push(&c->heap, (tok_pair){.key = c->t->scores[id], .left = (uint32_t)l, .a = size, .b = (uint32_t)r});
}

int tok_spm_encode(const eng_tokenizer *t, const char *text, size_t len, bool space_prefix, tok_out *o, fc_err *err) {
    if (len > (UINT32_MAX - SPM_SPACE_LEN) / SPM_SPACE_LEN)
        return fc_err_set(err, FC_EINPUT, "text of %zu bytes is too long to tokenize", len);
    size_t cap = len * SPM_SPACE_LEN + SPM_SPACE_LEN;
    char *buf = fc_malloc(cap, err);
    spm_sym *sym = fc_malloc(cap * sizeof *sym, err);
    tok_pair *pairs = fc_malloc(3 * cap * sizeof *pairs, err); /* n-1 pairs, then at most 2 per merge */
    int rc = buf && sym && pairs ? FC_OK : FC_ERUNTIME;
    size_t n = 0;
    if (!rc && space_prefix) {
        memcpy(buf, spm_space, SPM_SPACE_LEN);
        n = SPM_SPACE_LEN;
    }
    for (size_t i = 0; !rc && i < len; i++) {
        if (text[i] == ' ') {
            memcpy(buf + n, spm_space, SPM_SPACE_LEN);
            n += SPM_SPACE_LEN;
        } else {
            buf[n++] = text[i];
        }
    }
    spm_ctx c = {t, buf, sym, {pairs, 0, 3 * cap}};
    int32_t n_sym = 0;
    for (size_t i = 0; !rc && i < n; n_sym++) {
        uint32_t cp;
        size_t k = eng_utf8_decode(buf + i, n - i, &cp);
        sym[n_sym] = (spm_sym){(uint32_t)i, (uint32_t)k, n_sym - 1, -1};
        if (n_sym > 0) sym[n_sym - 1].next = n_sym;
        i += k;
    }
    for (int32_t i = 1; !rc && i < n_sym; i++) try_pair(&c, i - 1, i);
    tok_pair p;
    while (!rc && tok_heap_pop(&c.heap, &p)) {
        spm_sym *l = &sym[p.left];
        int32_t r = l->next;
        /* Stale: one side has merged since the pair was queued. */
        if (r != (int32_t)p.b || !l->len || !sym[r].len || l->len + sym[r].len != p.a) continue;
        l->len += sym[r].len;
        sym[r].len = 0;
        l->next = sym[r].next;
        if (l->next >= 0) sym[l->next].prev = (int32_t)p.left;
        try_pair(&c, l->prev, (int32_t)p.left);
        try_pair(&c, (int32_t)p.left, l->next);
    }
    for (int32_t i = n_sym ? 0 : -1; !rc && i >= 0; i = sym[i].next) {
        int32_t id = eng_token_find(t, buf + sym[i].start, sym[i].len);
        if (id >= 0) {
            rc = tok_out_push(o, id, err);
            continue;
        }
        for (uint32_t k = 0; !rc && k < sym[i].len; k++) { /* byte fallback */
            int32_t b = t->byte_id[(uint8_t)buf[sym[i].start + k]];
            rc = tok_out_push(o, b >= 0 ? b : (t->unk >= 0 ? t->unk : 0), err);
        }
    }
    free(buf);
    free(sym);
    free(pairs);
    return rc;
}
