/* The memory model against hand-computed cases and llama.cpp's printed
 * buffer sizes. Each expected number is worked out in the comment above it,
 * independently of the code under test. */
#include "planner/planner.h"
#include "tests/check.h"

#include <string.h>

#define MIB (1024ull * 1024)

static void load(const char *name, const char *quant, model_desc *d) {
    fc_err err = {0};
    int rc = model_load(d, name, quant, &err);
    CHECK_MSG(rc == FC_OK, "%s: %s", name, err.msg);
    if (rc) exit(1);
}

static void plan(const model_desc *d, const char *hw_spec, const plan_params *p, plan_memory *m) {
    plan_hw hw;
    fc_err err = {0};
    CHECK_MSG(plan_hw_from_catalog(&hw, hw_spec, &err) == FC_OK, "%s", err.msg);
    CHECK_MSG(plan_memory_compute(m, d, &hw, p, &err) == FC_OK, "%s", err.msg);
}

/* Llama-3.1-8B: 32 layers x 8 KV heads x 128 dims, K and V.
 * f16: 32 * 4096 cells * 1024 elems * 2 (K,V) * 2 bytes = 512 MiB;
 * q8_0: 34 bytes per 32 elems -> 512 MiB * 34/64 = 272 MiB; q4_0: 18/64 -> 144 MiB. */
static void check_kv_llama(void) {
    model_desc d;
    load("llama-3.1-8b", NULL, &d);
    static const struct { const char *type; uint64_t bytes; } cases[] = {
        {"f16", 512 * MIB}, {"q8_0", 272 * MIB}, {"q4_0", 144 * MIB},
    };
    for (size_t i = 0; i < FC_ARRAY_LEN(cases); i++) {
        plan_params p;
        plan_params_default(&p);
        p.type_k = p.type_v = (uint32_t)ggml_type_from_name(cases[i].type);
        plan_memory m;
        plan(&d, "rtx-4090", &p, &m);
        CHECK_MSG(m.kv_bytes == cases[i].bytes, "KV %s: %llu", cases[i].type, (unsigned long long)m.kv_bytes);
        CHECK(m.gpu[0].kv == m.kv_bytes); /* every layer's cache lives with the layer on the GPU */
    }
    /* Padding: 4000 cells -> 4096 with flash attention (pad 256), 4000 without (pad 32 divides it). */
    plan_params p;
    plan_params_default(&p);
    p.n_ctx = 4000;
    CHECK(plan_kv_cells(&d.hp, &p, false) == 4096);
    p.flash_attn = false;
    CHECK(plan_kv_cells(&d.hp, &p, false) == 4000);
    model_desc_free(&d);
}

/* Gemma-3-27B: 62 layers, every 6th global, so 52 sliding (window 1024) and
 * 10 global; 16 KV heads x 128 = 2048 elems, f16 K+V = 8192 bytes per cell.
 * ctx 32768 with FA: sliding layers hold pad256(1024 + 512) = 1536 cells.
 * 10 * 32768 * 8192 + 52 * 1536 * 8192 = 2684354560 + 654311424. */
static void check_kv_gemma3_swa(void) {
    model_desc d;
    load("gemma-3-27b", NULL, &d);
    plan_params p;
    plan_params_default(&p);
    p.n_ctx = 32768;
    plan_memory m;
    plan(&d, "rtx-4090", &p, &m);
    CHECK(m.kv_cells == 32768 && m.kv_cells_swa == 1536);
    CHECK_MSG(m.kv_bytes == 2684354560ull + 654311424ull, "%llu", (unsigned long long)m.kv_bytes);
    model_desc_free(&d);
}

/* DeepSeek-V3 MLA: one latent row of kv_lora_rank 512 + rope 64 = 576 elems
 * per layer and token, no separate V: 61 * 4096 * 576 * 2 bytes. */
