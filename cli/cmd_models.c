/* fitcheck models: the built-in model catalog. */
#include "cli/cli.h"
#include "model/model.h"
#include "planner/planner.h"

#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

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

/* One model found on disk, planned for this machine as `fitcheck plan SPEC`
 * would (defaults; no probe is run, nothing is written). */
static void local_row(const model_found *f, const plan_hw *hw, const plan_efficiency *eff, json_t *arr) {
    char verdict[FC_ERR_MSG_MAX + 16] = "", size[24], tps[24] = "-";
    double tg = 0;
    fc_err err = {0};
    model_desc d;
    plan_result *r = calloc(1, sizeof *r);
    bool ok = false;
    if (f->error[0]) snprintf(verdict, sizeof verdict, "error: %s", f->error);
    else if (!r) snprintf(verdict, sizeof verdict, "error: out of memory");
    else if (model_load(&d, f->spec, NULL, &err)) snprintf(verdict, sizeof verdict, "error: %s", err.msg);
    else {
        plan_request rq = {.model = &d, .model_spec = f->spec, .hw = hw, .eff = eff, .min_tps = PLAN_DEFAULT_MIN_TPS};
        plan_params_default(&rq.params);
        if (plan_make(&rq, r, &err)) snprintf(verdict, sizeof verdict, "error: %s", err.msg);
        else {
            ok = true;
            snprintf(verdict, sizeof verdict, "%s", plan_verdict_name(r->mem.verdict));
            if (r->has_speed) {
                tg = r->speed.tg128;
                snprintf(tps, sizeof tps, "%.1f t/s", tg);
            }
            plan_result_free(r);
        }
        model_desc_free(&d);
    }
    free(r);
    if (arr) {
        json_t *o = json_object();
        json_object_set_new(o, "store", json_string(model_store_name(f->store)));
        json_object_set_new(o, "name", json_string(f->name));
        json_object_set_new(o, "spec", json_string(f->spec));
        json_object_set_new(o, "path", json_string(f->path));
        json_object_set_new(o, "bytes", json_integer((json_int_t)f->bytes));
        json_object_set_new(o, "verdict", ok ? json_string(verdict) : json_null());
        json_object_set_new(o, "error", ok ? json_null() : json_string(verdict + 7));
        json_object_set_new(o, "tg128_tps", ok && tg > 0 ? json_real(tg) : json_null());
        json_array_append_new(arr, o);
        return;
    }
    printf("%-9s %-44s %10s %-12s %10s  %s\n", model_store_name(f->store), fc_safe(f->name),
           fc_fmt_bytes(f->bytes, size, sizeof size), ok ? verdict : "-", tps, ok ? fc_safe(f->spec) : fc_safe(verdict));
}

static int models_local(const char *dir, bool json) {
    fc_err err = {0};
    model_found *v = NULL;
    size_t n = 0;
    plan_hw *hw = calloc(1, sizeof *hw);
    plan_efficiency *eff = calloc(1, sizeof *eff);
    int rc = hw && eff ? FC_OK : fc_err_set(&err, FC_ERUNTIME, "out of memory");
    if (!rc) rc = model_stores_scan(dir, &v, &n, &err);
    if (!rc) rc = plan_hw_this_machine(hw, false, &err);
    if (!rc) rc = plan_efficiency_load(eff, NULL, &err);
    if (!rc) {
        json_t *arr = json ? json_array() : NULL;
        if (!json)
            printf("%-9s %-44s %10s %-12s %10s  %s\n", "store", "model", "size", "verdict", "tg128", "spec (for fitcheck plan)");
        for (size_t i = 0; i < n; i++) local_row(&v[i], hw, eff, arr);
        if (json) cli_print_json(arr);
        else printf("\n%zu model%s found on disk.\n", n, n == 1 ? "" : "s");
    }
    free(v);
    free(hw);
    free(eff);
    return rc ? cli_report_error("models", &err) : 0;
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
