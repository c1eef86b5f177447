/* GGUF v3 writer: header and metadata in memory, tensor data streamed. */
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

typedef struct wtensor {
    char name[GGUF_NAME_MAX];
    uint32_t type, n_dims;
    int64_t ne[GGUF_MAX_DIMS];
    uint64_t bytes, offset;
    const void *data;
} wtensor;

struct gguf_writer {
    uint8_t *meta; /* serialized key/value pairs */
    size_t meta_len, meta_cap;
    uint64_t n_kv;
    wtensor *tensors;
    uint32_t n_tensors, cap_tensors;
    uint32_t alignment;
    uint64_t data_bytes;
    bool oom;
};

gguf_writer *gguf_writer_new(uint32_t alignment) {
    gguf_writer *w = calloc(1, sizeof *w);
    if (w) w->alignment = alignment ? alignment : GGUF_DEFAULT_ALIGNMENT;
    if (w && w->alignment != GGUF_DEFAULT_ALIGNMENT) gguf_writer_u32(w, "general.alignment", w->alignment);
    return w;
}

void gguf_writer_free(gguf_writer *w) {
    if (!w) return;
    free(w->meta);
    free(w->tensors);
    free(w);
}

static void put(gguf_writer *w, const void *p, size_t n) {
    if (w->oom) return;
    if (w->meta_len + n > w->meta_cap) {
        size_t cap = w->meta_cap ? w->meta_cap : 4096;
        while (cap < w->meta_len + n) cap *= 2;
        uint8_t *nb = realloc(w->meta, cap);
        if (!nb) {
            w->oom = true;
            return;
        }
        w->meta = nb;
        w->meta_cap = cap;
    }
    memcpy(w->meta + w->meta_len, p, n);
    w->meta_len += n;
}

static void put_u32(gguf_writer *w, uint32_t v) { put(w, &v, 4); }
static void put_u64(gguf_writer *w, uint64_t v) { put(w, &v, 8); }
static void put_str(gguf_writer *w, const char *s) {
    put_u64(w, strlen(s));
    put(w, s, strlen(s));
}
static void put_key(gguf_writer *w, const char *key, uint32_t type) {
    put_str(w, key);
    put_u32(w, type);
    w->n_kv++;
}

void gguf_writer_u32(gguf_writer *w, const char *key, uint32_t v) { put_key(w, key, GGUF_U32); put_u32(w, v); }
void gguf_writer_i32(gguf_writer *w, const char *key, int32_t v) { put_key(w, key, GGUF_I32); put(w, &v, 4); }
void gguf_writer_u64(gguf_writer *w, const char *key, uint64_t v) { put_key(w, key, GGUF_U64); put_u64(w, v); }
void gguf_writer_f32(gguf_writer *w, const char *key, float v) { put_key(w, key, GGUF_F32); put(w, &v, 4); }
void gguf_writer_bool(gguf_writer *w, const char *key, bool v) {
    uint8_t b = v;
    put_key(w, key, GGUF_BOOL);
    put(w, &b, 1);
}
void gguf_writer_str(gguf_writer *w, const char *key, const char *v) { put_key(w, key, GGUF_STRING); put_str(w, v); }

void gguf_writer_arr_str(gguf_writer *w, const char *key, const char *const *v, uint64_t n) {
    put_key(w, key, GGUF_ARRAY);
    put_u32(w, GGUF_STRING);
    put_u64(w, n);
    for (uint64_t i = 0; i < n; i++) put_str(w, v[i]);
}

static void put_arr(gguf_writer *w, const char *key, uint32_t type, const void *v, uint64_t n, size_t each) {
    put_key(w, key, GGUF_ARRAY);
    put_u32(w, type);
    put_u64(w, n);
    put(w, v, n * each);
}
void gguf_writer_arr_f32(gguf_writer *w, const char *key, const float *v, uint64_t n) { put_arr(w, key, GGUF_F32, v, n, 4); }
void gguf_writer_arr_i32(gguf_writer *w, const char *key, const int32_t *v, uint64_t n) { put_arr(w, key, GGUF_I32, v, n, 4); }

void gguf_writer_raw(gguf_writer *w, const char *key, uint32_t type, const void *bytes, uint64_t len) {
    put_key(w, key, type);
    put(w, bytes, len);
}

static uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

