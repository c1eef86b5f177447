/* A model's GGUF before it exists: the tensor table llama.cpp's converter
 * (convert_hf_to_gguf.py) writes for an architecture, and the type
 * llama-quantize gives each tensor (llama_tensor_get_type in
 * src/llama-quant.cpp), so the predicted file size matches the real file.
 *
 * The rules below follow llama.cpp's order of precedence exactly; where they
 * depend on a counter (the n-th attn_v tensor) the counter equals the layer
 * index because llama.cpp visits tensors sorted by layer. */
#include "model/model.h"

#include <string.h>
#include <strings.h>

/* llama_ftype ids (llama.h); only those named in the table are used. */
enum {
    FT_F32 = 0, FT_F16 = 1, FT_Q4_0 = 2, FT_Q4_1 = 3, FT_Q8_0 = 7, FT_Q5_0 = 8, FT_Q5_1 = 9, FT_Q2_K = 10,
    FT_Q3_K_S = 11, FT_Q3_K_M = 12, FT_Q3_K_L = 13, FT_Q4_K_S = 14, FT_Q4_K_M = 15, FT_Q5_K_S = 16, FT_Q5_K_M = 17,
    FT_Q6_K = 18, FT_IQ2_XXS = 19, FT_IQ2_XS = 20, FT_Q2_K_S = 21, FT_IQ3_XS = 22, FT_IQ3_XXS = 23, FT_IQ1_S = 24,
    FT_IQ4_NL = 25, FT_IQ3_S = 26, FT_IQ3_M = 27, FT_IQ2_S = 28, FT_IQ2_M = 29, FT_IQ4_XS = 30, FT_IQ1_M = 31,
    FT_BF16 = 32, FT_MXFP4_MOE = 38,
};

/* name, llama_ftype, base ggml type, made with an importance matrix, and
 * llama-bench's name (llama_ftype_name, src/llama-model-loader.cpp). The
 * IQ types require an importance matrix (llama-quantize refuses without);
 * published K-quant files are assumed plain, which only changes Q4_0/Q5_0
 * ffn_down rules. */
static const model_ftype_info ftypes[] = {
    {"F32", FT_F32, GGML_TYPE_F32, false, "all F32"},
    {"F16", FT_F16, GGML_TYPE_F16, false, "F16"},
    {"BF16", FT_BF16, GGML_TYPE_BF16, false, "BF16"},
    {"Q8_0", FT_Q8_0, GGML_TYPE_Q8_0, false, "Q8_0"},
    {"Q6_K", FT_Q6_K, GGML_TYPE_Q6_K, false, "Q6_K"},
    {"Q5_K_M", FT_Q5_K_M, GGML_TYPE_Q5_K, false, "Q5_K - Medium"},
    {"Q5_K_S", FT_Q5_K_S, GGML_TYPE_Q5_K, false, "Q5_K - Small"},
    {"Q5_1", FT_Q5_1, GGML_TYPE_Q5_1, false, "Q5_1"},
    {"Q5_0", FT_Q5_0, GGML_TYPE_Q5_0, false, "Q5_0"},
    {"Q4_K_M", FT_Q4_K_M, GGML_TYPE_Q4_K, false, "Q4_K - Medium"},
    {"Q4_K_S", FT_Q4_K_S, GGML_TYPE_Q4_K, false, "Q4_K - Small"},
    {"Q4_1", FT_Q4_1, GGML_TYPE_Q4_1, false, "Q4_1"},
    {"Q4_0", FT_Q4_0, GGML_TYPE_Q4_0, false, "Q4_0"},
    {"IQ4_XS", FT_IQ4_XS, GGML_TYPE_IQ4_XS, true, "IQ4_XS - 4.25 bpw"},
    {"IQ4_NL", FT_IQ4_NL, GGML_TYPE_IQ4_NL, true, "IQ4_NL - 4.5 bpw"},
    {"MXFP4_MOE", FT_MXFP4_MOE, GGML_TYPE_MXFP4, false, "MXFP4 MoE"},
    {"Q3_K_L", FT_Q3_K_L, GGML_TYPE_Q3_K, false, "Q3_K - Large"},
    {"Q3_K_M", FT_Q3_K_M, GGML_TYPE_Q3_K, false, "Q3_K - Medium"},
    {"Q3_K_S", FT_Q3_K_S, GGML_TYPE_Q3_K, false, "Q3_K - Small"},
    {"IQ3_M", FT_IQ3_M, GGML_TYPE_IQ3_S, true, "IQ3_S mix - 3.66 bpw"},
    {"IQ3_S", FT_IQ3_S, GGML_TYPE_IQ3_S, true, "IQ3_S - 3.4375 bpw"},
    {"IQ3_XS", FT_IQ3_XS, GGML_TYPE_IQ3_S, true, "IQ3_XS - 3.3 bpw"},
    {"IQ3_XXS", FT_IQ3_XXS, GGML_TYPE_IQ3_XXS, true, "IQ3_XXS - 3.0625 bpw"},
    {"Q2_K", FT_Q2_K, GGML_TYPE_Q2_K, false, "Q2_K - Medium"},
    {"Q2_K_S", FT_Q2_K_S, GGML_TYPE_Q2_K, true, "Q2_K - Small"},
    {"IQ2_M", FT_IQ2_M, GGML_TYPE_IQ2_S, true, "IQ2_M - 2.7 bpw"},
    {"IQ2_S", FT_IQ2_S, GGML_TYPE_IQ2_XS, true, "IQ2_S - 2.5 bpw"},
    {"IQ2_XS", FT_IQ2_XS, GGML_TYPE_IQ2_XS, true, "IQ2_XS - 2.3125 bpw"},
    {"IQ2_XXS", FT_IQ2_XXS, GGML_TYPE_IQ2_XXS, true, "IQ2_XXS - 2.0625 bpw"},
    {"IQ1_M", FT_IQ1_M, GGML_TYPE_IQ1_M, true, "IQ1_M - 1.75 bpw"},
    {"IQ1_S", FT_IQ1_S, GGML_TYPE_IQ1_S, true, "IQ1_S - 1.5625 bpw"},
};

