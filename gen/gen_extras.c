/* `fitcheck gen --mmproj` / `--lora-for`: the files that load next to a model,
 * with the shapes llama.cpp's converters write, so the planner's --mmproj
 * and --lora are tested on files llama.cpp itself loads.
 *
 * A projector (SmolVLM-256M-Instruct's or Gemma 3 4B's, table below) is laid
 * out as convert_hf_to_gguf.py writes mmproj-*-f16.gguf: 2-D weights f16, norms
 * and biases f32, the embeddings ("*.embeddings.*") f32, then the projector's
 * own matrices. The adapter is
 * what convert_lora_to_gguf.py writes for a PEFT LoRA on q/k/v/o and the MLP:
 * per base weight W [n_in, n_out], W.lora_a [n_in, r] and W.lora_b [r, n_out], f16. */
#include "gen/gen_internal.h"

#include <stdlib.h>
#include <string.h>

/* The projectors gen writes: each a published mmproj's vision config and
 * the text model's width its projector maps to. */
typedef struct mmproj_preset {
    const char *name, *projector, *title;
    int64_t embd, ff, layers, heads, image, patch, text_embd;
    uint32_t scale;  /* idefics3: pixel-shuffle factor (clip.vision.projector.scale_factor); gemma3: pooling */
    float eps;
} mmproj_preset;

static const mmproj_preset presets[] = {
    /* HuggingFaceTB/SmolVLM-256M-Instruct config.json vision_config; text hidden 576 */
    {GEN_MMPROJ_SMOLVLM, "idefics3", "SmolVLM-256M-Instruct", 768, 3072, 12, 12, 512, 16, 576, 4, 1e-6f},
    /* google/gemma-3-4b-it config.json vision_config (SigLIP so400m, 896 px, patch 14); text hidden 2560;
     * clip.cpp pools the 64x64 patches by 4 (n_merge = 4 for every Gemma 3) */
    {GEN_MMPROJ_GEMMA3, "gemma3", "gemma-3-4b-it", 1152, 4304, 27, 16, 896, 14, 2560, 4, 1e-6f},
};
#define RGB 3
#define LORA_ALPHA_PER_RANK 2.0f /* PEFT's common lora_alpha = 2 r */

typedef struct tensor_list {
    model_tensor *t;
    uint32_t n, cap;
} tensor_list;

static int add(tensor_list *l, const char *name, uint32_t type, uint32_t n_dims, const int64_t *ne, fc_err *err) {
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 64;
        model_tensor *t = realloc(l->t, cap * sizeof *t);
        if (!t) return fc_err_set(err, FC_ERUNTIME, "out of memory");
        l->t = t;
        l->cap = cap;
    }
    model_tensor *t = &l->t[l->n++];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->type = type;
    t->n_dims = n_dims;
    for (uint32_t d = 0; d < GGUF_MAX_DIMS; d++) t->ne[d] = d < n_dims ? ne[d] : 1;
    t->layer = -1;
    /* biases fill as zeros, norms as ones (gen_fill_tensor reads the name's role) */
    t->role = strstr(name, ".bias") ? ROLE_ATTN_BIAS : strstr(name, "ln") ? ROLE_NORM : ROLE_OTHER;
    return FC_OK;
}

#define ADD(l, name, type, ...)                                                                                        \
    add(l, name, type, (uint32_t)FC_ARRAY_LEN(((int64_t[]){__VA_ARGS__})), (int64_t[]){__VA_ARGS__}, err)

