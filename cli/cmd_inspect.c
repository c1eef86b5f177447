/* fitcheck inspect FILE.gguf: what is inside a GGUF file. */
#include "cli/cli.h"
#include "model/model.h"
#include "reports/reports.h"

#include <getopt.h>
#include <stdlib.h>

static int inspect_file(const char *path, bool json, bool tensors) {
    fc_err err = {0};
    double t0 = fc_now();
    gguf_file *f;
    if (gguf_open_model(&f, path, &err)) return cli_report_error("inspect", &err);
    model_desc d;
    model_summary *s = calloc(1, sizeof *s);
    int rc = s ? model_desc_from_gguf(&d, f, &err) : fc_err_set(&err, FC_ERUNTIME, "out of memory");
    if (rc) {
        free(s);
        gguf_close(f);
        return cli_report_error("inspect", &err);
    }
    model_summary_make(s, f, &d);
    double seconds = fc_now() - t0;
    rep_inspect_view v = {.path = path, .file = f, .desc = &d, .sum = s, .tensors = tensors};
    if (json) cli_print_json(rep_inspect_json(&v));
    else {
        rep_inspect_text(stdout, &v);
        rep_inspect_read_time(stderr, s, seconds);
    }
    free(s);
    model_desc_free(&d);
    gguf_close(f);
    return 0;
}

int cli_inspect(int argc, char **argv) {
    static const struct option opts[] = {
        {"json", no_argument, 0, 'j'}, {"tensors", no_argument, 0, 't'}, {"help", no_argument, 0, 'h'},
        {"model", required_argument, 0, 'm'}, {0, 0, 0, 0}};
    bool json = false, tensors = false;
    const char *file = NULL;
    int c;
    optind = 1;
    opterr = 0;
    /* "-m FILE" as llama.cpp spells the model; an unknown option is named as written */
    const char *unknown = cli_llama_aliases(argc, argv, opts, "jth");
    if (unknown) return cli_usage_error("inspect", "unknown option '%s'", unknown);
    while ((c = getopt_long(argc, argv, "jth", opts, NULL)) != -1) {
        switch (c) {
        case 'm':
            if (file) return cli_usage_error("inspect", "expected exactly one GGUF file");
            file = optarg;
            break;
        case 'j': json = true; break;
        case 't': tensors = true; break;
        case 'h':
            printf("usage: fitcheck inspect FILE.gguf|URL [--tensors] [--json]\n\n"
                   "A URL (http:// or https://) is read with range requests: the header only.\n"
                   "A split model (NAME-00001-of-0000N.gguf) is read through all its parts.\n"
                   "Architecture, parameters, size and bits per weight, bytes per tensor type, the\n"
                   "quantization mix per role and layer, training context, KV cache per token, tokenizer.\n"
                   "  --tensors  list every tensor with type, shape and size\n"
                   "  --json     machine-readable output\n");
            return 0;
        default: return cli_usage_error("inspect", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (file ? optind != argc : optind != argc - 1) return cli_usage_error("inspect", "expected exactly one GGUF file or URL");
    return inspect_file(file ? file : argv[optind], json, tensors);
}
