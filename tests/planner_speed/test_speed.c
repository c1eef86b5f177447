/* The speed model's formulas against hand-computed cases. Each case uses an
 * efficiency table written out here, so the expected numbers follow from the
 * stated formula with pencil and paper. */
#include "planner/planner.h"
#include "tests/check.h"

#include <stdlib.h>
#include <string.h>

/* bw_eff 1, no fixed costs: times are bytes/bandwidth and elements/rate. */
static const char *const eff_csv =
    "backend,engine,param,type,value,source\n"
    "cpu,llama.cpp,bw_eff,,1,test\n"
    "cpu,llama.cpp,dec_rate,*,0.5,test\n"
    "cpu,llama.cpp,pp_eff,*,0.5,test\n"
    "cpu,llama.cpp,attn_dec,,0.25,test\n"
    "cpu,llama.cpp,attn_pp,,0.5,test\n"
    "cpu,llama.cpp,layer_us,,0.000001,test\n"
    "cpu,llama.cpp,token_us,,0.000001,test\n"
    "cpu,llama.cpp,ubatch_us,,0.000001,test\n"
    "cpu,llama.cpp,hop_us,,0.000001,test\n"
    "cpu,llama.cpp,link_eff,,1,test\n"
    "cpu,llama.cpp,nofa_dec,,1,test\n"
    "cuda,llama.cpp,bw_eff,,1,test\n"
    "cuda,llama.cpp,dec_rate,*,0.5,test\n"
    "cuda,llama.cpp,pp_eff,*,0.5,test\n"
    "cuda,llama.cpp,attn_dec,,0.5,test\n"
    "cuda,llama.cpp,attn_pp,,0.5,test\n"
    "cuda,llama.cpp,layer_us,,10,test\n"
    "cuda,llama.cpp,token_us,,0.000001,test\n"
    "cuda,llama.cpp,ubatch_us,,0.000001,test\n"
    "cuda,llama.cpp,hop_us,,100,test\n"
    "cuda,llama.cpp,link_eff,,1,test\n"
    "cuda,llama.cpp,soc_pp,,0.5,test\n"
    /* fitcheck's engine: decode attention per cached element only (no attn_dec) */
    "cpu,fitcheck,bw_eff,,1,test\n"
    "cpu,fitcheck,dec_rate,*,0.5,test\n"
    "cpu,fitcheck,pp_eff,*,0.5,test\n"
    "cpu,fitcheck,attn_kv,,0.125,test\n"
    "cpu,fitcheck,attn_pp,,0.5,test\n"
    "cpu,fitcheck,layer_us,,0.000001,test\n"
    "cpu,fitcheck,token_us,,0.000001,test\n"
    "cpu,fitcheck,ubatch_us,,0.000001,test\n"
    "cpu,fitcheck,hop_us,,0.000001,test\n"
    "cpu,fitcheck,link_eff,,1,test\n"
    /* Metal: both decode attention terms, a flash-attention kernel (attn_kv) and a plain path (attn_dec) */
    "metal,llama.cpp,bw_eff,,1,test\n"
    "metal,llama.cpp,dec_rate,*,0.5,test\n"
    "metal,llama.cpp,pp_eff,*,0.5,test\n"
    "metal,llama.cpp,attn_dec,,0.25,test\n"
    "metal,llama.cpp,attn_kv,,0.125,test\n"
    "metal,llama.cpp,attn_pp,,0.5,test\n"
    "metal,llama.cpp,layer_us,,0.000001,test\n"
    "metal,llama.cpp,token_us,,0.000001,test\n"
    "metal,llama.cpp,ubatch_us,,0.000001,test\n"
    "metal,llama.cpp,hop_us,,0.000001,test\n"
    "metal,llama.cpp,link_eff,,1,test\n"
    "metal,llama.cpp,nofa_dec,,0.5,test\n";

static plan_speed_setup one_cpu(double gbs, double gflops) {
    plan_speed_setup s;
    memset(&s, 0, sizeof s);
    s.n_dev = 1;
    s.pp_dev = -1;
    s.dev[0] = (plan_speed_dev){.backend = PLAN_CPU, .mem_gbs = gbs, .gflops = gflops};
    s.load[0].host_resident = true;
    return s;
}

/* One CUDA card at gbs GB/s and gflops, one layer, 512-token ubatches, all weights on it. */
static plan_speed_setup one_gpu(double gbs, double gflops) {
    plan_speed_setup s;
    memset(&s, 0, sizeof s);
    s.n_dev = 1;
    s.pp_dev = -1;
    s.n_ubatch = 512;
    s.dev[0] = (plan_speed_dev){.backend = PLAN_CUDA, .mem_gbs = gbs, .gflops = gflops};
    s.load[0].n_layers = 1;
    return s;
}

static void test_bandwidth_bound(const plan_efficiency *e) {
    /* 1 GB of Q4_0 weights at 100 GB/s; compute 1000 GFLOP/s x 0.5 = 500 G
     * elements/s for 1.78e9 elements = 3.6 ms < 10 ms: memory binds. */
    plan_speed_setup s = one_cpu(100, 1000);
    s.load[0].bytes[GGML_TYPE_Q4_0] = 1e9;
    s.load[0].elems[GGML_TYPE_Q4_0] = 1e9 * 32 / 18;
    CHECK_NEAR(plan_speed_decode_s(&s, e, 0), 0.010, 1e-6);
    CHECK_NEAR(plan_speed_tg_tps(&s, e, 128, 0), 100.0, 0.01);
}

static void test_compute_bound(const plan_efficiency *e) {
    /* Same bytes, 10 GFLOP/s: 1.78e9 elements at 5e9/s = 0.3556 s. */
    plan_speed_setup s = one_cpu(100, 10);
    s.load[0].bytes[GGML_TYPE_Q4_0] = 1e9;
    s.load[0].elems[GGML_TYPE_Q4_0] = 1e9 * 32 / 18;
    CHECK_NEAR(plan_speed_decode_s(&s, e, 0), (1e9 * 32 / 18) / 5e9, 1e-6);
    /* Types are separate rooflines: adding 1 GB of F16 (0.5e9 elements, 0.1 s
     * compute, 0.01 s memory) adds 0.1 s. */
    s.load[0].bytes[GGML_TYPE_F16] = 1e9;
    s.load[0].elems[GGML_TYPE_F16] = 0.5e9;
    CHECK_NEAR(plan_speed_decode_s(&s, e, 0), (1e9 * 32 / 18) / 5e9 + 0.1, 1e-6);
}

