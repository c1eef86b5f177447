/* GGUF reader (versions 2 and 3).
 *
 * The file is mapped read-only and parsed through a bounds-checked cursor.
 * Hostile input is assumed: every count is checked against the bytes left
 * before anything is allocated for it, every size computation is
 * overflow-checked, and every error names the key or tensor and the byte
 * offset where the file went wrong. Only header pages are touched, so
 * opening a 100 GB file costs no more than opening a small one. */
#include "model/model.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct cursor {
    const uint8_t *base;
    uint64_t size;
    uint64_t pos;
    fc_err *err;
    const char *what; /* "key general.name", "tensor blk.0.attn_q.weight" */
    bool short_read;  /* failed for want of bytes: a header read in pieces may need more */
} cursor;

static int cur_fail(cursor *c, const char *fmt, const char *detail) {
    char msg[FC_ERR_MSG_MAX];
    snprintf(msg, sizeof msg, fmt, detail);
    return fc_err_set(c->err, FC_EINPUT, "%s%s%s at byte offset %llu", msg, c->what ? " in " : "",
                      c->what ? c->what : "", (unsigned long long)c->pos);
}

static uint64_t cur_left(const cursor *c) { return c->size - c->pos; }

/* A failure for want of bytes: in a whole file the file is truncated; in the
 * first bytes of a file read over HTTP, more bytes may be all it takes. */
static int cur_short(cursor *c, const char *fmt) {
    c->short_read = true;
    return cur_fail(c, fmt, "");
}

static int cur_read(cursor *c, void *dst, uint64_t n) {
    if (cur_left(c) < n) return cur_short(c, "file truncated%s");
    memcpy(dst, c->base + c->pos, n);
    c->pos += n;
    return FC_OK;
}

static int cur_u32(cursor *c, uint32_t *v) { return cur_read(c, v, 4); }
static int cur_u64(cursor *c, uint64_t *v) { return cur_read(c, v, 8); }

static int cur_str(cursor *c, gguf_str *s) {
    uint64_t len = 0;
    if (cur_u64(c, &len)) return c->err->status;
    if (len > cur_left(c)) {
        c->pos -= 8;
        return cur_short(c, "string length past the end of the file%s");
    }
    s->p = (const char *)c->base + c->pos;
    s->len = len;
    c->pos += len;
    return FC_OK;
}

static const uint32_t vtype_size[GGUF_VTYPE_COUNT] = {
    [GGUF_U8] = 1, [GGUF_I8] = 1, [GGUF_U16] = 2, [GGUF_I16] = 2, [GGUF_U32] = 4,
    [GGUF_I32] = 4, [GGUF_F32] = 4, [GGUF_BOOL] = 1, [GGUF_U64] = 8, [GGUF_I64] = 8,
    [GGUF_F64] = 8, /* STRING and ARRAY have variable size */
};

static const char *vtype_names[GGUF_VTYPE_COUNT] = {
    "u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "string", "array", "u64", "i64", "f64",
};

const char *gguf_vtype_name(uint32_t type) { return type < GGUF_VTYPE_COUNT ? vtype_names[type] : "?"; }

/* Decodes one scalar of a fixed-size type at p. */
static void decode_scalar(uint32_t type, const uint8_t *p, gguf_value *v) {
    v->type = type;
    switch (type) {
    case GGUF_U8: v->u = p[0]; break;
    case GGUF_BOOL: v->u = p[0] != 0; break;
    case GGUF_I8: v->i = (int8_t)p[0]; break;
    case GGUF_U16: { uint16_t x; memcpy(&x, p, 2); v->u = x; break; }
    case GGUF_I16: { int16_t x; memcpy(&x, p, 2); v->i = x; break; }
    case GGUF_U32: { uint32_t x; memcpy(&x, p, 4); v->u = x; break; }
    case GGUF_I32: { int32_t x; memcpy(&x, p, 4); v->i = x; break; }
    case GGUF_F32: { float x; memcpy(&x, p, 4); v->f = x; break; }
    case GGUF_U64: { uint64_t x; memcpy(&x, p, 8); v->u = x; break; }
    case GGUF_I64: { int64_t x; memcpy(&x, p, 8); v->i = x; break; }
    case GGUF_F64: { double x; memcpy(&x, p, 8); v->f = x; break; }
    default: break;
    }
}

