/* engine/: the reference CPU inference engine.
 *
 * Runs a GGUF model through one linear forward pass (see the engine-core
 * section), turns text into tokens and back, formats chat prompts, samples
 * the next token, and writes random-weight GGUF files with a catalog
 * model's exact shapes (`fitcheck gen`).
 */
#ifndef FC_ENGINE_H
#define FC_ENGINE_H

#include "common/fc.h"
#include "model/model.h"

/* ======================================================================
 * Text side (engine-text): tokenizer, chat template, sampler, gen.
 * ====================================================================== */

/* ---- tokenizer ----------------------------------------------------------
 * Built from the GGUF's tokenizer.ggml.* metadata: SentencePiece-style
 * ("llama": score-ordered merges, byte fallback, "▁" for spaces) and
 * byte-level BPE ("gpt2": GPT-2 byte map, ranked merges, a pre-tokenizer
 * chosen by tokenizer.ggml.pre). Everything is validated on load: a hostile
 * vocabulary is refused with FC_EINPUT, and memory is bounded by it. */

#define ENG_VOCAB_MAX (1u << 24)      /* far beyond any real vocabulary (262144 for Gemma 3) */
#define ENG_TOKEN_MAX_BYTES 4096      /* longest token text accepted */

enum eng_tok_kind { ENG_TOK_SPM = 1, ENG_TOK_BPE = 2 };

/* Token types as llama.cpp stores them in tokenizer.ggml.token_type. */
enum eng_tok_type {
    ENG_TT_UNDEFINED = 0, ENG_TT_NORMAL = 1, ENG_TT_UNKNOWN = 2, ENG_TT_CONTROL = 3,
    ENG_TT_USER_DEFINED = 4, ENG_TT_UNUSED = 5, ENG_TT_BYTE = 6, ENG_TT_COUNT = 7,
};

/* Flags for eng_tokenize. */
#define ENG_TOK_ADD_SPECIAL 1u   /* add BOS (and EOS) where the model's metadata asks for them */
#define ENG_TOK_PARSE_SPECIAL 2u /* match control tokens written in the text, e.g. "<|im_start|>" */

/* An output array of ENG_TOKENS_MAX(len) ids always suffices for len bytes. */
#define ENG_TOKENS_MAX(len) ((len) + 4)

typedef struct eng_tokenizer eng_tokenizer;

int eng_tokenizer_load(eng_tokenizer **out, const gguf_file *f, fc_err *err);
void eng_tokenizer_free(eng_tokenizer *t);

int eng_tokenizer_kind(const eng_tokenizer *t);
uint32_t eng_tokenizer_n_vocab(const eng_tokenizer *t);
int32_t eng_tokenizer_bos(const eng_tokenizer *t); /* -1 when the model has none */
int32_t eng_tokenizer_eos(const eng_tokenizer *t);
/* End of generation: EOS, EOT, or a turn-closing control token. */
bool eng_token_is_eog(const eng_tokenizer *t, int32_t id);
/* Id of a token with exactly this text, -1 if none. */
int32_t eng_token_find(const eng_tokenizer *t, const char *text, size_t len);

/* Encodes len bytes of text into out[0..cap); *n_out tokens. FC_EINPUT if
 * cap is too small (ENG_TOKENS_MAX(len) never is). */
int eng_tokenize(const eng_tokenizer *t, const char *text, size_t len, unsigned flags, int32_t *out, size_t cap,
                 size_t *n_out, fc_err *err);

/* The bytes of one token (control tokens only when `special`); returns the
 * length, which may exceed cap (the copy is truncated). */
size_t eng_token_piece(const eng_tokenizer *t, int32_t id, bool special, char *buf, size_t cap);

/* Streaming decoder: holds back an incomplete UTF-8 sequence split across
 * tokens so each push emits only whole characters. */
typedef struct eng_detok {
    const eng_tokenizer *t;
    char pend[4];
    uint32_t n_pend;
    bool started; /* a piece has been emitted (SPM drops the first space prefix) */
} eng_detok;

void eng_detok_init(eng_detok *d, const eng_tokenizer *t);
/* Appends the text of token id to out (cap bytes, NUL-terminated); returns
 * the bytes written. cap >= ENG_TOKEN_MAX_BYTES + 8 never truncates. */
size_t eng_detok_push(eng_detok *d, int32_t id, char *out, size_t cap);
/* Emits whatever is held back (an incomplete sequence, as raw bytes). */
size_t eng_detok_flush(eng_detok *d, char *out, size_t cap);

/* ---- chat template ------------------------------------------------------
 * No Jinja engine: the family is recognised from tokenizer.chat_template
 * (or the architecture when the file has no template) and a single user
 * turn plus the generation prompt is formatted by a table of strings. */

enum eng_chat_kind { ENG_CHAT_NONE = 0, ENG_CHAT_CHATML, ENG_CHAT_GEMMA, ENG_CHAT_LLAMA3, ENG_CHAT_LLAMA2 };

#define ENG_CHAT_SYSTEM_MAX 1024 /* longest default system prompt taken from a template */

int eng_chat_detect(const char *tmpl, const char *arch);
const char *eng_chat_name(int kind);
/* Formats the prompt into a malloc'd string (*out). The BOS token is not
 * included: the tokenizer adds it. tmpl may be NULL. */
int eng_chat_format(const char *tmpl, const char *arch, const char *user, char **out, fc_err *err);

/* ---- sampler ------------------------------------------------------------
 * Greedy when temp <= 0 (or top_k == 1); otherwise temperature, top-k and
 * top-p (nucleus) over a softmax, drawn with our own PRNG (PCG32) so a seed
 * gives the same tokens on every machine. Buffers are sized once for the
 * vocabulary: sampling allocates nothing. */

typedef struct eng_sampler_params {
    float temp;     /* 0 = greedy */
    uint32_t top_k; /* 0 = off */
    float top_p;    /* 1 = off */
    uint64_t seed;
} eng_sampler_params;

typedef struct eng_sampler eng_sampler;

int eng_sampler_new(eng_sampler **out, uint32_t n_vocab, const eng_sampler_params *p, fc_err *err);
void eng_sampler_free(eng_sampler *s);
int32_t eng_sampler_sample(eng_sampler *s, const float *logits);

/* ---- gen: random-weight GGUF files ------------------------------------- */

typedef struct eng_gen_opts {
    uint64_t seed;
    const char *name; /* general.name */
    /* Called before each tensor with its name and the fraction written so
     * far (rep_progress fits); may be NULL. */
    void (*progress)(const char *step, double frac);
} eng_gen_opts;

/* Writes a GGUF with d's exact tensor table (names, shapes, types) filled
 * with random but valid blocks, the hyperparameters llama.cpp needs and a
 * synthetic tokenizer of d->hp.n_vocab tokens. Atomic: on failure or Ctrl-C
 * no file is left behind. Refuses (FC_ERUNTIME) when the disk lacks room. */
int eng_gen_write(const model_desc *d, const char *path, const eng_gen_opts *o, fc_err *err);
/* Exact size of the file eng_gen_write would produce. */
int eng_gen_file_size(const model_desc *d, const eng_gen_opts *o, uint64_t *bytes, fc_err *err);

/* ====================================================================== */

#endif