const model_ftype_info *model_ftype_at(size_t i) { return i < FC_ARRAY_LEN(ftypes) ? &ftypes[i] : NULL; }

const model_ftype_info *model_ftype_find(const char *name) {
    if (!name) return NULL;
    if (!strcasecmp(name, "MXFP4")) name = "MXFP4_MOE"; /* how gpt-oss files are usually called */
    for (size_t i = 0; i < FC_ARRAY_LEN(ftypes); i++)
        if (!strcasecmp(ftypes[i].name, name)) return &ftypes[i];
    return NULL;
}

const model_ftype_info *model_ftype_by_id(uint32_t id) {
    for (size_t i = 0; i < FC_ARRAY_LEN(ftypes); i++)
        if (ftypes[i].id == id) return &ftypes[i];
    return NULL;
}

const char *model_native_quant(const model_hparams *hp) {
    return !strcmp(hp->arch, "gpt-oss") ? "MXFP4_MOE" : NULL;
}

/* ---- the converter's tensor table -------------------------------------- */

/* How each architecture lays out a block. */
enum attn_kind { ATTN_SEPARATE, ATTN_FUSED_QKV, ATTN_MLA };
enum bias_kind { BIAS_NONE, BIAS_QKV, BIAS_ALL };

static const struct mix_arch {
    const char *arch;
    int attn;           /* enum attn_kind */
    int bias;           /* enum bias_kind when the model has attention biases */
    bool post_norms;    /* Gemma: norms after attention and FFN too */
    bool fused_gate_up; /* Phi-3: ffn_up holds gate and up */
    bool sinks;         /* gpt-oss: per-head attention sinks, expert biases */
    bool ffn_norm;      /* a norm before the FFN ("ffn_norm" or gpt-oss's post_attention_norm) */
} mix_archs[] = {
    {"llama", ATTN_SEPARATE, BIAS_ALL, false, false, false, true},
    {"qwen2", ATTN_SEPARATE, BIAS_QKV, false, false, false, true},
    {"qwen2moe", ATTN_SEPARATE, BIAS_QKV, false, false, false, true},
    {"qwen3", ATTN_SEPARATE, BIAS_QKV, false, false, false, true},
    {"qwen3moe", ATTN_SEPARATE, BIAS_QKV, false, false, false, true},
    {"gemma2", ATTN_SEPARATE, BIAS_NONE, true, false, false, true},
    {"gemma3", ATTN_SEPARATE, BIAS_NONE, true, false, false, true},
    {"phi3", ATTN_FUSED_QKV, BIAS_NONE, false, true, false, true},
    {"deepseek2", ATTN_MLA, BIAS_NONE, false, false, false, true},
    {"gpt-oss", ATTN_SEPARATE, BIAS_ALL, false, false, true, true},
};

