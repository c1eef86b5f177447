/* fitcheck run MODEL.gguf: generate tokens with the reference engine, or
 * measure prefill/decode speed like llama-bench (--bench). */
#include "cli/cli.h"
#include "engine/engine.h"
#include "planner/planner.h"
#include "probe/probe.h"
#include "reports/reports.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RUN_SHORTS "n:p:d:r:o:t:c:h"
#define RUN_MAX_TOKENS 65536      /* ids accepted on --tokens */
#define RUN_MAX_GEN 1000000
#define RUN_MAX_CTX (1u << 24)
#define RUN_DEFAULT_GEN 128
#define RUN_DEFAULT_REPS 5
#define RUN_DEFAULT_TEMP 0.8   /* llama.cpp's sampling defaults */
#define RUN_DEFAULT_TOP_K 40
#define RUN_DEFAULT_TOP_P 0.95
#define RUN_DEFAULT_SEED 42

static void usage(FILE *fp) {
    fprintf(fp,
            "usage: fitcheck run MODEL.gguf -p PROMPT [-n N] [--temp T] [--seed S] [--chat] [options]\n"
            "       fitcheck run MODEL.gguf --bench [-p 512] [-n 128] [-d DEPTH] [-r 5] [-o md|csv|json|jsonl]\n"
            "\n"
            "Runs a GGUF model on the CPU with fitcheck's reference engine.\n"
            "Generation streams the text that follows the prompt (--temp 0: greedy).\n"
            "--bench measures prefill (ppN: one N-token batch) and decode (tgN: N\n"
            "single-token steps) like llama-bench: t/s as mean +- stddev over -r runs, with the\n"
            "planner's prediction from the machine profile and from DRAM read bandwidth measured\n"
            "right before and after each test (same-minute: this machine's bandwidth may swing).\n"
            "\n"
            "options:\n"
            "  -p, --prompt TEXT  the prompt; with --bench: prompt lengths for pp tests, comma list (default 512)\n"
            "  -n, --n-gen N      tokens to generate (default %d); with --bench: tg tests, comma list (128)\n"
            "      --chat         wrap the prompt in the model's chat template\n"
            "      --temp T       temperature (default 0.8; 0 = greedy)\n"
            "      --top-k K      keep the K most likely tokens (default 40; 0 = all)\n"
            "      --top-p P      nucleus sampling threshold (default 0.95)\n"
            "      --seed S       sampling seed (default 42)\n"
            "      --tokens LIST  prompt as token ids, comma separated (instead of -p)\n"
            "      --ids          print token ids instead of text\n"
            "  -d, --depth N      with --bench: tokens already in the cache before each test\n"
            "  -r, --reps N       with --bench: repetitions (default %d)\n"
            "  -o, --output FMT   with --bench: md (default), csv, json, jsonl\n"
            "      --json         same as -o json\n"
            "      --save FILE    with --bench: append the results as llama-bench jsonl lines\n"
            "      --no-bw-probe  with --bench: no read-bandwidth probe beside each test (no same-minute prediction;\n"
            "                     with probes, a test whose two probes disagree by over 10%% runs again, twice at most)\n"
            "  -t, --threads N    threads (default: one per physical core)\n"
            "  -c, --ctx-size N   KV cache positions (default: what the run needs)\n"
            "  -ctk, --cache-type-k T  K cache type: f16 (default) or q8_0\n"
            "  -ctv, --cache-type-v T  V cache type: f16 (default) or q8_0\n"
            "      --isa NAME     scalar, avx2, avx512 or avx512bf16 (default: $FITCHECK_ISA, else the best this CPU has)\n"
            "      --force        run even if the predicted memory exceeds available RAM\n"
            "  -m, --model FILE   the model (as llama.cpp spells it; or the first argument)\n"
            "  -h, --help         this help\n"
            "Ctrl-C during --bench keeps the finished tests (printed, and saved with --save) and\n"
            "exits 130.\n",
            RUN_DEFAULT_GEN, RUN_DEFAULT_REPS);
}

