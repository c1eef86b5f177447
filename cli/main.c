/* fitcheck: will this model fit on this hardware, and how fast will it run? */
#include "cli/cli.h"

#include <string.h>

static const cli_verb verbs[] = {
    {"probe",   "measure this machine: memory, bandwidth, compute, storage, GPUs, bus", cli_probe},
    {"plan",    "will MODEL fit, how fast, which quantization, context and split", cli_plan},
    {"run",     "run a GGUF model with the reference engine; --bench measures like llama-bench", cli_run},
    {"report",  "write a self-contained HTML report with charts", cli_report},
    {"inspect", "show what is inside a GGUF file", cli_inspect},
    {"models",  "list the built-in model catalog", cli_models},
    {"hw",      "list the built-in hardware catalog", cli_hw},
    {"gen",     "write a random-weight GGUF with a catalog model's shapes", cli_gen},
    {"calibrate", "refit the speed model to llama-bench or fitcheck bench results", cli_calibrate},
    {"serve",   "answer 'fitcheck probe --peer' from another machine (link round trip, throughput)", cli_serve},
};

static void usage(FILE *out) {
    fprintf(out,
            "usage: fitcheck [VERB] [options]\n\n"
            "With no verb: probe this machine quickly and say which catalog models fit and how fast.\n\n"
            "verbs:\n");
    for (size_t i = 0; i < FC_ARRAY_LEN(verbs); i++) fprintf(out, "  %-9s %s\n", verbs[i].name, verbs[i].summary);
    fprintf(out,
            "\n'fitcheck VERB --help' describes a verb's options. Most verbs take --json.\n"
            "Exit status: 0 success, 1 runtime failure, 2 bad usage or bad input.\n");
}

int main(int argc, char **argv) {
    fc_atomic_install_signal_cleanup();
    if (argc < 2) return cli_main_job();
    const char *v = argv[1];
    if (!strcmp(v, "--help") || !strcmp(v, "-h") || !strcmp(v, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(v, "--version") || !strcmp(v, "-V")) {
        printf("fitcheck %s\n", FITCHECK_VERSION);
        return 0;
    }
    for (size_t i = 0; i < FC_ARRAY_LEN(verbs); i++)
        if (!strcmp(v, verbs[i].name)) return verbs[i].run(argc - 1, argv + 1);
    fprintf(stderr, "fitcheck: unknown verb '%s'\n\n", fc_safe(v));
    usage(stderr);
    return FC_EINPUT;
}