#define MIX_MAX_PER_LAYER 32 /* tensors per block; gpt-oss has 19 */
#define MIX_GLOBAL_TENSORS 4 /* token_embd, output_norm, output, spare */
/* Metadata bytes per vocabulary entry (token string + length + score + type,
 * and a BPE merge): measured ~25-35 on Llama 3 and Qwen files. */
#define MIX_META_BYTES_PER_TOKEN 30
#define MIX_META_BYTES_PER_TENSOR 96
#define MIX_ALIGN 32

typedef struct mix_builder {
    model_desc *d;
    uint32_t cap;
    fc_err *err;
    int rc;
} mix_builder;

static void add(mix_builder *b, int32_t layer, const char *suffix, int64_t ne0, int64_t ne1, int64_t ne2) {
    if (b->rc) return;
    if (b->d->n_tensors >= b->cap) {
        b->rc = fc_err_set(b->err, FC_ERUNTIME, "tensor table overflow at %s", suffix);
        return;
    }
    model_tensor *t = &b->d->tensors[b->d->n_tensors++];
    if (layer >= 0) snprintf(t->name, sizeof t->name, "blk.%d.%s", layer, suffix);
    else snprintf(t->name, sizeof t->name, "%s", suffix);
    t->ne[0] = ne0, t->ne[1] = ne1 ? ne1 : 1, t->ne[2] = ne2 ? ne2 : 1, t->ne[3] = 1;
    t->n_dims = ne2 ? 3 : ne1 ? 2 : 1;
    int32_t parsed;
    t->role = model_tensor_role(t->name, &parsed);
    t->layer = layer;
}

static void add_attention(mix_builder *b, const model_hparams *hp, const struct mix_arch *a, int32_t il) {
    int64_t e = hp->n_embd, q = (int64_t)hp->n_head * hp->head_dim_k, kv = (int64_t)hp->n_head_kv[il] * hp->head_dim_k;
    int64_t v = (int64_t)hp->n_head_kv[il] * hp->head_dim_v, o = (int64_t)hp->n_head * hp->head_dim_v;
    add(b, il, "attn_norm.weight", e, 0, 0);
    if (a->attn == ATTN_MLA) {
        if (hp->q_lora_rank) {
            add(b, il, "attn_q_a_norm.weight", hp->q_lora_rank, 0, 0);
            add(b, il, "attn_q_a.weight", e, hp->q_lora_rank, 0);
            add(b, il, "attn_q_b.weight", hp->q_lora_rank, q, 0);
        } else {
            add(b, il, "attn_q.weight", e, q, 0);
        }
        add(b, il, "attn_kv_a_norm.weight", hp->kv_lora_rank, 0, 0);
        add(b, il, "attn_kv_a_mqa.weight", e, (int64_t)hp->kv_lora_rank + hp->n_rot, 0);
        add(b, il, "attn_kv_b.weight", hp->kv_lora_rank,
            (int64_t)hp->n_head * (hp->head_dim_k - hp->n_rot + hp->head_dim_v), 0);
    } else if (a->attn == ATTN_FUSED_QKV) {
        add(b, il, "attn_qkv.weight", e, q + kv + v, 0);
    } else {
        add(b, il, "attn_q.weight", e, q, 0);
        add(b, il, "attn_k.weight", e, kv, 0);
        add(b, il, "attn_v.weight", e, v, 0);
        if (hp->attn_bias && a->bias != BIAS_NONE) {
            add(b, il, "attn_q.bias", q, 0, 0);
            add(b, il, "attn_k.bias", kv, 0, 0);
            add(b, il, "attn_v.bias", v, 0, 0);
        }
    }
    if (hp->qk_norm) {
        add(b, il, "attn_q_norm.weight", hp->head_dim_k, 0, 0);
        add(b, il, "attn_k_norm.weight", hp->head_dim_k, 0, 0);
    }
    add(b, il, "attn_output.weight", o, e, 0);
    if (hp->attn_bias && a->bias == BIAS_ALL) add(b, il, "attn_output.bias", e, 0, 0);
    if (a->sinks) add(b, il, "attn_sinks.weight", hp->n_head, 0, 0);
    if (a->post_norms) add(b, il, "post_attention_norm.weight", e, 0, 0);
}