/* Exit status after Ctrl-C, as shells report a process SIGINT ended
 * (128 + SIGINT): the finished tests were printed and saved. */
#define RUN_INTERRUPTED 130

typedef struct run_opts {
    const char *model, *prompt, *tokens, *gen_list, *fmt, *save;
    uint32_t threads, depth, reps, n_ctx, top_k;
    double temp, top_p;
    uint64_t seed;
    int isa, type_k, type_v;
    bool bench, force, chat, ids, no_bw_probe;
    /* the last flag given that only a benchmark reads, and one that only generation reads:
     * each refused in the other mode rather than dropped */
    const char *bench_flag, *gen_flag;
} run_opts;

/* "512,1024" -> values; false on anything else. */
static bool parse_list(const char *s, uint32_t *out, uint32_t cap, uint32_t *n, uint32_t max) {
    *n = 0;
    char buf[256];
    if (!s || strlen(s) >= sizeof buf) return false;
    strcpy(buf, s);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int64_t v;
        if (*n >= cap || !cli_parse_i64(tok, 0, max, &v)) return false;
        out[(*n)++] = (uint32_t)v;
    }
    return *n > 0;
}

/* Refuses (FC_EINPUT) when file + KV cache + buffers exceed available RAM. */
static int check_memory(const eng_model *m, const eng_params *p, bool force, fc_err *err) {
    uint64_t file = eng_model_gguf(m)->size, kv = eng_ctx_kv_bytes(m, p), buf = eng_ctx_buffer_bytes(m, p);
    uint64_t need = file + kv + buf, avail = probe_available_ram();
    if (!avail || need <= avail || force) return FC_OK;
    char a[32], b[32], c[32], d[32], e[32];
    return fc_err_set(err, FC_EINPUT,
                      "predicted memory %s (file %s + KV cache %s + buffers %s) exceeds available RAM %s (cgroup limit included); "
                      "use --force to run anyway",
                      fc_fmt_bytes(need, a, sizeof a), fc_fmt_bytes(file, b, sizeof b), fc_fmt_bytes(kv, c, sizeof c),
                      fc_fmt_bytes(buf, d, sizeof d), fc_fmt_bytes(avail, e, sizeof e));
}

/* ---- generation --------------------------------------------------------------- */

/* Prompt token ids: --tokens verbatim, or the (chat-formatted) text tokenized
 * with BOS as the model's metadata asks. *out is malloc'd. */
static int prompt_tokens(eng_model *m, const eng_tokenizer *tok, const run_opts *o, int32_t **out, uint32_t *n,
                         fc_err *err) {
    const gguf_file *f = eng_model_gguf(m);
    uint32_t nv = eng_model_hparams(m)->n_vocab;
    *n = 0;
    if (o->tokens) {
        if (!(*out = fc_malloc(RUN_MAX_TOKENS * sizeof **out, err))) return FC_ERUNTIME;
        for (const char *s = o->tokens; *s && *n < RUN_MAX_TOKENS;) {
            char *end;
            long v = strtol(s, &end, 10);
            if (end == s || v < 0 || v >= (long)nv || (*end && *end != ','))
                return fc_err_set(err, FC_EINPUT, "--tokens: '%s' is not a list of token ids below %u", o->tokens, nv);
            (*out)[(*n)++] = (int32_t)v;
            s = *end ? end + 1 : end;
        }
        return FC_OK;
    }
    char *text = NULL;
    if (o->chat) {
        const gguf_kv *kv = gguf_find(f, "tokenizer.chat_template");
        char *tmpl = NULL;
        if (kv && kv->v.type == GGUF_STRING && kv->v.s.len < (1u << 20)) {
            if (!(tmpl = fc_malloc(kv->v.s.len + 1, err))) return FC_ERUNTIME;
            memcpy(tmpl, kv->v.s.p, kv->v.s.len);
            tmpl[kv->v.s.len] = '\0';
        }
        int rc = eng_chat_format(tmpl, eng_model_hparams(m)->arch, o->prompt, &text, err);
        free(tmpl);
        if (rc) return rc;
    }
    const char *src = text ? text : o->prompt;
    size_t len = strlen(src), cap = ENG_TOKENS_MAX(len), got = 0;
    int rc = FC_OK;
    if (!(*out = fc_malloc(cap * sizeof **out, err))) rc = FC_ERUNTIME;
    if (!rc) rc = eng_tokenize(tok, src, len, ENG_TOK_ADD_SPECIAL | (o->chat ? ENG_TOK_PARSE_SPECIAL : 0), *out, cap,
                               &got, err);
    free(text);
    *n = (uint32_t)got;
    return rc;
}

