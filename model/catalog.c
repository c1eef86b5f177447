/* The built-in model catalog and model_load, the one way in for a model.
 *
 * The catalog is data: config.json-style files in data/models/ (the Hugging
 * Face keys, plus a "_fitcheck" object with the catalog name, the source the
 * numbers were read from and its confidence), embedded into the binary by
 * scripts/embed.py so `fitcheck` needs no data path at run time. */
#include "model/model.h"

#include <jansson.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

extern const fc_embed_file model_catalog_files[];
extern const size_t model_catalog_files_count;

#define GGUF_MAGIC "GGUF"

size_t model_catalog_count(void) { return model_catalog_files_count; }

static void info_str(const json_t *meta, const char *key, char *buf, size_t cap) {
    const char *s = json_string_value(json_object_get(meta, key));
    snprintf(buf, cap, "%s", s ? s : "");
}

static uint64_t info_u64(const json_t *meta, const char *key) {
    const json_t *v = json_object_get(meta, key);
    return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

int model_catalog_get(size_t i, model_catalog_info *info, model_hparams *hp, fc_err *err) {
    if (i >= model_catalog_files_count) return fc_err_set(err, FC_EINPUT, "catalog entry %zu does not exist", i);
    const fc_embed_file *f = &model_catalog_files[i];
    char where[128];
    snprintf(where, sizeof where, "catalog %s", f->name);
    json_error_t jerr;
    json_t *root = json_loadb((const char *)f->data, f->len, 0, &jerr);
    if (!root) return fc_err_set(err, FC_ERUNTIME, "%s: line %d: %s", where, jerr.line, jerr.text);
    const json_t *meta = json_object_get(root, "_fitcheck");
    if (info) {
        memset(info, 0, sizeof *info);
        info_str(meta, "name", info->name, sizeof info->name);
        info_str(meta, "display", info->display, sizeof info->display);
        info_str(meta, "hf_repo", info->hf_repo, sizeof info->hf_repo);
        info_str(meta, "confidence", info->confidence, sizeof info->confidence);
        info_str(meta, "source", info->source, sizeof info->source);
        info->params_reference = info_u64(meta, "params_reference");
        info->active_params_reference = info_u64(meta, "active_params_reference");
    }
    json_decref(root);
    if (!hp) return FC_OK;
    /* A catalog file that fails to parse is a build defect, not user input. */
    int rc = model_hparams_from_config_json(hp, (const char *)f->data, f->len, where, err);
    return rc ? FC_ERUNTIME : FC_OK;
}

/* Catalog file names are "<name>.json". */
static bool catalog_name_is(const fc_embed_file *f, const char *name) {
    size_t n = strlen(name);
    return !strncasecmp(f->name, name, n) && !strcmp(f->name + n, ".json");
}

int model_catalog_find(const char *name, model_catalog_info *info, model_hparams *hp, fc_err *err) {
    for (size_t i = 0; i < model_catalog_files_count; i++)
        if (catalog_name_is(&model_catalog_files[i], name)) return model_catalog_get(i, info, hp, err);
    /* Suggest entries sharing the first word ("qwen3" for "qwen3-9b"). */
    char hint[256] = "";
    size_t stem = strcspn(name, "-.");
    size_t used = 0;
    for (size_t i = 0; i < model_catalog_files_count && stem; i++) {
        const char *fn = model_catalog_files[i].name;
        if (strncasecmp(fn, name, stem) || used + 40 > sizeof hint) continue;
        used += (size_t)snprintf(hint + used, sizeof hint - used, "%s%.*s", used ? ", " : "",
                                 (int)(strlen(fn) - strlen(".json")), fn);
    }
    return fc_err_set(err, FC_EINPUT, "'%s' is not a GGUF file, a config.json or a catalog model%s%s%s", name,
                      hint[0] ? " (did you mean: " : "; 'fitcheck models' lists the catalog", hint,
                      hint[0] ? ")" : "");
}

static bool file_is_gguf(const char *path) {
    fc_err ignored = {0};
    int fd = fc_open_regular(path, &ignored);
    if (fd < 0) return false;
    char magic[4] = {0};
    bool yes = read(fd, magic, 4) == 4 && !memcmp(magic, GGUF_MAGIC, 4);
    close(fd);
    return yes;
}

static bool named_gguf(const char *path) {
    size_t n = strlen(path);
    return n > 5 && !strcasecmp(path + n - 5, ".gguf");
}

static int load_gguf(model_desc *d, const char *path, const char *quant, fc_err *err) {
    gguf_file *f;
    int rc = gguf_open_model(&f, path, err);
    if (rc) return rc;
    rc = model_desc_from_gguf(d, f, err);
    gguf_close(f);
    if (rc || !quant) return rc;
    /* "What if this file were Q8_0": re-emulate from its hyperparameters. */
    model_hparams hp = d->hp;
    char src[sizeof d->source];
    snprintf(src, sizeof src, "%s", d->source);
    model_desc_free(d);
    rc = model_desc_synthesize(d, &hp, quant, err);
    if (!rc) {
        snprintf(d->file, sizeof d->file, "%s", src);
        /* Truncation of a very long path only shortens the label. */
        int n = snprintf(d->source, sizeof d->source, "%.4000s (as %.32s)", src, quant);
        (void)n;
    }
    return rc;
}

static const char *load_quant(const model_hparams *hp, const char *quant) {
    if (quant) return quant;
    return model_native_quant(hp) ? model_native_quant(hp) : MODEL_DEFAULT_QUANT;
}

int model_load(model_desc *d, const char *spec, const char *quant, fc_err *err) {
    memset(d, 0, sizeof *d);
    if (!spec || !*spec) return fc_err_set(err, FC_EINPUT, "no model given");
    if (quant && !model_ftype_find(quant)) return fc_err_set(err, FC_EINPUT, "unknown quantization '%s'", quant);
    struct stat st;
    model_hparams hp;
    int rc;
    if (http_is_url(spec)) return load_gguf(d, spec, quant, err);
    if (!strncmp(spec, "ollama:", 7)) {
        char blob[4096];
        if ((rc = ollama_resolve(spec, blob, sizeof blob, err)) || (rc = load_gguf(d, blob, quant, err))) return rc;
        snprintf(d->source, sizeof d->source, "%s", spec);
        return FC_OK;
    }
    if (!stat(spec, &st)) {
        if (S_ISREG(st.st_mode) && file_is_gguf(spec)) return load_gguf(d, spec, quant, err);
        /* A *.gguf that is not one is a bad model file, not a config.json with a syntax error. */
        if (named_gguf(spec)) return load_gguf(d, spec, quant, err);
        if ((rc = model_hparams_from_config_path(&hp, spec, err))) return rc;
        if ((rc = model_desc_synthesize(d, &hp, load_quant(&hp, quant), err))) return rc;
        snprintf(d->source, sizeof d->source, "%s", spec);
        return FC_OK;
    }
    model_catalog_info info;
    if ((rc = model_catalog_find(spec, &info, &hp, err))) return rc;
    if ((rc = model_desc_synthesize(d, &hp, load_quant(&hp, quant), err))) return rc;
    snprintf(d->source, sizeof d->source, "catalog:%s", info.name);
    return FC_OK;
}
