/* A host of several NUMA nodes: where llama.cpp's CPU threads run and where
 * its weights live (docs/speed-model.md, "Several NUMA nodes").
 *
 * The probe's all-core read is the sum of the nodes': each of its threads
 * reads memory it placed on its own node. llama.cpp's weights are not placed
 * that way: they sit in the page cache (mmap) or in buffers its loading thread
 * filled, on whichever node first touched them, while its threads read every
 * row. Published runs show what that costs:
 *   - threads on every node, default placement: no faster than one node, and
 *     often slower. Two Xeon Gold 5218 decoded ~4 t/s on both sockets, ~8 t/s
 *     bound to one by numactl --cpunodebind --membind (mozilla-ai/llamafile
 *     #765); two E5-2698B v3 decoded a 65B Q5_1 at 1114 ms per token with 16
 *     threads and 1296 ms with 32 (llama.cpp #1556);
 *   - --numa distribute (threads pinned evenly), the model cached by a prompt:
 *     Llama-3.1-70B F16 at 2.4 t/s on two EPYC 9175F with 16 DDR5-6400 DIMMs,
 *     338 GB/s, about one socket's 410 GB/s theoretical (llama.cpp #11744);
 *     caching it again during generation gave 4.31 t/s there: a procedure
 *     that issue describes, not what llama.cpp does by itself.
 * So a plan binds llama.cpp to one node when the host's part fits in that
 * node's memory (its measured read, its cores), and otherwise spreads it with
 * --numa distribute: one node's read, every core's compute. */
#include "planner/planner.h"

#include <math.h>

int plan_numa_fastest(const probe_profile *p) {
    int node = 0;
    for (int k = 1; k < p->n_numa && k < PROBE_MAX_NUMA; k++)
        if (p->numa_read_gbs[k] > p->numa_read_gbs[node]) node = k;
    return node;
}

int plan_numa_node_cores(const probe_profile *p, int node) {
    int n = p->numa_cores[node] > 0 ? p->numa_cores[node] : p->n_cores / (p->n_numa > 1 ? p->n_numa : 1);
    return n > 0 ? n : 1;
}

double plan_numa_node_gbs(const probe_profile *p, int node) {
    if (p->numa_read_gbs[node] > 0) return p->numa_read_gbs[node];
    return p->n_cores > 0 ? p->read_gbs * plan_numa_node_cores(p, node) / p->n_cores : p->read_gbs;
}

const char *plan_numa_name(int numa) {
    static const char *const name[] = {[PLAN_NUMA_ONE] = "one", [PLAN_NUMA_PIN] = "pin", [PLAN_NUMA_SPREAD] = "spread"};
    return numa >= 0 && numa < (int)FC_ARRAY_LEN(name) ? name[numa] : "?";
}

uint64_t plan_numa_free(const plan_device *host) {
    if (!host->mem_total) return host->numa_mem;
    return (uint64_t)((double)host->numa_mem * (double)host->mem_free / (double)host->mem_total);
}

double plan_numa_core_share(const plan_device *host) {
    if (host->n_numa < 2) return 1.0;
    if (host->numa_cores > 0 && host->n_cores > 0) return fmin(1.0, (double)host->numa_cores / host->n_cores);
    return 1.0 / host->n_numa;
}

int plan_numa_place(const plan_device *host, const plan_dev_mem *need) {
    if (host->n_numa < 2 || !(host->numa_gbs > 0)) return PLAN_NUMA_ONE;
    return need->total <= plan_numa_free(host) ? PLAN_NUMA_PIN : PLAN_NUMA_SPREAD;
}

void plan_numa_note(const plan_device *host, const plan_dev_mem *need, int numa, char *buf, size_t cap) {
    char a[24], b[24];
    char cores[40] = "its cores: -t their count";
    if (host->numa_cores > 0) snprintf(cores, sizeof cores, "%d core%s", host->numa_cores, host->numa_cores == 1 ? "" : "s");
    if (numa == PLAN_NUMA_PIN)
        snprintf(buf, cap, "NUMA: %d nodes; llama.cpp bound to node %d (%s, %.1f GB/s read), as the command "
                 "says: threads on every node read weights across the link between them (llama.cpp #1556); drop the "
                 "page cache first if the file was cached on another node", host->n_numa, host->numa_node, cores,
                 host->numa_gbs);
    else if (numa == PLAN_NUMA_SPREAD)
        snprintf(buf, cap, "NUMA: the host part (%s) exceeds node %d's free memory (%s): spread with --numa "
                 "distribute, decode at one node's read (%.1f GB/s; llama.cpp #11744)",
                 fc_fmt_bytes(need->total, a, sizeof a), host->numa_node,
                 fc_fmt_bytes(plan_numa_free(host), b, sizeof b), host->numa_gbs);
    else if (cap)
        buf[0] = '\0';
}