/* What bounds decode (plan_speed_decode_bound): whether a smaller type would decode faster. */
static void test_decode_bound(const plan_efficiency *e) {
    /* The bandwidth-bound case above: 10 ms of reading, 3.6 ms of arithmetic. */
    plan_speed_setup s = one_cpu(100, 1000);
    s.load[0].bytes[GGML_TYPE_Q4_0] = 1e9;
    s.load[0].elems[GGML_TYPE_Q4_0] = 1e9 * 32 / 18;
    CHECK(plan_speed_decode_bound(&s, e, 0) == PLAN_BOUND_MEMORY);
    /* An output matrix whose arithmetic outlasts its read (1e9 elements in 0.01 GB: 2 ms against 0.1 ms) adds
     * 1.9 ms of kernel time, but the Q4_0 layers, the main type, stay memory-bound: a smaller type of theirs
     * would decode faster. */
    s.load[0].out_type = GGML_TYPE_Q8_0;
    s.load[0].out_bytes = 0.01e9;
    s.load[0].out_elems = 1e9;
    CHECK_NEAR(plan_speed_decode_s(&s, e, 0), 0.012, 1e-6);
    CHECK(plan_speed_decode_bound(&s, e, 0) == PLAN_BOUND_MEMORY);
    /* At 10 GFLOP/s the Q4_0 layers themselves compute for 0.36 s against 10 ms of reading. */
    s.dev[0].gflops = 10;
    CHECK(plan_speed_decode_bound(&s, e, 0) == PLAN_BOUND_KERNEL);
    /* A GPU: one roofline over all its weights. 1e9 Q4_K elements (0.5625 GB) at 100 GB/s read in 5.625 ms; at
     * 1000 GFLOP/s x 0.5 they compute in 2 ms (memory), at 100 GFLOP/s in 20 ms (kernel); its 10 us per layer
     * bind only when the weights are tiny: 1e6 elements read in 5.6 us, computed in 2 us at 1000 GFLOP/s. */
    plan_speed_setup g = one_gpu(100, 1000);
    g.load[0].bytes[GGML_TYPE_Q4_K] = 0.5625e9;
    g.load[0].elems[GGML_TYPE_Q4_K] = 1e9;
    CHECK(plan_speed_decode_bound(&g, e, 0) == PLAN_BOUND_MEMORY);
    g.dev[0].gflops = 100;
    CHECK(plan_speed_decode_bound(&g, e, 0) == PLAN_BOUND_KERNEL);
    g.dev[0].gflops = 1000;
    /* Decode's arithmetic runs at the device's decode rate where it has one (a GPU's vector units), not at its
     * matrix rate: at 100 GFLOP/s of it the same card is kernel-bound, and its prefill, on the matrix units,
     * does not change. */
    double pp = plan_speed_pp_tps(&g, e, 512, 0);
    g.dev[0].dec_gflops = 100;
    CHECK(plan_speed_decode_bound(&g, e, 0) == PLAN_BOUND_KERNEL);
    CHECK_NEAR(plan_speed_pp_tps(&g, e, 512, 0), pp, 1e-9 * pp);
    g.dev[0].dec_gflops = 0;
    g.load[0].bytes[GGML_TYPE_Q4_K] = 0.5625e6;
    g.load[0].elems[GGML_TYPE_Q4_K] = 1e6;
    CHECK(plan_speed_decode_bound(&g, e, 0) == PLAN_BOUND_FIXED);
    CHECK(!strcmp(plan_bound_name(PLAN_BOUND_KERNEL), "kernel") && !strcmp(plan_bound_name(PLAN_BOUND_STORAGE), "storage"));
}

static void test_depth(const plan_efficiency *e) {
    /* 1e5 KV bytes and 1e6 attention MACs per position; depth 1000:
     * KV 1e8 B / 100 GB/s = 1 ms; attention 1e9 MAC / (0.25 x 1000 GFLOP/s) = 4 ms. */
    plan_speed_setup s = one_cpu(100, 1000);
    s.load[0].n_layers = 1;
    s.load[0].kv_bytes_full = 1e5;
    s.load[0].attn_macs_full = 1e6;
    CHECK_NEAR(plan_speed_decode_s(&s, e, 1000), 0.005, 1e-6);
    /* tg128 from depth 1000 averages depths 1000..1127: the time at 1063.5. */
    CHECK_NEAR(1.0 / plan_speed_tg_tps(&s, e, 128, 1000), 0.005 * 1063.5 / 1000, 1e-6);
    /* A sliding-window layer attends to at most its window. Where llama.cpp's kernel reads what the window
     * has left masked (without flash attention: KQ is a plain product over the view), it reads every cell of
     * its ring of window + ubatch cells (512 + 512) up to the last one used: 768 cells at depth 768, 1024
     * from depth 1024 on. The CPU's flash-attention kernel skips masked cells, and fitcheck's engine reads
     * the window. */
    plan_speed_setup w = one_cpu(100, 1000);
    w.load[0].kv_bytes_swa = 1e5;
    w.load[0].attn_macs_swa = 1e6;
    w.load[0].swa_window = 512;
    w.load[0].n_layers = 1;
    w.n_ubatch = 512;
    CHECK_NEAR(plan_speed_decode_s(&w, e, 4096), 0.005 * 512 / 1000, 1e-6);
    w.no_fa = true;
    CHECK_NEAR(plan_speed_decode_s(&w, e, 256), 0.005 * 256 / 1000, 1e-6);
    CHECK_NEAR(plan_speed_decode_s(&w, e, 768), 0.005 * 768 / 1000, 1e-6);
    CHECK_NEAR(plan_speed_decode_s(&w, e, 4096), 0.005 * 1024 / 1000, 1e-6);
    w.n_ubatch = 2048; /* 2560 cells, padded to 32 without flash attention */
    CHECK_NEAR(plan_speed_decode_s(&w, e, 4096), 0.005 * 2560 / 1000, 1e-6);
    w.engine = PLAN_ENG_FITCHECK;
    w.no_fa = false;
    w.load[0].kv_elems_swa = 5e4;
    CHECK_NEAR(plan_speed_decode_s(&w, e, 4096), 0.0014 * 512 / 1000, 1e-6);
    /* A CUDA card's flash-attention kernel reads the masked cells too: the ring of 512 + 512, padded to 256. */
    plan_speed_setup c = one_gpu(100, 1000);
    c.load[0].kv_bytes_swa = 1e5;
    c.load[0].swa_window = 512;
    c.n_ubatch = 600;
    double at_window = plan_speed_decode_s(&c, e, 512);
    CHECK_NEAR(plan_speed_decode_s(&c, e, 4096) - at_window, (1280.0 - 512) * 1e5 / 100e9, 1e-9);
    /* fitcheck's engine costs attention per cached element, not per query:
     * 5e4 K/V elements per position x 1000 / (0.125 x 1000 GFLOP/s) = 0.4 ms,
     * plus the same 1 ms of KV read; the MACs cost it nothing. */
    s.engine = PLAN_ENG_FITCHECK;
    s.load[0].kv_elems_full = 5e4;
    CHECK_NEAR(plan_speed_decode_s(&s, e, 1000), 0.0014, 1e-6);
    /* Twice the KV heads (GQA 4 instead of 8), same query heads: twice the
     * cache to read and convert for the engine; llama.cpp's queries cost as before. */
    plan_speed_setup g = s;
    g.load[0].kv_bytes_full *= 2;
    g.load[0].kv_elems_full *= 2;
    CHECK_NEAR(plan_speed_decode_s(&g, e, 1000), 0.0028, 1e-6);
    g.engine = s.engine = PLAN_ENG_LLAMACPP;
    CHECK_NEAR(plan_speed_decode_s(&g, e, 1000) - plan_speed_decode_s(&s, e, 1000), 0.001, 1e-6);
}

/* A GPU type without a prefill rate of its own runs at its kernel family's: the geometric mean of the family's own
 * rates, Q4_0's 0.5 and Q8_0's 0.125 for Q5_1, 0.25; a family with none (IQ4_NL) at the set's default, 0.4. ROCm
 * keeps the default for both (plan_pp_pools_family). 1e9 elements, 512 tokens, 100 TFLOP/s: 2 x 1e9 x 512 / (rate
 * x 1e14) = 40.96 ms at 0.25, 25.6 ms at 0.4, 20.48 ms at 0.5 (Q4_0 itself). */
