/* engine-private: the tokenizer's tables, shared by tokenizer.c (loading,
 * lookup, special tokens, decoding), tokenizer_spm.c and tokenizer_bpe.c. */
#ifndef FC_ENGINE_TOKENIZER_IMPL_H
#define FC_ENGINE_TOKENIZER_IMPL_H

#include "engine/engine.h"

enum eng_pre_kind { PRE_GPT2 = 0, PRE_LLAMA3 };

struct eng_tokenizer {
    int kind;                 /* enum eng_tok_kind */
    uint32_t n_vocab;
    char *arena;              /* all token texts, back to back */
    uint64_t *off;            /* text of id i: arena + off[i], len[i] bytes */
    uint32_t *len;
    float *scores;            /* SPM merge priorities (NULL for BPE) */
    uint8_t *types;           /* enum eng_tok_type */
    uint32_t *index;          /* open-addressing hash: text -> id + 1, 0 = empty */
    uint64_t index_mask;
    /* BPE merges: (left id, right id) -> rank, merged id */
    uint64_t *merge_key;      /* (left << 32 | right) + 1, 0 = empty */
    uint32_t *merge_rank, *merge_id;
    uint64_t merge_mask;
    uint32_t *special_lens;   /* distinct lengths of control/user-defined/unknown tokens, longest first */
    uint32_t n_special_lens;
    /* Cheap filters for plain text: some special token starts with this byte,
     * is this one byte, or starts with this byte pair (bit b0 << 8 | b1). */
    bool special_first[256], special_single[256];
    uint8_t special_pair[65536 / 8];
    int32_t byte_id[256];     /* SPM: "<0xNN>"; BPE: the byte's mapped character; -1 if absent */
    int pre;                  /* enum eng_pre_kind */
    uint32_t digits_max;      /* longest digit run one pre-token takes (0 = unlimited) */
    bool isolate_digits;      /* every digit is its own pre-token (smollm) */
    int32_t bos, eos, eot, unk;
    bool add_bos, add_eos, add_space_prefix;
};

/* Growing-only output with a hard capacity. */
typedef struct tok_out {
    int32_t *ids;
    size_t n, cap;
} tok_out;

int tok_out_push(tok_out *o, int32_t id, fc_err *err);

/* Encoders for one stretch of text holding no special tokens. */
int tok_spm_encode(const eng_tokenizer *t, const char *text, size_t len, bool space_prefix, tok_out *o, fc_err *err);
int tok_bpe_encode(const eng_tokenizer *t, const char *text, size_t len, tok_out *o, fc_err *err);
/* BPE pre-tokenizer: splits text into words; calls emit for each. */
int tok_bpe_pretokenize(const eng_tokenizer *t, const char *text, size_t len,
                        int (*emit)(void *ctx, const char *word, size_t n), void *ctx, fc_err *err);

/* Merge queue shared by both encoders: the entry with the highest key wins,
 * ties go to the leftmost pair (what SentencePiece and llama.cpp do). */
typedef struct tok_pair {
    float key;       /* SPM: token score; BPE: -rank */
    uint32_t left;   /* symbol index of the pair's left side */
    uint32_t a, b;   /* what the pair was built from, to detect stale entries */
} tok_pair;

typedef struct tok_heap {
    tok_pair *v;
    size_t n, cap;
} tok_heap;

void tok_heap_push(tok_heap *h, tok_pair p); /* cap is sized by the caller: never grows */
bool tok_heap_pop(tok_heap *h, tok_pair *out);

#endif