static void add_ffn(mix_builder *b, const model_hparams *hp, const struct mix_arch *a, int32_t il) {
    int64_t e = hp->n_embd, ff = hp->n_ff[il], fe = hp->n_ff_exp, ne = hp->n_expert;
    if (a->ffn_norm) add(b, il, a->sinks ? "post_attention_norm.weight" : "ffn_norm.weight", e, 0, 0);
    if (ff) {
        if (a->fused_gate_up) {
            add(b, il, "ffn_up.weight", e, 2 * ff, 0);
        } else {
            add(b, il, "ffn_gate.weight", e, ff, 0);
            add(b, il, "ffn_up.weight", e, ff, 0);
        }
        add(b, il, "ffn_down.weight", ff, e, 0);
    } else if (ne) {
        add(b, il, "ffn_gate_inp.weight", e, ne, 0);
        if (a->sinks) add(b, il, "ffn_gate_inp.bias", ne, 0, 0);
        if (a->attn == ATTN_MLA) add(b, il, "exp_probs_b.bias", ne, 0, 0);
        add(b, il, "ffn_gate_exps.weight", e, fe, ne);
        add(b, il, "ffn_up_exps.weight", e, fe, ne);
        add(b, il, "ffn_down_exps.weight", fe, e, ne);
        if (a->sinks) {
            add(b, il, "ffn_gate_exps.bias", fe, ne, 0);
            add(b, il, "ffn_up_exps.bias", fe, ne, 0);
            add(b, il, "ffn_down_exps.bias", e, ne, 0);
        }
        if (hp->n_ff_shexp) {
            if (!strcmp(hp->arch, "qwen2moe")) add(b, il, "ffn_gate_inp_shexp.weight", e, 0, 0);
            add(b, il, "ffn_gate_shexp.weight", e, hp->n_ff_shexp, 0);
            add(b, il, "ffn_up_shexp.weight", e, hp->n_ff_shexp, 0);
            add(b, il, "ffn_down_shexp.weight", hp->n_ff_shexp, e, 0);
        }
    }
    if (a->post_norms) add(b, il, "post_ffw_norm.weight", e, 0, 0);
}

/* ---- llama-quantize's choice -------------------------------------------- */

enum mix_cat { CAT_OTHER, CAT_TOKEN_EMBD, CAT_OUTPUT, CAT_ATTN_V, CAT_ATTN_K, CAT_ATTN_Q, CAT_ATTN_OUT,
               CAT_FFN_UP, CAT_FFN_GATE, CAT_FFN_DOWN };

/* llama.cpp matches substrings; attn_qkv and attn_kv_b count as attn_v
 * ("more sensitive to quantization"). First match wins. */
static const struct { const char *needle; int cat; } mix_cats[] = {
    {"attn_qkv.weight", CAT_ATTN_V}, {"attn_kv_b.weight", CAT_ATTN_V}, {"attn_v.weight", CAT_ATTN_V},
    {"attn_k.weight", CAT_ATTN_K},   {"attn_q.weight", CAT_ATTN_Q},    {"attn_output.weight", CAT_ATTN_OUT},
    {"ffn_up", CAT_FFN_UP},          {"ffn_gate", CAT_FFN_GATE},       {"ffn_down", CAT_FFN_DOWN},
};

static int mix_category(const char *name) {
    if (!strcmp(name, "output.weight")) return CAT_OUTPUT;
    if (!strcmp(name, "token_embd.weight")) return CAT_TOKEN_EMBD;
    for (size_t i = 0; i < FC_ARRAY_LEN(mix_cats); i++)
        if (strstr(name, mix_cats[i].needle)) return mix_cats[i].cat;
    return CAT_OTHER;
}