static void check_kv_mla(void) {
    model_desc d;
    load("deepseek-v3", NULL, &d);
    plan_params p;
    plan_params_default(&p);
    plan_memory m;
    plan(&d, "h200-sxm", &p, &m);
    CHECK_MSG(m.kv_bytes == 61ull * 4096 * 576 * 2, "%llu", (unsigned long long)m.kv_bytes);
    model_desc_free(&d);
}

/* Qwen3-30B-A3B: all 128 experts are resident, whatever 8 are active; the
 * parameter count matches the 30.53 B of the config (30532122624). */
static void check_moe_full_weights(void) {
    model_desc d;
    load("qwen3-30b-a3b", NULL, &d);
    CHECK_NEAR((double)d.n_params, 30532122624.0, 30532122624.0 * 0.001);
    plan_params p;
    plan_params_default(&p);
    plan_memory m;
    plan(&d, "h100-sxm", &p, &m);
    CHECK(m.gpu[0].weights + m.host.weights == d.weight_bytes);
    CHECK(m.gpu[0].weights > 16ull * 1024 * MIB); /* 17+ GiB at Q4_K_M, not 3B-worth */
    model_desc_free(&d);
}

/* Compute buffers. Llama-2-7B (32 heads, n_embd 4096), ubatch 512, no flash
 * attention: llama.cpp prints 164 MiB at ctx 2048 and 2144 MiB at 32768
 * (KQ f32 n_kv*512*32*4 + mask n_kv*512*4 + 32 MiB of activations).
 * Llama-3.1-8B with flash attention, ctx 4096, every token's logits reserved
 * (llama-bench, and every tool before llama.cpp PR #23861): the logits phase
 * dominates, 128256 * 512 * 4 + 4096 * 512 * 4 = 258.5 MiB (llama.cpp: 258.50
 * MiB). llama-server and llama-cli of today reserve one logits row per
 * sequence: the FFN phase dominates, 512 * 4 * (3 * 14336 + 4 * 4096) + the
 * f16 mask 4096 * 512 * 2 = 120 MiB (llama-cli, CPU, build 0c1e570: 120.01). */
static void check_compute(void) {
    model_desc d;
    load("llama-2-7b", NULL, &d);
    plan_params p;
    plan_params_default(&p);
    p.flash_attn = false;
    plan_memory m;
    p.n_ctx = 2048;
    plan(&d, "a100-80gb-sxm", &p, &m);
    CHECK_MSG(m.gpu[0].compute == 164 * MIB, "%llu", (unsigned long long)m.gpu[0].compute);
    p.n_ctx = 32768;
    plan(&d, "a100-80gb-sxm", &p, &m);
    CHECK_MSG(m.gpu[0].compute == 2144 * MIB, "%llu", (unsigned long long)m.gpu[0].compute);
    model_desc_free(&d);
    /* Llama-3-8B shapes (llama-3.1-8b has the same), no FA, ctx 8192: llama.cpp prints
     * CUDA0 560.00 MiB (KQ 8192*512*32*4 = 512 + mask 16 + 4 rows of 4096*512*4 = 32) and
     * CUDA_Host 24.01 MiB (input embeddings 8 + f32 mask 16). */
    load("llama-3.1-8b", NULL, &d);
    p.n_ctx = 8192;
    plan(&d, "rtx-4090", &p, &m);
    CHECK_MSG(m.gpu[0].compute == 560 * MIB, "%llu", (unsigned long long)m.gpu[0].compute);
    CHECK_MSG(m.host.compute == 24 * MIB, "%llu", (unsigned long long)m.host.compute);
    plan_params_default(&p);
    p.n_outputs_max = PLAN_OUTPUTS_ALL;
    plan(&d, "rtx-4090", &p, &m);
    CHECK_MSG(m.gpu[0].compute == 258 * MIB + MIB / 2, "%llu", (unsigned long long)m.gpu[0].compute);
    plan_params_default(&p);
    plan(&d, "rtx-4090", &p, &m);
    CHECK_MSG(m.gpu[0].compute == 120 * MIB, "%llu", (unsigned long long)m.gpu[0].compute);
    CHECK(plan_outputs_reserved(&p) == 1);
    /* Output buffer: one row of 128256 f32 logits per sequence, on the host. */
    CHECK(m.host.output == 128256ull * 4);
    p.n_parallel = 4;
    plan(&d, "rtx-4090", &p, &m);
    CHECK(m.host.output == 4 * 128256ull * 4);
    model_desc_free(&d);
}

