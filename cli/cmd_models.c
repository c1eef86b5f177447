#include "cli/cli.h"

#include <string.h>

int cli_models(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--help")) {
        printf("usage: fitcheck models ... (not implemented yet: issue #4)\n");
        return 0;
    }
    return cli_not_yet("models", "issue #4");
}
