/* A host of several NUMA nodes (planner/numa.c): which node a plan binds
 * llama.cpp to, when it binds rather than spreads, and the command that says so. */
#include "planner/planner.h"
#include "tests/check.h"

#include <string.h>

#define GIB (1ull << 30)

/* Two sockets of 16 cores and 128 GiB, node 1 the faster reader. */
static void two_nodes(probe_profile *p) {
    memset(p, 0, sizeof *p);
    snprintf(p->cpu_model, sizeof p->cpu_model, "two sockets");
    p->n_cores = 32, p->n_numa = 2;
    p->ram_total = 256 * GIB, p->ram_available = 200 * GIB;
    p->numa_mem[0] = p->numa_mem[1] = 128 * GIB;
    p->numa_read_gbs[0] = 90, p->numa_read_gbs[1] = 100;
    p->numa_cores[0] = p->numa_cores[1] = 16;
    p->read_gbs = 190, p->sgemm_gflops_1t = 50;
}

static void check_node_choice(void) {
    probe_profile *p = calloc(1, sizeof *p);
    plan_hw hw;
    fc_err err = {0};
    two_nodes(p);
    CHECK_MSG(plan_hw_from_profile(&hw, p, &err) == FC_OK, "%s", err.msg);
    /* no GPU: the node that reads fastest, with its own figures */
    CHECK(hw.host.n_numa == 2 && hw.host.numa_node == 1 && hw.host.numa_cores == 16);
    CHECK_NEAR(hw.host.numa_gbs, 100, 1e-9);
    CHECK(hw.host.numa_mem == 128 * GIB);
    /* a discrete GPU on node 0 takes the plan there */
    p->n_gpus = 1;
    snprintf(p->gpus[0].name, sizeof p->gpus[0].name, "card");
    p->gpus[0].vram_total = 24 * GIB, p->gpus[0].numa_node = 0, p->gpus[0].read_gbs = 900;
    CHECK(plan_hw_from_profile(&hw, p, &err) == FC_OK && hw.host.numa_node == 0);
    CHECK_NEAR(hw.host.numa_gbs, 90, 1e-9);
    /* a quick profile (no per-node read) from before the cores were counted:
     * the cores shared evenly, each node the all-core read's share of them */
    two_nodes(p);
    p->numa_read_gbs[0] = p->numa_read_gbs[1] = 0;
    p->numa_cores[0] = p->numa_cores[1] = 0;
    CHECK(plan_hw_from_profile(&hw, p, &err) == FC_OK && hw.host.numa_node == 0 && hw.host.numa_cores == 16);
    CHECK_NEAR(hw.host.numa_gbs, 95, 1e-9);
    /* ... whose nodes differ: the one with more cores reads more */
    p->numa_cores[0] = 2, p->numa_cores[1] = 30;
    CHECK(plan_hw_from_profile(&hw, p, &err) == FC_OK && hw.host.numa_node == 1 && hw.host.numa_cores == 30);
    /* hostile figures stay within the machine's: no node has more cores or read than all of them */
    two_nodes(p);
    p->numa_cores[0] = 1 << 20, p->numa_read_gbs[0] = 5000;
    CHECK(plan_hw_from_profile(&hw, p, &err) == FC_OK && hw.host.numa_node == 0 && hw.host.numa_cores == 32);
    CHECK_NEAR(hw.host.numa_gbs, 190, 1e-9);
    /* numactl takes the operating system's node numbers, and so does a GPU's numa_node */
    two_nodes(p);
    p->numa_ids[0] = 2, p->numa_ids[1] = 5;
    CHECK(plan_hw_from_profile(&hw, p, &err) == FC_OK && hw.host.numa_node == 5);
    p->n_gpus = 1;
    snprintf(p->gpus[0].name, sizeof p->gpus[0].name, "card");
    p->gpus[0].vram_total = 24 * GIB, p->gpus[0].numa_node = 2, p->gpus[0].read_gbs = 900;
    CHECK(plan_hw_from_profile(&hw, p, &err) == FC_OK && hw.host.numa_node == 2);
    CHECK_NEAR(hw.host.numa_gbs, 90, 1e-9);
    p->gpus[0].numa_node = 1; /* no node has that number: the fastest */
    CHECK(plan_hw_from_profile(&hw, p, &err) == FC_OK && hw.host.numa_node == 5);
    /* a node of memory only (CXL, HBM): never bound, not even for the GPU next to it */
    two_nodes(p);
    p->n_numa = 3;
    p->numa_mem[2] = 64 * GIB, p->numa_read_gbs[2] = 0, p->numa_cores[2] = 0;
    p->numa_read_gbs[0] = 100, p->numa_read_gbs[1] = 90;
    p->n_gpus = 1;
    snprintf(p->gpus[0].name, sizeof p->gpus[0].name, "card");
    p->gpus[0].vram_total = 24 * GIB, p->gpus[0].numa_node = 2;
    CHECK(plan_hw_from_profile(&hw, p, &err) == FC_OK && hw.host.numa_node == 0 && hw.host.numa_cores == 16);
    p->numa_read_gbs[0] = 0; /* a quick profile: node 2's even share is no estimate, it has no cores */
    p->numa_read_gbs[1] = 0;
    p->numa_cores[0] = 12, p->numa_cores[1] = 20;
    CHECK(plan_hw_from_profile(&hw, p, &err) == FC_OK && hw.host.numa_node == 1 && hw.host.numa_cores == 20);
    /* hwloc's node sizes disagreeing with the RAM kept (a VM): their proportion of it */
    two_nodes(p);
    p->numa_mem[0] = p->numa_mem[1] = GIB;
    CHECK(plan_hw_from_profile(&hw, p, &err) == FC_OK && hw.host.numa_mem == 128 * GIB);
    /* one node: nothing to place */
    two_nodes(p);
    p->n_numa = 1;
    CHECK(plan_hw_from_profile(&hw, p, &err) == FC_OK && hw.host.n_numa == 0);
    plan_dev_mem need = {.total = GIB};
    CHECK(plan_numa_place(&hw.host, &need) == PLAN_NUMA_ONE);
    free(p);
}

