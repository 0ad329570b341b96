// What the congestion-control fabric tests share (swift_rc_test, dctcp_rdma_test): the leaf-spine
// they run on, queue sums, and two long flows into one port measured over the second half of a
// run against max-min fairness.
//
//        spine ... spine
//          |  \   /  |
//        leaf 0 ... leaf 7      (leaf-spine, radix 16: 8 hosts per leaf, 100 Gb/s, 3 m)
//        | | |
//       NIC 0 ...               every flow ends at NIC 0
#pragma once

#include <cstdint>
#include <functional>

#include "core/time.h"
#include "engine/packet/simulation.h"
#include "net/network.h"
#include "transport/rc.h"

namespace fabricsim::transport::cc_fabric {

inline constexpr int64_t kG = 1'000'000'000;
inline constexpr int64_t kUs = kPsPerUs;

inline scenario::Scenario roce_leaf_spine(CongestionControl cc) {
  scenario::Scenario sc;
  sc.seed = 3;
  sc.technology = scenario::Technology::kRoce;
  sc.topology.tiers = 2;
  sc.topology.radix = 16;
  sc.topology.hosts = 64;
  sc.link.rate_bps = 100 * kG;
  sc.link.cable_m = 3;
  sc.roce.cc = cc;
  return sc;
}

inline int64_t queue_bytes(const net::Network& net, uint32_t port) {
  int64_t q = 0;
  for (const net::ClassQueue& c : net.queues(port).cls) q += c.bytes;
  return q;
}

// Every switch port's queue: two flows from different leaves may meet first at a spine's port
// towards leaf 0 (if ECMP hashes both to one spine) or at leaf 0's port to NIC 0.
inline int64_t switch_queue_bytes(const net::Network& net) {
  int64_t q = 0;
  for (uint32_t port = 0; port < net.num_ports(); ++port) {
    if (!net.port(port).is_nic) q += queue_bytes(net, port);
  }
  return q;
}

// A full data frame on the wire (no INT header).
inline int64_t wire_frame_bytes(const RoceConfig& cfg) {
  return data_frame_bytes(cfg, static_cast<uint32_t>(cfg.mtu_bytes), false, false) +
         wire_only_bytes(cfg);
}

struct TwoFlows {
  double share[2] = {0, 0};  // of B/2 each, over the second half
  double link = 0;           // of B
  double queue_mean = 0;     // bytes, every switch port, over the second half
};

// NIC 8 and NIC 16 (leaves 1 and 2) each send an endless message to NIC 0 for `end_ps`; every
// 0.1 us of the second half the switch queues are summed and `sample` (if any) is called.
inline TwoFlows two_flows(scenario::Simulation& sim, int64_t end_ps,
                          const std::function<void()>& sample = {}) {
  const RoceConfig& cfg = sim.roce()->config();
  for (uint32_t s : {8u, 16u}) sim.transport().post(s, 0, 4'000'000'000, 0);
  const double goodput = 100e9 * cfg.mtu_bytes / static_cast<double>(wire_frame_bytes(cfg));
  const int64_t half = end_ps / 2;
  int64_t at_half[2] = {0, 0};
  double queue_sum = 0;
  int64_t samples = 0;
  for (int64_t t = kUs / 10; t <= end_ps; t += kUs / 10) {
    sim.run(t);
    if (t == half) {
      for (int i = 0; i < 2; ++i) at_half[i] = sim.transport().message(i).delivered_bytes;
    }
    if (t > half) {
      queue_sum += static_cast<double>(switch_queue_bytes(sim.network()));
      if (sample) sample();
      ++samples;
    }
  }
  TwoFlows f;
  for (int i = 0; i < 2; ++i) {
    const double bps =
        (sim.transport().message(i).delivered_bytes - at_half[i]) * 8.0 / (half * 1e-12);
    f.share[i] = bps / (goodput / 2);
    f.link += bps / goodput;
  }
  f.queue_mean = queue_sum / static_cast<double>(samples);
  return f;
}

}  // namespace fabricsim::transport::cc_fabric
