/* fitcheck inspect FILE.gguf: what is inside a GGUF file. */
#include "cli/cli.h"
#include "model/model.h"

#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char *tokenizer_names[] = {"none", "SentencePiece (llama)", "byte-level BPE (gpt2)", "other"};
static const char *tokenizer_ids[] = {"none", "spm", "bpe", "other"};

typedef struct type_total {
    uint64_t bytes, elements;
    uint32_t count;
} type_total;

/* Layers of role r stored as type t, written as ranges "0-3,6,9-12". */
static void layer_ranges(const model_desc *d, int role, uint32_t type, char *buf, size_t cap) {
    uint8_t has[MODEL_MAX_LAYERS] = {0};
    for (uint32_t i = 0; i < d->n_tensors; i++)
        if (d->tensors[i].role == role && d->tensors[i].type == type && d->tensors[i].layer >= 0)
            has[d->tensors[i].layer] = 1;
    size_t n = 0;
    buf[0] = '\0';
    for (uint32_t il = 0; il < d->hp.n_layer && n + 16 < cap;) {
        if (!has[il]) {
            il++;
            continue;
        }
        uint32_t end = il;
        while (end + 1 < d->hp.n_layer && has[end + 1]) end++;
        n += (size_t)snprintf(buf + n, cap - n, n ? ",%u" : "%u", il);
        if (end > il) n += (size_t)snprintf(buf + n, cap - n, "-%u", end);
        il = end + 1;
    }
}

/* The part of a split model holding t (the file itself when not split). */
static const gguf_file *split_of(const gguf_file *f, const gguf_tensor *t) {
    return f->n_splits > 1 ? f->splits[t->split] : f;
}

/* Bytes read over HTTP for the header (all parts); 0 for local files. */
static uint64_t header_bytes_fetched(const gguf_file *f) {
    uint64_t n = 0;
    for (uint32_t i = 0; i < (f->n_splits > 1 ? f->n_splits : 1); i++) {
        const gguf_file *p = f->n_splits > 1 ? f->splits[i] : f;
        if (p->heap) n += p->avail;
    }
    return n;
}

