/* Hyperparameters from a Hugging Face config.json, mapped to the names and
 * conventions llama.cpp's converter uses (so the tensor table synthesized from
 * them matches the GGUF file the converter would write).
 *
 * config.json files come from strangers: every number is type- and
 * range-checked, and a bad one is reported with its key. */
#include "model/model.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Same ceilings as the GGUF reader: far beyond real models, low enough that
 * nothing downstream can be sized into an absurd allocation. */
#define CFG_MAX_EMBD (1u << 20)
#define CFG_MAX_HEADS (1u << 16)
#define CFG_MAX_FF (1u << 24)
#define CFG_MAX_VOCAB (1u << 24)
#define CFG_MAX_EXPERTS 4096
#define CFG_MAX_CTX (1u << 30)

/* HF model_type -> llama.cpp architecture. Mistral and Mixtral are written
 * as "llama" by the converter (Mixtral with expert tensors). */
static const struct cfg_arch {
    const char *model_type;
    const char *arch;
    bool qk_norm, attn_bias, tied_default, neox;
    uint32_t swa_period; /* 0: no fixed layout (layer_types or none) */
} cfg_archs[] = {
    {"llama", "llama", false, false, false, false, 0},
    {"mistral", "llama", false, false, false, false, 0},
    {"mixtral", "llama", false, false, false, false, 0},
    {"qwen2", "qwen2", false, true, false, true, 0},
    {"qwen2_moe", "qwen2moe", false, true, false, true, 0},
    {"qwen3", "qwen3", true, false, false, true, 0},
    {"qwen3_moe", "qwen3moe", true, false, false, true, 0},
    {"gemma2", "gemma2", false, false, true, true, 2},
    {"gemma3", "gemma3", true, false, true, true, 6},
    {"gemma3_text", "gemma3", true, false, true, true, 6},
    {"phi3", "phi3", false, false, false, true, 0},
    {"deepseek_v2", "deepseek2", false, false, false, false, 0},
    {"deepseek_v3", "deepseek2", false, false, false, false, 0},
    {"gpt_oss", "gpt-oss", false, true, false, true, 2},
};

typedef struct cfg_ctx {
    const json_t *root;
    const char *where;
    fc_err *err;
} cfg_ctx;

/* An unsigned integer key. Absent or null -> *found false. Accepts a real
 * only when it is integral (some exporters write 4096.0). */
static int cfg_uint(cfg_ctx *c, const char *key, uint32_t max, uint32_t *out, bool *found) {
    const json_t *v = json_object_get(c->root, key);
    *found = false;
    if (!v || json_is_null(v)) return FC_OK;
    double x;
    if (json_is_integer(v)) x = (double)json_integer_value(v);
    else if (json_is_real(v)) x = json_real_value(v);
    else return fc_err_set(c->err, FC_EINPUT, "%s: key \"%s\" is not a number", c->where, key);
    if (!isfinite(x) || x < 0 || x != floor(x) || x > max)
        return fc_err_set(c->err, FC_EINPUT, "%s: key \"%s\" = %g is not an integer in 0..%u", c->where, key, x, max);
    *out = (uint32_t)x;
    *found = true;
    return FC_OK;
}

static int cfg_req(cfg_ctx *c, const char *key, uint32_t max, uint32_t *out) {
    bool found;
    int rc = cfg_uint(c, key, max, out, &found);
    if (rc) return rc;
    if (!found) return fc_err_set(c->err, FC_EINPUT, "%s: required key \"%s\" is missing", c->where, key);
    if (!*out) return fc_err_set(c->err, FC_EINPUT, "%s: key \"%s\" is 0", c->where, key);
    return FC_OK;
}

static int cfg_float(cfg_ctx *c, const char *key, float *out) {
    const json_t *v = json_object_get(c->root, key);
    if (!v || json_is_null(v)) return FC_OK;
    if (!json_is_number(v)) return fc_err_set(c->err, FC_EINPUT, "%s: key \"%s\" is not a number", c->where, key);
    double x = json_number_value(v);
    if (!isfinite(x) || x <= 0 || x > 1e12)
        return fc_err_set(c->err, FC_EINPUT, "%s: key \"%s\" = %g is not a positive finite number", c->where, key, x);
    *out = (float)x;
    return FC_OK;
}

static int cfg_bool(cfg_ctx *c, const char *key, bool *out) {
    const json_t *v = json_object_get(c->root, key);
    if (!v || json_is_null(v)) return FC_OK;
    if (!json_is_boolean(v)) return fc_err_set(c->err, FC_EINPUT, "%s: key \"%s\" is not true/false", c->where, key);
    *out = json_is_true(v);
    return FC_OK;
}

