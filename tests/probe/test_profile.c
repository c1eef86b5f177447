/* Machine profile JSON: a full profile survives save and load; a newer schema
 * is refused; malformed profiles are FC_EINPUT with the field named. */
#include "probe/probe.h"
#include "tests/check.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void profile_fill(probe_profile *p) {
    memset(p, 0, sizeof *p);
    p->schema_version = PROBE_SCHEMA_VERSION;
    snprintf(p->created, sizeof p->created, "2026-01-02T03:04:05Z");
    snprintf(p->hostname, sizeof p->hostname, "box");
    snprintf(p->cpu_model, sizeof p->cpu_model, "Test CPU \"quoted\"");
    snprintf(p->isa, sizeof p->isa, "avx2");
    p->int8_per_fp32 = 2;
    p->n_packages = 2, p->n_cores = 16, p->n_threads = 32, p->n_numa = 2;
    snprintf(p->topo_source, sizeof p->topo_source, "hwloc");
    p->n_caches = 3;
    for (int i = 0; i < 3; i++) {
        p->caches[i].level = i + 1;
        snprintf(p->caches[i].kind, sizeof p->caches[i].kind, "unified");
        p->caches[i].size_bytes = 32768ull << (4 * i);
        p->caches[i].shared_by_cores = i == 2 ? 8 : 1;
        p->caches[i].read_gbs = 100.5 / (i + 1);
        p->caches[i].latency_ns = 1.25 * (i + 1);
    }
    p->ram_total = 64ull << 30, p->ram_available = 60ull << 30;
    p->numa_mem[0] = p->numa_mem[1] = 32ull << 30;
    p->numa_read_gbs[0] = 40.5, p->numa_read_gbs[1] = 41.25;
    p->numa_cores[0] = 10, p->numa_cores[1] = 6;
    p->numa_ids[0] = 2, p->numa_ids[1] = 3;
    p->thp_enabled = true;
    p->cgroup_mem_max = 8ull << 30;
    p->cgroup_cpus = 1.5;
    p->read_gbs = 81.123456, p->write_gbs = 40, p->copy_gbs = 60, p->triad_gbs = 65, p->read_1t_gbs = 12.5;
    p->threads_used = 16;
    p->n_sweep = 3;
    for (int i = 0; i < 3; i++) p->sweep[i] = (probe_point){4096.0 * (1 << i), 300.0 - i};
    p->n_scaling = 2;
    p->scaling[0] = (probe_point){1, 12.5};
    p->scaling[1] = (probe_point){16, 81};
    p->dram_latency_ns = 95.5, p->dram_latency_hugepage_ns = 80.25;
    p->sgemm_gflops_1t = 100, p->sgemm_gflops_all = 1500;
    snprintf(p->storage_path, sizeof p->storage_path, "/models");
    p->storage_read_gbs = 3.5, p->storage_direct = true;
    p->n_gpus = 1;
    snprintf(p->gpus[0].name, sizeof p->gpus[0].name, "NVIDIA H200");
    p->gpus[0].numa_node = -1;
    p->gpus[0].vram_total = 141ull << 30;
    p->gpus[0].link.gen_max = 5, p->gpus[0].link.width_max = 16, p->gpus[0].link.theoretical_gbs = 63.0;
    p->n_nvme = 1;
    snprintf(p->nvme[0].name, sizeof p->nvme[0].name, "nvme0");
    p->nvme[0].link.gen_cur = 4;
}

static char tmpdir[] = "/tmp/fc-test-profile-XXXXXX";

static int load_text(const char *text, probe_profile *p, fc_err *err) {
    char path[256];
    snprintf(path, sizeof path, "%s/p.json", tmpdir);
    FILE *fp = fopen(path, "w");
    if (!fp) return -1;
    fputs(text, fp);
    fclose(fp);
    return probe_profile_load(p, path, err);
}

/* Loading `text` must fail with FC_EINPUT and a message containing `needle`. */
static void expect_bad(const char *text, const char *needle) {
    static probe_profile p;
    fc_err err = {0};
    int rc = load_text(text, &p, &err);
    CHECK_MSG(rc == FC_EINPUT, "rc %d for %s", rc, text);
    CHECK_MSG(strstr(err.msg, needle) != NULL, "message '%s' lacks '%s'", err.msg, needle);
}

