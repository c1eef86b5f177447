/* The commands a plan prints: the GGUF file to load and the llama-server /
 * ollama settings of a placement. One builder, so `plan`, the main job and
 * the HTML report print the same line for the same plan. */
#include "planner/planner.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define GGUF_EXT ".gguf"
#define GGUF_EXT_LEN 5

static bool is_gguf_name(const char *s) {
    size_t n = strlen(s);
    return n > GGUF_EXT_LEN && !strcasecmp(s + n - GGUF_EXT_LEN, GGUF_EXT);
}

/* Finds `word` in s as a whole token (not inside a longer name), case-insensitive. */
static const char *find_token(const char *s, const char *word) {
    size_t w = strlen(word);
    for (const char *p = s; (p = strcasestr(p, word)) != NULL; p++) {
        bool left = p == s || !isalnum((unsigned char)p[-1]);
        bool right = !isalnum((unsigned char)p[w]) && p[w] != '_';
        if (left && right) return p;
    }
    return NULL;
}

/* A name fit for a file: the model's own name with path separators and
 * blanks made dashes ("Mistral 7B/v0.3" -> "Mistral-7B-v0.3"). */
static void file_stem(const char *name, char *buf, size_t cap) {
    size_t n = 0;
    for (const char *p = name; *p && n + 1 < cap; p++) buf[n++] = (*p == '/' || isspace((unsigned char)*p)) ? '-' : *p;
    buf[n] = '\0';
}

/* What a model is called when it is not a GGUF file yet: its general.name,
 * else the catalog name, else the folder holding its config.json. */
static void model_stem(const model_desc *m, const char *spec, char *buf, size_t cap) {
    if (m->hp.name[0]) {
        file_stem(m->hp.name, buf, cap);
        return;
    }
    if (!strncmp(m->source, "catalog:", 8)) {
        file_stem(m->source + 8, buf, cap);
        return;
    }
    char tmp[PLAN_FILE_MAX];
    snprintf(tmp, sizeof tmp, "%s", spec);
    size_t n = strlen(tmp);
    while (n > 1 && tmp[n - 1] == '/') tmp[--n] = '\0';
    const char *base = strrchr(tmp, '/');
    if (base && !strcasecmp(base + 1, "config.json")) {
        tmp[base - tmp] = '\0';
        base = strrchr(tmp, '/');
    }
    file_stem(base ? base + 1 : tmp, buf, cap);
    if (!buf[0] || !strcasecmp(buf, "config.json")) snprintf(buf, cap, "%s", m->hp.arch);
}

void plan_model_file(const model_desc *m, const char *spec, const char *quant, char *buf, size_t cap, bool *exists) {
    const model_ftype_info *own = model_ftype_by_id(m->hp.file_type);
    /* ollama:NAME:TAG is a manifest: llama.cpp is given the blob it names. */
    if (spec && !strncmp(spec, "ollama:", 7) && m->file[0] && m->has_offsets && (!own || !strcasecmp(own->name, quant))) {
        *exists = true;
        snprintf(buf, cap, "%s", m->file);
        return;
    }
    bool gguf = spec && is_gguf_name(spec) && strncmp(m->source, "catalog:", 8);
    /* A GGUF whose own file type is unknown is still the file to run as it is. */
    *exists = gguf && !strcmp(m->source, spec) && (!own || !strcasecmp(own->name, quant));
    if (*exists) {
        snprintf(buf, cap, "%s", spec);
        return;
    }
    if (gguf) {
        /* Same folder and name, the type's token swapped: what
         * llama-quantize users and Hugging Face repositories call it. */
        size_t n = strlen(spec) - GGUF_EXT_LEN;
        const char *base = strrchr(spec, '/');
        base = base ? base + 1 : spec;
        const char *tok = own ? find_token(base, own->name) : NULL;
        if (tok && (size_t)(tok - spec) < n)
            snprintf(buf, cap, "%.*s%s%.*s", (int)(tok - spec), spec, quant,
                     (int)(n + GGUF_EXT_LEN - (size_t)(tok - spec) - strlen(own->name)), tok + strlen(own->name));
        else
            snprintf(buf, cap, "%.*s-%s" GGUF_EXT, (int)n, spec, quant);
        return;
    }
    char stem[256];
    model_stem(m, spec ? spec : "", stem, sizeof stem);
    snprintf(buf, cap, "%s-%s" GGUF_EXT, stem, quant);
}

/* POSIX shell quoting: bare when every byte is harmless, else '…' with each
 * ' written as '\''. Returns what was written (truncated strings are cut
 * at cap like snprintf). */
static size_t shell_quote(char *out, size_t cap, const char *s) {
    bool plain = *s != '\0';
    for (const char *p = s; *p && plain; p++)
        plain = isalnum((unsigned char)*p) || strchr("-_./:+@%,=", *p);
    if (plain) return (size_t)snprintf(out, cap, "%s", s);
    size_t n = 0;
#define PUT(c) do { if (n + 1 < cap) out[n] = (c); n++; } while (0)
    PUT('\'');
    for (const char *p = s; *p; p++) {
        if (*p == '\'') {
            PUT('\'');
            PUT('\\');
            PUT('\'');
        }
        PUT(*p);
    }
    PUT('\'');
#undef PUT
    if (cap) out[n < cap ? n : cap - 1] = '\0';
    return n;
}