static int inspect_file(const char *path, bool json, bool tensors) {
    fc_err err = {0};
    double t0 = fc_now();
    gguf_file *f;
    if (gguf_open_model(&f, path, &err)) return cli_report_error("inspect", &err);
    model_desc d;
    if (model_desc_from_gguf(&d, f, &err)) {
        gguf_close(f);
        return cli_report_error("inspect", &err);
    }
    const model_hparams *hp = &d.hp;
    type_total totals[GGML_TYPE_COUNT] = {0};
    uint32_t mix[ROLE_COUNT][GGML_TYPE_COUNT]; /* tensors per (role, type) */
    memset(mix, 0, sizeof mix);
    for (uint32_t i = 0; i < d.n_tensors; i++) {
        mix[d.tensors[i].role][d.tensors[i].type]++;
        type_total *tt = &totals[d.tensors[i].type];
        tt->bytes += d.tensors[i].bytes;
        tt->elements += f->tensors[i].n_elements;
        tt->count++;
    }
    double bpw = d.n_params ? 8.0 * (double)d.weight_bytes / (double)d.n_params : 0;
    uint64_t kvtok = 2 * model_hparams_kv_elems_per_token(hp);
    uint32_t n_swa = 0;
    for (uint32_t il = 0; il < hp->n_layer; il++) n_swa += hp->swa_layer[il];
    int tok = hp->tokenizer >= 0 && hp->tokenizer <= MODEL_TOK_OTHER ? hp->tokenizer : MODEL_TOK_OTHER;
    char ftype[32] = "";
    int64_t ft;
    if (gguf_get_i64(f, "general.file_type", &ft)) snprintf(ftype, sizeof ftype, "%lld", (long long)ft);

    if (json) {
        json_t *o = json_object();
        json_object_set_new(o, "file", json_string(path));
        json_object_set_new(o, "gguf_version", json_integer(f->version));
        json_object_set_new(o, "n_splits", json_integer(f->n_splits ? f->n_splits : 1));
        json_object_set_new(o, "architecture", json_string(hp->arch));
        json_object_set_new(o, "name", json_string(hp->name));
        json_object_set_new(o, "file_bytes", json_integer((json_int_t)f->size));
        json_object_set_new(o, "weight_bytes", json_integer((json_int_t)d.weight_bytes));
        json_object_set_new(o, "n_params", json_integer((json_int_t)d.n_params));
        json_object_set_new(o, "bits_per_weight", json_real(bpw));
        json_object_set_new(o, "n_tensors", json_integer((json_int_t)f->n_tensors));
        json_object_set_new(o, "n_kv", json_integer((json_int_t)f->n_kv));
        json_object_set_new(o, "file_type", ftype[0] ? json_integer(ft) : json_null());
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
        json_object_set_new(o, "hparams", h);
        json_object_set_new(o, "kv_bytes_per_token_f16", json_integer((json_int_t)kvtok));
        json_object_set_new(o, "tokenizer", json_string(tokenizer_ids[tok]));
        json_t *types = json_array();
        for (uint32_t t = 0; t < GGML_TYPE_COUNT; t++) {
            if (!totals[t].count) continue;
            json_t *e = json_object();
            json_object_set_new(e, "type", json_string(ggml_type_get(t)->name));
            json_object_set_new(e, "tensors", json_integer(totals[t].count));
            json_object_set_new(e, "bytes", json_integer((json_int_t)totals[t].bytes));
            json_object_set_new(e, "params", json_integer((json_int_t)totals[t].elements));
            json_array_append_new(types, e);
        }
        json_object_set_new(o, "types", types);
        json_t *mixa = json_array();
        for (int r = 0; r < ROLE_COUNT; r++)
            for (uint32_t t = 0; t < GGML_TYPE_COUNT; t++) {
                uint32_t n = mix[r][t];
                if (!n) continue;
                char layers[1024];
                layer_ranges(&d, r, t, layers, sizeof layers);
                json_t *e = json_object();
                json_object_set_new(e, "role", json_string(model_role_name(r)));
                json_object_set_new(e, "type", json_string(ggml_type_get(t)->name));
                json_object_set_new(e, "tensors", json_integer(n));
                json_object_set_new(e, "layers", json_string(layers));
                json_array_append_new(mixa, e);
            }
        json_object_set_new(o, "mix", mixa);
        if (tensors) {
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
            json_object_set_new(o, "tensors", ta);
        }
        cli_print_json(o);
    } else {
        char b1[32], b2[32];
        printf("file           %s (GGUF v%u, %llu tensors, %llu metadata keys", fc_safe(path), f->version,
               (unsigned long long)f->n_tensors, (unsigned long long)f->n_kv);
        if (f->n_splits > 1) printf(", %u parts", f->n_splits);
        printf(")\n");
        printf("architecture   %s%s%s\n", fc_safe(hp->arch), hp->name[0] ? "  — " : "", fc_safe(hp->name));
        printf("parameters     %.3f B (%llu)\n", (double)d.n_params / 1e9, (unsigned long long)d.n_params);
        printf("size           %s file, %s weights, %.2f bits per weight\n", fc_fmt_bytes(f->size, b1, sizeof b1),
               fc_fmt_bytes(d.weight_bytes, b2, sizeof b2), bpw);
        printf("layers         %u, embedding %u, FFN %u, vocabulary %u\n", hp->n_layer, hp->n_embd, hp->n_ff[0],
               hp->n_vocab);
        printf("attention      %u heads, %u KV heads, head dim %u/%u, rope dims %u, base %g\n", hp->n_head,
               hp->n_head_kv[0], hp->head_dim_k, hp->head_dim_v, hp->n_rot, hp->rope_freq_base);
        if (hp->n_expert)
            printf("experts        %u, %u used per token, expert FFN %u\n", hp->n_expert, hp->n_expert_used, hp->n_ff_exp);
        if (hp->sliding_window) printf("sliding window %u tokens on %u of %u layers\n", hp->sliding_window, n_swa, hp->n_layer);
        printf("context        %u tokens (training)\n", hp->n_ctx_train);
        printf("KV cache       %s per token at f16 (%s at 4096 tokens)\n", fc_fmt_bytes(kvtok, b1, sizeof b1),
               fc_fmt_bytes(kvtok * 4096, b2, sizeof b2));
        printf("tokenizer      %s, %u tokens\n", tokenizer_names[tok], hp->n_vocab);
        printf("\n%-8s %8s %12s %14s\n", "type", "tensors", "size", "params");
        for (uint32_t t = 0; t < GGML_TYPE_COUNT; t++)
            if (totals[t].count)
                printf("%-8s %8u %12s %14llu\n", ggml_type_get(t)->name, totals[t].count,
                       fc_fmt_bytes(totals[t].bytes, b1, sizeof b1), (unsigned long long)totals[t].elements);
        printf("\nquantization mix (role: type [layers])\n");
        for (int r = 0; r < ROLE_COUNT; r++)
            for (uint32_t t = 0; t < GGML_TYPE_COUNT; t++) {
                uint32_t n = mix[r][t];
                if (!n) continue;
                char layers[1024];
                layer_ranges(&d, r, t, layers, sizeof layers);
                printf("  %-14s %-7s %4u tensor%s%s%s%s\n", model_role_name(r), ggml_type_get(t)->name, n, n == 1 ? "" : "s",
                       layers[0] ? "  [layers " : "", layers, layers[0] ? "]" : "");
            }
        if (tensors) {
            printf("\n%-40s %-8s %-28s %14s\n", "tensor", "type", "shape", "bytes");
            for (uint64_t i = 0; i < f->n_tensors; i++) {
                const gguf_tensor *t = &f->tensors[i];
                char shape[64];
                size_t n = 0;
                for (uint32_t k = 0; k < t->n_dims; k++)
                    n += (size_t)snprintf(shape + n, sizeof shape - n, k ? " x %lld" : "%lld", (long long)t->ne[k]);
                printf("%-40s %-8s %-28s %14llu\n", fc_safe(t->name), ggml_type_get(t->type)->name, shape, (unsigned long long)t->bytes);
            }
        }
        uint64_t fetched = header_bytes_fetched(f);
        if (fetched)
            fprintf(stderr, "(header: %s read over HTTP in %.1f ms)\n", fc_fmt_bytes(fetched, b1, sizeof b1),
                    1e3 * (fc_now() - t0));
        else
            fprintf(stderr, "(read in %.1f ms)\n", 1e3 * (fc_now() - t0));
    }
    model_desc_free(&d);
    gguf_close(f);
    return 0;
}