/* Skips (validating) a value of type `type`; used for array elements so that
 * nested arrays and string arrays are checked once, at open time. */
static int skip_value(cursor *c, uint32_t type, int depth);

static int parse_array(cursor *c, gguf_value *v, int depth) {
    uint32_t et = 0;
    uint64_t n = 0;
    if (depth >= GGUF_MAX_NESTING) return cur_fail(c, "arrays nested deeper than %s levels", "4");
    if (cur_u32(c, &et) || cur_u64(c, &n)) return c->err->status;
    if (et >= GGUF_VTYPE_COUNT) {
        c->pos -= 12;
        return cur_fail(c, "unknown array element type%s", "");
    }
    v->type = GGUF_ARRAY;
    v->arr.type = et;
    v->arr.n = n;
    v->arr.off = c->pos;
    if (vtype_size[et]) {
        uint64_t bytes;
        if (!fc_mul_u64(n, vtype_size[et], &bytes) || bytes > cur_left(c)) {
            c->pos -= 8;
            return cur_short(c, "array count past the end of the file%s");
        }
        c->pos += bytes;
    } else {
        /* Each string or array element takes at least 8 (or 12) bytes: an
         * absurd count fails here instead of looping for 2^63 iterations. */
        uint64_t min_each = et == GGUF_STRING ? 8 : 12;
        if (n > cur_left(c) / min_each) {
            c->pos -= 8;
            return cur_short(c, "array count past the end of the file%s");
        }
        for (uint64_t i = 0; i < n; i++)
            if (skip_value(c, et, depth + 1)) return c->err->status;
    }
    v->arr.bytes = c->pos - v->arr.off;
    return FC_OK;
}

static int parse_value(cursor *c, uint32_t type, gguf_value *v, int depth) {
    memset(v, 0, sizeof *v);
    if (type >= GGUF_VTYPE_COUNT) return cur_fail(c, "unknown value type%s", "");
    if (type == GGUF_STRING) {
        v->type = GGUF_STRING;
        return cur_str(c, &v->s);
    }
    if (type == GGUF_ARRAY) return parse_array(c, v, depth);
    if (cur_left(c) < vtype_size[type]) return cur_short(c, "file truncated%s");
    decode_scalar(type, c->base + c->pos, v);
    c->pos += vtype_size[type];
    return FC_OK;
}

static int skip_value(cursor *c, uint32_t type, int depth) {
    gguf_value v;
    return parse_value(c, type, &v, depth);
}

/* Tensor names are hashed for duplicate detection: O(n) instead of O(n^2)
 * for files with tens of thousands of tensors. */
static uint64_t name_hash(const char *s) {
    uint64_t h = 1469598103934665603ull;
    while (*s) h = (h ^ (uint8_t)*s++) * 1099511628211ull;
    return h;
}

/* Finds two equal strings among n (reached through get(ctx, i)) in O(n) with
 * an open-addressing hash set, so 10^5 names cannot turn into a 10^10 loop. */
