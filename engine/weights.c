/* Binds a GGUF file's tensors to the engine's model struct, checking every
 * shape and type before the forward pass may touch them (the file comes from
 * a stranger). The first context copies the matrices out of the mapping (see
 * eng_model_copy_weights); vectors and the token embedding stay in it. */
#include "engine/internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define FFN_NORM "ffn_norm.weight"
static const eng_arch arch_table[] = {
    {"llama", ENG_GLU_SILU, false, false, FFN_NORM},   /* Llama 2/3, Mistral, SmolLM2, Mixtral (with experts) */
    {"mistral", ENG_GLU_SILU, false, false, FFN_NORM},
    {"qwen2", ENG_GLU_SILU, false, false, FFN_NORM},   /* + Q/K/V biases */
    {"qwen3", ENG_GLU_SILU, false, false, FFN_NORM},   /* + Q/K norms */
    {"qwen3moe", ENG_GLU_SILU, false, false, FFN_NORM},
    {"gemma3", ENG_GLU_GELU, true, true, FFN_NORM},
    /* + attention sinks, biases on o, router and experts, YaRN (llama.cpp
     * src/models/openai-moe.cpp) */
    {"gpt-oss", ENG_GLU_SWIGLU_OAI, false, false, "post_attention_norm.weight"},
};

/* YaRN's defaults where the file sets none (llama.cpp llama-hparams.h
 * yarn_beta_fast, yarn_beta_slow; llama-context.cpp sets ext_factor 1 for
 * YaRN), and the constant of its attention scaling 1 + 0.1 ln(factor)
 * (ggml-cpu ops.cpp rope_yarn). */
#define YARN_BETA_FAST 32.0f
#define YARN_BETA_SLOW 1.0f
#define YARN_MSCALE_LOG 0.1f

/* Gemma 3 27B scales queries by 1/sqrt(n_embd / n_head) instead of
 * 1/sqrt(head_dim) (its query_pre_attn_scalar); llama.cpp keys it on 62 layers. */
#define GEMMA3_27B_LAYERS 62

static const eng_arch *arch_find(const char *name) {
    for (size_t i = 0; i < FC_ARRAY_LEN(arch_table); i++)
        if (!strcmp(arch_table[i].name, name)) return &arch_table[i];
    return NULL;
}

static bool type_supported(uint32_t type) {
    return type < GGML_TYPE_COUNT && eng_kernels_get(ENG_ISA_SCALAR)->type[type].act != ENG_ACT_NONE;
}