/* Quantized at all: 2-D/3-D weights, not norms, not the expert router. */
static bool mix_quantizable(const model_tensor *t) {
    size_t n = strlen(t->name);
    return t->n_dims >= 2 && n > 6 && !strcmp(t->name + n - 6, "weight") && !strstr(t->name, "_norm.weight") &&
           !strstr(t->name, "ffn_gate_inp.weight");
}

typedef struct mix_ctx {
    const model_hparams *hp;
    uint32_t ft;          /* llama_ftype */
    uint32_t base;        /* ggml type */
    bool imatrix;
    bool tied;
    bool is_70b;          /* llama.cpp's LLM_TYPE_70B: attn_v gets Q5_K instead of Q3_K/Q4_K */
    uint32_t gqa;
    uint32_t n_attn_v, i_attn_v;
} mix_ctx;

static bool use_more_bits(int i, int n) { return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2; }

static bool ft_in(uint32_t ft, const uint32_t *list, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (list[i] == ft) return true;
    return false;
}
#define FT_IN(ft, ...) ft_in(ft, (const uint32_t[]){__VA_ARGS__}, sizeof((const uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t))

static uint32_t mix_output_type(const mix_ctx *q, const model_tensor *t) {
    const ggml_type_info *bi = ggml_type_get(q->base);
    if (q->ft == FT_MXFP4_MOE || t->ne[0] % bi->blck) return GGML_TYPE_Q8_0;
    if (FT_IN(q->ft, FT_IQ2_XXS, FT_IQ2_XS, FT_IQ3_XXS, FT_IQ1_S, FT_IQ2_S, FT_IQ2_M, FT_IQ1_M)) return GGML_TYPE_Q5_K;
    return q->base == GGML_TYPE_Q8_0 ? GGML_TYPE_Q8_0 : GGML_TYPE_Q6_K;
}

static uint32_t mix_attn_v_type(mix_ctx *q, uint32_t ty) {
    uint32_t ft = q->ft, i = q->i_attn_v++;
    bool wide = q->gqa >= 4;
    if (ft == FT_Q2_K) ty = wide ? GGML_TYPE_Q4_K : GGML_TYPE_Q3_K;
    else if (ft == FT_Q2_K_S && wide) ty = GGML_TYPE_Q4_K;
    else if (ft == FT_IQ3_XXS) ty = wide ? GGML_TYPE_Q4_K : q->imatrix ? GGML_TYPE_IQ3_XXS : GGML_TYPE_IQ3_S;
    else if (FT_IN(ft, FT_IQ3_XS, FT_IQ3_S) && wide) ty = GGML_TYPE_Q4_K;
    else if (ft == FT_IQ3_M) ty = GGML_TYPE_Q4_K;
    else if (ft == FT_Q3_K_M) ty = i < 2 ? GGML_TYPE_Q5_K : GGML_TYPE_Q4_K;
    else if (ft == FT_Q3_K_L) ty = GGML_TYPE_Q5_K;
    else if (FT_IN(ft, FT_IQ4_NL, FT_IQ4_XS) && wide) ty = GGML_TYPE_Q5_K;
    else if (FT_IN(ft, FT_Q4_K_M, FT_Q5_K_M) && use_more_bits((int)i, (int)q->n_attn_v)) ty = GGML_TYPE_Q6_K;
    else if (ft == FT_Q4_K_S && i < 4) ty = GGML_TYPE_Q5_K;
    if (q->is_70b && (ty == GGML_TYPE_Q3_K || ty == GGML_TYPE_Q4_K)) ty = GGML_TYPE_Q5_K;
    if (q->hp->n_expert == 8) ty = GGML_TYPE_Q8_0;
    return ty;
}

