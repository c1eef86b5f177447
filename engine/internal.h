/* Internal to engine/: the model and run-state structs (llama2.c style: plain
 * data, everything sized up front), the thread pool, shared helpers. */
#ifndef FC_ENGINE_INTERNAL_H
#define FC_ENGINE_INTERNAL_H

#include "engine/quant.h"

/* ---- thread pool (threadpool.c) ------------------------------------------- */

typedef struct eng_pool eng_pool;
/* fn(arg, ith, nth) runs on every thread; ith 0 is the caller. */
typedef void (*eng_task_fn)(void *arg, int ith, int nth);

int eng_pool_new(eng_pool **out, int n_threads, fc_err *err);
void eng_pool_free(eng_pool *p);
void eng_pool_run(eng_pool *p, eng_task_fn fn, void *arg);
int eng_pool_n(const eng_pool *p);
int eng_default_threads(void);
/* Thread ith's share [lo, hi) of n items. */
void eng_split(int64_t n, int ith, int nth, int64_t *lo, int64_t *hi);
/* The same in whole tiles of `tile` items (the last one may be partial). */
void eng_split_tiles(int64_t n, int64_t tile, int ith, int nth, int64_t *lo, int64_t *hi);

/* ---- model (weights.c) ------------------------------------------------------ */

/* What differs between the supported architectures, one row per architecture
 * (weights.c). Q/K norms, biases and experts are found from the tensors present. */
/* The gate activation of the FFN: SiLU, GELU(tanh) (Gemma), or gpt-oss's
 * clamped SwiGLU (ggml_swiglu_oai). */
enum eng_glu { ENG_GLU_SILU, ENG_GLU_GELU, ENG_GLU_SWIGLU_OAI };

typedef struct eng_arch {
    const char *name;
    int glu;               /* enum eng_glu */
    bool post_norms;       /* extra RMSNorm on the attention and FFN outputs (Gemma 3) */
    bool embd_scale;       /* embeddings multiplied by sqrt(n_embd) (Gemma) */
    const char *ffn_norm;  /* the norm before the FFN: gpt-oss calls it post_attention_norm */
} eng_arch;

/* A weight matrix {n_in, n_out[, n_expert]}: row o of expert e starts at
 * data + (e * n_out + o) * row_bytes (in the mapped file, then in the model's
 * copy). When the type has a packed layout (quant.h) the engine reads the
 * packed copy instead: group (e * n_out + o) / 8 at packed + group * group_bytes. */
typedef struct eng_mat {
    const uint8_t *data;
    uint32_t type;
    int64_t n_in, n_out, n_expert;
    size_t row_bytes;
    const uint8_t *packed;  /* NULL: row-major, read from data */
    size_t group_bytes;
} eng_mat;

typedef struct eng_layer {
    const float *attn_norm, *attn_post_norm, *ffn_norm, *ffn_post_norm;
    const float *q_norm, *k_norm;  /* per head, NULL when absent */
    const float *bq, *bk, *bv, *bo; /* NULL when absent */
    const float *sinks;            /* per query head (gpt-oss), or NULL */
    eng_mat wq, wk, wv, wo;
    eng_mat ffn_gate, ffn_up, ffn_down;              /* dense FFN */
    eng_mat gate_inp, gate_exps, up_exps, down_exps; /* mixture of experts */
    /* biases of the router [n_expert] and of each expert's rows
     * ([n_expert][n_ff] for gate and up, [n_expert][n_embd] for down): gpt-oss */
    const float *gate_inp_b, *gate_exps_b, *up_exps_b, *down_exps_b;
    bool moe, swa;
    float rope_base;
} eng_layer;

struct eng_model {
    gguf_file *gguf;
    model_hparams hp;
    const eng_arch *arch;
    eng_mat tok_embd, output;
    const float *output_norm;
    const float *rope_freqs;       /* per-dimension RoPE divisors (Llama 3), or NULL */
    eng_layer *layers;
    uint32_t q_dim, kv_dim_max, ff_max;
    float attn_scale, embd_scale, rope_freq_scale;
    /* YaRN (gpt-oss): rope_ext 1 mixes interpolated and extrapolated angles
     * between the correction dimensions yarn_dims, and scales cos and sin by
     * rope_mscale; rope_ext 0 is plain (linear) RoPE scaling */
    float rope_ext, rope_mscale, yarn_dims[2];
    uint64_t n_params, size;
    void *weights_map;             /* the copied matrices (one anonymous mapping) */
    size_t weights_map_bytes;
    char type_desc[128];
};

/* Copies the matrices into the engine's own memory (packed where the type has
 * a packed layout) once; eng_ctx_new calls it, after a caller could compare
 * the memory a run needs with what is available. */
int eng_model_copy_weights(eng_model *m, fc_err *err);

/* ---- run state (run_state.c, forward.c) ---------------------------------- */


struct eng_ctx {
    eng_model *m;
    eng_params p;
    const eng_kernels *k;
    eng_pool *pool;
    uint32_t pos;
    /* KV cache, head-major within a layer: the key of KV head h at position t
     * of layer il is at k_cache + il * n_ctx * k_row + (h * n_ctx + t) * k_head
     * bytes, head_dim_k values in the cache type (eng_params type_k); v likewise.
     * A head's keys are contiguous, so decoding at depth streams them; a
     * position-major row would put each head's 128 bytes a row apart, which
     * the hardware prefetchers do not follow across pages. */
    uint8_t *k_cache, *v_cache;
    size_t k_row, v_row;           /* one position of all heads: a layer is n_ctx of them */
    size_t k_head, v_head;         /* one position of one head */
    uint32_t kv_dim;               /* widest layer's n_head_kv * head_dim */
    /* activations for up to n_ubatch tokens, row-major [token][dim] */
    float *x, *xb, *xb2, *q, *kk, *vv, *hb, *hb2, *tmp;
    void *actq;                    /* quantized activations */
    float *att;                    /* attention scores, n_ctx per thread */
    float *rope_cs;                /* [token][2 bases][n_rot/2][cos, sin] */
    float *router;                 /* [token][n_expert] */
    /* MoE: each token's chosen experts and weights ([token][n_expert_used]),
     * and the tokens routed to one expert (moe_tok[j]) with their rows
     * gathered (moe_in, moe_out: [j][n_embd]) */
    uint32_t *moe_sel, *moe_tok;
    float *moe_w, *moe_in, *moe_out;
    float *logits;
};

#endif
