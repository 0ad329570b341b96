// Rail-optimized topology (topo/rail.cpp): counts against NVIDIA's DGX SuperPOD B200 reference
// architecture table and small shapes worked by hand, rail isolation at the leaves, hop counts of
// same-rail and cross-rail traffic, a permutation on RoCE and InfiniBand, and refused shapes.
//
//   3 nodes x 2 rails, radix 4 (down 2, up 2)       NIC index = node x 2 + rail
//
//          spine 4          spine 5                 4 leaves x 2 uplinks = 8 = 2 spines x 4 ports
//         /  |   \  \      /  |   \  \              every leaf: one cable to each spine
//     leaf 0  leaf 1   leaf 2  leaf 3               rail 0: leaves 0, 1; rail 1: leaves 2, 3
//     NIC 0,2  NIC 4   NIC 1,3  NIC 5               (nodes 0, 1 | node 2 on each rail)
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "core/error.h"
#include "core/scheduler.h"
#include "net/network.h"
#include "routing/ecmp.h"
#include "routing/subnet_manager.h"
#include "resolve/resolve.h"
#include "spec/load.h"
#include "engine/run.h"
#include "engine/packet/simulation.h"
#include "topo/topology.h"

namespace fabricsim::topo {
namespace rail_test {

struct Fabric {
  Scheduler sched;
  net::Network net{sched};
  BuiltTopology topo;
};

TopologySpec rail_spec(int nodes, int rails, int radix, double oversubscription = 1.0) {
  TopologySpec spec;
  spec.kind = TopologyKind::kRail;
  spec.hosts = nodes;
  spec.nics_per_host = rails;
  spec.radix = radix;
  spec.oversubscription = oversubscription;
  return spec;
}

std::unique_ptr<Fabric> build_rail(int nodes, int rails, int radix, double o = 1.0) {
  auto f = std::make_unique<Fabric>();
  f->topo = build(rail_spec(nodes, rails, radix, o), FabricParams{}, f->net);
  return f;
}

// The switch a NIC is cabled to.
uint32_t switch_of_nic(const net::Network& net, uint32_t nic) {
  return static_cast<uint32_t>(net.port(net.port(net.nic_port(nic)).peer).switch_index);
}

// What the fabric is made of, counted from its ports (not from the builder's own figures).
struct Census {
  int leaves = 0, spines = 0, nic_cables = 0, leaf_spine_cables = 0;
  std::map<std::pair<uint32_t, uint32_t>, int> cables_between;  // (leaf, spine) -> cables
  std::map<uint32_t, int> spine_ports;
};

Census census(const net::Network& net) {
  Census c;
  for (uint32_t sw = 0; sw < net.num_switches(); ++sw) {
    const net::Switch& s = net.switch_at(sw);
    (s.tier == 1 ? c.leaves : c.spines) += 1;
    for (uint32_t p = s.first_port; p < s.first_port + s.num_ports; ++p) {
      const net::Port& far = net.port(net.port(p).peer);
      if (far.is_nic) {
        ++c.nic_cables;
        EXPECT_EQ(s.tier, 1) << "NICs are cabled to leaves only";
      } else if (s.tier == 1) {
        const uint32_t spine = static_cast<uint32_t>(far.switch_index);
        EXPECT_EQ(net.switch_at(spine).tier, 2) << "leaf uplinks go to spines";
        ++c.leaf_spine_cables;
        ++c.cables_between[{sw, spine}];
      } else {
        ++c.spine_ports[sw];
      }
    }
  }
  return c;
}

// NVIDIA DGX SuperPOD B200 RA, component table (docs/reference/gpu-node.md §4): scalable units of
// 32 nodes x 8 rails on 64-port switches. 2 SU: 64 nodes, 16 leaves, 8 spines, 512 node-leaf and
// 512 leaf-spine cables; 4 SU: 128 / 32 / 16 / 1,024 / 1,024; 8 SU: 256 / 64 / 32 / 2,048 / 2,048.
TEST(Rail, SuperPodB200CountsMatchTheReferenceArchitecture) {
  struct Row {
    int nodes, leaves, spines, node_leaf, leaf_spine;
  };
  for (const Row& row :
       {Row{64, 16, 8, 512, 512}, Row{128, 32, 16, 1024, 1024}, Row{256, 64, 32, 2048, 2048}}) {
    const auto f = build_rail(row.nodes, 8, 64);
    const Census c = census(f->net);
    EXPECT_EQ(c.leaves, row.leaves) << row.nodes << " nodes";
    EXPECT_EQ(c.spines, row.spines) << row.nodes << " nodes";
    EXPECT_EQ(c.nic_cables, row.node_leaf) << row.nodes << " nodes";
    EXPECT_EQ(c.leaf_spine_cables, row.leaf_spine) << row.nodes << " nodes";
    EXPECT_EQ(f->topo.switches, row.leaves + row.spines);
    EXPECT_EQ(f->topo.cables, row.node_leaf + row.leaf_spine);
    EXPECT_EQ(f->topo.nics, row.nodes * 8);
    EXPECT_EQ(f->topo.tiers, 2);
    // Every leaf reaches every spine, 32 uplinks spread evenly; every spine port is used.
    EXPECT_EQ(c.cables_between.size(), static_cast<size_t>(row.leaves * row.spines));
    for (const auto& [pair, n] : c.cables_between) {
      EXPECT_EQ(n, 32 / row.spines) << "leaf " << pair.first << " - spine " << pair.second;
    }
    for (const auto& [spine, ports] : c.spine_ports) EXPECT_EQ(ports, 64) << "spine " << spine;
  }
  EXPECT_EQ(build_rail(128, 8, 64)->topo.description,
            "rail-optimized, 8 rails, radix 64, 32 leaves x 16 spines, 2 cables per leaf-spine");
}

// NVIDIA DGX SuperPOD B300 XDR RA, table 3 (72 nodes per SU, 8 rails, Quantum-X800 leaves with
// 72 NIC ports and 72 uplinks, radix 144): 72 nodes 8 leaves / 4 spines / 576 + 576 cables;
// 144: 16 / 8 / 1,152 + 1,152; 288: 32 / 18 / 2,304 + 2,304; 576: 64 / 36 / 4,608 + 4,608;
// 1,296: 144 / 72 / 10,368 + 10,368. 288 and 576 nodes take 18 and 36 spines, more than
// leaves x 72 / 144 = 16 and 32, so that 72 uplinks split evenly (4 and 2 cables per pair).
TEST(Rail, SuperPodB300XdrCountsMatchTheReferenceArchitecture) {
  struct Row {
    int nodes, leaves, spines, node_leaf, leaf_spine;
  };
  for (const Row& row :
       {Row{72, 8, 4, 576, 576}, Row{144, 16, 8, 1152, 1152}, Row{288, 32, 18, 2304, 2304},
        Row{576, 64, 36, 4608, 4608}, Row{1296, 144, 72, 10368, 10368}}) {
    const auto f = build_rail(row.nodes, 8, 144);
    const Census c = census(f->net);
    EXPECT_EQ(c.leaves, row.leaves) << row.nodes << " nodes";
    EXPECT_EQ(c.spines, row.spines) << row.nodes << " nodes";
    EXPECT_EQ(c.nic_cables, row.node_leaf) << row.nodes << " nodes";
    EXPECT_EQ(c.leaf_spine_cables, row.leaf_spine) << row.nodes << " nodes";
    for (const auto& [pair, n] : c.cables_between) {
      EXPECT_EQ(n, 72 / row.spines) << row.nodes << " nodes: leaf " << pair.first;
    }
    for (const auto& [spine, ports] : c.spine_ports) {
      EXPECT_EQ(ports, row.leaves * (72 / row.spines)) << row.nodes << " nodes";
      EXPECT_LE(ports, 144);
    }
  }
}

// Shapes worked by hand from down = R·o/(o+1), up = R - down, P = ceil(N/down) leaves per rail,
// L = rails x P, S = ceil(L x up / R).
TEST(Rail, SmallShapesByHand) {
  {  // the drawing at the top: down 2, up 2, P = 2, L = 4, S = 8/4 = 2
    const auto f = build_rail(3, 2, 4);
    const Census c = census(f->net);
    EXPECT_EQ(c.leaves, 4);
    EXPECT_EQ(c.spines, 2);
    EXPECT_EQ(f->topo.cables, 6 + 8);
    for (const auto& [pair, n] : c.cables_between) EXPECT_EQ(n, 1);
    EXPECT_EQ(switch_of_nic(f->net, 0), 0u) << "node 0 rail 0";
    EXPECT_EQ(switch_of_nic(f->net, 2), 0u) << "node 1 rail 0";
    EXPECT_EQ(switch_of_nic(f->net, 4), 1u) << "node 2 rail 0: the rail's second leaf";
    EXPECT_EQ(switch_of_nic(f->net, 1), 2u) << "node 0 rail 1";
    EXPECT_EQ(switch_of_nic(f->net, 5), 3u) << "node 2 rail 1";
  }
  {  // radix 8: down 4, up 4, P = 1, L = 2, S = ceil(8/8) = 1: 4 parallel cables per leaf
    const auto f = build_rail(2, 2, 8);
    const Census c = census(f->net);
    EXPECT_EQ(c.leaves, 2);
    EXPECT_EQ(c.spines, 1);
    EXPECT_EQ(f->topo.cables, 4 + 8);
    for (const auto& [pair, n] : c.cables_between) EXPECT_EQ(n, 4);
  }
  {  // 3:1 at radix 8: down 6, up 2; 10 nodes: P = 2, L = 4, S = ceil(8/8) = 1
    const auto f = build_rail(10, 2, 8, 3.0);
    const Census c = census(f->net);
    EXPECT_EQ(c.leaves, 4);
    EXPECT_EQ(c.spines, 1);
    EXPECT_EQ(f->topo.cables, 20 + 8);
    EXPECT_NE(f->topo.description.find("6:2 oversubscribed"), std::string::npos)
        << f->topo.description;
  }
  {  // radix 16, 5 rails: down 8, up 8, P = 1, L = 5; ceil(40/16) = 3 spines would leave 8
    // uplinks unevenly spread, so S = 4 (the next divisor of 8): 2 cables per pair, and each
    // spine uses 5 x 2 = 10 of its 16 ports.
    const auto f = build_rail(2, 5, 16);
    const Census c = census(f->net);
    EXPECT_EQ(c.spines, 4);
    EXPECT_EQ(f->topo.cables, 10 + 40);
    for (const auto& [spine, n] : c.spine_ports) EXPECT_EQ(n, 10) << "spine " << spine;
    for (const auto& [pair, n] : c.cables_between) EXPECT_EQ(n, 2);
    EXPECT_EQ(c.cables_between.size(), 20u) << "every leaf reaches every spine";
  }
}

// NIC k of node n is on rail k: its leaf holds rail-k NICs only, at most `down` of them.
TEST(Rail, EveryLeafHoldsOneRailOnly) {
  struct Shape {
    int nodes, rails, radix;
  };
  for (const Shape& sh : {Shape{3, 2, 4}, Shape{2, 4, 4}, Shape{20, 4, 16}, Shape{64, 8, 64}}) {
    const auto f = build_rail(sh.nodes, sh.rails, sh.radix);
    std::map<uint32_t, std::set<int>> rails_on_leaf;
    std::map<uint32_t, int> nics_on_leaf;
    for (uint32_t nic = 0; nic < static_cast<uint32_t>(f->topo.nics); ++nic) {
      const uint32_t leaf = switch_of_nic(f->net, nic);
      EXPECT_EQ(f->net.switch_at(leaf).tier, 1);
      rails_on_leaf[leaf].insert(static_cast<int>(nic) % sh.rails);
      ++nics_on_leaf[leaf];
      EXPECT_EQ(f->topo.host_of_nic[nic], static_cast<int>(nic) / sh.rails);
    }
    for (const auto& [leaf, rails] : rails_on_leaf) {
      EXPECT_EQ(rails.size(), 1u) << "leaf " << leaf << " of " << sh.nodes << "x" << sh.rails;
      EXPECT_LE(nics_on_leaf[leaf], sh.radix / 2) << "at most `down` NICs on a leaf";
    }
  }
}

// ECMP: same-rail traffic under one leaf crosses 1 switch; same rail on another leaf, or another
// rail, crosses leaf - spine - leaf (3). Each path is followed through the forwarding tables.
TEST(Rail, SameRailStaysUnderItsLeafCrossRailCrossesASpine) {
  const auto f = build_rail(3, 2, 4);  // the drawing at the top
  routing::EcmpRoutes routes;
  routes.install(f->net, routing::EcmpConfig{}, 1);
  EXPECT_EQ(routes.switch_hops(0, 2), 1) << "rail 0, nodes 0 and 1: one leaf";
  EXPECT_EQ(routes.switch_hops(1, 3), 1) << "rail 1, nodes 0 and 1: one leaf";
  EXPECT_EQ(routes.switch_hops(0, 4), 3) << "rail 0, node 2 is on the rail's second leaf";
  EXPECT_EQ(routes.switch_hops(0, 3), 3) << "rail 0 to rail 1";
  EXPECT_EQ(routes.switch_hops(0, 1), 3) << "one node's two rails meet only at a spine";
  for (uint16_t entropy = 0; entropy < 16; ++entropy) {
    net::Packet pkt;
    pkt.src_nic = 0;
    pkt.dst_nic = 3;
    pkt.entropy = entropy;
    std::vector<int> tiers;
    uint32_t at = f->net.port(f->net.nic_port(0)).peer;
    while (!f->net.port(at).is_nic && tiers.size() < 8) {
      const uint32_t sw = static_cast<uint32_t>(f->net.port(at).switch_index);
      tiers.push_back(f->net.switch_at(sw).tier);
      at = f->net.port(f->net.egress_port(sw, pkt)).peer;
    }
    EXPECT_EQ(tiers, (std::vector<int>{1, 2, 1})) << "entropy " << entropy;
    EXPECT_EQ(f->net.port(at).nic, 3u);
  }
}

// Two flows through scenario::Simulation, one after the other on the idle fabric: the one that
// crosses leaf - spine - leaf takes 2 x (cable + switch latency) longer than the one that stays
// under its leaf. Cut-through switches: no extra serialization per hop. 10 m of cable at 5 ns/m
// (net/config.h kPropagationPsPerMetre) + 300 ns latency = 350 ns per extra hop.
TEST(Rail, TwoFlowsOneUnderItsLeafOneThroughASpine) {
  const scenario::Scenario sc = scenario::load_scenario_string(R"(
fabric:
  link: {rate: 100Gbps, cable: 10m}
  switch: {latency: 300ns, forwarding: cut_through}
topology: {kind: rail, radix: 4}
hosts: {count: 3, nics_per_host: 2}
workload:
  kind: pattern
  pattern: flows
  flows: [[0, 2, 4KB, 0us], [0, 3, 4KB, 50us], [0, 4, 4KB, 100us]]
)",
                                                               "rail.yaml")
                                    .scenario;
  const scenario::RunResult r = scenario::run_scenario(sc);
  ASSERT_EQ(r.flows.size(), 3u);
  for (const auto& fl : r.flows) ASSERT_GE(fl.finish_ps, 0) << "flow " << fl.id << " finished";
  auto fct_to = [&](uint32_t dst) {
    for (const auto& fl : r.flows) {
      if (fl.dst_nic == dst) return fl.fct_ps();
    }
    return int64_t{-1};
  };
  constexpr int64_t kExtraTwoHopsPs = 2 * (10 * 5'000 + 300'000);
  EXPECT_EQ(fct_to(3) - fct_to(2), kExtraTwoHopsPs) << "cross-rail vs under one leaf";
  EXPECT_EQ(fct_to(4) - fct_to(2), kExtraTwoHopsPs) << "same rail, other leaf";
  EXPECT_NE(r.topology.description.find("rail-optimized, 2 rails"), std::string::npos);
}

// A permutation on a non-blocking 2 nodes x 4 rails fabric (radix 4: one leaf per rail holding
// both nodes' NICs, 2 spines) completes on both fabrics. No link carries more than 2 flows (a
// leaf has 2 NICs), so every flow keeps at least half the line rate: slowdown <= 2 once the
// start-up transient is amortized; 2.5 leaves room for congestion control's probing.
TEST(Rail, PermutationCompletesOnRoceAndInfiniband) {
  for (const char* tech : {"roce", "ib"}) {
    const scenario::Scenario sc =
        scenario::load_scenario_string(std::string("fabric: {technology: ") + tech +
                                           ", link: {rate: 100Gbps}}\n"
                                           "topology: {kind: rail, radix: 4}\n"
                                           "hosts: {count: 2, nics_per_host: 4}\n"
                                           "workload: {kind: pattern, pattern: permutation, "
                                           "flow_size: 256KB}\n",
                                       "perm.yaml")
            .scenario;
    scenario::Simulation sim(sc);
    if (std::string(tech) == "ib") {
      EXPECT_EQ(sim.lid_routes().unreachable_pairs, 0) << "the SM routes every pair";
      EXPECT_EQ(sim.lid_routes().engine_used, routing::SmEngine::kFatTree)
          << "a uniform rail fabric is a tree ftree accepts: " << sim.lid_routes().fallback_reason;
    }
    const scenario::RunResult r = scenario::run_scenario(sc);
    ASSERT_EQ(r.flows.size(), 8u) << tech;
    for (const auto& fl : r.flows) {
      EXPECT_GE(fl.finish_ps, 0) << tech << " flow " << fl.id;
      EXPECT_GE(fl.slowdown(), 1.0) << tech << " flow " << fl.id << ": never faster than alone";
      EXPECT_LE(fl.slowdown(), 2.5) << tech << " flow " << fl.id;
    }
  }
}

// Takes down one cable between switches a and b (both directions).
void take_down(net::Network& net, uint32_t a, uint32_t b) {
  const net::Switch& s = net.switch_at(a);
  for (uint32_t p = s.first_port; p < s.first_port + s.num_ports; ++p) {
    const uint32_t peer = net.port(p).peer;
    if (net.port(peer).switch_index == static_cast<int32_t>(b) && net.port(p).up) {
      net.port(p).up = false;
      net.port(peer).up = false;
      return;
    }
  }
  FAIL() << "no working cable between switches " << a << " and " << b;
}

// The Subnet Manager's LFTs, followed hop by hop, deliver every CA pair on shortest paths: with
// ftree on intact rail fabrics (parallel cables included); with a cable down, where ftree refuses
// the tree (OpenSM's fabric_validate_topology: leaves with unequal uplinks), with the up/down
// fallback. Every path is as short as ECMP's breadth-first distance.
TEST(Rail, SubnetManagerRoutesEveryPair) {
  struct Case {
    int nodes, rails, radix;
    bool cable_down;  // leaf 0 - first spine
    routing::SmEngine expect;
  };
  for (const Case& cs : {Case{3, 2, 4, false, routing::SmEngine::kFatTree},
                         Case{2, 2, 8, false, routing::SmEngine::kFatTree},
                         Case{2, 5, 16, false, routing::SmEngine::kFatTree},
                         Case{3, 2, 4, true, routing::SmEngine::kUpDown},
                         Case{2, 2, 8, true, routing::SmEngine::kUpDown}}) {
    const auto f = build_rail(cs.nodes, cs.rails, cs.radix);
    uint32_t first_spine = 0;
    while (f->net.switch_at(first_spine).tier != 2) ++first_spine;
    if (cs.cable_down) take_down(f->net, 0, first_spine);
    routing::SubnetManager sm(routing::SmEngine::kFatTree, false);
    const routing::LidRoutes r = sm.sweep(f->net);
    const std::string name = std::to_string(cs.nodes) + "x" + std::to_string(cs.rails) +
                             (cs.cable_down ? " (cable down)" : "");
    EXPECT_EQ(r.engine_used, cs.expect) << name << ": " << r.fallback_reason;
    EXPECT_EQ(r.unreachable_pairs, 0) << name;
    routing::EcmpRoutes ecmp;
    ecmp.install(f->net, routing::EcmpConfig{}, 1);
    const uint32_t nics = static_cast<uint32_t>(f->topo.nics);
    for (uint32_t src = 0; src < nics; ++src) {
      for (uint32_t dst = 0; dst < nics; ++dst) {
        if (src == dst) continue;
        const uint16_t lid = r.nic_lid[dst];
        uint32_t at = f->net.port(f->net.nic_port(src)).peer;
        int switches = 0;
        while (!f->net.port(at).is_nic && switches < 8) {
          const uint32_t sw = static_cast<uint32_t>(f->net.port(at).switch_index);
          ++switches;
          const uint32_t out = r.lft[sw][lid];
          ASSERT_NE(out, net::kNoPort) << name << ": no route at switch " << sw << " to " << dst;
          ASSERT_TRUE(f->net.port(out).up) << name << ": routed over the failed cable";
          at = f->net.port(out).peer;
        }
        ASSERT_TRUE(f->net.port(at).is_nic) << name << ": loop from " << src << " to " << dst;
        EXPECT_EQ(f->net.port(at).nic, dst) << name;
        const bool same_leaf = switch_of_nic(f->net, src) == switch_of_nic(f->net, dst);
        EXPECT_EQ(switches, same_leaf ? 1 : 3) << name << " " << src << " -> " << dst;
        EXPECT_EQ(switches, ecmp.switch_hops(src, dst)) << name;
      }
    }
  }
}

void expect_refused(const TopologySpec& spec, const std::string& key, const std::string& says) {
  try {
    check_shape(spec);
    FAIL() << "shape should be refused at " << key;
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), key) << e.what();
    EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
  }
}

