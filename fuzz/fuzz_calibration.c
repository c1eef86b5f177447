/* Fuzz target: the calibration file (planner/efficiency.c), which
 * `fitcheck calibrate` writes to the cache and `plan` reads back; users copy
 * it between machines. plan_efficiency_load takes a path, so each input is
 * written to a memory file and read through /proc/self/fd. Oracle beyond "no
 * crash": an accepted file leaves every constant finite. */
#include "fuzz/fuzz.h"
#include "planner/planner.h"

#include <math.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("fuzz_calibration", 0);
        if (fd < 0) return 0;
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size) return 0;
    plan_efficiency *e = malloc(sizeof *e);
    if (!e) return 0;
    fc_err err = {0};
    if (plan_efficiency_load(e, path, &err) == FC_OK) {
        for (int be = 0; be < PLAN_EFF_SETS; be++)
            for (int eng = 0; eng < PLAN_ENG_COUNT; eng++)
                for (int i = 0; i < PLAN_EFF_SCALAR_COUNT; i++)
                    if (!isfinite(e->set[be][eng].scalar[i])) abort();
    }
    free(e);
    return 0;
}