/* Placement: -ngl as llama.cpp counts it; two cards split by free memory;
 * VRAM is per card, never summed. */
static void check_placement(void) {
    model_desc d;
    load("llama-3.1-70b", NULL, &d);
    plan_params p;
    plan_params_default(&p);
    plan_memory m;
    plan(&d, "rtx-4090,rtx-4090", &p, &m);
    CHECK(m.n_gpu == 2);
    CHECK(m.gpu[0].capacity == 24ull * 1024 * MIB && m.gpu[1].capacity == 24ull * 1024 * MIB);
    /* 81 "layers" (80 + output) halved: layers 0-40 on card 0 (il/81 < 0.5), 41-79 + output on card 1. */
    CHECK(m.gpu[0].n_layers == 41 && m.gpu[1].n_layers == 39 && m.gpu[1].has_output);
    /* The 70B at Q4_K_M (39.6 GiB) does not fit one 24 GiB card. */
    plan(&d, "rtx-4090", &p, &m);
    CHECK(m.verdict == PLAN_NO_FIT);
    p.n_gpu_layers = 40; /* the last 40 "layers": 41-79 and the output */
    plan(&d, "rtx-4090", &p, &m);
    CHECK(m.gpu[0].n_layers == 39 && m.gpu[0].layer_first == 41 && m.gpu[0].has_output);
    CHECK(m.host.n_layers == 41);
    model_desc_free(&d);
}

/* --cpu-moe keeps every routed-expert tensor in host RAM; --n-cpu-moe N those of layers < N. */
static void check_cpu_moe(void) {
    model_desc d;
    load("qwen3-30b-a3b", NULL, &d);
    uint64_t experts = 0, first4 = 0;
    for (uint32_t i = 0; i < d.n_tensors; i++) {
        const model_tensor *t = &d.tensors[i];
        if (t->role != ROLE_FFN_GATE_EXPS && t->role != ROLE_FFN_UP_EXPS && t->role != ROLE_FFN_DOWN_EXPS) continue;
        experts += t->bytes;
        if (t->layer < 4) first4 += t->bytes;
    }
    plan_params p;
    plan_params_default(&p);
    plan_memory all, cpu, part;
    plan(&d, "rtx-4090", &p, &all);
    p.exps_on_host = true;
    plan(&d, "rtx-4090", &p, &cpu);
    /* (host weights also hold the CPU_REPACK copies of the Q4_K experts on an AVX2/AVX-512 host) */
    CHECK(cpu.gpu[0].weights == all.gpu[0].weights - experts);
    CHECK(cpu.host.weights - cpu.host.repack == all.host.weights - all.host.repack + experts);
    p.exps_on_host = false;
    p.n_cpu_moe = 4;
    plan(&d, "rtx-4090", &p, &part);
    CHECK(part.gpu[0].weights == all.gpu[0].weights - first4);
    model_desc_free(&d);
}

