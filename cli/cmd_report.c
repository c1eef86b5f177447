#include "cli/cli.h"

#include <string.h>

int cli_report(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--help")) {
        printf("usage: fitcheck report ... (not implemented yet: issue #8)\n");
        return 0;
    }
    return cli_not_yet("report", "issue #8");
}
