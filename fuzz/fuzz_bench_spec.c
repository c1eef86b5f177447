/* Fuzz target: the llama-bench test list of `plan --bench` and the corpus's
 * test names (planner/bench_spec.c): "pp512,tg128,pp2048@d32768,pp512+tg128".
 * Oracle beyond "no crash": an accepted list has 1..PLAN_BENCH_MAX tests,
 * each with a prompt or a generation, every count within PLAN_BENCH_MAX_TOKENS;
 * a refusal says why. */
#include "fuzz/fuzz.h"
#include "planner/planner.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *spec = malloc(size + 1);
    if (!spec) return 0;
    memcpy(spec, data, size);
    spec[size] = '\0';
    plan_bench_test t[PLAN_BENCH_MAX];
    int n = -1;
    fc_err err = {0};
    if (plan_bench_list_parse(spec, t, PLAN_BENCH_MAX, &n, &err) == FC_OK) {
        if (n < 1 || n > PLAN_BENCH_MAX) abort();
        for (int i = 0; i < n; i++) {
            if (t[i].n_prompt <= 0 && t[i].n_gen <= 0) abort();
            if (t[i].n_prompt < 0 || t[i].n_gen < 0 || t[i].n_depth < 0) abort();
            if (t[i].n_prompt > PLAN_BENCH_MAX_TOKENS || t[i].n_gen > PLAN_BENCH_MAX_TOKENS ||
                t[i].n_depth > PLAN_BENCH_MAX_TOKENS)
                abort();
        }
    } else if (!err.msg[0]) {
        abort();
    }
    free(spec);
    return 0;
}
