/* Byte-level BPE (tokenizer.ggml.model "gpt2": SmolLM2, Qwen, Llama 3).
 * The text is split into words by a pre-tokenizer (tokenizer_pretok.c),
 * each byte of a word starts as its GPT-2-mapped character token, and the
 * adjacent pair with the lowest merge rank is merged until no pair has a
 * rank. */
#include "engine/tokenizer_impl.h"

#include <stdlib.h>

typedef struct bpe_sym {
    int32_t id;   /* -1: a byte the vocabulary cannot spell (dropped, as llama.cpp does) */
    int32_t prev, next;
    bool dead;    /* merged into its left neighbour */
} bpe_sym;

typedef struct bpe_ctx {
    const eng_tokenizer *t;
    tok_out *o;
    fc_err *err;
    bpe_sym *sym;
    tok_heap heap;
} bpe_ctx;

static bool merge_find(const eng_tokenizer *t, int32_t a, int32_t b, uint32_t *rank, int32_t *id) {
    uint64_t key = ((uint64_t)(uint32_t)a << 32 | (uint32_t)b) + 1;
    uint64_t h = key;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    for (h &= t->merge_mask;; h = (h + 1) & t->merge_mask) {
        if (!t->merge_key[h]) return false;
        if (t->merge_key[h] == key) {
            *rank = t->merge_rank[h];
            *id = (int32_t)t->merge_id[h];
            return true;
        }
    }
}

static void try_pair(bpe_ctx *c, int32_t l, int32_t r) {
    uint32_t rank;
    int32_t id;
    if (l < 0 || r < 0 || !merge_find(c->t, c->sym[l].id, c->sym[r].id, &rank, &id)) return;
    /* Ranks stay below 2^24 (at most one merge per token), so the float key is exact. */
    tok_heap_push(&c->heap, (tok_pair){.key = -(float)rank, .left = (uint32_t)l, .a = (uint32_t)c->sym[l].id,
                                       .b = (uint32_t)c->sym[r].id});
}

static int encode_word(void *ctx, const char *word, size_t n) {
    bpe_ctx *c = ctx;
    bpe_sym *sym = c->sym;
    c->heap.n = 0;
    for (size_t i = 0; i < n; i++)
        sym[i] = (bpe_sym){c->t->byte_id[(uint8_t)word[i]], (int32_t)i - 1, i + 1 < n ? (int32_t)i + 1 : -1, false};
    for (size_t i = 1; i < n; i++) try_pair(c, (int32_t)i - 1, (int32_t)i);
    tok_pair p;
    while (tok_heap_pop(&c->heap, &p)) {
        bpe_sym *l = &sym[p.left];
        int32_t r = l->next;
        if (l->dead || l->id != (int32_t)p.a || r < 0 || sym[r].id != (int32_t)p.b) continue; /* stale */
        uint32_t rank;
        merge_find(c->t, l->id, sym[r].id, &rank, &l->id);
        sym[r].dead = true;
        l->next = sym[r].next;
        if (l->next >= 0) sym[l->next].prev = (int32_t)p.left;
        try_pair(c, l->prev, (int32_t)p.left);
        try_pair(c, (int32_t)p.left, l->next);
    }
    for (int32_t i = 0; n && i >= 0; i = sym[i].next) {
        int rc = sym[i].id >= 0 ? tok_out_push(c->o, sym[i].id, c->err) : FC_OK;
        if (rc) return rc;
    }
    return FC_OK;
}

int tok_bpe_encode(const eng_tokenizer *t, const char *text, size_t len, tok_out *o, fc_err *err) {
    if (len > UINT32_MAX / 3) return fc_err_set(err, FC_EINPUT, "text of %zu bytes is too long to tokenize", len);
    bpe_ctx c = {t, o, err, fc_malloc(len * sizeof *c.sym, err), {fc_malloc(3 * len * sizeof(tok_pair), err), 0, 3 * len}};
    int rc = c.sym && c.heap.v ? tok_bpe_pretokenize(t, text, len, encode_word, &c, err) : FC_ERUNTIME;
    free(c.sym);
    free(c.heap.v);
    return rc;
}
