/* `fitcheck gen`: a random-weight GGUF with a model's exact tensor table.
 *
 * The file carries the hyperparameter keys llama.cpp reads for the
 * architecture, general.file_type, and a synthetic tokenizer of the model's
 * vocabulary size, so llama.cpp and fitcheck load it like the real model and
 * its speed can be measured without downloading the weights. Data is
 * streamed tensor by tensor into a temp file that is renamed at the end. */
#include "gen/gen_internal.h"

#include <libgen.h>
#include <string.h>
#include <sys/statvfs.h>

#define GEN_QUANT_VERSION 2 /* general.quantization_version of current llama.cpp files */
#define GEN_DISK_SLACK (64ull << 20) /* keep this much free beyond the file */

typedef struct gen_ctx {
    const model_desc *d;
    const gen_opts *o;
    gen_rng rng;
    uint64_t done, total; /* tensor bytes, for progress */
} gen_ctx;

static int fill(void *ctx, uint32_t index, void *buf, uint64_t bytes, fc_err *err) {
    gen_ctx *g = ctx;
    if (fc_interrupted) return fc_err_set(err, FC_ERUNTIME, "interrupted"); /* before, not after, a big tensor */
    if (g->o->progress) g->o->progress(g->d->tensors[index].name, g->total ? (double)g->done / (double)g->total : 0);
    g->done += bytes;
    return gen_fill_tensor(&g->d->tensors[index], &g->rng, buf, bytes, err);
}

/* A per-layer value: one integer when all layers agree, else an array. */
static void put_layer_u32(gguf_writer *w, const char *key, const uint32_t *v, uint32_t n) {
    bool same = true;
    for (uint32_t i = 1; i < n; i++) same &= v[i] == v[0];
    if (same) {
        gguf_writer_u32(w, key, v[0]);
        return;
    }
    int32_t a[MODEL_MAX_LAYERS];
    for (uint32_t i = 0; i < n; i++) a[i] = (int32_t)v[i];
    gguf_writer_arr_i32(w, key, a, n);
}

/* RoPE scaling that an architecture's published files carry and
 * model_hparams does not hold: gpt-oss's config.json rope_scaling (yarn,
 * factor 32, original_max_position_embeddings 4096: openai/gpt-oss-20b and
 * -120b), which llama.cpp's converter writes as these keys. */
static const struct {
    const char *arch, *type;
    float factor;
    uint32_t orig_ctx;
} rope_scalings[] = {{"gpt-oss", "yarn", 32.0f, 4096}};

static void put_hparams(gguf_writer *w, const model_hparams *hp, const gen_opts *o) {
    const char *a = hp->arch;
    char key[GGUF_KEY_MAX];
#define KEY(suffix) (snprintf(key, sizeof key, "%s.%s", a, suffix), key)
    gguf_writer_str(w, "general.architecture", a);
    gguf_writer_str(w, "general.name", o->name ? o->name : hp->name[0] ? hp->name : a);
    gguf_writer_u32(w, "general.file_type", hp->file_type);
    gguf_writer_u32(w, "general.quantization_version", GEN_QUANT_VERSION);
    gguf_writer_u32(w, KEY("block_count"), hp->n_layer);
    gguf_writer_u32(w, KEY("context_length"), hp->n_ctx_train);
    gguf_writer_u32(w, KEY("embedding_length"), hp->n_embd);
    /* On MoE layers (n_ff 0) the expert width, as real Mixtral files do:
     * llama.cpp's llama architecture sizes expert tensors by this key. */
    uint32_t ff[MODEL_MAX_LAYERS];
    for (uint32_t il = 0; il < hp->n_layer; il++) ff[il] = hp->n_ff[il] ? hp->n_ff[il] : hp->n_ff_exp;
    put_layer_u32(w, KEY("feed_forward_length"), ff, hp->n_layer);
    gguf_writer_u32(w, KEY("attention.head_count"), hp->n_head);
    put_layer_u32(w, KEY("attention.head_count_kv"), hp->n_head_kv, hp->n_layer);
    gguf_writer_u32(w, KEY("attention.key_length"), hp->head_dim_k);
    gguf_writer_u32(w, KEY("attention.value_length"), hp->head_dim_v);
    gguf_writer_u32(w, KEY("rope.dimension_count"), hp->n_rot);
    gguf_writer_f32(w, KEY("rope.freq_base"), hp->rope_freq_base);
    gguf_writer_f32(w, KEY("attention.layer_norm_rms_epsilon"), hp->norm_eps);
    gguf_writer_u32(w, KEY("vocab_size"), hp->n_vocab);
    /* Keys that only some architectures have: written when set. */
    const struct { const char *suffix; uint32_t v; } optional[] = {
        {"expert_count", hp->n_expert},
        {"expert_used_count", hp->n_expert_used},
        {"expert_feed_forward_length", hp->n_ff_exp},
        {"expert_shared_count", hp->n_expert_shared},
        {"expert_shared_feed_forward_length", hp->n_ff_shexp},
        {"leading_dense_block_count", hp->n_layer_dense_lead},
        {"attention.sliding_window", hp->sliding_window},
        {"attention.kv_lora_rank", hp->kv_lora_rank},
        {"attention.q_lora_rank", hp->q_lora_rank},
    };
    for (size_t i = 0; i < FC_ARRAY_LEN(optional); i++)
        if (optional[i].v) gguf_writer_u32(w, KEY(optional[i].suffix), optional[i].v);
    for (size_t i = 0; i < FC_ARRAY_LEN(rope_scalings); i++)
        if (!strcmp(a, rope_scalings[i].arch)) {
            gguf_writer_str(w, KEY("rope.scaling.type"), rope_scalings[i].type);
            gguf_writer_f32(w, KEY("rope.scaling.factor"), rope_scalings[i].factor);
            gguf_writer_u32(w, KEY("rope.scaling.original_context_length"), rope_scalings[i].orig_ctx);
        }
#undef KEY
}