/* Apple: the GPU may use its share of unified memory (0.75 of 128 GiB). */
static void check_apple_share(void) {
    model_desc d;
    load("llama-3.1-8b", NULL, &d);
    plan_params p;
    plan_params_default(&p);
    plan_memory m;
    plan(&d, "apple-m4-max-40c:128", &p, &m);
    CHECK(m.gpu[0].capacity == 96ull * 1024 * MIB);
    /* The RAM left to the host: the GPU's allocations, less the pages of the
     * mapped file both count (the host's token_embd lies in Metal's span). */
    CHECK(m.host.capacity == 128ull * 1024 * MIB - (m.gpu[0].total - m.host.mapped));
    model_desc_free(&d);
    plan_hw hw;
    fc_err err = {0};
    CHECK(plan_hw_from_catalog(&hw, "apple-m4-max-40c:100", &err) == FC_EINPUT);
    CHECK(plan_hw_from_catalog(&hw, "no-such-gpu", &err) == FC_EINPUT && strstr(err.msg, "no-such-gpu"));
    /* A Mac with a CUDA card: macOS on Apple silicon drives no discrete GPU
     * (no CUDA or ROCm driver, no eGPU support), so the machine cannot exist. */
    err.msg[0] = '\0';
    CHECK(plan_hw_from_catalog(&hw, "apple-m2-ultra:64,rtx-4090", &err) == FC_EINPUT);
    CHECK_MSG(strstr(err.msg, "apple-m2-ultra") && strstr(err.msg, "rtx-4090"), "%s", err.msg);
    CHECK(plan_hw_from_catalog(&hw, "rtx-4090,apple-m2-ultra:64", &err) == FC_EINPUT);
}

/* CPU_REPACK (llama.cpp's interleaved copies on the CPU backend), worked out
 * from ggml-cpu/repack.cpp and checked against its printed buffer: Gemma-3-270M
 * Q4_K_M on AVX-512 maps 235.16 MiB and repacks 12.66 MiB — the Q4_K matmul
 * weights whose row count is a multiple of 8. An ISA without rules repacks nothing. */
static void check_repack(void) {
    model_desc d;
    load("gemma-3-270m", "Q4_K_M", &d);
    uint64_t q4k = 0;
    for (uint32_t i = 0; i < d.n_tensors; i++)
        if (d.tensors[i].type == GGML_TYPE_Q4_K && d.tensors[i].ne[1] % 8 == 0) q4k += d.tensors[i].bytes;
    plan_hw hw;
    memset(&hw, 0, sizeof hw);
    hw.host.mem_free = hw.host.mem_total = 64ull << 30;
    hw.host.cpu_repack = PLAN_REPACK_X86_AVX512;
    plan_params p;
    plan_params_default(&p);
    plan_memory m;
    fc_err err = {0};
    CHECK(plan_memory_compute(&m, &d, &hw, &p, &err) == FC_OK);
    /* Each weight is in RAM once: the repacked copy (anonymous) replaces the
     * tensor's mapped pages, read once at load and cold after. */
    CHECK(m.host.repack == q4k && m.host.weights == d.weight_bytes);
    CHECK(m.host.mapped == d.weight_bytes - q4k && m.host.anon == m.host.total - m.host.mapped);
    CHECK_NEAR((double)m.host.repack / MIB, 12.66, 0.01);
    hw.host.cpu_repack = PLAN_REPACK_NONE;
    CHECK(plan_memory_compute(&m, &d, &hw, &p, &err) == FC_OK);
    CHECK(m.host.repack == 0 && m.host.weights == d.weight_bytes && m.host.mapped == d.weight_bytes);
    /* -nr / --no-repack: the same, on an AVX-512 host. */
    hw.host.cpu_repack = PLAN_REPACK_X86_AVX512;
    p.no_repack = true;
    CHECK(plan_memory_compute(&m, &d, &hw, &p, &err) == FC_OK);
    CHECK(m.host.repack == 0 && m.host.mapped == d.weight_bytes);
    /* --no-mmap: nothing mapped, the weights are anonymous (no GPU: no pinned host buffer). */
    p.no_repack = false;
    p.no_mmap = true;
    CHECK(plan_memory_compute(&m, &d, &hw, &p, &err) == FC_OK);
    CHECK(m.host.mapped == 0 && m.host.anon == m.host.total && m.host.pinned == 0);
    model_desc_free(&d);
}

