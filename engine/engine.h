/* engine/: a reference CPU inference engine for GGUF models.
 *
 * Modelled on llama2.c: plain structs for the model (weights point into the
 * mapped GGUF file, nothing is copied) and the run state (every buffer and the
 * KV cache allocated up front), one linear forward pass, no allocation on the
 * hot path. Kernels come from one table indexed by ggml type id, with a scalar
 * reference row and SIMD rows (AVX2, AVX-512 VNNI) picked at run time.
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

/* ---- instruction sets ---------------------------------------------------- */

enum eng_isa { ENG_ISA_SCALAR = 0, ENG_ISA_AVX2, ENG_ISA_AVX512, ENG_ISA_COUNT, ENG_ISA_BEST = -1 };

/* Best instruction set this CPU supports (checked with __builtin_cpu_supports). */
int eng_isa_best(void);
const char *eng_isa_name(int isa);
/* -1 if unknown. */
int eng_isa_from_name(const char *name);

/* ---- model ---------------------------------------------------------------- */

typedef struct eng_model eng_model;

/* Maps the file and binds every tensor the forward pass needs, checking shapes
 * and types. Unsupported architectures or tensor types: FC_EINPUT naming them. */
int eng_model_open(eng_model **out, const char *path, fc_err *err);
void eng_model_close(eng_model *m);
const model_hparams *eng_model_hparams(const eng_model *m);
const gguf_file *eng_model_gguf(const eng_model *m);
uint64_t eng_model_n_params(const eng_model *m);
/* Bytes of tensor data (what llama-bench calls the model size). */
uint64_t eng_model_size(const eng_model *m);
/* "llama 135M Q4_1"-style description like llama-bench's model_type. */
const char *eng_model_type(const eng_model *m);

/* Checks, from the header alone (nothing beyond it is read), that the engine can
 * run this file: architecture and every tensor type. */
int eng_model_check(const gguf_file *f, fc_err *err);

/* ---- run state ------------------------------------------------------------ */

enum eng_kv_type { ENG_KV_F16 = 0 };

#define ENG_DEFAULT_CTX 4096
#define ENG_DEFAULT_UBATCH 128
#define ENG_MAX_THREADS 256

typedef struct eng_params {
    uint32_t n_ctx;     /* KV cache positions; 0 = min(ENG_DEFAULT_CTX, training context) */
    uint32_t n_threads; /* 0 = one per physical core */
    uint32_t n_ubatch;  /* tokens per forward call in prefill; 0 = ENG_DEFAULT_UBATCH */
    int isa;            /* enum eng_isa; ENG_ISA_BEST picks the best this CPU has */
    int kv_type;        /* enum eng_kv_type */
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
    double predicted_ts;       /* planner's prediction, 0 when unavailable */
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

#endif
