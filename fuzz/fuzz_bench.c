/* Fuzz target: the one llama-bench records reader (planner/bench_record.c:
 * `report --runs`, `calibrate`), then the llama-bench table built from what
 * it accepted. */
#include "fuzz/fuzz.h"
#include "reports/reports.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    plan_bench_record *recs;
    int n;
    fc_err err = {0};
    if (plan_bench_parse((const char *)data, size, "fuzz.jsonl", &recs, &n, &err) == FC_OK) {
        rep_table *t = rep_bench_table(recs, n, &err);
        if (t) rep_table_free(t);
        free(recs);
    }
    return 0;
}