static int run_generate(eng_model *m, const run_opts *o, fc_err *err) {
    if (!o->tokens && !o->prompt) return fc_err_set(err, FC_EINPUT, "give a prompt with -p TEXT (or --tokens IDS)");
    int64_t n_gen = RUN_DEFAULT_GEN;
    if (o->gen_list && !cli_parse_i64(o->gen_list, 0, RUN_MAX_GEN, &n_gen))
        return fc_err_set(err, FC_EINPUT, "-n: '%s' is not a token count", o->gen_list);
    uint32_t nv = eng_model_hparams(m)->n_vocab;
    eng_tokenizer *tok = NULL;
    eng_sampler *smp = NULL;
    eng_ctx *c = NULL;
    int32_t *toks = NULL;
    uint32_t n = 0;
    eng_sampler_params sp = {.temp = (float)o->temp, .top_k = o->top_k, .top_p = (float)o->top_p, .seed = o->seed};
    int rc = eng_tokenizer_load(&tok, eng_model_gguf(m), err);
    if (!rc) rc = prompt_tokens(m, tok, o, &toks, &n, err);
    if (!rc && n == 0) rc = fc_err_set(err, FC_EINPUT, "the prompt has no tokens");
    if (!rc) rc = eng_sampler_new(&smp, nv, &sp, err);
    eng_params p = {.n_ctx = o->n_ctx ? o->n_ctx : n + (uint32_t)n_gen, .n_threads = o->threads, .isa = o->isa,
                    .type_k = o->type_k, .type_v = o->type_v};
    if (!rc) rc = check_memory(m, &p, o->force, err);
    if (!rc) rc = eng_ctx_new(&c, m, &p, err);
    const float *logits;
    double t0 = fc_now(), t1 = t0;
    if (!rc) rc = eng_decode(c, toks, n, &logits, err);
    t1 = fc_now();
    eng_detok dt;
    eng_detok_init(&dt, tok);
    char piece[ENG_TOKEN_MAX_BYTES + 8];
    int64_t i = 0;
    for (; !rc && i < n_gen; i++) {
        int32_t next = eng_sampler_sample(smp, logits);
        if (eng_token_is_eog(tok, next)) break;
        if (o->ids) printf(i ? ",%d" : "%d", next);
        /* The vocabulary is the file's: a token may hold ESC (common/fc.h). */
        else if (eng_detok_push(&dt, next, piece, sizeof piece)) fc_text_fputs(piece, stdout);
        fflush(stdout);
        if (i + 1 < n_gen) rc = eng_decode(c, &next, 1, &logits, err);
    }
    if (!rc) {
        if (!o->ids && eng_detok_flush(&dt, piece, sizeof piece)) fc_text_fputs(piece, stdout);
        printf("\n");
        double t2 = fc_now();
        fprintf(stderr, "fitcheck run: prompt %u tokens %.2f t/s, generated %lld tokens %.2f t/s (%s, %u threads)\n", n,
                n / (t1 - t0), (long long)i, i > 1 ? (i - 1) / (t2 - t1) : 0.0, eng_isa_name(eng_ctx_params(c)->isa),
                eng_ctx_params(c)->n_threads);
    }
    eng_ctx_free(c);
    eng_sampler_free(smp);
    eng_tokenizer_free(tok);
    free(toks);
    return rc;
}

/* ---- benchmark output ------------------------------------------------------------- */