static int find_duplicate(const void *ctx, const char *(*get)(const void *, uint64_t), uint64_t n,
                          uint64_t *first, uint64_t *second, fc_err *err) {
    uint64_t cap = 16;
    while (cap < n * 2) cap <<= 1;
    int64_t *slots = malloc(cap * sizeof *slots);
    if (!slots) {
        fc_err_set(err, FC_ERUNTIME, "out of memory checking names");
        return -1;
    }
    for (uint64_t i = 0; i < cap; i++) slots[i] = -1;
    int found = 0;
    for (uint64_t t = 0; t < n && !found; t++) {
        const char *name = get(ctx, t);
        uint64_t h = name_hash(name) & (cap - 1);
        while (slots[h] >= 0 && !found) {
            if (!strcmp(get(ctx, (uint64_t)slots[h]), name)) {
                *first = (uint64_t)slots[h];
                *second = t;
                found = 1;
            }
            h = (h + 1) & (cap - 1);
        }
        slots[h] = (int64_t)t;
    }
    free(slots);
    return found;
}

static const char *tensor_name_at(const void *ctx, uint64_t i) { return ((const gguf_file *)ctx)->tensors[i].name; }
static const char *key_at(const void *ctx, uint64_t i) { return ((const gguf_file *)ctx)->kv[i].key; }

static int check_duplicate_names(gguf_file *f, fc_err *err) {
    uint64_t a, b;
    int dup = find_duplicate(f, key_at, f->n_kv, &a, &b, err);
    if (dup < 0) return err->status;
    if (dup)
        return fc_err_set(err, FC_EINPUT, "duplicate metadata key %s at byte offsets %llu and %llu", f->kv[b].key,
                          (unsigned long long)f->kv[a].off, (unsigned long long)f->kv[b].off);
    dup = find_duplicate(f, tensor_name_at, f->n_tensors, &a, &b, err);
    if (dup < 0) return err->status;
    if (dup)
        return fc_err_set(err, FC_EINPUT, "duplicate tensor name %s (tensors #%llu and #%llu)", f->tensors[b].name,
                          (unsigned long long)a, (unsigned long long)b);
    return FC_OK;
}

