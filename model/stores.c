/* Models already on disk, where the tools people use keep them.
 *
 * - ollama: $OLLAMA_MODELS or ~/.ollama/models (the Linux service's
 *   /usr/share/ollama/.ollama/models too): manifests/HOST/NAMESPACE/NAME/TAG
 *   is a JSON image manifest (docker distribution v2); its layer with
 *   mediaType application/vnd.ollama.image.model is the GGUF, stored as
 *   blobs/sha256-HEX (the digest with ':' made '-').
 * - LM Studio: ~/.lmstudio/models and ~/.cache/lm-studio/models,
 *   PUBLISHER/REPO/FILE.gguf.
 * - Hugging Face hub cache: $HF_HUB_CACHE, $HF_HOME/hub or
 *   ~/.cache/huggingface/hub: models--ORG--REPO/snapshots/REVISION/FILE.gguf
 *   (symlinks into ../../blobs).
 * - llama.cpp's download cache (-hf, -mu): $LLAMA_CACHE or
 *   $XDG_CACHE_HOME/llama.cpp (~/.cache/llama.cpp).
 * - any --models-dir.
 * Folders are walked to STORE_MAX_DEPTH without following directory links
 * (a link loop cannot trap the walk); a split model is listed by its first
 * part. Manifests are hostile input like any file. */
#include "model/model.h"

#include <ctype.h>
#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define STORE_MAX_DEPTH 6      /* HF: models--O--R/snapshots/REV/sub/FILE is 4 */
#define OLLAMA_MANIFEST_MAX (1u << 20) /* a manifest is < 2 KiB */
#define OLLAMA_MEDIA_MODEL "application/vnd.ollama.image.model"
#define OLLAMA_REGISTRY "registry.ollama.ai"
#define OLLAMA_LIBRARY "library"
#define OLLAMA_DEFAULT_TAG "latest"

static const char *const store_names[STORE_COUNT] = {"ollama", "lmstudio", "hf-cache", "llama.cpp", "dir"};
const char *model_store_name(int store) { return store >= 0 && store < STORE_COUNT ? store_names[store] : "?"; }

int ollama_manifest_parse(const char *text, size_t len, const char *where, char *hex, uint64_t *size, fc_err *err) {
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) return fc_err_set(err, FC_EINPUT, "%s: not JSON (line %d: %s)", where, je.line, je.text);
    int rc = FC_OK;
    const json_t *layers = json_object_get(root, "layers"), *model = NULL;
    size_t i;
    const json_t *l;
    if (!json_is_array(layers)) rc = fc_err_set(err, FC_EINPUT, "%s: no \"layers\" array (not an ollama manifest)", where);
    json_array_foreach(layers, i, l) {
        const char *mt = json_string_value(json_object_get(l, "mediaType"));
        if (!rc && mt && !strcmp(mt, OLLAMA_MEDIA_MODEL)) {
            if (model) rc = fc_err_set(err, FC_EINPUT, "%s: two model layers", where);
            model = l;
        }
    }
    if (!rc && !model) rc = fc_err_set(err, FC_EINPUT, "%s: no layer with mediaType %s", where, OLLAMA_MEDIA_MODEL);
    if (!rc) {
        const char *dg = json_string_value(json_object_get(model, "digest"));
        const json_t *sz = json_object_get(model, "size");
        bool ok = dg && !strncmp(dg, "sha256:", 7) && strlen(dg) == 7 + 64;
        for (int k = 0; ok && k < 64; k++) ok = isxdigit((unsigned char)dg[7 + k]) && !isupper((unsigned char)dg[7 + k]);
        if (!ok) rc = fc_err_set(err, FC_EINPUT, "%s: the model layer's digest is not sha256:<64 lowercase hex digits>", where);
        else if (!json_is_integer(sz) || json_integer_value(sz) <= 0)
            rc = fc_err_set(err, FC_EINPUT, "%s: the model layer's size is not a positive integer", where);
        else {
            memcpy(hex, dg + 7, 64);
            hex[64] = '\0';
            *size = (uint64_t)json_integer_value(sz);
        }
    }
    json_decref(root);
    return rc;
}

/* a "/" b into buf (b "." is a alone); false (buf unusable) when it does not fit. */
static bool path_join(char *buf, size_t cap, const char *a, const char *b) {
    bool self = !strcmp(b, ".");
    int n = snprintf(buf, cap, "%s%s%s", a, self ? "" : "/", self ? "" : b);
    return n >= 0 && (size_t)n < cap;
}