static void test_family_prefill(void) {
#define FAMILY_SET(be)                                                                                              \
    be ",llama.cpp,pp_eff,*,0.4,t\n" be ",llama.cpp,pp_eff,q4_0,0.5,t\n" be ",llama.cpp,pp_eff,q8_0,0.125,t\n"       \
    be ",llama.cpp,bw_eff,,1,t\n" be ",llama.cpp,dec_rate,*,0.5,t\n" be ",llama.cpp,attn_kv,,0.5,t\n"                \
    be ",llama.cpp,attn_pp,,0.5,t\n" be ",llama.cpp,layer_us,,0.000001,t\n" be ",llama.cpp,token_us,,0.000001,t\n"   \
    be ",llama.cpp,ubatch_us,,0.000001,t\n" be ",llama.cpp,hop_us,,0.000001,t\n" be ",llama.cpp,link_eff,,1,t\n"
    static const char *const csv = "backend,engine,param,type,value,source\n" FAMILY_SET("cuda") FAMILY_SET("rocm");
#undef FAMILY_SET
    fc_err err = {0};
    plan_efficiency f;
    CHECK_MSG(plan_efficiency_parse_csv(&f, csv, "family.csv", &err) == FC_OK, "%s", err.msg);
    static const struct { int backend; uint32_t type; double ms; } cases[] = {
        {PLAN_CUDA, GGML_TYPE_Q4_0, 20.48},  {PLAN_CUDA, GGML_TYPE_Q5_1, 40.96}, {PLAN_CUDA, GGML_TYPE_IQ4_NL, 25.6},
        {PLAN_ROCM, GGML_TYPE_Q5_1, 25.6},   {PLAN_ROCM, GGML_TYPE_Q4_0, 20.48},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        plan_speed_setup s = one_gpu(1e6, 1e5);
        s.dev[0].backend = cases[i].backend;
        s.load[0].bytes[cases[i].type] = 1e6; /* 1 us at 1e6 GB/s: compute binds */
        s.load[0].elems[cases[i].type] = 1e9;
        CHECK_NEAR(512 / plan_speed_pp_tps(&s, &f, 512, 0) * 1e3, cases[i].ms, 1e-3);
    }
}

/* A set with both decode attention terms has two kernels: with flash attention it pays per cached element
 * (attn_kv), without it per query MAC (attn_dec, the broadcast matrix-vector products), and nofa_dec is not
 * applied on top. 1e5 KV bytes, 1e6 MACs and 5e4 K/V elements per position, depth 1000, 100 GB/s, 1000 GFLOP/s:
 * KV read 1 ms either way; -fa 1: 5e7 / (0.125 x 1e12) = 0.4 ms; -fa 0: 1e9 / (0.25 x 1e12) = 4 ms. */
static void test_attention_paths(const plan_efficiency *e) {
    plan_speed_setup s = one_gpu(100, 1000);
    s.dev[0].backend = PLAN_METAL;
    s.load[0].kv_bytes_full = 1e5;
    s.load[0].attn_macs_full = 1e6;
    s.load[0].kv_elems_full = 5e4;
    CHECK_NEAR(plan_speed_decode_s(&s, e, 1000), 0.0014, 1e-6);
    s.no_fa = true;
    CHECK_NEAR(plan_speed_decode_s(&s, e, 1000), 0.005, 1e-6);
}

/* A MoE layer adds graph nodes to its tensors' (planner/speed.c), priced at layer_us per dense layer of 17: 8
 * experts per token, unfused (Metal) 6 + 7 = 13 nodes; fused (CUDA: one top-k kernel, one add) 3; its router's
 * product is one of its tensors' nodes (test_layer_nodes). 1 GB at 1000 GB/s = 1 ms; 10 layers x 10 us = 100 us
 * dense. */
static void test_moe_layers(const plan_efficiency *e) {
    plan_efficiency *f = malloc(sizeof *f);
    CHECK(f != NULL);
    if (!f) return;
    *f = *e;
    f->set[PLAN_METAL][PLAN_ENG_LLAMACPP].scalar[PLAN_EFF_LAYER_US] = 10;
    plan_speed_setup s = one_gpu(1000, 1e6);
    s.load[0].bytes[GGML_TYPE_Q4_0] = 1e9;
    s.load[0].elems[GGML_TYPE_Q4_0] = 1e9 * 32 / 18;
    s.load[0].n_layers = 10;
    CHECK_NEAR(plan_speed_decode_s(&s, f, 0), 0.00110, 1e-9);
    s.load[0].n_moe_layers = 10;
    s.load[0].n_expert_used = 8;
    CHECK_NEAR(plan_speed_decode_s(&s, f, 0), 0.00110 + 10 * 10e-6 * 3 / 17, 1e-9);
    s.dev[0].backend = PLAN_METAL;
    CHECK_NEAR(plan_speed_decode_s(&s, f, 0), 0.00110 + 10 * 10e-6 * 13 / 17, 1e-9);
    /* Tensors beyond a Llama layer's, 17 nodes over the 10 layers: one dense layer more. fitcheck's engine
     * runs a layer as one step whatever its tensors. */
    s.load[0].n_moe_layers = 0;
    s.load[0].extra_nodes = 17;
    CHECK_NEAR(plan_speed_decode_s(&s, f, 0), 0.00111, 1e-9);
    s.engine = PLAN_ENG_FITCHECK;
    f->set[PLAN_METAL][PLAN_ENG_FITCHECK] = f->set[PLAN_METAL][PLAN_ENG_LLAMACPP];
    CHECK_NEAR(plan_speed_decode_s(&s, f, 0), 0.00110, 1e-9);
    free(f);
}

/* A layer's graph nodes counted from its tensors (planner/speed_load.c), beyond a dense Llama layer's 9 (Q, K, V,
 * output, gate, up, down, and two norms, each fused with its scale): Qwen2.5's Q, K and V biases 3; Qwen3's Q and
 * K norms 2; Gemma 3's Q and K norms and two post-norms 4; gpt-oss' four attention biases, its router and router
 * bias, and its experts' three biases 9 (its attention sinks are an operand, no node). */
static void test_layer_nodes(void) {
    static const struct { const char *model, *quant; double per_layer; } cases[] = {
        {"llama-3.1-8b", "Q4_K_M", 0}, {"qwen2.5-7b", "Q4_K_M", 3}, {"qwen3-8b", "Q4_K_M", 2},
        {"gemma-3-4b", "Q4_K_M", 4}, {"gpt-oss-20b", "MXFP4_MOE", 9},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        model_hparams hp;
        model_desc d;
        fc_err err = {0};
        CHECK(model_catalog_find(cases[c].model, NULL, &hp, &err) == FC_OK);
        CHECK(model_desc_synthesize(&d, &hp, cases[c].quant, &err) == FC_OK);
        plan_speed_setup s;
        memset(&s, 0, sizeof s);
        s.n_dev = 1;
        s.dev[0] = (plan_speed_dev){.backend = PLAN_CUDA, .mem_gbs = 1000, .gflops = 1e5};
        plan_speed_place pl;
        memset(&pl, 0, sizeof pl);
        pl.exps_dev = -1;
        pl.kv_type = GGML_TYPE_F16;
        CHECK(plan_speed_loads(&s, &d, &pl, &err) == FC_OK);
        CHECK_NEAR(s.load[0].extra_nodes, cases[c].per_layer * d.hp.n_layer, 1e-9);
        model_desc_free(&d);
    }
}

/* llama.cpp's CPU threads meet at a barrier per graph node, one cache-line hand-over per thread: its layer cost is
 * per thread. 1 GB at 1000 GB/s = 1 ms; 10 layers x 10 us x 8 threads = 0.8 ms, x 64 = 6.4 ms, x 1 = 0.1 ms.
 * fitcheck's engine keeps its measured cost per layer, and a GPU has no threads. */
