/* What loads next to a model: a vision projector (--mmproj) and LoRA
 * adapters (--lora), read from their GGUF headers.
 *
 * A projector is the GGUF llama.cpp's mtmd library loads (tools/mtmd/clip.cpp,
 * clip_model_loader): general.architecture "clip", the clip.vision.* keys of
 * its ViT and a tensor table whose bytes clip.cpp loads into one backend
 * buffer ("model size" in its log). A LoRA adapter is what
 * convert_lora_to_gguf.py writes and llama-adapter.cpp loads: adapter.type
 * "lora", and per adapted base tensor NAME a pair NAME.lora_a [n_in, r] and
 * NAME.lora_b [r, n_out]; llama.cpp refuses a pair whose shapes do not match
 * the base tensor ("has incorrect shape (hint: maybe wrong base model?)"). */
#include "model/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLIP_ARCH "clip"
#define LORA_TYPE "lora"
#define LORA_A_SUFFIX ".lora_a"
#define LORA_B_SUFFIX ".lora_b"
#define KEY_CLIP_VISION "clip.has_vision_encoder"

static bool get_u32(const gguf_file *f, const char *key, uint32_t *out) {
    int64_t v;
    if (!gguf_get_i64(f, key, &v) || v < 0 || v > UINT32_MAX) return false;
    *out = (uint32_t)v;
    return true;
}

int model_mmproj_load(model_mmproj *m, const char *path, fc_err *err) {
    memset(m, 0, sizeof *m);
    snprintf(m->path, sizeof m->path, "%s", path);
    gguf_file *f;
    int rc = gguf_open(&f, path, err);
    if (rc) return rc;
    char arch[MODEL_ARCH_MAX] = "";
    bool vision = false;
    gguf_get_str(f, "general.architecture", arch, sizeof arch);
    gguf_get_bool(f, KEY_CLIP_VISION, &vision);
    /* the keys clip.cpp reads for the vision encoder (clip-impl.h KEY_*) */
    static const struct { const char *key; size_t off; } keys[] = {
        {"clip.vision.image_size", offsetof(model_mmproj, image_size)},
        {"clip.vision.patch_size", offsetof(model_mmproj, patch_size)},
        {"clip.vision.embedding_length", offsetof(model_mmproj, n_embd)},
        {"clip.vision.feed_forward_length", offsetof(model_mmproj, n_ff)},
        {"clip.vision.block_count", offsetof(model_mmproj, n_layer)},
        {"clip.vision.attention.head_count", offsetof(model_mmproj, n_head)},
    };
    if (strcmp(arch, CLIP_ARCH)) {
        rc = fc_err_set(err, FC_EINPUT, "%s: not a vision projector: general.architecture is '%s', not '" CLIP_ARCH
                        "' (--mmproj takes the mmproj-*.gguf published next to a vision model)", fc_safe(path),
                        fc_safe(arch));
    } else if (!vision) {
        rc = fc_err_set(err, FC_EINPUT, "%s: a clip file without a vision encoder (" KEY_CLIP_VISION " is not true)",
                        fc_safe(path));
    }
    for (size_t i = 0; !rc && i < FC_ARRAY_LEN(keys); i++)
        if (!get_u32(f, keys[i].key, (uint32_t *)((char *)m + keys[i].off)))
            rc = fc_err_set(err, FC_EINPUT, "%s: %s is missing or not a count", fc_safe(path), keys[i].key);
    /* clip.cpp's own sanity limits (clip_model_loader::load_hparams) */
    if (!rc && (!m->patch_size || m->image_size < m->patch_size || m->image_size > MODEL_CLIP_IMAGE_MAX || !m->n_embd ||
                !m->n_head || m->n_embd % m->n_head || !m->n_layer || m->n_layer > MODEL_MAX_LAYERS))
        rc = fc_err_set(err, FC_EINPUT, "%s: image_size %u, patch_size %u, %u heads of a %u-wide ViT: not a "
                        "projector llama.cpp loads", fc_safe(path), m->image_size, m->patch_size, m->n_head, m->n_embd);
    if (!rc) {
        gguf_get_str(f, "clip.projector_type", m->projector, sizeof m->projector);
        uint32_t sf = 1;
        get_u32(f, "clip.vision.projector.scale_factor", &sf);
        m->scale_factor = sf ? sf : 1;
        get_u32(f, "clip.vision.projection_dim", &m->proj_dim);
        m->class_token = gguf_find_tensor(f, "v.class_embd") != NULL;
        for (uint64_t i = 0; i < f->n_tensors; i++) {
            const gguf_tensor *t = &f->tensors[i];
            m->weight_bytes += t->bytes;
            /* the projector's output width: the largest dimension of an mm.* matrix's output side */
            if (!strncmp(t->name, "mm.", 3) && t->n_dims == 2 && (uint64_t)t->ne[1] > m->proj_out)
                m->proj_out = (uint64_t)t->ne[1];
            if (!strncmp(t->name, "mm.", 3) && t->n_dims == 2 && (uint64_t)t->ne[0] > m->proj_in)
                m->proj_in = (uint64_t)t->ne[0];
        }
        m->n_tensors = (uint32_t)f->n_tensors;
        m->file_bytes = f->size;
    }
    gguf_close(f);
    return rc;
}

/* "blk.3.attn_q.weight.lora_a" -> base "blk.3.attn_q.weight", is_a. */
static bool lora_base_name(const char *name, char *base, size_t cap, bool *is_a) {
    size_t n = strlen(name), s = strlen(LORA_A_SUFFIX);
    if (n <= s || n - s >= cap) return false;
    if (!strcmp(name + n - s, LORA_A_SUFFIX)) *is_a = true;
    else if (!strcmp(name + n - s, LORA_B_SUFFIX)) *is_a = false;
    else return false;
    memcpy(base, name, n - s);
    base[n - s] = '\0';
    return true;
}

