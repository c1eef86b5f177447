/* PCIe link decoding: the encoding table, LNKCAP/LNKSTA fields of known
 * register values, sysfs speed strings and PCI bus ids. */
#include "probe/gpu_internal.h"
#include "tests/check.h"

#include <pci/pci.h>
#include <string.h>

static void check_table(void) {
    /* GB/s per lane per direction after encoding */
    CHECK_NEAR(probe_pcie_lane_gbs(1), 0.25, 1e-9);
    CHECK_NEAR(probe_pcie_lane_gbs(2), 0.5, 1e-9);
    CHECK_NEAR(probe_pcie_lane_gbs(3), 0.985, 1e-9);
    CHECK_NEAR(probe_pcie_lane_gbs(4), 1.97, 1e-9);
    CHECK_NEAR(probe_pcie_lane_gbs(5), 3.94, 1e-9);
    CHECK_NEAR(probe_pcie_lane_gbs(6), 7.56, 1e-9);
    CHECK(probe_pcie_lane_gbs(0) == 0.0);
    CHECK(probe_pcie_lane_gbs(7) == 0.0);
    CHECK(probe_pcie_lane_gbs(-1) == 0.0);
    /* x16 gen5 = 63.0 GB/s, gen4 = 31.5 */
    CHECK_NEAR(probe_pcie_lane_gbs(5) * 16, 63.0, 0.1);
    CHECK_NEAR(probe_pcie_lane_gbs(4) * 16, 31.5, 0.1);
}

static void check_registers(void) {
    /* the capability offsets the probe reads (libpci names them) */
    CHECK(PCI_EXP_LNKCAP == 0x0c);
    CHECK(PCI_EXP_LNKSTA == 0x12);
    probe_link l;
    /* a gen5 x16 GPU (ASPM L1, exit latencies set) idling at gen1 x16 with
     * the slot clock bit set */
    memset(&l, 0, sizeof l);
    probe_pcie_decode(0x00024905u, 0x1101u, &l);
    CHECK(l.gen_max == 5 && l.width_max == 16);
    CHECK(l.gen_cur == 1 && l.width_cur == 16);
    CHECK_NEAR(l.theoretical_gbs, 63.04, 1e-6);
    /* the same card under load */
    probe_pcie_decode(0x00024905u, 0x1105u, &l);
    CHECK(l.gen_cur == 5 && l.width_cur == 16);
    /* an NVMe drive, gen4 x4, port number in the top byte */
    probe_pcie_decode(0x05477c44u, 0x1044u, &l);
    CHECK(l.gen_max == 4 && l.width_max == 4 && l.gen_cur == 4 && l.width_cur == 4);
    CHECK_NEAR(l.theoretical_gbs, 7.88, 1e-6);
    /* a gen3 x8 card trained down to x4 */
    probe_pcie_decode(0x0003c083u, 0x0043u, &l);
    CHECK(l.gen_max == 3 && l.width_max == 8 && l.gen_cur == 3 && l.width_cur == 4);
    /* denied config space reads back all ones: nothing decoded */
    probe_pcie_decode(0xffffffffu, 0xffffu, &l);
    CHECK(l.gen_max == 0 && l.width_max == 0 && l.gen_cur == 0 && l.width_cur == 0);
    CHECK(l.theoretical_gbs == 0.0);
    /* widths the spec does not allow */
    CHECK(probe_pcie_width_field(3u << 4) == 0);
    CHECK(probe_pcie_width_field(12u << 4) == 12);
    CHECK(probe_pcie_width_field(32u << 4) == 32);
}

static void check_sysfs_text(void) {
    CHECK(probe_pcie_gen_from_text("2.5 GT/s PCIe") == 1);
    CHECK(probe_pcie_gen_from_text("5.0 GT/s PCIe") == 2);
    CHECK(probe_pcie_gen_from_text("8 GT/s") == 3);
    CHECK(probe_pcie_gen_from_text("16.0 GT/s PCIe") == 4);
    CHECK(probe_pcie_gen_from_text("32.0 GT/s PCIe") == 5);
    CHECK(probe_pcie_gen_from_text("64.0 GT/s PCIe") == 6);
    CHECK(probe_pcie_gen_from_text("Unknown") == 0);
    CHECK(probe_pcie_gen_from_text("") == 0);
    CHECK(probe_pcie_gen_from_text("12.0 GT/s") == 0);
}

static void check_bus_ids(void) {
    unsigned d, b, v, f;
    CHECK(probe_pcie_bus_id_parse("0000:65:00.0", &d, &b, &v, &f) && d == 0 && b == 0x65 && v == 0 && f == 0);
    /* CUDA prints an 8-digit domain on some drivers */
    CHECK(probe_pcie_bus_id_parse("00000001:c1:1f.7", &d, &b, &v, &f) && d == 1 && b == 0xc1 && v == 0x1f &&
          f == 7);
    CHECK(!probe_pcie_bus_id_parse("0000:65:00", &d, &b, &v, &f));
    CHECK(!probe_pcie_bus_id_parse("0000:65:20.0", &d, &b, &v, &f)); /* device > 31 */
    CHECK(!probe_pcie_bus_id_parse("0000:65:00.8", &d, &b, &v, &f)); /* function > 7 */
    CHECK(!probe_pcie_bus_id_parse("0000:165:00.0", &d, &b, &v, &f));
    CHECK(!probe_pcie_bus_id_parse("0000:65:00.0x", &d, &b, &v, &f));
    CHECK(!probe_pcie_bus_id_parse("", &d, &b, &v, &f));
}

/* On this machine, whatever its devices: reading an absent device fails
 * cleanly, and every NVMe link found decodes to a known generation. */
static void check_bus_here(void) {
    probe_bus bus;
    probe_bus_open(&bus);
    probe_link l;
    memset(&l, 0, sizeof l);
    CHECK(!probe_bus_link(&bus, "00ff:ff:1f.7", &l));
    CHECK(probe_bus_numa(&bus, "00ff:ff:1f.7") == -1);
    static probe_profile p;
    probe_bus_nvme(&bus, &p);
    for (int i = 0; i < p.n_nvme; i++)
        CHECK_MSG(p.nvme[i].link.gen_max == 0 || probe_pcie_lane_gbs(p.nvme[i].link.gen_max) > 0, "%s",
                  p.nvme[i].pci_bus_id);
    probe_bus_close(&bus);
}

int main(void) {
    check_table();
    check_registers();
    check_sysfs_text();
    check_bus_ids();
    check_bus_here();
    return check_done("gpu_pcie");
}
