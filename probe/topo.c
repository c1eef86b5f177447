/* Topology and caches. hwloc is the primary source for counts and pinning,
 * but virtual machines feed it garbage (a 508 MB L3, 5 GB of a 24 GiB VM), so
 * every cache size is read from up to three places — sysfs (the kernel's
 * reading of cpuid), cpuid itself and hwloc — and the first that answers is
 * kept; disagreements are written to topo_note so a reader can judge. */
#include "probe/probe_internal.h"

#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#define SYSFS_CACHE_DIR "/sys/devices/system/cpu/cpu0/cache"
#define SYSFS_MAX_INDEX 16
#define SYSFS_SIBLINGS "/sys/devices/system/cpu/cpu0/topology/thread_siblings_list"
#define CPUID_MAX_SUBLEAF 16
/* Sources differing by less than this are the same number (rounding). */
#define CACHE_AGREE_FRAC 0.02

void probe_note_add(char *note, size_t cap, const char *fmt, ...) {
    size_t n = strlen(note);
    if (n + 3 >= cap) return;
    if (n) n += (size_t)snprintf(note + n, cap - n, "; ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(note + n, cap - n, fmt, ap);
    va_end(ap);
}

typedef struct cache_list {
    const char *source;
    probe_cache c[PROBE_MAX_CACHES];
    int n;
} cache_list;

static void cache_add(cache_list *l, int level, const char *kind, uint64_t size, int shared) {
    if (l->n >= PROBE_MAX_CACHES || size == 0 || level < 1) return;
    probe_cache *c = &l->c[l->n++];
    memset(c, 0, sizeof *c);
    c->level = level;
    snprintf(c->kind, sizeof c->kind, "%s", kind);
    c->size_bytes = size;
    c->shared_by_cores = shared > 0 ? shared : 1;
    snprintf(c->source, sizeof c->source, "%s", l->source);
}

static bool read_line(const char *path, char *buf, size_t cap) {
    FILE *fp = fopen(path, "r");
    if (!fp) return false;
    bool ok = fgets(buf, (int)cap, fp) != NULL;
    fclose(fp);
    if (ok) buf[strcspn(buf, "\n")] = '\0';
    return ok;
}

/* "0-3,8" -> 5 */
static int cpulist_count(const char *s) {
    int n = 0;
    while (*s) {
        char *end;
        long a = strtol(s, &end, 10);
        if (end == s) break;
        long b = a;
        if (*end == '-') b = strtol(end + 1, &end, 10);
        if (b >= a && b - a < 65536) n += (int)(b - a + 1);
        s = *end == ',' ? end + 1 : end;
        if (*s == '\0' || *s == '\n') break;
    }
    return n;
}

static void caches_from_sysfs(cache_list *l, int threads_per_core) {
    for (int i = 0; i < SYSFS_MAX_INDEX; i++) {
        char path[128], level[16], type[32], size[32], shared[256];
        snprintf(path, sizeof path, SYSFS_CACHE_DIR "/index%d/level", i);
        if (!read_line(path, level, sizeof level)) break;
        snprintf(path, sizeof path, SYSFS_CACHE_DIR "/index%d/type", i);
        if (!read_line(path, type, sizeof type)) continue;
        snprintf(path, sizeof path, SYSFS_CACHE_DIR "/index%d/size", i);
        if (!read_line(path, size, sizeof size)) continue;
        snprintf(path, sizeof path, SYSFS_CACHE_DIR "/index%d/shared_cpu_list", i);
        int sharing = read_line(path, shared, sizeof shared) ? cpulist_count(shared) : 1;
        char *end;
        unsigned long long v = strtoull(size, &end, 10);
        if (*end == 'K') v <<= 10;
        else if (*end == 'M') v <<= 20;
        const char *kind = !strcmp(type, "Data") ? "data" : !strcmp(type, "Instruction") ? "instruction" : "unified";
        cache_add(l, atoi(level), kind, v, (sharing + threads_per_core - 1) / threads_per_core);
    }
}

static void caches_from_cpuid(cache_list *l, int threads_per_core) {
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d)) return;
    /* "AuthenticAMD" reports caches in 0x8000001D, Intel in leaf 4; same layout. */
    bool amd = b == 0x68747541;
    unsigned leaf = amd ? 0x8000001D : 4;
    unsigned max = amd ? __get_cpuid_max(0x80000000, NULL) : a;
    if (max < leaf) return;
    for (unsigned sub = 0; sub < CPUID_MAX_SUBLEAF; sub++) {
        __cpuid_count(leaf, sub, a, b, c, d);
        unsigned type = a & 0x1f;
        if (type == 0) break;
        uint64_t size = (uint64_t)((b >> 22) + 1) * (((b >> 12) & 0x3ff) + 1) * ((b & 0xfff) + 1) * ((uint64_t)c + 1);
        int sharing = (int)((a >> 14) & 0xfff) + 1;
        const char *kind = type == 1 ? "data" : type == 2 ? "instruction" : "unified";
        cache_add(l, (int)((a >> 5) & 7), kind, size, (sharing + threads_per_core - 1) / threads_per_core);
    }