static void test_cpu_threads(const plan_efficiency *e) {
    plan_efficiency *f = malloc(sizeof *f);
    CHECK(f != NULL);
    if (!f) return;
    *f = *e;
    f->set[PLAN_CPU][PLAN_ENG_LLAMACPP].scalar[PLAN_EFF_LAYER_US] = 10;
    f->set[PLAN_CPU][PLAN_ENG_FITCHECK].scalar[PLAN_EFF_LAYER_US] = 10;
    plan_speed_setup s = one_cpu(1000, 1e6);
    s.load[0].bytes[GGML_TYPE_Q4_0] = 1e9;
    s.load[0].elems[GGML_TYPE_Q4_0] = 1e9 * 32 / 18;
    s.load[0].n_layers = 10;
    s.dev[0].threads = 8;
    CHECK_NEAR(plan_speed_decode_s(&s, f, 0), 0.0018, 1e-9);
    s.dev[0].threads = 64;
    CHECK_NEAR(plan_speed_decode_s(&s, f, 0), 0.0074, 1e-9);
    s.dev[0].threads = 1;
    CHECK_NEAR(plan_speed_decode_s(&s, f, 0), 0.0011, 1e-9);
    s.dev[0].threads = 64;
    s.engine = PLAN_ENG_FITCHECK;
    CHECK_NEAR(plan_speed_decode_s(&s, f, 0), 0.0011, 1e-9);
    free(f);
    /* A CPU counts its threads where it is made: a probed one at the threads asked for, a catalog platform
     * at as many cores as its FP32 peak holds (planner/speed_plan.c) */
    probe_profile p = {.n_cores = 16, .read_gbs = 50, .sgemm_gflops_1t = 100};
    plan_speed_dev d;
    CHECK(plan_speed_dev_cpu(&d, &p, 4) == FC_OK && d.threads == 4);
    CHECK(plan_speed_dev_cpu(&d, &p, 64) == FC_OK && d.threads == 16);
    plan_device cat = {.backend = PLAN_CPU, .bandwidth_gbs = 576, .fp32_tflops = 12.8};
    plan_speed_dev_from_device(&d, &cat);
    CHECK_MSG(d.threads == 100, "%d", d.threads);
    cat.n_cores = 24;
    plan_speed_dev_from_device(&d, &cat);
    CHECK(d.threads == 24);
}

/* A quantized type's CPU kernels run at the ISA's int8 rate against the one the constants were fitted at; floats
 * at the FP32 rate. Compute-bound: 1e9 Q4_0 elements at 10 GFLOP/s x 0.5 = 0.2 s on the reference ISA, 0.4 s with
 * half its int8 multiply-adds (AVX2); i8mm's SMMLA takes two activation rows, so its decode runs SDOT, the
 * reference's rate, and only its prefill twice it; 1e9 F16 elements 0.2 s on any. */
static void test_cpu_int8(const plan_efficiency *e) {
    plan_speed_setup s = one_cpu(1000, 10);
    s.load[0].bytes[GGML_TYPE_Q4_0] = 1e9 * 18 / 32;
    s.load[0].elems[GGML_TYPE_Q4_0] = 1e9;
    double pp_ref = plan_speed_pp_tps(&s, e, 512, 0);
    CHECK_NEAR(plan_speed_decode_s(&s, e, 0), 0.2, 1e-9);
    s.dev[0].int8_share = plan_int8_share(PROBE_INT8_AVX2);
    CHECK_NEAR(plan_speed_decode_s(&s, e, 0), 0.4, 1e-9);
    CHECK_NEAR(plan_speed_pp_tps(&s, e, 512, 0) / pp_ref, 0.5, 1e-6);
    s.dev[0].int8_share = plan_int8_share(PROBE_INT8_I8MM);
    CHECK_NEAR(plan_speed_decode_s(&s, e, 0), 0.2, 1e-9);
    CHECK_NEAR(plan_speed_pp_tps(&s, e, 512, 0) / pp_ref, 2, 1e-6);
    s.load[0].bytes[GGML_TYPE_Q4_0] = s.load[0].elems[GGML_TYPE_Q4_0] = 0;
    s.load[0].bytes[GGML_TYPE_F16] = 2e9;
    s.load[0].elems[GGML_TYPE_F16] = 1e9;
    CHECK_NEAR(plan_speed_decode_s(&s, e, 0), 0.2, 1e-9);
    /* the reference is as fitted; an unknown or impossible ISA too */
    CHECK(plan_int8_share(PLAN_INT8_REF) == 1 && plan_int8_share(0) == 0 && plan_int8_share(1e300) == 0);
    plan_device cpu = {.backend = PLAN_CPU, .bandwidth_gbs = 100, .fp32_tflops = 1, .n_cores = 8,
                       .int8_per_fp32 = PROBE_INT8_AVX2};
    plan_speed_dev d;
    plan_speed_dev_from_device(&d, &cpu);
    CHECK_NEAR(d.int8_share, 0.5, 1e-12);
    probe_profile p = {.n_cores = 4, .read_gbs = 50, .sgemm_gflops_1t = 100, .int8_per_fp32 = PROBE_INT8_I8MM};
    CHECK(plan_speed_dev_cpu(&d, &p, 4) == FC_OK);
    CHECK_NEAR(d.int8_share, 2, 1e-12);
}

/* An older build read memory as fast as the current one; it paid more per kernel launch: era_dec scales the fixed
 * costs alone. 1 GB at 1000 GB/s = 1 ms; 10 layers x 10 us = 100 us, 200 us at an era share of 0.5. */
static void test_old_build(const plan_efficiency *e) {
    plan_efficiency *old = malloc(sizeof *old);
    CHECK(old != NULL);
    if (!old) return;
    *old = *e;
    old->set[PLAN_CUDA][PLAN_ENG_LLAMACPP].scalar[PLAN_EFF_ERA_DEC] = 0.5;
    plan_speed_setup s;
    memset(&s, 0, sizeof s);
    s.n_dev = 1;
    s.pp_dev = -1;
    s.dev[0] = (plan_speed_dev){.backend = PLAN_CUDA, .mem_gbs = 1000, .gflops = 1e6};
    s.load[0].bytes[GGML_TYPE_Q4_0] = 1e9;
    s.load[0].elems[GGML_TYPE_Q4_0] = 1e9 * 32 / 18;
    s.load[0].n_layers = 10;
    double now = plan_speed_decode_s(&s, old, 0);
    CHECK_NEAR(now, 0.0011, 1e-6);
    s.old_build = true;
    CHECK_NEAR(plan_speed_decode_s(&s, old, 0), 0.0012, 1e-6);
    free(old);
}