/* ollama's models folder. */
static void ollama_root(char *buf, size_t cap) {
    const char *e = getenv("OLLAMA_MODELS");
    bool ok = e && *e ? path_join(buf, cap, e, ".") : path_join(buf, cap, getenv("HOME") ? getenv("HOME") : "", ".ollama/models");
    if (!ok) buf[0] = '\0';
}

/* A name component: what ollama allows, and never "." or "..". */
static bool name_part_ok(const char *s, size_t n) {
    if (n == 0 || n > 128 || (n <= 2 && s[0] == '.' && (n == 1 || s[1] == '.'))) return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && !strchr("._-", s[i])) return false;
    return true;
}

/* The manifest path and the GGUF blob of "NAME[:TAG]" under root; NAME is
 * "llama3.2", "user/model" or "hf.co/org/repo". */
static int ollama_resolve_in(const char *root, const char *ref, char *manifest, char *blob, size_t cap, uint64_t *size,
                             fc_err *err) {
    char name[512], tag[160] = OLLAMA_DEFAULT_TAG;
    const char *colon = strrchr(ref, ':');
    if (colon && strchr(colon, '/')) colon = NULL;
    size_t nl = colon ? (size_t)(colon - ref) : strlen(ref);
    if (nl >= sizeof name || (colon && strlen(colon + 1) >= sizeof tag))
        return fc_err_set(err, FC_EINPUT, "ollama:%s: name too long", ref);
    memcpy(name, ref, nl);
    name[nl] = '\0';
    if (colon) snprintf(tag, sizeof tag, "%s", colon + 1);
    const char *parts[3];
    size_t lens[3];
    int np = 0;
    for (const char *p = name; np < 4;) {
        const char *slash = strchr(p, '/');
        size_t n = slash ? (size_t)(slash - p) : strlen(p);
        if (np == 3 || !name_part_ok(p, n)) return fc_err_set(err, FC_EINPUT, "ollama:%s: not a model name (NAME[:TAG], NAMESPACE/NAME or HOST/NAMESPACE/NAME)", ref);
        parts[np] = p;
        lens[np++] = n;
        if (!slash) break;
        p = slash + 1;
    }
    if (!name_part_ok(tag, strlen(tag))) return fc_err_set(err, FC_EINPUT, "ollama:%s: bad tag '%s'", ref, tag);
    int n = np == 1 ? snprintf(manifest, cap, "%s/manifests/%s/%s/%.*s/%s", root, OLLAMA_REGISTRY, OLLAMA_LIBRARY, (int)lens[0], parts[0], tag)
          : np == 2 ? snprintf(manifest, cap, "%s/manifests/%s/%.*s/%.*s/%s", root, OLLAMA_REGISTRY, (int)lens[0], parts[0], (int)lens[1], parts[1], tag)
                    : snprintf(manifest, cap, "%s/manifests/%s/%s", root, name, tag);
    if (n < 0 || (size_t)n >= cap) return fc_err_set(err, FC_EINPUT, "ollama:%s: path too long", ref);
    char *text;
    size_t len;
    if (fc_read_file(manifest, OLLAMA_MANIFEST_MAX, &text, &len, err)) {
        if (access(manifest, F_OK)) return fc_err_set(err, FC_EINPUT, "ollama:%s: not in the ollama store %s (no %s; 'fitcheck models --local' lists what is there)", ref, root, manifest);
        return FC_EINPUT;
    }
    char hex[65];
    int rc = ollama_manifest_parse(text, len, manifest, hex, size, err);
    free(text);
    if (rc) return rc;
    n = snprintf(blob, cap, "%s/blobs/sha256-%s", root, hex);
    if (n < 0 || (size_t)n >= cap) return fc_err_set(err, FC_EINPUT, "ollama:%s: path too long", ref);
    struct stat st;
    if (stat(blob, &st) || !S_ISREG(st.st_mode))
        return fc_err_set(err, FC_EINPUT, "ollama:%s: its model blob %s is missing (a pull that did not finish?)", ref, blob);
    if ((uint64_t)st.st_size != *size)
        return fc_err_set(err, FC_EINPUT, "ollama:%s: blob %s is %llu bytes, the manifest says %llu", ref, blob,
                          (unsigned long long)st.st_size, (unsigned long long)*size);
    return FC_OK;
}