#define GOOD_HEAD "{\"schema_version\": 1, \"n_cores\": 2, \"ram_total\": 1000, \"read_gbs\": 10"

/* The busy judgement, from the numbers alone (thresholds in probe/quiet.c):
 * an idle 2-CPU machine passes; each busy sign alone fails it and is named. */
static void check_busy_judge(void) {
    char why[PROBE_NOTE_MAX];
    CHECK(!probe_busy_judge(0.3, 2, 0.1, 2, 0.0, 0.03, why, sizeof why) && why[0] == '\0');
    /* three quick probes at once: the others hold ~1.3 of 2 CPUs */
    CHECK(probe_busy_judge(0.3, 2, 1.3, 2, 0.0, 0.03, why, sizeof why) && strstr(why, "other processes"));
    CHECK(probe_busy_judge(9.5, 2, 0.1, 2, 0.0, 0.03, why, sizeof why) && strstr(why, "load average 9.50"));
    CHECK(probe_busy_judge(0.3, 2, 0.1, 2, 0.12, 0.03, why, sizeof why) && strstr(why, "stole 12%"));
    CHECK(probe_busy_judge(0.3, 2, 0.1, 2, 0.0, 0.35, why, sizeof why) && strstr(why, "35% apart"));
    /* 0.4 of a 64-CPU host busy is quiet for a probe there */
    CHECK(!probe_busy_judge(0.5, 8, 0.4, 64, 0.0, 0.02, why, sizeof why));
    /* the conditions survive a save and load */
    probe_profile *p = calloc(2, sizeof *p);
    profile_fill(&p[0]);
    p[0].load_avg = 2.5, p[0].others_cpus = 1.25, p[0].steal_frac = 0.125, p[0].read_spread = 0.25;
    snprintf(p[0].busy, sizeof p[0].busy, "load average 2.50 on 2 CPUs");
    char *text = NULL;
    fc_err err = {0};
    CHECK(probe_profile_to_json(&p[0], &text, &err) == FC_OK);
    CHECK(text && probe_profile_from_json(&p[1], text, "t", &err) == FC_OK);
    CHECK(p[1].load_avg == 2.5 && p[1].others_cpus == 1.25 && p[1].steal_frac == 0.125 && p[1].read_spread == 0.25);
    CHECK(!strcmp(p[1].busy, p[0].busy));
    free(text);
    free(p);
}

