/* Chat prompts without a Jinja engine: the template family is recognised by
 * a marker it must contain, and one user turn plus the generation prompt is
 * assembled from that family's fixed strings (what the templates render for
 * a single user message). */
#include "engine/engine.h"

#include <stdlib.h>
#include <string.h>

typedef struct chat_family {
    int kind;
    const char *name;
    const char *marker;         /* text the family's templates always contain */
    const char *sys_open, *sys_close; /* NULL: no separate system turn */
    const char *user_open, *user_close, *assistant;
} chat_family;

static const chat_family families[] = {
    {ENG_CHAT_CHATML, "chatml", "<|im_start|>", "<|im_start|>system\n", "<|im_end|>\n", "<|im_start|>user\n",
     "<|im_end|>\n", "<|im_start|>assistant\n"},
    {ENG_CHAT_GEMMA, "gemma", "<start_of_turn>", NULL, NULL, "<start_of_turn>user\n", "<end_of_turn>\n",
     "<start_of_turn>model\n"},
    {ENG_CHAT_LLAMA3, "llama3", "<|start_header_id|>", "<|start_header_id|>system<|end_header_id|>\n\n", "<|eot_id|>",
     "<|start_header_id|>user<|end_header_id|>\n\n", "<|eot_id|>", "<|start_header_id|>assistant<|end_header_id|>\n\n"},
    {ENG_CHAT_LLAMA2, "llama2", "[INST]", NULL, NULL, "[INST] ", " [/INST]", ""},
};

/* Files without tokenizer.chat_template (the Gemma 3 GGUFs) get their
 * architecture's format. */
static const struct { const char *arch_prefix; int kind; } arch_defaults[] = {
    {"gemma", ENG_CHAT_GEMMA},
};

static const chat_family *family_of(int kind) {
    for (size_t i = 0; i < FC_ARRAY_LEN(families); i++)
        if (families[i].kind == kind) return &families[i];
    return NULL;
}

int eng_chat_detect(const char *tmpl, const char *arch) {
    for (size_t i = 0; tmpl && i < FC_ARRAY_LEN(families); i++)
        if (strstr(tmpl, families[i].marker)) return families[i].kind;
    for (size_t i = 0; arch && (!tmpl || !*tmpl) && i < FC_ARRAY_LEN(arch_defaults); i++)
        if (!strncmp(arch, arch_defaults[i].arch_prefix, strlen(arch_defaults[i].arch_prefix)))
            return arch_defaults[i].kind;
    return ENG_CHAT_NONE;
}

const char *eng_chat_name(int kind) {
    const chat_family *f = family_of(kind);
    return f ? f->name : "none";
}

/* Where `text` occurs in the template, spelled either with real newlines or
 * with Jinja "\n" escapes; *skip is the length found. */
static const char *find_spelled(const char *tmpl, const char *text, size_t *skip) {
    const char *p = strstr(tmpl, text);
    *skip = strlen(text);
    if (p) return p;
    char esc[2 * 64];
    size_t n = 0;
    for (const char *q = text; *q && n + 3 < sizeof esc; q++) {
        if (*q == '\n') esc[n++] = '\\', esc[n++] = 'n';
        else esc[n++] = *q;
    }
    esc[n] = 0;
    *skip = n;
    return strstr(tmpl, esc);
}

/* The default system prompt some templates write when the conversation has
 * none (SmolLM2, Qwen2.5): the literal text between the system opener and
 * its closer, "\n" escapes decoded. Templates that build the system turn
 * from variables (a quote or brace before the closer) have none. */
static void default_system(const char *tmpl, const chat_family *f, char *out, size_t cap) {
    out[0] = 0;
    if (!tmpl || !f->sys_open) return;
    size_t skip, close_len = strcspn(f->sys_close, "\n");
    for (const char *p = find_spelled(tmpl, f->sys_open, &skip); p; p = find_spelled(p + skip, f->sys_open, &skip)) {
        const char *q = p + skip;
        size_t n = 0;
        for (; *q && strncmp(q, f->sys_close, close_len) && n + 1 < cap; q++) {
            if (*q == '\'' || *q == '"' || *q == '{' || *q == '}') break;
            bool esc = q[0] == '\\' && q[1] == 'n';
            out[n++] = esc ? '\n' : *q;
            q += esc;
        }
        if (n > 0 && !strncmp(q, f->sys_close, close_len)) {
            out[n] = 0;
            return;
        }
    }
    out[0] = 0;
}

int eng_chat_format(const char *tmpl, const char *arch, const char *user, char **out, fc_err *err) {
    *out = NULL;
    const chat_family *f = family_of(eng_chat_detect(tmpl, arch));
    char sys[ENG_CHAT_SYSTEM_MAX];
    sys[0] = 0;
    if (f) default_system(tmpl, f, sys, sizeof sys);
    const char *parts[8] = {0};
    size_t np = 0;
    if (sys[0]) parts[np++] = f->sys_open, parts[np++] = sys, parts[np++] = f->sys_close;
    if (f) parts[np++] = f->user_open;
    parts[np++] = user;
    if (f) parts[np++] = f->user_close, parts[np++] = f->assistant;
    size_t len = 1;
    for (size_t i = 0; i < np; i++) len += strlen(parts[i]);
    char *s = fc_malloc(len, err);
    if (!s) return FC_ERUNTIME;
    size_t at = 0;
    for (size_t i = 0; i < np; i++) {
        size_t k = strlen(parts[i]);
        memcpy(s + at, parts[i], k);
        at += k;
    }
    s[at] = 0;
    *out = s;
    return FC_OK;
}
