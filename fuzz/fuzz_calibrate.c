/* Fuzz target: the llama-bench results importer (planner/calibrate_import.c,
 * `fitcheck calibrate`): JSON arrays, JSONL and fitcheck's own bench files,
 * then the prediction each imported result is compared with. */
#include "fuzz/fuzz.h"
#include "planner/planner.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* A measured CPU-only machine, as the importer's own tests use. */
    static probe_profile p;
    static plan_efficiency eff;
    static int ready;
    fc_err err = {0};
    if (!ready) {
        p.n_cores = 2;
        p.read_gbs = 50;
        p.sgemm_gflops_1t = 100;
        if (plan_efficiency_builtin(&eff, &err) != FC_OK) abort();
        ready = 1;
    }
    /* The importer scans the published-table form with strchr: it needs
     * text[len] == '\0', as fc_read_file gives every caller (found by this
     * target reading past an unterminated buffer; see planner/planner.h). */
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    plan_meas_set s = {0};
    if (plan_meas_import(&s, text, size, "fuzz.json", &p, &err) == FC_OK)
        for (int i = 0; i < s.n; i++) (void)plan_meas_predict(&s.m[i], &eff);
    plan_meas_set_free(&s);
    free(text);
    return 0;
}
