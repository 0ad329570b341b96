// Calibration: the IBA credit window and the throughput it allows on a long cable.
//
// IBA Vol 1 §7.9: credits are 64-byte blocks and FCTBS / FCCL are 12-bit counts compared modulo
// 4096, so a receiver's limit runs at most 2048 credits = 128 KiB ahead of the blocks it has
// received (FCCL = ABR + min(free, 2048); net/config.h kIbCreditWindowBytes). Over a long cable
// that window, or a smaller VL buffer, not the link, limits a sender: it may have at most a
// window of blocks in flight until their credits return.
//
// The scenario: two HCAs on one switch (leaf-spine radix 4, NICs 0 and 1 on leaf 0), 400 Gb/s,
// one RDMA WRITE from NIC 0 to NIC 1, every cable `cable_m` long (5 ns per metre). Two credit
// loops, each derived by hand below from serialization, propagation and latencies:
//  - loop 1, NIC 0 -> switch: the switch frees a packet's blocks when it starts to leave (cut-
//    through, switch latency L after its header arrived) and returns a 6-byte flow-control
//    packet to NIC 0: 6 B serialization + propagation P. When the switch's VL buffer exceeds
//    the window, the window binds instead: the limit moves when the header arrives (ABR),
//    P after NIC 0 sent it, so one window per 2P + 6 B.
//  - loop 2, switch -> NIC 1: the HCA frees the blocks on arrival (the whole packet, S + P after
//    it started to leave) and returns a flow-control packet: 6 B + P, then the switch's arrival
//    latency (today the switch latency L; issue 8 item 6 removes it for credits, so tests where
//    loop 2 may bind accept both). The HCA's ABR and its freeing coincide, so here a VL buffer
//    beyond the window just leaves the window binding.
// NIC latency is set to 0 so only wire and switch terms enter.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "calibration.h"
#include "net/config.h"
#include "net/network.h"
#include "engine/run.h"
#include "engine/packet/simulation.h"

