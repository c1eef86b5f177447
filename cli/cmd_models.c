/* fitcheck models: the built-in model catalog. */
#include "cli/cli.h"
#include "model/model.h"
#include "planner/planner.h"
#include "reports/reports.h"

#include <getopt.h>
#include <stdlib.h>

static void models_usage(FILE *out) {
    fprintf(out,
            "usage: fitcheck models [--json]\n"
            "       fitcheck models --local [--models-dir DIR] [--json]\n\n"
            "--local lists the GGUF models already on this machine (ollama's store, LM Studio,\n"
            "the Hugging Face hub cache, llama.cpp's cache, DIR) with the plan's verdict and\n"
            "predicted decode speed here; each line's spec works with 'fitcheck plan'.\n\n"
            "Lists the built-in model catalog: name (for 'fitcheck plan NAME'), architecture, layers,\n"
            "parameters, KV cache per token at f16, the %s file size, training context and\n"
            "where the hyperparameters were read.\n",
            MODEL_DEFAULT_QUANT);
}

static int models_local(const char *dir, bool json) {
    fc_err err = {0};
    plan_local_model *v;
    size_t n;
    if (plan_local_make(dir, &v, &n, &err)) return cli_report_error("models", &err);
    if (json) cli_print_json(rep_models_local_json(v, n));
    else rep_models_local_text(stdout, v, n);
    free(v);
    return 0;
}

int cli_models(int argc, char **argv) {
    static const struct option opts[] = {{"json", no_argument, 0, 'j'}, {"local", no_argument, 0, 'l'},
                                         {"models-dir", required_argument, 0, 'd'}, {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    bool json = false, local = false;
    const char *dir = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = true; break;
        case 'l': local = true; break;
        case 'd': dir = optarg; break;
        case 'h': models_usage(stdout); return 0;
        default: return cli_usage_error("models", "unknown option or missing value '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) return cli_usage_error("models", "unexpected argument '%s'", argv[optind]);
    if (dir && !local) return cli_usage_error("models", "--models-dir goes with --local");
    if (local) return models_local(dir, json);
    fc_err err = {0};
    model_catalog_summary *v;
    size_t n;
    if (model_catalog_summaries(&v, &n, &err)) return cli_report_error("models", &err);
    if (json) cli_print_json(rep_models_json(v, n));
    else rep_models_text(stdout, v, n);
    free(v);
    return 0;
}