static void test_plain_buffers(const plan_efficiency *e) {
    /* Compute-bound Q4_0, Q4_K and Q8_0 on an AVX-512 CPU: in plain buffers (an
     * rpc-server, -nr) llama.cpp's repacked kernels do not run. Measured
     * (planner/memory.c): Q4_0 decodes at half its repacked rate and prefills
     * at 0.7 of it; Q4_K decodes slower but prefills faster than with the
     * AVX-512 q4_K_8x8 GEMM; x86 repacks no Q8_0, which stays as fitted. */
    static const uint32_t types[] = {GGML_TYPE_Q4_0, GGML_TYPE_Q4_K, GGML_TYPE_Q8_0};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        uint32_t ty = types[i];
        plan_speed_setup s = one_cpu(100, 10);
        s.load[0].bytes[ty] = 1e6;
        s.load[0].elems[ty] = 1e9;
        plan_speed_setup p = s;
        p.dev[0].cpu_isa = PLAN_REPACK_X86_AVX512;
        p.dev[0].plain = true;
        double tg = plan_speed_decode_s(&p, e, 0) / plan_speed_decode_s(&s, e, 0);
        double pp = plan_speed_pp_tps(&s, e, 512, 0) / plan_speed_pp_tps(&p, e, 512, 0);
        if (ty == GGML_TYPE_Q4_0) {
            CHECK(tg > 1.6 && tg <= 2.0 + 1e-9);
            CHECK(pp > 1.2 && pp < 1.5);
        } else if (ty == GGML_TYPE_Q4_K) {
            CHECK(tg > 1.5 && tg < 2.0);
            CHECK(pp < 0.6);
        } else {
            CHECK_NEAR(tg, 1.0, 1e-12);
            CHECK_NEAR(pp, 1.0, 1e-12);
        }
    }
    CHECK(plan_repack_type(PLAN_REPACK_ARM, GGML_TYPE_Q8_0) && !plan_repack_type(PLAN_REPACK_X86_AVX2, GGML_TYPE_Q8_0));
    CHECK_NEAR(plan_repack_plain_share(PLAN_REPACK_X86_AVX2, GGML_TYPE_Q8_0, true), 1.0, 1e-12);
}

/* A current x86 build prefills the K-quant and IQ types it does not repack with its tiled GEMM
 * (planner/tiled.c): faster with AVX512-VNNI's micro-kernel than with AVX2's, not at all on Arm, in an
 * older build, for a type repacked there, or in decode, where a batch of one runs vec_dot. */
static void test_tiled_prefill(const plan_efficiency *e) {
    plan_speed_setup s = one_cpu(100, 10);
    s.load[0].bytes[GGML_TYPE_IQ4_XS] = 1e6;
    s.load[0].elems[GGML_TYPE_IQ4_XS] = 1e9;
    s.dev[0].int8_share = plan_int8_share(PROBE_INT8_DOT);
    s.dev[0].cpu_isa = PLAN_REPACK_X86_AVX512;
    plan_speed_setup old = s;
    old.pre_tiled = true;
    double vnni = plan_speed_pp_tps(&s, e, 512, 0) / plan_speed_pp_tps(&old, e, 512, 0);
    CHECK_MSG(vnni > 3 && vnni < 8, "%g", vnni); /* the tiled GEMM's 5.3x, less the fixed costs */
    CHECK_NEAR(plan_speed_decode_s(&s, e, 0), plan_speed_decode_s(&old, e, 0), 1e-12);
    double share_vnni = plan_tiled_share(PLAN_REPACK_X86_AVX512, 1.0, GGML_TYPE_IQ4_XS);
    double share_avx2 = plan_tiled_share(PLAN_REPACK_X86_AVX2, 0.5, GGML_TYPE_IQ4_XS);
    CHECK(share_avx2 > 1 && share_avx2 < share_vnni);
    /* AVX-VNNI without AVX-512 runs AVX2's micro-kernel */
    CHECK_NEAR(plan_tiled_share(PLAN_REPACK_X86_AVX2, 1.0, GGML_TYPE_IQ4_XS), share_avx2, 1e-12);
    CHECK_NEAR(plan_tiled_share(PLAN_REPACK_ARM, 2.0, GGML_TYPE_IQ4_XS), 1.0, 1e-12);
    CHECK_NEAR(plan_tiled_share(PLAN_REPACK_NONE, 0, GGML_TYPE_IQ4_XS), 1.0, 1e-12);
    CHECK_NEAR(plan_tiled_share(PLAN_REPACK_X86_AVX512, 1.0, GGML_TYPE_Q4_K), 1.0, 1e-12); /* repacked */
    CHECK_NEAR(plan_tiled_share(PLAN_REPACK_X86_AVX512, 1.0, GGML_TYPE_Q2_K), 1.0, 1e-12); /* repacked there */
    CHECK(fabs(plan_tiled_share(PLAN_REPACK_X86_AVX2, 0.5, GGML_TYPE_Q2_K) - 1) > 0.05); /* tiled there (slower) */
    CHECK_NEAR(plan_tiled_share(PLAN_REPACK_X86_AVX512, 1.0, GGML_TYPE_Q8_0), 1.0, 1e-12);
    /* fitcheck's engine has no tiled GEMM */
    plan_speed_setup eng = s, eng_old = old;
    eng.engine = eng_old.engine = PLAN_ENG_FITCHECK;
    CHECK_NEAR(plan_speed_pp_tps(&eng, e, 512, 0), plan_speed_pp_tps(&eng_old, e, 512, 0), 1e-9);
    CHECK(plan_build_tiled(0) && plan_build_tiled(PLAN_TILED_BUILD) && !plan_build_tiled(PLAN_TILED_BUILD - 1));
}

static void test_split_adds_up(const plan_efficiency *e) {
    /* Two GPUs at 1000 GB/s holding 2 GB and 1 GB, 8 layers each (10 us each),
     * one hop (100 us): 2 ms + 1 ms + 160 us + 100 us. */
    plan_speed_setup s;
    memset(&s, 0, sizeof s);
    s.n_dev = 2;
    s.pp_dev = -1;
    s.n_hops = 1;
    for (int d = 0; d < 2; d++) {
        s.dev[d] = (plan_speed_dev){.backend = PLAN_CUDA, .mem_gbs = 1000, .gflops = 1e5, .link_gbs = 25};
        s.load[d].n_layers = 8;
        s.load[d].elems[GGML_TYPE_Q8_0] = 1e6;
    }
    s.load[0].bytes[GGML_TYPE_Q8_0] = 2e9;
    s.load[1].bytes[GGML_TYPE_Q8_0] = 1e9;
    CHECK_NEAR(plan_speed_decode_s(&s, e, 0), 0.002 + 0.001 + 16 * 10e-6 + 100e-6, 1e-6);
}

static void test_bus_bound_prefill(const plan_efficiency *e) {
    /* CPU holds 4 GB of layers, the GPU 1 GB; PCIe 25 GB/s. A 512-token ubatch
     * uploads the 4 GB (0.16 s), then the GPU computes 2 x 5e9 x 512 FLOPs at
     * 0.5 x 100 TFLOP/s (0.1024 s) — both on the GPU. */
    plan_speed_setup s;
    memset(&s, 0, sizeof s);
    s.n_dev = 2;
    s.pp_dev = 1;
    s.n_ubatch = 512;
    s.dev[0] = (plan_speed_dev){.backend = PLAN_CPU, .mem_gbs = 50, .gflops = 100};
    s.dev[1] = (plan_speed_dev){.backend = PLAN_CUDA, .mem_gbs = 1000, .gflops = 1e5, .link_gbs = 25};
    s.load[0].host_resident = true;
    s.load[0].bytes[GGML_TYPE_F16] = 4e9;
    s.load[0].elems[GGML_TYPE_F16] = 4e9;
    s.load[1].bytes[GGML_TYPE_F16] = 1e9;
    s.load[1].elems[GGML_TYPE_F16] = 1e9;
    double t_cpu_part = 0.16 + 2.0 * 4e9 * 512 / 5e13, t_gpu_part = 2.0 * 1e9 * 512 / 5e13;
    CHECK_NEAR(plan_speed_pp_tps(&s, e, 512, 0), 512 / (t_cpu_part + t_gpu_part), 0.5);
    /* Below 32 tokens the CPU computes its own layers: 2 x 4e9 x 16 / (0.5 x 100 GFLOP/s). */
    double small = 2.0 * 4e9 * 16 / 5e10 + 1e9 / 1e12; /* the GPU part: memory binds */
    CHECK_NEAR(plan_speed_pp_tps(&s, e, 16, 0), 16 / small, 0.01);
    /* Without a GPU to upload to, prefill stays on the CPU. */
    s.pp_dev = -1;
    CHECK(plan_speed_pp_tps(&s, e, 512, 0) < 512 / (t_cpu_part + t_gpu_part) / 10);
}

