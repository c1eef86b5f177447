/* fitcheck hw: the built-in hardware catalog. */
#include "cli/cli.h"
#include "planner/planner.h"
#include "reports/reports.h"

#include <stdlib.h>

static void hw_usage(FILE *out) {
    fprintf(out,
            "usage: fitcheck hw [--json]\n\n"
            "Lists the built-in hardware catalog: GPUs (NVIDIA, AMD, Intel), Apple M1-M4 and other\n"
            "unified-memory machines (with the share of RAM a GPU may use), and CPU memory platforms,\n"
            "with memory options, bandwidth and compute. Use the id with 'fitcheck plan --hw ID[:GiB]'.\n"
            "Every row keeps its source and confidence (--json).\n");
}

int cli_hw(int argc, char **argv) {
    bool json;
    int rc = cli_parse_json_only("hw", argc, argv, hw_usage, &json);
    if (rc != CLI_PROCEED) return rc;
    plan_hw_entry *v;
    size_t n;
    fc_err err = {0};
    if (plan_hwcat_list(&v, &n, &err)) return cli_report_error("hw", &err);
    if (json) cli_print_json(rep_hw_json(v, n));
    else rep_hw_text(stdout, v, n);
    free(v);
    return 0;
}
