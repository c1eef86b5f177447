/* Architecture hyperparameters from GGUF metadata.
 *
 * Writers store most values as u32 but some as i32/u64, and some models store
 * per-layer arrays (head_count_kv, feed_forward_length): every integer type
 * and both shapes are accepted. Values are range-checked because they size
 * allocations later on. */
#include "model/model.h"

#include <math.h>
#include <string.h>

/* Architectures whose RoPE rotates (x[i], x[i + n_rot/2]) instead of pairs. */
static const char *const neox_archs[] = {"qwen2", "qwen2moe", "qwen3", "qwen3moe", "gemma", "gemma2",
                                         "gemma3", "phi3", "gpt-oss", "gptoss", "falcon", "stablelm"};

/* Interleaved sliding-window layouts that llama.cpp hard-codes per architecture:
 * layer il is local when il % period < period - 1. */
static const struct { const char *arch; uint32_t period; } swa_periods[] = {
    {"gemma2", 2}, {"gemma3", 6}, {"gpt-oss", 2}, {"gptoss", 2}, {"cohere2", 4},
};

/* Upper bounds far beyond any real model; they keep hostile values from
 * sizing absurd allocations downstream. */
#define HP_MAX_EMBD (1u << 20)
#define HP_MAX_HEADS (1u << 16)
#define HP_MAX_FF (1u << 24)
#define HP_MAX_VOCAB (1u << 24)
#define HP_MAX_EXPERTS 4096

static int key_name(char *buf, size_t cap, const char *arch, const char *suffix) {
    int n = snprintf(buf, cap, "%s.%s", arch, suffix);
    return n > 0 && (size_t)n < cap;
}

static int get_u32(const gguf_file *f, const char *arch, const char *suffix, uint32_t *out, uint32_t max,
                   bool *found, fc_err *err) {
    char key[GGUF_KEY_MAX];
    int64_t v;
    *found = false;
    if (!key_name(key, sizeof key, arch, suffix) || !gguf_find(f, key)) return FC_OK;
    if (!gguf_get_i64(f, key, &v))
        return fc_err_set(err, FC_EINPUT, "%s: key %s has type %s, expected an integer", f->path, key,
                          gguf_vtype_name(gguf_find(f, key)->v.type));
    if (v < 0 || (uint64_t)v > max)
        return fc_err_set(err, FC_EINPUT, "%s: key %s = %lld is outside 0..%u", f->path, key, (long long)v, max);
    *out = (uint32_t)v;
    *found = true;
    return FC_OK;
}

/* A per-layer value stored either as a scalar or as an array of n_layer. */
static int get_layer_u32(const gguf_file *f, const char *arch, const char *suffix, uint32_t n_layer,
                         uint32_t *out, uint32_t max, bool *found, fc_err *err) {
    char key[GGUF_KEY_MAX];
    *found = false;
    if (!key_name(key, sizeof key, arch, suffix)) return FC_OK;
    const gguf_kv *kv = gguf_find(f, key);
    if (!kv) return FC_OK;
    if (kv->v.type != GGUF_ARRAY) {
        uint32_t v;
        int rc = get_u32(f, arch, suffix, &v, max, found, err);
        if (rc) return rc;
        for (uint32_t il = 0; il < n_layer; il++) out[il] = v;
        return FC_OK;
    }
    if (kv->v.arr.n != n_layer)
        return fc_err_set(err, FC_EINPUT, "%s: key %s has %llu entries, expected one per layer (%u)", f->path, key,
                          (unsigned long long)kv->v.arr.n, n_layer);
    for (uint32_t il = 0; il < n_layer; il++) {
        int64_t v;
        if (!gguf_arr_i64(f, kv, il, &v) || v < 0 || (uint64_t)v > max)
            return fc_err_set(err, FC_EINPUT, "%s: key %s[%u] is not an integer in 0..%u", f->path, key, il, max);
        out[il] = (uint32_t)v;
    }
    *found = true;
    return FC_OK;
}