int gguf_writer_tensor(gguf_writer *w, const char *name, uint32_t type, uint32_t n_dims, const int64_t *ne,
                       const void *data, fc_err *err) {
    if (strlen(name) >= GGUF_NAME_MAX) return fc_err_set(err, FC_EINPUT, "tensor name %s is too long", name);
    if (n_dims == 0 || n_dims > GGUF_MAX_DIMS) return fc_err_set(err, FC_EINPUT, "tensor %s: %u dims", name, n_dims);
    if (w->n_tensors == w->cap_tensors) {
        uint32_t cap = w->cap_tensors ? w->cap_tensors * 2 : 64;
        wtensor *nt = realloc(w->tensors, cap * sizeof *nt);
        if (!nt) return fc_err_set(err, FC_ERUNTIME, "out of memory");
        w->tensors = nt;
        w->cap_tensors = cap;
    }
    wtensor *t = &w->tensors[w->n_tensors];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->type = type;
    t->n_dims = n_dims;
    uint64_t rows = 1;
    for (uint32_t d = 0; d < GGUF_MAX_DIMS; d++) t->ne[d] = d < n_dims ? ne[d] : 1;
    for (uint32_t d = 1; d < n_dims; d++) rows *= (uint64_t)ne[d];
    uint64_t row;
    if (!ggml_row_bytes(type, (uint64_t)ne[0], &row))
        return fc_err_set(err, FC_EINPUT, "tensor %s: %lld elements per row do not fit type %u", name, (long long)ne[0], type);
    t->bytes = row * rows;
    t->offset = w->data_bytes;
    t->data = data;
    w->data_bytes = align_up(w->data_bytes + t->bytes, w->alignment);
    w->n_tensors++;
    return FC_OK;
}

/* Serializes header, metadata and tensor infos (everything before the data). */
static int header(gguf_writer *w, uint8_t **out, size_t *len, fc_err *err) {
    gguf_writer h = {0};
    put(&h, "GGUF", 4);
    put_u32(&h, 3);
    put_u64(&h, w->n_tensors);
    put_u64(&h, w->n_kv);
    put(&h, w->meta, w->meta_len);
    for (uint32_t i = 0; i < w->n_tensors; i++) {
        const wtensor *t = &w->tensors[i];
        put_str(&h, t->name);
        put_u32(&h, t->n_dims);
        for (uint32_t d = 0; d < t->n_dims; d++) put_u64(&h, (uint64_t)t->ne[d]);
        put_u32(&h, t->type);
        put_u64(&h, t->offset);
    }
    static const uint8_t zero = 0;
    while (h.meta_len % w->alignment) put(&h, &zero, 1);
    if (h.oom || w->oom) {
        free(h.meta);
        return fc_err_set(err, FC_ERUNTIME, "out of memory building GGUF header");
    }
    *out = h.meta;
    *len = h.meta_len;
    return FC_OK;
}

int gguf_writer_size(gguf_writer *w, uint64_t *bytes, fc_err *err) {
    uint8_t *hdr = NULL;
    size_t hlen = 0;
    int rc = header(w, &hdr, &hlen, err);
    free(hdr);
    if (!rc) *bytes = hlen + w->data_bytes;
    return rc;
}

int gguf_writer_write(gguf_writer *w, FILE *fp, gguf_fill_fn fill, void *ctx, fc_err *err) {
    uint8_t *hdr = NULL;
    size_t hlen = 0;
    int rc = header(w, &hdr, &hlen, err);
    if (rc) return rc;
    bool ok = fwrite(hdr, 1, hlen, fp) == hlen;
    free(hdr);
    uint64_t max_bytes = 0;
    for (uint32_t i = 0; i < w->n_tensors; i++)
        if (!w->tensors[i].data && w->tensors[i].bytes > max_bytes) max_bytes = w->tensors[i].bytes;
    uint8_t *buf = max_bytes ? malloc(max_bytes) : NULL;
    if (max_bytes && !buf) return fc_err_set(err, FC_ERUNTIME, "out of memory (%llu bytes for a tensor)", (unsigned long long)max_bytes);
    static const uint8_t zeros[64] = {0};
    for (uint32_t i = 0; i < w->n_tensors && ok; i++) {
        const wtensor *t = &w->tensors[i];
        const void *src = t->data;
        if (!src) {
            if (!fill) {
                free(buf);
                return fc_err_set(err, FC_EINPUT, "tensor %s has no data and no fill callback", t->name);
            }
            if ((rc = fill(ctx, i, buf, t->bytes, err))) {
                free(buf);
                return rc;
            }
            src = buf;
        }
        ok = fwrite(src, 1, t->bytes, fp) == t->bytes;
        uint64_t pad = align_up(t->bytes, w->alignment) - t->bytes;
        while (ok && pad) {
            size_t n = pad < sizeof zeros ? (size_t)pad : sizeof zeros;
            ok = fwrite(zeros, 1, n, fp) == n;
            pad -= n;
        }
        if (fc_interrupted) {
            free(buf);
            return fc_err_set(err, FC_ERUNTIME, "interrupted");
        }
    }
    free(buf);
    return ok ? FC_OK : fc_err_set(err, FC_ERUNTIME, "write failed");
}

int gguf_writer_to_buffer(gguf_writer *w, uint8_t **out, uint64_t *len, fc_err *err) {
    char *mem = NULL;
    size_t mlen = 0;
    FILE *fp = open_memstream(&mem, &mlen);
    if (!fp) return fc_err_set(err, FC_ERUNTIME, "open_memstream failed");
    int rc = gguf_writer_write(w, fp, NULL, NULL, err);
    fclose(fp);
    if (rc) {
        free(mem);
        return rc;
    }
    *out = (uint8_t *)mem;
    *len = mlen;
    return FC_OK;
}
