/* fitcheck gen: write a random-weight GGUF with a model's exact shapes and
 * quantization mix, to measure its speed without downloading it. */
#include "cli/cli.h"
#include "gen/gen.h"
#include "model/model.h"
#include "reports/reports.h"

#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define GEN_LORA_DEFAULT_RANK 8  /* PEFT's LoraConfig default r */
#define GEN_LORA_MAX_RANK 4096

static void gen_usage(FILE *out) {
    fprintf(out,
            "usage: fitcheck gen --like MODEL -o FILE.gguf [--quant TYPE] [--layers N] [--seed S] [--json]\n\n"
            "Writes a GGUF with random weights and the exact tensor shapes and quantization mix of MODEL\n"
            "(a catalog name such as tinyllama-1.1b, a config.json, or a GGUF file), as llama-quantize\n"
            "would make it at TYPE (default %s), with the hyperparameters llama.cpp needs and a\n"
            "synthetic tokenizer of the model's vocabulary size. llama.cpp and 'fitcheck run --bench'\n"
            "load it like the real model.\n\n"
            "  --like MODEL    the model to imitate ('fitcheck models' lists the catalog)\n"
            "  -o, --output F  the file to write (atomically: Ctrl-C or a full disk leave nothing)\n"
            "  --quant TYPE    Q4_0, Q4_K_M, Q8_0, F16, IQ4_XS, ... (default %s)\n"
            "  --layers N      keep only the first N layers (quick tests)\n"
            "  --seed S        random seed (default 1): the same seed gives the same file\n"
            "  --json          print the summary as JSON\n\n"
            "usage: fitcheck gen --mmproj " GEN_MMPROJ_SMOLVLM "|" GEN_MMPROJ_GEMMA3 " -o FILE.gguf\n"
            "       fitcheck gen --lora-for MODEL.gguf [--rank R] -o FILE.gguf\n"
            "Writes what loads next to a model, as llama.cpp's converters lay it out: SmolVLM-256M's or\n"
            "Gemma 3 4B's vision projector (llama.cpp --mmproj), or a LoRA adapter of rank R (default %d) on MODEL's attention\n"
            "and MLP matrices (llama.cpp --lora).\n",
            MODEL_DEFAULT_QUANT, MODEL_DEFAULT_QUANT, GEN_LORA_DEFAULT_RANK);
}

typedef struct gen_args {
    const char *like, *out, *quant;
    const char *mmproj, *lora_for;
    int64_t layers, seed, rank;
    bool json;
} gen_args;

