/* The probe's screen: a machine profile as the summary `fitcheck probe`
 * prints (probe/ measures and never prints; the tables of -o md|csv|json are
 * reports/probe_table.c). */
#include "reports/reports.h"

#include <stdio.h>
#include <string.h>

/* ---- printing -------------------------------------------------------------- */
static void gpu_print_link(const probe_link *l, FILE *out) {
    if (!l->gen_max)
        return;
    fprintf(out, "     PCIe gen%d x%d (%.1f GB/s per direction), idle gen%d x%d", l->gen_max, l->width_max,
            l->theoretical_gbs, l->gen_cur, l->width_cur);
    if (l->gen_loaded)
        fprintf(out, ", under load gen%d x%d", l->gen_loaded, l->width_loaded);
    fprintf(out, " [%s]\n", fc_safe(l->source));
}

static void gpu_print_one(int i, const probe_gpu *g, FILE *out) {
    char total[32], free_b[32], l2[32];
    fprintf(out, "  #%d %s [%s]", i, fc_safe(g->name), fc_safe(g->api));
    if (g->pci_bus_id[0])
        fprintf(out, " %s", fc_safe(g->pci_bus_id));
    if (g->numa_node >= 0)
        fprintf(out, " node %d", g->numa_node);
    if (g->cc_major)
        fprintf(out, ", sm_%d%d", g->cc_major, g->cc_minor);
    fprintf(out, ", %d %s", g->compute_units, strcmp(g->api, "cuda") ? "CUs" : "SMs");
    if (g->l2_bytes)
        fprintf(out, ", cache %s", fc_fmt_bytes(g->l2_bytes, l2, sizeof l2));
    fputc('\n', out);
    fprintf(out, "     %s %s", g->unified_memory ? "unified memory (host RAM)" : "VRAM",
            fc_fmt_bytes(g->vram_total, total, sizeof total));
    if (g->vram_free)
        fprintf(out, ", %s free", fc_fmt_bytes(g->vram_free, free_b, sizeof free_b));
    if (g->max_alloc)
        fprintf(out, ", max alloc %s", fc_fmt_bytes(g->max_alloc, free_b, sizeof free_b));
    if (g->theoretical_gbs > 0)
        fprintf(out, "; datasheet %.0f GB/s (%d-bit, %.0f MHz)", g->theoretical_gbs, g->mem_bus_width_bits,
                g->mem_clock_mhz);
    fputc('\n', out);
    if (g->read_gbs > 0) {
        fprintf(out, "     read %.1f GB/s", g->read_gbs);
        if (g->copy_gbs > 0)
            fprintf(out, ", copy %.1f GB/s", g->copy_gbs);
        if (g->launch_us > 0)
            fprintf(out, ", launch %.2f us", g->launch_us);
        if (g->fp32_tflops > 0)
            fprintf(out, ", fp32 %.1f TFLOPS", g->fp32_tflops);
        if (g->fp16_tflops > 0)
            fprintf(out, ", fp16 %.1f / bf16 %.1f TFLOPS (mma.sync)", g->fp16_tflops, g->bf16_tflops);
        fputc('\n', out);
    }
    if (g->h2d_pinned_gbs > 0)
        fprintf(out, "     pinned H2D %.1f / D2H %.1f GB/s\n", g->h2d_pinned_gbs, g->d2h_pinned_gbs);
    if (g->h2d_pageable_gbs > 0)
        fprintf(out, "     pageable H2D %.1f / D2H %.1f GB/s\n", g->h2d_pageable_gbs, g->d2h_pageable_gbs);
    gpu_print_link(&g->link, out);
    if (g->note[0])
        fprintf(out, "     note: %s\n", fc_safe(g->note));
}

/* Every text here may come from a profile copied from another machine:
 * shown through fc_safe (common/fc.h). */
void rep_probe_gpus_print(const probe_profile *p, FILE *out) {
    fprintf(out, "GPUs: %d\n", p->n_gpus);
    for (int i = 0; i < p->n_gpus && i < PROBE_MAX_GPUS; i++)
        gpu_print_one(i, &p->gpus[i], out);
    if (p->gpu_note[0])
        fprintf(out, "  note: %s\n", fc_safe(p->gpu_note));
    for (int i = 0; i < p->n_nvme && i < (int)FC_ARRAY_LEN(p->nvme); i++) {
        const probe_nvme *n = &p->nvme[i];
        fprintf(out, "NVMe %s %s", fc_safe(n->pci_bus_id), fc_safe(n->name));
        if (n->link.gen_max)
            fprintf(out, ": PCIe gen%d x%d (%.1f GB/s), now gen%d x%d [%s]", n->link.gen_max, n->link.width_max,
                    n->link.theoretical_gbs, n->link.gen_cur, n->link.width_cur, fc_safe(n->link.source));
        fputc('\n', out);
    }
}

static void print_gbs_row(FILE *out, const char *what, double best, double median) {
    if (best > 0) fprintf(out, "  %-22s %8.1f GB/s   (median %.1f)\n", what, best, median);
}

void rep_probe_link_print(const probe_net_link *l, FILE *out) {
    fprintf(out, "link        %s: round trip %.0f us median, %.0f us p99 (%d pings, min %.0f us)\n", fc_safe(l->peer),
           l->rtt_median_us, l->rtt_p99_us, l->n_pings, l->rtt_min_us);
    fprintf(out, "            throughput %.3f GB/s up (%.0f Mbit/s), %.3f GB/s down (%.0f Mbit/s), TCP goodput\n",
           l->up_gbs, l->up_gbs * 8e3, l->down_gbs, l->down_gbs * 8e3);
}

