/* Capacity: RAM, huge pages, transparent huge pages and the cgroup limits a
 * container imposes. /proc/meminfo is the kernel's own count and beats hwloc,
 * which on virtual machines reports what the firmware tables claim. The
 * cgroup's memory.max and cpu.max make a container see its own limits. */
#include "probe/probe_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define MEMINFO_PATH "/proc/meminfo"
#define THP_PATH "/sys/kernel/mm/transparent_hugepage/enabled"
#define CGROUP2_ROOTS_N 2
static const char *const cgroup2_roots[CGROUP2_ROOTS_N] = {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"};
#define CGROUP1_MEM_ROOT "/sys/fs/cgroup/memory"
#define CGROUP1_CPU_ROOT "/sys/fs/cgroup/cpu"
/* cgroup v1 writes "no limit" as a huge page-rounded number. */
#define CGROUP1_NO_LIMIT (1ull << 62)
/* hwloc and /proc/meminfo differing by more than this is worth a note. */
#define RAM_AGREE_FRAC 0.10

static bool read_u64_file(const char *path, uint64_t *out) {
    FILE *fp = fopen(path, "r");
    if (!fp) return false;
    unsigned long long v;
    bool ok = fscanf(fp, "%llu", &v) == 1;
    fclose(fp);
    if (ok) *out = v;
    return ok;
}

static void meminfo_read(probe_profile *p) {
    FILE *fp = fopen(MEMINFO_PATH, "r");
    if (!fp) return;
    char line[256], key[64];
    unsigned long long v;
    while (fgets(line, sizeof line, fp)) {
        if (sscanf(line, "%63[^:]: %llu", key, &v) != 2) continue;
        if (!strcmp(key, "MemTotal")) p->ram_total = v * 1024;
        else if (!strcmp(key, "MemAvailable")) p->ram_available = v * 1024;
        else if (!strcmp(key, "Hugepagesize")) p->hugepage_bytes = v * 1024;
        else if (!strcmp(key, "HugePages_Free")) p->hugepages_free = v;
    }
    fclose(fp);
    if (p->ram_total) snprintf(p->ram_source, sizeof p->ram_source, "/proc/meminfo");
}

/* "0::/a/b" from /proc/self/cgroup (v2), or the "memory"/"cpu" line (v1). */
static bool cgroup_path(const char *controller, char *buf, size_t cap) {
    FILE *fp = fopen("/proc/self/cgroup", "r");
    if (!fp) return false;
    char line[1024];
    bool found = false;
    while (!found && fgets(line, sizeof line, fp)) {
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':');
        char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2) continue;
        *c2 = '\0';
        const char *ctrls = c1 + 1;
        bool match = controller ? strstr(ctrls, controller) != NULL : (!strcmp(line, "0") && !*ctrls);
        if (match) {
            snprintf(buf, cap, "%s", c2 + 1);
            found = true;
        }
    }
    fclose(fp);
    return found;
}

/* The tightest memory.max on the way from our cgroup up to the root. */
static uint64_t cgroup2_mem_max(const char *root, const char *rel) {
    char dir[PATH_MAX], path[PATH_MAX + 32];
    int n = snprintf(dir, sizeof dir, "%s%s", root, rel);
    if (n < 0 || (size_t)n >= sizeof dir) return 0;
    uint64_t best = 0;
    for (;;) {
        uint64_t v;
        snprintf(path, sizeof path, "%s/memory.max", dir);
        if (read_u64_file(path, &v) && (best == 0 || v < best)) best = v; /* "max" fails to parse: no limit */
        char *slash = strrchr(dir, '/');
        if (!slash || (size_t)(slash - dir) < strlen(root)) break;
        *slash = '\0';
    }
    return best;
}

static double cgroup2_cpus(const char *root, const char *rel) {
    char path[PATH_MAX + 32];
    int n = snprintf(path, sizeof path, "%s%s/cpu.max", root, rel);
    if (n < 0 || (size_t)n >= sizeof path) return 0;
    FILE *fp = fopen(path, "r");
    if (!fp) return 0;
    char quota[32];
    unsigned long long period = 0;
    int got = fscanf(fp, "%31s %llu", quota, &period);
    fclose(fp);
    if (got != 2 || !strcmp(quota, "max") || period == 0) return 0;
    return strtod(quota, NULL) / (double)period;
}