static uint32_t mix_ffn_down_type(const mix_ctx *q, int il, uint32_t ty) {
    uint32_t ft = q->ft;
    int n = (int)q->hp->n_layer;
    bool more = use_more_bits(il, n);
    if (ft == FT_Q2_K) ty = GGML_TYPE_Q3_K;
    else if (ft == FT_Q2_K_S) { if (il < n / 8) ty = GGML_TYPE_Q4_K; }
    else if (ft == FT_IQ3_XXS && !q->imatrix) ty = il < n / 8 ? GGML_TYPE_Q4_K : GGML_TYPE_Q3_K;
    else if (ft == FT_Q3_K_M) ty = il < n / 16 ? GGML_TYPE_Q5_K : GGML_TYPE_Q4_K;
    else if (ft == FT_IQ3_M && (il < n / 8 || (q->hp->n_expert == 8 && more))) ty = GGML_TYPE_Q4_K;
    else if (ft == FT_Q3_K_L) ty = GGML_TYPE_Q5_K;
    else if (ft == FT_Q4_K_M) { if (more) ty = GGML_TYPE_Q6_K; }
    else if (il < n / 8 && FT_IN(ft, FT_IQ4_NL, FT_IQ4_XS) && !q->imatrix) ty = GGML_TYPE_Q5_K;
    else if (ft == FT_Q5_K_M && more) ty = GGML_TYPE_Q6_K;
    else if (ft == FT_Q4_K_S && il < n / 8) ty = GGML_TYPE_Q5_K;
    else if (FT_IN(ft, FT_Q4_0, FT_Q5_0) && q->imatrix && il < n / 8)
        ty = ft == FT_Q4_0 ? GGML_TYPE_Q4_1 : GGML_TYPE_Q5_1;
    return ty;
}

static uint32_t mix_attn_out_type(const mix_ctx *q, uint32_t ty) {
    uint32_t ft = q->ft;
    if (q->hp->n_expert == 8) {
        if (FT_IN(ft, FT_Q2_K, FT_IQ3_XS, FT_IQ3_XXS, FT_Q3_K_S, FT_Q3_K_M, FT_IQ4_NL, FT_Q4_K_S, FT_Q4_K_M, FT_IQ3_S,
                  FT_IQ3_M, FT_IQ4_XS))
            ty = GGML_TYPE_Q5_K;
        return ty;
    }
    if (ft == FT_Q2_K) return GGML_TYPE_Q3_K;
    if (ft == FT_IQ3_XXS) return GGML_TYPE_IQ3_S;
    if (ft == FT_Q3_K_M || ft == FT_IQ3_M) return GGML_TYPE_Q4_K;
    if (ft == FT_Q3_K_L) return GGML_TYPE_Q5_K;
    return ty;
}

/* The lowest-bit mixes (IQ1/IQ2) have their own rules for every category. */
static uint32_t mix_low_bit_type(mix_ctx *q, int cat, int il, uint32_t ty) {
    uint32_t ft = q->ft;
    bool s_or_m = ft == FT_IQ2_S || ft == FT_IQ2_M;
    if (cat == CAT_ATTN_V) {
        q->i_attn_v++;
        if (q->gqa >= 4 || q->hp->n_expert >= 4) return GGML_TYPE_Q4_K;
        return s_or_m ? GGML_TYPE_IQ3_S : GGML_TYPE_Q2_K;
    }
    if (cat == CAT_ATTN_K && q->hp->n_expert == 8) return GGML_TYPE_Q4_K;
    if (cat == CAT_FFN_DOWN && il < (int)q->hp->n_layer / 8) return s_or_m ? GGML_TYPE_IQ3_S : GGML_TYPE_Q2_K;
    if (cat == CAT_ATTN_OUT) {
        if (q->hp->n_expert == 8) return GGML_TYPE_Q5_K;
        if (ft == FT_IQ1_S || ft == FT_IQ1_M) return GGML_TYPE_IQ2_XXS;
        if (s_or_m) return GGML_TYPE_IQ3_S;
    }
    return ty;
}

/* When a row is not a whole number of blocks, llama.cpp falls back to a type
 * with 32-element blocks (then to F16). */