/* Sliding-window layout: HF's layer_types list wins; else the
 * architecture's fixed period (local layers are all but the last of each
 * period). */
static int cfg_swa(cfg_ctx *c, model_hparams *hp, const struct cfg_arch *a) {
    bool found, use = true;
    int rc;
    if ((rc = cfg_uint(c, "sliding_window", CFG_MAX_CTX, &hp->sliding_window, &found))) return rc;
    if ((rc = cfg_bool(c, "use_sliding_window", &use))) return rc;
    /* Only the architectures with a window layout in llama.cpp (a period
     * here) use one: Qwen2.5 ships sliding_window with use_sliding_window
     * false, the converter drops Mistral's, llama.cpp disables Phi-3's
     * ("Phi SWA is currently disabled"). */
    if (!found || !use || !a->swa_period) {
        hp->sliding_window = 0;
        return FC_OK;
    }
    const json_t *lt = json_object_get(c->root, "layer_types");
    if (lt && !json_is_null(lt)) {
        if (!json_is_array(lt) || json_array_size(lt) != hp->n_layer)
            return fc_err_set(c->err, FC_EINPUT, "%s: key \"layer_types\" must list one entry per layer (%u)", c->where,
                              hp->n_layer);
        for (uint32_t il = 0; il < hp->n_layer; il++) {
            const char *s = json_string_value(json_array_get(lt, il));
            if (!s) return fc_err_set(c->err, FC_EINPUT, "%s: key \"layer_types\"[%u] is not a string", c->where, il);
            hp->swa_layer[il] = !strcmp(s, "sliding_attention");
        }
        return FC_OK;
    }
    uint32_t period = a->swa_period;
    if ((rc = cfg_uint(c, "sliding_window_pattern", MODEL_MAX_LAYERS, &period, &found))) return rc;
    for (uint32_t il = 0; il < hp->n_layer; il++) hp->swa_layer[il] = period && (il % period) < period - 1;
    return FC_OK;
}

static int cfg_experts(cfg_ctx *c, model_hparams *hp, uint32_t n_ff) {
    static const char *const count_keys[] = {"num_experts", "num_local_experts", "n_routed_experts"};
    bool found;
    int rc;
    for (size_t i = 0; i < FC_ARRAY_LEN(count_keys) && !hp->n_expert; i++)
        if ((rc = cfg_uint(c, count_keys[i], CFG_MAX_EXPERTS, &hp->n_expert, &found))) return rc;
    if (!hp->n_expert) return FC_OK;
    if ((rc = cfg_uint(c, "num_experts_per_tok", CFG_MAX_EXPERTS, &hp->n_expert_used, &found))) return rc;
    if (!found) return fc_err_set(c->err, FC_EINPUT, "%s: MoE config without \"num_experts_per_tok\"", c->where);
    hp->n_ff_exp = n_ff; /* Mixtral and gpt-oss: experts are intermediate_size wide */
    if ((rc = cfg_uint(c, "moe_intermediate_size", CFG_MAX_FF, &hp->n_ff_exp, &found))) return rc;
    if ((rc = cfg_uint(c, "n_shared_experts", CFG_MAX_EXPERTS, &hp->n_expert_shared, &found))) return rc;
    hp->n_ff_shexp = hp->n_expert_shared * hp->n_ff_exp;
    if ((rc = cfg_uint(c, "shared_expert_intermediate_size", CFG_MAX_FF, &hp->n_ff_shexp, &found))) return rc;
    if (found && !hp->n_expert_shared) hp->n_expert_shared = 1;
    if ((rc = cfg_uint(c, "first_k_dense_replace", MODEL_MAX_LAYERS, &hp->n_layer_dense_lead, &found))) return rc;
    if (hp->n_layer_dense_lead > hp->n_layer)
        return fc_err_set(c->err, FC_EINPUT, "%s: \"first_k_dense_replace\" %u exceeds the %u layers", c->where,
                          hp->n_layer_dense_lead, hp->n_layer);
    for (uint32_t il = hp->n_layer_dense_lead; il < hp->n_layer; il++) hp->n_ff[il] = 0;
    return FC_OK;
}

