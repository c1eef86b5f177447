/* gen/: random-weight GGUF files with a model's exact shapes (`fitcheck gen`).
 *
 * The file carries the tensor table (names, shapes, types) of a model
 * description, the hyperparameter keys llama.cpp reads for the architecture
 * and a synthetic tokenizer of the model's vocabulary size, so llama.cpp and
 * fitcheck's engine load it like the real model and its speed can be
 * measured without downloading the weights. It is written through model/'s
 * GGUF writer; the synthetic tokenizer uses the engine's byte-level maps.
 *
 * Typical use:
 *   gen_opts o = {.seed = 1};
 *   gen_write(&desc, "model.gguf", &o, &err);
 */
#ifndef FC_GEN_H
#define FC_GEN_H

#include "common/fc.h"
#include "model/model.h"

typedef struct gen_opts {
    uint64_t seed;
    const char *name; /* general.name */
    /* Called before each tensor with its name and the fraction written so
     * far (rep_progress fits); may be NULL. */
    void (*progress)(const char *step, double frac);
} gen_opts;

/* Writes a GGUF with d's exact tensor table (names, shapes, types) filled
 * with random but valid blocks, the hyperparameters llama.cpp needs and a
 * synthetic tokenizer of d->hp.n_vocab tokens. Atomic: on failure or Ctrl-C
 * no file is left behind. Refuses (FC_ERUNTIME) when the disk lacks room. */
int gen_write(const model_desc *d, const char *path, const gen_opts *o, fc_err *err);
/* Exact size of the file gen_write would produce. */
int gen_file_size(const model_desc *d, const gen_opts *o, uint64_t *bytes, fc_err *err);


/* The files that load next to a model (gen/gen_extras.c), atomic like
 * gen_write: a vision projector at a published one's shapes (presets
 * GEN_MMPROJ_SMOLVLM, SmolVLM-256M-Instruct's mmproj, and GEN_MMPROJ_GEMMA3,
 * gemma-3-4b-it's; f16), and a LoRA
 * adapter of rank `rank` on base's attention and MLP matrices. */
#define GEN_MMPROJ_SMOLVLM "smolvlm-256m"
#define GEN_MMPROJ_GEMMA3 "gemma3-4b"
int gen_mmproj_write(const char *preset, const char *path, uint64_t seed, fc_err *err);
int gen_lora_write(const model_desc *base, uint32_t rank, const char *path, uint64_t seed, fc_err *err);

#endif