TEST(Rail, ImpossibleShapesNameTheKey) {
  // 16 SU = 512 nodes x 8 rails needs 128 leaves; the RA adds a core tier there.
  expect_refused(rail_spec(512, 8, 64), "hosts.count", "use fewer nodes or a larger");
  expect_refused(rail_spec(257, 8, 64), "hosts.count", "at most 256 nodes");
  expect_refused(rail_spec(4, 8, 4), "hosts.nics_per_host", "8 rails");
  expect_refused(rail_spec(4, 2, 7), "topology.radix", "even");
  expect_refused(rail_spec(4, 2, 8, 2.0), "topology.oversubscription", "whole ports");
  expect_refused(rail_spec(1, 2, 8), "hosts.count", ">= 2");
  TopologySpec three = rail_spec(4, 2, 8);
  three.tiers = 3;
  expect_refused(three, "topology.tiers", "3-tier rail fabric is not implemented");
  // Through the scenario loader: an explicit tiers: 3 beside kind: rail.
  try {
    (void)scenario::resolve(
        scenario::load_scenario_string("topology: {kind: rail, radix: 8, tiers: 3}\n"
                                       "hosts: {count: 4, nics_per_host: 2}\n",
                                       "s.yaml")
            .scenario);
    FAIL() << "tiers: 3 with kind: rail was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "topology.tiers") << e.what();
  }
}

}  // namespace rail_test
}  // namespace fabricsim::topo