static void test_soc_prefill(const plan_efficiency *e) {
    /* 1e9 F16 weights on a 100 TFLOP/s GPU, 512 tokens: GEMMs 2 x 1e9 x 512 at
     * 0.5 x 1e14 = 20.5 ms (memory: 2 GB at 1000 GB/s = 2 ms), attention at
     * depth 0, 1e6 MACs per position: 2 x 1e6 x 512 x 256 at 0.5 x 1e14 = 5.2 ms.
     * In an SoC (soc_pp 0.5 here) the GEMMs take twice as long, attention not. */
    plan_speed_setup s = one_gpu(1000, 1e5);
    s.load[0].bytes[GGML_TYPE_F16] = 2e9;
    s.load[0].elems[GGML_TYPE_F16] = 1e9;
    s.load[0].attn_macs_full = 1e6;
    double gemm = 2.0 * 1e9 * 512 / 5e13, attn = 2.0 * 1e6 * 512 * 256 / 5e13;
    CHECK_NEAR(512 / plan_speed_pp_tps(&s, e, 512, 0), gemm + attn, 1e-5);
    s.dev[0].soc = true;
    CHECK_NEAR(512 / plan_speed_pp_tps(&s, e, 512, 0), 2 * gemm + attn, 1e-5);
    /* decode reads the same bytes at the same bandwidth */
    s.dev[0].soc = false;
    double dec = plan_speed_decode_s(&s, e, 0);
    s.dev[0].soc = true;
    CHECK_NEAR(plan_speed_decode_s(&s, e, 0), dec, 1e-12);
}

static void test_dequant_prefill(const plan_efficiency *e) {
    /* 1e9 Q4_0 weights (0.5625 GB) on a 1000 GB/s, 100 TFLOP/s CUDA card without
     * int8 tensor cores. From 64 tokens a batch reads them and writes an FP16
     * copy, (0.5625 + 2) GB at 1000 GB/s = 2.5625 ms, then the FP16 GEMM reads
     * the copy (2 ms) or computes 2 x 1e9 x 512 at 0.5 x 1e14 = 20.48 ms,
     * whichever binds. Below 64 tokens MMQ runs as on any card: 32 tokens,
     * max(0.5625 ms, 1.28 ms). */
    plan_speed_setup s = one_gpu(1000, 1e5);
    s.dev[0].dequant_gemm = true;
    s.load[0].bytes[GGML_TYPE_Q4_0] = 0.5625e9;
    s.load[0].elems[GGML_TYPE_Q4_0] = 1e9;
    CHECK_NEAR(512 / plan_speed_pp_tps(&s, e, 512, 0), 2.5625e-3 + 20.48e-3, 1e-6);
    CHECK_NEAR(32 / plan_speed_pp_tps(&s, e, 32, 0), 1.28e-3, 1e-6);
    s.dev[0].dequant_gemm = false;
    CHECK_NEAR(512 / plan_speed_pp_tps(&s, e, 512, 0), 20.48e-3, 1e-6);
    /* decode never dequantizes */
    double dec = plan_speed_decode_s(&s, e, 0);
    s.dev[0].dequant_gemm = true;
    CHECK_NEAR(plan_speed_decode_s(&s, e, 0), dec, 1e-12);
}

/* A two-layer MoE model: attention 1 MB per layer (Q8_0), 4 experts of which 2
 * are used, experts 8 MB per layer (Q4_K); output 2 MB (Q6_K). */
static void add_tensor(model_desc *m, const char *name, int layer, int role, uint32_t type, int64_t n0, int64_t n1,
                       int64_t n2, uint64_t bytes) {
    model_tensor *t = &m->tensors[m->n_tensors++];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->n_dims = n2 > 1 ? 3 : 2;
    t->ne[0] = n0, t->ne[1] = n1, t->ne[2] = n2, t->ne[3] = 1;
    t->type = type;
    t->bytes = bytes;
    t->layer = layer;
    t->role = role;
}

static void test_loads(void) {
    static model_tensor tensors[16];
    model_desc m;
    memset(&m, 0, sizeof m);
    m.tensors = tensors;
    m.hp.n_layer = 2;
    m.hp.n_embd = 64;
    m.hp.n_head = 4;
    m.hp.head_dim_k = m.hp.head_dim_v = 16;
    m.hp.n_expert = 4;
    m.hp.n_expert_used = 2;
    for (int il = 0; il < 2; il++) {
        m.hp.n_head_kv[il] = 2;
        add_tensor(&m, "attn_q", il, ROLE_ATTN_Q, GGML_TYPE_Q8_0, 1024, 1000, 1, 1000000);
        add_tensor(&m, "ffn_up_exps", il, ROLE_FFN_UP_EXPS, GGML_TYPE_Q4_K, 256, 100, 4, 8000000);
    }
    add_tensor(&m, "output", -1, ROLE_OUTPUT, GGML_TYPE_Q6_K, 256, 1000, 1, 2000000);
    add_tensor(&m, "token_embd", -1, ROLE_TOKEN_EMBD, GGML_TYPE_Q6_K, 256, 1000, 1, 2000000);

    plan_speed_setup s;
    memset(&s, 0, sizeof s);
    s.n_dev = 2;
    s.dev[0] = (plan_speed_dev){.backend = PLAN_CPU, .mem_gbs = 50, .gflops = 100};
    s.dev[1] = (plan_speed_dev){.backend = PLAN_CUDA, .mem_gbs = 1000, .gflops = 1e5, .link_gbs = 25};
    plan_speed_place pl;
    memset(&pl, 0, sizeof pl);
    pl.layer_dev[0] = pl.layer_dev[1] = 1;
    pl.output_dev = 1;
    pl.exps_dev = 0; /* -ot exps=CPU */
    pl.exps_layers = 2;
    pl.kv_type = GGML_TYPE_F16;
    fc_err err = {0};
    CHECK(plan_speed_loads(&s, &m, &pl, &err) == FC_OK);
    /* Experts on the CPU at the routed share (2 of 4): 2 x 8 MB x 0.5. */
    CHECK_NEAR(s.load[0].bytes[GGML_TYPE_Q4_K], 8e6, 1);
    CHECK_NEAR(s.load[0].exp_bytes[GGML_TYPE_Q4_K], 16e6, 1);
    CHECK_NEAR(s.load[0].exp_frac, 0.5, 1e-12);
    CHECK(s.load[0].n_layers == 0);
    CHECK_NEAR(s.load[1].bytes[GGML_TYPE_Q8_0], 2e6, 1);
    CHECK_NEAR(s.load[1].out_bytes, 2e6, 1);          /* the embedding table is not read whole */
    CHECK(s.load[1].n_layers == 2);
    CHECK(s.load[1].n_moe_layers == 2 && s.load[1].n_expert_used == 2);  /* the router runs with the layer */
    CHECK(s.load[0].n_moe_layers == 0);
    /* Graph nodes beyond a Llama layer's 9 tensor nodes: Q's product on the GPU, the experts' on the CPU. */
    CHECK_NEAR(s.load[1].extra_nodes, 2 * (1 - 9), 1e-9);
    CHECK_NEAR(s.load[0].extra_nodes, 2, 1e-9);
    /* KV per position: 2 layers x (2 heads x 16) x 2 (K, V) x 2 bytes = 256 */
    CHECK_NEAR(s.load[1].kv_bytes_full, 256, 1e-9);
    CHECK_NEAR(s.load[1].kv_elems_full, 128, 1e-9);
    CHECK_NEAR(s.load[1].attn_macs_full, 2 * 4 * 32, 1e-9);
    CHECK(s.n_hops == 4);                             /* to the CPU and back, per MoE layer */
    CHECK(s.pp_dev == 1 && s.load[0].host_resident && !s.load[1].host_resident);
    /* --n-cpu-moe 1: only layer 0's experts in RAM, one round trip. */
    pl.exps_layers = 1;
    CHECK(plan_speed_loads(&s, &m, &pl, &err) == FC_OK);
    CHECK_NEAR(s.load[0].bytes[GGML_TYPE_Q4_K], 4e6, 1);
    CHECK_NEAR(s.load[1].bytes[GGML_TYPE_Q4_K], 4e6, 1);
    CHECK(s.n_hops == 2);
    /* The engine's bench prediction: this machine's CPU, every tensor on it. */
    probe_profile prof;
    memset(&prof, 0, sizeof prof);
    prof.n_cores = 2;
    prof.read_gbs = 50;
    prof.sgemm_gflops_1t = 100;
    double pp1, tg1, pp2, tg2, pp_d, tg_d, pp_q8, tg_q8;
    const uint32_t f16 = GGML_TYPE_F16;
    CHECK(plan_predict_bench(&m, &prof, 1, f16, 512, 128, 0, &pp1, &tg1, &err) == FC_OK);
    CHECK(plan_predict_bench(&m, &prof, 2, f16, 512, 128, 0, &pp2, &tg2, &err) == FC_OK);
    CHECK(plan_predict_bench(&m, &prof, 2, f16, 512, 128, 4096, &pp_d, &tg_d, &err) == FC_OK);
    CHECK(plan_predict_bench(&m, &prof, 2, GGML_TYPE_Q8_0, 512, 128, 4096, &pp_q8, &tg_q8, &err) == FC_OK);
    CHECK(pp1 > 0 && tg1 > 0 && pp2 > pp1 && tg2 >= tg1); /* more threads, more compute */
    CHECK(pp_d < pp2 && tg_d < tg2);                      /* a full cache costs */
    CHECK(tg_q8 > tg_d && tg_q8 < tg2);                   /* a q8_0 cache costs about half as much */
    prof.read_gbs = 0;
    CHECK(plan_predict_bench(&m, &prof, 2, f16, 512, 128, 0, &pp1, &tg1, &err) == FC_EINPUT);
    /* A layer on a device that does not exist is refused. */
    pl.layer_dev[1] = 5;
    CHECK(plan_speed_loads(&s, &m, &pl, &err) == FC_EINPUT);
}