#define APPEND(...)                                                                                                    \
    do {                                                                                                               \
        if (n < cap) n += (size_t)snprintf(buf + n, cap - n, __VA_ARGS__);                                            \
    } while (0)

void plan_command_line(const plan_params *p, const uint32_t *gpu_layers, int n_gpu, const plan_device *host, int numa,
                       const char *file, char *buf, size_t cap, char *ollama, size_t ollama_cap) {
    int ngl = p->n_gpu_layers == PLAN_NGL_ALL ? PLAN_NGL_ALL_FLAG : p->n_gpu_layers;
    size_t n = 0;
    /* One NUMA node: bound by numactl, with that node's cores as threads
     * (llama.cpp's default -t counts every core of the machine). */
    bool pin = numa == PLAN_NUMA_PIN && host;
    if (pin && n < cap) n += plan_numa_bind(host, buf + n, cap - n);
    /* A model by URL: llama.cpp downloads it itself (-mu, --model-url). */
    APPEND("llama-server %s ", http_is_url(file) ? "-mu" : "-m");
    if (n < cap) n += shell_quote(buf + n, cap - n, file);
    APPEND(" -ngl %d -c %u -ctk %s -ctv %s", ngl, p->n_ctx, ggml_type_get(p->type_k)->name,
           ggml_type_get(p->type_v)->name);
    /* -fa took no value, and flash attention was off without it, before PR #15434 */
    if (plan_build_fa_auto(p->llama_build)) APPEND(" -fa %s", p->flash_attn ? "on" : "off");
    else if (p->flash_attn) APPEND(" -fa");
    if (p->n_ubatch != PLAN_DEFAULT_UBATCH) APPEND(" -ub %u", p->n_ubatch);
    if (p->n_batch != PLAN_DEFAULT_BATCH && p->n_batch != p->n_ubatch) APPEND(" -b %u", p->n_batch);
    if (p->n_parallel > 1) APPEND(" -np %u", p->n_parallel);
    if (p->exps_on_host) APPEND(" -ot \"exps=CPU\"");
    else if (p->n_cpu_moe) APPEND(" --n-cpu-moe %u", p->n_cpu_moe);
    /* the loading flags the plan's memory was computed with */
    if (p->no_mmap) APPEND(" --no-mmap");
    if (p->no_repack) APPEND(" -nr");
    if (p->mlock) APPEND(" --mlock");
    if (pin) APPEND(" -t %d", host->numa_cores);
    else if (numa == PLAN_NUMA_SPREAD) APPEND(" --numa distribute");
    /* what loads next to the model (llama-server's own flags) */
    const plan_extras *x = p->extras;
    if (x && x->mmproj) {
        APPEND(" --mmproj ");
        if (n < cap) n += shell_quote(buf + n, cap - n, x->mmproj->path);
        if (x->mmproj_on_cpu) APPEND(" --no-mmproj-offload");
    }
    for (int i = 0; x && i < x->n_lora; i++) {
        APPEND(" --lora ");
        if (n < cap) n += shell_quote(buf + n, cap - n, x->lora[i]->path);
    }
    if (x && x->draft) {
        /* since llama.cpp PR #23988 a draft model alone no longer turns
         * speculative decoding on: the type must be named */
        APPEND(" --spec-type draft-simple -md ");
        if (n < cap) n += shell_quote(buf + n, cap - n, x->draft_file ? x->draft_file : x->draft->source);
        APPEND(" -ngld %d", x->draft_ngl == PLAN_NGL_ALL ? PLAN_NGL_ALL_FLAG : x->draft_ngl);
    }
    /* -ts: the user's proportions when given, else the layers each GPU
     * got, when more than one GPU takes part. */
    int used = 0;
    for (int g = 0; g < n_gpu; g++) used += gpu_layers && gpu_layers[g] > 0;
    if (p->n_tensor_split) {
        APPEND(" -ts ");
        for (uint32_t g = 0; g < p->n_tensor_split; g++) APPEND("%s%g", g ? "," : "", (double)p->tensor_split[g]);
    } else if (used > 1) {
        APPEND(" -ts ");
        for (int g = 0; g < n_gpu; g++) APPEND("%s%u", g ? "," : "", gpu_layers[g]);
    }
    /* ollama counts layers the same way and has no expert override. */
    snprintf(ollama, ollama_cap, "num_gpu %d, num_ctx %u%s%s", ngl, p->n_ctx,
             p->n_parallel > 1 ? " (parallel requests: OLLAMA_NUM_PARALLEL)" : "",
             p->exps_on_host || p->n_cpu_moe ? " (ollama cannot keep only the experts in RAM: use llama-server)" : "");
}
