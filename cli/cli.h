/* cli/: the fitcheck command. One file per verb; each verb parses its own
 * options and returns the process exit status (0 ok, 1 runtime failure,
 * 2 bad usage or bad input). Results go to stdout, diagnostics to stderr. */
#ifndef FC_CLI_H
#define FC_CLI_H

#include "common/fc.h"

#include <jansson.h>

typedef struct cli_verb {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv); /* argv[0] is the verb */
} cli_verb;

int cli_inspect(int argc, char **argv);
int cli_probe(int argc, char **argv);
int cli_plan(int argc, char **argv);
int cli_run(int argc, char **argv);
int cli_report(int argc, char **argv);
int cli_models(int argc, char **argv);
int cli_hw(int argc, char **argv);
int cli_gen(int argc, char **argv);
int cli_calibrate(int argc, char **argv);
int cli_serve(int argc, char **argv);
int cli_main_job(void);

/* Prints "fitcheck VERB: message" to stderr and returns 2. */
int cli_usage_error(const char *verb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints an fc_err as "fitcheck VERB: message" ("fitcheck: message" for the
 * bare command, verb "") and returns its status. */
int cli_report_error(const char *verb, const fc_err *err);
/* Options of a listing verb that takes only --json and --help. Returns
 * CLI_PROCEED to go on, else the exit status (0 after --help, 2 on a bad flag). */
#define CLI_PROCEED (-1)
int cli_parse_json_only(const char *verb, int argc, char **argv, void (*usage)(FILE *), bool *json);
/* Prints a JSON document (indented, newline-terminated) on stdout and
 * releases it: the --json output of every verb. */
void cli_print_json(json_t *root);
/* Run before getopt_long. Rewrites llama.cpp's spellings of options (-c,
 * -ngl, -ctk, -ctv, -ts, -np, -ub, -fa, -t, -m, -cmoe, -ncmoe, -nr and their
 * long forms) into the verb's own long names where the verb has the option
 * (opts: its getopt table; shorts: its short option string), and returns the
 * first word that is no option of the verb (NULL if none): the caller names
 * that word — getopt would name a neighbour (the model) for "-ngl" read as
 * the cluster -n -g -l. */
struct option;
const char *cli_llama_aliases(int argc, char **argv, const struct option *opts, const char *shorts);
/* Strict integer/float parsing for flags: whole string, in range. */
bool cli_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out);
bool cli_parse_f64(const char *s, double lo, double hi, double *out);

#endif