/* One conversion from a probed GPU to the speed model (issue 13): the probe's
 * measured read when there is one, else the datasheet's figure times the read
 * fraction; the profile path and calibrate's import agree. */
static void test_gpu_conversion(void) {
    probe_gpu g;
    memset(&g, 0, sizeof g);
    snprintf(g.name, sizeof g.name, "Test GPU");
    snprintf(g.api, sizeof g.api, "cuda");
    g.vram_total = 24ull << 30;
    g.theoretical_gbs = 1000;
    g.read_gbs = 870;
    g.fp16_tflops = 100;
    plan_device d;
    plan_speed_dev s;
    plan_device_from_gpu(&d, &g);
    plan_speed_dev_from_device(&s, &d);
    CHECK(d.backend == PLAN_CUDA && d.bandwidth_measured);
    CHECK_NEAR(s.mem_gbs, 870, 1e-9);
    g.read_gbs = 0;
    plan_device_from_gpu(&d, &g);
    plan_speed_dev_from_device(&s, &d);
    CHECK(!d.bandwidth_measured);
    CHECK_NEAR(s.mem_gbs, 1000 * PLAN_GPU_READ_OF_SPEC, 1e-9);
    CHECK_NEAR(s.gflops, 100000, 1e-6);
    /* The probe times tensor cores on sm_80 and newer only: a Volta or Turing
     * card's rate is 8x its measured FP32 one, as the catalog has it; Volta
     * (sm_70) has no int8 tensor cores, so llama.cpp dequantizes there. */
    g.fp16_tflops = 0;
    g.fp32_tflops = 14;
    g.cc_major = 7;
    g.cc_minor = 0;
    plan_device_from_gpu(&d, &g);
    plan_speed_dev_from_device(&s, &d);
    CHECK_NEAR(s.gflops, 112000, 1e-6);
    CHECK(s.dequant_gemm);
    g.cc_minor = 5;
    plan_device_from_gpu(&d, &g);
    plan_speed_dev_from_device(&s, &d);
    CHECK_NEAR(s.gflops, 112000, 1e-6);
    CHECK(!s.dequant_gemm);
    snprintf(g.name, sizeof g.name, "NVIDIA GeForce GTX 1660 SUPER"); /* Turing without tensor cores */
    plan_device_from_gpu(&d, &g);
    plan_speed_dev_from_device(&s, &d);
    CHECK_NEAR(s.gflops, 14000, 1e-6);
    CHECK(!s.dequant_gemm);
    /* a catalog card is on the same basis */
    plan_hw hw;
    fc_err err = {0};
    CHECK(plan_hw_from_catalog(&hw, "rtx-4090", &err) == FC_OK);
    plan_speed_dev_from_device(&s, &hw.gpu[0]);
    CHECK_NEAR(s.mem_gbs, 1008 * PLAN_GPU_READ_OF_SPEC, 1e-9);
    /* its decode on its vector units' int8 dot rate: on a GeForce since Ampere, its FP16 tensor figure */
    CHECK_NEAR(s.dec_gflops, PLAN_INT8_PER_FP32_DP4A * 82600, 1e-6);
    CHECK_NEAR(s.dec_gflops, s.gflops, 1e-3 * s.gflops);
    /* a V100 pairs each FP32 lane with an INT32 one (an RTX 4090, one INT32 lane per two): twice the 4090's
     * decode rate per FP32 FLOP, its matrix rate (8x FP32); an RTX 5090's lanes all do INT32 too */
    CHECK(plan_hw_from_catalog(&hw, "v100-32gb-pcie", &err) == FC_OK);
    plan_speed_dev_from_device(&s, &hw.gpu[0]);
    CHECK_NEAR(s.dec_gflops, 2 * PLAN_INT8_PER_FP32_DP4A * 14000, 1e-6);
    CHECK(plan_hw_from_catalog(&hw, "rtx-5090", &err) == FC_OK);
    plan_speed_dev_from_device(&s, &hw.gpu[0]);
    CHECK_NEAR(s.dec_gflops, 2 * PLAN_INT8_PER_FP32_DP4A * 104800, 1e-6);
    /* Apple's GPUs: their FP32 ALU rate is already what every kernel runs on */
    CHECK(plan_hw_from_catalog(&hw, "apple-m2-max", &err) == FC_OK);
    plan_speed_dev_from_device(&s, &hw.gpu[0]);
    CHECK(s.dec_gflops == 0 && s.gflops > 0);
    /* An Arc A770 computes at its XMX rate with SYCL, at its vector rate with
     * Vulkan (ggml-vulkan enables cooperative matrices on Intel for Xe2 only);
     * the corpus's rows get the same figures. */
    CHECK(plan_hw_from_catalog(&hw, "arc-a770-16gb", &err) == FC_OK);
    plan_speed_dev_from_device(&s, &hw.gpu[0]);
    CHECK(hw.gpu[0].backend == PLAN_SYCL);
    CHECK_NEAR(s.gflops, 137600, 1e-6);
    hw.gpu[0].backend = PLAN_VULKAN;
    plan_speed_dev_from_device(&s, &hw.gpu[0]);
    CHECK_NEAR(s.gflops, 34400, 1e-6);
    CHECK(plan_corpus_device("arc-a770-16gb", PLAN_VULKAN, &s, &err) == FC_OK);
    CHECK_NEAR(s.gflops, 34400, 1e-6);
    /* Battlemage (Xe2) has cooperative matrices on Vulkan, yet its measured Vulkan prefill stays below its vector
     * rate (data/hardware.json's vulkan_tflops: a B580's 8.3 TFLOPS of GEMM, a B50's 3.1); with SYCL, XMX */
    CHECK(plan_corpus_device("arc-b580", PLAN_VULKAN, &s, &err) == FC_OK);
    CHECK_NEAR(s.gflops, 27340, 1e-6);
    CHECK(plan_corpus_device("arc-b580", PLAN_SYCL, &s, &err) == FC_OK);
    CHECK_NEAR(s.gflops, 109400, 1e-6);
    /* a GPU in the CPU's package, on a backend that also runs discrete cards, is an SoC; Apple's is Metal's own */
    CHECK(plan_hw_from_catalog(&hw, "ryzen-ai-max-plus-395", &err) == FC_OK);
    plan_speed_dev_from_device(&s, &hw.gpu[0]);
    CHECK(s.soc);
    CHECK(plan_hw_from_catalog(&hw, "apple-m4-max-40c", &err) == FC_OK);
    plan_speed_dev_from_device(&s, &hw.gpu[0]);
    CHECK(!s.soc);
    CHECK(plan_corpus_device("radeon-780m", PLAN_ROCM, &s, &err) == FC_OK && s.soc);
    CHECK(plan_corpus_device("rtx-4090", PLAN_CUDA, &s, &err) == FC_OK && !s.soc);
}