int eng_model_check(const gguf_file *f, fc_err *err) {
    char arch[MODEL_ARCH_MAX] = "";
    gguf_get_str(f, "general.architecture", arch, sizeof arch);
    if (!arch_find(arch)) {
        char list[256] = "";
        for (size_t i = 0; i < FC_ARRAY_LEN(arch_table); i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", arch_table[i].name);
        return fc_err_set(err, FC_EINPUT, "%s: architecture '%s' is not supported by the engine (supported: %s)",
                          f->path, arch, list);
    }
    for (uint64_t i = 0; i < f->n_tensors; i++) {
        const gguf_tensor *t = &f->tensors[i];
        if (!type_supported(t->type)) {
            const ggml_type_info *ti = ggml_type_get(t->type);
            return fc_err_set(err, FC_EINPUT, "%s: tensor %s has type %s (id %u), which the engine does not support",
                              f->path, t->name, ti ? ti->name : "unknown", t->type);
        }
    }
    return FC_OK;
}

typedef struct binder {
    const gguf_file *f;
    fc_err *err;
    int rc;
} binder;

static const gguf_tensor *find(binder *b, const char *name, bool required) {
    if (b->rc) return NULL;
    const gguf_tensor *t = gguf_find_tensor(b->f, name);
    if (!t && required) b->rc = fc_err_set(b->err, FC_EINPUT, "%s: tensor %s is missing", b->f->path, name);
    return t;
}

/* A 1-D f32 vector of n elements. */
static const float *bind_vec(binder *b, const char *name, int64_t n, bool required) {
    const gguf_tensor *t = find(b, name, required);
    if (!t) return NULL;
    if (t->type != GGML_TYPE_F32 || t->n_elements != (uint64_t)n) {
        b->rc = fc_err_set(b->err, FC_EINPUT, "%s: tensor %s should be f32 with %lld elements (has type %u, %llu elements)",
                           b->f->path, name, (long long)n, t->type, (unsigned long long)t->n_elements);
        return NULL;
    }
    return t->data;
}

static void bind_mat(binder *b, eng_mat *m, const char *name, int64_t n_in, int64_t n_out, int64_t n_expert,
                     bool required) {
    memset(m, 0, sizeof *m);
    const gguf_tensor *t = find(b, name, required);
    if (!t) return;
    uint64_t rb;
    if (t->ne[0] != n_in || t->ne[1] != n_out || t->ne[2] != n_expert || t->ne[3] != 1) {
        b->rc = fc_err_set(b->err, FC_EINPUT, "%s: tensor %s has shape %lld x %lld x %lld, expected %lld x %lld x %lld",
                           b->f->path, name, (long long)t->ne[0], (long long)t->ne[1], (long long)t->ne[2],
                           (long long)n_in, (long long)n_out, (long long)n_expert);
        return;
    }
    if (!type_supported(t->type) || !ggml_row_bytes(t->type, (uint64_t)n_in, &rb) ||
        (eng_kernels_get(ENG_ISA_SCALAR)->type[t->type].act == ENG_ACT_Q8 && n_in % 32)) {
        b->rc = fc_err_set(b->err, FC_EINPUT, "%s: tensor %s: type id %u with rows of %lld is not supported", b->f->path,
                           name, t->type, (long long)n_in);
        return;
    }
    *m = (eng_mat){.data = t->data, .type = t->type, .n_in = n_in, .n_out = n_out, .n_expert = n_expert, .row_bytes = (size_t)rb};
}

static int bind_layer(binder *b, eng_model *m, uint32_t il) {
    const model_hparams *hp = &m->hp;
    eng_layer *L = &m->layers[il];
    int64_t e = hp->n_embd, hk = hp->head_dim_k, hv = hp->head_dim_v;
    int64_t q = (int64_t)hp->n_head * hk, kd = (int64_t)hp->n_head_kv[il] * hk, vd = (int64_t)hp->n_head_kv[il] * hv;
    char nm[GGUF_NAME_MAX];
#define NAME(s) (snprintf(nm, sizeof nm, "blk.%u." s, il), nm)
    L->attn_norm = bind_vec(b, NAME("attn_norm.weight"), e, true);
    L->ffn_norm = bind_vec(b, (snprintf(nm, sizeof nm, "blk.%u.%s", il, m->arch->ffn_norm), nm), e, true);
    if (m->arch->post_norms) {
        L->attn_post_norm = bind_vec(b, NAME("post_attention_norm.weight"), e, true);
        L->ffn_post_norm = bind_vec(b, NAME("post_ffw_norm.weight"), e, true);
    }
    L->q_norm = bind_vec(b, NAME("attn_q_norm.weight"), hk, false);
    L->k_norm = bind_vec(b, NAME("attn_k_norm.weight"), hk, false);
    L->bq = bind_vec(b, NAME("attn_q.bias"), q, false);
    L->bk = bind_vec(b, NAME("attn_k.bias"), kd, false);
    L->bv = bind_vec(b, NAME("attn_v.bias"), vd, false);
    L->bo = bind_vec(b, NAME("attn_output.bias"), e, false);
    L->sinks = bind_vec(b, NAME("attn_sinks.weight"), hp->n_head, false);
    bind_mat(b, &L->wq, NAME("attn_q.weight"), e, q, 1, true);
    bind_mat(b, &L->wk, NAME("attn_k.weight"), e, kd, 1, true);
    bind_mat(b, &L->wv, NAME("attn_v.weight"), e, vd, 1, true);
    bind_mat(b, &L->wo, NAME("attn_output.weight"), q, e, 1, true);
    L->moe = hp->n_expert > 0 && gguf_find_tensor(b->f, NAME("ffn_gate_inp.weight")) != NULL;
    if (L->moe) {
        int64_t ff = hp->n_ff_exp ? hp->n_ff_exp : hp->n_ff[il], ne = hp->n_expert;
        bind_mat(b, &L->gate_inp, NAME("ffn_gate_inp.weight"), e, ne, 1, true);
        bind_mat(b, &L->gate_exps, NAME("ffn_gate_exps.weight"), e, ff, ne, true);
        bind_mat(b, &L->up_exps, NAME("ffn_up_exps.weight"), e, ff, ne, true);
        bind_mat(b, &L->down_exps, NAME("ffn_down_exps.weight"), ff, e, ne, true);
        L->gate_inp_b = bind_vec(b, NAME("ffn_gate_inp.bias"), ne, false);
        L->gate_exps_b = bind_vec(b, NAME("ffn_gate_exps.bias"), ff * ne, false);
        L->up_exps_b = bind_vec(b, NAME("ffn_up_exps.bias"), ff * ne, false);
        L->down_exps_b = bind_vec(b, NAME("ffn_down_exps.bias"), e * ne, false);
        if (!b->rc && hp->n_expert_shared)
            b->rc = fc_err_set(b->err, FC_EINPUT, "%s: shared experts are not supported by the engine", b->f->path);
        if ((uint32_t)ff > m->ff_max) m->ff_max = (uint32_t)ff;
    } else {
        int64_t ff = hp->n_ff[il];
        bind_mat(b, &L->ffn_gate, NAME("ffn_gate.weight"), e, ff, 1, true);
        bind_mat(b, &L->ffn_up, NAME("ffn_up.weight"), e, ff, 1, true);
        bind_mat(b, &L->ffn_down, NAME("ffn_down.weight"), ff, e, 1, true);
        if ((uint32_t)ff > m->ff_max) m->ff_max = (uint32_t)ff;
    }
#undef NAME
    L->swa = hp->sliding_window && hp->swa_layer[il];
    L->rope_base = L->swa ? hp->rope_freq_base_swa : hp->rope_freq_base;
    if ((uint32_t)kd > m->kv_dim_max) m->kv_dim_max = (uint32_t)kd;
    if ((uint32_t)vd > m->kv_dim_max) m->kv_dim_max = (uint32_t)vd;
    return b->rc;
}

/* ---- packing ------------------------------------------------------------------ */

/* The matrices the forward pass multiplies by. The token embedding is read a
 * row per token from the mapping; a tied output matrix is the same tensor
 * but gets its own copy: it is read whole for every token (a fifth of
 * Llama 3.2 1B's weights), so it needs the packed layout as much as any. n is
 * the number of entries written to out. */
#define ENG_LAYER_MATS 10
static size_t model_mats(eng_model *m, eng_mat **out, size_t cap) {
    size_t n = 0;
    for (uint32_t il = 0; il < m->hp.n_layer; il++) {
        eng_layer *L = &m->layers[il];
        eng_mat *mats[ENG_LAYER_MATS] = {&L->wq, &L->wk, &L->wv, &L->wo, &L->ffn_gate, &L->ffn_up, &L->ffn_down,
                                             &L->gate_exps, &L->up_exps, &L->down_exps};
        for (size_t i = 0; i < FC_ARRAY_LEN(mats); i++)
            if (mats[i]->data && n < cap) out[n++] = mats[i];
    }
    if (n < cap) out[n++] = &m->output;
    return n;
}

static bool packable(const eng_mat *w) {
    return eng_kernels_get(ENG_ISA_SCALAR)->type[w->type].pack_bytes && w->n_out % ENG_PACK_ROWS == 0;
}

static size_t group_bytes(const eng_mat *w) {
    return eng_kernels_get(ENG_ISA_SCALAR)->type[w->type].pack_bytes * (size_t)(w->n_in / ggml_type_get(w->type)->blck);
}

static size_t packed_bytes(const eng_mat *w) {
    return group_bytes(w) * (size_t)(w->n_out * w->n_expert / ENG_PACK_ROWS);
}

/* Source pages are dropped after every this many bytes copied: peak resident
 * memory while loading stays within this of the file's size, however large
 * one tensor is (an 8B model's output matrix is 430 MB). */
#define ENG_COPY_DROP_BYTES (8u << 20)
/* Each matrix starts on a cache line of the copy. */
#define ENG_COPY_ALIGN 64

/* Drops the whole pages inside [lo, hi) of the file mapping from this process
 * (the page cache keeps them; the tensor's neighbours may share the edges). */
static void drop_pages(const uint8_t *lo, const uint8_t *hi) {
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t a = ((uintptr_t)lo + page - 1) & ~(page - 1), b = (uintptr_t)hi & ~(page - 1);
    if (b > a) madvise((void *)a, b - a, MADV_DONTNEED);
}

static size_t copy_bytes(const eng_mat *w) {
    size_t b = packable(w) ? packed_bytes(w) : w->row_bytes * (size_t)(w->n_out * w->n_expert);
    return (b + ENG_COPY_ALIGN - 1) / ENG_COPY_ALIGN * ENG_COPY_ALIGN;
}

/* Copies every matrix the forward pass multiplies by into one anonymous
 * mapping with huge pages, packed (quant.h) where the type has a packed
 * layout and row for row otherwise, dropping the file pages it came from out
 * of this process as it goes, so resident memory stays about the file's size
 * rather than twice it. Why copy: streaming from 4 KiB file pages is slower
 * than from 2 MiB pages (the hardware prefetchers stop at page edges): on
 * TinyLlama-shaped F16, 2 threads, decode ran 13.8 t/s from the file mapping
 * and 15.3 from the copy, measured alternately in the same minutes. */
int eng_model_copy_weights(eng_model *m, fc_err *err) {
    if (m->weights_map) return FC_OK;
    size_t cap = (size_t)m->hp.n_layer * ENG_LAYER_MATS + 1, n;
    eng_mat **mats = fc_calloc(cap, sizeof *mats, err);
    if (!mats) return FC_ERUNTIME;
    n = model_mats(m, mats, cap);
    size_t total = 0;
    for (size_t i = 0; i < n; i++) total += copy_bytes(mats[i]);
    if (!total) {
        free(mats);
        return FC_OK;
    }
    uint8_t *map = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) {
        char b[32];
        free(mats);
        return fc_err_set(err, FC_ERUNTIME, "%s: cannot allocate %s for the weights: %s", m->gguf->path,
                          fc_fmt_bytes(total, b, sizeof b), strerror(errno));
    }
    madvise(map, total, MADV_HUGEPAGE);
    /* a file mapping re-reads dropped pages from the page cache; a buffer
     * would lose them, so only a mapping gets its pages dropped */
    bool drop = m->gguf->owns_map;
    uint8_t *dst = map;
    for (size_t i = 0; i < n; i++) {
        eng_mat *w = mats[i];
        bool pk = packable(w);
        const eng_type_ops *ops = &eng_kernels_get(ENG_ISA_SCALAR)->type[w->type];
        int64_t n_blocks = w->n_in / ggml_type_get(w->type)->blck, rows = w->n_out * w->n_expert;
        if (pk) w->group_bytes = group_bytes(w);
        const uint8_t *dropped = w->data;
        /* 8 rows at a time: a packed group, or a plain copy */
        for (int64_t r = 0; r < rows; r += ENG_PACK_ROWS) {
            int64_t nr = rows - r < ENG_PACK_ROWS ? rows - r : ENG_PACK_ROWS;
            const uint8_t *src = w->data + (size_t)r * w->row_bytes, *done = src + (size_t)nr * w->row_bytes;
            if (pk) ops->pack(src, w->row_bytes, dst + (size_t)(r / ENG_PACK_ROWS) * w->group_bytes, n_blocks);
            else memcpy(dst + (size_t)r * w->row_bytes, src, (size_t)nr * w->row_bytes);
            if (drop && (done - dropped >= ENG_COPY_DROP_BYTES || r + nr == rows)) {
                drop_pages(dropped, done);
                dropped = done;
            }
        }
        if (pk) w->packed = dst;
        else w->data = dst;
        dst += copy_bytes(w);
    }
    m->weights_map = map;
    m->weights_map_bytes = total;
    free(mats);
    return FC_OK;
}

