/* engine/: the reference CPU inference engine.
 *
 * Runs a GGUF model through one linear forward pass (see the engine-core
 * section), turns text into tokens and back, formats chat prompts, samples
 * the next token. (Random-weight GGUF files for `fitcheck gen` are gen/'s.)
 *
 * Core side, modelled on llama2.c: plain structs for the model (weights point
 * into the mapped GGUF file, nothing is copied) and the run state (every buffer
 * and the KV cache allocated up front), one linear forward pass, no allocation
 * on the hot path. Kernels come from one table indexed by ggml type id, with a
 * scalar reference row and SIMD rows (AVX2, AVX-512 VNNI) picked at run time.
 *
 * Typical use:
 *   eng_model *m;  eng_model_open(&m, "model.gguf", &err);
 *   eng_ctx *c;    eng_ctx_new(&c, m, &params, &err);
 *   const float *logits;  eng_decode(c, tokens, n, &logits, &err);
 */
#ifndef FC_ENGINE_H
#define FC_ENGINE_H

#include "common/fc.h"
#include "model/model.h"

/* ======================================================================
 * Core side (engine-core): model, run state, forward pass, benchmark.
 * ====================================================================== */

/* ---- instruction sets ---------------------------------------------------- */

/* Each level includes the one before; avx512bf16 is avx512 plus a native BF16 dot product (vdpbf16ps) for BF16 decode. */
enum eng_isa { ENG_ISA_SCALAR = 0, ENG_ISA_AVX2, ENG_ISA_AVX512, ENG_ISA_AVX512BF16, ENG_ISA_COUNT, ENG_ISA_BEST = -1 };

/* Best instruction set this CPU supports (checked with __builtin_cpu_supports). */
int eng_isa_best(void);
const char *eng_isa_name(int isa);
/* -1 if unknown. */
int eng_isa_from_name(const char *name);
/* The instruction set a run uses: `asked`, or for ENG_ISA_BEST the one named
 * by $FITCHECK_ISA ("scalar", "avx2", "avx512", "avx512bf16") when it is set, else the
 * best this CPU has, so the AVX2 and scalar paths can be tested and timed
 * on an AVX-512 machine without changing the command. FC_EINPUT when the
 * choice is unknown or this CPU cannot run it. */
#define ENG_ISA_ENV "FITCHECK_ISA"
int eng_isa_pick(int asked, int *isa, fc_err *err);

/* ---- model ---------------------------------------------------------------- */

typedef struct eng_model eng_model;

/* Maps the file and binds every tensor the forward pass needs, checking shapes
 * and types. Unsupported architectures or tensor types: FC_EINPUT naming them.
 * Nothing is copied yet: the first eng_ctx_new copies the matrices (about the
 * file's size, while their file pages are released). */
int eng_model_open(eng_model **out, const char *path, fc_err *err);
void eng_model_close(eng_model *m);
const model_hparams *eng_model_hparams(const eng_model *m);
const gguf_file *eng_model_gguf(const eng_model *m);
uint64_t eng_model_n_params(const eng_model *m);
/* Bytes of tensor data (what llama-bench calls the model size). */
uint64_t eng_model_size(const eng_model *m);
/* llama-bench's model_type ("llama 256M Q4_1" for SmolLM2-135M; model/bench_desc.c). */
const char *eng_model_type(const eng_model *m);

/* Checks, from the header alone (nothing beyond it is read), that the engine can
 * run this file: architecture and every tensor type. */
int eng_model_check(const gguf_file *f, fc_err *err);

/* ---- run state ------------------------------------------------------------ */

/* KV cache formats (llama.cpp's -ctk/-ctv): f16, or q8_0 blocks (half the
 * bytes: decoding at depth reads the cache, so it is faster there too). */
