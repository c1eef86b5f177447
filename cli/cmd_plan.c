/* fitcheck plan MODEL: will it fit — memory per device and a verdict.
 *
 * Three steps kept apart so later columns (speed, the choice of quant) slot
 * in: plan_request from the flags, plan_outcome computed from it, then one
 * renderer per output format. */
#include "cli/cli.h"
#include "planner/planner.h"
#include "reports/reports.h"

#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PLAN_CTX_MAX (1 << 24)
#define PLAN_UBATCH_MAX 65536
#define PLAN_PARALLEL_MAX 1024
#define PLAN_NGL_FLAG_MAX 100000   /* llama.cpp users write -ngl 999 for "all": accept and clamp */
#define PLAN_SPLIT_MAX 1e6         /* one --tensor-split proportion */

typedef struct plan_request {
    const char *model;       /* GGUF path, config.json or catalog name */
    const char *quant;       /* NULL: the file's own / MODEL_DEFAULT_QUANT */
    const char *hw;          /* NULL: this machine */
    plan_params params;
    bool json;
    bool table;              /* -o FORMAT: the per-device table in that format */
    enum rep_format fmt;
    /* speed and the choice */
    double min_tps;          /* --min-tps: decode the recommendation must reach */
    bool ctx_sweep;          /* --ctx-sweep: t/s against context depth */
    bool hw_all;             /* --hw all: rank the hardware catalog */
} plan_request;

typedef struct plan_outcome {
    model_desc model;
    plan_hw hw;
    plan_memory mem;
    /* speed and the choice */
    plan_efficiency eff;
    plan_speed_result speed;
    char speed_note[FC_ERR_MSG_MAX];   /* why there is no speed, when there is none */
    plan_choice *choice;
} plan_outcome;

static void plan_usage(FILE *out) {
    fprintf(out,
            "usage: fitcheck plan MODEL [options]\n\n"
            "Will MODEL fit: weights, KV cache, compute and output buffers and runtime overhead per\n"
            "device, as llama.cpp allocates them, with free memory, margin and a verdict.\n"
            "MODEL is a GGUF file, a Hugging Face config.json (or a folder with one), or a catalog\n"
            "name ('fitcheck models').\n\n"
            "options:\n"
            "  --quant Q        quantization to emulate (Q4_K_M default for config/catalog; F16, Q8_0,\n"
            "                   Q6_K, Q5_K_M, Q4_K_S, IQ4_XS, Q3_K_M, Q2_K, IQ2_XXS, MXFP4_MOE, ...)\n"
            "  --ctx N          context (KV cells, shared by the sequences); default %d\n"
            "  --kv TYPE        KV cache type: f16 (default), q8_0, q4_0\n"
            "  --fa on|off      flash attention (default on, as llama.cpp's -fa auto)\n"
            "  --ngl N|all      layers on the GPUs, as llama.cpp's -ngl (n_layer+1 = with output)\n"
            "  --parallel N     sequences decoded together (-np); default 1\n"
            "  --ubatch N       physical batch (-ub); default %d\n"
            "  --tensor-split A,B,...  share of layers per GPU (-ts); default by free memory\n"
            "  --cpu-moe        keep every MoE expert tensor in host RAM (-cmoe, -ot exps=CPU)\n"
            "  --n-cpu-moe N    keep the experts of the first N layers in host RAM (-ncmoe)\n"
            "  --hw SPEC        catalog devices 'rtx-4090,rtx-4090', 'apple-m4-max-40c:128';\n"
            "                   a probe profile FILE.json; 'all' ranks the whole catalog (what to buy);\n"
            "                   default: this machine\n"
            "  --min-tps X      the recommendation must decode at least X tokens/s\n"
            "  --ctx-sweep      predicted pp512 / tg128 against context depth\n"
            "  --json           machine-readable output\n"
            "  -o md|csv|json|jsonl  the per-device table in that format (docs/schema-plan.md)\n",
            PLAN_DEFAULT_CTX, PLAN_DEFAULT_UBATCH);
}