/* llama-bench's model_type; the most common weight type by bytes stands for
 * a file type the GGUF does not record. */
static void describe(eng_model *m) {
    uint64_t by_type[GGML_TYPE_COUNT] = {0};
    const gguf_file *f = m->gguf;
    for (uint64_t i = 0; i < f->n_tensors; i++) {
        m->n_params += f->tensors[i].n_elements;
        m->size += f->tensors[i].bytes;
        if (f->tensors[i].n_dims >= 2) by_type[f->tensors[i].type] += f->tensors[i].bytes;
    }
    uint32_t best = 0;
    for (uint32_t t = 0; t < GGML_TYPE_COUNT; t++)
        if (by_type[t] > by_type[best]) best = t;
    char up[16];
    const ggml_type_info *ti = ggml_type_get(best);
    snprintf(up, sizeof up, "%s", ti ? ti->name : "?");
    for (char *c = up; *c; c++) *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
    model_bench_desc(&m->hp, m->n_params, up, m->type_desc, sizeof m->type_desc);
}

/* YaRN as ggml computes it (ggml.c ggml_rope_yarn_corr_dims): the rotary
 * dimensions whose wavelength fits the original context fewer than beta_fast
 * times (extrapolated) or more than beta_slow times (interpolated), with a
 * linear ramp between; cos and sin scaled by attn_factor (1 + 0.1 ln factor).
 * The dimensions come from the global RoPE base (gpt-oss has one base). */