static int get_float(const gguf_file *f, const char *arch, const char *suffix, float *out, fc_err *err) {
    char key[GGUF_KEY_MAX];
    double v;
    if (!key_name(key, sizeof key, arch, suffix) || !gguf_find(f, key)) return FC_OK;
    if (!gguf_get_f64(f, key, &v) || !isfinite(v))
        return fc_err_set(err, FC_EINPUT, "%s: key %s is not a finite number", f->path, key);
    *out = (float)v;
    return FC_OK;
}

static bool arch_in(const char *arch, const char *const *list, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!strcmp(arch, list[i])) return true;
    return false;
}

int model_hparams_from_gguf(model_hparams *hp, const gguf_file *f, fc_err *err) {
    memset(hp, 0, sizeof *hp);
    if (!gguf_get_str(f, "general.architecture", hp->arch, sizeof hp->arch))
        return fc_err_set(err, FC_EINPUT, "%s: general.architecture is missing or not a string", f->path);
    gguf_get_str(f, "general.name", hp->name, sizeof hp->name);
    const char *a = hp->arch;
    bool found;
    int rc;
#define REQ(suffix, field, max)                                                                          \
    do {                                                                                                 \
        if ((rc = get_u32(f, a, suffix, &hp->field, max, &found, err))) return rc;                      \
        if (!found) return fc_err_set(err, FC_EINPUT, "%s: required key %s.%s is missing", f->path, a, suffix); \
    } while (0)
#define OPT(suffix, field, max) \
    do { if ((rc = get_u32(f, a, suffix, &hp->field, max, &found, err))) return rc; } while (0)

    REQ("block_count", n_layer, MODEL_MAX_LAYERS);
    REQ("embedding_length", n_embd, HP_MAX_EMBD);
    if (hp->n_layer == 0) return fc_err_set(err, FC_EINPUT, "%s: %s.block_count is 0", f->path, a);

    uint32_t heads[MODEL_MAX_LAYERS];
    if ((rc = get_layer_u32(f, a, "attention.head_count", hp->n_layer, heads, HP_MAX_HEADS, &found, err))) return rc;
    if (!found) return fc_err_set(err, FC_EINPUT, "%s: required key %s.attention.head_count is missing", f->path, a);
    hp->n_head = heads[0];
    if ((rc = get_layer_u32(f, a, "attention.head_count_kv", hp->n_layer, hp->n_head_kv, HP_MAX_HEADS, &found, err))) return rc;
    if (!found)
        for (uint32_t il = 0; il < hp->n_layer; il++) hp->n_head_kv[il] = hp->n_head;
    if ((rc = get_layer_u32(f, a, "feed_forward_length", hp->n_layer, hp->n_ff, HP_MAX_FF, &found, err))) return rc;

    OPT("context_length", n_ctx_train, UINT32_MAX);
    OPT("attention.key_length", head_dim_k, HP_MAX_EMBD);
    OPT("attention.value_length", head_dim_v, HP_MAX_EMBD);
    OPT("rope.dimension_count", n_rot, HP_MAX_EMBD);
    OPT("vocab_size", n_vocab, HP_MAX_VOCAB);
    OPT("expert_count", n_expert, HP_MAX_EXPERTS);
    OPT("expert_used_count", n_expert_used, HP_MAX_EXPERTS);
    OPT("expert_feed_forward_length", n_ff_exp, HP_MAX_FF);
    OPT("expert_shared_count", n_expert_shared, HP_MAX_EXPERTS);
    OPT("expert_shared_feed_forward_length", n_ff_shexp, HP_MAX_FF);
    OPT("leading_dense_block_count", n_layer_dense_lead, MODEL_MAX_LAYERS);
    OPT("attention.sliding_window", sliding_window, UINT32_MAX);
    OPT("attention.kv_lora_rank", kv_lora_rank, HP_MAX_EMBD);
    OPT("attention.q_lora_rank", q_lora_rank, HP_MAX_EMBD);
#undef REQ
#undef OPT

    hp->rope_freq_base = 10000.0f;
    hp->norm_eps = 1e-5f;
    if ((rc = get_float(f, a, "rope.freq_base", &hp->rope_freq_base, err))) return rc;
    hp->rope_freq_base_swa = hp->rope_freq_base;
    /* Gemma 3's local layers use base 10000 whatever the global base is. */
    if (!strcmp(a, "gemma3")) hp->rope_freq_base_swa = 10000.0f;
    if ((rc = get_float(f, a, "rope.freq_base_swa", &hp->rope_freq_base_swa, err))) return rc;
    if ((rc = get_float(f, a, "attention.layer_norm_epsilon", &hp->norm_eps, err))) return rc;
    if ((rc = get_float(f, a, "attention.layer_norm_rms_epsilon", &hp->norm_eps, err))) return rc;

    if (hp->n_head == 0) return fc_err_set(err, FC_EINPUT, "%s: %s.attention.head_count is 0", f->path, a);
    if (!hp->head_dim_k) hp->head_dim_k = hp->n_embd / hp->n_head;
    if (!hp->head_dim_v) hp->head_dim_v = hp->head_dim_k;
    if (!hp->n_rot) hp->n_rot = hp->head_dim_k;
    hp->rope_type = arch_in(a, neox_archs, FC_ARRAY_LEN(neox_archs)) ? MODEL_ROPE_NEOX : MODEL_ROPE_NORM;
    hp->qk_norm = !strncmp(a, "qwen3", 5) || !strcmp(a, "gemma3");
    hp->attn_bias = gguf_find_tensor(f, "blk.0.attn_q.bias") != NULL;

    /* Sliding-window layout: an explicit per-layer pattern wins, else the
     * architecture's fixed period, else none. */
    if (hp->sliding_window) {
        char key[GGUF_KEY_MAX];
        key_name(key, sizeof key, a, "attention.sliding_window_pattern");
        const gguf_kv *pat = gguf_find(f, key);
        uint32_t period = 0;
        for (size_t i = 0; i < FC_ARRAY_LEN(swa_periods); i++)
            if (!strcmp(a, swa_periods[i].arch)) period = swa_periods[i].period;
        if (pat && pat->v.type == GGUF_ARRAY && pat->v.arr.n == hp->n_layer) {
            for (uint32_t il = 0; il < hp->n_layer; il++) {
                int64_t v = 0;
                gguf_arr_i64(f, pat, il, &v);
                hp->swa_layer[il] = v != 0;
            }
        } else {
            int64_t p;
            if (pat && gguf_get_i64(f, key, &p) && p > 0 && p <= MODEL_MAX_LAYERS) period = (uint32_t)p;
            for (uint32_t il = 0; il < hp->n_layer; il++)
                hp->swa_layer[il] = period ? (il % period) < period - 1 : false;
        }
        /* A window no layer uses is no window (llama.cpp ignores Phi-3's,
         * see its phi3 hparams: "Phi SWA is currently disabled"). */
        uint32_t n_swa = 0;
        for (uint32_t il = 0; il < hp->n_layer; il++) n_swa += hp->swa_layer[il];
        if (!n_swa) hp->sliding_window = 0;
    }

    char tok[32] = "";
    gguf_get_str(f, "tokenizer.ggml.model", tok, sizeof tok);
    hp->tokenizer = !tok[0] ? MODEL_TOK_NONE : !strcmp(tok, "llama") ? MODEL_TOK_SPM
                  : !strcmp(tok, "gpt2") ? MODEL_TOK_BPE : MODEL_TOK_OTHER;
    const gguf_kv *tokens = gguf_find(f, "tokenizer.ggml.tokens");
    if (tokens && tokens->v.type == GGUF_ARRAY && tokens->v.arr.n <= HP_MAX_VOCAB)
        hp->n_vocab = (uint32_t)tokens->v.arr.n;
    const gguf_tensor *embd = gguf_find_tensor(f, "token_embd.weight");
    if (!hp->n_vocab && embd && embd->n_dims >= 2 && embd->ne[1] <= HP_MAX_VOCAB) hp->n_vocab = (uint32_t)embd->ne[1];
    hp->tied_embeddings = gguf_find_tensor(f, "output.weight") == NULL;
    int64_t ft;
    if (gguf_get_i64(f, "general.file_type", &ft) && ft >= 0 && ft < 1024) hp->file_type = (uint32_t)ft;

    int vr = model_hparams_validate(hp, err);
    return vr ? fc_err_prefix(err, "%s: ", f->path) : FC_OK;
}