enum eng_kv_type { ENG_KV_F16 = 0, ENG_KV_Q8_0, ENG_KV_TYPE_COUNT };
const char *eng_kv_type_name(int type);        /* "f16", "q8_0" */
int eng_kv_type_from_name(const char *name);   /* -1 if not a cache type */
uint32_t eng_kv_ggml_type(int type);           /* GGML_TYPE_F16, GGML_TYPE_Q8_0 */

#define ENG_DEFAULT_CTX 4096
#define ENG_DEFAULT_UBATCH 128
#define ENG_MAX_THREADS 256

typedef struct eng_params {
    uint32_t n_ctx;     /* KV cache positions; 0 = min(ENG_DEFAULT_CTX, training context) */
    uint32_t n_threads; /* 0 = one per physical core */
    uint32_t n_ubatch;  /* tokens per forward call in prefill; 0 = ENG_DEFAULT_UBATCH */
    int isa;            /* enum eng_isa; ENG_ISA_BEST: $FITCHECK_ISA, else the best (eng_isa_pick) */
    int type_k, type_v; /* enum eng_kv_type of the K and V caches */
} eng_params;

typedef struct eng_ctx eng_ctx;

/* Bytes eng_ctx_new allocates for these parameters: KV cache and scratch
 * buffers, so a caller can compare with free memory before committing. */
uint64_t eng_ctx_kv_bytes(const eng_model *m, const eng_params *p);
uint64_t eng_ctx_buffer_bytes(const eng_model *m, const eng_params *p);

int eng_ctx_new(eng_ctx **out, eng_model *m, const eng_params *p, fc_err *err);
void eng_ctx_free(eng_ctx *c);
/* Resolved parameters (threads, context, ISA after defaults). */
const eng_params *eng_ctx_params(const eng_ctx *c);
/* Tokens currently in the KV cache. */
uint32_t eng_ctx_pos(const eng_ctx *c);
/* Forgets cached positions >= pos (0 empties the cache). */
void eng_ctx_truncate(eng_ctx *c, uint32_t pos);

/* Runs tokens[0..n) at the next positions (batched, n_ubatch at a time) and
 * points *logits at the n_vocab logits of the last one (valid until the next
 * call). FC_EINPUT if a token id is out of range or the context is full. */
int eng_decode(eng_ctx *c, const int32_t *tokens, uint32_t n, const float **logits, fc_err *err);
/* Index of the largest logit (lowest index on ties): greedy decoding. */
int32_t eng_argmax(const float *logits, uint32_t n);

/* ---- benchmark (llama-bench style) --------------------------------------- */

#define ENG_BENCH_MAX_TESTS 16

typedef struct eng_bench_test {
    uint32_t n_prompt, n_gen, n_depth;
    uint32_t reps;
    double ts[64];             /* tokens/s per repetition */
    double avg_ts, stddev_ts;
    double avg_ns, stddev_ns;  /* per repetition */
    double read_gbs_now;       /* DRAM read bandwidth measured beside the test (mean of before and after), 0 = none */
} eng_bench_test;

typedef struct eng_bench_opts {
    uint32_t n_prompt[ENG_BENCH_MAX_TESTS];
    uint32_t n_prompt_count;
    uint32_t n_gen[ENG_BENCH_MAX_TESTS];
    uint32_t n_gen_count;
    uint32_t n_depth;
    uint32_t reps;
} eng_bench_opts;

/* Runs the tests (pp then tg, each after one warm-up run) on a context whose
 * cache is emptied (then filled to n_depth) before each repetition. */
int eng_bench_run(eng_ctx *c, const eng_bench_opts *o, eng_bench_test *tests, uint32_t *n_tests, fc_err *err);

/* The tests as llama-bench records (planner/planner.h's type, dated now):
 * planner/ predicts them, reports/ writes every format from them. */
struct plan_bench_record;
void eng_bench_records(struct plan_bench_record *recs, const eng_model *m, const eng_params *p,
                       const eng_bench_test *tests, uint32_t n);


/* ======================================================================
 * Text side (engine-text): tokenizer, chat template, sampler.
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

/* ====================================================================== */

#endif
