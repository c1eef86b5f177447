/* The bus: PCIe links of GPUs and NVMe drives (libpci, or sysfs when config
 * space is denied to non-root users) and each device's place in the NUMA
 * topology (hwloc PCI objects), where transfers pin the host thread. */
#include "probe/gpu_internal.h"

#include <glob.h>
#include <pci/pci.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SYSFS_PCI "/sys/bus/pci/devices"
/* PCI class of an NVMe controller: mass storage (0x01), NVM (0x08). */
#define PCI_CLASS_NVME 0x0108
#define SYSFS_LINE_MAX 64

/* hwloc plugins that would start a GPU runtime to annotate PCI objects:
 * only the PCI tree is needed here, and the runtimes are probed directly. */
static const char *const bus_hwloc_skip[] = {"pci", "opencl", "cuda", "nvml", "rsmi", "levelzero", "gl"};

/* libpci reports fatal errors through a callback that must not return. Every
 * libpci call is made inside bus_pci_call, whose frame holds the jump
 * buffer for exactly as long as the call runs: a jump never lands in a frame
 * that has returned. After an error libpci's state is unknown, so it is
 * dropped and the bus goes on with sysfs. The probe is single-threaded, so
 * one pointer suffices. */
static jmp_buf *bus_pci_jump;
/* The last libpci access dropped after an error: never freed (cleaning up
 * unknown state is riskier than leaking it once) and never used again; kept
 * here so that the leak is deliberate, not lost. */
static struct pci_access *bus_pci_dropped;

static _Noreturn void bus_pci_error(char *msg, ...) {
    (void)msg;
    if (bus_pci_jump)
        longjmp(*bus_pci_jump, 1);
    abort(); /* a libpci call outside bus_pci_call: a bug in this file */
}

static void bus_pci_quiet(char *msg, ...) {
    (void)msg;
}

typedef void (*bus_pci_fn)(probe_bus *b, void *ctx);

/* Runs fn(b, ctx) with libpci's error jump pointing into this frame. false
 * when libpci failed: b->pacc is then NULL. */
static bool bus_pci_call(probe_bus *b, bus_pci_fn fn, void *ctx) {
    jmp_buf here;
    if (setjmp(here) != 0) {
        bus_pci_jump = NULL;
        bus_pci_dropped = b->pacc;
        b->pacc = NULL;
        return false;
    }
    bus_pci_jump = &here;
    fn(b, ctx);
    bus_pci_jump = NULL;
    return true;
}

static void bus_pci_start(probe_bus *b, void *ctx) {
    (void)ctx;
    pci_init(b->pacc);
    pci_scan_bus(b->pacc);
}

static void bus_pci_cleanup(probe_bus *b, void *ctx) {
    (void)ctx;
    pci_cleanup(b->pacc);
}

