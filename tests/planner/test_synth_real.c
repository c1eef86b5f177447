/* The synthesized tensor table against real GGUF files: same names, shapes
 * and (where the quantization mix is comparable) types. Skips without
 * $FITCHECK_MODELS. */
#include "model/model.h"
#include "tests/check.h"

#include <string.h>

static const model_tensor *find(const model_desc *d, const char *name) {
    for (uint32_t i = 0; i < d->n_tensors; i++)
        if (!strcmp(d->tensors[i].name, name)) return &d->tensors[i];
    return NULL;
}

static void compare(const char *dir, const char *file, const char *catalog, const char *quant) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    fc_err err = {0};
    model_desc real, syn;
    model_hparams hp;
    if (model_load(&real, path, NULL, &err)) {
        CHECK_MSG(0, "%s", err.msg);
        return;
    }
    CHECK(model_catalog_find(catalog, NULL, &hp, &err) == FC_OK);
    CHECK(model_desc_synthesize(&syn, &hp, quant, &err) == FC_OK);
    CHECK_MSG(real.n_tensors == syn.n_tensors, "%s: %u real vs %u synthesized tensors", file, real.n_tensors, syn.n_tensors);
    for (uint32_t i = 0; i < real.n_tensors; i++) {
        const model_tensor *r = &real.tensors[i], *s = find(&syn, r->name);
        CHECK_MSG(s != NULL, "%s: %s not synthesized", file, r->name);
        if (!s) continue;
        CHECK_MSG(!memcmp(r->ne, s->ne, sizeof r->ne), "%s: %s shape differs", file, r->name);
        CHECK_MSG(r->type == s->type, "%s: %s is %s, synthesized %s", file, r->name, ggml_type_get(r->type)->name,
                  ggml_type_get(s->type)->name);
    }
    CHECK(real.weight_bytes == syn.weight_bytes);
    printf("%s: %u tensors, %llu weight bytes identical; file %llu, estimated %llu\n", file, real.n_tensors,
           (unsigned long long)real.weight_bytes, (unsigned long long)real.file_bytes, (unsigned long long)syn.file_bytes);
    CHECK_NEAR((double)syn.file_bytes, (double)real.file_bytes, real.file_bytes * 0.01);
    model_desc_free(&real);
    model_desc_free(&syn);
}

int main(void) {
    const char *dir = getenv("FITCHECK_MODELS");
    if (!dir) {
        printf("synth_real: FITCHECK_MODELS not set, skipping\n");
        return 77;
    }
    compare(dir, "SmolLM2-135M-Instruct.Q4_1.gguf", "smollm2-135m", "Q4_1");
    compare(dir, "gemma-3-270m-q4_k_m.gguf", "gemma-3-270m", "Q4_K_M");
    return check_done("synth_real");
}