/* The planner's predictions from this machine's probe profile (planner/
 * bench_predict.c). Without a profile the tests simply show none. */
static void predict_records(const eng_model *m, plan_bench_record *recs, uint32_t n) {
    fc_err err = {0};
    char path[4096], note[FC_ERR_MSG_MAX];
    probe_profile *prof = fc_malloc(sizeof *prof, &err);
    model_desc d;
    memset(&d, 0, sizeof d);
    if (!prof || probe_default_path(path, sizeof path, &err) || probe_profile_load(prof, path, &err)) {
        fprintf(stderr, "fitcheck run: no planner prediction (%s); run 'fitcheck probe' first\n", err.msg);
        free(prof);
        return;
    }
    if (model_desc_from_gguf(&d, eng_model_gguf(m), &err) ||
        plan_bench_predict_own(recs, (int)n, &d, prof, note, sizeof note, &err))
        fprintf(stderr, "fitcheck run: no planner prediction: %s\n", err.msg);
    else if (note[0])
        fprintf(stderr, "fitcheck run: %s\n", note);
    model_desc_free(&d);
    free(prof);
}

/* A test's same-minute bandwidth is the mean of a short probe right before
 * and one right after it, and it is only that when the two agree: DRAM that
 * flips between speeds within seconds (this VM's: ~32 and ~55 GB/s) may flip
 * during the test, and then no one bandwidth was the test's. A test whose
 * probes differ by more than RUN_BW_AGREE of their mean is run again, at most
 * RUN_BW_RETRIES times, and the run whose probes agree best is kept. */
#define RUN_BW_AGREE 0.10
#define RUN_BW_RETRIES 2

/* One run of a test between its two probes: its same-minute bandwidth, and
 * how far the probes differ (INFINITY: not probed). */
static int bench_probed(eng_ctx *c, const eng_bench_opts *one, probe_bw *bw, eng_bench_test *t, uint32_t *got,
                        double *spread, fc_err *err) {
    double before = bw ? probe_bw_read(bw) : 0;
    int rc = eng_bench_run(c, one, t, got, err);
    if (rc || !*got) return rc;
    double after = bw ? probe_bw_read(bw) : 0;
    bool probed = before > 0 && after > 0;
    t->read_gbs_now = probed ? 0.5 * (before + after) : 0;
    *spread = probed ? 2 * fabs(after - before) / (before + after) : INFINITY;
    return FC_OK;
}

/* Each test on its own, between its probes; bw NULL: no probes. */
static int bench_tests(eng_ctx *c, const eng_bench_opts *bo, probe_bw *bw, eng_bench_test *tests, uint32_t *n,
                       fc_err *err) {
    *n = 0;
    uint32_t total = bo->n_prompt_count + bo->n_gen_count;
    for (uint32_t i = 0; i < total && *n < ENG_BENCH_MAX_TESTS; i++) {
        eng_bench_opts one = {.n_depth = bo->n_depth, .reps = bo->reps};
        if (i < bo->n_prompt_count) one.n_prompt[one.n_prompt_count++] = bo->n_prompt[i];
        else one.n_gen[one.n_gen_count++] = bo->n_gen[i - bo->n_prompt_count];
        double best_spread = INFINITY;
        uint32_t kept = 0;
        for (int attempt = 0; attempt <= (bw ? RUN_BW_RETRIES : 0) && best_spread > RUN_BW_AGREE; attempt++) {
            eng_bench_test t;
            uint32_t got = 0;
            double spread = INFINITY;
            int rc = bench_probed(c, &one, bw, &t, &got, &spread, err);
            /* Ctrl-C: the tests finished so far are kept (printed, saved) */
            if (rc && fc_interrupted) {
                fc_err_clear(err);
                *n += kept;
                return RUN_INTERRUPTED;
            }
            if (rc) return rc;
            if (!got) break;
            if (kept && !(spread < best_spread)) continue;
            tests[*n] = t;
            kept = got;
            best_spread = spread;
            if (spread == INFINITY) break; /* no bandwidth to agree on */
        }
        *n += kept;
    }
    return FC_OK;
}