/* DeepSeek's multi-head latent attention. */
static int cfg_mla(cfg_ctx *c, model_hparams *hp) {
    bool found;
    uint32_t nope = 0, rope = 0, v = 0;
    int rc;
    if ((rc = cfg_uint(c, "kv_lora_rank", CFG_MAX_EMBD, &hp->kv_lora_rank, &found))) return rc;
    if (!hp->kv_lora_rank) return FC_OK;
    if ((rc = cfg_uint(c, "q_lora_rank", CFG_MAX_EMBD, &hp->q_lora_rank, &found))) return rc;
    if ((rc = cfg_req(c, "qk_nope_head_dim", CFG_MAX_EMBD, &nope))) return rc;
    if ((rc = cfg_req(c, "qk_rope_head_dim", CFG_MAX_EMBD, &rope))) return rc;
    if ((rc = cfg_req(c, "v_head_dim", CFG_MAX_EMBD, &v))) return rc;
    hp->head_dim_k = nope + rope;
    hp->head_dim_v = v;
    hp->n_rot = rope;
    return FC_OK;
}

static const struct cfg_arch *cfg_find_arch(const json_t *root) {
    const char *mt = json_string_value(json_object_get(root, "model_type"));
    for (size_t i = 0; mt && i < FC_ARRAY_LEN(cfg_archs); i++)
        if (!strcmp(mt, cfg_archs[i].model_type)) return &cfg_archs[i];
    return NULL;
}

static int cfg_parse(cfg_ctx *c, model_hparams *hp) {
    const json_t *root = c->root;
    if (!json_is_object(root)) return fc_err_set(c->err, FC_EINPUT, "%s: not a JSON object", c->where);
    /* Multimodal checkpoints (Gemma 3 4B+) keep the language model's
     * hyperparameters in text_config. */
    const json_t *text = json_object_get(root, "text_config");
    if (json_is_object(text) && json_object_get(text, "hidden_size")) c->root = root = text;
    const struct cfg_arch *a = cfg_find_arch(root);
    if (!a && c->root != text) {
        const char *mt = json_string_value(json_object_get(root, "model_type"));
        return fc_err_set(c->err, FC_EINPUT, "%s: key \"model_type\" = \"%s\" is not a supported architecture",
                          c->where, mt ? mt : "(missing)");
    }
    if (!a) return fc_err_set(c->err, FC_EINPUT, "%s: text_config has no supported \"model_type\"", c->where);
    memset(hp, 0, sizeof *hp);
    snprintf(hp->arch, sizeof hp->arch, "%s", a->arch);
    int rc;
    bool found;
    uint32_t n_kv = 0, n_ff = 0, head_dim = 0;
    if ((rc = cfg_req(c, "num_hidden_layers", MODEL_MAX_LAYERS, &hp->n_layer))) return rc;
    if ((rc = cfg_req(c, "hidden_size", CFG_MAX_EMBD, &hp->n_embd))) return rc;
    if ((rc = cfg_req(c, "num_attention_heads", CFG_MAX_HEADS, &hp->n_head))) return rc;
    if ((rc = cfg_req(c, "vocab_size", CFG_MAX_VOCAB, &hp->n_vocab))) return rc;
    if ((rc = cfg_uint(c, "num_key_value_heads", CFG_MAX_HEADS, &n_kv, &found))) return rc;
    if (!n_kv) n_kv = hp->n_head;
    if ((rc = cfg_uint(c, "intermediate_size", CFG_MAX_FF, &n_ff, &found))) return rc;
    if ((rc = cfg_uint(c, "head_dim", CFG_MAX_EMBD, &head_dim, &found))) return rc;
    if ((rc = cfg_uint(c, "max_position_embeddings", CFG_MAX_CTX, &hp->n_ctx_train, &found))) return rc;
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        hp->n_head_kv[il] = n_kv;
        hp->n_ff[il] = n_ff;
    }
    hp->head_dim_k = hp->head_dim_v = head_dim ? head_dim : hp->n_embd / hp->n_head;
    hp->n_rot = hp->head_dim_k;
    if ((rc = cfg_mla(c, hp))) return rc;
    if ((rc = cfg_experts(c, hp, n_ff))) return rc;
    if (!hp->n_expert && !n_ff) return fc_err_set(c->err, FC_EINPUT, "%s: key \"intermediate_size\" is missing or 0", c->where);

    hp->rope_freq_base = 10000.0f;
    hp->norm_eps = 1e-5f;
    if ((rc = cfg_float(c, "rope_theta", &hp->rope_freq_base))) return rc;
    hp->rope_freq_base_swa = hp->rope_freq_base;
    if (!strcmp(a->arch, "gemma3")) hp->rope_freq_base_swa = 10000.0f;
    if ((rc = cfg_float(c, "rope_local_base_freq", &hp->rope_freq_base_swa))) return rc;
    if ((rc = cfg_float(c, "rms_norm_eps", &hp->norm_eps))) return rc;
    hp->rope_type = a->neox ? MODEL_ROPE_NEOX : MODEL_ROPE_NORM;
    hp->qk_norm = a->qk_norm;
    hp->attn_bias = a->attn_bias;
    if (strcmp(a->arch, "qwen2") && strcmp(a->arch, "qwen2moe") && (rc = cfg_bool(c, "attention_bias", &hp->attn_bias)))
        return rc;
    hp->tied_embeddings = a->tied_default;
    if ((rc = cfg_bool(c, "tie_word_embeddings", &hp->tied_embeddings))) return rc;
    if ((rc = cfg_swa(c, hp, a))) return rc;
    return model_hparams_validate(hp, c->err) ? fc_err_prefix(c->err, "%s: ", c->where) : FC_OK;
}

