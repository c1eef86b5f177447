/* gen: for every quantization type, a small random-weight model is written,
 * read back with the GGUF reader, and compared with the planner's
 * description: same tensors, shapes and types (the mix inspect shows), data
 * section exactly the planner's aligned tensor bytes, file size exactly
 * what gen_file_size said, finite block scales, and a tokenizer that
 * loads and round-trips. */
#include "engine/engine.h"
#include "gen/gen.h"
#include "tests/check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GEN_ALIGN 32

/* A small Llama-shaped model: rows of 256 so every block size divides them. */
static void tiny_hparams(model_hparams *hp, const char *arch, uint32_t n_vocab) {
    memset(hp, 0, sizeof *hp);
    snprintf(hp->arch, sizeof hp->arch, "%s", arch);
    hp->n_layer = 2;
    hp->n_embd = 256;
    hp->n_head = 4;
    for (uint32_t il = 0; il < hp->n_layer; il++) hp->n_head_kv[il] = 2, hp->n_ff[il] = 512;
    hp->head_dim_k = hp->head_dim_v = hp->n_rot = 64;
    hp->n_vocab = n_vocab;
    hp->n_ctx_train = 2048;
    hp->rope_freq_base = 10000;
    hp->norm_eps = 1e-5f;
}

static float half_to_float(uint16_t h) {
    int e = (h >> 10) & 31, m = h & 1023;
    float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? INFINITY : ldexpf((float)(m | 1024), e - 25);
    return h & 0x8000 ? -v : v;
}

static void check_tokenizer(const gguf_file *f) {
    eng_tokenizer *t = NULL;
    fc_err err = {0};
    CHECK_MSG(eng_tokenizer_load(&t, f, &err) == FC_OK, "%s", err.msg);
    if (!t) return;
    const char *text = "Random weights, real shapes: 42 tokens/s? ünïcode ✓";
    int32_t ids[256];
    size_t n;
    char back[512];
    CHECK(eng_tokenize(t, text, strlen(text), 0, ids, 256, &n, &err) == FC_OK);
    eng_detok d;
    eng_detok_init(&d, t);
    size_t at = 0;
    for (size_t i = 0; i < n; i++) at += eng_detok_push(&d, ids[i], back + at, sizeof back - at);
    at += eng_detok_flush(&d, back + at, sizeof back - at);
    CHECK_MSG(at == strlen(text) && !memcmp(back, text, at), "round trip through the synthetic vocabulary");
    CHECK(eng_tokenizer_bos(t) >= 0 && eng_token_is_eog(t, eng_tokenizer_eos(t)));
    eng_tokenizer_free(t);
}

/* The f16 scale of the first block: Q4_0/Q8_0/IQ4_NL... keep it at offset 0. */
static void check_scales(const gguf_file *f) {
    for (uint64_t i = 0; i < f->n_tensors; i++) {
        const gguf_tensor *t = &f->tensors[i];
        if (t->type == GGML_TYPE_F32) {
            const float *v = t->data;
            CHECK_MSG(isfinite(v[0]) && fabsf(v[0]) <= 1.0f, "%s[0] = %g", t->name, v[0]);
        } else if (t->type == GGML_TYPE_Q4_0 || t->type == GGML_TYPE_Q8_0 || t->type == GGML_TYPE_IQ4_NL ||
                   t->type == GGML_TYPE_Q4_K || t->type == GGML_TYPE_F16) {
            uint16_t h;
            memcpy(&h, t->data, 2);
            float v = half_to_float(h);
            CHECK_MSG(isfinite(v) && fabsf(v) < 0.5f, "%s: first scale %g", t->name, v);
        }
    }
}

static void check_one(const char *dir, const model_hparams *hp, const char *quant) {
    model_desc d;
    fc_err err = {0};
    if (model_desc_synthesize(&d, hp, quant, &err)) {
        CHECK_MSG(0, "%s: %s", quant, err.msg);
        return;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/%s-%s.gguf", dir, hp->arch, quant);
    gen_opts o = {7, NULL, NULL};
    uint64_t want_size = 0;
    CHECK(gen_file_size(&d, &o, &want_size, &err) == FC_OK);
    CHECK_MSG(gen_write(&d, path, &o, &err) == FC_OK, "%s: %s", quant, err.msg);
    gguf_file *f = NULL;
    CHECK_MSG(gguf_open(&f, path, &err) == FC_OK, "%s: %s", quant, err.msg);
    if (f) {
        CHECK_MSG(f->size == want_size, "%s: %llu bytes, gen_file_size said %llu", quant,
                  (unsigned long long)f->size, (unsigned long long)want_size);
        model_desc r;
        CHECK(model_desc_from_gguf(&r, f, &err) == FC_OK);
        CHECK(r.n_tensors == d.n_tensors && r.weight_bytes == d.weight_bytes && r.n_params == d.n_params);
        uint64_t aligned = 0;
        for (uint32_t i = 0; i < d.n_tensors && i < r.n_tensors; i++) {
            const model_tensor *a = &d.tensors[i], *b = &r.tensors[i];
            CHECK_MSG(!strcmp(a->name, b->name) && a->type == b->type && !memcmp(a->ne, b->ne, sizeof a->ne) &&
                          a->role == b->role && a->layer == b->layer,
                      "%s: tensor %s differs", quant, a->name);
            aligned += (a->bytes + GEN_ALIGN - 1) / GEN_ALIGN * GEN_ALIGN;
        }
        CHECK_MSG(f->size - f->data_offset == aligned, "%s: data section %llu, planner %llu", quant,
                  (unsigned long long)(f->size - f->data_offset), (unsigned long long)aligned);
        CHECK(r.hp.file_type == d.hp.file_type && r.hp.n_layer == hp->n_layer && r.hp.n_vocab == hp->n_vocab);
        check_scales(f);
        if (!strcmp(quant, "Q4_K_M")) check_tokenizer(f);
        model_desc_free(&r);
        gguf_close(f);
    }
    unlink(path);
    model_desc_free(&d);
}

int main(void) {
    char dir[] = "/tmp/fitcheck-gen-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    static model_hparams hp;
    tiny_hparams(&hp, "llama", 1000);
    for (size_t i = 0; model_ftype_at(i); i++) {
        const model_ftype_info *ft = model_ftype_at(i);
        if (!strcmp(ft->name, "MXFP4_MOE")) continue; /* needs experts */
        check_one(dir, &hp, ft->name);
    }
    /* The other tokenizer kind and an architecture with more tensor roles. */
    tiny_hparams(&hp, "qwen3", 70000);
    check_one(dir, &hp, "Q4_K_M");
    tiny_hparams(&hp, "gemma3", 2048);
    hp.sliding_window = 512;
    check_one(dir, &hp, "Q4_K_M");
    /* Atomic: a file in a directory that does not exist is an error, and nothing is left. */
    model_desc d;
    fc_err err = {0};
    char bad[4200];
    snprintf(bad, sizeof bad, "%s/missing/x.gguf", dir);
    gen_opts o = {1, NULL, NULL};
    tiny_hparams(&hp, "llama", 1000);
    CHECK(model_desc_synthesize(&d, &hp, "Q8_0", &err) == FC_OK);
    CHECK(gen_write(&d, bad, &o, &err) != FC_OK && access(bad, F_OK) != 0);
    model_desc_free(&d);
    CHECK(rmdir(dir) == 0); /* empty: no temp files left behind */
    return check_done("gen");
}