/* A CPU-only machine with `gib` GiB free and llama.cpp's AVX2 repacking. */
static void cpu_machine(plan_hw *hw, double gib) {
    memset(hw, 0, sizeof *hw);
    hw->host.mem_free = hw->host.mem_total = (uint64_t)(gib * 1024 * MIB);
    hw->host.cpu_repack = PLAN_REPACK_X86_AVX2;
}

/* Issue 15: Qwen3-30B-A3B Q4_K_M (17.3 GiB) on a CPU-only machine with 23 GiB
 * free. llama.cpp maps the file and copies the Q4_K matmul weights into
 * CPU_REPACK (ggml-cpu/repack.cpp, AVX2: Q4_K with rows % 8 == 0); the source
 * pages of those tensors are read once at load and never touched again, so the
 * kernel reclaims them for free. What must stay in RAM is the repacked copies,
 * the rest of the weights in place in the page cache, KV and buffers: about the
 * file size plus 0.5 GiB, well inside 23 GiB — "fits", not "does not fit"
 * (which counted the repacked bytes twice). */
static void check_mmap_repack_fit(void) {
    model_desc d;
    load("qwen3-30b-a3b", "Q4_K_M", &d);
    CHECK_NEAR((double)d.weight_bytes / (1024.0 * MIB), 17.3, 0.2);
    plan_hw hw;
    cpu_machine(&hw, 23);
    plan_params p;
    plan_params_default(&p);
    plan_memory m;
    fc_err err = {0};
    CHECK(plan_memory_compute(&m, &d, &hw, &p, &err) == FC_OK);
    CHECK_MSG(m.verdict == PLAN_FITS, "%s", plan_verdict_name(m.verdict));
    CHECK(m.host.weights == d.weight_bytes && m.host.repack > 8 * 1024 * MIB);
    CHECK(m.host.total < d.weight_bytes + 1024 * MIB);
    CHECK(m.host.anon + m.host.mapped == m.host.total && m.host.mapped == d.weight_bytes - m.host.repack);
    CHECK(m.n_note == 0); /* no flag changes this verdict */

    /* RAM between what must stay (anon) and everything: it runs with the
     * mapped weights' pages dropped and re-read from disk as tokens need
     * them. --no-mmap and --mlock both need every byte resident: they turn
     * it into "does not fit", and the note says so. */
    uint64_t anon = m.host.anon, total = m.host.total;
    hw.host.mem_free = anon + (total - anon) / 2;
    CHECK(plan_memory_compute(&m, &d, &hw, &p, &err) == FC_OK);
    CHECK_MSG(m.verdict == PLAN_PAGED, "%s", plan_verdict_name(m.verdict));
    CHECK(m.flag_verdict[PLAN_FLAG_NO_MMAP] == PLAN_NO_FIT && m.flag_verdict[PLAN_FLAG_MLOCK] == PLAN_NO_FIT);
    char all[PLAN_MEM_NOTES * PLAN_MEM_NOTE_LEN] = "";
    for (int i = 0; i < m.n_note; i++) strcat(all, m.note[i]);
    CHECK_MSG(strstr(all, "disk") && strstr(all, "--no-mmap") && strstr(all, "--mlock"), "%s", all);
    /* Less RAM than the repacked copies and buffers: it does not fit, but
     * with -nr the repackable weights stay in the page cache and it runs
     * from disk: the fit depends on --no-repack, and the note names it. */
    hw.host.mem_free = anon - 256 * MIB;
    CHECK(plan_memory_compute(&m, &d, &hw, &p, &err) == FC_OK);
    CHECK(m.verdict == PLAN_NO_FIT && m.flag_verdict[PLAN_FLAG_NO_REPACK] == PLAN_PAGED);
    CHECK(m.n_note == 1);
    CHECK_MSG(m.n_note && strstr(m.note[0], "--no-repack") && strstr(m.note[0], "pages from disk"), "%s", m.note[0]);
    model_desc_free(&d);
}

