/* Fuzz target: an ollama image manifest (model/stores.c), the JSON that
 * `plan ollama:NAME:TAG` and `models --local` read to find a model's blob. */
#include "fuzz/fuzz.h"
#include "model/model.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char hex[65];
    uint64_t bytes = 0;
    fc_err err = {0};
    if (ollama_manifest_parse((const char *)data, size, "fuzz", hex, &bytes, &err) == FC_OK) {
        /* an accepted digest is 64 lowercase hex digits: safe in a path */
        if (strlen(hex) != 64 || strspn(hex, "0123456789abcdef") != 64 || bytes == 0) __builtin_trap();
    }
    return 0;
}
