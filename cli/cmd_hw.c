#include "cli/cli.h"

#include <string.h>

int cli_hw(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--help")) {
        printf("usage: fitcheck hw ... (not implemented yet: issue #4)\n");
        return 0;
    }
    return cli_not_yet("hw", "issue #4");
}