int main(void) {
    check_busy_judge();
    if (!mkdtemp(tmpdir)) return 77;
    static probe_profile a, b;
    profile_fill(&a);
    fc_err err = {0};
    char path[256];
    snprintf(path, sizeof path, "%s/machine.json", tmpdir);
    CHECK(probe_profile_save(&a, path, &err) == FC_OK);
    CHECK_MSG(probe_profile_load(&b, path, &err) == FC_OK, "%s", err.msg);
    CHECK(b.schema_version == PROBE_SCHEMA_VERSION);
    CHECK(!strcmp(b.cpu_model, a.cpu_model));
    CHECK(b.n_cores == 16 && b.n_threads == 32 && b.n_numa == 2);
    CHECK(b.n_caches == 3 && b.caches[2].size_bytes == a.caches[2].size_bytes && b.caches[2].shared_by_cores == 8);
    CHECK(b.ram_total == a.ram_total && b.numa_mem[1] == a.numa_mem[1]);
    CHECK_NEAR(b.read_gbs, a.read_gbs, 1e-6);
    CHECK_NEAR(b.numa_read_gbs[1], 41.25, 1e-9);
    CHECK(b.numa_cores[0] == 10 && b.numa_cores[1] == 6 && b.numa_ids[0] == 2 && b.numa_ids[1] == 3);
    CHECK(b.n_sweep == 3 && b.sweep[2].x == 16384.0);
    CHECK(b.n_scaling == 2 && b.scaling[1].x == 16);
    CHECK(b.thp_enabled && b.storage_direct && b.cgroup_mem_max == a.cgroup_mem_max);
    CHECK(b.n_gpus == 1 && !strcmp(b.gpus[0].name, "NVIDIA H200") && b.gpus[0].numa_node == -1);
    CHECK(b.gpus[0].vram_total == a.gpus[0].vram_total && b.gpus[0].link.gen_max == 5);
    CHECK(b.n_nvme == 1 && b.nvme[0].link.gen_cur == 4);
    /* Saving what was loaded gives the same text: nothing is lost or reformatted. */
    char *t1 = NULL, *t2 = NULL;
    CHECK(probe_profile_to_json(&a, &t1, &err) == FC_OK);
    CHECK(probe_profile_to_json(&b, &t2, &err) == FC_OK);
    CHECK(t1 && t2 && !strcmp(t1, t2));
    free(t1);
    free(t2);

    expect_bad("{\"schema_version\": 99, \"n_cores\": 2}", "newer");
    expect_bad("{\"schema_version\": 1, \"n_cores\": ", "not valid JSON");
    expect_bad("[1, 2]", "top level");
    expect_bad("{\"n_cores\": 2}", "schema_version");
    expect_bad("{\"schema_version\": 1, \"n_cores\": \"two\", \"ram_total\": 1, \"read_gbs\": 1}", "n_cores");
    expect_bad("{\"schema_version\": 1, \"n_cores\": -1, \"ram_total\": 1, \"read_gbs\": 1}", "n_cores");
    expect_bad(GOOD_HEAD ", \"n_threads\": -4}", "n_threads");
    expect_bad(GOOD_HEAD ", \"ram_available\": -5}", "ram_available");
    expect_bad(GOOD_HEAD ", \"copy_gbs\": \"fast\"}", "copy_gbs");
    expect_bad(GOOD_HEAD ", \"caches\": [{\"level\": 1, \"size_bytes\": -5}]}", "caches[0].size_bytes");
    expect_bad(GOOD_HEAD ", \"caches\": {}}", "caches");
    expect_bad(GOOD_HEAD ", \"caches\": [{},{},{},{},{},{},{},{},{}]}", "caches");
    expect_bad(GOOD_HEAD ", \"gpus\": [{\"link\": {\"gen_max\": \"five\"}}]}", "gpus[0].link.gen_max");
    expect_bad(GOOD_HEAD ", \"numa_mem_bytes\": [1, 2], \"numa_read_gbs\": [1]}", "numa_read_gbs");
    expect_bad(GOOD_HEAD ", \"numa_mem_bytes\": [1, 2], \"numa_cores\": [4, -4]}", "numa_cores[1]");
    expect_bad(GOOD_HEAD ", \"numa_mem_bytes\": [1, 2], \"numa_cores\": [4, 4, 4]}", "numa_cores");
    expect_bad(GOOD_HEAD ", \"numa_cores\": [1.5]}", "numa_cores[0]");
    expect_bad(GOOD_HEAD ", \"hostname\": 7}", "hostname");
    expect_bad("{\"schema_version\": 1, \"n_cores\": 2, \"ram_total\": 1000}", "read_gbs");

    /* A minimal well-formed profile loads; absent fields read as "not measured". */
    CHECK(load_text(GOOD_HEAD ", \"unknown_future_field\": [1]}", &b, &err) == FC_OK);
    CHECK(b.n_cores == 2 && b.write_gbs == 0 && b.n_caches == 0);
    /* ... but a GPU written without its node is on no node known, not on node 0 (whose
     * cores a plan would then bind llama.cpp to) */
    CHECK(load_text(GOOD_HEAD ", \"gpus\": [{\"name\": \"g\"}, {\"numa_node\": 1}]}", &b, &err) == FC_OK);
    CHECK(b.n_gpus == 2 && b.gpus[0].numa_node == -1 && b.gpus[1].numa_node == 1);
    /* Profiles saved before dot_gops went (it was never measured) still load. */
    CHECK(load_text(GOOD_HEAD ", \"dot_gops\": {\"q9_Z\": 1}}", &b, &err) == FC_OK);

    /* An unwritable directory is a clear error. */
    fc_err werr = {0};
    CHECK(probe_profile_save(&a, "/dev/null/sub/machine.json", &werr) != FC_OK);
    CHECK_MSG(strstr(werr.msg, "cannot save") != NULL, "%s", werr.msg);

    unlink(path);
    snprintf(path, sizeof path, "%s/p.json", tmpdir);
    unlink(path);
    rmdir(tmpdir);
    return check_done("probe_profile");
}
