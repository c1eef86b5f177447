/* The ggml tensor-type table: one row per type id. Adding a type is one row.
 * Sizes from ggml's ggml-common.h block structs (see docs/formats.md). */
#include "model/model.h"

#include <strings.h>

static const ggml_type_info type_table[GGML_TYPE_COUNT] = {
    [GGML_TYPE_F32]     = {"f32",     1,   4},
    [GGML_TYPE_F16]     = {"f16",     1,   2},
    [GGML_TYPE_Q4_0]    = {"q4_0",    32,  18},
    [GGML_TYPE_Q4_1]    = {"q4_1",    32,  20},
    [GGML_TYPE_Q5_0]    = {"q5_0",    32,  22},
    [GGML_TYPE_Q5_1]    = {"q5_1",    32,  24},
    [GGML_TYPE_Q8_0]    = {"q8_0",    32,  34},
    [GGML_TYPE_Q8_1]    = {"q8_1",    32,  36},
    [GGML_TYPE_Q2_K]    = {"q2_K",    256, 84},
    [GGML_TYPE_Q3_K]    = {"q3_K",    256, 110},
    [GGML_TYPE_Q4_K]    = {"q4_K",    256, 144},
    [GGML_TYPE_Q5_K]    = {"q5_K",    256, 176},
    [GGML_TYPE_Q6_K]    = {"q6_K",    256, 210},
    [GGML_TYPE_Q8_K]    = {"q8_K",    256, 292},
    [GGML_TYPE_IQ2_XXS] = {"iq2_xxs", 256, 66},
    [GGML_TYPE_IQ2_XS]  = {"iq2_xs",  256, 74},
    [GGML_TYPE_IQ3_XXS] = {"iq3_xxs", 256, 98},
    [GGML_TYPE_IQ1_S]   = {"iq1_s",   256, 50},
    [GGML_TYPE_IQ4_NL]  = {"iq4_nl",  32,  18},
    [GGML_TYPE_IQ3_S]   = {"iq3_s",   256, 110},
    [GGML_TYPE_IQ2_S]   = {"iq2_s",   256, 82},
    [GGML_TYPE_IQ4_XS]  = {"iq4_xs",  256, 136},
    [GGML_TYPE_I8]      = {"i8",      1,   1},
    [GGML_TYPE_I16]     = {"i16",     1,   2},
    [GGML_TYPE_I32]     = {"i32",     1,   4},
    [GGML_TYPE_I64]     = {"i64",     1,   8},
    [GGML_TYPE_F64]     = {"f64",     1,   8},
    [GGML_TYPE_IQ1_M]   = {"iq1_m",   256, 56},
    [GGML_TYPE_BF16]    = {"bf16",    1,   2},
    [GGML_TYPE_TQ1_0]   = {"tq1_0",   256, 54},
    [GGML_TYPE_TQ2_0]   = {"tq2_0",   256, 66},
    [GGML_TYPE_MXFP4]   = {"mxfp4",   32,  17},
};

const ggml_type_info *ggml_type_get(uint32_t id) {
    if (id >= GGML_TYPE_COUNT || type_table[id].name == NULL) return NULL;
    return &type_table[id];
}

int ggml_type_from_name(const char *name) {
    for (uint32_t i = 0; i < GGML_TYPE_COUNT; i++)
        if (type_table[i].name && !strcasecmp(type_table[i].name, name)) return (int)i;
    return -1;
}

bool ggml_row_bytes(uint32_t type, uint64_t n, uint64_t *out) {
    const ggml_type_info *t = ggml_type_get(type);
    if (!t || n % t->blck) return false;
    return fc_mul_u64(n / t->blck, t->bytes, out);
}

double ggml_type_bpw(uint32_t type) {
    const ggml_type_info *t = ggml_type_get(type);
    return t ? 8.0 * t->bytes / t->blck : 0.0;
}
