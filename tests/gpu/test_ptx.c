/* The embedded PTX: every module is present in its committed form (and in
 * nvcc's when the build found nvcc), names its kernels, and the committed
 * text keeps .version low enough for older drivers. */
#include "probe/gpu_internal.h"
#include "tests/check.h"

#include <stdlib.h>
#include <string.h>

/* PTX ISA 7.0 = CUDA 11.0 drivers; the lowest that has bf16 mma.sync. */
#define PTX_MAX_COMMITTED_VERSION 7.0

static const struct {
    const char *module;
    const char *entries[5];
} expected[] = {
    {"stream", {"fc_fill", "fc_read", "fc_empty", "fc_spin", "fc_fma"}},
    {"mma", {"fc_mma_f16", "fc_mma_bf16", NULL, NULL, NULL}},
};

static void check_module(const probe_ptx_module *m) {
    CHECK_MSG(m->text && strlen(m->text) > 0, "%s/%s empty", m->module, m->origin);
    CHECK(strstr(m->text, ".target sm_") != NULL);
    CHECK(strstr(m->text, ".address_size 64") != NULL);
    bool known = false;
    for (size_t i = 0; i < FC_ARRAY_LEN(expected); i++) {
        if (strcmp(expected[i].module, m->module) != 0)
            continue;
        known = true;
        for (size_t e = 0; e < FC_ARRAY_LEN(expected[i].entries) && expected[i].entries[e]; e++) {
            char entry[64];
            snprintf(entry, sizeof entry, ".entry %s(", expected[i].entries[e]);
            CHECK_MSG(strstr(m->text, entry) != NULL, "%s/%s lacks %s", m->module, m->origin, entry);
        }
    }
    CHECK_MSG(known, "unknown module %s", m->module);
    if (!strcmp(m->origin, "committed")) {
        const char *v = strstr(m->text, "\n.version ");
        CHECK(v != NULL);
        if (v)
            CHECK_MSG(strtod(v + strlen("\n.version "), NULL) <= PTX_MAX_COMMITTED_VERSION, "%s", m->module);
    }
    if (!strcmp(m->module, "mma"))
        CHECK(strstr(m->text, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32") != NULL);
    if (!strcmp(m->module, "stream"))
        CHECK(strstr(m->text, "ld.global.cs.v4") != NULL); /* the 16-byte loads */
}

int main(void) {
    int committed = 0;
    CHECK(probe_ptx_n_modules >= (int)FC_ARRAY_LEN(expected));
    for (int i = 0; i < probe_ptx_n_modules; i++) {
        printf("ptx %s/%s: %zu bytes\n", probe_ptx_modules[i].module, probe_ptx_modules[i].origin,
               strlen(probe_ptx_modules[i].text));
        check_module(&probe_ptx_modules[i]);
        committed += !strcmp(probe_ptx_modules[i].origin, "committed");
    }
    CHECK(committed == (int)FC_ARRAY_LEN(expected));
    return check_done("gpu_ptx");
}