int cli_inspect(int argc, char **argv) {
    static const struct option opts[] = {
        {"json", no_argument, 0, 'j'}, {"tensors", no_argument, 0, 't'}, {"help", no_argument, 0, 'h'},
        {"model", required_argument, 0, 'm'}, {0, 0, 0, 0}};
    bool json = false, tensors = false;
    const char *file = NULL;
    int c;
    optind = 1;
    opterr = 0;
    /* "-m FILE" as llama.cpp spells the model; an unknown option is named as written */
    const char *unknown = cli_llama_aliases(argc, argv, opts, "jth");
    if (unknown) return cli_usage_error("inspect", "unknown option '%s'", unknown);
    while ((c = getopt_long(argc, argv, "jth", opts, NULL)) != -1) {
        switch (c) {
        case 'm':
            if (file) return cli_usage_error("inspect", "expected exactly one GGUF file");
            file = optarg;
            break;
        case 'j': json = true; break;
        case 't': tensors = true; break;
        case 'h':
            printf("usage: fitcheck inspect FILE.gguf|URL [--tensors] [--json]\n\n"
                   "A URL (http:// or https://) is read with range requests: the header only.\n"
                   "A split model (NAME-00001-of-0000N.gguf) is read through all its parts.\n"
                   "Architecture, parameters, size and bits per weight, bytes per tensor type, the\n"
                   "quantization mix per role and layer, training context, KV cache per token, tokenizer.\n"
                   "  --tensors  list every tensor with type, shape and size\n"
                   "  --json     machine-readable output\n");
            return 0;
        default: return cli_usage_error("inspect", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (file ? optind != argc : optind != argc - 1) return cli_usage_error("inspect", "expected exactly one GGUF file or URL");
    return inspect_file(file ? file : argv[optind], json, tensors);
}