static int cmp_offset(const void *a, const void *b) {
    const gguf_tensor *x = *(const gguf_tensor *const *)a, *y = *(const gguf_tensor *const *)b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int check_overlaps(gguf_file *f, fc_err *err) {
    if (f->n_tensors < 2) return FC_OK;
    const gguf_tensor **order = malloc(f->n_tensors * sizeof *order);
    if (!order) return fc_err_set(err, FC_ERUNTIME, "out of memory checking tensor offsets");
    for (uint64_t i = 0; i < f->n_tensors; i++) order[i] = &f->tensors[i];
    qsort(order, f->n_tensors, sizeof *order, cmp_offset);
    int rc = FC_OK;
    for (uint64_t i = 1; i < f->n_tensors; i++)
        if (order[i - 1]->offset + order[i - 1]->bytes > order[i]->offset) {
            rc = fc_err_set(err, FC_EINPUT, "tensor %s overlaps tensor %s (data offsets %llu and %llu)",
                            order[i - 1]->name, order[i]->name, (unsigned long long)order[i - 1]->offset,
                            (unsigned long long)order[i]->offset);
            break;
        }
    free(order);
    return rc;
}

static int parse_tensor_info(cursor *c, gguf_tensor *t, uint64_t index) {
    char what[GGUF_NAME_MAX + 32];
    gguf_str name;
    snprintf(what, sizeof what, "tensor #%llu", (unsigned long long)index);
    c->what = what;
    if (cur_str(c, &name)) return c->err->status;
    if (name.len == 0 || name.len >= GGUF_NAME_MAX) return cur_fail(c, "tensor name empty or longer than %s bytes", "63");
    if (memchr(name.p, '\0', name.len)) return cur_fail(c, "tensor name contains a NUL byte%s", "");
    memcpy(t->name, name.p, name.len);
    t->name[name.len] = '\0';
    snprintf(what, sizeof what, "tensor %s", t->name);
    if (cur_u32(c, &t->n_dims)) return c->err->status;
    if (t->n_dims == 0 || t->n_dims > GGUF_MAX_DIMS) return cur_fail(c, "tensor has n_dims outside 1..4%s", "");
    uint64_t nel = 1;
    for (uint32_t d = 0; d < GGUF_MAX_DIMS; d++) t->ne[d] = 1;
    for (uint32_t d = 0; d < t->n_dims; d++) {
        uint64_t ne = 0;
        if (cur_u64(c, &ne)) return c->err->status;
        if (ne == 0 || ne > INT64_MAX) return cur_fail(c, "tensor dimension is zero or negative%s", "");
        if (!fc_mul_u64(nel, ne, &nel) || nel > INT64_MAX) return cur_fail(c, "tensor element count overflows%s", "");
        t->ne[d] = (int64_t)ne;
    }
    t->n_elements = nel;
    if (cur_u32(c, &t->type)) return c->err->status;
    const ggml_type_info *ti = ggml_type_get(t->type);
    if (!ti) {
        char id[16];
        snprintf(id, sizeof id, "%u", t->type);
        c->pos -= 4;
        return cur_fail(c, "unknown tensor type id %s", id);
    }
    if ((uint64_t)t->ne[0] % ti->blck) return cur_fail(c, "first dimension is not a multiple of the type's block size%s", "");
    uint64_t row;
    if (!ggml_row_bytes(t->type, (uint64_t)t->ne[0], &row) || !fc_mul_u64(row, nel / (uint64_t)t->ne[0], &t->bytes))
        return cur_fail(c, "tensor size overflows%s", "");
    if (cur_u64(c, &t->offset)) return c->err->status;
    return FC_OK;
}

static int parse(gguf_file *f, cursor *c) {
    fc_err *err = c->err;
    uint8_t magic[4];
    if (cur_read(c, magic, 4)) return fc_err_prefix(err, "not a GGUF file: ");
    if (memcmp(magic, "GGUF", 4)) {
        c->pos = 0;
        return cur_fail(c, "not a GGUF file (bad magic)%s", "");
    }
    if (cur_u32(c, &f->version)) return err->status;
    if (f->version != 2 && f->version != 3) {
        char v[16];
        snprintf(v, sizeof v, "%u", f->version);
        c->pos -= 4;
        return cur_fail(c, "unsupported GGUF version %s (2 and 3 are supported)", v);
    }
    if (cur_u64(c, &f->n_tensors) || cur_u64(c, &f->n_kv)) return err->status;
    /* Lower bounds per entry: a kv is >= 8+1+4+1 bytes, a tensor info >= 8+1+4+8+4+8. */
    if (f->n_kv > cur_left(c) / 14) {
        c->pos = 16;
        return cur_short(c, "metadata count past the end of the file%s");
    }
    if (f->n_tensors > cur_left(c) / 33) {
        c->pos = 8;
        return cur_short(c, "tensor count past the end of the file%s");
    }
    f->kv = calloc(f->n_kv ? f->n_kv : 1, sizeof *f->kv);
    f->tensors = calloc(f->n_tensors ? f->n_tensors : 1, sizeof *f->tensors);
    if (!f->kv || !f->tensors) return fc_err_set(err, FC_ERUNTIME, "out of memory reading GGUF header");

    f->alignment = GGUF_DEFAULT_ALIGNMENT;
    char what[GGUF_KEY_MAX + 16];
    for (uint64_t i = 0; i < f->n_kv; i++) {
        gguf_kv *kv = &f->kv[i];
        gguf_str key;
        snprintf(what, sizeof what, "metadata entry #%llu", (unsigned long long)i);
        c->what = what;
        kv->off = c->pos;
        if (cur_str(c, &key)) return err->status;
        if (key.len == 0 || key.len >= GGUF_KEY_MAX || memchr(key.p, '\0', key.len)) {
            c->pos = kv->off;
            return cur_fail(c, "metadata key empty, too long or with a NUL byte%s", "");
        }
        kv->key = malloc(key.len + 1);
        if (!kv->key) return fc_err_set(err, FC_ERUNTIME, "out of memory");
        memcpy(kv->key, key.p, key.len);
        kv->key[key.len] = '\0';
        snprintf(what, sizeof what, "key %s", kv->key);
        uint32_t type = 0;
        if (cur_u32(c, &type)) return err->status;
        if (type >= GGUF_VTYPE_COUNT) {
            c->pos -= 4;
            return cur_fail(c, "unknown value type%s", "");
        }
        if (parse_value(c, type, &kv->v, 0)) return err->status;
        if (!strcmp(kv->key, "general.alignment")) {
            if (type != GGUF_U32 || kv->v.u == 0 || (kv->v.u & (kv->v.u - 1)) || kv->v.u > GGUF_MAX_ALIGNMENT)
                return cur_fail(c, "general.alignment must be a u32 power of two up to 2^20%s", "");
            f->alignment = (uint32_t)kv->v.u;
        }
    }
    for (uint64_t i = 0; i < f->n_tensors; i++)
        if (parse_tensor_info(c, &f->tensors[i], i)) return err->status;
    c->what = NULL;

    uint64_t data = c->pos;
    uint64_t pad = (f->alignment - data % f->alignment) % f->alignment;
    if (!fc_add_u64(data, pad, &data)) return cur_fail(c, "data section offset overflows%s", "");
    /* A file with no tensors may end right after the header. */
    if (data > f->size && f->n_tensors) return cur_fail(c, "file truncated before the tensor data%s", "");
    f->data_offset = data;
    uint64_t data_size = f->size > data ? f->size - data : 0;
    for (uint64_t i = 0; i < f->n_tensors; i++) {
        gguf_tensor *t = &f->tensors[i];
        if (t->offset % f->alignment)
            return fc_err_set(err, FC_EINPUT, "tensor %s: data offset %llu is not a multiple of the alignment %u",
                              t->name, (unsigned long long)t->offset, f->alignment);
        if (t->offset > data_size || t->bytes > data_size - t->offset)
            return fc_err_set(err, FC_EINPUT,
                              "tensor %s: data [%llu, +%llu) lies past the end of the file (data section is %llu bytes at offset %llu)",
                              t->name, (unsigned long long)t->offset, (unsigned long long)t->bytes,
                              (unsigned long long)data_size, (unsigned long long)data);
        /* A header read over HTTP has no tensor data to point at. */
        t->data = f->avail == f->size ? f->map + data + t->offset : NULL;
    }
    if (check_duplicate_names(f, err) || check_overlaps(f, err)) return err->status;
    return FC_OK;
}

static int open_common(gguf_file *f, gguf_file **out, bool *short_read, fc_err *err) {
    cursor c = {.base = f->map, .size = f->avail, .pos = 0, .err = err, .what = NULL, .short_read = false};
    int rc = parse(f, &c);
    if (short_read) *short_read = rc && c.short_read;
    if (rc) {
        fc_err_prefix(err, "%s: ", f->path);
        gguf_close(f);
        return rc;
    }
    *out = f;
    return FC_OK;
}

int gguf_open_buffer(gguf_file **out, const void *buf, uint64_t size, const char *name, fc_err *err) {
    fc_err local;
    if (!err) err = &local;
    *out = NULL;
    gguf_file *f = calloc(1, sizeof *f);
    if (!f) return fc_err_set(err, FC_ERUNTIME, "out of memory");
    snprintf(f->path, sizeof f->path, "%s", name ? name : "<buffer>");
    f->map = buf;
    f->avail = f->size = size;
    return open_common(f, out, NULL, err);
}

int gguf_open_header(gguf_file **out, const void *buf, uint64_t avail, uint64_t size, const char *name,
                     bool *short_read, fc_err *err) {
    fc_err local;
    if (!err) err = &local;
    *out = NULL;
    *short_read = false;
    if (avail > size) return fc_err_set(err, FC_EINPUT, "%s: %llu bytes read of a %llu-byte file", name,
                                        (unsigned long long)avail, (unsigned long long)size);
    gguf_file *f = calloc(1, sizeof *f);
    if (!f) return fc_err_set(err, FC_ERUNTIME, "out of memory");
    snprintf(f->path, sizeof f->path, "%s", name);
    f->map = buf;
    f->avail = avail;
    f->size = size;
    int rc = open_common(f, out, short_read, err);
    /* Short only if more of the file remains to be read. */
    if (avail == size) *short_read = false;
    return rc;
}

int gguf_open(gguf_file **out, const char *path, fc_err *err) {
    fc_err local;
    if (!err) err = &local;
    *out = NULL;
    int fd = fc_open_regular(path, err); /* a FIFO or device named *.gguf must not hang open() */
    if (fd < 0) return err->status;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return fc_err_set(err, FC_ERUNTIME, "cannot stat %s: %s", path, strerror(errno));
    }
    if (st.st_size < 24) {
        close(fd);
        return fc_err_set(err, FC_EINPUT, "%s: not a GGUF file (only %lld bytes)", path, (long long)st.st_size);
    }
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return fc_err_set(err, FC_ERUNTIME, "cannot map %s: %s", path, strerror(errno));
    gguf_file *f = calloc(1, sizeof *f);
    if (!f) {
        munmap(map, (size_t)st.st_size);
        return fc_err_set(err, FC_ERUNTIME, "out of memory");
    }
    snprintf(f->path, sizeof f->path, "%s", path);
    f->map = map;
    f->avail = f->size = (uint64_t)st.st_size;
    f->owns_map = 1;
    return open_common(f, out, NULL, err);
}

