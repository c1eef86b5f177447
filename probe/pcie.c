/* PCIe link arithmetic: register fields, generations and their encodings.
 * Pure functions, so the unit tests can feed known register values. */
#include "probe/gpu_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One row per PCIe generation: transfer rate and the bandwidth one lane
 * carries per direction after line encoding (8b/10b for gen1-2, 128b/130b
 * for gen3-5, PAM4 FLIT mode with FEC/CRC overhead for gen6). */
typedef struct pcie_gen_row {
    int gen;
    double gts;      /* GT/s, as sysfs prints it */
    double lane_gbs; /* GB/s per lane per direction, 1e9 bytes */
} pcie_gen_row;

static const pcie_gen_row pcie_gens[] = {
    {1, 2.5, 0.25}, {2, 5.0, 0.5}, {3, 8.0, 0.985}, {4, 16.0, 1.97}, {5, 32.0, 3.94}, {6, 64.0, 7.56},
};

/* Link widths the spec allows; anything else in a register means the read
 * returned garbage (a denied config read yields all ones). */
static const int pcie_widths[] = {1, 2, 4, 8, 12, 16, 32};

#define PCIE_SPEED_MASK 0x000fu
#define PCIE_WIDTH_MASK 0x03f0u
#define PCIE_WIDTH_SHIFT 4
/* Rates within this many GT/s of a table row name that generation. */
#define PCIE_GTS_TOLERANCE 0.2

double probe_pcie_lane_gbs(int gen) {
    for (size_t i = 0; i < FC_ARRAY_LEN(pcie_gens); i++)
        if (pcie_gens[i].gen == gen)
            return pcie_gens[i].lane_gbs;
    return 0.0;
}

int probe_pcie_speed_field(uint32_t reg) {
    int gen = (int)(reg & PCIE_SPEED_MASK);
    return probe_pcie_lane_gbs(gen) > 0 ? gen : 0;
}

int probe_pcie_width_field(uint32_t reg) {
    int width = (int)((reg & PCIE_WIDTH_MASK) >> PCIE_WIDTH_SHIFT);
    for (size_t i = 0; i < FC_ARRAY_LEN(pcie_widths); i++)
        if (pcie_widths[i] == width)
            return width;
    return 0;
}

void probe_pcie_decode(uint32_t lnkcap, uint16_t lnksta, probe_link *l) {
    l->gen_max = probe_pcie_speed_field(lnkcap);
    l->width_max = probe_pcie_width_field(lnkcap);
    l->gen_cur = probe_pcie_speed_field(lnksta);
    l->width_cur = probe_pcie_width_field(lnksta);
    l->theoretical_gbs = probe_pcie_lane_gbs(l->gen_max) * l->width_max;
}

int probe_pcie_gen_from_text(const char *speed) {
    char *end;
    double gts = strtod(speed, &end);
    if (end == speed)
        return 0;
    for (size_t i = 0; i < FC_ARRAY_LEN(pcie_gens); i++)
        if (gts > pcie_gens[i].gts - PCIE_GTS_TOLERANCE && gts < pcie_gens[i].gts + PCIE_GTS_TOLERANCE)
            return pcie_gens[i].gen;
    return 0;
}

bool probe_pcie_bus_id_parse(const char *s, unsigned *dom, unsigned *bus, unsigned *dev, unsigned *fn) {
    int used = 0;
    /* hex digits and separators only: scanf's %x would also take "0x" and signs */
    if (s[strspn(s, "0123456789abcdefABCDEF:.")] != '\0')
        return false;
    if (sscanf(s, "%x:%x:%x.%x%n", dom, bus, dev, fn, &used) != 4 || s[used] != '\0')
        return false;
    return *dom <= 0xffff && *bus <= 0xff && *dev <= 0x1f && *fn <= 0x7;
}