#else
    (void)l;
    (void)threads_per_core;
#endif
}

static void caches_from_hwloc(cache_list *l, hwloc_topology_t topo, int n_cores) {
    if (!topo) return;
    static const hwloc_obj_type_t types[] = {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L1ICACHE, HWLOC_OBJ_L2CACHE,
                                             HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L4CACHE};
    for (size_t i = 0; i < FC_ARRAY_LEN(types); i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(topo, types[i], 0);
        if (!o || !o->attr) continue;
        int instances = hwloc_get_nbobjs_by_type(topo, types[i]);
        const char *kind = o->attr->cache.type == HWLOC_OBJ_CACHE_DATA          ? "data"
                           : o->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION ? "instruction"
                                                                                : "unified";
        cache_add(l, (int)o->attr->cache.depth, kind, o->attr->cache.size, instances > 0 ? n_cores / instances : 1);
    }
}

static const probe_cache *cache_find(const cache_list *l, int level, const char *kind) {
    for (int i = 0; i < l->n; i++)
        if (l->c[i].level == level && !strcmp(l->c[i].kind, kind)) return &l->c[i];
    return NULL;
}

static void caches_choose(probe_profile *p, hwloc_topology_t topo, int threads_per_core) {
    cache_list lists[3] = {{.source = "sysfs"}, {.source = "cpuid"}, {.source = "hwloc"}};
    caches_from_sysfs(&lists[0], threads_per_core);
    caches_from_cpuid(&lists[1], threads_per_core);
    caches_from_hwloc(&lists[2], topo, p->n_cores);
    const cache_list *kept = NULL;
    for (size_t i = 0; i < FC_ARRAY_LEN(lists) && !kept; i++)
        if (lists[i].n) kept = &lists[i];
    if (!kept) {
        probe_note_add(p->topo_note, sizeof p->topo_note, "no cache information from sysfs, cpuid or hwloc");
        return;
    }
    p->n_caches = kept->n;
    memcpy(p->caches, kept->c, sizeof(probe_cache) * (size_t)kept->n);
    for (int i = 0; i < kept->n; i++) {
        const probe_cache *c = &kept->c[i];
        for (size_t j = 0; j < FC_ARRAY_LEN(lists); j++) {
            const probe_cache *o = &lists[j] == kept ? NULL : cache_find(&lists[j], c->level, c->kind);
            if (!o) continue;
            double diff = (double)o->size_bytes - (double)c->size_bytes;
            if (diff < 0) diff = -diff;
            if (diff > CACHE_AGREE_FRAC * (double)c->size_bytes) {
                char a[32], b[32];
                probe_note_add(p->topo_note, sizeof p->topo_note, "L%d %s: %s says %s, %s says %s; kept %s", c->level,
                               c->kind, kept->source, fc_fmt_bytes(c->size_bytes, a, sizeof a), lists[j].source,
                               fc_fmt_bytes(o->size_bytes, b, sizeof b), kept->source);
            }
        }
    }
    /* Order by level, data before instruction, so readers can walk levels. */
    for (int i = 1; i < p->n_caches; i++)
        for (int j = i; j > 0 && p->caches[j].level < p->caches[j - 1].level; j--) {
            probe_cache t = p->caches[j];
            p->caches[j] = p->caches[j - 1];
            p->caches[j - 1] = t;
        }
}

static void cpu_model_read(probe_profile *p, hwloc_topology_t topo) {
    FILE *fp = fopen("/proc/cpuinfo", "r");
    char line[512];
    if (fp) {
        while (fgets(line, sizeof line, fp)) {
            char *colon = strchr(line, ':');
            if (strncmp(line, "model name", 10) || !colon) continue;
            colon += 1 + strspn(colon + 1, " \t");
            colon[strcspn(colon, "\n")] = '\0';
            snprintf(p->cpu_model, sizeof p->cpu_model, "%s", colon);
            break;
        }
        fclose(fp);
    }
    if (!p->cpu_model[0] && topo) {
        const char *m = hwloc_obj_get_info_by_name(hwloc_get_root_obj(topo), "CPUModel");
        hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0);
        if (!m && pkg) m = hwloc_obj_get_info_by_name(pkg, "CPUModel");
        if (m) snprintf(p->cpu_model, sizeof p->cpu_model, "%s", m);
    }
    if (!p->cpu_model[0]) snprintf(p->cpu_model, sizeof p->cpu_model, "unknown");
}

/* Without hwloc: the CPUs of our affinity mask, one "core" each. */
static void topo_fallback(probe_topo *t, probe_profile *p, int n_cpus, const cpu_set_t *set) {
    snprintf(p->topo_source, sizeof p->topo_source, "sched_getaffinity");
    p->n_packages = 1;
    p->n_numa = 1;
    p->n_cores = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE && p->n_cores < PROBE_MAX_THREADS; cpu++)
        if (CPU_ISSET(cpu, set)) t->cpu_of_core[p->n_cores++] = cpu;
    p->numa_cores[0] = p->n_cores;
    p->n_threads = n_cpus;
}