void rep_probe_print(const probe_profile *p, FILE *out) {
    char a[32], b[32];
    fprintf(out, "machine     %s (%s), profile of %s%s\n", fc_safe(p->hostname), fc_safe(p->cpu_model),
           fc_safe(p->created), p->quick ? ", quick" : "");
    fprintf(out, "topology    %d package(s), %d cores, %d threads, %d NUMA node(s)   [%s]\n", p->n_packages, p->n_cores,
           p->n_threads, p->n_numa, fc_safe(p->topo_source));
    fprintf(out, "memory      %s total, %s available   [%s]", fc_fmt_bytes(p->ram_total, a, sizeof a),
           fc_fmt_bytes(p->ram_available, b, sizeof b), fc_safe(p->ram_source));
    if (p->cgroup_mem_max) fprintf(out, ", cgroup limit %s", fc_fmt_bytes(p->cgroup_mem_max, a, sizeof a));
    if (p->cgroup_cpus > 0) fprintf(out, ", cgroup CPUs %.2f", p->cgroup_cpus);
    fprintf(out, "\nhuge pages  THP %s, %llu x %s reserved pages free\n", p->thp_enabled ? "on" : "off",
           (unsigned long long)p->hugepages_free, fc_fmt_bytes(p->hugepage_bytes, a, sizeof a));
    for (int i = 0; i < p->n_caches; i++) {
        const probe_cache *c = &p->caches[i];
        fprintf(out, "cache L%d    %-11s %9s, shared by %d core(s) [%s]", c->level, fc_safe(c->kind),
               fc_fmt_bytes(c->size_bytes, a, sizeof a), c->shared_by_cores, fc_safe(c->source));
        if (c->read_gbs > 0) fprintf(out, "  read %.1f GB/s", c->read_gbs);
        if (c->latency_ns > 0) fprintf(out, "  latency %.1f ns", c->latency_ns);
        fprintf(out, "\n");
    }
    if (p->topo_note[0]) fprintf(out, "note        %s\n", fc_safe(p->topo_note));
    fprintf(out, "bandwidth   DRAM, %d thread(s), %s kernels, best of repetitions:\n", p->threads_used, fc_safe(p->isa));
    print_gbs_row(out, "read", p->read_gbs, p->read_median_gbs);
    print_gbs_row(out, "write (non-temporal)", p->write_gbs, p->write_median_gbs);
    print_gbs_row(out, "copy", p->copy_gbs, p->copy_median_gbs);
    print_gbs_row(out, "triad", p->triad_gbs, p->triad_median_gbs);
    if (p->read_1t_gbs > 0) fprintf(out, "  %-22s %8.1f GB/s\n", "read, one thread", p->read_1t_gbs);
    for (int i = 0; i < p->n_numa && p->n_numa > 1; i++)
        if (p->numa_read_gbs[i] > 0) {
            fprintf(out, "  read, NUMA node %-6d %8.1f GB/s", i, p->numa_read_gbs[i]);
            if (p->numa_cores[i] > 0) fprintf(out, "   (its %d cores on its own memory)", p->numa_cores[i]);
            fputc('\n', out);
        }
    if (p->dram_theoretical_gbs > 0)
        fprintf(out, "  theoretical            %8.1f GB/s   (%s; read is %.0f%%)\n", p->dram_theoretical_gbs,
               fc_safe(p->dram_theoretical_source), 100 * p->read_gbs / p->dram_theoretical_gbs);
    else if (p->dram_theoretical_source[0])
        fprintf(out, "  theoretical            %s\n", fc_safe(p->dram_theoretical_source));
    if (p->n_scaling > 1) {
        fprintf(out, "scaling     read GB/s by threads:");
        for (int i = 0; i < p->n_scaling; i++) fprintf(out, " %g:%.1f", p->scaling[i].x, p->scaling[i].gbs);
        fprintf(out, "\n");
    }
    if (p->dram_latency_ns > 0)
        fprintf(out, "latency     DRAM %.1f ns (4 KiB pages), %.1f ns (huge pages)\n", p->dram_latency_ns,
               p->dram_latency_hugepage_ns);
    if (p->sgemm_gflops_1t > 0)
        fprintf(out, "compute     SGEMM %.1f GFLOP/s on 1 thread, %.1f on %d\n", p->sgemm_gflops_1t, p->sgemm_gflops_all,
               p->threads_used);
    /* what llama.cpp's quantized kernels multiply with here (probe/isa.c), which the speed model scales them by */
    if (p->int8_per_fp32 > 0)
        fprintf(out, "int8 dot    %g multiply-adds per FP32 one (%s)\n", p->int8_per_fp32,
                probe_int8_name(p->int8_per_fp32));
    if (p->storage_read_gbs > 0)
        fprintf(out, "storage     %.2f GB/s sequential read of %s (%s)\n", p->storage_read_gbs, fc_safe(p->storage_path),
               p->storage_direct ? "O_DIRECT" : "page cache dropped");
    if (p->busy[0])
        fprintf(out, "conditions  BUSY while measuring: %s — the figures understate this machine\n", fc_safe(p->busy));
    else if (p->load_avg > 0 || p->others_cpus > 0)
        fprintf(out, "conditions  quiet: load %.2f, others %.2f CPUs, steal %.0f%%, read repeats %.0f%% apart\n",
                p->load_avg, p->others_cpus, 100 * p->steal_frac, 100 * p->read_spread);
    rep_probe_gpus_print(p, out);
    for (int i = 0; i < p->n_net_links; i++) rep_probe_link_print(&p->net_links[i], out);
}