static int preset_tensors(tensor_list *l, const mmproj_preset *pr, fc_err *err) {
    const int64_t e = pr->embd, f = pr->ff, np = (pr->image / pr->patch) * (pr->image / pr->patch);
    int rc = ADD(l, "v.patch_embd.weight", GGML_TYPE_F32, pr->patch, pr->patch, RGB, e);
    if (!rc) rc = ADD(l, "v.patch_embd.bias", GGML_TYPE_F32, e);
    if (!rc) rc = ADD(l, "v.position_embd.weight", GGML_TYPE_F32, e, np);
    static const char *const mats[] = {"attn_q", "attn_k", "attn_v", "attn_out"};
    char n[GGUF_NAME_MAX];
    for (int il = 0; !rc && il < pr->layers; il++) {
        for (size_t m = 0; !rc && m < FC_ARRAY_LEN(mats); m++) {
            snprintf(n, sizeof n, "v.blk.%d.%s.weight", il, mats[m]);
            rc = ADD(l, n, GGML_TYPE_F16, e, e);
            snprintf(n, sizeof n, "v.blk.%d.%s.bias", il, mats[m]);
            if (!rc) rc = ADD(l, n, GGML_TYPE_F32, e);
        }
        static const char *const norms[] = {"ln1", "ln2"};
        for (size_t m = 0; !rc && m < FC_ARRAY_LEN(norms); m++) {
            snprintf(n, sizeof n, "v.blk.%d.%s.weight", il, norms[m]);
            rc = ADD(l, n, GGML_TYPE_F32, e);
            snprintf(n, sizeof n, "v.blk.%d.%s.bias", il, norms[m]);
            if (!rc) rc = ADD(l, n, GGML_TYPE_F32, e);
        }
        snprintf(n, sizeof n, "v.blk.%d.ffn_up.weight", il);
        if (!rc) rc = ADD(l, n, GGML_TYPE_F16, e, f);
        snprintf(n, sizeof n, "v.blk.%d.ffn_up.bias", il);
        if (!rc) rc = ADD(l, n, GGML_TYPE_F32, f);
        snprintf(n, sizeof n, "v.blk.%d.ffn_down.weight", il);
        if (!rc) rc = ADD(l, n, GGML_TYPE_F16, f, e);
        snprintf(n, sizeof n, "v.blk.%d.ffn_down.bias", il);
        if (!rc) rc = ADD(l, n, GGML_TYPE_F32, e);
    }
    if (!rc) rc = ADD(l, "v.post_ln.weight", GGML_TYPE_F32, e);
    if (!rc) rc = ADD(l, "v.post_ln.bias", GGML_TYPE_F32, e);
    if (rc) return rc;
    /* idefics3: mm.model.fc [e x scale^2, text]; gemma3: mm.input_projection [text, e] (clip.cpp transposes
     * it) after RMS-norm mm.soft_emb_norm [e] */
    if (!strcmp(pr->projector, "idefics3"))
        return ADD(l, "mm.model.fc.weight", GGML_TYPE_F16, e * pr->scale * pr->scale, pr->text_embd);
    rc = ADD(l, "mm.input_projection.weight", GGML_TYPE_F16, pr->text_embd, e);
    if (!rc) rc = ADD(l, "mm.soft_emb_norm.weight", GGML_TYPE_F32, e);
    return rc;
}

typedef struct fill_ctx {
    const tensor_list *l;
    gen_rng rng;
} fill_ctx;

static int fill(void *ctx, uint32_t index, void *buf, uint64_t bytes, fc_err *err) {
    fill_ctx *c = ctx;
    if (fc_interrupted) return fc_err_set(err, FC_ERUNTIME, "interrupted");
    return gen_fill_tensor(&c->l->t[index], &c->rng, buf, bytes, err);
}

static int write_list(gguf_writer *w, tensor_list *l, const char *path, uint64_t seed, fc_err *err) {
    int rc = FC_OK;
    for (uint32_t i = 0; !rc && i < l->n; i++) {
        model_tensor *t = &l->t[i];
        if (!ggml_row_bytes(t->type, (uint64_t)t->ne[0], &t->bytes))
            rc = fc_err_set(err, FC_EINPUT, "%s: rows of %lld are not whole blocks", t->name, (long long)t->ne[0]);
        for (uint32_t d = 1; d < t->n_dims; d++) t->bytes *= (uint64_t)t->ne[d];
        if (!rc) rc = gguf_writer_tensor(w, t->name, t->type, t->n_dims, t->ne, NULL, err);
    }
    fc_atomic_file af;
    if (!rc) rc = fc_atomic_open(&af, path, err);
    if (!rc) {
        fill_ctx c = {l, {seed}};
        rc = gguf_writer_write(w, af.fp, fill, &c, err);
        if (rc) fc_atomic_abort(&af);
        else rc = fc_atomic_commit(&af, err);
    }
    return rc;
}