int probe_topo_init(probe_topo *t, probe_profile *p, fc_err *err) {
    (void)err;
    memset(t, 0, sizeof *t);
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        t->n_cpus = CPU_COUNT(&set);
    } else {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        t->n_cpus = n > 0 ? (int)n : 1;
        for (int i = 0; i < t->n_cpus && i < CPU_SETSIZE; i++) CPU_SET(i, &set);
    }

    if (hwloc_topology_init(&t->topo) == 0 && hwloc_topology_load(t->topo) != 0) {
        hwloc_topology_destroy(t->topo);
        t->topo = NULL;
    }
    int cores = t->topo ? hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_CORE) : 0;
    int pus = t->topo ? hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_PU) : 0;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores > 0 && online > 0 && pus > online) {
        /* More hardware threads than the kernel has online: a stale or
         * foreign XML/synthetic topology. Pinning by it would be wrong. */
        probe_note_add(p->topo_note, sizeof p->topo_note,
                       "hwloc shows %d hardware threads but %ld are online: hwloc topology ignored", pus, online);
        cores = 0;
    } else if (cores <= 0) {
        probe_note_add(p->topo_note, sizeof p->topo_note, "hwloc topology unavailable");
    }
    if (cores <= 0) {
        if (t->topo) hwloc_topology_destroy(t->topo);
        t->topo = NULL;
        probe_note_add(p->topo_note, sizeof p->topo_note, "one core per usable CPU assumed");
        topo_fallback(t, p, t->n_cpus, &set);
    } else {
        snprintf(p->topo_source, sizeof p->topo_source, "hwloc");
        p->n_packages = hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_PACKAGE);
        if (p->n_packages < 1) p->n_packages = 1;
        p->n_threads = hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_PU);
        p->n_cores = cores > PROBE_MAX_THREADS ? PROBE_MAX_THREADS : cores;
        int numa = hwloc_get_nbobjs_by_type(t->topo, HWLOC_OBJ_NUMANODE);
        p->n_numa = numa < 1 ? 1 : numa > PROBE_MAX_NUMA ? PROBE_MAX_NUMA : numa;
        for (int i = 0; i < p->n_numa && numa > 0; i++) {
            hwloc_obj_t n = hwloc_get_obj_by_type(t->topo, HWLOC_OBJ_NUMANODE, (unsigned)i);
            p->numa_mem[i] = n ? n->attr->numanode.local_memory : 0;
            p->numa_ids[i] = n ? (int)n->os_index : i;
        }
        for (int i = 0; i < p->n_cores; i++) {
            hwloc_obj_t core = hwloc_get_obj_by_type(t->topo, HWLOC_OBJ_CORE, (unsigned)i);
            int pu = core && core->cpuset ? hwloc_bitmap_first(core->cpuset) : i;
            t->cpu_of_core[i] = pu;
            for (int k = 0; k < p->n_numa && numa > 1; k++) {
                hwloc_obj_t n = hwloc_get_obj_by_type(t->topo, HWLOC_OBJ_NUMANODE, (unsigned)k);
                if (n && core && hwloc_bitmap_intersects(n->cpuset, core->cpuset)) t->numa_of_core[i] = k;
            }
            p->numa_cores[t->numa_of_core[i]]++;
        }
        if (p->n_threads != t->n_cpus)
            probe_note_add(p->topo_note, sizeof p->topo_note, "hwloc shows %d hardware threads, affinity mask %d",
                           p->n_threads, t->n_cpus);
    }
    t->n_cores = p->n_cores;
    /* Threads per core, to turn "CPUs sharing a cache" into cores: the
     * kernel's sibling list first, hwloc's ratio when sysfs is missing. */
    char siblings[256];
    int tpc = read_line(SYSFS_SIBLINGS, siblings, sizeof siblings) ? cpulist_count(siblings) : 0;
    if (tpc < 1) tpc = p->n_cores > 0 && p->n_threads >= p->n_cores ? p->n_threads / p->n_cores : 1;
    caches_choose(p, t->topo, tpc);
    cpu_model_read(p, t->topo);
    return FC_OK;
}

void probe_topo_pin(const probe_topo *t, int core) {
    int cpu = t->cpu_of_core[t->n_cores > 0 ? core % t->n_cores : 0];
    if (t->topo) {
        hwloc_bitmap_t s = hwloc_bitmap_alloc();
        int rc = -1;
        if (s) {
            hwloc_bitmap_only(s, (unsigned)cpu);
            rc = hwloc_set_cpubind(t->topo, s, HWLOC_CPUBIND_THREAD);
            hwloc_bitmap_free(s);
        }
        if (rc == 0) return;
    }
    /* Unpinned threads still measure, only less steadily: failure is not fatal. */
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

void probe_topo_free(probe_topo *t) {
    if (t->topo) hwloc_topology_destroy(t->topo);
    t->topo = NULL;
}
