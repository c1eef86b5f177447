/* What a GGUF holds, summed: the figures `fitcheck inspect` shows, computed
 * once here so reports/ only renders them. */
#include "model/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void model_summary_make(model_summary *s, const gguf_file *f, const model_desc *d) {
    memset(s, 0, sizeof *s);
    for (uint32_t i = 0; i < d->n_tensors; i++) {
        const model_tensor *t = &d->tensors[i];
        s->mix[t->role][t->type]++;
        model_type_total *tt = &s->types[t->type];
        tt->bytes += t->bytes;
        tt->elements += f->tensors[i].n_elements;
        tt->count++;
        if (t->layer >= 0) s->layers[t->role][t->type][t->layer / 8] |= (uint8_t)(1u << (t->layer % 8));
    }
    s->bits_per_weight = d->n_params ? 8.0 * (double)d->weight_bytes / (double)d->n_params : 0;
    s->kv_bytes_per_token_f16 = 2 * model_hparams_kv_elems_per_token(&d->hp);
    for (uint32_t il = 0; il < d->hp.n_layer; il++) s->n_swa_layers += d->hp.swa_layer[il];
    s->has_file_type = gguf_get_i64(f, "general.file_type", &s->file_type);
    s->n_splits = f->n_splits > 1 ? f->n_splits : 1;
    /* a part read over HTTP keeps its header bytes on the heap; a local file maps */
    for (uint32_t i = 0; i < s->n_splits; i++) {
        const gguf_file *p = f->n_splits > 1 ? f->splits[i] : f;
        if (p->heap) s->header_bytes_fetched += p->avail;
    }
}

bool model_summary_has_layer(const model_summary *s, int role, uint32_t type, uint32_t layer) {
    return layer < MODEL_MAX_LAYERS && (s->layers[role][type][layer / 8] >> (layer % 8) & 1u);
}

int model_catalog_summaries(model_catalog_summary **out, size_t *n, fc_err *err) {
    size_t count = model_catalog_count();
    model_catalog_summary *v = calloc(count ? count : 1, sizeof *v);
    model_hparams *hp = malloc(sizeof *hp);
    int rc = v && hp ? FC_OK : fc_err_set(err, FC_ERUNTIME, "out of memory listing the model catalog");
    for (size_t i = 0; !rc && i < count; i++) {
        model_catalog_summary *s = &v[i];
        model_desc d;
        rc = model_catalog_get(i, &s->info, hp, err);
        if (!rc) rc = model_desc_synthesize(&d, hp, MODEL_DEFAULT_QUANT, err);
        if (rc) break;
        snprintf(s->arch, sizeof s->arch, "%s", hp->arch);
        s->n_layer = hp->n_layer;
        s->n_expert = hp->n_expert;
        s->n_ctx_train = hp->n_ctx_train;
        s->n_params = d.n_params;
        s->file_bytes = d.file_bytes;
        s->kv_bytes_per_token_f16 = 2 * model_hparams_kv_elems_per_token(hp);
        model_desc_free(&d);
    }
    free(hp);
    if (rc) {
        free(v);
        return rc;
    }
    *out = v;
    *n = count;
    return FC_OK;
}
