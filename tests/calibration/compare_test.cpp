// The InfiniBand-versus-RoCE answer on the collective users benchmark most: a 1 GiB ring
// all-reduce on 16 NICs at 400 Gb/s with every default (issue 8's acceptance scenario).
//
// Published: "CX-7 NICs at NDR rate (400Gbps) should achieve up to 48-49GB/s per NIC" (an NCCL
// maintainer on NVIDIA/nccl-tests issue #267, 2025-01-23), the busbw of all_reduce_perf at large
// sizes. fabricsim has no GPU, PCIe-to-GPU or NCCL pipeline yet (issue 10), so its figure is the
// fabric's alone: it must lie between 44 GB/s and the fabric's wire limit, derived here by hand:
//
//   busbw = bytes each NIC sends / time = payload goodput of its transmit link, and that link
//   carries, per 4096-byte data packet, the packet and one ACK for a packet it received (the
//   ring is symmetric; fabric.nic.ack_every 1):
//     RoCEv2: 4096 + 82 (Eth/IP/UDP/BTH/ICRC/FCS + preamble/IFG) + 66 + 20 (ACK frame + wire)
//     IB:     4096 + 26 (LRH/BTH/ICRC/VCRC) + 30 (LRH/BTH/AETH/ICRC/VCRC)
//   plus, on IB, the 6-byte flow-control packets the NIC returns for what it receives.
//
// The decomposition (docs/calibration.md): with nothing congested and slices pipelined, latency
// is hidden, so the IB/RoCE ratio must be the bytes-per-packet ratio alone; changing RoCE's
// switch latency to InfiniBand's must not move its busbw.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "calibration.h"
#include "net/wire.h"
#include "engine/run.h"

namespace fabricsim {
namespace compare_test {

using calibration::check_figure;
using calibration::Figure;

constexpr double kRateBps = 400e9;
constexpr double kMtu = 4096;

scenario::Scenario ring_1gib(scenario::Technology tech) {
  scenario::Scenario sc;
  sc.technology = tech;
  sc.topology.tiers = 2;
  sc.topology.radix = 8;
  sc.topology.hosts = 16;
  sc.link.rate_bps = static_cast<int64_t>(kRateBps);
  sc.workload.kind = workload::WorkloadKind::kCollective;
  sc.workload.size_bytes = 1ll << 30;
  return sc;
}

// Payload GB/s of a 400 Gb/s link that carries `per_packet_bytes` per 4096-byte payload.
double goodput_gbytes(double per_packet_bytes) { return kRateBps / 8e9 * kMtu / per_packet_bytes; }

const double kRocePacket = net::roce_data_frame_bytes(4096, false, false) + net::kWireOnlyBytes +
                           net::roce_ack_frame_bytes(false) + net::kWireOnlyBytes;
const double kIbPacket = net::ib_packet_bytes(4096) + net::ib_packet_bytes(net::kAethBytes);
constexpr double kIbCreditPacketBytes = 6;  // IBA 7.9.4 flow-control packet

double busbw(const scenario::Scenario& sc) {
  const scenario::RunResult r = scenario::run_scenario(sc);
  EXPECT_TRUE(r.completed);
  EXPECT_EQ(r.counters.dropped_packets, 0);
  return r.collective.busbw_gbytes_per_s;
}

TEST(CompareCalibration, RingAllReduce1GiBBusbwAndItsDecomposition) {
  static_assert(net::ib_packet_bytes(net::kAethBytes) == 30, "IB ACK: LRH+BTH+AETH+ICRC+VCRC");
  ASSERT_EQ(kRocePacket, 4096 + 82 + 86);
  const double ib = busbw(ring_1gib(scenario::Technology::kInfiniband));
  const double roce = busbw(ring_1gib(scenario::Technology::kRoce));
  const char* published = "up to 48-49 GB/s per ConnectX-7 NIC at NDR";
  const char* source = "NCCL maintainer, NVIDIA/nccl-tests issue #267 (2025-01-23)";
  check_figure(Figure{.name = "nccl-tests all-reduce busbw per 400G NIC, 1 GiB, 16 NICs (IB)",
                      .published = published,
                      .source = source,
                      .scenario = "CompareCalibration: ring all-reduce 1 GiB, 2-tier radix 8, "
                                  "16 NICs, 400 Gb/s, all defaults; band 44 GB/s to the wire limit",
                      .unit = "GB/s",
                      .value = ib,
                      .lo = 44,
                      .hi = goodput_gbytes(kIbPacket)});
  check_figure(Figure{.name = "nccl-tests all-reduce busbw per 400G NIC, 1 GiB, 16 NICs (RoCE)",
                      .published = published,
                      .source = source,
                      .scenario = "CompareCalibration: the same ring on RoCEv2 (PFC off: a ring "
                                  "never congests); band 44 GB/s to the wire limit",
                      .unit = "GB/s",
                      .value = roce,
                      .lo = 44,
                      .hi = goodput_gbytes(kRocePacket)});
  // Item by item: headers (data and ACK), then IB's credit packets (link layer).
  const double headers = kRocePacket / kIbPacket;
  const double link_layer = kIbPacket / (kIbPacket + kIbCreditPacketBytes);
  std::printf("IB %.3f GB/s, RoCE %.3f GB/s, ratio %.4f; headers %.4f x credit packets %.4f = "
              "%.4f\n",
              ib, roce, ib / roce, headers, link_layer, headers * link_layer);
  EXPECT_NEAR(ib / roce, headers * link_layer, 0.001) << "a bandwidth-bound ring: bytes alone";
  scenario::Scenario fast_switch = ring_1gib(scenario::Technology::kRoce);
  fast_switch.switch_config.latency_ps = scenario::IbSpec{}.switch_latency_ps;
  EXPECT_NEAR(busbw(fast_switch) / roce, 1.0, 0.001) << "slicing hides the switch latency";
}

}  // namespace compare_test
}  // namespace fabricsim