namespace fabricsim {
namespace ib_credit_test {

using calibration::check_figure;
using calibration::Figure;

constexpr int64_t kRateBps = 400'000'000'000;
constexpr int64_t kMtu = 4096;
constexpr int64_t kIbHeaderBytes = 26;  // LRH 8 + BTH 12 + ICRC 4 + VCRC 2; RETH 16 on the first
constexpr int64_t kFlowBytes = 16 << 20;

int64_t ser_ps(int64_t bytes) { return bytes * 8 * 1'000'000'000'000 / kRateBps; }

scenario::Scenario long_link(double cable_m, int64_t switch_vl_bytes, int64_t hca_vl_bytes) {
  scenario::Scenario sc;
  sc.seed = 1;
  sc.technology = scenario::Technology::kInfiniband;
  sc.topology.tiers = 2;
  sc.topology.radix = 4;
  sc.topology.hosts = 2;
  sc.link.rate_bps = kRateBps;
  sc.link.cable_m = cable_m;
  sc.nic_spec.profile = "zero";  // the model below has no NIC or host latency
  // Nor ACKs: one per packet (the default) shares the reverse links with the credit packets and
  // delays some by an ACK's serialization, which the two-loop model leaves out. The flow's last
  // packet is still acknowledged.
  sc.roce.ack_every = 1 << 20;
  sc.ib.link.vl_buffer_bytes = switch_vl_bytes;
  sc.ib.link.hca_vl_buffer_bytes = hca_vl_bytes;
  sc.workload.kind = workload::WorkloadKind::kPattern;
  sc.workload.pattern = workload::PatternKind::kFlows;
  sc.workload.flows = {{0, 1, kFlowBytes, 0}};
  return sc;
}

// The flow's completion time from the two credit loops, packet by packet:
//   send t_i   = max(t_{i-1} + S_{i-1}, credit of packet i - N1 back at NIC 0,
//                    window credit of packet i - W back at NIC 0)
//   leave e_i  = max(t_i + P + L, e_{i-1} + S_{i-1}, credit of packet i - N2 back at the switch)
//   loop 1 credit of i back at NIC 0 = e_i + s_fc + P (freed), t_i + P + s_fc + P (received)
//   loop 2 credit of i back at switch = e_i + S_i + P + s_fc + P + fc_arrival_ps
//   FCT = e_last + S_last + P
// N = whole packets of 65 blocks a VL buffer holds, W = the 31 whole packets of the 2048-block
// window (credits are granted per packet); loop 2 uses min(N2, W).
int64_t analytic_fct_ps(double cable_m, int64_t switch_vl_bytes, int64_t hca_vl_bytes,
                        int64_t switch_latency_ps, int64_t fc_arrival_ps) {
  const int64_t p = static_cast<int64_t>(cable_m * net::kPropagationPsPerMetre + 0.5);
  const int64_t s_fc = ser_ps(6);
  const int64_t n = (kFlowBytes + kMtu - 1) / kMtu;
  const int64_t blocks = (kMtu + kIbHeaderBytes + 16 + 63) / 64;  // 65 either way
  const int64_t w = net::kIbMaxAdvertisedBlocks / blocks;  // 31
  const int64_t n1 = switch_vl_bytes / 64 / blocks;
  const int64_t n2 = std::min(w, hca_vl_bytes / 64 / blocks);
  std::vector<int64_t> t(n), e(n), size(n);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t payload = std::min(kMtu, kFlowBytes - i * kMtu);
    size[i] = ser_ps(payload + kIbHeaderBytes + (i == 0 ? 16 : 0));
    t[i] = i == 0 ? 0 : t[i - 1] + size[i - 1];
    if (i >= n1) t[i] = std::max(t[i], e[i - n1] + s_fc + p);
    if (i >= w) t[i] = std::max(t[i], t[i - w] + p + s_fc + p);
    e[i] = t[i] + p + switch_latency_ps;
    if (i > 0) e[i] = std::max(e[i], e[i - 1] + size[i - 1]);
    if (i >= n2) e[i] = std::max(e[i], e[i - n2] + size[i - n2] + 2 * p + s_fc + fc_arrival_ps);
  }
  return e[n - 1] + size[n - 1] + p;
}

struct Measured {
  int64_t fct_ps;
  double goodput_gbps;
};

Measured run(const scenario::Scenario& sc) {
  const scenario::RunResult r = scenario::run_scenario(sc);
  EXPECT_TRUE(r.completed);
  EXPECT_EQ(r.counters.dropped_packets, 0);
  EXPECT_EQ(r.counters.credit_violations, 0);
  const int64_t fct = r.flows.at(0).fct_ps();
  return {fct, kFlowBytes * 8.0 / static_cast<double>(fct) * 1e3};
}

double gbps(int64_t fct_ps) { return kFlowBytes * 8.0 / static_cast<double>(fct_ps) * 1e3; }

TEST(IbCreditCalibration, CreditLimitedThroughputOnA200mCable) {
  // 200 m (P = 1 us), a 64 KiB switch VL buffer (1024 credits = 15 packets) and the HCA at the
  // window (31 packets): loop 1 binds. 15 packets per 2P + L + 6 B = 2.130 us round trip:
  // 15 x 4096 x 8 / 2.130 us = 230.7 Gb/s of goodput, well below the 397 Gb/s the wire allows;
  // over the 16 MiB flow, with the first round trip, 229.9 Gb/s (fabricsim: the same to the ps).
  const scenario::Scenario sc = long_link(200, 64 << 10, net::kIbCreditWindowBytes);
  const int64_t latency = sc.ib.switch_latency_ps;
  const int64_t fct = analytic_fct_ps(200, 64 << 10, net::kIbCreditWindowBytes, latency, latency);
  const int64_t fct_no_fc_latency =
      analytic_fct_ps(200, 64 << 10, net::kIbCreditWindowBytes, latency, 0);
  ASSERT_EQ(fct, fct_no_fc_latency) << "loop 1 binds: the credit arrival latency cannot matter";
  const double steady =
      15.0 * kMtu * 8 / static_cast<double>(2 * 1'000'000 + latency + ser_ps(6)) * 1e3;
  const Measured m = run(sc);
  check_figure(Figure{
      .name = "credit-limited goodput, 200 m cable, 64 KiB VL buffer, 400 Gb/s (IB)",
      .published = "15 x 4096 B per 2P + L + 6 B = " + std::to_string(steady).substr(0, 5) +
                   " Gb/s steady; " + std::to_string(gbps(fct)).substr(0, 5) +
                   " Gb/s over the flow (start-up included)",
      .source = "IBA Vol 1 §7.9 credit loop (64-byte credits), derived from serialization, "
                "propagation (5 ns/m) and switch latency",
      .scenario = "IbCreditCalibration.CreditLimitedThroughputOnA200mCable: 16 MiB WRITE "
                  "NIC 0 -> switch -> NIC 1, fabric.ib.vl_buffer 64KiB, cable 200 m",
      .unit = "Gb/s",
      .value = m.goodput_gbps,
      .lo = gbps(fct) * 0.999,
      .hi = gbps(fct) * 1.001});
  EXPECT_LT(m.goodput_gbps, 0.6 * kRateBps / 1e9) << "the buffer, not the link, limits it";
}

TEST(IbCreditCalibration, TheCreditWindowSustainsLineRateUpToAbout240m) {
  // The default buffers (a switch port's share of 64 MiB, the HCA's 262,016 B) both exceed the
  // 2048-block window, so every loop holds 31 packets = 31 x 82.44 ns = 2.556 us of sending.
  // Loop 1 (window, from the header's arrival) needs 2P + 6 B <= 2.556 us: P <= 1.278 us, 255 m;
  // loop 2 (one more packet time S, and L on the credit's arrival today) P <= 1.172 us, 234 m.
  // So the 2048-credit window carries 400 Gb/s over ~234-255 m of cable, a data-centre's longest
  // runs, and falls as 1/length beyond: an IB long-haul link needs larger credits (Mellanox
  // patent US 9,584,429 rescales them).
  for (const double cable_m : {200.0, 1000.0}) {
    const scenario::Scenario sc = long_link(cable_m, 0, 0);  // defaults
    const int64_t switch_vl = sc.switch_config.buffer_bytes / 4;  // radix 4, one data VL
    const int64_t hca_vl = net::kConnectXPortBufferBytes;
    const int64_t latency = sc.ib.switch_latency_ps;
    const int64_t a = analytic_fct_ps(cable_m, switch_vl, hca_vl, latency, latency);
    const int64_t b = analytic_fct_ps(cable_m, switch_vl, hca_vl, latency, 0);
    const Measured m = run(sc);
    const double lo = gbps(std::max(a, b)), hi = gbps(std::min(a, b));
    check_figure(Figure{
        .name = "goodput with the default VL buffers (2048-credit window), " +
                std::to_string(static_cast<int>(cable_m)) + " m cable, 400 Gb/s (IB)",
        .published = cable_m < 240 ? "line rate (cable below ~234-255 m)"
                                   : "31 packets per credit round trip (2P + S + L)",
        .source = "IBA Vol 1 §7.9: 12-bit FCTBS/FCCL, FCCL at most 2048 credits ahead of ABR; "
                  "loops derived from serialization, propagation and switch latency",
        .scenario = "IbCreditCalibration.TheCreditWindowSustainsLineRateUpToAbout240m: 16 MiB "
                    "WRITE through one switch, default fabric.ib.vl_buffer / hca_vl_buffer",
        .unit = "Gb/s",
        .value = m.goodput_gbps,
        .lo = lo * 0.999,
        .hi = hi * 1.001});
    if (cable_m < 240) {
      const double line = kRateBps / 1e9 * kMtu / (kMtu + kIbHeaderBytes);
      EXPECT_GT(m.goodput_gbps, 0.99 * line) << "line rate at " << cable_m << " m";
    }
  }
}

TEST(IbCreditCalibration, DefaultPortsAdvertiseTheIbaWindow) {
  // A default IB fabric (64 MiB switches, 1 data VL): every receiving port, switch or HCA, has a
  // buffer above 2048 blocks (a switch port 64 MiB / its ports, the HCA 262,016 B = 4094 blocks), so
  // every sender starts with exactly the window, 2048 credits, the most 12-bit FCCL allows.
  scenario::Scenario sc = long_link(3, 0, 0);
  scenario::Simulation sim(sc);
  const net::Network& net = sim.network();
  uint32_t most = 0, least = UINT32_MAX;
  for (uint32_t id = 0; id < net.num_ports(); ++id) {
    const net::PortQueues& q = net.queues(id);
    const net::Port& far = net.port(net.port(id).peer);
    const uint32_t far_buffer = net.queues(net.port(id).peer).rx_buffer_blocks;
    EXPECT_EQ(far_buffer, far.is_nic ? 4094u
                                     : (64u << 20) / 64 / net.switch_at(far.switch_index).num_ports)
        << "port " << id;
    most = std::max(most, q.fc_limit_blocks[0] - q.fc_sent_blocks[0]);
    least = std::min(least, q.fc_limit_blocks[0] - q.fc_sent_blocks[0]);
  }
  check_figure(Figure{
      .name = "credits a default IB port advertises ahead of what it received",
      .published = "2048 credits = 128 KiB (FCTBS/FCCL 12-bit, (FCCL - (FCTBS + N)) mod 4096 "
                   "<= 2048)",
      .source = "IBA Vol 1 §7.9; 12-bit fields: Wireshark packet-infiniband.c; comparison "
                "rule UNVERIFIED against the spec text",
      .scenario = "IbCreditCalibration.DefaultPortsAdvertiseTheIbaWindow: every port of a "
                  "default IB leaf-spine",
      .unit = "credits",
      .value = static_cast<double>(most),
      .lo = 2048,
      .hi = 2048});
  EXPECT_EQ(least, 2048u) << "switch ports and HCA ports alike";
}

}  // namespace ib_credit_test
}  // namespace fabricsim
