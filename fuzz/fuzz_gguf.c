/* Fuzz target: the GGUF reader and everything inspect does with a parsed file
 * (hyperparameters, tensor roles, array getters). */
#include "fuzz/fuzz.h"
#include "model/model.h"

#include <stdlib.h>

/* Touches every metadata value through the public getters, as inspect and the
 * tokenizer would, so a value whose bounds were checked wrongly is read. */
static void walk_metadata(const gguf_file *f) {
    for (uint64_t i = 0; i < f->n_kv; i++) {
        const gguf_kv *kv = &f->kv[i];
        char buf[64];
        int64_t iv;
        double fv;
        gguf_get_str(f, kv->key, buf, sizeof buf);
        gguf_get_i64(f, kv->key, &iv);
        gguf_get_f64(f, kv->key, &fv);
        if (kv->v.type != GGUF_ARRAY || kv->v.arr.n == 0) continue;
        gguf_arr_i64(f, kv, 0, &iv);
        gguf_arr_f64(f, kv, kv->v.arr.n - 1, &fv);
        /* A bounded string array only: the allocation is the caller's. */
        if (kv->v.arr.type == GGUF_STRING && kv->v.arr.n <= 4096) {
            gguf_str *s = malloc(kv->v.arr.n * sizeof *s);
            fc_err err = {0};
            if (s) gguf_arr_strings(f, kv, s, &err);
            free(s);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    gguf_file *f;
    fc_err err = {0};
    if (gguf_open_buffer(&f, data, size, "fuzz", &err) != FC_OK) return 0;
    walk_metadata(f);
    model_desc d;
    if (model_desc_from_gguf(&d, f, &err) == FC_OK) model_desc_free(&d);
    gguf_close(f);
    return 0;
}
