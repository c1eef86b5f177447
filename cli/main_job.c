/* fitcheck with no arguments: probe quickly, then plan the catalog. */
#include "cli/cli.h"

int cli_main_job(void) {
    return cli_not_yet("", "the probe (issue #3) and planner (issue #4) are not built yet; try 'fitcheck inspect FILE.gguf'");
}
