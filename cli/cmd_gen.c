#include "cli/cli.h"

#include <string.h>

int cli_gen(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--help")) {
        printf("usage: fitcheck gen ... (not implemented yet: issue #6)\n");
        return 0;
    }
    return cli_not_yet("gen", "issue #6");
}