/* Issue 15: gpt-oss-120b with --cpu-moe on an RTX 4090 put 114 GiB on the host
 * for a 59 GiB file: the MXFP4 experts counted as mapped weights and again as
 * CPU_REPACK copies. With a CUDA device in the process llama.cpp's buffer
 * list for CPU weights is "ACCEL -> GPU host -> CPU extra -> CPU"
 * (make_cpu_buft_list): the experts go to CUDA_Host, swapped for the plain
 * mapped CPU buffer under mmap — never repacked. So the host holds each
 * expert byte once, in the page cache, plus token_embd; its pinned memory is
 * the CPU compute buffer (CUDA_Host). With --no-mmap the experts are read into
 * CUDA_Host: anonymous and pinned. */
static void check_cpu_moe_once(void) {
    model_desc d;
    load("gpt-oss-120b", NULL, &d);
    uint64_t host_bytes = 0;
    for (uint32_t i = 0; i < d.n_tensors; i++)
        if (strstr(d.tensors[i].name, "_exps.") || d.tensors[i].role == ROLE_TOKEN_EMBD) host_bytes += d.tensors[i].bytes;
    plan_params p;
    plan_params_default(&p);
    p.exps_on_host = true;
    plan_memory m;
    plan(&d, "rtx-4090", &p, &m);
    CHECK_MSG(m.host.weights == host_bytes, "%llu vs %llu", (unsigned long long)m.host.weights,
              (unsigned long long)host_bytes);
    CHECK(m.host.weights < d.weight_bytes && m.host.repack == 0);
    CHECK(m.host.mapped == host_bytes && m.host.pinned == m.host.compute);
    CHECK(m.gpu[0].weights + m.host.weights == d.weight_bytes);
    p.no_mmap = true;
    plan(&d, "rtx-4090", &p, &m);
    CHECK(m.host.mapped == 0 && m.host.pinned == host_bytes + m.host.compute);
    model_desc_free(&d);
}

/* Issue 15: with a GPU in the process and -ngl 0, llama.cpp still allocates a
 * GPU compute buffer (~1.1 GiB for Qwen3-14B Q8_0 at 4096 on ROCm, from its
 * load log). Every device gets a backend whatever -ngl (llama-context.cpp),
 * and the scheduler hands a matmul whose weight sits in a host buffer to the
 * first GPU when the batch is >= 32 (ggml_backend_sched, "1.off";
 * ggml_backend_cuda_device_offload_op), copying the weight into that GPU's
 * compute buffer. The biggest such phase is the logits: a copy of output.weight
 * (5120 x 151936 Q8_0 = 151936 * 160 * 34 B = 788.2 MiB) and its f32 result
 * and input (512 x (151936 + 5120) x 4 B = 306.8 MiB): 1095.0 MiB when every
 * token's logits are reserved, as the build of that log did; one row (today's
 * llama-server, PR #23861) leaves the copy, its input and 1 x 151936 x 4 B. */
static void check_gpu_compute_ngl0(void) {
    model_desc d;
    load("qwen3-14b", "Q8_0", &d);
    plan_params p;
    plan_params_default(&p);
    p.n_gpu_layers = 0;
    p.n_outputs_max = PLAN_OUTPUTS_ALL;
    plan_memory m;
    plan(&d, "rx-7900-xtx", &p, &m);
    CHECK(m.gpu[0].weights == 0 && m.gpu[0].kv == 0 && m.host.n_layers == 40);
    uint64_t expect = 151936ull * 160 * 34 + 512ull * (151936 + 5120) * 4;
    CHECK_MSG(m.gpu[0].compute == expect, "%.1f MiB", (double)m.gpu[0].compute / MIB);
    CHECK(m.gpu[0].compute > 1024 * MIB && m.gpu[0].compute < 1200 * MIB);
    p.n_outputs_max = 0;
    plan(&d, "rx-7900-xtx", &p, &m);
    expect = 151936ull * 160 * 34 + 151936ull * 4 + 512ull * 5120 * 4;
    CHECK_MSG(m.gpu[0].compute == expect, "%.1f MiB", (double)m.gpu[0].compute / MIB);
    CHECK(m.gpu[0].overhead > 0); /* the ROCm context exists too */
    /* ubatch 16 < 32: nothing is offloaded, no GPU compute buffer. */
    p.n_ubatch = 16;
    plan(&d, "rx-7900-xtx", &p, &m);
    CHECK(m.gpu[0].compute == 0);
    model_desc_free(&d);
}

