/* Fuzz target: the --hw catalog list (planner/hwcatalog.c), typed by users
 * and pasted from web pages: "rtx-4090,rtx-4090", "apple-m4-max-40c:128",
 * "cpu-ddr5-6400-2ch:64". Oracle beyond "no crash": an accepted list gives at
 * most PLAN_MAX_DEVICES GPUs, each with free memory within its total. */
#include "fuzz/fuzz.h"
#include "planner/planner.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *spec = malloc(size + 1);
    plan_hw *hw = malloc(sizeof *hw);
    if (!spec || !hw) goto done;
    memcpy(spec, data, size);
    spec[size] = '\0';
    fc_err err = {0};
    if (plan_hw_from_catalog(hw, spec, &err) == FC_OK) {
        if (hw->n_gpu < 0 || hw->n_gpu > PLAN_MAX_DEVICES) abort();
        for (int i = 0; i < hw->n_gpu; i++)
            if (hw->gpu[i].mem_free > hw->gpu[i].mem_total) abort();
    } else if (!err.msg[0]) {
        abort(); /* a refusal always says why */
    }
done:
    free(spec);
    free(hw);
    return 0;
}
