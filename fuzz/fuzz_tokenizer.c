/* Fuzz target: the tokenizer (engine/tokenizer*.c), loaded from a fuzzed
 * GGUF vocabulary and run on fuzzed text.
 * Input: u16 text length (little-endian), the text, then the GGUF file
 * (seeds: tests/hostile/gguf_craft.py tokenizer). */
#include "engine/engine.h"
#include "fuzz/fuzz.h"
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

/* Detokenizes ids one by one, as `fitcheck run` streams them. */
static void detokenize(const eng_tokenizer *t, const int32_t *ids, size_t n) {
    char buf[ENG_TOKEN_MAX_BYTES + 8];
    eng_detok d;
    eng_detok_init(&d, t);
    for (size_t i = 0; i < n; i++) {
        eng_detok_push(&d, ids[i], buf, sizeof buf);
        eng_token_piece(t, ids[i], true, buf, sizeof buf);
    }
    eng_detok_flush(&d, buf, sizeof buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    size_t tlen = (size_t)data[0] | (size_t)data[1] << 8;
    if (tlen > size - 2) tlen = size - 2;
    const char *text = (const char *)data + 2;
    gguf_file *f;
    fc_err err = {0};
    if (gguf_open_buffer(&f, data + 2 + tlen, size - 2 - tlen, "fuzz", &err) != FC_OK) return 0;
    eng_tokenizer *t;
    if (eng_tokenizer_load(&t, f, &err) == FC_OK) {
        size_t cap = ENG_TOKENS_MAX(tlen), n = 0;
        int32_t *ids = malloc(cap * sizeof *ids);
        const unsigned flag_sets[] = {0, ENG_TOK_ADD_SPECIAL | ENG_TOK_PARSE_SPECIAL};
        for (size_t k = 0; ids && k < sizeof flag_sets / sizeof flag_sets[0]; k++)
            if (eng_tokenize(t, text, tlen, flag_sets[k], ids, cap, &n, &err) == FC_OK) detokenize(t, ids, n);
        (void)eng_token_find(t, text, tlen);
        free(ids);
        eng_tokenizer_free(t);
    }
    gguf_close(f);
    return 0;
}
