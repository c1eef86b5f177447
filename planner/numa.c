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
 * So the speed model reads one node's bandwidth on such a host whatever the
 * placement (plan_speed_dev_from_device), and a plan binds llama.cpp to one
 * node when the host's part fits in that node's memory and the node's cores
 * are known (its cores' compute), and otherwise spreads it with --numa
 * distribute (every core's compute). */
#include "planner/planner.h"

#include <math.h>

/* A probe profile's nodes are indexed as hwloc counts them; numactl and a
 * GPU's numa_node use the operating system's numbers (numa_ids). A profile
 * without them (before 6 Dec 2026) has all 0: the index. */
static bool ids_recorded(const probe_profile *p) {
    for (int k = 1; k < p->n_numa && k < PROBE_MAX_NUMA; k++)
        if (p->numa_ids[k]) return true;
    return false;
}

int plan_numa_os(const probe_profile *p, int node) { return ids_recorded(p) ? p->numa_ids[node] : node; }

int plan_numa_of_os(const probe_profile *p, int os) {
    for (int k = 0; k < p->n_numa && k < PROBE_MAX_NUMA; k++)
        if (plan_numa_os(p, k) == os) return k;
    return -1;
}

/* Whether the probe counted each node's cores: then a node at 0 has none
 * (memory only, nothing to bind threads to); else they are shared evenly. */
static bool cores_counted(const probe_profile *p) {
    for (int k = 0; k < p->n_numa && k < PROBE_MAX_NUMA; k++)
        if (p->numa_cores[k] > 0) return true;
    return false;
}

/* Each figure within what the whole machine has: a hostile or stale profile
 * never gives one node more cores or more read than all of them. */
int plan_numa_node_cores(const probe_profile *p, int node) {
    int all = p->n_cores > 0 ? p->n_cores : 1;
    if (cores_counted(p)) return p->numa_cores[node] < all ? p->numa_cores[node] : all;
    int even = all / (p->n_numa > 1 ? p->n_numa : 1);
    return even > 0 ? even : 1;
}

double plan_numa_node_gbs(const probe_profile *p, int node) {
    double share = p->n_cores > 0 ? p->read_gbs * plan_numa_node_cores(p, node) / p->n_cores : p->read_gbs;
    double own = p->numa_read_gbs[node] > 0 ? p->numa_read_gbs[node] : share;
    return p->read_gbs > 0 ? fmin(own, p->read_gbs) : own;
}

int plan_numa_fastest(const probe_profile *p) {
    int node = -1;
    for (int k = 0; k < p->n_numa && k < PROBE_MAX_NUMA; k++)
        if (plan_numa_node_cores(p, k) > 0 && (node < 0 || plan_numa_node_gbs(p, k) > plan_numa_node_gbs(p, node)))
            node = k;
    return node < 0 ? 0 : node;
}

const char *plan_numa_name(int numa) {
    static const char *const name[] = {[PLAN_NUMA_ONE] = "one", [PLAN_NUMA_PIN] = "pin", [PLAN_NUMA_SPREAD] = "spread"};
    return numa >= 0 && numa < (int)FC_ARRAY_LEN(name) ? name[numa] : "?";
}

uint64_t plan_numa_free(const plan_device *host) {
    if (!host->mem_total) return host->numa_mem;
    return (uint64_t)((double)host->numa_mem * (double)host->mem_free / (double)host->mem_total);
}

/* Bound only where the node's cores are known, so that the command can give
 * llama.cpp their count (its default -t counts every core of the machine):
 * a catalog's sockets are spread. */
int plan_numa_place(const plan_device *host, const plan_dev_mem *need) {
    if (host->n_numa < 2 || !(host->numa_gbs > 0)) return PLAN_NUMA_ONE;
    return host->numa_cores > 0 && need->total <= plan_numa_free(host) ? PLAN_NUMA_PIN : PLAN_NUMA_SPREAD;
}

size_t plan_numa_bind(const plan_device *host, char *buf, size_t cap) {
    int n = snprintf(buf, cap, "numactl --cpunodebind=%d --membind=%d ", host->numa_node, host->numa_node);
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap ? cap - 1 : 0;
}

/* An rpc-server's CPU (host->rpc) is bound the same way, but has no --numa
 * distribute to spread with: a part bigger than a node runs unbound. */
void plan_numa_note(const plan_device *host, const plan_dev_mem *need, int numa, char *buf, size_t cap) {
    char a[24], b[24];
    const char *who = host->rpc ? "rpc-server" : "llama.cpp";
    const char *spread = host->rpc ? "rpc-server runs unbound (it has no --numa)" : "spread with --numa distribute";
    if (numa == PLAN_NUMA_PIN)
        snprintf(buf, cap, "NUMA: %d nodes; %s bound to node %d (%d core%s), as the command says: threads on "
                 "every node read weights across the link between them (llama.cpp #1556); drop the page cache first "
                 "if the file was cached on another node", host->n_numa, who, host->numa_node, host->numa_cores,
                 host->numa_cores == 1 ? "" : "s");
    else if (numa == PLAN_NUMA_SPREAD && host->numa_cores > 0)
        snprintf(buf, cap, "NUMA: the %s part (%s) exceeds node %d's free memory (%s): %s, decode at one node's read "
                 "(llama.cpp #11744)", host->rpc ? "server's" : "host", fc_fmt_bytes(need->total, a, sizeof a),
                 host->numa_node, fc_fmt_bytes(plan_numa_free(host), b, sizeof b), spread);
    else if (numa == PLAN_NUMA_SPREAD)
        snprintf(buf, cap, "NUMA: %d sockets, %s: decode at one socket's read (llama.cpp #11744); a model that fits "
                 "one socket's memory decodes as fast bound to it (numactl, -t its cores)", host->n_numa, spread);
    else if (cap)
        buf[0] = '\0';
}
