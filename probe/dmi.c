/* Theoretical DRAM bandwidth from the SMBIOS memory-device records (type 17,
 * what dmidecode prints): each populated module's configured speed in MT/s
 * times its data width. Channels are not in SMBIOS, so one module per channel
 * is assumed and said in the source; the table is root-only on most systems
 * and absent in many VMs, and then the figure stays unknown (0). */
#include "probe/probe_internal.h"

#include <stdlib.h>
#include <string.h>

#define DMI_TABLE_PATH "/sys/firmware/dmi/tables/DMI"
#define DMI_MAX_BYTES (1u << 20)
#define DMI_TYPE_MEMORY_DEVICE 17
#define DMI_TYPE_END 127
/* Offsets inside a type 17 record (SMBIOS 3.x, section 7.18). */
#define T17_DATA_WIDTH 0x0A
#define T17_SIZE 0x0C
#define T17_SPEED 0x15
#define T17_CONFIGURED_SPEED 0x20
#define T17_UNKNOWN 0xFFFF

static unsigned u16_at(const unsigned char *r, size_t off) { return r[off] | (unsigned)r[off + 1] << 8; }

void probe_dram_theoretical(probe_profile *p) {
    char *t;
    size_t len;
    if (fc_read_file(DMI_TABLE_PATH, DMI_MAX_BYTES, &t, &len, NULL)) {
        snprintf(p->dram_theoretical_source, sizeof p->dram_theoretical_source,
                 "unknown: %s not readable", DMI_TABLE_PATH);
        return;
    }
    const unsigned char *d = (const unsigned char *)t;
    int modules = 0;
    unsigned mts = 0, width = 0;
    double bytes_per_s = 0;
    size_t off = 0;
    while (off + 4 <= len) {
        unsigned type = d[off], hlen = d[off + 1];
        if (hlen < 4 || off + hlen > len || type == DMI_TYPE_END) break;
        const unsigned char *r = d + off;
        if (type == DMI_TYPE_MEMORY_DEVICE && hlen > T17_SPEED + 1) {
            unsigned size = u16_at(r, T17_SIZE), w = u16_at(r, T17_DATA_WIDTH);
            unsigned speed = u16_at(r, T17_SPEED);
            if (hlen > T17_CONFIGURED_SPEED + 1 && u16_at(r, T17_CONFIGURED_SPEED) &&
                u16_at(r, T17_CONFIGURED_SPEED) != T17_UNKNOWN)
                speed = u16_at(r, T17_CONFIGURED_SPEED);
            if (size && size != T17_UNKNOWN && speed && speed != T17_UNKNOWN && w && w != T17_UNKNOWN) {
                modules++;
                mts = speed;
                width = w;
                bytes_per_s += (double)speed * 1e6 * w / 8;
            }
        }
        /* The formatted area is followed by strings ending in a double NUL. */
        off += hlen;
        while (off + 1 < len && (d[off] || d[off + 1])) off++;
        off += 2;
    }
    free(t);
    if (!modules) {
        snprintf(p->dram_theoretical_source, sizeof p->dram_theoretical_source, "unknown: no memory devices in SMBIOS");
        return;
    }
    p->dram_theoretical_gbs = bytes_per_s / 1e9;
    snprintf(p->dram_theoretical_source, sizeof p->dram_theoretical_source, "SMBIOS: %d x %u MT/s x %u bit, 1/channel",
             modules, mts, width);
}