static uint32_t mix_fallback(const model_tensor *t, uint32_t ty) {
    static const struct { uint32_t from, to; } fb[] = {
        {GGML_TYPE_IQ1_S, GGML_TYPE_IQ4_NL},  {GGML_TYPE_IQ1_M, GGML_TYPE_IQ4_NL},  {GGML_TYPE_IQ2_XXS, GGML_TYPE_IQ4_NL},
        {GGML_TYPE_IQ2_XS, GGML_TYPE_IQ4_NL}, {GGML_TYPE_IQ2_S, GGML_TYPE_IQ4_NL},  {GGML_TYPE_IQ3_XXS, GGML_TYPE_IQ4_NL},
        {GGML_TYPE_IQ3_S, GGML_TYPE_IQ4_NL},  {GGML_TYPE_IQ4_XS, GGML_TYPE_IQ4_NL}, {GGML_TYPE_Q2_K, GGML_TYPE_Q4_0},
        {GGML_TYPE_Q3_K, GGML_TYPE_Q4_0},     {GGML_TYPE_TQ1_0, GGML_TYPE_Q4_0},    {GGML_TYPE_TQ2_0, GGML_TYPE_Q4_0},
        {GGML_TYPE_Q4_K, GGML_TYPE_Q5_0},     {GGML_TYPE_Q5_K, GGML_TYPE_Q5_1},     {GGML_TYPE_Q6_K, GGML_TYPE_Q8_0},
    };
    if (t->ne[0] % ggml_type_get(ty)->blck == 0) return ty;
    for (size_t i = 0; i < FC_ARRAY_LEN(fb); i++)
        if (fb[i].from == ty) ty = fb[i].to;
    return t->ne[0] % ggml_type_get(ty)->blck ? GGML_TYPE_F16 : ty;
}

static uint32_t mix_tensor_type(mix_ctx *q, const model_tensor *t) {
    if (!mix_quantizable(t)) return GGML_TYPE_F32; /* the converter writes these F32 */
    uint32_t ty = q->base;
    if (!ggml_type_get(ty)->blck || ggml_type_get(ty)->blck == 1) return ty; /* F32/F16/BF16: as is */
    int cat = mix_category(t->name);
    uint32_t ft = q->ft;
    if (cat == CAT_OUTPUT || (q->tied && cat == CAT_TOKEN_EMBD)) ty = mix_output_type(q, t);
    else if (ft == FT_MXFP4_MOE) ty = t->ne[2] > 1 ? GGML_TYPE_MXFP4 : GGML_TYPE_Q8_0;
    else if (cat == CAT_TOKEN_EMBD) {
        if (FT_IN(ft, FT_IQ2_XXS, FT_IQ2_XS, FT_IQ1_S, FT_IQ1_M)) ty = GGML_TYPE_Q2_K;
        else if (FT_IN(ft, FT_IQ2_S, FT_IQ2_M, FT_IQ3_XXS)) ty = GGML_TYPE_IQ3_S;
    } else if (FT_IN(ft, FT_IQ2_XXS, FT_IQ2_XS, FT_IQ1_S, FT_IQ2_S, FT_IQ2_M, FT_IQ1_M))
        ty = mix_low_bit_type(q, cat, t->layer, ty);
    else if (cat == CAT_ATTN_V) ty = mix_attn_v_type(q, ty);
    else if (cat == CAT_ATTN_K || cat == CAT_ATTN_Q) {
        if (cat == CAT_ATTN_K && q->hp->n_expert == 8) ty = GGML_TYPE_Q8_0;
        else if (ft == FT_IQ3_XS) ty = GGML_TYPE_IQ3_XXS;
        else if (ft == FT_IQ3_XXS) ty = GGML_TYPE_IQ2_S;
    } else if (cat == CAT_FFN_DOWN) ty = mix_ffn_down_type(q, t->layer, ty);
    else if (cat == CAT_ATTN_OUT) ty = mix_attn_out_type(q, ty);
    else if ((cat == CAT_FFN_GATE || cat == CAT_FFN_UP) && ft == FT_IQ3_XS) {
        int n = (int)q->hp->n_layer;
        if (t->layer >= n / 8 && t->layer < 7 * n / 8) ty = GGML_TYPE_IQ3_XXS;
    }
    return mix_fallback(t, ty);
}

/* llama.cpp's LLM_TYPE_70B (80-layer Llama 2/3 and Qwen2 72B). */
static bool mix_is_70b(const model_hparams *hp) {
    return hp->n_layer == 80 && (!strcmp(hp->arch, "llama") || !strcmp(hp->arch, "qwen2"));
}

