/* `fitcheck inspect` on the terminal: what is inside a GGUF file. */
#include "reports/reports.h"

#include <string.h>

static const char *const tokenizer_names[] = {"none", "SentencePiece (llama)", "byte-level BPE (gpt2)", "other"};

int rep_inspect_tokenizer(const model_hparams *hp) {
    return hp->tokenizer >= 0 && hp->tokenizer <= MODEL_TOK_OTHER ? hp->tokenizer : MODEL_TOK_OTHER;
}

void rep_inspect_layers(const rep_inspect_view *v, int role, uint32_t type, char *buf, size_t cap) {
    const uint32_t n_layer = v->desc->hp.n_layer;
    size_t n = 0;
    buf[0] = '\0';
    /* 16: room for one more ",NNNN-NNNN" */
    for (uint32_t il = 0; il < n_layer && n + 16 < cap;) {
        if (!model_summary_has_layer(v->sum, role, type, il)) {
            il++;
            continue;
        }
        uint32_t end = il;
        while (end + 1 < n_layer && model_summary_has_layer(v->sum, role, type, end + 1)) end++;
        n += (size_t)snprintf(buf + n, cap - n, n ? ",%u" : "%u", il);
        if (end > il) n += (size_t)snprintf(buf + n, cap - n, "-%u", end);
        il = end + 1;
    }
}

void rep_inspect_text(FILE *out, const rep_inspect_view *v) {
    const gguf_file *f = v->file;
    const model_desc *d = v->desc;
    const model_hparams *hp = &d->hp;
    const model_summary *s = v->sum;
    char b1[32], b2[32];
    fprintf(out, "file           %s (GGUF v%u, %llu tensors, %llu metadata keys", fc_safe(v->path), f->version,
            (unsigned long long)f->n_tensors, (unsigned long long)f->n_kv);
    if (s->n_splits > 1) fprintf(out, ", %u parts", s->n_splits);
    fprintf(out, ")\n");
    fprintf(out, "architecture   %s%s%s\n", fc_safe(hp->arch), hp->name[0] ? "  — " : "", fc_safe(hp->name));
    fprintf(out, "parameters     %.3f B (%llu)\n", (double)d->n_params / 1e9, (unsigned long long)d->n_params);
    fprintf(out, "size           %s file, %s weights, %.2f bits per weight\n", fc_fmt_bytes(f->size, b1, sizeof b1),
            fc_fmt_bytes(d->weight_bytes, b2, sizeof b2), s->bits_per_weight);
    fprintf(out, "layers         %u, embedding %u, FFN %u, vocabulary %u\n", hp->n_layer, hp->n_embd, hp->n_ff[0],
            hp->n_vocab);
    fprintf(out, "attention      %u heads, %u KV heads, head dim %u/%u, rope dims %u, base %g\n", hp->n_head,
            hp->n_head_kv[0], hp->head_dim_k, hp->head_dim_v, hp->n_rot, hp->rope_freq_base);
    if (hp->n_expert)
        fprintf(out, "experts        %u, %u used per token, expert FFN %u\n", hp->n_expert, hp->n_expert_used,
                hp->n_ff_exp);
    if (hp->sliding_window)
        fprintf(out, "sliding window %u tokens on %u of %u layers\n", hp->sliding_window, s->n_swa_layers, hp->n_layer);
    fprintf(out, "context        %u tokens (training)\n", hp->n_ctx_train);
    /* 4096: llama.cpp's default context (llama-server -c) */
    fprintf(out, "KV cache       %s per token at f16 (%s at 4096 tokens)\n",
            fc_fmt_bytes(s->kv_bytes_per_token_f16, b1, sizeof b1),
            fc_fmt_bytes(s->kv_bytes_per_token_f16 * 4096, b2, sizeof b2));
    fprintf(out, "tokenizer      %s, %u tokens\n", tokenizer_names[rep_inspect_tokenizer(hp)], hp->n_vocab);
    fprintf(out, "\n%-8s %8s %12s %14s\n", "type", "tensors", "size", "params");
    for (uint32_t t = 0; t < GGML_TYPE_COUNT; t++)
        if (s->types[t].count)
            fprintf(out, "%-8s %8u %12s %14llu\n", ggml_type_get(t)->name, s->types[t].count,
                    fc_fmt_bytes(s->types[t].bytes, b1, sizeof b1), (unsigned long long)s->types[t].elements);
    fprintf(out, "\nquantization mix (role: type [layers])\n");
    for (int r = 0; r < ROLE_COUNT; r++)
        for (uint32_t t = 0; t < GGML_TYPE_COUNT; t++) {
            uint32_t n = s->mix[r][t];
            if (!n) continue;
            char layers[REP_INSPECT_LAYERS_MAX];
            rep_inspect_layers(v, r, t, layers, sizeof layers);
            fprintf(out, "  %-14s %-7s %4u tensor%s%s%s%s\n", model_role_name(r), ggml_type_get(t)->name, n,
                    n == 1 ? "" : "s", layers[0] ? "  [layers " : "", layers, layers[0] ? "]" : "");
        }
    if (!v->tensors) return;
    fprintf(out, "\n%-40s %-8s %-28s %14s\n", "tensor", "type", "shape", "bytes");
    for (uint64_t i = 0; i < f->n_tensors; i++) {
        const gguf_tensor *t = &f->tensors[i];
        char shape[64];
        size_t n = 0;
        for (uint32_t k = 0; k < t->n_dims; k++)
            n += (size_t)snprintf(shape + n, sizeof shape - n, k ? " x %lld" : "%lld", (long long)t->ne[k]);
        fprintf(out, "%-40s %-8s %-28s %14llu\n", fc_safe(t->name), ggml_type_get(t->type)->name, shape,
                (unsigned long long)t->bytes);
    }
}

void rep_inspect_read_time(FILE *out, const model_summary *s, double seconds) {
    char b[32];
    if (s->header_bytes_fetched)
        fprintf(out, "(header: %s read over HTTP in %.1f ms)\n", fc_fmt_bytes(s->header_bytes_fetched, b, sizeof b),
                1e3 * seconds);
    else
        fprintf(out, "(read in %.1f ms)\n", 1e3 * seconds);
}