int ollama_resolve(const char *spec, char *path, size_t cap, fc_err *err) {
    if (strncmp(spec, "ollama:", 7)) return fc_err_set(err, FC_EINPUT, "%s is not an ollama:NAME[:TAG] model", spec);
    char root[4096], manifest[4096];
    uint64_t size;
    ollama_root(root, sizeof root);
    return ollama_resolve_in(root, spec + 7, manifest, path, cap, &size, err);
}

typedef struct scan {
    model_found *v;
    size_t n, cap;
    fc_err *err;
} scan;

/* path with its folder's links resolved but not the file's own: one file
 * reached through two folders (--models-dir naming a store) is one model,
 * two names linking to one blob (two HF revisions) are two. */
static bool real_path(const char *path, char *out, size_t cap) {
    char dir[4096], real[4096];
    const char *slash = strrchr(path, '/');
    if (!slash || (size_t)(slash - path) >= sizeof dir) return false;
    memcpy(dir, path, (size_t)(slash - path));
    dir[slash - path] = '\0';
    if (!realpath(dir[0] ? dir : "/", real)) return false;
    return path_join(out, cap, real, slash + 1);
}

static model_found *scan_add(scan *s, int store, const char *name, const char *spec, const char *path) {
    char real[4096];
    if (path && real_path(path, real, sizeof real))
        for (size_t i = 0; i < s->n; i++)
            if (!strcmp(s->v[i].real, real)) return NULL; /* reached through two stores */
    if (s->n == s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 32;
        model_found *nv = realloc(s->v, nc * sizeof *nv);
        if (!nv) return NULL;
        s->v = nv;
        s->cap = nc;
    }
    model_found *f = &s->v[s->n++];
    memset(f, 0, sizeof *f);
    f->store = store;
    int a = snprintf(f->name, sizeof f->name, "%s", name), b = snprintf(f->spec, sizeof f->spec, "%s", spec);
    int c = snprintf(f->path, sizeof f->path, "%s", path ? path : "");
    (void)a, (void)b, (void)c; /* a name cut short is only a shorter label; spec and path fit (same size as paths) */
    if (path && real_path(path, real, sizeof real)) memcpy(f->real, real, sizeof f->real);
    struct stat st;
    if (path && !stat(path, &st)) f->bytes = (uint64_t)st.st_size;
    return f;
}

/* "models--ORG--REPO/snapshots/REV/FILE" -> "ORG/REPO FILE"; else rel. */
static void hf_label(const char *rel, char *buf, size_t cap) {
    const char *snap = strstr(rel, "/snapshots/");
    if (strncmp(rel, "models--", 8) || !snap) {
        size_t n = strnlen(rel, cap - 1);
        memcpy(buf, rel, n);
        buf[n] = '\0';
        return;
    }
    char repo[512];
    size_t n = (size_t)(snap - rel - 8) < sizeof repo - 1 ? (size_t)(snap - rel - 8) : sizeof repo - 1;
    memcpy(repo, rel + 8, n);
    repo[n] = '\0';
    char *dd = strstr(repo, "--");
    if (dd) memmove(dd + 1, dd + 2, strlen(dd + 2) + 1), *dd = '/';
    const char *file = strchr(snap + 11, '/');
    snprintf(buf, cap, "%s %s", repo, file ? file + 1 : snap + 11);
}

static void walk(scan *s, int store, const char *root, const char *rel, int depth) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s%s%s", root, rel[0] ? "/" : "", rel);
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char sub[4096], path[4096];
        int ls = snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name);
        int lp = snprintf(path, sizeof path, "%s/%s", root, sub);
        if (ls < 0 || lp < 0 || (size_t)ls >= sizeof sub || (size_t)lp >= sizeof path) continue; /* too deep a path */
        struct stat lst, st;
        if (lstat(path, &lst)) continue;
        if (S_ISDIR(lst.st_mode)) {
            if (depth < STORE_MAX_DEPTH) walk(s, store, root, sub, depth + 1);
            continue;
        }
        size_t n = strlen(e->d_name);
        uint32_t no, count;
        if (n < 6 || strcasecmp(e->d_name + n - 5, ".gguf") || stat(path, &st) || !S_ISREG(st.st_mode)) continue;
        if (gguf_split_parse_name(path, &no, &count) && no != 1) continue;
        char label[4096];
        if (store == STORE_HF) hf_label(sub, label, sizeof label);
        else memcpy(label, sub, sizeof label);
        scan_add(s, store, label, path, path);
    }
    closedir(d);
}