static int mix_assign_types(model_desc *d, const model_ftype_info *ft, fc_err *err) {
    mix_ctx q = {.hp = &d->hp, .ft = ft->id, .base = ft->base_type, .imatrix = ft->imatrix,
                 .tied = d->hp.tied_embeddings, .is_70b = mix_is_70b(&d->hp)};
    q.gqa = d->hp.n_head_kv[0] ? d->hp.n_head / d->hp.n_head_kv[0] : 0;
    for (uint32_t i = 0; i < d->n_tensors; i++) q.n_attn_v += mix_category(d->tensors[i].name) == CAT_ATTN_V;
    uint64_t file = 0;
    for (uint32_t i = 0; i < d->n_tensors; i++) {
        model_tensor *t = &d->tensors[i];
        t->type = mix_tensor_type(&q, t);
        uint64_t row, rows = (uint64_t)t->ne[1] * (uint64_t)t->ne[2], n = rows * (uint64_t)t->ne[0];
        if (!ggml_row_bytes(t->type, (uint64_t)t->ne[0], &row) || !fc_mul_u64(row, rows, &t->bytes))
            return fc_err_set(err, FC_EINPUT, "tensor %s: %lld columns do not fit type %s", t->name,
                              (long long)t->ne[0], ggml_type_get(t->type)->name);
        /* Hyperparameters within their limits can still multiply past
         * 2^64 (a thousand layers of 4096 huge experts): refuse, never wrap. */
        uint64_t padded;
        if (!fc_add_u64(t->bytes, MIX_ALIGN - 1, &padded) || !fc_add_u64(d->n_params, n, &d->n_params) ||
            !fc_add_u64(d->weight_bytes, t->bytes, &d->weight_bytes) ||
            !fc_add_u64(file, padded / MIX_ALIGN * MIX_ALIGN, &file))
            return fc_err_set(err, FC_EINPUT, "model size overflows at tensor %s: the hyperparameters are absurd",
                              t->name);
    }
    d->file_bytes = file + (uint64_t)d->hp.n_vocab * MIX_META_BYTES_PER_TOKEN +
                    (uint64_t)d->n_tensors * MIX_META_BYTES_PER_TENSOR;
    return FC_OK;
}

int model_desc_synthesize(model_desc *d, const model_hparams *hp, const char *ftype, fc_err *err) {
    memset(d, 0, sizeof *d);
    const model_ftype_info *ft = model_ftype_find(ftype);
    if (!ft) return fc_err_set(err, FC_EINPUT, "unknown quantization '%s' (try Q4_K_M, Q8_0, F16, IQ4_XS ...)", ftype ? ftype : "");
    int rc = model_hparams_validate(hp, err);
    if (rc) return rc;
    const struct mix_arch *a = NULL;
    for (size_t i = 0; i < FC_ARRAY_LEN(mix_archs); i++)
        if (!strcmp(hp->arch, mix_archs[i].arch)) a = &mix_archs[i];
    if (!a) return fc_err_set(err, FC_EINPUT, "architecture '%s' has no tensor layout in fitcheck yet", hp->arch);
    if (ft->id == FT_MXFP4_MOE && !hp->n_expert)
        return fc_err_set(err, FC_EINPUT, "MXFP4_MOE quantizes expert tensors; %s has none", hp->name[0] ? hp->name : hp->arch);
    d->hp = *hp;
    d->hp.file_type = ft->id;
    uint32_t cap = MIX_GLOBAL_TENSORS + hp->n_layer * MIX_MAX_PER_LAYER;
    d->tensors = fc_calloc(cap, sizeof *d->tensors, err);
    if (!d->tensors) return FC_ERUNTIME;
    mix_builder b = {d, cap, err, FC_OK};
    add(&b, -1, "token_embd.weight", hp->n_embd, hp->n_vocab, 0);
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        add_attention(&b, hp, a, (int32_t)il);
        add_ffn(&b, hp, a, (int32_t)il);
    }
    add(&b, -1, "output_norm.weight", hp->n_embd, 0, 0);
    if (!hp->tied_embeddings) add(&b, -1, "output.weight", hp->n_embd, hp->n_vocab, 0);
    if (!b.rc) b.rc = mix_assign_types(d, ft, err);
    if (b.rc) model_desc_free(d);
    return b.rc;
}
