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

/* What the flags ask for; the planner's own request is built from it. */
typedef struct plan_args {
    const char *model;       /* GGUF path, config.json or catalog name */
    const char *quant;       /* NULL: the file's own / MODEL_DEFAULT_QUANT */
    const char *hw;          /* NULL: this machine */
    plan_params params;
    double min_tps;          /* --min-tps: decode the recommendation must reach */
    bool min_tps_given;
    bool ctx_sweep;          /* --ctx-sweep: t/s against context depth */
    bool hw_all;             /* --hw all: rank the hardware catalog */
    double budget_usd;       /* --budget: with --hw all, devices priced within it */
    const char *link;        /* --link: between the hosts of a cluster --hw */
    int n_prompt, n_gen;     /* --pp / --tg: the llama-bench tests a cluster's speed is for */
    bool tests_given;        /* either was given */
    bool json;
    bool table;              /* -o FORMAT: the per-device table in that format */
    enum rep_format fmt;
    bool set_backend;        /* --backend */
    int backend;
    plan_bench_test bench[PLAN_BENCH_MAX]; /* --bench */
    int n_bench;
    /* what loads next to the model: files as given, read in cli_plan */
    const char *mmproj, *draft, *lora[PLAN_MAX_LORA];
    int n_lora;
    bool mmproj_on_cpu;
    int32_t draft_ngl;
    bool draft_ngl_given;
} plan_args;

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
            "  --llama-build N  the llama.cpp build to plan for (its 'version: N', b4000): one before\n"
            "                   July 2024 prefills slower where published results measured it; one\n"
            "                   before the -fa auto default runs without flash attention; default: current\n"
            "  --ngl N|all      layers on the GPUs, as llama.cpp's -ngl (n_layer+1 = with output)\n"
            "  --parallel N     sequences decoded together (-np); default 1\n"
            "  --ubatch N       physical batch (-ub); default %d\n"
            "  --tensor-split A,B,...  share of layers per GPU (-ts); default by free memory\n"
            "  --cpu-moe        keep every MoE expert tensor in host RAM (-cmoe, -ot exps=CPU)\n"
            "  --n-cpu-moe N    keep the experts of the first N layers in host RAM (-ncmoe)\n"
            "  --hw SPEC        catalog devices 'rtx-4090,rtx-4090', 'apple-m4-max-40c:128';\n"
            "                   a CPU platform twice is two sockets 'amd-epyc-9005:768,amd-epyc-9005:768';\n"
            "                   a probe profile FILE.json; 'all' ranks the whole catalog (what to buy);\n"
            "                   default: this machine\n"
            "                   several hosts on llama.cpp's RPC backend: 'a=rtx-4090;b=apple-m2-ultra:192;\n"
            "                   c=./pc2.json' (the first runs llama-server, the others rpc-server;\n"
            "                   'this' = this machine); docs/rpc.md\n"
            "  --link L         between the hosts: 1gbe (default), 2.5gbe, 5gbe, 10gbe, 25gbe, 40gbe, tb4,\n"
            "                   RATE:RTT ('1gbit:0.3ms'), or a profile with a link measured by probe --peer\n"
            "  --pp N, --tg N   the llama-bench tests a cluster's speed is given for (default 512, 128)\n"
            "  --budget USD     with --hw all: only devices whose launch price is within USD\n"
            "  --min-tps X      the recommendation must decode at least X tokens/s (default %g, about\n"
            "                   twice reading speed; 0 = no floor)\n"
            "  --ctx-sweep      predicted pp512 / tg128 against context depth\n"
            "  --backend B      llama.cpp backend the GPUs run: cuda, rocm, vulkan, metal, sycl, or cpu\n"
            "                   (no layers on GPUs); default: each device's own (the catalog's); one a\n"
            "                   GPU cannot run (Metal on a Radeon) is an error ('fitcheck hw --json')\n"
            "  --bench LIST     predict llama-bench tests and print them as llama-bench does (its\n"
            "                   Markdown table; -o json|jsonl|csv: its fields): pp512 (-p 512), tg128\n"
            "                   (-n 128), pp512+tg128 (-pg 512,128), each optionally @dDEPTH (-d), e.g.\n"
            "                   \"pp512,tg128,pp2048@d32768,tg32@d4096\"; several hosts: llama-bench --rpc\n"
            "  --no-mmap        read the weights into RAM instead of mapping the file (llama.cpp\n"
            "                   --no-mmap; newer: --load-mode none)\n"
            "  --no-repack      no CPU_REPACK copies (llama.cpp -nr); --mlock: lock the weights in RAM\n"
            "  --cache-type-k T, --cache-type-v T  K and V cache types apart (--kv sets both)\n"
            "llama.cpp's spellings work too: -m, -c, -ngl, -ctk, -ctv, -fa, -np, -ub, -ts, -cmoe,\n"
            "-ncmoe, -nr. The plan says when the fit depends on --no-mmap, --no-repack or --mlock.\n"
            "next to the model (llama-server's flags; counted in the memory, added to the command):\n"
            "  --mmproj FILE    vision projector (mmproj-*.gguf): its weights and the compute buffer of one\n"
            "                   image, on the first GPU unless --no-mmproj-offload\n"
            "  --lora FILE      LoRA adapter (repeat for several): with the layers it adapts\n"
            "  --draft MODEL    draft model for speculative decoding (-md): weights, KV and compute, and\n"
            "                   the predicted speed-up against the acceptance rate; --ngld N|all its -ngld\n"
            "  --json           machine-readable output\n"
            "  -o md|csv|json|jsonl  the per-device table in that format (docs/schema-plan.md)\n",
            PLAN_DEFAULT_CTX, PLAN_DEFAULT_UBATCH, PLAN_DEFAULT_MIN_TPS);
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
static int parse_split(const char *s, float *split, uint32_t *count) {
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
    *count = (uint32_t)n;
    return n && sum > 0 ? FC_OK : FC_EINPUT;
}

