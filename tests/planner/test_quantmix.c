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

int main(void) {
    check_llama31_8b();
    return check_done("quantmix");
}