static void check_place_and_command(void) {
    probe_profile *p = calloc(1, sizeof *p);
    plan_hw hw;
    fc_err err = {0};
    two_nodes(p);
    CHECK(plan_hw_from_profile(&hw, p, &err) == FC_OK);
    free(p);
    /* node 1's share of what is free now: 128 GiB x 200 / 256 */
    CHECK(plan_numa_free(&hw.host) == 100 * GIB);
    plan_dev_mem small = {.total = 100 * GIB}, big = {.total = 100 * GIB + 1};
    CHECK(plan_numa_place(&hw.host, &small) == PLAN_NUMA_PIN);
    CHECK(plan_numa_place(&hw.host, &big) == PLAN_NUMA_SPREAD);

    plan_params prm = {.n_ctx = 4096, .n_ubatch = PLAN_DEFAULT_UBATCH, .n_batch = PLAN_DEFAULT_BATCH,
                       .type_k = GGML_TYPE_F16, .type_v = GGML_TYPE_F16, .flash_attn = true};
    char llama[PLAN_CMD_MAX], ollama[256];
    plan_command_line(&prm, NULL, 0, &hw.host, PLAN_NUMA_PIN, "m.gguf", llama, sizeof llama, ollama, sizeof ollama);
    CHECK_MSG(!strncmp(llama, "numactl --cpunodebind=1 --membind=1 llama-server -m m.gguf ", 59), "%s", llama);
    CHECK_MSG(strstr(llama, " -t 16") && !strstr(llama, "--numa"), "%s", llama);
    plan_command_line(&prm, NULL, 0, &hw.host, PLAN_NUMA_SPREAD, "m.gguf", llama, sizeof llama, ollama, sizeof ollama);
    CHECK_MSG(!strncmp(llama, "llama-server ", 13) && strstr(llama, " --numa distribute") && !strstr(llama, " -t "),
              "%s", llama);
    plan_command_line(&prm, NULL, 0, &hw.host, PLAN_NUMA_ONE, "m.gguf", llama, sizeof llama, ollama, sizeof ollama);
    CHECK_MSG(!strstr(llama, "numa") && !strstr(llama, " -t "), "%s", llama);
    /* each case says what it does, and one node says nothing */
    char note[PLAN_NOTE_LEN];
    plan_numa_note(&hw.host, &small, PLAN_NUMA_PIN, note, sizeof note);
    CHECK_MSG(strstr(note, "node 1 (16 cores)"), "%s", note);
    plan_numa_note(&hw.host, &big, PLAN_NUMA_SPREAD, note, sizeof note);
    CHECK_MSG(strstr(note, "--numa distribute") && strstr(note, "100.00 GiB"), "%s", note);
    plan_numa_note(&hw.host, &big, PLAN_NUMA_ONE, note, sizeof note);
    CHECK(note[0] == '\0');
    /* an rpc-server's CPU: bound the same way, but it has no --numa distribute to spread with */
    plan_device server = hw.host;
    server.rpc = true;
    plan_numa_note(&server, &small, PLAN_NUMA_PIN, note, sizeof note);
    CHECK_MSG(strstr(note, "rpc-server bound to node 1 (16 cores)"), "%s", note);
    plan_numa_note(&server, &big, PLAN_NUMA_SPREAD, note, sizeof note);
    CHECK_MSG(strstr(note, "rpc-server runs unbound") && !strstr(note, "distribute"), "%s", note);
    CHECK(!strcmp(plan_numa_name(PLAN_NUMA_SPREAD), "spread") && !strcmp(plan_numa_name(7), "?"));
}

