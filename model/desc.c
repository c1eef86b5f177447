/* Model description: hyperparameters plus a tensor table with roles. */
#include "model/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Tensor name suffix (after "blk.N.") -> role. Order matters only where one
 * suffix is a prefix of another, so exact matches are used. */
static const struct { const char *name; int role; } role_names[] = {
    {"attn_norm", ROLE_NORM}, {"ffn_norm", ROLE_NORM}, {"attn_q_norm", ROLE_NORM}, {"attn_k_norm", ROLE_NORM},
    {"post_attention_norm", ROLE_NORM}, {"post_ffw_norm", ROLE_NORM}, {"attn_post_norm", ROLE_NORM},
    {"ffn_post_norm", ROLE_NORM}, {"attn_sinks", ROLE_NORM}, {"exp_probs_b", ROLE_NORM},
    {"attn_q", ROLE_ATTN_Q}, {"attn_k", ROLE_ATTN_K}, {"attn_v", ROLE_ATTN_V}, {"attn_qkv", ROLE_ATTN_QKV},
    {"attn_output", ROLE_ATTN_OUT},
    {"attn_q_a", ROLE_ATTN_MLA}, {"attn_q_b", ROLE_ATTN_MLA}, {"attn_kv_a_mqa", ROLE_ATTN_MLA},
    {"attn_kv_b", ROLE_ATTN_MLA}, {"attn_k_b", ROLE_ATTN_MLA}, {"attn_v_b", ROLE_ATTN_MLA},
    {"attn_q_a_norm", ROLE_NORM}, {"attn_kv_a_norm", ROLE_NORM},
    {"ffn_gate", ROLE_FFN_GATE}, {"ffn_up", ROLE_FFN_UP}, {"ffn_down", ROLE_FFN_DOWN},
    {"ffn_gate_inp", ROLE_FFN_GATE_INP},
    {"ffn_gate_exps", ROLE_FFN_GATE_EXPS}, {"ffn_up_exps", ROLE_FFN_UP_EXPS}, {"ffn_down_exps", ROLE_FFN_DOWN_EXPS},
    {"ffn_gate_shexp", ROLE_FFN_GATE_SHEXP}, {"ffn_up_shexp", ROLE_FFN_UP_SHEXP},
    {"ffn_down_shexp", ROLE_FFN_DOWN_SHEXP}, {"ffn_gate_inp_shexp", ROLE_FFN_GATE_INP},
};

static const char *const role_labels[ROLE_COUNT] = {
    [ROLE_OTHER] = "other", [ROLE_TOKEN_EMBD] = "token_embd", [ROLE_OUTPUT] = "output",
    [ROLE_OUTPUT_NORM] = "output_norm", [ROLE_NORM] = "norm", [ROLE_ATTN_Q] = "attn_q", [ROLE_ATTN_K] = "attn_k",
    [ROLE_ATTN_V] = "attn_v", [ROLE_ATTN_QKV] = "attn_qkv", [ROLE_ATTN_OUT] = "attn_output",
    [ROLE_ATTN_BIAS] = "bias", [ROLE_FFN_GATE] = "ffn_gate", [ROLE_FFN_UP] = "ffn_up", [ROLE_FFN_DOWN] = "ffn_down",
    [ROLE_FFN_GATE_INP] = "ffn_gate_inp", [ROLE_FFN_GATE_EXPS] = "ffn_gate_exps", [ROLE_FFN_UP_EXPS] = "ffn_up_exps",
    [ROLE_FFN_DOWN_EXPS] = "ffn_down_exps", [ROLE_FFN_GATE_SHEXP] = "ffn_gate_shexp",
    [ROLE_FFN_UP_SHEXP] = "ffn_up_shexp", [ROLE_FFN_DOWN_SHEXP] = "ffn_down_shexp", [ROLE_ATTN_MLA] = "attn_mla",
};

const char *model_role_name(int role) {
    return role >= 0 && role < ROLE_COUNT && role_labels[role] ? role_labels[role] : "other";
}

int model_tensor_role(const char *name, int32_t *layer) {
    *layer = -1;
    if (!strncmp(name, "blk.", 4)) {
        char *end;
        long il = strtol(name + 4, &end, 10);
        if (end == name + 4 || *end != '.' || il < 0 || il >= MODEL_MAX_LAYERS) return ROLE_OTHER;
        *layer = (int32_t)il;
        const char *suffix = end + 1;
        const char *dot = strrchr(suffix, '.');
        size_t len = dot ? (size_t)(dot - suffix) : strlen(suffix);
        if (dot && !strcmp(dot, ".bias")) return ROLE_ATTN_BIAS;
        for (size_t i = 0; i < FC_ARRAY_LEN(role_names); i++)
            if (strlen(role_names[i].name) == len && !strncmp(role_names[i].name, suffix, len)) return role_names[i].role;
        return ROLE_OTHER;
    }
    if (!strcmp(name, "token_embd.weight")) return ROLE_TOKEN_EMBD;
    if (!strcmp(name, "output.weight")) return ROLE_OUTPUT;
    if (!strcmp(name, "output_norm.weight")) return ROLE_OUTPUT_NORM;
    return ROLE_OTHER;
}

int model_desc_from_gguf(model_desc *d, const gguf_file *f, fc_err *err) {
    memset(d, 0, sizeof *d);
    int rc = model_hparams_from_gguf(&d->hp, f, err);
    if (rc) return rc;
    if (f->n_tensors > UINT32_MAX) return fc_err_set(err, FC_EINPUT, "%s: too many tensors", f->path);
    d->tensors = fc_calloc(f->n_tensors, sizeof *d->tensors, err);
    if (!d->tensors) return FC_ERUNTIME;
    d->n_tensors = (uint32_t)f->n_tensors;
    for (uint32_t i = 0; i < d->n_tensors; i++) {
        const gguf_tensor *g = &f->tensors[i];
        model_tensor *t = &d->tensors[i];
        memcpy(t->name, g->name, sizeof t->name);
        t->n_dims = g->n_dims;
        memcpy(t->ne, g->ne, sizeof t->ne);
        t->type = g->type;
        t->bytes = g->bytes;
        t->offset = g->offset;
        t->role = model_tensor_role(g->name, &t->layer);
        if (t->layer >= (int32_t)d->hp.n_layer) {
            /* Read the layer before freeing: t points into d->tensors
             * (use-after-free found by fuzz/fuzz_gguf.c). */
            int32_t layer = t->layer;
            model_desc_free(d);
            return fc_err_set(err, FC_EINPUT, "%s: tensor %s names layer %d but the model has %u layers", f->path,
                              g->name, layer, d->hp.n_layer);
        }
        d->n_params += g->n_elements;
        d->weight_bytes += g->bytes;
    }
    d->file_bytes = f->size;
    d->has_offsets = true;
    snprintf(d->source, sizeof d->source, "%s", f->path);
    snprintf(d->file, sizeof d->file, "%s", f->path);
    return FC_OK;
}

void model_desc_free(model_desc *d) {
    free(d->tensors);
    d->tensors = NULL;
    d->n_tensors = 0;
}