static float yarn_corr_dim(uint32_t n_dims, uint32_t n_ctx_orig, float n_rot, float base) {
    return (float)n_dims * logf((float)n_ctx_orig / (n_rot * 2 * (float)M_PI)) / (2 * logf(base));
}

static void yarn_setup(eng_model *m) {
    const model_hparams *hp = &m->hp;
    char key[GGUF_KEY_MAX], type[16] = "";
    snprintf(key, sizeof key, "%s.rope.scaling.type", hp->arch);
    gguf_get_str(m->gguf, key, type, sizeof type);
    m->rope_mscale = 1.0f;
    if (strcmp(type, "yarn") || m->rope_freq_scale >= 1.0f) return;
    double v;
    int64_t n;
    uint32_t n_orig = hp->n_ctx_train;
    snprintf(key, sizeof key, "%s.rope.scaling.original_context_length", hp->arch);
    if (gguf_get_i64(m->gguf, key, &n) && n >= 1 && n <= UINT32_MAX) n_orig = (uint32_t)n;
    if (!n_orig) return; /* no context length to correct for: plain scaling */
    float attn_factor = 1.0f;
    snprintf(key, sizeof key, "%s.rope.scaling.attn_factor", hp->arch);
    if (gguf_get_f64(m->gguf, key, &v) && v > 0 && isfinite(v)) attn_factor = (float)v;
    float lo = floorf(yarn_corr_dim(hp->n_rot, n_orig, YARN_BETA_FAST, hp->rope_freq_base));
    float hi = ceilf(yarn_corr_dim(hp->n_rot, n_orig, YARN_BETA_SLOW, hp->rope_freq_base));
    m->yarn_dims[0] = fmaxf(0.0f, lo);
    m->yarn_dims[1] = fminf((float)hp->n_rot - 1, hi);
    m->rope_ext = 1.0f;
    m->rope_mscale = attn_factor * (1.0f + YARN_MSCALE_LOG * logf(1.0f / m->rope_freq_scale));
}

