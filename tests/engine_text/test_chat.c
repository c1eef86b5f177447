/* Chat prompts: each template family formats one user turn as its Jinja
 * template would. Expected strings were rendered with jinja2 from the
 * templates (messages=[{"role": "user", ...}], add_generation_prompt=True). */
#include "engine/engine.h"
#include "tests/check.h"

#include <stdlib.h>
#include <string.h>

static void check_format(const char *what, const char *tmpl, const char *arch, const char *user, const char *want) {
    char *got = NULL;
    fc_err err = {0};
    CHECK(eng_chat_format(tmpl, arch, user, &got, &err) == FC_OK);
    CHECK_MSG(got && !strcmp(got, want), "%s: got \"%s\"", what, got ? got : "(null)");
    free(got);
}

/* Qwen2.5's template writes its default system prompt with Jinja "\n" escapes. */
static const char qwen25[] =
    "{%- if messages[0]['role'] == 'system' %}{{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}"
    "{%- else %}{{- '<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\\n' }}"
    "{%- endif %}{%- for message in messages %}{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}"
    "{%- endfor %}{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}";
/* Qwen3 builds the system turn only from a given message: no default. */
static const char qwen3[] =
    "{%- if messages[0].role == 'system' %}{{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}{%- endif %}"
    "{%- for message in messages %}{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}";
static const char llama3[] =
    "{% set loop_messages = messages %}{% for message in loop_messages %}{% set content = '<|start_header_id|>' + "
    "message['role'] + '<|end_header_id|>\n\n'+ message['content'] | trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}"
    "{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}{% if add_generation_prompt %}"
    "{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}";
static const char llama2[] = "{% for message in messages %}{% if message['role'] == 'user' %}{{ bos_token + '[INST] ' + "
                             "message['content'] + ' [/INST]' }}{% endif %}{% endfor %}";

static void check_real(void) {
    const char *dir = getenv("FITCHECK_MODELS");
    if (!dir) return;
    static const struct { const char *file, *want; } models[] = {
        {"SmolLM2-135M-Instruct.Q4_1.gguf",
         "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n"
         "<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n"},
        /* The Gemma 3 file has no template: its architecture's format (HF's chat_template.json). */
        {"gemma-3-270m-q4_k_m.gguf", "<start_of_turn>user\nWhat is 2+2?<end_of_turn>\n<start_of_turn>model\n"},
    };
    for (size_t i = 0; i < FC_ARRAY_LEN(models); i++) {
        char path[4096], arch[64] = "";
        snprintf(path, sizeof path, "%s/%s", dir, models[i].file);
        gguf_file *f;
        fc_err err = {0};
        if (gguf_open(&f, path, &err)) continue;
        gguf_get_str(f, "general.architecture", arch, sizeof arch);
        const gguf_kv *kv = gguf_find(f, "tokenizer.chat_template");
        char *tmpl = NULL;
        if (kv && kv->v.type == GGUF_STRING) tmpl = strndup(kv->v.s.p, kv->v.s.len);
        check_format(models[i].file, tmpl, arch, "What is 2+2?", models[i].want);
        free(tmpl);
        gguf_close(f);
    }
}

int main(void) {
    check_format("qwen2.5", qwen25, "qwen2", "Hi",
                 "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n"
                 "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
    check_format("qwen3", qwen3, "qwen3", "Hi", "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
    check_format("llama3", llama3, "llama", "Hi",
                 "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n");
    check_format("llama2", llama2, "llama", "Hi", "[INST] Hi [/INST]");
    check_format("no template", NULL, "llama", "Hi", "Hi");
    check_format("gemma by architecture", "", "gemma3", "Hi", "<start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n");
    CHECK(eng_chat_detect(qwen25, NULL) == ENG_CHAT_CHATML && !strcmp(eng_chat_name(ENG_CHAT_CHATML), "chatml"));
    CHECK(eng_chat_detect("{{ messages }}", "qwen2") == ENG_CHAT_NONE);
    check_real();
    return check_done("chat");
}