/* The same catalog CPU platform twice is one host of two sockets: their
 * memory adds up, llama.cpp's bandwidth stays one socket's (on the datasheet
 * CPU's read basis), and each socket has half the cores. Two different
 * platforms are no machine. */
static void check_catalog_sockets(void) {
    plan_hw one, two;
    fc_err err = {0};
    CHECK_MSG(plan_hw_from_catalog(&one, "amd-epyc-9005:384", &err) == FC_OK, "%s", err.msg);
    CHECK_MSG(plan_hw_from_catalog(&two, "amd-epyc-9005:384,amd-epyc-9005:384", &err) == FC_OK, "%s", err.msg);
    CHECK(one.host.n_numa == 0 && two.host.n_numa == 2 && two.host.numa_cores == 0);
    CHECK(two.host.mem_total == 2 * one.host.mem_total && two.host.numa_mem == one.host.mem_total);
    CHECK_NEAR(two.host.numa_gbs, one.host.bandwidth_gbs, 1e-9);
    CHECK_NEAR(two.host.bandwidth_gbs, 2 * one.host.bandwidth_gbs, 1e-9);
    /* the speed model's device: one socket's read on the datasheet CPU's basis, both sockets' compute */
    plan_speed_dev d1, d2;
    plan_speed_dev_from_device(&d1, &one.host);
    plan_speed_dev_from_device(&d2, &two.host);
    CHECK_NEAR(d2.mem_gbs, d1.mem_gbs, 1e-9);
    CHECK_NEAR(d2.gflops, 2 * d1.gflops, 1e-6);
    /* no core count to give -t: spread even where the model fits one socket */
    plan_dev_mem small = {.total = GIB};
    CHECK(plan_numa_place(&two.host, &small) == PLAN_NUMA_SPREAD);
    CHECK(plan_hw_from_catalog(&two, "amd-epyc-9005,amd-epyc-9004", &err) == FC_EINPUT);
    CHECK_MSG(strstr(err.msg, "'amd-epyc-9005,amd-epyc-9005'"), "%s", err.msg);
}

/* A CPU device from a profile (fitcheck's own engine, llama-bench records
 * being calibrated), whose threads are not placed by node, reads at most the
 * fastest node's bandwidth. */
static void check_engine_device(void) {
    probe_profile *p = calloc(1, sizeof *p);
    plan_speed_dev d;
    two_nodes(p);
    CHECK(plan_speed_dev_cpu(&d, p, 32) == FC_OK);
    CHECK_NEAR(d.mem_gbs, 100, 1e-9);
    p->n_numa = 1;
    CHECK(plan_speed_dev_cpu(&d, p, 32) == FC_OK);
    CHECK_NEAR(d.mem_gbs, 190, 1e-9);
    free(p);
}

int main(void) {
    check_engine_device();
    check_node_choice();
    check_place_and_command();
    check_catalog_sockets();
    return check_done("numa");
}
