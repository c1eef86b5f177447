/* `fitcheck inspect --json` (docs/schema-inspect.md). */
#include "reports/reports.h"

static const char *const tokenizer_ids[] = {"none", "spm", "bpe", "other"};

/* The part of a split model holding t (the file itself when not split). */
static const gguf_file *split_of(const gguf_file *f, const gguf_tensor *t) {
    return f->n_splits > 1 ? f->splits[t->split] : f;
}

static json_t *hparams_json(const model_hparams *hp, uint32_t n_swa) {
    json_t *h = json_object();
    json_object_set_new(h, "n_layer", json_integer(hp->n_layer));
    json_object_set_new(h, "n_embd", json_integer(hp->n_embd));
    json_object_set_new(h, "n_head", json_integer(hp->n_head));
    json_object_set_new(h, "n_head_kv", json_integer(hp->n_head_kv[0]));
    json_object_set_new(h, "head_dim_k", json_integer(hp->head_dim_k));
    json_object_set_new(h, "head_dim_v", json_integer(hp->head_dim_v));
    json_object_set_new(h, "n_rot", json_integer(hp->n_rot));
    json_object_set_new(h, "n_ff", json_integer(hp->n_ff[0]));
    json_object_set_new(h, "n_vocab", json_integer(hp->n_vocab));
    json_object_set_new(h, "n_ctx_train", json_integer(hp->n_ctx_train));
    json_object_set_new(h, "n_expert", json_integer(hp->n_expert));
    json_object_set_new(h, "n_expert_used", json_integer(hp->n_expert_used));
    json_object_set_new(h, "sliding_window", json_integer(hp->sliding_window));
    json_object_set_new(h, "n_swa_layers", json_integer(n_swa));
    json_object_set_new(h, "rope_freq_base", json_real(hp->rope_freq_base));
    json_object_set_new(h, "norm_eps", json_real(hp->norm_eps));
    json_object_set_new(h, "tied_embeddings", json_boolean(hp->tied_embeddings));
    return h;
}

static json_t *tensors_json(const gguf_file *f) {
    json_t *ta = json_array();
    for (uint64_t i = 0; i < f->n_tensors; i++) {
        const gguf_tensor *t = &f->tensors[i];
        json_t *e = json_object(), *ne = json_array();
        json_object_set_new(e, "name", json_string(t->name));
        json_object_set_new(e, "type", json_string(ggml_type_get(t->type)->name));
        for (uint32_t k = 0; k < t->n_dims; k++) json_array_append_new(ne, json_integer(t->ne[k]));
        json_object_set_new(e, "ne", ne);
        json_object_set_new(e, "split", json_integer(t->split));
        json_object_set_new(e, "offset", json_integer((json_int_t)(split_of(f, t)->data_offset + t->offset)));
        json_object_set_new(e, "bytes", json_integer((json_int_t)t->bytes));
        json_array_append_new(ta, e);
    }
    return ta;
}

json_t *rep_inspect_json(const rep_inspect_view *v) {
    const gguf_file *f = v->file;
    const model_desc *d = v->desc;
    const model_hparams *hp = &d->hp;
    const model_summary *s = v->sum;
    json_t *o = json_object();
    json_object_set_new(o, "file", json_string(v->path));
    json_object_set_new(o, "gguf_version", json_integer(f->version));
    json_object_set_new(o, "n_splits", json_integer(s->n_splits));
    json_object_set_new(o, "architecture", json_string(hp->arch));
    json_object_set_new(o, "name", json_string(hp->name));
    json_object_set_new(o, "file_bytes", json_integer((json_int_t)f->size));
    json_object_set_new(o, "weight_bytes", json_integer((json_int_t)d->weight_bytes));
    json_object_set_new(o, "n_params", json_integer((json_int_t)d->n_params));
    json_object_set_new(o, "bits_per_weight", json_real(s->bits_per_weight));
    json_object_set_new(o, "n_tensors", json_integer((json_int_t)f->n_tensors));
    json_object_set_new(o, "n_kv", json_integer((json_int_t)f->n_kv));
    json_object_set_new(o, "file_type", s->has_file_type ? json_integer(s->file_type) : json_null());
    json_object_set_new(o, "hparams", hparams_json(hp, s->n_swa_layers));
    json_object_set_new(o, "kv_bytes_per_token_f16", json_integer((json_int_t)s->kv_bytes_per_token_f16));
    json_object_set_new(o, "tokenizer", json_string(tokenizer_ids[rep_inspect_tokenizer(hp)]));
    json_t *types = json_array();
    for (uint32_t t = 0; t < GGML_TYPE_COUNT; t++) {
        if (!s->types[t].count) continue;
        json_t *e = json_object();
        json_object_set_new(e, "type", json_string(ggml_type_get(t)->name));
        json_object_set_new(e, "tensors", json_integer(s->types[t].count));
        json_object_set_new(e, "bytes", json_integer((json_int_t)s->types[t].bytes));
        json_object_set_new(e, "params", json_integer((json_int_t)s->types[t].elements));
        json_array_append_new(types, e);
    }
    json_object_set_new(o, "types", types);
    json_t *mix = json_array();
    for (int r = 0; r < ROLE_COUNT; r++)
        for (uint32_t t = 0; t < GGML_TYPE_COUNT; t++) {
            if (!s->mix[r][t]) continue;
            char layers[REP_INSPECT_LAYERS_MAX];
            rep_inspect_layers(v, r, t, layers, sizeof layers);
            json_t *e = json_object();
            json_object_set_new(e, "role", json_string(model_role_name(r)));
            json_object_set_new(e, "type", json_string(ggml_type_get(t)->name));
            json_object_set_new(e, "tensors", json_integer(s->mix[r][t]));
            json_object_set_new(e, "layers", json_string(layers));
            json_array_append_new(mix, e);
        }
    json_object_set_new(o, "mix", mix);
    if (v->tensors) json_object_set_new(o, "tensors", tensors_json(f));
    return o;
}
