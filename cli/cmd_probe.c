#include "cli/cli.h"

#include <string.h>

int cli_probe(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--help")) {
        printf("usage: fitcheck probe ... (not implemented yet: issue #3)\n");
        return 0;
    }
    return cli_not_yet("probe", "issue #3");
}