int gen_mmproj_write(const char *preset, const char *path, uint64_t seed, fc_err *err) {
    const mmproj_preset *pr = NULL;
    for (size_t i = 0; i < FC_ARRAY_LEN(presets); i++)
        if (!strcmp(preset, presets[i].name)) pr = &presets[i];
    if (!pr)
        return fc_err_set(err, FC_EINPUT, "--mmproj: '%s' is not a projector gen knows (" GEN_MMPROJ_SMOLVLM ", "
                          GEN_MMPROJ_GEMMA3 ")", fc_safe(preset));
    tensor_list l = {0};
    gguf_writer *w = gguf_writer_new(0);
    int rc = w ? preset_tensors(&l, pr, err) : fc_err_set(err, FC_ERUNTIME, "out of memory");
    if (!rc) {
        /* the keys convert_hf_to_gguf.py's MmprojModel and its SmolVLM / Gemma3 subclasses write */
        static const float half[RGB] = {0.5f, 0.5f, 0.5f};
        char name[128];
        snprintf(name, sizeof name, "%s mmproj (fitcheck gen, random weights)", pr->title);
        gguf_writer_str(w, "general.architecture", "clip");
        gguf_writer_str(w, "general.name", name);
        gguf_writer_u32(w, "general.file_type", 1); /* MOSTLY_F16 */
        gguf_writer_bool(w, "clip.has_vision_encoder", true);
        gguf_writer_str(w, "clip.projector_type", pr->projector);
        gguf_writer_bool(w, "clip.use_gelu", true);
        gguf_writer_u32(w, "clip.vision.image_size", (uint32_t)pr->image);
        gguf_writer_u32(w, "clip.vision.patch_size", (uint32_t)pr->patch);
        gguf_writer_u32(w, "clip.vision.embedding_length", (uint32_t)pr->embd);
        gguf_writer_u32(w, "clip.vision.feed_forward_length", (uint32_t)pr->ff);
        gguf_writer_u32(w, "clip.vision.block_count", (uint32_t)pr->layers);
        gguf_writer_u32(w, "clip.vision.projection_dim", (uint32_t)pr->text_embd);
        gguf_writer_u32(w, "clip.vision.attention.head_count", (uint32_t)pr->heads);
        gguf_writer_f32(w, "clip.vision.attention.layer_norm_epsilon", pr->eps);
        gguf_writer_arr_f32(w, "clip.vision.image_mean", half, RGB);
        gguf_writer_arr_f32(w, "clip.vision.image_std", half, RGB);
        gguf_writer_u32(w, "clip.vision.projector.scale_factor", pr->scale);
        rc = write_list(w, &l, path, seed, err);
    }
    gguf_writer_free(w);
    free(l.t);
    return rc;
}

/* The matrices PEFT's usual target_modules (q,k,v,o,gate,up,down) adapt. */
static bool lora_target(int role) {
    return role == ROLE_ATTN_Q || role == ROLE_ATTN_K || role == ROLE_ATTN_V || role == ROLE_ATTN_OUT ||
           role == ROLE_FFN_GATE || role == ROLE_FFN_UP || role == ROLE_FFN_DOWN;
}

int gen_lora_write(const model_desc *base, uint32_t rank, const char *path, uint64_t seed, fc_err *err) {
    if (!rank) return fc_err_set(err, FC_EINPUT, "--rank 0: a LoRA needs a rank of at least 1");
    tensor_list l = {0};
    gguf_writer *w = gguf_writer_new(0);
    int rc = w ? FC_OK : fc_err_set(err, FC_ERUNTIME, "out of memory");
    char n[GGUF_NAME_MAX + 8];
    for (uint32_t i = 0; !rc && i < base->n_tensors; i++) {
        const model_tensor *t = &base->tensors[i];
        if (!lora_target(t->role) || t->n_dims != 2 || strlen(t->name) + 8 > GGUF_NAME_MAX - 1) continue;
        snprintf(n, sizeof n, "%s.lora_a", t->name);
        rc = ADD(&l, n, GGML_TYPE_F16, t->ne[0], rank);
        snprintf(n, sizeof n, "%s.lora_b", t->name);
        if (!rc) rc = ADD(&l, n, GGML_TYPE_F16, rank, t->ne[1]);
    }
    if (!rc && !l.n) rc = fc_err_set(err, FC_EINPUT, "%s: no attention or MLP matrices to adapt", fc_safe(base->source));
    if (!rc) {
        /* convert_lora_to_gguf.py: general.type "adapter", adapter.type "lora", the base's architecture */
        gguf_writer_str(w, "general.architecture", base->hp.arch);
        gguf_writer_str(w, "general.type", "adapter");
        gguf_writer_str(w, "general.name", "LoRA (fitcheck gen, random weights)");
        gguf_writer_str(w, "adapter.type", "lora");
        gguf_writer_f32(w, "adapter.lora.alpha", LORA_ALPHA_PER_RANK * (float)rank);
        rc = write_list(w, &l, path, seed, err);
    }
    gguf_writer_free(w);
    free(l.t);
    return rc;
}
