/* Fuzz target: the llama-bench results reader of `fitcheck report --runs`
 * (reports/bench.c), then the llama-bench table built from what it accepted. */
#include "fuzz/fuzz.h"
#include "reports/reports.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    rep_bench_row *rows;
    int n;
    fc_err err = {0};
    if (rep_bench_parse(text, "fuzz.jsonl", &rows, &n, &err) == FC_OK) {
        rep_table *t = rep_bench_table(rows, n, &err);
        if (t) rep_table_free(t);
        free(rows);
    }
    free(text);
    return 0;
}