void gguf_close(gguf_file *f) {
    if (!f) return;
    if (f->kv)
        for (uint64_t i = 0; i < f->n_kv; i++) free(f->kv[i].key);
    free(f->kv);
    free(f->tensors);
    if (f->owns_map) munmap((void *)f->map, f->avail);
    free(f->heap);
    for (uint32_t i = 1; i < f->n_splits && f->splits; i++) gguf_close(f->splits[i]);
    free(f->splits);
    free(f);
}

int gguf_join_splits(gguf_file **parts, uint32_t n, fc_err *err) {
    gguf_file *f = parts[0];
    uint64_t n_tensors = 0, size = 0;
    int rc = FC_OK;
    for (uint32_t i = 0; i < n && !rc; i++)
        if (!fc_add_u64(n_tensors, parts[i]->n_tensors, &n_tensors) || !fc_add_u64(size, parts[i]->size, &size))
            rc = fc_err_set(err, FC_EINPUT, "%s: the parts' sizes overflow", f->path);
    int64_t want = -1;
    if (!rc && (!gguf_get_i64(f, GGUF_KEY_SPLIT_TENSORS, &want) || want < 0 || (uint64_t)want != n_tensors))
        rc = fc_err_set(err, FC_EINPUT, "%s: split.tensors.count is %lld but the %u parts hold %llu tensors", f->path,
                        (long long)want, n, (unsigned long long)n_tensors);
    gguf_tensor *all = rc ? NULL : calloc(n_tensors ? n_tensors : 1, sizeof *all);
    if (!rc && !all) rc = fc_err_set(err, FC_ERUNTIME, "out of memory joining the parts of %s", f->path);
    if (rc) {
        for (uint32_t i = 0; i < n; i++) gguf_close(parts[i]);
        free(parts);
        return rc;
    }
    uint64_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint64_t t = 0; t < parts[i]->n_tensors; t++, k++) {
            all[k] = parts[i]->tensors[t];
            all[k].split = i;
        }
    free(f->tensors);
    f->tensors = all;
    f->n_tensors = n_tensors;
    f->size = size;
    f->splits = parts;
    f->n_splits = n;
    if ((rc = check_duplicate_names(f, err))) {
        gguf_close(f);
        return rc;
    }
    return FC_OK;
}

