/* Split models: llama.cpp's gguf-split writes PREFIX-00001-of-00003.gguf ...
 * (llama_split_path: "%s-%05d-of-%05d.gguf"); each part carries split.no
 * (0-based) and split.count, the first all metadata and split.tensors.count.
 * llama.cpp loads all parts from the first one's name; so does fitcheck, from
 * any part's name, for a path or a URL (a query string after ".gguf" is kept). */
#include "model/model.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define SPLIT_SUFFIX_LEN 20 /* "-00001-of-00003.gguf" */

/* Where the "-NNNNN-of-NNNNN.gguf" suffix starts, or NULL. It ends the name,
 * or is followed by a URL's '?' or '#'. */
static const char *split_suffix(const char *name, uint32_t *no, uint32_t *count) {
    size_t end = strcspn(name, http_is_url(name) ? "?#" : "");
    if (end < SPLIT_SUFFIX_LEN) return NULL;
    const char *s = name + end - SPLIT_SUFFIX_LEN;
    for (int i = 0; i < SPLIT_SUFFIX_LEN; i++) {
        char want = "-#####-of-#####.gguf"[i];
        if (want == '#' ? !isdigit((unsigned char)s[i]) : s[i] != want) return NULL;
    }
    *no = (uint32_t)atoi(s + 1);
    *count = (uint32_t)atoi(s + 10);
    if (*no < 1 || *count < 1 || *no > *count) return NULL;
    return s;
}

bool gguf_split_parse_name(const char *name, uint32_t *no, uint32_t *count) {
    return split_suffix(name, no, count) != NULL;
}

int gguf_split_part_name(const char *name, uint32_t no, char *buf, size_t cap, fc_err *err) {
    uint32_t n0, count;
    const char *s = split_suffix(name, &n0, &count);
    if (!s) return fc_err_set(err, FC_EINPUT, "%s is not named like a part of a split model (PREFIX-00001-of-0000N.gguf)", name);
    int n = snprintf(buf, cap, "%.*s-%05u-of-%05u.gguf%s", (int)(s - name), name, no, count, s + SPLIT_SUFFIX_LEN);
    if (n < 0 || (size_t)n >= cap) return fc_err_set(err, FC_EINPUT, "%s: name too long", name);
    return FC_OK;
}

static int open_one(gguf_file **out, const char *spec, fc_err *err) {
    return http_is_url(spec) ? gguf_open_url(out, spec, err) : gguf_open(out, spec, err);
}

/* split.no and split.count of a part, checked against what its name says. */
static int check_part(const gguf_file *f, uint32_t no, uint32_t count, fc_err *err) {
    int64_t n = -1, c = -1;
    gguf_get_i64(f, GGUF_KEY_SPLIT_NO, &n);
    gguf_get_i64(f, GGUF_KEY_SPLIT_COUNT, &c);
    if (n != (int64_t)no - 1 || c != (int64_t)count)
        return fc_err_set(err, FC_EINPUT, "%s: split.no %lld, split.count %lld, but it should be part %u of %u", f->path,
                          (long long)n, (long long)c, no, count);
    return FC_OK;
}

int gguf_open_model(gguf_file **out, const char *spec, fc_err *err) {
    *out = NULL;
    uint32_t no = 0, count = 0;
    char first[4096];
    bool named = gguf_split_parse_name(spec, &no, &count);
    /* Start from the first part, as llama.cpp does, whichever part was named. */
    if (named && no != 1) {
        if (gguf_split_part_name(spec, 1, first, sizeof first, err)) return err->status;
    } else {
        snprintf(first, sizeof first, "%s", spec);
    }
    gguf_file *f;
    int rc = open_one(&f, first, err);
    if (rc) return rc;
    int64_t n_split = 0;
    if (!gguf_get_i64(f, GGUF_KEY_SPLIT_COUNT, &n_split) || n_split <= 1) {
        if (named && count > 1) {
            gguf_close(f);
            return fc_err_set(err, FC_EINPUT, "%s: named as part 1 of %u but has no split.count", first, count);
        }
        *out = f;
        return FC_OK;
    }
    if (n_split > GGUF_SPLIT_MAX)
        rc = fc_err_set(err, FC_EINPUT, "%s: split.count %lld is more than %d parts", first, (long long)n_split,
                        GGUF_SPLIT_MAX);
    else if (!named)
        rc = fc_err_set(err, FC_EINPUT, "%s: split.count is %lld but the name is not PREFIX-00001-of-%05lld.gguf", first,
                        (long long)n_split, (long long)n_split);
    else if (count != n_split)
        rc = fc_err_set(err, FC_EINPUT, "%s: split.count %lld disagrees with the name (%u parts)", first,
                        (long long)n_split, count);
    if (rc) {
        gguf_close(f);
        return rc;
    }
    gguf_file **parts = calloc(count, sizeof *parts);
    if (!parts) {
        gguf_close(f);
        return fc_err_set(err, FC_ERUNTIME, "out of memory");
    }
    parts[0] = f;
    rc = check_part(f, 1, count, err);
    for (uint32_t i = 1; i < count && !rc; i++) {
        char name[4096];
        if (!(rc = gguf_split_part_name(first, i + 1, name, sizeof name, err)) && !(rc = open_one(&parts[i], name, err)))
            rc = check_part(parts[i], i + 1, count, err);
    }
    if (rc) {
        for (uint32_t i = 0; i < count; i++) gguf_close(parts[i]);
        free(parts);
        return rc;
    }
    if ((rc = gguf_join_splits(parts, count, err))) return rc; /* it closed the parts */
    *out = parts[0];
    return FC_OK;
}