static void scan_ollama(scan *s, const char *root) {
    char mdir[4096];
    if (!path_join(mdir, sizeof mdir, root, "manifests")) return;
    DIR *hosts = opendir(mdir);
    if (!hosts) return;
    struct dirent *h, *ns, *nm, *tg;
    while ((h = readdir(hosts))) {
        if (h->d_name[0] == '.') continue;
        char p1[4096];
        if (!path_join(p1, sizeof p1, mdir, h->d_name)) continue;
        DIR *d1 = opendir(p1);
        while (d1 && (ns = readdir(d1))) {
            if (ns->d_name[0] == '.') continue;
            char p2[4096];
            if (!path_join(p2, sizeof p2, p1, ns->d_name)) continue;
            DIR *d2 = opendir(p2);
            while (d2 && (nm = readdir(d2))) {
                if (nm->d_name[0] == '.') continue;
                char p3[4096];
                if (!path_join(p3, sizeof p3, p2, nm->d_name)) continue;
                DIR *d3 = opendir(p3);
                while (d3 && (tg = readdir(d3))) {
                    if (tg->d_name[0] == '.') continue;
                    char ref[1024], spec[1100], manifest[4096], blob[4096];
                    bool reg = !strcmp(h->d_name, OLLAMA_REGISTRY), lib = reg && !strcmp(ns->d_name, OLLAMA_LIBRARY);
                    if (lib) snprintf(ref, sizeof ref, "%s:%s", nm->d_name, tg->d_name);
                    else if (reg) snprintf(ref, sizeof ref, "%s/%s:%s", ns->d_name, nm->d_name, tg->d_name);
                    else snprintf(ref, sizeof ref, "%s/%s/%s:%s", h->d_name, ns->d_name, nm->d_name, tg->d_name);
                    snprintf(spec, sizeof spec, "ollama:%s", ref);
                    fc_err e = {0};
                    uint64_t size;
                    int rc = ollama_resolve_in(root, ref, manifest, blob, sizeof blob, &size, &e);
                    model_found *f = scan_add(s, STORE_OLLAMA, ref, spec, rc ? NULL : blob);
                    if (f && rc) snprintf(f->error, sizeof f->error, "%s", e.msg);
                }
                if (d3) closedir(d3);
            }
            if (d2) closedir(d2);
        }
        if (d1) closedir(d1);
    }
    closedir(hosts);
}

int model_stores_scan(const char *models_dir, model_found **out, size_t *n, fc_err *err) {
    scan s = {.err = err};
    const char *home = getenv("HOME") ? getenv("HOME") : "";
    const char *xdg = getenv("XDG_CACHE_HOME");
    char cache[4096], p[4096];
    if (!(xdg && *xdg ? path_join(cache, sizeof cache, xdg, ".") : path_join(cache, sizeof cache, home, ".cache")))
        return fc_err_set(err, FC_EINPUT, "$HOME or $XDG_CACHE_HOME is too long a path");
    ollama_root(p, sizeof p);
    scan_ollama(&s, p);
    if (!getenv("OLLAMA_MODELS")) scan_ollama(&s, "/usr/share/ollama/.ollama/models");
    if (path_join(p, sizeof p, home, ".lmstudio/models")) walk(&s, STORE_LMSTUDIO, p, "", 0);
    if (path_join(p, sizeof p, cache, "lm-studio/models")) walk(&s, STORE_LMSTUDIO, p, "", 0);
    const char *hub = getenv("HF_HUB_CACHE"), *hf = getenv("HF_HOME");
    if (hub && *hub ? path_join(p, sizeof p, hub, ".")
        : hf && *hf ? path_join(p, sizeof p, hf, "hub") : path_join(p, sizeof p, cache, "huggingface/hub"))
        walk(&s, STORE_HF, p, "", 0);
    const char *lc = getenv("LLAMA_CACHE");
    if (lc && *lc ? path_join(p, sizeof p, lc, ".") : path_join(p, sizeof p, cache, "llama.cpp"))
        walk(&s, STORE_LLAMACPP, p, "", 0);
    if (models_dir) {
        struct stat st;
        if (stat(models_dir, &st) || !S_ISDIR(st.st_mode)) {
            free(s.v);
            return fc_err_set(err, FC_EINPUT, "--models-dir %s is not a directory", models_dir);
        }
        walk(&s, STORE_DIR, models_dir, "", 0);
    }
    *out = s.v;
    *n = s.n;
    return FC_OK;
}