int model_hparams_from_config_json(model_hparams *hp, const char *text, size_t len, const char *where, fc_err *err) {
    if (len > MODEL_CONFIG_MAX_BYTES)
        return fc_err_set(err, FC_EINPUT, "%s: %zu bytes is too large for a config.json", where, len);
    json_error_t jerr;
    /* jansson refuses NaN/Infinity and duplicate keys are rejected too: both
     * mean the file was not written by a JSON serializer. */
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) return fc_err_set(err, FC_EINPUT, "%s: line %d: %s", where, jerr.line, jerr.text);
    cfg_ctx c = {root, where, err};
    int rc = cfg_parse(&c, hp);
    if (!rc) {
        const json_t *meta = json_object_get(root, "_fitcheck");
        const char *name = json_string_value(json_object_get(meta, "display"));
        if (!name) name = json_string_value(json_object_get(root, "_name_or_path"));
        snprintf(hp->name, sizeof hp->name, "%s", name ? name : "");
    }
    json_decref(root);
    return rc;
}

static bool key_ends(const char *key, const char *suffix) {
    size_t k = strlen(key), n = strlen(suffix);
    return k >= n && !strcmp(key + k - n, suffix);
}

/* model.safetensors.index.json lists the checkpoint's tensors. llama.cpp's
 * converter writes what is there, not what config.json claims: no lm_head
 * means a tied output, a q_proj bias means attention biases. */
static int cfg_apply_index(model_hparams *hp, const char *dir, fc_err *err) {
    char file[4096];
    if (snprintf(file, sizeof file, "%s/model.safetensors.index.json", dir) >= (int)sizeof file) return FC_OK;
    struct stat st;
    if (stat(file, &st)) return FC_OK; /* optional */
    char *text;
    size_t len;
    int rc = fc_read_file(file, MODEL_CONFIG_MAX_BYTES, &text, &len, err);
    if (rc) return rc;
    json_error_t jerr;
    json_t *root = json_loadb(text, len, 0, &jerr);
    free(text);
    if (!root) return fc_err_set(err, FC_EINPUT, "%s: line %d: %s", file, jerr.line, jerr.text);
    const json_t *map = json_object_get(root, "weight_map");
    if (!json_is_object(map)) {
        json_decref(root);
        return fc_err_set(err, FC_EINPUT, "%s: key \"weight_map\" is missing or not an object", file);
    }
    bool lm_head = false, embed = false, q_bias = false;
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)map, key, v) {
        lm_head |= key_ends(key, "lm_head.weight");
        embed |= key_ends(key, "embed_tokens.weight");
        q_bias |= key_ends(key, "layers.0.self_attn.q_proj.bias");
    }
    json_decref(root);
    if (embed) hp->tied_embeddings = !lm_head;
    if (q_bias) hp->attn_bias = true;
    return FC_OK;
}

int model_hparams_from_config_path(model_hparams *hp, const char *path, fc_err *err) {
    char file[4096];
    struct stat st;
    if (stat(path, &st)) return fc_err_set(err, FC_EINPUT, "%s: no such file or directory", path);
    int n = S_ISDIR(st.st_mode) ? snprintf(file, sizeof file, "%s/config.json", path)
                                : snprintf(file, sizeof file, "%s", path);
    if (n < 0 || (size_t)n >= sizeof file) return fc_err_set(err, FC_EINPUT, "%s: path too long", path);
    char *text;
    size_t len;
    int rc = fc_read_file(file, MODEL_CONFIG_MAX_BYTES, &text, &len, err);
    if (rc) return rc;
    rc = model_hparams_from_config_json(hp, text, len, file, err);
    free(text);
    if (!rc && S_ISDIR(st.st_mode)) rc = cfg_apply_index(hp, path, err);
    return rc;
}