static int run_bench(eng_model *m, const run_opts *o, fc_err *err) {
    eng_bench_opts bo = {.n_depth = o->depth, .reps = o->reps};
    if (!parse_list(o->prompt ? o->prompt : "512", bo.n_prompt, ENG_BENCH_MAX_TESTS, &bo.n_prompt_count, RUN_MAX_CTX))
        return fc_err_set(err, FC_EINPUT, "-p: '%s' is not a comma list of prompt lengths", o->prompt);
    if (!parse_list(o->gen_list ? o->gen_list : "128", bo.n_gen, ENG_BENCH_MAX_TESTS, &bo.n_gen_count, RUN_MAX_CTX))
        return fc_err_set(err, FC_EINPUT, "-n: '%s' is not a comma list of token counts", o->gen_list);
    uint32_t need = 0;
    for (uint32_t i = 0; i < bo.n_prompt_count; i++) need = bo.n_prompt[i] > need ? bo.n_prompt[i] : need;
    for (uint32_t i = 0; i < bo.n_gen_count; i++) need = bo.n_gen[i] > need ? bo.n_gen[i] : need;
    need += o->depth;
    eng_params p = {.n_ctx = o->n_ctx ? o->n_ctx : need, .n_threads = o->threads, .isa = o->isa,
                    .type_k = o->type_k, .type_v = o->type_v};
    int rc = check_memory(m, &p, o->force, err);
    eng_ctx *c = NULL;
    if (!rc) rc = eng_ctx_new(&c, m, &p, err);
    eng_bench_test tests[ENG_BENCH_MAX_TESTS];
    uint32_t n = 0;
    probe_bw *bw = NULL;
    fc_err bw_err = {0};
    if (!rc && !o->no_bw_probe && probe_bw_open(&bw, (int)eng_ctx_params(c)->n_threads, &bw_err))
        fprintf(stderr, "fitcheck run: no same-minute bandwidth: %s\n", bw_err.msg);
    if (!rc) rc = bench_tests(c, &bo, bw, tests, &n, err);
    probe_bw_close(bw);
    bool interrupted = rc == RUN_INTERRUPTED;
    if (interrupted) {
        /* The interrupt has been honoured: what follows (printing and saving
         * the finished tests) runs; a second Ctrl-C still stops the save. */
        fc_interrupted = 0;
        rc = FC_OK;
        fprintf(stderr, "fitcheck run: interrupted; keeping the %u finished test%s\n", n, n == 1 ? "" : "s");
    }
    plan_bench_record recs[ENG_BENCH_MAX_TESTS];
    enum rep_format fmt;
    if (!rc) rc = rep_format_parse(o->fmt, &fmt, err);
    if (!rc) eng_bench_records(recs, m, eng_ctx_params(c), tests, n);
    if (!rc && !interrupted) predict_records(m, recs, n);
    if (!rc && n) rc = rep_bench_write(recs, (int)n, stdout, fmt, err);
    if (!rc && n && o->save) rc = rep_bench_append(o->save, recs, (int)n, err);
    eng_ctx_free(c);
    return !rc && interrupted ? RUN_INTERRUPTED : rc;
}