void probe_bus_open(probe_bus *b) {
    memset(b, 0, sizeof *b);
    b->pacc = pci_alloc();
    if (b->pacc) {
        b->pacc->error = bus_pci_error;
        b->pacc->warning = bus_pci_quiet;
        b->pacc->debug = bus_pci_quiet;
        bus_pci_call(b, bus_pci_start, NULL);
    }
    if (hwloc_topology_init(&b->topo) == 0) {
        hwloc_topology_set_io_types_filter(b->topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
        for (size_t i = 0; i < FC_ARRAY_LEN(bus_hwloc_skip); i++)
            hwloc_topology_set_components(b->topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, bus_hwloc_skip[i]);
        if (hwloc_topology_load(b->topo) != 0) {
            hwloc_topology_destroy(b->topo);
            b->topo = NULL;
        }
    } else {
        b->topo = NULL;
    }
}

void probe_bus_close(probe_bus *b) {
    probe_bus_unpin(b);
    if (b->pacc)
        bus_pci_call(b, bus_pci_cleanup, NULL);
    if (b->topo)
        hwloc_topology_destroy(b->topo);
    memset(b, 0, sizeof *b);
}

static struct pci_dev *bus_find(probe_bus *b, const char *bus_id) {
    unsigned dom, bus, dev, fn;
    if (!b->pacc || !probe_pcie_bus_id_parse(bus_id, &dom, &bus, &dev, &fn))
        return NULL;
    for (struct pci_dev *d = b->pacc->devices; d; d = d->next)
        if ((unsigned)d->domain == dom && d->bus == bus && d->dev == dev && d->func == fn)
            return d;
    return NULL;
}

typedef struct bus_config {
    const char *bus_id;
    uint32_t lnkcap;
    uint16_t lnksta;
    bool ok;
} bus_config;

static void bus_pci_config(probe_bus *b, void *ctx) {
    bus_config *c = ctx;
    struct pci_dev *d = bus_find(b, c->bus_id);
    if (!d)
        return;
    pci_fill_info(d, PCI_FILL_CAPS);
    struct pci_cap *cap = pci_find_cap(d, PCI_CAP_ID_EXP, PCI_CAP_NORMAL);
    if (!cap)
        return;
    c->lnkcap = pci_read_long(d, cap->addr + PCI_EXP_LNKCAP);
    c->lnksta = pci_read_word(d, cap->addr + PCI_EXP_LNKSTA);
    c->ok = true;
}

/* Reads the PCI Express capability's LNKCAP and LNKSTA. false when the
 * config space past the first 64 bytes is denied (reads come back as all
 * ones, or the capability list is not visible) or libpci failed. */
static bool bus_read_config(probe_bus *b, const char *bus_id, uint32_t *lnkcap, uint16_t *lnksta) {
    bus_config c = {.bus_id = bus_id};
    if (!b->pacc || !bus_pci_call(b, bus_pci_config, &c) || !c.ok)
        return false;
    *lnkcap = c.lnkcap;
    *lnksta = c.lnksta;
    return probe_pcie_speed_field(*lnkcap) && probe_pcie_width_field(*lnkcap);
}

static bool bus_sysfs_line(const char *bus_id, const char *file, char *buf, size_t cap) {
    char path[256];
    snprintf(path, sizeof path, SYSFS_PCI "/%s/%s", bus_id, file);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fgets(buf, (int)cap, f) != NULL;
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return ok;
}

static void bus_sysfs_pair(const char *bus_id, const char *which, int *gen, int *width) {
    char speed[SYSFS_LINE_MAX], wtext[SYSFS_LINE_MAX], file[48];
    snprintf(file, sizeof file, "%s_link_speed", which);
    *gen = bus_sysfs_line(bus_id, file, speed, sizeof speed) ? probe_pcie_gen_from_text(speed) : 0;
    snprintf(file, sizeof file, "%s_link_width", which);
    *width = bus_sysfs_line(bus_id, file, wtext, sizeof wtext) ? probe_pcie_width_field((uint32_t)atoi(wtext) << 4)
                                                                 : 0;
}

bool probe_bus_link(probe_bus *b, const char *bus_id, probe_link *l) {
    uint32_t lnkcap;
    uint16_t lnksta;
    if (bus_read_config(b, bus_id, &lnkcap, &lnksta)) {
        probe_pcie_decode(lnkcap, lnksta, l);
        snprintf(l->source, sizeof l->source, "libpci");
        return true;
    }
    bus_sysfs_pair(bus_id, "max", &l->gen_max, &l->width_max);
    bus_sysfs_pair(bus_id, "current", &l->gen_cur, &l->width_cur);
    if (!l->gen_max || !l->width_max)
        return false;
    l->theoretical_gbs = probe_pcie_lane_gbs(l->gen_max) * l->width_max;
    snprintf(l->source, sizeof l->source, "sysfs");
    return true;
}

bool probe_bus_link_now(probe_bus *b, const char *bus_id, int *gen, int *width) {
    uint32_t lnkcap;
    uint16_t lnksta;
    if (bus_read_config(b, bus_id, &lnkcap, &lnksta)) {
        *gen = probe_pcie_speed_field(lnksta);
        *width = probe_pcie_width_field(lnksta);
    } else {
        bus_sysfs_pair(bus_id, "current", gen, width);
    }
    return *gen && *width;
}

/* The nearest non-I/O ancestor of the device (a NUMA node's parent, a
 * package, or the machine when the firmware does not say). */
static hwloc_obj_t bus_ancestor(probe_bus *b, const char *bus_id) {
    unsigned dom, bus, dev, fn;
    if (!b->topo || !probe_pcie_bus_id_parse(bus_id, &dom, &bus, &dev, &fn))
        return NULL;
    hwloc_obj_t obj = hwloc_get_pcidev_by_busid(b->topo, dom, bus, dev, fn);
    return obj ? hwloc_get_non_io_ancestor_obj(b->topo, obj) : NULL;
}

int probe_bus_numa(probe_bus *b, const char *bus_id) {
    hwloc_obj_t anc = bus_ancestor(b, bus_id);
    /* one node only: an ancestor spanning several nodes says nothing */
    if (!anc || !anc->nodeset || hwloc_bitmap_weight(anc->nodeset) != 1)
        return -1;
    return hwloc_bitmap_first(anc->nodeset);
}

bool probe_bus_pin(probe_bus *b, const char *bus_id) {
    hwloc_obj_t anc = bus_ancestor(b, bus_id);
    if (!anc || !anc->cpuset || b->pinned)
        return false;
    b->saved_cpubind = hwloc_bitmap_alloc();
    if (!b->saved_cpubind)
        return false;
    if (hwloc_get_cpubind(b->topo, b->saved_cpubind, HWLOC_CPUBIND_THREAD) != 0 ||
        hwloc_set_cpubind(b->topo, anc->cpuset, HWLOC_CPUBIND_THREAD) != 0) {
        hwloc_bitmap_free(b->saved_cpubind);
        b->saved_cpubind = NULL;
        return false;
    }
    b->pinned = true;
    return true;
}

void probe_bus_unpin(probe_bus *b) {
    if (!b->pinned)
        return;
    hwloc_set_cpubind(b->topo, b->saved_cpubind, HWLOC_CPUBIND_THREAD);
    hwloc_bitmap_free(b->saved_cpubind);
    b->saved_cpubind = NULL;
    b->pinned = false;
}

/* The controller's model string from the nvme driver, else libpci's name. */
static void bus_nvme_name(probe_bus *b, struct pci_dev *d, const char *bus_id, char *name, size_t cap) {
    char pattern[128];
    glob_t g;
    snprintf(pattern, sizeof pattern, SYSFS_PCI "/%s/nvme/nvme*/model", bus_id);
    if (glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0) {
        FILE *f = fopen(g.gl_pathv[0], "r");
        if (f) {
            if (fgets(name, (int)cap, f)) {
                name[strcspn(name, "\n")] = '\0';
                for (size_t n = strlen(name); n > 0 && name[n - 1] == ' '; n--)
                    name[n - 1] = '\0'; /* the model field is space-padded */
            }
            fclose(f);
        }
    }
    globfree(&g);
    if (!name[0])
        pci_lookup_name(b->pacc, name, (int)cap, PCI_LOOKUP_VENDOR | PCI_LOOKUP_DEVICE, d->vendor_id, d->device_id);
}

static void bus_pci_nvme(probe_bus *b, void *ctx) {
    probe_profile *p = ctx;
    for (struct pci_dev *d = b->pacc->devices; d; d = d->next) {
        if (p->n_nvme >= (int)FC_ARRAY_LEN(p->nvme))
            break;
        pci_fill_info(d, PCI_FILL_IDENT | PCI_FILL_CLASS);
        if (d->device_class != PCI_CLASS_NVME)
            continue;
        probe_nvme *n = &p->nvme[p->n_nvme++];
        memset(n, 0, sizeof *n);
        snprintf(n->pci_bus_id, sizeof n->pci_bus_id, "%04x:%02x:%02x.%x", (unsigned)d->domain, d->bus, d->dev,
                 d->func);
        bus_nvme_name(b, d, n->pci_bus_id, n->name, sizeof n->name);
    }
}

void probe_bus_nvme(probe_bus *b, probe_profile *p) {
    p->n_nvme = 0;
    /* links read after the walk: each reading makes its own libpci call */
    if (b->pacc)
        bus_pci_call(b, bus_pci_nvme, p);
    for (int i = 0; i < p->n_nvme; i++)
        probe_bus_link(b, p->nvme[i].pci_bus_id, &p->nvme[i].link);
}