static int parse_kv_type(const char *s, uint32_t *out) {
    static const char *const allowed[] = {"f16", "q8_0", "q4_0", "bf16", "f32", "q5_0", "q5_1", "q4_1", "iq4_nl"};
    for (size_t i = 0; i < FC_ARRAY_LEN(allowed); i++)
        if (!strcasecmp(s, allowed[i])) {
            *out = (uint32_t)ggml_type_from_name(allowed[i]);
            return FC_OK;
        }
    return FC_EINPUT;
}

/* "3,1" -> {3, 1}: llama.cpp's -ts proportions. */
static int parse_split(const char *s, float *split) {
    char buf[256];
    if (snprintf(buf, sizeof buf, "%s", s) >= (int)sizeof buf) return FC_EINPUT;
    char *save = NULL;
    int n = 0;
    double sum = 0;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        double v;
        if (n >= PLAN_MAX_DEVICES || !cli_parse_f64(tok, 0, PLAN_SPLIT_MAX, &v)) return FC_EINPUT;
        split[n++] = (float)v;
        sum += v;
    }
    return n && sum > 0 ? FC_OK : FC_EINPUT;
}

static int plan_parse(int argc, char **argv, plan_request *rq) {
    static const struct option opts[] = {
        {"quant", required_argument, 0, 'q'}, {"ctx", required_argument, 0, 'c'},
        {"kv", required_argument, 0, 'k'},    {"fa", required_argument, 0, 'f'},
        {"ngl", required_argument, 0, 'g'},   {"parallel", required_argument, 0, 'p'},
        {"ubatch", required_argument, 0, 'u'}, {"hw", required_argument, 0, 'w'},
        {"tensor-split", required_argument, 0, 'T'}, {"cpu-moe", no_argument, 0, 'e'},
        {"n-cpu-moe", required_argument, 0, 'n'},
        {"json", no_argument, 0, 'j'},        {"help", no_argument, 0, 'h'},
        {"min-tps", required_argument, 0, 'm'}, {"ctx-sweep", no_argument, 0, 's'},
        {"output", required_argument, 0, 'o'},
        {0, 0, 0, 0},
    };
    memset(rq, 0, sizeof *rq);
    plan_params_default(&rq->params);
    plan_params *p = &rq->params;
    int c;
    int64_t v;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
        switch (c) {
        case 'q':
            if (!model_ftype_find(optarg)) return cli_usage_error("plan", "--quant: unknown quantization '%s'", optarg);
            rq->quant = optarg;
            break;
        case 'c':
            if (!cli_parse_i64(optarg, 1, PLAN_CTX_MAX, &v))
                return cli_usage_error("plan", "--ctx: '%s' is not a context size in 1..%d", optarg, PLAN_CTX_MAX);
            p->n_ctx = (uint32_t)v;
            break;
        case 'k':
            if (parse_kv_type(optarg, &p->type_k)) return cli_usage_error("plan", "--kv: '%s' is not f16, q8_0 or q4_0", optarg);
            p->type_v = p->type_k;
            break;
        case 'f':
            if (strcmp(optarg, "on") && strcmp(optarg, "off")) return cli_usage_error("plan", "--fa: say on or off");
            p->flash_attn = !strcmp(optarg, "on");
            break;
        case 'g':
            if (!strcmp(optarg, "all")) p->n_gpu_layers = PLAN_NGL_ALL;
            else if (cli_parse_i64(optarg, 0, PLAN_NGL_FLAG_MAX, &v)) p->n_gpu_layers = (int32_t)v;
            else return cli_usage_error("plan", "--ngl: '%s' is not a layer count", optarg);
            break;
        case 'p':
            if (!cli_parse_i64(optarg, 1, PLAN_PARALLEL_MAX, &v))
                return cli_usage_error("plan", "--parallel: '%s' is not in 1..%d", optarg, PLAN_PARALLEL_MAX);
            p->n_parallel = (uint32_t)v;
            break;
        case 'u':
            if (!cli_parse_i64(optarg, 1, PLAN_UBATCH_MAX, &v))
                return cli_usage_error("plan", "--ubatch: '%s' is not in 1..%d", optarg, PLAN_UBATCH_MAX);
            p->n_ubatch = (uint32_t)v;
            if (p->n_batch < p->n_ubatch) p->n_batch = p->n_ubatch;
            break;
        case 'w':
            rq->hw = optarg;
            rq->hw_all = !strcmp(optarg, "all");
            break;
        case 'm':
            if (!cli_parse_f64(optarg, 0, 1e6, &rq->min_tps))
                return cli_usage_error("plan", "--min-tps: '%s' is not a rate in 0..1e6 tokens/s", optarg);
            break;
        case 's': rq->ctx_sweep = true; break;
        case 'T':
            if (parse_split(optarg, p->tensor_split)) return cli_usage_error("plan", "--tensor-split: '%s' is not a list of non-negative numbers", optarg);
            break;
        case 'e': p->exps_on_host = true; break;
        case 'n':
            if (!cli_parse_i64(optarg, 0, MODEL_MAX_LAYERS, &v))
                return cli_usage_error("plan", "--n-cpu-moe: '%s' is not a layer count", optarg);
            p->n_cpu_moe = (uint32_t)v;
            break;
        case 'j': rq->json = true; break;
        case 'o':
            if (!rep_format_is_table(optarg, &rq->fmt)) return cli_usage_error("plan", "-o: say md, csv, json or jsonl");
            rq->table = true;
            break;
        case 'h': plan_usage(stdout); return -1;
        default: return cli_usage_error("plan", "unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1) return cli_usage_error("plan", optind >= argc ? "no MODEL given" : "one MODEL at a time");
    rq->model = argv[optind];
    return FC_OK;
}

/* ---- speed and the choice ---------------------------------------------------- */

#define SWEEP_MAX_POINTS 16

static json_t *speed_result_json(const plan_speed_result *r) {
    return json_pack("{s:f,s:f,s:i,s:f,s:f}", "pp512_tps", r->pp512, "tg128_tps", r->tg128, "depth", (json_int_t)r->depth,
                     "pp512_at_depth_tps", r->pp_depth, "tg128_at_depth_tps", r->tg_depth);
}

static uint32_t speed_depth(const plan_params *p) { return p->n_ctx > PLAN_TEST_TG ? p->n_ctx - PLAN_TEST_TG : 0; }

/* Speed of the requested placement, and the table of every quantization. A
 * machine without a measured bandwidth gets no speed, and says why. */
static int plan_speed_section(const plan_request *rq, plan_outcome *o, fc_err *err) {
    fc_err serr = {0};
    if (plan_speed_predict(&o->model, &o->hw, &o->mem, &rq->params, &o->eff, speed_depth(&rq->params), &o->speed,
                           &serr)) {
        snprintf(o->speed_note, sizeof o->speed_note, "%s", serr.msg);
        return FC_OK;
    }
    o->choice = calloc(1, sizeof *o->choice);
    if (!o->choice) return fc_err_set(err, FC_ERUNTIME, "out of memory");
    return plan_choose(o->choice, rq->model, &o->hw, &rq->params, rq->min_tps, &o->eff, err);
}

/* The file to run: the GGUF given, when it is the recommended type; else a
 * name for the file to make or download ("model-Q5_K_M.gguf"). */
static void model_file_name(const plan_request *rq, const plan_outcome *o, const char *quant, char *buf, size_t cap) {
    size_t n = strlen(rq->model);
    bool gguf = n > 5 && !strcasecmp(rq->model + n - 5, ".gguf");
    const model_ftype_info *own = model_ftype_by_id(o->model.hp.file_type);
    if (gguf && !rq->quant && own && !strcasecmp(own->name, quant)) snprintf(buf, cap, "%s", rq->model);
    else snprintf(buf, cap, "%.*s-%s.gguf", (int)(gguf ? n - 5 : n), rq->model, quant);
}

static void print_speed_text(const plan_request *rq, const plan_outcome *o) {
    if (o->speed_note[0]) {
        printf("speed     not predicted: %s\n", o->speed_note);
        return;
    }
    printf("speed     pp512 %.0f t/s, tg128 %.1f t/s; with %u tokens in context: pp512 %.0f t/s, tg128 %.1f t/s\n",
           o->speed.pp512, o->speed.tg128, o->speed.depth, o->speed.pp_depth, o->speed.tg_depth);
    const plan_choice *c = o->choice;
    if (!c) return;
    char a[24];
    printf("\nevery quantization at context %u (speed as llama.cpp; quality: perplexity increase vs F16, "
           "KL divergence)\n", c->n_ctx);
    printf("%-10s %10s  %-20s %5s %9s %8s %9s %8s %8s\n", "quant", "file", "fits", "ngl", "pp512", "tg128", "tg@ctx",
           "PPL +%", "KLD");
    for (int i = 0; i < c->n_row; i++) {
        const plan_choice_row *r = &c->row[i];
        char ngl[16] = "-", ppl[16] = "?", kld[16] = "?";
        if (r->where != PLAN_ON_NONE && r->where != PLAN_ON_CPU)
            snprintf(ngl, sizeof ngl, "%d", r->params.n_gpu_layers == PLAN_NGL_ALL ? 999 : r->params.n_gpu_layers);
        if (r->ppl_pct >= 0) snprintf(ppl, sizeof ppl, "%.2f", r->ppl_pct);
        if (r->kld >= 0) snprintf(kld, sizeof kld, "%.4f", r->kld);
        if (r->where == PLAN_ON_NONE)
            printf("%-10s %10s  %-20s %5s %9s %8s %9s %8s %8s%s\n", r->quant, fc_fmt_bytes(r->file_bytes, a, sizeof a),
                   plan_where_name(r->where), ngl, "-", "-", "-", ppl, kld, i == c->best ? "  <-" : "");
        else
            printf("%-10s %10s  %-20s %5s %9.0f %8.1f %9.1f %8s %8s%s\n", r->quant,
                   fc_fmt_bytes(r->file_bytes, a, sizeof a), plan_where_name(r->where), ngl, r->speed.pp512,
                   r->speed.tg128, r->speed.tg_depth, ppl, kld, i == c->best ? "  <- recommended" : "");
    }
    if (c->best < 0) {
        printf("\nrecommended  nothing: %s\n", c->reason);
        return;
    }
    char file[1200], llama[2048], ollama[256];
    model_file_name(rq, o, c->row[c->best].quant, file, sizeof file);
    plan_choice_commands(c, file, llama, sizeof llama, ollama, sizeof ollama);
    printf("\nrecommended  %s at context %u: %s\n  llama.cpp  %s\n  ollama     %s\n", c->row[c->best].quant, c->n_ctx,
           c->reason, llama, ollama);
}

/* --ctx-sweep: the requested placement at growing depths, up to the context. */
static void print_ctx_sweep(const plan_request *rq, const plan_outcome *o) {
    if (o->speed_note[0]) return;
    printf("\ncontext sweep (llama-bench -d DEPTH)\n%8s %10s %10s\n", "depth", "pp512", "tg128");
    plan_speed_result r;
    fc_err err = {0};
    for (uint32_t d = 0, i = 0; i < SWEEP_MAX_POINTS && d <= rq->params.n_ctx; i++, d = d ? d * 2 : 512) {
        if (plan_speed_predict(&o->model, &o->hw, &o->mem, &rq->params, &o->eff, d, &r, &err)) return;
        printf("%8u %10.0f %10.1f\n", d, r.pp_depth, r.tg_depth);
    }
}

/* --hw all: every catalog entry as the only device (GPUs with this
 * machine's RAM as host), ranked by where the model fits, then decode speed. */
typedef struct hw_rank {
    char id[64];
    double mem_gib;
    int where;
    int32_t ngl;
    plan_speed_result speed;
} hw_rank;

static int hw_rank_cmp(const void *a, const void *b) {
    const hw_rank *x = a, *y = b;
    if (x->where != y->where) return x->where - y->where;
    return (x->speed.tg128 < y->speed.tg128) - (x->speed.tg128 > y->speed.tg128);
}

static int plan_rank_hw(const plan_request *rq, fc_err *err) {
    size_t n = plan_hwcat_count();
    hw_rank *rank = calloc(n ? n : 1, sizeof *rank);
    plan_outcome *o = calloc(1, sizeof *o);
    int rc = !rank || !o ? fc_err_set(err, FC_ERUNTIME, "out of memory") : FC_OK;
    if (!rc) rc = model_load(&o->model, rq->model, rq->quant, err);
    if (!rc) rc = plan_efficiency_load(&o->eff, NULL, err);
    size_t k = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        plan_hw_entry e;
        if ((rc = plan_hwcat_get(i, &e, err))) break;
        if ((rc = plan_hw_from_catalog(&o->hw, e.id, err))) break;
        hw_rank *r = &rank[k++];
        snprintf(r->id, sizeof r->id, "%s", e.id);
        r->mem_gib = (double)(o->hw.n_gpu ? o->hw.gpu[0].mem_total : o->hw.host.mem_total) / FC_GIB;
        plan_params p = rq->params;
        r->where = plan_place(&o->model, &o->hw, &p, &o->mem);
        r->ngl = p.n_gpu_layers;
        fc_err serr = {0};
        if (r->where != PLAN_ON_NONE &&
            plan_speed_predict(&o->model, &o->hw, &o->mem, &p, &o->eff, speed_depth(&p), &r->speed, &serr))
            r->where = PLAN_ON_NONE;
    }
    if (!rc) {
        qsort(rank, k, sizeof *rank, hw_rank_cmp);
        const model_ftype_info *ft = model_ftype_by_id(o->model.hp.file_type);
        if (rq->json) {
            json_t *arr = json_array();
            for (size_t i = 0; i < k; i++)
                json_array_append_new(arr, json_pack("{s:s,s:f,s:s,s:o}", "device", rank[i].id, "memory_gib",
                                                     rank[i].mem_gib, "fits", plan_where_name(rank[i].where), "speed",
                                                     rank[i].where == PLAN_ON_NONE ? json_null()
                                                                                   : speed_result_json(&rank[i].speed)));
            json_t *root = json_pack("{s:s,s:s,s:i,s:o}", "model", rq->model, "quant", ft ? ft->name : "?", "n_ctx",
                                     (json_int_t)rq->params.n_ctx, "hardware", arr);
            cli_print_json(root);
        } else {
            printf("%s %s at context %u on every catalog device (one device each; GPUs with this machine's RAM)\n",
                   rq->model, ft ? ft->name : "", rq->params.n_ctx);
            printf("%4s %-26s %8s  %-20s %5s %9s %8s %9s\n", "rank", "device", "memory", "fits", "ngl", "pp512", "tg128",
                   "tg@ctx");
            for (size_t i = 0; i < k; i++) {
                const hw_rank *r = &rank[i];
                char ngl[16] = "-";
                if (r->where == PLAN_ON_SPLIT) snprintf(ngl, sizeof ngl, "%d", r->ngl);
                if (r->where == PLAN_ON_NONE)
                    printf("%4zu %-26s %6.0f G  %-20s\n", i + 1, r->id, r->mem_gib, plan_where_name(r->where));
                else
                    printf("%4zu %-26s %6.0f G  %-20s %5s %9.0f %8.1f %9.1f\n", i + 1, r->id, r->mem_gib,
                           plan_where_name(r->where), ngl, r->speed.pp512, r->speed.tg128, r->speed.tg_depth);
            }
        }
    }
    if (o) model_desc_free(&o->model);
    free(o);
    free(rank);
    return rc;
}

static int plan_compute(const plan_request *rq, plan_outcome *o, fc_err *err) {
    memset(o, 0, sizeof *o);
    int rc = model_load(&o->model, rq->model, rq->quant, err);
    if (rc) return rc;
    rc = rq->hw ? plan_hw_from_spec(&o->hw, rq->hw, err) : plan_hw_this_machine(&o->hw, false, err);
    if (!rc) rc = plan_memory_compute(&o->mem, &o->model, &o->hw, &rq->params, err);
    if (!rc) rc = plan_efficiency_load(&o->eff, NULL, err);
    if (!rc) rc = plan_speed_section(rq, o, err);
    if (rc) {
        model_desc_free(&o->model);
        free(o->choice);
    }
    return rc;
}

/* ---- text ------------------------------------------------------------------ */

static const char *mib(uint64_t b, char *buf, size_t cap) {
    if (!b) return "-";
    return fc_fmt_bytes(b, buf, cap);
}

static void layers_label(const plan_dev_mem *dm, char *buf, size_t cap) {
    int n = 0;
    if (dm->n_layers) n = snprintf(buf, cap, "%u-%u", dm->layer_first, dm->layer_first + dm->n_layers - 1);
    else buf[0] = '\0';
    if (dm->has_output && n >= 0 && (size_t)n < cap) n += snprintf(buf + n, cap - (size_t)n, "%sout", n ? "+" : "");
    if (dm->has_embd && n >= 0 && (size_t)n < cap) snprintf(buf + n, cap - (size_t)n, "%sembd", n ? "+" : "");
}

static void print_row(const char *dev, const plan_dev_mem *dm) {
    char l[32], w[24], k[24], c[24], out[24], ov[24], t[24], f[24], mg[24];
    layers_label(dm, l, sizeof l);
    fc_fmt_bytes(dm->margin < 0 ? (uint64_t)-dm->margin : (uint64_t)dm->margin, mg, sizeof mg);
    printf("%-24s %-14s %10s %10s %10s %10s %10s %10s %10s %s%-9s %s\n", dev, l, mib(dm->weights, w, sizeof w),
           mib(dm->kv, k, sizeof k), mib(dm->compute, c, sizeof c), mib(dm->output, out, sizeof out),
           mib(dm->overhead, ov, sizeof ov), fc_fmt_bytes(dm->total, t, sizeof t),
           fc_fmt_bytes(dm->capacity, f, sizeof f), dm->margin < 0 ? "-" : " ", mg, plan_verdict_name(dm->verdict));
}

static void plan_print_text(const plan_request *rq, const plan_outcome *o) {
    const model_desc *d = &o->model;
    const plan_params *p = &rq->params;
    const model_ftype_info *ft = model_ftype_by_id(d->hp.file_type);
    char a[24], b[24];
    printf("model     %s (%s), %s, %s file, %.2f B parameters, %s\n", d->hp.name[0] ? d->hp.name : d->hp.arch,
           d->source, ft ? ft->name : "file types", fc_fmt_bytes(d->file_bytes, a, sizeof a), (double)d->n_params / 1e9,
           d->hp.arch);
    printf("settings  context %u (KV cells %u", p->n_ctx, o->mem.kv_cells);
    if (d->hp.sliding_window) printf(", %u on sliding-window layers", o->mem.kv_cells_swa);
    printf("), KV %s/%s %s, ubatch %u, flash attention %s, %u sequence%s\n", ggml_type_get(p->type_k)->name,
           ggml_type_get(p->type_v)->name, fc_fmt_bytes(o->mem.kv_bytes, b, sizeof b), p->n_ubatch,
           p->flash_attn ? "on" : "off", p->n_parallel, p->n_parallel > 1 ? "s" : "");
    printf("hardware  %s\n\n", o->hw.label);
    printf("%-24s %-14s %10s %10s %10s %10s %10s %10s %10s %-10s %s\n", "device", "layers", "weights", "KV cache",
           "compute", "output", "overhead", "total", "free", "margin", "verdict");
    for (int g = 0; g < o->hw.n_gpu; g++) {
        char dev[64];
        snprintf(dev, sizeof dev, "%s%d %.16s", plan_backend_name(o->hw.gpu[g].backend), g, o->hw.gpu[g].id);
        print_row(dev, &o->mem.gpu[g]);
    }
    print_row("CPU (host RAM)", &o->mem.host);
    printf("\nverdict   %s", plan_verdict_name(o->mem.verdict));
    if (o->mem.verdict == PLAN_NO_FIT) printf(" — try a smaller --quant, a shorter --ctx, --kv q8_0 or fewer --ngl");
    printf("\nfree memory: %s\n", o->hw.host.source);
    print_speed_text(rq, o);
    if (rq->ctx_sweep) print_ctx_sweep(rq, o);
}

/* ---- JSON ------------------------------------------------------------------ */

static json_t *dev_json(const char *id, const char *backend, const plan_dev_mem *dm) {
    json_t *o = json_object();
    json_object_set_new(o, "device", json_string(id));
    json_object_set_new(o, "backend", json_string(backend));
    json_object_set_new(o, "n_layers", json_integer(dm->n_layers));
    json_object_set_new(o, "layer_first", dm->n_layers ? json_integer(dm->layer_first) : json_null());
    json_object_set_new(o, "output", json_boolean(dm->has_output));
    json_object_set_new(o, "token_embd", json_boolean(dm->has_embd));
    json_object_set_new(o, "weights_bytes", json_integer((json_int_t)dm->weights));
    json_object_set_new(o, "kv_bytes", json_integer((json_int_t)dm->kv));
    json_object_set_new(o, "compute_bytes", json_integer((json_int_t)dm->compute));
    json_object_set_new(o, "output_bytes", json_integer((json_int_t)dm->output));
    json_object_set_new(o, "overhead_bytes", json_integer((json_int_t)dm->overhead));
    json_object_set_new(o, "total_bytes", json_integer((json_int_t)dm->total));
    json_object_set_new(o, "free_bytes", json_integer((json_int_t)dm->capacity));
    json_object_set_new(o, "margin_bytes", json_integer((json_int_t)dm->margin));
    json_object_set_new(o, "verdict", json_string(plan_verdict_name(dm->verdict)));
    return o;
}

static void speed_json(json_t *root, const plan_request *rq, const plan_outcome *o) {
    if (o->speed_note[0]) {
        json_object_set_new(root, "speed", json_null());
        json_object_set_new(root, "speed_note", json_string(o->speed_note));
        return;
    }
    json_object_set_new(root, "speed", speed_result_json(&o->speed));
    const plan_choice *c = o->choice;
    if (!c) return;
    json_t *rows = json_array();
    for (int i = 0; i < c->n_row; i++) {
        const plan_choice_row *r = &c->row[i];
        json_t *j = json_pack("{s:s,s:I,s:s,s:b}", "quant", r->quant, "file_bytes", (json_int_t)r->file_bytes, "fits",
                              plan_where_name(r->where), "experts_in_ram", r->params.exps_on_host);
        json_object_set_new(j, "n_cpu_moe", json_integer(r->params.exps_on_host ? 0 : r->params.n_cpu_moe));
        json_object_set_new(j, "n_gpu_layers", r->params.n_gpu_layers == PLAN_NGL_ALL ? json_string("all")
                                                                                     : json_integer(r->params.n_gpu_layers));
        json_object_set_new(j, "speed", r->where == PLAN_ON_NONE ? json_null() : speed_result_json(&r->speed));
        json_object_set_new(j, "ppl_increase_pct", r->ppl_pct >= 0 ? json_real(r->ppl_pct) : json_null());
        json_object_set_new(j, "kl_divergence", r->kld >= 0 ? json_real(r->kld) : json_null());
        json_array_append_new(rows, j);
    }
    json_object_set_new(root, "quantizations", rows);
    json_t *rec = json_object();
    json_object_set_new(rec, "reason", json_string(c->reason));
    json_object_set_new(rec, "n_ctx", json_integer(c->n_ctx));
    if (c->best >= 0) {
        char file[1200], llama[2048], ollama[256];
        model_file_name(rq, o, c->row[c->best].quant, file, sizeof file);
        plan_choice_commands(c, file, llama, sizeof llama, ollama, sizeof ollama);
        json_object_set_new(rec, "quant", json_string(c->row[c->best].quant));
        json_object_set_new(rec, "llama_cpp", json_string(llama));
        json_object_set_new(rec, "ollama", json_string(ollama));
    }
    json_object_set_new(root, "recommendation", rec);
}

static void plan_print_json(const plan_request *rq, const plan_outcome *o) {
    const model_desc *d = &o->model;
    const plan_params *p = &rq->params;
    const model_ftype_info *ft = model_ftype_by_id(d->hp.file_type);
    json_t *root = json_object(), *m = json_object(), *s = json_object(), *devs = json_array();
    json_object_set_new(m, "name", json_string(d->hp.name));
    json_object_set_new(m, "source", json_string(d->source));
    json_object_set_new(m, "architecture", json_string(d->hp.arch));
    json_object_set_new(m, "quant", ft ? json_string(ft->name) : json_null());
    json_object_set_new(m, "file_bytes", json_integer((json_int_t)d->file_bytes));
    json_object_set_new(m, "weight_bytes", json_integer((json_int_t)d->weight_bytes));
    json_object_set_new(m, "n_params", json_integer((json_int_t)d->n_params));
    json_object_set_new(m, "n_layer", json_integer(d->hp.n_layer));
    json_object_set_new(root, "model", m);
    json_object_set_new(s, "n_ctx", json_integer(p->n_ctx));
    json_object_set_new(s, "kv_cells", json_integer(o->mem.kv_cells));
    json_object_set_new(s, "kv_cells_swa", json_integer(o->mem.kv_cells_swa));
    json_object_set_new(s, "kv_type_k", json_string(ggml_type_get(p->type_k)->name));
    json_object_set_new(s, "kv_type_v", json_string(ggml_type_get(p->type_v)->name));
    json_object_set_new(s, "kv_bytes", json_integer((json_int_t)o->mem.kv_bytes));
    json_object_set_new(s, "n_ubatch", json_integer(p->n_ubatch));
    json_object_set_new(s, "flash_attn", json_boolean(p->flash_attn));
    json_object_set_new(s, "n_parallel", json_integer(p->n_parallel));
    json_object_set_new(s, "n_gpu_layers", p->n_gpu_layers < 0 ? json_string("all") : json_integer(p->n_gpu_layers));
    json_object_set_new(root, "settings", s);
    json_object_set_new(root, "hardware", json_string(o->hw.label));
    for (int g = 0; g < o->hw.n_gpu; g++)
        json_array_append_new(devs, dev_json(o->hw.gpu[g].id, plan_backend_name(o->hw.gpu[g].backend), &o->mem.gpu[g]));
    json_array_append_new(devs, dev_json("host", "CPU", &o->mem.host));
    json_object_set_new(root, "devices", devs);
    json_object_set_new(root, "verdict", json_string(plan_verdict_name(o->mem.verdict)));
    json_object_set_new(root, "free_memory_source", json_string(o->hw.host.source));
    speed_json(root, rq, o);
    cli_print_json(root);
}

int cli_plan(int argc, char **argv) {
    plan_request rq;
    int rc = plan_parse(argc, argv, &rq);
    if (rc) return rc < 0 ? 0 : rc;
    plan_outcome o;
    fc_err err = {0};
    if (rq.hw_all) return plan_rank_hw(&rq, &err) ? cli_report_error("plan", &err) : 0;
    if ((rc = plan_compute(&rq, &o, &err))) return cli_report_error("plan", &err);
    if (rq.table) {
        rep_table *t = rep_plan_table(&o.model, &o.hw, &o.mem, &rq.params, &err);
        rc = t ? rep_table_write(t, stdout, rq.fmt, &err) : err.status;
        rep_table_free(t);
        if (rc) rc = cli_report_error("plan", &err);
    } else if (rq.json) plan_print_json(&rq, &o);
    else plan_print_text(&rq, &o);
    model_desc_free(&o.model);
    free(o.choice);
    return rc;
}
