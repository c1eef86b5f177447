/* Was the machine quiet while it was measured? Bandwidth and SGEMM figures
 * taken while other processes run are low by however much those took: three
 * `probe --quick` at once saved 7-8.5 GB/s and SGEMM 13-30 GFLOP/s on a
 * machine that gives 55 GB/s and 170 GFLOP/s idle (issue 15), and every later
 * plan trusted them. So the probe records the conditions around its
 * measurements and says why they are not trustworthy:
 *  - the 1-minute load average when it began, against the CPUs it may use;
 *  - the CPU time other processes took while it measured: the whole
 *    machine's busy time from /proc/stat less this process's own (getrusage
 *    counts all its threads, OpenBLAS's included);
 *  - the share a hypervisor stole (the steal column of /proc/stat);
 *  - the spread between the read-bandwidth repeats (1 - median/best).
 * The judgement is a pure function of those numbers (probe_busy_judge), so
 * it is tested without a busy machine. */
#include "probe/probe_internal.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* A load average above the usable CPUs means runnable work was waiting when
 * the probe began: it would have shared every core. */
#define BUSY_LOAD_PER_CPU 1.0
/* Other processes holding a quarter of the CPUs while the probe runs all
 * cores take a like share of cores and of the memory bus. */
#define BUSY_OTHERS_FRAC 0.25
/* A hypervisor stealing more than 5% of the time: the vCPUs are shared. */
#define BUSY_STEAL_FRAC 0.05
/* Repeats of one read kernel on an idle machine agree within a few percent
 * (STREAM's own spread rule of thumb is 5%); 20% apart means something else
 * ran during some of them. */
#define BUSY_SPREAD 0.20
#define STAT_LINE_MAX 512

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double own_cpu_s(void) {
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru)) return 0;
    return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

/* The aggregate "cpu" line of /proc/stat, in clock ticks, and the number of
 * per-CPU lines. false when it cannot be read (not Linux, no /proc). */
static bool stat_read(probe_quiet_mark *m) {
    FILE *f = fopen("/proc/stat", "r");
    if (!f) return false;
    char line[STAT_LINE_MAX];
    unsigned long long v[8] = {0};
    bool ok = false;
    m->n_cpus = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "cpu ", 4))
            ok = sscanf(line + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                        &v[6], &v[7]) == 8;
        else if (!strncmp(line, "cpu", 3))
            m->n_cpus++;
    }
    fclose(f);
    if (!ok) return false;
    /* user nice system idle iowait irq softirq steal: idle and iowait are
     * time nobody computed. */
    m->busy = v[0] + v[1] + v[2] + v[5] + v[6];
    m->steal = v[7];
    m->total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
    return true;
}

void probe_quiet_begin(probe_profile *p, probe_quiet_mark *m) {
    memset(m, 0, sizeof *m);
    double load[1];
    if (getloadavg(load, 1) == 1) p->load_avg = load[0];
    m->have_stat = stat_read(m);
    m->wall = now_s();
    m->own = own_cpu_s();
}

void probe_quiet_end(probe_profile *p, const probe_quiet_mark *begin) {
    probe_quiet_mark end;
    double wall = now_s() - begin->wall, own = own_cpu_s() - begin->own;
    long hz = sysconf(_SC_CLK_TCK);
    if (begin->have_stat && stat_read(&end) && end.total > begin->total && wall > 0 && hz > 0) {
        double busy_s = (double)(end.busy - begin->busy) / (double)hz;
        double others = busy_s - own;
        p->others_cpus = others > 0 ? others / wall : 0;
        p->steal_frac = (double)(end.steal - begin->steal) / (double)(end.total - begin->total);
    }
    p->read_spread = p->read_gbs > 0 && p->read_median_gbs > 0 ? 1 - p->read_median_gbs / p->read_gbs : 0;
    int cpus = p->threads_used > 0 ? p->threads_used : 1;
    p->busy[0] = '\0';
    probe_busy_judge(p->load_avg, cpus, p->others_cpus, begin->n_cpus ? begin->n_cpus : cpus, p->steal_frac,
                     p->read_spread, p->busy, sizeof p->busy);
}

bool probe_busy_judge(double load_avg, int cpus, double others_cpus, int machine_cpus, double steal_frac,
                      double spread, char *why, size_t cap) {
    why[0] = '\0';
    if (cpus < 1) cpus = 1;
    if (machine_cpus < cpus) machine_cpus = cpus;
    if (load_avg > BUSY_LOAD_PER_CPU * cpus)
        probe_note_add(why, cap, "load average %.2f on %d CPU%s when measuring began", load_avg, cpus,
                       cpus > 1 ? "s" : "");
    if (others_cpus > BUSY_OTHERS_FRAC * machine_cpus)
        probe_note_add(why, cap, "other processes kept %.1f of %d CPUs busy while measuring", others_cpus,
                       machine_cpus);
    if (steal_frac > BUSY_STEAL_FRAC)
        probe_note_add(why, cap, "the hypervisor stole %.0f%% of the CPU time", 100 * steal_frac);
    if (spread > BUSY_SPREAD)
        probe_note_add(why, cap, "read-bandwidth repeats %.0f%% apart (median vs best)", 100 * spread);
    return why[0] != '\0';
}