/* Issue 15: Metal maps the model file into its buffer (buffer_from_host_ptr
 * under mmap), from the first to the last tensor it holds — for gpt-oss-20b
 * llama.cpp prints 11536 MiB Metal_Mapped and 587 MiB CPU_Mapped (token_embd,
 * 201088 x 2880 Q8_0 = 586.8 MiB): the whole tensor data on the GPU, counted
 * against its working-set limit, token_embd's pages counted by both. With
 * --no-mmap Metal holds only its own tensors (10949 MiB). */
static void check_metal_mapping(void) {
    model_desc d;
    load("gpt-oss-20b", NULL, &d);
    uint64_t embd = 0;
    for (uint32_t i = 0; i < d.n_tensors; i++)
        if (d.tensors[i].role == ROLE_TOKEN_EMBD) embd = d.tensors[i].bytes;
    CHECK_NEAR((double)embd / MIB, 586.8, 0.5);
    plan_params p;
    plan_params_default(&p);
    plan_memory m;
    plan(&d, "apple-m2-ultra:64", &p, &m);
    CHECK_MSG(m.gpu[0].weights == d.weight_bytes, "%.1f MiB", (double)m.gpu[0].weights / MIB);
    CHECK_NEAR((double)m.gpu[0].weights / MIB, 11536, 11536 * 0.005);
    CHECK(m.gpu[0].mapped == d.weight_bytes && m.host.weights == embd);
    p.no_mmap = true;
    plan(&d, "apple-m2-ultra:64", &p, &m);
    CHECK(m.gpu[0].weights == d.weight_bytes - embd && m.gpu[0].mapped == 0);
    model_desc_free(&d);
}

static void check_catalogs(void) {
    CHECK(model_catalog_count() >= 30);
    CHECK(plan_hwcat_count() >= 40);
    plan_hw_entry e;
    fc_err err = {0};
    for (size_t i = 0; i < plan_hwcat_count(); i++) {
        CHECK(plan_hwcat_get(i, &e, &err) == FC_OK);
        CHECK_MSG(e.source[0] && e.n_memory > 0 && e.bandwidth_gbs > 0, "%s", e.id);
    }
    model_catalog_info info;
    for (size_t i = 0; i < model_catalog_count(); i++) {
        model_hparams hp;
        CHECK_MSG(model_catalog_get(i, &info, &hp, &err) == FC_OK, "%s", err.msg);
        CHECK_MSG(info.source[0] && info.name[0], "entry %zu", i);
        /* Every catalog model synthesizes, and its parameter count matches the source's within 2%
         * (the sources count vision towers, MTP layers or padded vocabularies differently). */
        model_desc d;
        CHECK_MSG(model_desc_synthesize(&d, &hp, "Q4_K_M", &err) == FC_OK, "%s: %s", info.name, err.msg);
        if (info.params_reference)
            CHECK_MSG(d.n_params > info.params_reference * 0.98 && d.n_params < info.params_reference * 1.02,
                      "%s: %llu vs %llu", info.name, (unsigned long long)d.n_params,
                      (unsigned long long)info.params_reference);
        model_desc_free(&d);
    }
}

int main(void) {
    check_kv_llama();
    check_kv_gemma3_swa();
    check_kv_mla();
    check_moe_full_weights();
    check_compute();
    check_placement();
    check_apple_share();
    check_cpu_moe();
    check_repack();
    check_mmap_repack_fit();
    check_cpu_moe_once();
    check_gpu_compute_ngl0();
    check_metal_mapping();
    check_catalogs();
    return check_done("memory");
}