int cli_run(int argc, char **argv) {
    enum { OPT_TOKENS = 256, OPT_JSON, OPT_SAVE, OPT_ISA, OPT_FORCE, OPT_BENCH, OPT_CHAT, OPT_TEMP, OPT_TOPK, OPT_TOPP,
           OPT_SEED, OPT_IDS, OPT_CTK, OPT_CTV, OPT_NO_BW, OPT_MODEL };
    static const struct option longopts[] = {
        {"tokens", required_argument, NULL, OPT_TOKENS}, {"n-gen", required_argument, NULL, 'n'},
        {"prompt", required_argument, NULL, 'p'},        {"depth", required_argument, NULL, 'd'},
        {"reps", required_argument, NULL, 'r'},          {"output", required_argument, NULL, 'o'},
        {"json", no_argument, NULL, OPT_JSON},           {"save", required_argument, NULL, OPT_SAVE},
        {"threads", required_argument, NULL, 't'},       {"ctx-size", required_argument, NULL, 'c'},
        {"isa", required_argument, NULL, OPT_ISA},       {"force", no_argument, NULL, OPT_FORCE},
        {"bench", no_argument, NULL, OPT_BENCH},         {"help", no_argument, NULL, 'h'},
        {"chat", no_argument, NULL, OPT_CHAT},           {"temp", required_argument, NULL, OPT_TEMP},
        {"top-k", required_argument, NULL, OPT_TOPK},    {"top-p", required_argument, NULL, OPT_TOPP},
        {"seed", required_argument, NULL, OPT_SEED},     {"ids", no_argument, NULL, OPT_IDS},
        {"cache-type-k", required_argument, NULL, OPT_CTK}, {"cache-type-v", required_argument, NULL, OPT_CTV},
        {"no-bw-probe", no_argument, NULL, OPT_NO_BW}, {"model", required_argument, NULL, OPT_MODEL},
        {NULL, 0, NULL, 0},
    };
    run_opts o = {.fmt = "md", .reps = RUN_DEFAULT_REPS, .isa = ENG_ISA_BEST, .temp = RUN_DEFAULT_TEMP,
                  .top_k = RUN_DEFAULT_TOP_K, .top_p = RUN_DEFAULT_TOP_P, .seed = RUN_DEFAULT_SEED};
    double f;
    int64_t v;
    int ch;
    /* llama.cpp's spellings (-ctk, -m, ...): getopt would read "-ctk" as -c tk */
    const char *unknown = cli_llama_aliases(argc, argv, longopts, RUN_SHORTS);
    if (unknown) return cli_usage_error("run", "unknown option '%s'", unknown);
    optind = 1;
    while ((ch = getopt_long(argc, argv, RUN_SHORTS, longopts, NULL)) != -1) {
        switch (ch) {
        case OPT_MODEL:
            if (o.model) return cli_usage_error("run", "one MODEL at a time");
            o.model = optarg;
            break;
        case 'h': usage(stdout); return 0;
        case OPT_TOKENS: o.tokens = optarg, o.gen_flag = "--tokens"; break;
        case 'n': {
            uint32_t tmp[ENG_BENCH_MAX_TESTS], cnt;
            if (!parse_list(optarg, tmp, ENG_BENCH_MAX_TESTS, &cnt, RUN_MAX_GEN))
                return cli_usage_error("run", "-n/--n-gen: '%s' is not a token count (or comma list of counts)", optarg);
            o.gen_list = optarg;
            break;
        }
        case 'p': o.prompt = optarg; break;
        case OPT_JSON: o.fmt = "json", o.bench_flag = "--json"; break;
        case OPT_SAVE: o.save = optarg, o.bench_flag = "--save"; break;
        case OPT_FORCE: o.force = true; break;
        case OPT_BENCH: o.bench = true; break;
        case OPT_CHAT: o.chat = true, o.gen_flag = "--chat"; break;
        case OPT_IDS: o.ids = true, o.gen_flag = "--ids"; break;
        case OPT_NO_BW: o.no_bw_probe = true, o.bench_flag = "--no-bw-probe"; break;
        case OPT_TEMP:
            if (!cli_parse_f64(optarg, 0, 100, &o.temp)) return cli_usage_error("run", "--temp must be 0..100");
            o.gen_flag = "--temp";
            break;
        case OPT_TOPP:
            if (!cli_parse_f64(optarg, 1e-6, 1, &o.top_p)) return cli_usage_error("run", "--top-p must be in (0, 1]");
            o.gen_flag = "--top-p";
            break;
        case OPT_TOPK:
            if (!cli_parse_i64(optarg, 0, INT32_MAX, &v)) return cli_usage_error("run", "--top-k must be >= 0");
            o.top_k = (uint32_t)v;
            o.gen_flag = "--top-k";
            break;
        case OPT_SEED:
            if (!cli_parse_f64(optarg, 0, 1.8e19, &f) || f != floor(f)) return cli_usage_error("run", "--seed must be a whole number >= 0");
            o.seed = (uint64_t)f;
            o.gen_flag = "--seed";
            break;
        case 'o':
            if (strcmp(optarg, "md") && strcmp(optarg, "csv") && strcmp(optarg, "json") && strcmp(optarg, "jsonl"))
                return cli_usage_error("run", "-o must be md, csv, json or jsonl, not '%s'", optarg);
            o.fmt = optarg;
            o.bench_flag = "-o";
            break;
        case OPT_CTK:
        case OPT_CTV: {
            int kt = eng_kv_type_from_name(optarg);
            if (kt < 0) return cli_usage_error("run", "%s: '%s' is not a KV cache type (f16, q8_0)",
                                               ch == OPT_CTK ? "-ctk" : "-ctv", optarg);
            *(ch == OPT_CTK ? &o.type_k : &o.type_v) = kt;
            break;
        }
        case OPT_ISA:
            /* whether this CPU runs it is the engine's check (eng_isa_pick) */
            if ((o.isa = eng_isa_from_name(optarg)) < 0)
                return cli_usage_error("run", "--isa must be scalar, avx2, avx512 or avx512bf16, not '%s'", optarg);
            break;
        case 'd':
            if (!cli_parse_i64(optarg, 0, RUN_MAX_CTX, &v))
                return cli_usage_error("run", "-d/--depth: '%s' is not a depth in 0..%u", optarg, RUN_MAX_CTX);
            o.depth = (uint32_t)v;
            o.bench_flag = "-d/--depth";
            break;
        case 'r':
            if (!cli_parse_i64(optarg, 1, 64, &v)) return cli_usage_error("run", "-r/--reps: '%s' is not a repetition count in 1..64", optarg);
            o.reps = (uint32_t)v;
            o.bench_flag = "-r/--reps";
            break;
        case 't':
            if (!cli_parse_i64(optarg, 1, ENG_MAX_THREADS, &v))
                return cli_usage_error("run", "-t/--threads: '%s' is not a thread count in 1..%d", optarg, ENG_MAX_THREADS);
            o.threads = (uint32_t)v;
            break;
        case 'c':
            if (!cli_parse_i64(optarg, 1, RUN_MAX_CTX, &v)) return cli_usage_error("run", "-c/--ctx-size: '%s' is not a context size in 1..%u", optarg, RUN_MAX_CTX);
            o.n_ctx = (uint32_t)v;
            break;
        default: return cli_usage_error("run", "unknown option");
        }
    }
    if (o.model ? optind != argc : optind != argc - 1) return cli_usage_error("run", "expected one MODEL.gguf argument");
    if (!o.model) o.model = argv[optind];
    if (!o.bench && o.bench_flag) return cli_usage_error("run", "%s is for --bench", o.bench_flag);
    if (o.bench && o.gen_flag) return cli_usage_error("run", "%s is for generating text, not --bench", o.gen_flag);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus > 0 && o.threads > (uint32_t)cpus)
        fprintf(stderr, "fitcheck run: warning: -t %u asks for more threads than the %ld CPUs here; they will share "
                        "cores and run slower than -t %ld\n", o.threads, cpus, cpus);
    fc_err err = {0};
    eng_model *m;
    if (eng_model_open(&m, o.model, &err)) return cli_report_error("run", &err);
    uint32_t train = eng_model_hparams(m)->n_ctx_train;
    if (o.n_ctx && train && o.n_ctx > train)
        fprintf(stderr, "fitcheck run: warning: -c %u is beyond the %u tokens the model was trained on; quality past "
                        "that is not assured\n", o.n_ctx, train);
    int rc = o.bench ? run_bench(m, &o, &err) : run_generate(m, &o, &err);
    eng_model_close(m);
    if (rc == RUN_INTERRUPTED) return RUN_INTERRUPTED;
    return rc ? cli_report_error("run", &err) : 0;
}
