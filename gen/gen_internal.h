/* Internal to gen/: its parts (gen.c writes the file, gen_vocab.c makes the
 * synthetic tokenizer, gen_fill.c the random blocks). */
#ifndef FC_GEN_INTERNAL_H
#define FC_GEN_INTERNAL_H

#include "engine/engine.h" /* enum eng_tok_kind: the tokenizer kinds gen_vocab writes */
#include "gen/gen.h"

/* A synthetic vocabulary that llama.cpp and eng_tokenizer_load accept. */
typedef struct gen_vocab {
    int kind;              /* enum eng_tok_kind */
    uint32_t n;
    char (*text)[16];      /* n fixed-size slots: every synthetic token fits */
    const char **ptr;      /* text[i], for gguf_writer_arr_str */
    int32_t *types;
    float *scores;         /* SPM only */
    char (*merge)[32];     /* BPE only: n_merges "left right" strings */
    const char **merge_ptr;
    uint32_t n_merges;
    int32_t bos, eos;
} gen_vocab;

int gen_vocab_build(gen_vocab *v, const model_hparams *hp, fc_err *err);
void gen_vocab_free(gen_vocab *v);
/* Adds the tokenizer.ggml.* keys. */
void gen_vocab_write(const gen_vocab *v, gguf_writer *w);

/* A small, fast PRNG (splitmix64) for the weights. */
typedef struct gen_rng {
    uint64_t s;
} gen_rng;

/* Fills a whole tensor: random blocks with sane scales, or N(0, 0.02)-like
 * floats, norms 1, biases 0. FC_EINPUT for a type gen cannot fill. */
int gen_fill_tensor(const model_tensor *t, gen_rng *rng, void *buf, uint64_t bytes, fc_err *err);

#endif
