/* A synthetic vocabulary of exactly n_vocab tokens, of the kind the model
 * really uses, so the random-weight file loads and tokenizes like the real
 * one (in llama.cpp and in eng_tokenizer_load):
 *
 *  - byte-level BPE: the 256 GPT-2 byte characters, then token j made of
 *    token j/256 followed by byte character j%256 (merge "left right"), then
 *    the chat control tokens;
 *  - SentencePiece: <unk> <s> </s>, the 256 byte tokens <0xNN>, then pieces
 *    built the same way over an alphabet of "▁" and printable ASCII, scored
 *    so earlier pieces merge first, then the chat control tokens.
 *
 * Every token is built from an earlier one plus one character, so all texts
 * are distinct and every merge names tokens that exist. */
#include "gen/gen_internal.h"
#include "engine/unicode.h"

#include <stdlib.h>
#include <string.h>

static const char *const bpe_specials[] = {"<|endoftext|>", "<|im_start|>", "<|im_end|>"};
static const char *const spm_head[] = {"<unk>", "<s>", "</s>"};
/* Gemma's turn markers, and "<|endoftext|>", which llama.cpp looks up by
 * name when loading a model called Phi-3. */
static const char *const spm_specials[] = {"<start_of_turn>", "<end_of_turn>", "<|endoftext|>"};
#define SPM_ALPHA 95 /* "▁" and '!'..'~' */
#define GEN_VOCAB_MIN 512 /* room for the fixed tokens of either kind */

/* The tokenizer kind a model uses when its description does not say: the
 * Gemmas and the 32k-vocabulary Llama 2 family (Llama 2, TinyLlama,
 * Mistral 7B, Mixtral, Phi-3) are SentencePiece; everything newer is
 * byte-level BPE. */
static int vocab_kind(const model_hparams *hp) {
    if (hp->tokenizer == MODEL_TOK_SPM) return ENG_TOK_SPM;
    if (hp->tokenizer == MODEL_TOK_BPE) return ENG_TOK_BPE;
    if (!strncmp(hp->arch, "gemma", 5) || hp->n_vocab <= 32768) return ENG_TOK_SPM;
    return ENG_TOK_BPE;
}

/* dst = a sep b; via a temporary because a may live in the same table. */
static void join(char *dst, size_t cap, const char *a, const char *sep, const char *b) {
    char tmp[64];
    int n = snprintf(tmp, sizeof tmp, "%s%s%s", a, sep, b);
    size_t k = n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1; /* never truncates: slots fit every token */
    memcpy(dst, tmp, k);
    dst[k] = 0;
}

static void spm_alpha(uint32_t k, char *out) {
    if (k == 0) strcpy(out, "\xE2\x96\x81");
    else out[0] = (char)('!' + k - 1), out[1] = 0;
}

