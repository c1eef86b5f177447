/* Quantization emulation against published file sizes and real files. */
#include "model/model.h"
#include "tests/check.h"

#include <stdlib.h>
#include <string.h>

/* Published sizes of bartowski/unsloth/ggml-org Llama-3.1-8B GGUFs (GiB as
 * Hugging Face's file list shows them). */
static void check_llama31_8b(void) {
    static const struct { const char *quant; double gib; } sizes[] = {
        {"Q4_K_M", 4.58}, {"Q8_0", 7.95}, {"F16", 14.96},
    };
    model_hparams hp;
    fc_err err = {0};
    CHECK(model_catalog_find("llama-3.1-8b", NULL, &hp, &err) == FC_OK);
    for (size_t i = 0; i < FC_ARRAY_LEN(sizes); i++) {
        model_desc d;
        CHECK_MSG(model_desc_synthesize(&d, &hp, sizes[i].quant, &err) == FC_OK, "%s", err.msg);
        double gib = (double)d.file_bytes / FC_GIB;
        printf("llama-3.1-8b %-6s %.3f GiB (published %.2f)\n", sizes[i].quant, gib, sizes[i].gib);
        CHECK_NEAR(gib, sizes[i].gib, sizes[i].gib * 0.005);
        CHECK(d.n_tensors == 2 + 32 * 9 + 1);
        model_desc_free(&d);
    }
}

/* More of the mix, as decimal GB in the Hugging Face file list of
 * bartowski/Meta-Llama-3.1-8B-Instruct-GGUF (IQ types made with an imatrix). */
static void check_llama31_8b_ladder(void) {
    static const struct { const char *quant; double gb; } sizes[] = {
        {"Q6_K", 6.60}, {"Q5_K_M", 5.73}, {"Q5_K_S", 5.60}, {"Q4_K_S", 4.69}, {"Q4_0", 4.66}, {"IQ4_XS", 4.45},
        {"Q3_K_L", 4.32}, {"Q3_K_M", 4.02}, {"IQ3_M", 3.78}, {"Q3_K_S", 3.66}, {"Q2_K", 3.18}, {"IQ2_M", 2.95},
    };
    model_hparams hp;
    fc_err err = {0};
    CHECK(model_catalog_find("llama-3.1-8b", NULL, &hp, &err) == FC_OK);
    for (size_t i = 0; i < FC_ARRAY_LEN(sizes); i++) {
        model_desc d;
        CHECK_MSG(model_desc_synthesize(&d, &hp, sizes[i].quant, &err) == FC_OK, "%s", err.msg);
        CHECK_MSG(fabs(d.file_bytes / 1e9 - sizes[i].gb) <= sizes[i].gb * 0.005, "%s: %.3f GB vs %.2f", sizes[i].quant,
                  d.file_bytes / 1e9, sizes[i].gb);
        model_desc_free(&d);
    }
}

/* Rules that only some models trigger. */
static void check_rules(void) {
    model_hparams hp;
    fc_err err = {0};
    model_desc d;
    /* Mixtral (8 experts): attn_v and attn_k go to Q8_0 in every K mix. */
    CHECK(model_catalog_find("mixtral-8x7b", NULL, &hp, &err) == FC_OK);
    CHECK(model_desc_synthesize(&d, &hp, "Q4_K_M", &err) == FC_OK);
    for (uint32_t i = 0; i < d.n_tensors; i++)
        if (d.tensors[i].role == ROLE_ATTN_V || d.tensors[i].role == ROLE_ATTN_K)
            CHECK_MSG(d.tensors[i].type == GGML_TYPE_Q8_0, "%s", d.tensors[i].name);
    model_desc_free(&d);
    /* Llama-3.1-70B is llama.cpp's "70B" type: Q3_K_S attn_v bumped from Q3_K to Q5_K. */
    CHECK(model_catalog_find("llama-3.1-70b", NULL, &hp, &err) == FC_OK);
    CHECK(model_desc_synthesize(&d, &hp, "Q3_K_S", &err) == FC_OK);
    for (uint32_t i = 0; i < d.n_tensors; i++)
        if (d.tensors[i].role == ROLE_ATTN_V) CHECK_MSG(d.tensors[i].type == GGML_TYPE_Q5_K, "%s", d.tensors[i].name);
    model_desc_free(&d);
    /* gpt-oss MXFP4: experts MXFP4, other matrices Q8_0; n_embd 2880 is not a multiple of 256,
     * so its K-quant mixes fall back to 32-blocks (Q4_K -> Q5_0). */
    CHECK(model_catalog_find("gpt-oss-20b", NULL, &hp, &err) == FC_OK);
    CHECK(model_desc_synthesize(&d, &hp, "MXFP4_MOE", &err) == FC_OK);
    for (uint32_t i = 0; i < d.n_tensors; i++) {
        const model_tensor *t = &d.tensors[i];
        if (t->role == ROLE_FFN_UP_EXPS) CHECK(t->type == GGML_TYPE_MXFP4);
        if (t->role == ROLE_ATTN_Q) CHECK(t->type == GGML_TYPE_Q8_0);
    }
    model_desc_free(&d);
    CHECK(model_desc_synthesize(&d, &hp, "Q4_K_S", &err) == FC_OK);
    for (uint32_t i = 0; i < d.n_tensors; i++)
        if (d.tensors[i].role == ROLE_ATTN_Q) CHECK(d.tensors[i].type == GGML_TYPE_Q5_0);
    model_desc_free(&d);
    /* Unknown names are refused. */
    CHECK(model_desc_synthesize(&d, &hp, "Q4_K_XL", &err) == FC_EINPUT);
    CHECK(model_ftype_find("q4_k_m")->id == 15 && model_ftype_find("Q8_0")->base_type == GGML_TYPE_Q8_0);
}

int main(void) {
    check_llama31_8b();
    check_llama31_8b_ladder();
    check_rules();
    return check_done("quantmix");
}