const gguf_kv *gguf_find(const gguf_file *f, const char *key) {
    for (uint64_t i = 0; i < f->n_kv; i++)
        if (!strcmp(f->kv[i].key, key)) return &f->kv[i];
    return NULL;
}

const gguf_tensor *gguf_find_tensor(const gguf_file *f, const char *name) {
    for (uint64_t i = 0; i < f->n_tensors; i++)
        if (!strcmp(f->tensors[i].name, name)) return &f->tensors[i];
    return NULL;
}

static bool value_i64(const gguf_value *v, int64_t *out) {
    switch (v->type) {
    case GGUF_U8: case GGUF_U16: case GGUF_U32: case GGUF_U64: case GGUF_BOOL:
        if (v->u > INT64_MAX) return false;
        *out = (int64_t)v->u;
        return true;
    case GGUF_I8: case GGUF_I16: case GGUF_I32: case GGUF_I64:
        *out = v->i;
        return true;
    default:
        return false;
    }
}

static bool value_f64(const gguf_value *v, double *out) {
    int64_t i;
    if (v->type == GGUF_F32 || v->type == GGUF_F64) {
        *out = v->f;
        return true;
    }
    if (value_i64(v, &i)) {
        *out = (double)i;
        return true;
    }
    return false;
}

bool gguf_get_i64(const gguf_file *f, const char *key, int64_t *out) {
    const gguf_kv *kv = gguf_find(f, key);
    return kv && value_i64(&kv->v, out);
}