int gen_vocab_build(gen_vocab *v, const model_hparams *hp, fc_err *err) {
    memset(v, 0, sizeof *v);
    if (hp->n_vocab < GEN_VOCAB_MIN || hp->n_vocab > ENG_VOCAB_MAX)
        return fc_err_set(err, FC_EINPUT, "gen: a vocabulary of %u tokens (%u..%u supported)", hp->n_vocab,
                          GEN_VOCAB_MIN, ENG_VOCAB_MAX);
    v->kind = vocab_kind(hp);
    v->n = hp->n_vocab;
    v->text = fc_calloc(v->n, sizeof *v->text, err);
    v->ptr = fc_calloc(v->n, sizeof *v->ptr, err);
    v->types = fc_calloc(v->n, sizeof *v->types, err);
    if (!v->text || !v->ptr || !v->types) return FC_ERUNTIME;
    uint32_t n = v->n;
    if (v->kind == ENG_TOK_BPE) {
        uint32_t n_spec = FC_ARRAY_LEN(bpe_specials), first_spec = n - n_spec;
        v->n_merges = first_spec - 256;
        v->merge = fc_calloc(v->n_merges, sizeof *v->merge, err);
        v->merge_ptr = fc_calloc(v->n_merges, sizeof *v->merge_ptr, err);
        if (!v->merge || !v->merge_ptr) return FC_ERUNTIME;
        for (uint32_t b = 0; b < 256; b++) v->text[b][eng_utf8_encode(eng_byte_to_cp((uint8_t)b), v->text[b])] = 0;
        for (uint32_t j = 0; j < v->n_merges; j++) {
            uint32_t left = j / 256, right = j % 256;
            join(v->text[256 + j], sizeof v->text[0], v->text[left], "", v->text[right]);
            join(v->merge[j], sizeof v->merge[0], v->text[left], " ", v->text[right]);
            v->merge_ptr[j] = v->merge[j];
        }
        for (uint32_t i = 0; i < n; i++) v->types[i] = i < first_spec ? ENG_TT_NORMAL : ENG_TT_CONTROL;
        for (uint32_t k = 0; k < n_spec; k++) snprintf(v->text[first_spec + k], sizeof v->text[0], "%s", bpe_specials[k]);
        v->bos = v->eos = (int32_t)first_spec; /* <|endoftext|> */
    } else {
        uint32_t n_spec = FC_ARRAY_LEN(spm_specials), first_spec = n - n_spec, first_piece = 3 + 256;
        v->scores = fc_calloc(n, sizeof *v->scores, err);
        if (!v->scores) return FC_ERUNTIME;
        for (uint32_t i = 0; i < 3; i++) {
            snprintf(v->text[i], sizeof v->text[0], "%s", spm_head[i]);
            v->types[i] = i == 0 ? ENG_TT_UNKNOWN : ENG_TT_CONTROL;
        }
        for (uint32_t b = 0; b < 256; b++) {
            snprintf(v->text[3 + b], sizeof v->text[0], "<0x%02X>", b);
            v->types[3 + b] = ENG_TT_BYTE;
        }
        for (uint32_t j = 0; first_piece + j < first_spec; j++) {
            char c[4];
            spm_alpha(j % SPM_ALPHA, c);
            if (j < SPM_ALPHA) snprintf(v->text[first_piece + j], sizeof v->text[0], "%s", c);
            else join(v->text[first_piece + j], sizeof v->text[0], v->text[first_piece + j / SPM_ALPHA - 1], "", c);
            v->types[first_piece + j] = ENG_TT_NORMAL;
            v->scores[first_piece + j] = -(float)j;
        }
        for (uint32_t k = 0; k < n_spec; k++) {
            snprintf(v->text[first_spec + k], sizeof v->text[0], "%s", spm_specials[k]);
            v->types[first_spec + k] = ENG_TT_CONTROL;
        }
        v->bos = 1;
        v->eos = 2;
    }
    for (uint32_t i = 0; i < n; i++) v->ptr[i] = v->text[i];
    return FC_OK;
}

void gen_vocab_free(gen_vocab *v) {
    free(v->text);
    free(v->ptr);
    free(v->types);
    free(v->scores);
    free(v->merge);
    free(v->merge_ptr);
    memset(v, 0, sizeof *v);
}

void gen_vocab_write(const gen_vocab *v, gguf_writer *w) {
    bool spm = v->kind == ENG_TOK_SPM;
    gguf_writer_str(w, "tokenizer.ggml.model", spm ? "llama" : "gpt2");
    if (!spm) gguf_writer_str(w, "tokenizer.ggml.pre", "gpt-2"); /* llama.cpp's name for the GPT-2 pre-tokenizer */
    gguf_writer_arr_str(w, "tokenizer.ggml.tokens", v->ptr, v->n);
    if (spm) gguf_writer_arr_f32(w, "tokenizer.ggml.scores", v->scores, v->n);
    gguf_writer_arr_i32(w, "tokenizer.ggml.token_type", v->types, v->n);
    if (!spm) gguf_writer_arr_str(w, "tokenizer.ggml.merges", v->merge_ptr, v->n_merges);
    gguf_writer_u32(w, "tokenizer.ggml.bos_token_id", (uint32_t)v->bos);
    gguf_writer_u32(w, "tokenizer.ggml.eos_token_id", (uint32_t)v->eos);
    if (spm) gguf_writer_u32(w, "tokenizer.ggml.unknown_token_id", 0);
    gguf_writer_bool(w, "tokenizer.ggml.add_bos_token", spm);
}