/* Everything but the tensor data: metadata, tokenizer, tensor infos. */
static int build(gguf_writer **out, const model_desc *d, const gen_opts *o, fc_err *err) {
    gen_vocab v;
    int rc = gen_vocab_build(&v, &d->hp, err);
    gguf_writer *w = rc ? NULL : gguf_writer_new(0);
    if (!rc && !w) rc = fc_err_set(err, FC_ERUNTIME, "out of memory");
    if (!rc) {
        put_hparams(w, &d->hp, o);
        gen_vocab_write(&v, w);
    }
    for (uint32_t i = 0; !rc && i < d->n_tensors; i++) {
        const model_tensor *t = &d->tensors[i];
        rc = gguf_writer_tensor(w, t->name, t->type, t->n_dims, t->ne, NULL, err);
    }
    gen_vocab_free(&v);
    if (rc) {
        gguf_writer_free(w);
        return rc;
    }
    *out = w;
    return FC_OK;
}

int gen_file_size(const model_desc *d, const gen_opts *o, uint64_t *bytes, fc_err *err) {
    gguf_writer *w;
    int rc = build(&w, d, o, err);
    if (rc) return rc;
    rc = gguf_writer_size(w, bytes, err);
    gguf_writer_free(w);
    return rc;
}

static int check_space(const char *path, uint64_t need, fc_err *err) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    struct statvfs sv;
    if (statvfs(dirname(dir), &sv) != 0) return FC_OK; /* cannot tell: the write itself will fail if full */
    uint64_t avail = (uint64_t)sv.f_bavail * sv.f_frsize;
    if (avail < need + GEN_DISK_SLACK) {
        char a[32], b[32];
        return fc_err_set(err, FC_ERUNTIME, "%s: the file needs %s but the disk has %s free", path,
                          fc_fmt_bytes(need, a, sizeof a), fc_fmt_bytes(avail, b, sizeof b));
    }
    return FC_OK;
}

int gen_write(const model_desc *d, const char *path, const gen_opts *o, fc_err *err) {
    gguf_writer *w;
    uint64_t size;
    int rc = build(&w, d, o, err);
    if (rc) return rc;
    rc = gguf_writer_size(w, &size, err);
    if (!rc) rc = check_space(path, size, err);
    fc_atomic_file af;
    if (!rc) rc = fc_atomic_open(&af, path, err);
    if (!rc) {
        gen_ctx g = {d, o, {o->seed}, 0, d->weight_bytes};
        rc = gguf_writer_write(w, af.fp, fill, &g, err);
        if (rc) fc_atomic_abort(&af);
        else rc = fc_atomic_commit(&af, err);
    }
    gguf_writer_free(w);
    return rc;
}