bool gguf_get_f64(const gguf_file *f, const char *key, double *out) {
    const gguf_kv *kv = gguf_find(f, key);
    return kv && value_f64(&kv->v, out);
}

bool gguf_get_bool(const gguf_file *f, const char *key, bool *out) {
    int64_t v;
    if (!gguf_get_i64(f, key, &v)) return false;
    *out = v != 0;
    return true;
}

bool gguf_get_str(const gguf_file *f, const char *key, char *buf, size_t cap) {
    const gguf_kv *kv = gguf_find(f, key);
    if (!kv || kv->v.type != GGUF_STRING || cap == 0) return false;
    size_t n = kv->v.s.len < cap - 1 ? (size_t)kv->v.s.len : cap - 1;
    memcpy(buf, kv->v.s.p, n);
    buf[n] = '\0';
    return true;
}

static bool arr_elem(const gguf_file *f, const gguf_kv *kv, uint64_t i, gguf_value *v) {
    if (!kv || kv->v.type != GGUF_ARRAY || i >= kv->v.arr.n) return false;
    uint32_t et = kv->v.arr.type;
    if (et >= GGUF_VTYPE_COUNT || !vtype_size[et]) return false;
    decode_scalar(et, f->map + kv->v.arr.off + i * vtype_size[et], v);
    return true;
}

bool gguf_arr_i64(const gguf_file *f, const gguf_kv *kv, uint64_t i, int64_t *out) {
    gguf_value v;
    return arr_elem(f, kv, i, &v) && value_i64(&v, out);
}

bool gguf_arr_f64(const gguf_file *f, const gguf_kv *kv, uint64_t i, double *out) {
    gguf_value v;
    return arr_elem(f, kv, i, &v) && value_f64(&v, out);
}

int gguf_arr_strings(const gguf_file *f, const gguf_kv *kv, gguf_str *out, fc_err *err) {
    if (!kv || kv->v.type != GGUF_ARRAY || kv->v.arr.type != GGUF_STRING)
        return fc_err_set(err, FC_EINPUT, "%s: %s is not an array of strings", f->path, kv ? kv->key : "(missing key)");
    /* Already validated at open: lengths fit inside arr.bytes. */
    cursor c = {.base = f->map, .size = kv->v.arr.off + kv->v.arr.bytes, .pos = kv->v.arr.off, .err = err, .what = kv->key};
    for (uint64_t i = 0; i < kv->v.arr.n; i++)
        if (cur_str(&c, &out[i])) return err->status;
    return FC_OK;
}
