#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int cli_usage_error(const char *verb, const char *fmt, ...) {
    /* Usage errors quote the argument (a file name from a stranger's
     * archive, an option pasted from a web page): built as an fc_err so the
     * quote is made safe like every other message. */
    fc_err e;
    va_list ap;
    va_start(ap, fmt);
    char raw[FC_ERR_MSG_MAX];
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    fc_err_set(&e, FC_EINPUT, "%s", raw);
    if (*verb)
        fprintf(stderr, "fitcheck %s: %s\n(see 'fitcheck %s --help')\n", verb, e.msg, verb);
    else
        fprintf(stderr, "fitcheck: %s\n(see 'fitcheck --help')\n", e.msg);
    return FC_EINPUT;
}

int cli_report_error(const char *verb, const fc_err *err) {
    /* err->msg is safe already: fc_err_set applies common/fc.h's rule. */
    /* "" is the bare `fitcheck` (no verb): "fitcheck: ...", not "fitcheck : ...". */
    fprintf(stderr, "fitcheck%s%s: %s\n", *verb ? " " : "", verb, err->msg[0] ? err->msg : "failed");
    return err->status ? err->status : FC_ERUNTIME;
}

bool cli_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out) {
    if (!s || !*s) return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

bool cli_parse_f64(const char *s, double lo, double hi, double *out) {
    if (!s || !*s) return false;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v) || v < lo || v > hi) return false;
    *out = v;
    return true;
}

int cli_parse_json_only(const char *verb, int argc, char **argv, void (*usage)(FILE *), bool *json) {
    static const struct option opts[] = {{"json", no_argument, 0, 'j'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    *json = false;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return 0;
        }
        if (c != 'j') return cli_usage_error(verb, "unknown option '%s'", argv[optind - 1]);
        *json = true;
    }
    if (optind < argc) return cli_usage_error(verb, "unexpected argument '%s'", argv[optind]);
    return CLI_PROCEED;
}

void cli_print_json(json_t *root) {
    /* Raw values, escaped by jansson; ASCII only, so a C1 control or a bidi
     * override inside a string is written as \u009b, never as its bytes. */
    json_dumpf(root, stdout, JSON_INDENT(2) | JSON_ENSURE_ASCII);
    putchar('\n');
    json_decref(root);
}

/* llama.cpp's spellings (common/arg.cpp) of options fitcheck's verbs also
 * have, each with the long names it may map to, in order: a verb gets the
 * alias when its own option table has one of them. Exact words only. */
#define ALIAS_TARGETS 2
static const struct {
    const char *word;
    const char *to[ALIAS_TARGETS];
} llama_aliases[] = {
    {"-c", {"ctx", "ctx-size"}},         {"--ctx-size", {"ctx", NULL}},
    {"-ngl", {"ngl", NULL}},             {"--n-gpu-layers", {"ngl", NULL}},
    {"--gpu-layers", {"ngl", NULL}},     {"-ctk", {"cache-type-k", NULL}},
    {"-ctv", {"cache-type-v", NULL}},    {"-ts", {"tensor-split", NULL}},
    {"-np", {"parallel", NULL}},         {"-ub", {"ubatch", NULL}},
    {"--ubatch-size", {"ubatch", NULL}}, {"-fa", {"fa", NULL}},
    {"--flash-attn", {"fa", NULL}},      {"-t", {"threads", NULL}},
    {"-m", {"model", NULL}},             {"-cmoe", {"cpu-moe", NULL}},
    {"-ncmoe", {"n-cpu-moe", NULL}},     {"-nr", {"no-repack", NULL}},
    {"-mm", {"mmproj", NULL}},           {"-md", {"draft", NULL}},
    {"--model-draft", {"draft", NULL}},  {"--spec-draft-model", {"draft", NULL}},
    {"-ngld", {"ngld", NULL}},           {"--n-gpu-layers-draft", {"ngld", NULL}},
    {"--gpu-layers-draft", {"ngld", NULL}}, {"--spec-draft-ngl", {"ngld", NULL}},
};

static const struct option *long_opt(const struct option *opts, const char *name, size_t len) {
    for (; opts->name; opts++)
        if (strlen(opts->name) == len && !strncmp(opts->name, name, len)) return opts;
    return NULL;
}

/* A word that takes the next one as its value, so the value is never read
 * as an option ("--prompt -c"). */
static bool takes_value(const char *w, const struct option *opts, const char *shorts) {
    if (!strncmp(w, "--", 2)) {
        if (strchr(w, '=')) return false;
        const struct option *o = long_opt(opts, w + 2, strlen(w + 2));
        return o && o->has_arg == required_argument;
    }
    const char *s = w[0] == '-' && w[1] && !w[2] ? strchr(shorts, w[1]) : NULL;
    return s && s[1] == ':';
}

/* Whether w is an option of the verb: a long name or an unambiguous-enough
 * prefix of one (getopt_long takes abbreviations), or a cluster of its
 * short letters (one taking a value ends the cluster). */
static bool known_option(const char *w, const struct option *opts, const char *shorts) {
    if (!strncmp(w, "--", 2)) {
        size_t len = strcspn(w + 2, "=");
        for (const struct option *o = opts; o->name; o++)
            if (!strncmp(o->name, w + 2, len)) return true;
        return false;
    }
    for (const char *c = w + 1; *c; c++) {
        const char *s = *c == ':' ? NULL : strchr(shorts, *c);
        if (!s) return false;
        if (s[1] == ':') return true;
    }
    return true;
}

const char *cli_llama_aliases(int argc, char **argv, const struct option *opts, const char *shorts) {
    /* "--" + the longest target name fits here; the strings live as long as argv */
    static char words[64][48];
    int n_words = 0;
    const char *unknown = NULL;
    for (int i = 1; i < argc; i++) {
        const char *w = argv[i];
        if (!strcmp(w, "--")) break;
        if (w[0] != '-' || !w[1]) continue;
        bool own = !strncmp(w, "--", 2) && long_opt(opts, w + 2, strcspn(w + 2, "="));
        for (size_t a = 0; !own && a < FC_ARRAY_LEN(llama_aliases) && n_words < 64; a++) {
            if (strcmp(w, llama_aliases[a].word)) continue;
            for (int t = 0; t < ALIAS_TARGETS && llama_aliases[a].to[t]; t++)
                if (long_opt(opts, llama_aliases[a].to[t], strlen(llama_aliases[a].to[t]))) {
                    snprintf(words[n_words], sizeof words[n_words], "--%s", llama_aliases[a].to[t]);
                    argv[i] = words[n_words++];
                    break;
                }
            break;
        }
        if (!unknown && !known_option(argv[i], opts, shorts)) unknown = argv[i];
        if (takes_value(argv[i], opts, shorts)) i++;
    }
    return unknown;
}