int model_hparams_validate(const model_hparams *hp, fc_err *err) {
    if (hp->n_layer == 0 || hp->n_layer > MODEL_MAX_LAYERS)
        return fc_err_set(err, FC_EINPUT, "n_layer = %u is outside 1..%d", hp->n_layer, MODEL_MAX_LAYERS);
    if (hp->n_embd == 0 || hp->n_embd > HP_MAX_EMBD) return fc_err_set(err, FC_EINPUT, "n_embd = %u is invalid", hp->n_embd);
    if (hp->n_head == 0 || hp->n_head > HP_MAX_HEADS) return fc_err_set(err, FC_EINPUT, "n_head = %u is invalid", hp->n_head);
    if (hp->head_dim_k == 0 || hp->head_dim_v == 0)
        return fc_err_set(err, FC_EINPUT, "head dimension is 0 (n_embd %u, n_head %u)", hp->n_embd, hp->n_head);
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        if (hp->n_head_kv[il] > hp->n_head)
            return fc_err_set(err, FC_EINPUT, "layer %u: %u KV heads exceed %u query heads", il, hp->n_head_kv[il], hp->n_head);
        if (hp->n_head_kv[il] && hp->n_head % hp->n_head_kv[il])
            return fc_err_set(err, FC_EINPUT, "layer %u: %u query heads are not a multiple of %u KV heads", il,
                              hp->n_head, hp->n_head_kv[il]);
    }
    if (hp->n_expert_used > hp->n_expert)
        return fc_err_set(err, FC_EINPUT, "%u experts used per token but only %u experts", hp->n_expert_used, hp->n_expert);
    if (hp->n_expert && !hp->n_expert_used) return fc_err_set(err, FC_EINPUT, "MoE model with 0 experts used per token");
    if (!isfinite(hp->rope_freq_base) || hp->rope_freq_base <= 0 || !isfinite(hp->norm_eps) || hp->norm_eps < 0)
        return fc_err_set(err, FC_EINPUT, "rope base %g or norm epsilon %g is not a valid number", hp->rope_freq_base,
                          hp->norm_eps);
    return FC_OK;
}

uint64_t model_hparams_kv_k_elems(const model_hparams *hp, uint32_t il) {
    /* MLA caches the compressed latent plus the shared RoPE key part. */
    if (hp->kv_lora_rank) return (uint64_t)hp->kv_lora_rank + hp->n_rot;
    return (uint64_t)hp->n_head_kv[il] * hp->head_dim_k;
}

uint64_t model_hparams_kv_v_elems(const model_hparams *hp, uint32_t il) {
    if (hp->kv_lora_rank) return hp->kv_lora_rank;
    return (uint64_t)hp->n_head_kv[il] * hp->head_dim_v;
}

uint64_t model_hparams_kv_elems_per_token(const model_hparams *hp) {
    uint64_t elems = 0;
    /* MLA keeps one latent per token: the V "cache" is a view of it. */
    for (uint32_t il = 0; il < hp->n_layer; il++)
        elems += model_hparams_kv_k_elems(hp, il) + (hp->kv_lora_rank ? 0 : model_hparams_kv_v_elems(hp, il));
    return elems;
}
