#include "cli/cli.h"

#include <string.h>

int cli_run(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--help")) {
        printf("usage: fitcheck run ... (not implemented yet: issue #6)\n");
        return 0;
    }
    return cli_not_yet("run", "issue #6");
}
