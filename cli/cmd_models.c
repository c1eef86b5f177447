/* fitcheck models: the built-in model catalog. */
#include "cli/cli.h"
#include "model/model.h"

#include <jansson.h>
#include <string.h>

static void models_usage(FILE *out) {
    fprintf(out,
            "usage: fitcheck models [--json]\n\n"
            "Lists the built-in model catalog: name (for 'fitcheck plan NAME'), architecture, layers,\n"
            "parameters, KV cache per token at f16, the %s file size, training context and\n"
            "where the hyperparameters were read.\n",
            MODEL_DEFAULT_QUANT);
}

int cli_models(int argc, char **argv) {
    bool json;
    int rc = cli_parse_json_only("models", argc, argv, models_usage, &json);
    if (rc != CLI_PROCEED) return rc;
    json_t *arr = json_array();
    if (!json)
        printf("%-18s %-10s %6s %9s %9s %10s %9s  %s\n", "name", "arch", "layers", "params", "active", "KV/token",
               MODEL_DEFAULT_QUANT, "train ctx");
    for (size_t i = 0; i < model_catalog_count(); i++) {
        model_catalog_info info;
        model_hparams hp;
        model_desc d;
        fc_err err = {0};
        if (model_catalog_get(i, &info, &hp, &err) || model_desc_synthesize(&d, &hp, MODEL_DEFAULT_QUANT, &err)) {
            json_decref(arr);
            return cli_report_error("models", &err);
        }
        uint64_t kvt = 2 * model_hparams_kv_elems_per_token(&hp);
        if (json) {
            json_t *o = json_object();
            json_object_set_new(o, "name", json_string(info.name));
            json_object_set_new(o, "display", json_string(info.display));
            json_object_set_new(o, "hf_repo", json_string(info.hf_repo));
            json_object_set_new(o, "architecture", json_string(hp.arch));
            json_object_set_new(o, "n_layer", json_integer(hp.n_layer));
            json_object_set_new(o, "n_params", json_integer((json_int_t)d.n_params));
            json_object_set_new(o, "n_params_reference", json_integer((json_int_t)info.params_reference));
            json_object_set_new(o, "n_params_active_reference", json_integer((json_int_t)info.active_params_reference));
            json_object_set_new(o, "n_expert", json_integer(hp.n_expert));
            json_object_set_new(o, "kv_bytes_per_token_f16", json_integer((json_int_t)kvt));
            json_object_set_new(o, "file_bytes_" MODEL_DEFAULT_QUANT, json_integer((json_int_t)d.file_bytes));
            json_object_set_new(o, "n_ctx_train", json_integer(hp.n_ctx_train));
            json_object_set_new(o, "confidence", json_string(info.confidence));
            json_object_set_new(o, "source", json_string(info.source));
            json_array_append_new(arr, o);
        } else {
            char kb[24], fb[24], act[24] = "-";
            if (info.active_params_reference) snprintf(act, sizeof act, "%.1f B", (double)info.active_params_reference / 1e9);
            printf("%-18s %-10s %6u %7.1f B %9s %10s %9s  %u\n", info.name, hp.arch, hp.n_layer, (double)d.n_params / 1e9,
                   act, fc_fmt_bytes(kvt, kb, sizeof kb), fc_fmt_bytes(d.file_bytes, fb, sizeof fb), hp.n_ctx_train);
        }
        model_desc_free(&d);
    }
    if (json) {
        cli_print_json(arr);
        return 0;
    }
    printf("\n%zu models. Sources: 'fitcheck models --json' (each entry's \"source\").\n", model_catalog_count());
    json_decref(arr);
    return 0;
}