int main(void) {
    test_gpu_conversion();
    plan_efficiency e;
    memset(&e, 0, sizeof e);
    fc_err err = {0};
    CHECK_MSG(plan_efficiency_parse_csv(&e, eff_csv, "test", &err) == FC_OK, "%s", err.msg);
    test_bandwidth_bound(&e);
    test_compute_bound(&e);
    test_decode_bound(&e);
    test_depth(&e);
    test_plain_buffers(&e);
    test_old_build(&e);
    test_split_adds_up(&e);
    test_bus_bound_prefill(&e);
    test_soc_prefill(&e);
    test_dequant_prefill(&e);
    test_attention_paths(&e);
    test_moe_layers(&e);
    test_layer_nodes();
    test_cpu_threads(&e);
    test_cpu_int8(&e);
    test_tiled_prefill(&e);
    test_family_prefill();
    test_loads();
    /* The built-in table parses and is complete. */
    plan_efficiency b;
    CHECK_MSG(plan_efficiency_builtin(&b, &err) == FC_OK, "%s", err.msg);
    CHECK(b.set[PLAN_CPU][PLAN_ENG_LLAMACPP].scalar[PLAN_EFF_BW] > 0.5);
    /* The engine's decode attention is per cached element; llama.cpp's per query. */
    CHECK(b.set[PLAN_CPU][PLAN_ENG_FITCHECK].scalar[PLAN_EFF_ATTN_KV] > 0);
    CHECK(!(b.set[PLAN_CPU][PLAN_ENG_FITCHECK].scalar[PLAN_EFF_ATTN_DEC] > 0));
    CHECK(b.set[PLAN_CPU][PLAN_ENG_LLAMACPP].scalar[PLAN_EFF_ATTN_DEC] > 0);
    /* llama.cpp's flash-attention decode costs per cached element on every GPU backend; Metal's plain path
     * (-fa 0) has a per-query-MAC rate of its own (data/efficiency_prior.csv). */
    for (int be = 0; be < PLAN_BACKEND_COUNT; be++) {
        if (be == PLAN_CPU) continue;
        const plan_eff_set *g = &b.set[be][PLAN_ENG_LLAMACPP];
        bool metal = be == PLAN_METAL;
        CHECK_MSG((g->scalar[PLAN_EFF_ATTN_DEC] > 0) == metal && g->scalar[PLAN_EFF_ATTN_KV] > 0, "%s",
                  plan_backend_name(be));
    }
    /* 0 switches off a decode attention term, and nothing else */
    CHECK(plan_efficiency_parse_csv(&e, "h\ncuda,llama.cpp,attn_dec,,0,x\n", "ok.csv", &err) == FC_OK);
    CHECK(plan_efficiency_parse_csv(&e, "h\ncuda,llama.cpp,bw_eff,,0,x\n", "bad.csv", &err) == FC_EINPUT);
    CHECK(plan_efficiency_parse_csv(&e, "h\ncuda,llama.cpp,attn_kv,,-1,x\n", "bad.csv", &err) == FC_EINPUT);
    /* Hostile efficiency rows are refused with the line named. */
    CHECK(plan_efficiency_parse_csv(&e, "h\ncpu,llama.cpp,bw_eff,,-1,x\n", "bad.csv", &err) == FC_EINPUT);
    CHECK(strstr(err.msg, "bad.csv:2") != NULL);
    CHECK(plan_efficiency_parse_csv(&e, "h\ncpu,llama.cpp,nope,,1,x\n", "bad.csv", &err) == FC_EINPUT);
    CHECK(plan_efficiency_parse_csv(&e, "h\ntpu,llama.cpp,bw_eff,,1,x\n", "bad.csv", &err) == FC_EINPUT);
    CHECK(plan_efficiency_parse_csv(&e, "h\ncpu,llama.cpp,dec_rate,q9_9,1,x\n", "bad.csv", &err) == FC_EINPUT);
    /* A CPU from its datasheet has its own llama.cpp set; fitcheck's engine has none (it runs on a probed machine). */
    CHECK(plan_efficiency_parse_csv(&e, "h\ncpu-datasheet,fitcheck,bw_eff,,0.9,x\n", "bad.csv", &err) == FC_EINPUT);
    CHECK(strstr(err.msg, "bad.csv:2") != NULL);
    plan_speed_dev probed = {.backend = PLAN_CPU}, sheet = {.backend = PLAN_CPU, .datasheet = true};
    CHECK(plan_eff_set_of(&probed, PLAN_ENG_LLAMACPP) == PLAN_CPU);
    CHECK(plan_eff_set_of(&sheet, PLAN_ENG_LLAMACPP) == PLAN_EFF_SET_CPU_DATASHEET);
    CHECK(plan_eff_set_of(&sheet, PLAN_ENG_FITCHECK) == PLAN_CPU);
    /* the catalog's CPU platforms are on the datasheet basis, this machine's probe on the measured one */
    plan_device cat = {.backend = PLAN_CPU, .bandwidth_gbs = 100}, meas = cat;
    meas.bandwidth_measured = true;
    plan_speed_dev_from_device(&sheet, &cat);
    plan_speed_dev_from_device(&probed, &meas);
    CHECK(sheet.datasheet && !probed.datasheet);
    /* the two sets differ: the datasheet one is fitted to the corpus, the measured one to this machine's runs */
    const plan_eff_set *ds = &b.set[PLAN_EFF_SET_CPU_DATASHEET][PLAN_ENG_LLAMACPP], *ms = &b.set[PLAN_CPU][PLAN_ENG_LLAMACPP];
    CHECK(plan_eff_typed_get(ds, PLAN_EFF_PP, GGML_TYPE_Q4_0) != plan_eff_typed_get(ms, PLAN_EFF_PP, GGML_TYPE_Q4_0));
    return check_done("speed");
}
