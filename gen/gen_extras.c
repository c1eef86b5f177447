/* `fitcheck gen --mmproj` / `--lora-for`: the files that load next to a model,
 * with the shapes llama.cpp's converters write, so the planner's --mmproj
 * and --lora are tested on files llama.cpp itself loads.
 *
 * The projector is SmolVLM-256M-Instruct's (HuggingFaceTB/SmolVLM-256M-Instruct
 * config.json vision_config: SigLIP, hidden 768, 12 layers, 12 heads, MLP 3072,
 * image 512, patch 16; scale_factor 4; text hidden 576), laid out as
 * convert_hf_to_gguf.py's SmolVLMModel writes mmproj-SmolVLM-256M-Instruct-f16.gguf:
 * 2-D weights f16, norms and biases f32, the embeddings ("*.embeddings.*") f32,
 * the idefics3 projector mm.model.fc.weight [768 x 16, 576]. The adapter is
 * what convert_lora_to_gguf.py writes for a PEFT LoRA on q/k/v/o and the MLP:
 * per base weight W [n_in, n_out], W.lora_a [n_in, r] and W.lora_b [r, n_out], f16. */
#include "gen/gen_internal.h"

#include <stdlib.h>
#include <string.h>

#define SMOLVLM_EMBD 768
#define SMOLVLM_FF 3072
#define SMOLVLM_LAYERS 12
#define SMOLVLM_HEADS 12
#define SMOLVLM_IMAGE 512
#define SMOLVLM_PATCH 16
#define SMOLVLM_SCALE 4
#define SMOLVLM_TEXT_EMBD 576
#define SMOLVLM_EPS 1e-6f
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

static int smolvlm_tensors(tensor_list *l, fc_err *err) {
    const int64_t e = SMOLVLM_EMBD, f = SMOLVLM_FF, np = (SMOLVLM_IMAGE / SMOLVLM_PATCH) * (SMOLVLM_IMAGE / SMOLVLM_PATCH);
    int rc = ADD(l, "v.patch_embd.weight", GGML_TYPE_F32, SMOLVLM_PATCH, SMOLVLM_PATCH, RGB, e);
    if (!rc) rc = ADD(l, "v.patch_embd.bias", GGML_TYPE_F32, e);
    if (!rc) rc = ADD(l, "v.position_embd.weight", GGML_TYPE_F32, e, np);
    static const char *const mats[] = {"attn_q", "attn_k", "attn_v", "attn_out"};
    char n[GGUF_NAME_MAX];
    for (int il = 0; !rc && il < SMOLVLM_LAYERS; il++) {
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
    if (!rc) rc = ADD(l, "mm.model.fc.weight", GGML_TYPE_F16, e * SMOLVLM_SCALE * SMOLVLM_SCALE, SMOLVLM_TEXT_EMBD);
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
    if (strcmp(preset, GEN_MMPROJ_SMOLVLM))
        return fc_err_set(err, FC_EINPUT, "--mmproj: '%s' is not a projector gen knows (" GEN_MMPROJ_SMOLVLM ")",
                          fc_safe(preset));
    tensor_list l = {0};
    gguf_writer *w = gguf_writer_new(0);
    int rc = w ? smolvlm_tensors(&l, err) : fc_err_set(err, FC_ERUNTIME, "out of memory");
    if (!rc) {
        /* the keys convert_hf_to_gguf.py's MmprojModel / SmolVLMModel write */
        static const float half[RGB] = {0.5f, 0.5f, 0.5f};
        gguf_writer_str(w, "general.architecture", "clip");
        gguf_writer_str(w, "general.name", "SmolVLM-256M-Instruct mmproj (fitcheck gen, random weights)");
        gguf_writer_u32(w, "general.file_type", 1); /* MOSTLY_F16 */
        gguf_writer_bool(w, "clip.has_vision_encoder", true);
        gguf_writer_str(w, "clip.projector_type", "idefics3");
        gguf_writer_bool(w, "clip.use_gelu", true);
        gguf_writer_u32(w, "clip.vision.image_size", SMOLVLM_IMAGE);
        gguf_writer_u32(w, "clip.vision.patch_size", SMOLVLM_PATCH);
        gguf_writer_u32(w, "clip.vision.embedding_length", SMOLVLM_EMBD);
        gguf_writer_u32(w, "clip.vision.feed_forward_length", SMOLVLM_FF);
        gguf_writer_u32(w, "clip.vision.block_count", SMOLVLM_LAYERS);
        gguf_writer_u32(w, "clip.vision.projection_dim", SMOLVLM_TEXT_EMBD);
        gguf_writer_u32(w, "clip.vision.attention.head_count", SMOLVLM_HEADS);
        gguf_writer_f32(w, "clip.vision.attention.layer_norm_epsilon", SMOLVLM_EPS);
        gguf_writer_arr_f32(w, "clip.vision.image_mean", half, RGB);
        gguf_writer_arr_f32(w, "clip.vision.image_std", half, RGB);
        gguf_writer_u32(w, "clip.vision.projector.scale_factor", SMOLVLM_SCALE);
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