/* Fills the limits; returns the bytes the cgroup already uses (0 unknown). */
static uint64_t cgroup_read(probe_profile *p) {
    char rel[PATH_MAX];
    uint64_t used = 0;
    if (cgroup_path(NULL, rel, sizeof rel)) {
        for (int i = 0; i < CGROUP2_ROOTS_N; i++) {
            char probe_file[PATH_MAX + 32];
            snprintf(probe_file, sizeof probe_file, "%s/cgroup.controllers", cgroup2_roots[i]);
            FILE *fp = fopen(probe_file, "r");
            if (!fp) continue;
            fclose(fp);
            p->cgroup_mem_max = cgroup2_mem_max(cgroup2_roots[i], strcmp(rel, "/") ? rel : "");
            p->cgroup_cpus = cgroup2_cpus(cgroup2_roots[i], strcmp(rel, "/") ? rel : "");
            char cur[PATH_MAX + 64];
            int n = snprintf(cur, sizeof cur, "%s%s/memory.current", cgroup2_roots[i], strcmp(rel, "/") ? rel : "");
            if (n > 0 && (size_t)n < sizeof cur) read_u64_file(cur, &used);
            break;
        }
    }
    /* cgroup v1 hierarchies, where the v2 one has no controllers attached. */
    uint64_t v;
    char path[PATH_MAX + 64];
    if (!p->cgroup_mem_max && cgroup_path("memory", rel, sizeof rel)) {
        snprintf(path, sizeof path, CGROUP1_MEM_ROOT "%s/memory.limit_in_bytes", rel);
        bool own = read_u64_file(path, &v);
        bool ok = own || read_u64_file(CGROUP1_MEM_ROOT "/memory.limit_in_bytes", &v);
        if (ok && v < CGROUP1_NO_LIMIT) {
            p->cgroup_mem_max = v;
            snprintf(path, sizeof path, CGROUP1_MEM_ROOT "%s/memory.usage_in_bytes", own ? rel : "");
            read_u64_file(path, &used);
        }
    }
    if (!p->cgroup_cpus) {
        uint64_t quota, period;
        if (read_u64_file(CGROUP1_CPU_ROOT "/cpu.cfs_period_us", &period) && period &&
            read_u64_file(CGROUP1_CPU_ROOT "/cpu.cfs_quota_us", &quota) && quota < CGROUP1_NO_LIMIT)
            p->cgroup_cpus = (double)quota / (double)period;
    }
    return used;
}

int probe_capacity(probe_profile *p, fc_err *err) {
    (void)err;
    uint64_t hwloc_numa_total = 0;
    for (int i = 0; i < p->n_numa; i++) hwloc_numa_total += p->numa_mem[i];
    meminfo_read(p);
    if (!p->ram_total && hwloc_numa_total) {
        p->ram_total = p->ram_available = hwloc_numa_total;
        snprintf(p->ram_source, sizeof p->ram_source, "hwloc");
    } else if (hwloc_numa_total && p->ram_total) {
        double ratio = (double)hwloc_numa_total / (double)p->ram_total;
        if (ratio < 1 - RAM_AGREE_FRAC || ratio > 1 + RAM_AGREE_FRAC) {
            char a[32], b[32];
            probe_note_add(p->topo_note, sizeof p->topo_note, "RAM: hwloc says %s, /proc/meminfo says %s; kept /proc/meminfo",
                           fc_fmt_bytes(hwloc_numa_total, a, sizeof a), fc_fmt_bytes(p->ram_total, b, sizeof b));
            /* One node holds everything: its honest size is the kernel's total. */
            if (p->n_numa == 1) p->numa_mem[0] = p->ram_total;
        }
    }
    if (p->n_numa == 1 && !p->numa_mem[0]) p->numa_mem[0] = p->ram_total;

    char thp[128];
    FILE *fp = fopen(THP_PATH, "r");
    if (fp) {
        /* "always [madvise] never": madvise is enough, the probe asks for it. */
        p->thp_enabled = fgets(thp, sizeof thp, fp) && !strstr(thp, "[never]");
        fclose(fp);
    }

    /* What the container may still allocate: its limit less what it uses. */
    uint64_t used = cgroup_read(p);
    if (p->cgroup_mem_max) {
        uint64_t headroom = p->cgroup_mem_max > used ? p->cgroup_mem_max - used : 0;
        if (p->ram_available > headroom) p->ram_available = headroom;
    }
    return FC_OK;
}

uint64_t probe_mem_budget(const probe_profile *p) {
    /* ram_available already has the cgroup's headroom folded in. */
    return p->ram_available / 2;
}

int probe_ram_now(probe_ram *r, fc_err *err) {
    memset(r, 0, sizeof *r);
    probe_profile *p = calloc(1, sizeof *p);
    if (!p) return fc_err_set(err, FC_ERUNTIME, "out of memory");
    int rc = probe_capacity(p, err);
    if (!rc && !p->ram_total) rc = fc_err_set(err, FC_ERUNTIME, "the RAM size of this machine cannot be read");
    if (!rc) *r = (probe_ram){p->ram_total, p->ram_available, p->cgroup_mem_max};
    free(p);
    return rc;
}

uint64_t probe_available_ram(void) {
    probe_ram r;
    fc_err err = {0};
    return probe_ram_now(&r, &err) == FC_OK ? r.available : 0;
}
