// ECMP tables on a k=4 fat-tree: group sizes follow from the shape, every destination is
// reachable loop-free, and identical seeds at every tier polarize traffic.
#include <gtest/gtest.h>

#include <set>

#include "core/scheduler.h"
#include "net/network.h"
#include "routing/ecmp.h"
#include "topo/topology.h"

namespace fabricsim::routing {
namespace ecmp_test {

struct Fabric {
  Scheduler sched;
  net::Network net{sched};
  EcmpRoutes routes;
  Fabric(const EcmpConfig& cfg, int k = 4) {
    topo::TopologySpec spec;
    spec.tiers = 3;
    spec.radix = k;
    spec.hosts = k * k * k / 4;
    topo::build(spec, topo::FabricParams{}, net);
    routes.install(net, cfg, 1);
  }
  // Follows the forwarding tables hop by hop the way a switch does.
  std::vector<uint32_t> path(uint32_t src, uint32_t dst, uint16_t sport) {
    std::vector<uint32_t> ports;
    uint32_t port = net.nic_port(src);
    for (int guard = 0; guard < 16; ++guard) {
      const uint32_t in = net.port(port).peer;
      const int32_t sw_index = net.port(in).switch_index;
      if (sw_index < 0) return ports;  // reached a NIC
      net::Packet pkt;
      pkt.src_nic = src;
      pkt.dst_nic = dst;
      pkt.entropy = sport;
      port = net.egress_port(static_cast<uint32_t>(sw_index), pkt);
      EXPECT_NE(port, net::kNoPort) << "no route at switch " << sw_index;
      if (port == net::kNoPort) return ports;
      ports.push_back(port);
    }
    ADD_FAILURE() << "forwarding loop from " << src << " to " << dst;
    return ports;
  }
};

TEST(Ecmp, GroupSizesFollowTheFatTree) {
  Fabric f(EcmpConfig{});
  // Edge switch 0 (pod 0): to another pod, 2 uplinks (k/2); to its own NIC, 1 port.
  const net::Switch& edge = f.net.switch_at(0);
  auto group_size = [&](const net::Switch& s, uint32_t dst) {
    const uint16_t g = s.group_of_key[f.net.leaf_slot_of_nic(dst)];
    return s.group_offsets[g + 1] - s.group_offsets[g];
  };
  EXPECT_EQ(group_size(edge, 8), 2u) << "edge -> other pod: k/2 aggs";
  EXPECT_EQ(group_size(edge, 2), 2u) << "edge -> other edge of its pod: k/2 aggs";
  EXPECT_EQ(f.net.leaf_slot_of_nic(0), static_cast<uint32_t>(edge.leaf_slot))
      << "NIC 0 is cabled to edge 0, which forwards to it directly";
  EXPECT_EQ(f.routes.switch_hops(0, 1), 1);
  EXPECT_EQ(f.routes.switch_hops(0, 2), 3);
  EXPECT_EQ(f.routes.switch_hops(0, 15), 5);
}

TEST(Ecmp, EveryPairReachesItsDestinationWithoutLoops) {
  Fabric f(EcmpConfig{});
  for (uint32_t s = 0; s < 16; ++s) {
    for (uint32_t d = 0; d < 16; ++d) {
      if (s == d) continue;
      const std::vector<uint32_t> p = f.path(s, d, 0xC001);
      ASSERT_FALSE(p.empty());
      EXPECT_EQ(f.net.port(p.back()).peer, f.net.nic_port(d)) << s << "->" << d;
      EXPECT_EQ(static_cast<int>(p.size()), f.routes.switch_hops(s, d)) << "shortest path";
    }
  }
}

// Distinct core switches that 256 entropies from pod 0 to pod 1 reach.
size_t cores_used(Fabric& f) {
  std::set<uint32_t> cores;
  for (uint32_t sport = 0; sport < 256; ++sport) {
    const std::vector<uint32_t> p = f.path(0, 40, static_cast<uint16_t>(0xC000 + sport));
    const uint32_t core_in = f.net.port(p[1]).peer;  // edge->agg, agg->core
    cores.insert(f.net.port_node(core_in));
  }
  return cores.size();
}

TEST(Ecmp, SameSeedEverywherePolarizes) {
  // k=8: edge picks one of 4 aggs by h mod 4, the agg one of 4 cores by h mod 4 again. With the
  // same function and seed, the flows that reach agg j all have h = j (mod 4) and so all pick
  // the same core: 4 cores used instead of 16 (shared/reference/rocev2.md §4).
  EcmpConfig same;
  same.seed_mode = EcmpSeedMode::kSame;
  same.seed = 7;
  Fabric polarized(same, 8);
  Fabric spread(EcmpConfig{}, 8);
  EXPECT_EQ(cores_used(polarized), 4u) << "identical seeds use one core per agg";
  EXPECT_EQ(cores_used(spread), 16u) << "per-switch seeds reach every core";
}

}  // namespace ecmp_test
}  // namespace fabricsim::routing