int eng_model_open(eng_model **out, const char *path, fc_err *err) {
    eng_model *m = fc_calloc(1, sizeof *m, err);
    if (!m) return FC_ERUNTIME;
    int rc = gguf_open(&m->gguf, path, err);
    if (!rc) rc = eng_model_check(m->gguf, err);
    if (!rc) rc = model_hparams_from_gguf(&m->hp, m->gguf, err);
    if (rc) {
        eng_model_close(m);
        return rc;
    }
    model_hparams *hp = &m->hp;
    m->arch = arch_find(hp->arch);
    m->layers = fc_calloc(hp->n_layer, sizeof *m->layers, err);
    if (!m->layers) {
        eng_model_close(m);
        return FC_ERUNTIME;
    }
    binder b = {m->gguf, err, FC_OK};
    if (hp->n_rot > hp->head_dim_k || hp->n_rot % 2)
        b.rc = fc_err_set(err, FC_EINPUT, "%s: rope dimension %u does not fit head size %u", path, hp->n_rot, hp->head_dim_k);
    bind_mat(&b, &m->tok_embd, "token_embd.weight", hp->n_embd, hp->n_vocab, 1, true);
    m->output_norm = bind_vec(&b, "output_norm.weight", hp->n_embd, true);
    if (hp->tied_embeddings) m->output = m->tok_embd;
    else bind_mat(&b, &m->output, "output.weight", hp->n_embd, hp->n_vocab, 1, true);
    m->rope_freqs = bind_vec(&b, "rope_freqs.weight", hp->n_rot / 2, false);
    for (uint32_t il = 0; il < hp->n_layer && !b.rc; il++) bind_layer(&b, m, il);
    if (b.rc) {
        eng_model_close(m);
        return b.rc;
    }
    m->q_dim = hp->n_head * hp->head_dim_k;
    m->attn_scale = 1.0f / sqrtf((float)hp->head_dim_k);
    if (!strcmp(hp->arch, "gemma3") && hp->n_layer == GEMMA3_27B_LAYERS)
        m->attn_scale = 1.0f / sqrtf((float)hp->n_embd / hp->n_head);
    m->embd_scale = m->arch->embd_scale ? sqrtf((float)hp->n_embd) : 1.0f;
    double factor;
    char key[GGUF_KEY_MAX];
    snprintf(key, sizeof key, "%s.rope.scaling.factor", hp->arch);
    m->rope_freq_scale = gguf_get_f64(m->gguf, key, &factor) && factor > 0 && isfinite(factor) ? (float)(1.0 / factor) : 1.0f;
    yarn_setup(m);
    describe(m);
    *out = m;
    return FC_OK;
}

void eng_model_close(eng_model *m) {
    if (!m) return;
    if (m->weights_map) munmap(m->weights_map, m->weights_map_bytes);
    free(m->layers);
    gguf_close(m->gguf);
    free(m);
}

const model_hparams *eng_model_hparams(const eng_model *m) { return &m->hp; }
const gguf_file *eng_model_gguf(const eng_model *m) { return m->gguf; }
uint64_t eng_model_n_params(const eng_model *m) { return m->n_params; }
uint64_t eng_model_size(const eng_model *m) { return m->size; }
const char *eng_model_type(const eng_model *m) { return m->type_desc; }
