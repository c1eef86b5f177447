#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>

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
    fprintf(stderr, "fitcheck %s: %s\n(see 'fitcheck %s --help')\n", verb, e.msg, verb);
    return FC_EINPUT;
}

int cli_report_error(const char *verb, const fc_err *err) {
    /* err->msg is safe already: fc_err_set applies common/fc.h's rule. */
    fprintf(stderr, "fitcheck %s: %s\n", verb, err->msg[0] ? err->msg : "failed");
    return err->status ? err->status : FC_ERUNTIME;
}

int cli_not_yet(const char *verb, const char *what) {
    fprintf(stderr, "fitcheck %s: not implemented yet (%s)\n", verb, what);
    return FC_ERUNTIME;
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
