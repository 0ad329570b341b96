// Shared fabric, figures and probes of the PFC validation tests (pfc_test.cpp: lossless
// incasts, hop-by-hop propagation and headroom; pfc_pause_test.cpp: PAUSE timing, storms and
// head-of-line blocking). Header-only, in its own namespace, so that both files, and the unity
// build that compiles them together, see one definition of each.
//
// Priority flow control (IEEE 802.1Qbb; SPEC §8 "PFC", shared/reference/rocev2.md §2) on
// RoCEv2 incasts, checked against figures derived here, not read back from the simulator.
//
// Leaf-spine, radix 16, 100 Gb/s, 3 m cables (the incast tests):
//
//     spine8  spine9 ... spine15           8 spines, every leaf cabled to every spine
//        \  \   |   /   /
//     leaf0  leaf1  ...  leaf7             8 NICs per leaf: NICs 0-7 on leaf0, 8-15 on leaf1, ...
//     R=NIC0
//
// These tests use the static split (fabric.pfc.threshold: static); pfc_dynamic_test.cpp the
// default dynamic shared-pool threshold. Per ingress port and lossless class (SPEC §8, Linux mlx5
// calculate_xoff() in integer arithmetic):
//   headroom = (301 + 216 x cable_m / 100) x speed_Mbps / 1000 + 272 x MTU / 100     bytes
//   static:  XOFF = port buffer - headroom,  XON = XOFF - MTU
// with the port buffer = switch buffer / ports of that switch unless fabric.pfc.port_buffer is
// set. At 100 Gb/s, 3 m and MTU 4096: headroom = 307 x 100 + 11141 = 41841 bytes.
//
// Goodput into one receiver: only data crosses the bottleneck (leaf0 -> R); ACKs go the other
// way. A message of S bytes is ceil(S/4096) packets of 82 bytes overhead each plus one 16-byte
// RETH, so the bottleneck delivers at most  B = 100 Gb/s x S / (S + 82 ceil(S/4096) + 16).
// A PAUSE quantum is 512 bit times: 5.12 ns at 100 Gb/s.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "net/network.h"
#include "engine/run.h"
#include "engine/packet/simulation.h"

namespace fabricsim::pfc_test {

constexpr double kRateBps = 100e9;
constexpr int64_t kMtu = 4096;
constexpr int64_t kFlowBytes = 1'000'000;  // a multiple of 4: no BTH pad on the last packet
constexpr uint8_t kDataClass = 1u << 3;    // RoCE data priority 3 (transport default)
constexpr int64_t kPsPerUs = 1'000'000;

inline int64_t packets(int64_t bytes) { return (bytes + kMtu - 1) / kMtu; }
// Wire bytes of one RDMA WRITE: payload + 82 per packet + the RETH on its first packet.
inline int64_t message_wire_bytes(int64_t bytes) { return bytes + 82 * packets(bytes) + 16; }
// Time to serialize `bytes` of wire at 100 Gb/s, in ps.
inline double wire_ps(double bytes) { return bytes * 8.0 / kRateBps * 1e12; }
// mlx5 calculate_xoff() headroom, integer arithmetic as in the driver (whole metres).
inline int64_t mlx5_headroom(double cable_m, double gbps, int64_t mtu) {
  const int64_t len = std::llround(cable_m);
  const int64_t mbps = std::max<int64_t>(std::llround(gbps * 1000), 40'000);
  return (301 + 216 * len / 100) * mbps / 1000 + 272 * mtu / 100;
}

// Leaf-spine of `radix`, `hosts` NICs at 100 Gb/s over 3 m cables; PFC as asked.
inline scenario::Scenario leaf_spine(int radix, int hosts, int64_t switch_buffer, bool pfc,
                                     net::PfcThreshold mode = net::PfcThreshold::kStatic) {
  scenario::Scenario sc;
  sc.switch_config.pfc.threshold = mode;
  sc.seed = 3;
  sc.topology.tiers = 2;
  sc.topology.radix = radix;
  sc.topology.hosts = hosts;
  // The fabrics drawn in this file: one spine per leaf uplink, one cable per leaf-spine pair
  // (the partial tree's default builds half as many spines with 2 cables per pair).
  sc.topology.upper_tiers = topo::UpperTiers::kFull;
  sc.link.rate_bps = static_cast<int64_t>(kRateBps);
  sc.link.cable_m = 3.0;
  sc.switch_config.buffer_bytes = switch_buffer;
  sc.switch_config.pfc.enabled = pfc;
  sc.roce.ack_timeout_exponent = 8;  // 1.05 ms: lossy runs recover quickly
  return sc;
}

// The ports of node `from` whose cable leads to node `to`.
inline std::vector<uint32_t> ports_towards(const net::Network& net, uint32_t from, uint32_t to) {
  std::vector<uint32_t> out;
  for (uint32_t k = 0; k < net.node_port_count(from); ++k) {
    const uint32_t p = net.node_first_port(from) + k;
    if (net.port_node(net.port(p).peer) == to) out.push_back(p);
  }
  return out;
}

inline int64_t pauses_sent(const net::Network& net, const std::vector<uint32_t>& ports) {
  int64_t n = 0;
  for (uint32_t p : ports) n += net.queues(p).pause_frames_sent;
  return n;
}
inline int64_t pauses_received(const net::Network& net, const std::vector<uint32_t>& ports) {
  int64_t n = 0;
  for (uint32_t p : ports) n += net.queues(p).pause_frames_received;
  return n;
}

inline std::vector<uint32_t> spines(const net::Network& net) {
  std::vector<uint32_t> out;
  for (uint32_t s = 0; s < net.num_switches(); ++s) {
    if (net.switch_at(s).tier == 2) out.push_back(s);
  }
  return out;
}

inline uint32_t leaf_of(const net::Network& net, uint32_t nic) {
  return net.leaf_switch(net.leaf_slot_of_nic(nic));
}

inline int64_t fct_ps(scenario::Simulation& sim, uint32_t msg) {
  const transport::MessageRecord& m = sim.transport().message(msg);
  return m.rx_done_ps < 0 ? -1 : m.rx_done_ps - m.post_ps;
}

}  // namespace fabricsim::pfc_test