static int parse(int argc, char **argv, gen_args *a) {
    static const struct option opts[] = {
        {"like", required_argument, 0, 'l'}, {"output", required_argument, 0, 'o'},
        {"quant", required_argument, 0, 'q'}, {"layers", required_argument, 0, 'L'},
        {"seed", required_argument, 0, 's'},  {"json", no_argument, 0, 'j'},
        {"help", no_argument, 0, 'h'},        {"mmproj", required_argument, 0, 'm'},
        {"lora-for", required_argument, 0, 'r'}, {"rank", required_argument, 0, 'R'}, {0, 0, 0, 0}};
    *a = (gen_args){.quant = MODEL_DEFAULT_QUANT, .seed = 1, .rank = GEN_LORA_DEFAULT_RANK};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
        switch (c) {
        case 'h': gen_usage(stdout); return -1;
        case 'l': a->like = optarg; break;
        case 'o': a->out = optarg; break;
        case 'q': a->quant = optarg; break;
        case 'j': a->json = true; break;
        case 'm': a->mmproj = optarg; break;
        case 'r': a->lora_for = optarg; break;
        case 'R':
            if (!cli_parse_i64(optarg, 1, GEN_LORA_MAX_RANK, &a->rank))
                return cli_usage_error("gen", "--rank wants a whole number from 1 to %d, not '%s'", GEN_LORA_MAX_RANK, optarg);
            break;
        case 'L':
            if (!cli_parse_i64(optarg, 1, MODEL_MAX_LAYERS, &a->layers))
                return cli_usage_error("gen", "--layers wants a whole number from 1 to %d, not '%s'", MODEL_MAX_LAYERS, optarg);
            break;
        case 's':
            if (!cli_parse_i64(optarg, 0, INT64_MAX, &a->seed))
                return cli_usage_error("gen", "--seed wants a non-negative whole number, not '%s'", optarg);
            break;
        default: return cli_usage_error("gen", "unknown option or missing value '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) return cli_usage_error("gen", "unexpected argument '%s'", argv[optind]);
    if (!!a->like + !!a->mmproj + !!a->lora_for != 1)
        return cli_usage_error("gen", "say one of --like MODEL, --mmproj PRESET, --lora-for MODEL");
    if (!a->out) return cli_usage_error("gen", "-o FILE.gguf is required");
    if (!model_ftype_find(a->quant)) return cli_usage_error("gen", "unknown quantization '%s'", a->quant);
    return FC_OK;
}

/* The model at the requested type, cut to the first `layers` layers. */
static int describe(model_desc *d, const gen_args *a, fc_err *err) {
    int rc = model_load(d, a->like, a->quant, err);
    if (rc || !a->layers) return rc;
    if ((uint64_t)a->layers > d->hp.n_layer) {
        fc_err_set(err, FC_EINPUT, "--layers %lld: %s has only %u layers", (long long)a->layers, a->like,
                   d->hp.n_layer);
        model_desc_free(d); /* the caller frees only on success (leak found by LeakSanitizer) */
        return FC_EINPUT;
    }
    model_hparams *hp = malloc(sizeof *hp);
    if (!hp) return fc_err_set(err, FC_ERUNTIME, "out of memory");
    *hp = d->hp;
    hp->n_layer = (uint32_t)a->layers;
    if (hp->n_layer_dense_lead > hp->n_layer) hp->n_layer_dense_lead = hp->n_layer;
    model_desc_free(d);
    rc = model_desc_synthesize(d, hp, a->quant, err);
    free(hp);
    return rc;
}

/* --mmproj / --lora-for: the files that load next to a model. */
static int gen_extra(const gen_args *a) {
    fc_err err = {0};
    int rc;
    if (a->mmproj) {
        rc = gen_mmproj_write(a->mmproj, a->out, (uint64_t)a->seed, &err);
    } else {
        model_desc base;
        if ((rc = model_load(&base, a->lora_for, NULL, &err))) return cli_report_error("gen", &err);
        rc = gen_lora_write(&base, (uint32_t)a->rank, a->out, (uint64_t)a->seed, &err);
        model_desc_free(&base);
    }
    if (rc) return cli_report_error("gen", &err);
    if (a->json) cli_print_json(json_pack("{s:s,s:s}", "file", a->out, "kind", a->mmproj ? "mmproj" : "lora"));
    else printf("wrote %s\n", fc_safe(a->out));
    return 0;
}

int cli_gen(int argc, char **argv) {
    gen_args a;
    int rc = parse(argc, argv, &a);
    if (rc) return rc < 0 ? 0 : rc;
    if (a.mmproj || a.lora_for) return gen_extra(&a);
    model_desc d;
    fc_err err = {0};
    if ((rc = describe(&d, &a, &err))) return cli_report_error("gen", &err);
    char name[160];
    snprintf(name, sizeof name, "%s %s (fitcheck gen, random weights)", a.like, a.quant);
    gen_opts o = {(uint64_t)a.seed, name, rep_progress};
    uint64_t size = 0;
    double t0 = fc_now();
    rc = gen_file_size(&d, &o, &size, &err);
    if (!rc) rc = gen_write(&d, a.out, &o, &err);
    rep_progress_done();
    double secs = fc_now() - t0;
    if (rc) {
        model_desc_free(&d);
        return cli_report_error("gen", &err);
    }
    char sz[32], pred[32];
    if (a.json) {
        json_t *j = json_pack("{s:s, s:s, s:s, s:i, s:i, s:I, s:I, s:I, s:f}", "file", a.out, "like", a.like, "quant",
                              a.quant, "layers", (int)d.hp.n_layer, "tensors", (int)d.n_tensors, "bytes",
                              (json_int_t)size, "weight_bytes", (json_int_t)d.weight_bytes, "predicted_bytes",
                              (json_int_t)d.file_bytes, "seconds", secs);
        cli_print_json(j);
    } else {
        printf("wrote %s: %s %s, %u layers, %u tensors, %s (planner's estimate %s) in %.1f s\n", fc_safe(a.out),
               fc_safe(a.like), fc_safe(a.quant), d.hp.n_layer, d.n_tensors, fc_fmt_bytes(size, sz, sizeof sz),
               fc_fmt_bytes(d.file_bytes, pred, sizeof pred), secs);
    }
    model_desc_free(&d);
    return 0;
}