static const model_tensor *base_tensor(const model_desc *b, const char *name) {
    for (uint32_t i = 0; i < b->n_tensors; i++)
        if (!strcmp(b->tensors[i].name, name)) return &b->tensors[i];
    return NULL;
}

/* The checks llama_adapter_lora_init_impl makes, in its words. */
static int lora_pair_check(const char *path, const char *base, const gguf_tensor *a, const gguf_tensor *bt,
                           const model_tensor *t, fc_err *err) {
    bool embd = t->role == ROLE_TOKEN_EMBD;
    /* token_embd: B is not transposed, A and B are flipped (llm_build_inp_embd) */
    bool ok = embd ? t->ne[0] == bt->ne[1] && t->ne[1] == a->ne[1] : t->ne[0] == a->ne[0] && t->ne[1] == bt->ne[1];
    if (!ok)
        return fc_err_set(err, FC_EINPUT, "%s: LoRA for '%s' has shape A [%lld, %lld] B [%lld, %lld] but the base "
                          "tensor is [%lld, %lld]: an adapter for another base model", fc_safe(path), fc_safe(base),
                          (long long)a->ne[0], (long long)a->ne[1], (long long)bt->ne[0], (long long)bt->ne[1],
                          (long long)t->ne[0], (long long)t->ne[1]);
    if (!embd && a->ne[1] != bt->ne[0])
        return fc_err_set(err, FC_EINPUT, "%s: LoRA for '%s': lora_a [%lld, %lld] is not transposed against lora_b "
                          "[%lld, %lld]", fc_safe(path), fc_safe(base), (long long)a->ne[0], (long long)a->ne[1],
                          (long long)bt->ne[0], (long long)bt->ne[1]);
    return FC_OK;
}

int model_lora_load(model_lora *l, const char *path, const model_desc *base, fc_err *err) {
    memset(l, 0, sizeof *l);
    snprintf(l->path, sizeof l->path, "%s", path);
    gguf_file *f;
    int rc = gguf_open(&f, path, err);
    if (rc) return rc;
    char type[32] = "", arch[MODEL_ARCH_MAX] = "";
    gguf_get_str(f, "adapter.type", type, sizeof type);
    gguf_get_str(f, "general.architecture", arch, sizeof arch);
    double alpha = 0;
    if (strcmp(type, LORA_TYPE))
        rc = fc_err_set(err, FC_EINPUT, "%s: not a LoRA adapter: adapter.type is '%s', not '" LORA_TYPE "'",
                        fc_safe(path), fc_safe(type));
    else if (strcmp(arch, base->hp.arch))
        rc = fc_err_set(err, FC_EINPUT, "%s: an adapter for '%s', the model is '%s'", fc_safe(path), fc_safe(arch),
                        fc_safe(base->hp.arch));
    if (!rc && gguf_get_f64(f, "adapter.lora.alpha", &alpha)) l->alpha = alpha;
    for (uint64_t i = 0; !rc && i < f->n_tensors; i++) {
        const gguf_tensor *a = &f->tensors[i];
        char bname[GGUF_NAME_MAX], other[GGUF_NAME_MAX + 8];
        bool is_a;
        if (!lora_base_name(a->name, bname, sizeof bname, &is_a)) {
            rc = fc_err_set(err, FC_EINPUT, "%s: tensor '%s' is neither NAME.lora_a nor NAME.lora_b", fc_safe(path),
                            fc_safe(a->name));
            break;
        }
        if (!is_a) continue; /* counted with its A */
        snprintf(other, sizeof other, "%s" LORA_B_SUFFIX, bname);
        const gguf_tensor *b = gguf_find_tensor(f, other);
        const model_tensor *t = base_tensor(base, bname);
        if (!b) rc = fc_err_set(err, FC_EINPUT, "%s: '%s' has no lora_b", fc_safe(path), fc_safe(a->name));
        else if (!t)
            rc = fc_err_set(err, FC_EINPUT, "%s: the model has no tensor '%s' to adapt", fc_safe(path), fc_safe(bname));
        else rc = lora_pair_check(path, bname, a, b, t, err);
        if (rc) break;
        uint64_t bytes = a->bytes + b->bytes;
        /* llama.cpp puts both where the base tensor is (its buffer type) */
        if (t->layer >= 0 && (uint32_t)t->layer < MODEL_MAX_LAYERS) l->layer_bytes[t->layer] += bytes;
        else if (t->role == ROLE_TOKEN_EMBD) l->embd_bytes += bytes;
        else l->out_bytes += bytes;
        l->bytes += bytes;
        l->n_pairs++;
        uint32_t r = (uint32_t)(t->role == ROLE_TOKEN_EMBD ? b->ne[0] : a->ne[1]);
        if (r > l->rank) l->rank = r;
    }
    for (uint64_t i = 0; !rc && i < f->n_tensors; i++) {
        char bname[GGUF_NAME_MAX], other[GGUF_NAME_MAX + 8];
        bool is_a;
        if (lora_base_name(f->tensors[i].name, bname, sizeof bname, &is_a) && !is_a) {
            snprintf(other, sizeof other, "%s" LORA_A_SUFFIX, bname);
            if (!gguf_find_tensor(f, other))
                rc = fc_err_set(err, FC_EINPUT, "%s: '%s' has no lora_a", fc_safe(path), fc_safe(f->tensors[i].name));
        }
    }
    if (!rc && !l->n_pairs) rc = fc_err_set(err, FC_EINPUT, "%s: a LoRA adapter without tensors", fc_safe(path));
    gguf_close(f);
    return rc;
}