static int plan_parse(int argc, char **argv, plan_args *rq) {
    static const struct option opts[] = {
        {"quant", required_argument, 0, 'q'}, {"ctx", required_argument, 0, 'c'},
        {"kv", required_argument, 0, 'k'},    {"fa", required_argument, 0, 'f'},
        {"ngl", required_argument, 0, 'g'},   {"parallel", required_argument, 0, 'p'},
        {"ubatch", required_argument, 0, 'u'}, {"hw", required_argument, 0, 'w'},
        {"tensor-split", required_argument, 0, 'T'}, {"cpu-moe", no_argument, 0, 'e'},
        {"n-cpu-moe", required_argument, 0, 'n'},
        {"json", no_argument, 0, 'j'},        {"help", no_argument, 0, 'h'},
        {"min-tps", required_argument, 0, 'm'}, {"ctx-sweep", no_argument, 0, 's'},
        {"output", required_argument, 0, 'o'}, {"budget", required_argument, 0, 'B'},
        {"backend", required_argument, 0, 'A'}, {"bench", required_argument, 0, 'b'},
        {"output", required_argument, 0, 'o'},
        /* llama.cpp's own names (its spellings -c, -ngl, -ctk ... map here: cli_llama_aliases) */
        {"cache-type-k", required_argument, 0, 'K'}, {"cache-type-v", required_argument, 0, 'V'},
        {"model", required_argument, 0, 'M'},
        {"no-mmap", no_argument, 0, 'P'}, {"no-repack", no_argument, 0, 'R'}, {"mlock", no_argument, 0, 'L'},
        {"mmproj", required_argument, 0, 0x104}, {"no-mmproj-offload", no_argument, 0, 0x105},
        {"lora", required_argument, 0, 0x106}, {"draft", required_argument, 0, 0x107},
        {"ngld", required_argument, 0, 0x108}, {"llama-build", required_argument, 0, 0x109},
        {"link", required_argument, 0, 0x101}, {"pp", required_argument, 0, 0x102}, {"tg", required_argument, 0, 0x103},
        {0, 0, 0, 0},
    };
    memset(rq, 0, sizeof *rq);
    plan_params_default(&rq->params);
    rq->min_tps = PLAN_DEFAULT_MIN_TPS;
    rq->n_prompt = PLAN_TEST_PP;
    rq->n_gen = PLAN_TEST_TG;
    rq->draft_ngl = PLAN_NGL_ALL;
    plan_params *p = &rq->params;
    int c;
    int64_t v;
    bool fa_on_given = false;
    optind = 1;
    opterr = 0;
    const char *unknown = cli_llama_aliases(argc, argv, opts, "o:");
    if (unknown) return cli_usage_error("plan", "unknown option '%s'", unknown);
    while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
        switch (c) {
        case 'M':
            if (rq->model) return cli_usage_error("plan", "one MODEL at a time");
            rq->model = optarg;
            break;
        case 'K':
        case 'V':
            if (parse_kv_type(optarg, c == 'K' ? &p->type_k : &p->type_v))
                return cli_usage_error("plan", "--cache-type-%c: '%s' is not f16, q8_0 or q4_0", c == 'K' ? 'k' : 'v', optarg);
            break;
        case 'P': p->no_mmap = true; break;
        case 'R': p->no_repack = true; break;
        case 'L': p->mlock = true; break;
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
            /* llama.cpp's -fa auto turns it on for CPU, CUDA and Metal */
            if (strcmp(optarg, "on") && strcmp(optarg, "off") && strcmp(optarg, "auto"))
                return cli_usage_error("plan", "--fa: say on, off or auto");
            p->flash_attn = strcmp(optarg, "off") != 0;
            fa_on_given = !strcmp(optarg, "on");
            break;
        case 0x109:
            /* "b4000" as the release tags name it, or the number --version prints */
            if (!cli_parse_i64(optarg + (optarg[0] == 'b'), 1, PLAN_BUILD_MAX, &v))
                return cli_usage_error("plan", "--llama-build: '%s' is not a llama.cpp build number (b4000, 4000)",
                                       optarg);
            p->llama_build = (uint32_t)v;
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
            rq->min_tps_given = true;
            break;
        case 's': rq->ctx_sweep = true; break;
        case 'B':
            if (!cli_parse_f64(optarg, 1, 1e9, &rq->budget_usd))
                return cli_usage_error("plan", "--budget: '%s' is not a price in US dollars", optarg);
            break;
        case 'T':
            if (parse_split(optarg, p->tensor_split, &p->n_tensor_split)) return cli_usage_error("plan", "--tensor-split: '%s' is not a list of non-negative numbers", optarg);
            break;
        case 'e': p->exps_on_host = true; break;
        case 'n':
            if (!cli_parse_i64(optarg, 0, MODEL_MAX_LAYERS, &v))
                return cli_usage_error("plan", "--n-cpu-moe: '%s' is not a layer count", optarg);
            p->n_cpu_moe = (uint32_t)v;
            break;
        case 'j': rq->json = true; break;
        case 'A':
            rq->backend = plan_backend_from_name(optarg);
            if (rq->backend < 0)
                return cli_usage_error("plan", "--backend: '%s' is not cuda, rocm, vulkan, metal, sycl or cpu", optarg);
            rq->set_backend = true;
            break;
        case 'b': {
            fc_err berr = {0};
            if (plan_bench_list_parse(optarg, rq->bench, PLAN_BENCH_MAX, &rq->n_bench, &berr))
                return cli_usage_error("plan", "%s", berr.msg);
            break;
        }
        case 0x104: rq->mmproj = optarg; break;
        case 0x105: rq->mmproj_on_cpu = true; break;
        case 0x106:
            if (rq->n_lora >= PLAN_MAX_LORA) return cli_usage_error("plan", "--lora: at most %d adapters", PLAN_MAX_LORA);
            rq->lora[rq->n_lora++] = optarg;
            break;
        case 0x107: rq->draft = optarg; break;
        case 0x108:
            if (!strcmp(optarg, "all") || !strcmp(optarg, "auto")) rq->draft_ngl = PLAN_NGL_ALL;
            else if (cli_parse_i64(optarg, 0, PLAN_NGL_FLAG_MAX, &v)) rq->draft_ngl = (int32_t)v;
            else return cli_usage_error("plan", "--ngld: '%s' is not a layer count", optarg);
            rq->draft_ngl_given = true;
            break;
        case 0x101: rq->link = optarg; break;
        case 0x102:
        case 0x103:
            if (!cli_parse_i64(optarg, 1, PLAN_CTX_MAX, &v))
                return cli_usage_error("plan", "--%s: '%s' is not a token count", c == 0x102 ? "pp" : "tg", optarg);
            *(c == 0x102 ? &rq->n_prompt : &rq->n_gen) = (int)v;
            rq->tests_given = true;
            break;
        case 'o':
            if (!rep_format_is_table(optarg, &rq->fmt)) return cli_usage_error("plan", "-o: say md, csv, json or jsonl");
            rq->table = true;
            break;
        case 'h': plan_usage(stdout); return -1;
        default: return cli_usage_error("plan", "unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    /* a build before -fa auto ran without flash attention unless told -fa */
    if (!plan_build_fa_auto(p->llama_build) && !fa_on_given) p->flash_attn = false;
    if (rq->budget_usd > 0 && !rq->hw_all) return cli_usage_error("plan", "--budget ranks devices: use it with --hw all");
    if (rq->model ? optind != argc : optind != argc - 1)
        return cli_usage_error("plan", optind >= argc && !rq->model ? "no MODEL given" : "one MODEL at a time");
    if (!rq->model) rq->model = argv[optind];
    bool cluster = plan_cluster_spec_is(rq->hw);
    if (rq->link && !cluster) return cli_usage_error("plan", "--link needs --hw with several hosts ('a=...;b=...')");
    if (rq->tests_given && !cluster)
        return cli_usage_error("plan", "--pp/--tg set a cluster's tests; on one machine say --bench pp%d,tg%d",
                               rq->n_prompt, rq->n_gen);
    if (rq->mmproj_on_cpu && !rq->mmproj) return cli_usage_error("plan", "--no-mmproj-offload needs --mmproj FILE");
    if (rq->draft_ngl_given && !rq->draft) return cli_usage_error("plan", "--ngld needs --draft MODEL");
    if (rq->hw_all && rq->params.n_tensor_split)
        return cli_usage_error("plan", "--tensor-split splits the GPUs --hw names; --hw all plans one device each");
    if ((rq->mmproj || rq->draft || rq->n_lora) && (cluster || rq->hw_all))
        return cli_usage_error("plan", "--mmproj, --lora and --draft are planned on one machine (not --hw all or several hosts)");
    if (cluster && rq->min_tps_given)
        return cli_usage_error("plan", "--min-tps sets the floor of one machine's recommendation; several hosts get "
                                       "their splits and each host's gain, not a recommendation");
    if (cluster && (rq->ctx_sweep || (rq->table && !rq->n_bench)))
        return cli_usage_error("plan", "-o FORMAT and --ctx-sweep are not made for several hosts yet (--json; --bench "
                                       "prints llama-bench's formats)");
    if (cluster && rq->n_bench && rq->tests_given)
        return cli_usage_error("plan", "--pp/--tg set the tests of a cluster's plan; --bench prints its own tests only");
    /* a ranking has one row per device: none of these would show in it */
    if (rq->hw_all && (rq->table || rq->ctx_sweep || rq->n_bench))
        return cli_usage_error("plan", "-o FORMAT, --ctx-sweep and --bench are for one machine; --hw all ranks every "
                                       "catalog device (--json), then name one with --hw");
    return FC_OK;
}

static int plan_render(const plan_args *a, const plan_result *r, fc_err *err) {
    if (r->cluster && a->n_bench == 0) { /* several hosts: their own schema (docs/rpc.md) */
        if (a->json) cli_print_json(rep_cluster_json(r->cluster));
        else rep_cluster_text(stdout, r->cluster);
        return FC_OK;
    }
    if (a->n_bench > 0) { /* llama-bench's own formats: md unless -o says otherwise; --json is -o json */
        int rc = rep_plan_bench_write(r, stdout, a->table ? a->fmt : a->json ? REP_FMT_JSON : REP_FMT_MD, err);
        for (int i = 0; !rc && i < r->n_bench; i++) {
            char name[PLAN_BENCH_NAME_MAX];
            if (!(r->bench_tps[i] > 0))
                fprintf(stderr, "fitcheck plan: %s does not fit at the context llama-bench gives it, %u tokens "
                        "('fitcheck plan --ctx %u' shows where the memory goes)\n",
                        plan_bench_test_name(&r->bench[i], name, sizeof name), r->bench_ctx[i], r->bench_ctx[i]);
        }
        return rc;
    }
    if (a->table) {
        rep_table *t = rep_plan_table(r, err);
        int rc = t ? rep_table_write(t, stdout, a->fmt, err) : err->status;
        rep_table_free(t);
        return rc;
    }
    if (a->json) cli_print_json(rep_plan_json(r));
    else rep_plan_text(stdout, r);
    return FC_OK;
}

/* Draft and target must share a vocabulary: llama.cpp refuses a draft whose
 * vocabulary size differs by more than this (SPEC_VOCAB_MAX_SIZE_DIFFERENCE,
 * common/speculative.cpp). */
#define PLAN_DRAFT_VOCAB_DIFF_MAX 128

/* The files of --mmproj, --lora and --draft, read and checked before anything is planned. */
typedef struct plan_loaded_extras {
    plan_extras x;
    model_mmproj mmproj;
    model_lora *lora;
    model_desc draft;
    bool has_draft;
} plan_loaded_extras;

static void extras_free(plan_loaded_extras *le) {
    free(le->lora);
    if (le->has_draft) model_desc_free(&le->draft);
}

static int extras_load(plan_loaded_extras *le, const plan_args *a, const model_desc *model, fc_err *err) {
    memset(le, 0, sizeof *le);
    plan_extras *x = &le->x;
    int rc = FC_OK;
    if (a->mmproj && !(rc = model_mmproj_load(&le->mmproj, a->mmproj, err))) x->mmproj = &le->mmproj;
    x->mmproj_on_cpu = a->mmproj_on_cpu;
    if (!rc && a->n_lora && !(le->lora = fc_calloc((size_t)a->n_lora, sizeof *le->lora, err))) rc = FC_ERUNTIME;
    for (int i = 0; !rc && i < a->n_lora; i++)
        if (!(rc = model_lora_load(&le->lora[i], a->lora[i], model, err))) x->lora[x->n_lora++] = &le->lora[i];
    if (!rc && a->draft && !(rc = model_load(&le->draft, a->draft, NULL, err))) {
        le->has_draft = true;
        uint32_t nt = model->hp.n_vocab, nd = le->draft.hp.n_vocab;
        if ((nt > nd ? nt - nd : nd - nt) > PLAN_DRAFT_VOCAB_DIFF_MAX)
            rc = fc_err_set(err, FC_EINPUT, "--draft %s: its vocabulary has %u tokens, the model's %u: llama.cpp "
                            "refuses a draft whose vocabulary differs by more than %d", fc_safe(a->draft), nd, nt,
                            PLAN_DRAFT_VOCAB_DIFF_MAX);
        x->draft = &le->draft;
        x->draft_file = a->draft;
        x->draft_ngl = a->draft_ngl;
    }
    if (rc) extras_free(le);
    return rc;
}

int cli_plan(int argc, char **argv) {
    plan_args a;
    int rc = plan_parse(argc, argv, &a);
    if (rc) return rc < 0 ? 0 : rc;
    fc_err err = {0};
    model_desc model;
    if (model_load(&model, a.model, a.quant, &err)) return cli_report_error("plan", &err);
    bool cluster = plan_cluster_spec_is(a.hw);
    plan_loaded_extras *le = calloc(1, sizeof *le);
    if (!le || extras_load(le, &a, &model, &err)) {
        if (!le) fc_err_set(&err, FC_ERUNTIME, "out of memory");
        free(le);
        model_desc_free(&model);
        return cli_report_error("plan", &err);
    }
    if (a.mmproj || a.draft || a.n_lora) a.params.extras = &le->x;
    plan_hw *hw = calloc(1, sizeof *hw);
    plan_result *r = calloc(1, sizeof *r);
    rc = hw && r ? FC_OK : fc_err_set(&err, FC_ERUNTIME, "out of memory");
    if (!rc && !a.hw_all && !cluster) rc = plan_hw_resolve(hw, a.hw, &err);
    plan_request rq = {.model = &model, .model_spec = a.model, .quant = a.quant, .hw = hw, .params = a.params,
                       .min_tps = a.min_tps, .want = PLAN_WANT_CHOICE | (a.ctx_sweep ? PLAN_WANT_SWEEP : 0),
                       .set_backend = a.set_backend, .backend = a.backend, .bench = a.bench, .n_bench = a.n_bench,
                       .cluster = cluster ? a.hw : NULL, .link = a.link, .n_prompt = a.n_prompt, .n_gen = a.n_gen};
    if (!rc && a.hw_all) {
        plan_rank rk;
        /* The rank's header names the model and settings: a result without hardware. */
        r->model = &model;
        r->params = a.params;
        if (!(rc = plan_rank_hardware(&rq, a.budget_usd, &rk, &err))) {
            if (a.json) cli_print_json(rep_rank_json(r, &rk, a.min_tps));
            else rep_rank_text(stdout, r, &rk, a.min_tps);
            plan_rank_free(&rk);
        }
    } else if (!rc && !(rc = plan_make(&rq, r, &err))) {
        rc = plan_render(&a, r, &err);
        plan_result_free(r);
    }
    extras_free(le);
    free(le);
    model_desc_free(&model);
    free(hw);
    free(r);
    return rc ? cli_report_error("plan", &err) : 0;
}
