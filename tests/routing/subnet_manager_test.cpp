// Subnet Manager routing (min-hop, up/down, fat-tree) checked against facts the tests derive
// themselves: breadth-first distances, tiers from the builders, the channel dependency graph,
// and route counts that follow from the shape of the tree.
//
//   leaf-spine radix 8            3-tier k=4 fat-tree (k=8 alike)        ring of 6 (+ chord 0-3)
//   spines 8..11 (tier 2)         cores 16..19 (tier 3)                   0 - 1 - 2
//   leaves 0..7  (tier 1)         aggs 8..15, pod-major (tier 2)          |       |
//   4 NICs per leaf               edges 0..7 (tier 1), 2 NICs each        5 - 4 - 3   2 NICs each
#include "routing/subnet_manager.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/scheduler.h"
#include "net/network.h"
#include "topo/topology.h"

namespace fabricsim::routing {
namespace subnet_manager_test {

constexpr uint32_t kInf = 0xFFFFFFFFu;

struct Fabric {
  Scheduler sched;
  net::Network net{sched};
  std::string name;
};

std::unique_ptr<Fabric> fat_tree(int tiers, int radix) {
  auto f = std::make_unique<Fabric>();
  topo::TopologySpec spec;
  spec.tiers = tiers;
  spec.radix = radix;
  spec.hosts = tiers == 2 ? radix * radix / 2 : radix * radix * radix / 4;  // full trees
  topo::build(spec, topo::FabricParams{}, f->net);
  f->name = (tiers == 2 ? "leaf-spine r" : "fat-tree k") + std::to_string(radix);
  return f;
}

// A ring of switches, all on one tier (no tier information), two NICs each; `chord` adds a
// cable between switches 0 and n/2.
std::unique_ptr<Fabric> ring(uint32_t n, bool chord) {
  auto f = std::make_unique<Fabric>();
  net::Network& net = f->net;
  for (uint32_t s = 0; s < n; ++s) net.add_switch(net::SwitchConfig{}, 1);
  for (uint32_t s = 0; s < n; ++s) {
    for (int k = 0; k < 2; ++k) {
      net.connect(net.nic_node(net.add_nic(net::NicConfig{})), net.switch_node(s),
                  net::LinkConfig{});
    }
  }
  for (uint32_t s = 0; s < n; ++s) {
    net.connect(net.switch_node(s), net.switch_node((s + 1) % n), net::LinkConfig{});
  }
  if (chord) net.connect(net.switch_node(0), net.switch_node(n / 2), net::LinkConfig{});
  net.finalize();
  f->name = chord ? "ring+chord" : "ring";
  return f;
}

// Takes the cable between switches a and b down, both directions.
void take_down(net::Network& net, uint32_t a, uint32_t b) {
  const uint32_t node = net.switch_node(a);
  for (uint32_t p = net.node_first_port(node);
       p < net.node_first_port(node) + net.node_port_count(node); ++p) {
    const uint32_t peer = net.port(p).peer;
    if (net.port_node(peer) == net.switch_node(b) && net.port(p).up) {
      net.port(p).up = false;
      net.port(peer).up = false;
      return;
    }
  }
  FAIL() << "no working cable between switches " << a << " and " << b;
}

std::unique_ptr<Fabric> damaged_fat_tree() {  // k=4: an edge-agg and an agg-core cable down
  auto f = fat_tree(3, 4);
  take_down(f->net, 0, 8);    // edge 0 - agg (pod 0, j 0)
  take_down(f->net, 10, 16);  // agg (pod 1, j 0) - core 16: core 16 can no longer descend to pod 1
  f->name = "damaged fat-tree k4";
  return f;
}

// Edge 0 keeps only its j1 agg and edge 2 (pod 1) only its j0 agg: with the cores as roots no
// up*down* route joins them, so up/down must re-rank.
std::unique_ptr<Fabric> twice_damaged_fat_tree() {
  auto f = fat_tree(3, 4);
  take_down(f->net, 0, 8);   // edge 0 - agg (pod 0, j 0)
  take_down(f->net, 2, 11);  // edge 2 - agg (pod 1, j 1)
  f->name = "twice-damaged fat-tree k4";
  return f;
}

std::unique_ptr<Fabric> damaged_leaf_spine() {
  auto f = fat_tree(2, 8);
  take_down(f->net, 0, 8);
  take_down(f->net, 3, 10);
  f->name = "damaged leaf-spine r8";
  return f;
}

bool works(const net::Network& net, uint32_t port) {
  return net.port(port).up && net.port(net.port(port).peer).up;
}
// The switch at the far end of a port, or -1 for a NIC.
int64_t far_switch(const net::Network& net, uint32_t port) {
  const net::Node& n = net.node(net.port_node(net.port(port).peer));
  return n.kind == net::NodeKind::kSwitch ? static_cast<int64_t>(n.index) : -1;
}
bool owns(const net::Network& net, uint32_t sw, uint32_t port) {
  return net.port_node(port) == net.switch_node(sw);
}
uint32_t leaf_of(const net::Network& net, uint32_t nic) {
  return net.node(net.port_node(net.port(net.nic_port(nic)).peer)).index;
}

// The test's own breadth-first hop counts from every switch to `target` over working cables.
std::vector<uint32_t> distances_to(const net::Network& net, uint32_t target) {
  std::vector<uint32_t> dist(net.num_switches(), kInf);
  std::vector<uint32_t> queue{target};
  dist[target] = 0;
  for (size_t h = 0; h < queue.size(); ++h) {
    const uint32_t node = net.switch_node(queue[h]);
    for (uint32_t p = net.node_first_port(node);
         p < net.node_first_port(node) + net.node_port_count(node); ++p) {
      const int64_t n = far_switch(net, p);
      if (n >= 0 && works(net, p) && dist[n] == kInf) {
        dist[n] = dist[queue[h]] + 1;
        queue.push_back(static_cast<uint32_t>(n));
      }
    }
  }
  return dist;
}

// Follows the LFTs from switch `sw` towards NIC `dst`: must reach it within num_switches hops
// without visiting a switch twice, over working cables only.
void expect_delivers(const Fabric& f, const LidRoutes& r, uint32_t sw, uint32_t dst) {
  const net::Network& net = f.net;
  const uint32_t lid = r.nic_lid[dst];
  std::vector<uint8_t> seen(net.num_switches(), 0);
  for (uint32_t hop = 0; hop <= net.num_switches(); ++hop) {
    ASSERT_FALSE(seen[sw]) << f.name << ": loop towards NIC " << dst << " at switch " << sw;
    seen[sw] = 1;
    const uint32_t p = r.lft[sw][lid];
    ASSERT_NE(p, net::kNoPort) << f.name << ": switch " << sw << " has no route to NIC " << dst;
    ASSERT_TRUE(owns(net, sw, p)) << f.name << ": LFT port " << p << " is not on switch " << sw;
    ASSERT_TRUE(works(net, p)) << f.name << ": switch " << sw << " routes NIC " << dst
                               << " onto a down cable";
    const int64_t next = far_switch(net, p);
    if (next < 0) {
      ASSERT_EQ(net.port(p).peer, net.nic_port(dst)) << f.name << ": delivered to the wrong NIC";
      return;
    }
    sw = static_cast<uint32_t>(next);
  }
  FAIL() << f.name << ": no delivery to NIC " << dst << " within num_switches hops";
}

// NICs in the subtree of switch `sw`: reachable by moves to strictly lower tiers.
int32_t cas_below(const net::Network& net, uint32_t sw) {
  std::vector<uint8_t> seen(net.num_switches(), 0);
  std::vector<uint32_t> stack{sw};
  seen[sw] = 1;
  int32_t cas = 0;
  while (!stack.empty()) {
    const uint32_t s = stack.back();
    stack.pop_back();
    const uint32_t node = net.switch_node(s);
    for (uint32_t p = net.node_first_port(node);
         p < net.node_first_port(node) + net.node_port_count(node); ++p) {
      const int64_t n = far_switch(net, p);
      if (n < 0) {
        ++cas;
      } else if (net.switch_at(n).tier < net.switch_at(s).tier && !seen[n]) {
        seen[n] = 1;
        stack.push_back(static_cast<uint32_t>(n));
      }
    }
  }
  return cas;
}

bool is_up_move(const LidRoutes& r, uint32_t a, uint32_t b) {
  return r.rank[b] < r.rank[a] || (r.rank[b] == r.rank[a] && b < a);
}

// The switches CA traffic towards NIC `d` can be at: those with NICs, and every switch an AR
// choice (the LFT port included) leads to from there.
std::vector<uint8_t> carrying(const net::Network& net, const LidRoutes& r, uint32_t d) {
  std::vector<uint8_t> live(net.num_switches(), 0);
  std::vector<uint32_t> queue;
  for (uint32_t nic = 0; nic < net.num_nics(); ++nic) {
    const uint32_t s = leaf_of(net, nic);
    if (works(net, net.nic_port(nic)) && !live[s]) {
      live[s] = 1;
      queue.push_back(s);
    }
  }
  for (size_t h = 0; h < queue.size(); ++h) {
    for (uint32_t p : r.ar_group(queue[h], r.nic_lid[d])) {
      const int64_t n = far_switch(net, p);
      if (n >= 0 && !live[n]) {
        live[n] = 1;
        queue.push_back(static_cast<uint32_t>(n));
      }
    }
  }
  return live;
}

// Every switch reaches every NIC by its LFT; the AR groups start with the LFT port and hold
// only working ports of the switch; for min-hop and fat-tree every AR port is one hop closer
// (so no combination of choices loops). For up/down, on the switches CA traffic can reach:
// a switch that some AR port enters going DOWN offers only DOWN ports (every path is
// up*down*), and the AR graph is acyclic.
void check_tables(const Fabric& f, const LidRoutes& r, SmEngine engine) {
  const net::Network& net = f.net;
  const bool legality = engine == SmEngine::kUpDown || r.engine_used == SmEngine::kUpDown;
  ASSERT_EQ(r.unreachable_pairs, 0) << f.name << ": connected fabric, every pair routed";
  for (uint32_t d = 0; d < net.num_nics(); ++d) {
    const uint32_t lid = r.nic_lid[d];
    const std::vector<uint32_t> dist = distances_to(net, leaf_of(net, d));
    const std::vector<uint8_t> live = carrying(net, r, d);
    std::vector<uint8_t> entered_down(net.num_switches(), 0);
    std::vector<std::vector<uint32_t>> next(net.num_switches());
    for (uint32_t s = 0; s < net.num_switches(); ++s) {
      expect_delivers(f, r, s, d);
      const auto group = r.ar_group(s, lid);
      ASSERT_FALSE(group.empty()) << f.name << ": empty AR group at switch " << s;
      EXPECT_EQ(group[0], r.lft[s][lid]) << f.name << ": the LFT port comes first";
      for (uint32_t p : group) {
        ASSERT_TRUE(owns(net, s, p) && works(net, p)) << f.name << ": bad AR port " << p;
        const int64_t n = far_switch(net, p);
        if (n < 0) continue;
        if (!legality) {
          EXPECT_EQ(dist[n] + 1, dist[s]) << f.name << ": AR port " << p << " of switch " << s
                                          << " towards NIC " << d << " is not one hop closer";
          continue;
        }
        if (!live[s]) continue;
        next[s].push_back(static_cast<uint32_t>(n));
        if (!is_up_move(r, s, static_cast<uint32_t>(n))) entered_down[n] = 1;
      }
    }
    if (!legality) continue;
    for (uint32_t s = 0; s < net.num_switches(); ++s) {
      if (!entered_down[s]) continue;
      for (uint32_t n : next[s]) {
        EXPECT_FALSE(is_up_move(r, s, n)) << f.name << ": towards NIC " << d << " switch " << s
                                          << " is entered going down but may turn up to " << n;
      }
    }
    // Acyclic AR graph: Kahn's algorithm removes every switch.
    std::vector<uint32_t> indegree(net.num_switches(), 0), ready;
    for (const auto& out : next) {
      for (uint32_t n : out) ++indegree[n];
    }
    for (uint32_t s = 0; s < net.num_switches(); ++s) {
      if (indegree[s] == 0) ready.push_back(s);
    }
    for (size_t h = 0; h < ready.size(); ++h) {
      for (uint32_t n : next[ready[h]]) {
        if (--indegree[n] == 0) ready.push_back(n);
      }
    }
    EXPECT_EQ(ready.size(), net.num_switches())
        << f.name << ": AR choices towards NIC " << d << " can loop";
  }
}

// Channel dependency graph over directed switch-to-switch links (ports): a -> b when a route
// from a NIC to a NIC may use link a and then link b. Routes are followed from every switch
// with NICs (where traffic enters) along the LFT, or along any AR choice. Returns whether the
// graph has a cycle (depth-first search with colours).
bool has_dependency_cycle(const net::Network& net, const LidRoutes& r, bool with_ar) {
  std::vector<std::vector<uint32_t>> edges(net.num_ports());
  auto choices = [&](uint32_t sw, uint32_t lid) {
    std::vector<uint32_t> out;
    if (with_ar) {
      for (uint32_t p : r.ar_group(sw, lid)) out.push_back(p);
    } else if (r.lft[sw][lid] != net::kNoPort) {
      out.push_back(r.lft[sw][lid]);
    }
    return out;
  };
  for (uint32_t d = 0; d < net.num_nics(); ++d) {
    const uint32_t lid = r.nic_lid[d];
    std::vector<uint8_t> seen(net.num_ports(), 0);
    std::vector<uint32_t> links;  // switch-to-switch links routes to d use
    for (uint32_t nic = 0; nic < net.num_nics(); ++nic) {
      for (uint32_t a : choices(leaf_of(net, nic), lid)) {
        if (far_switch(net, a) >= 0 && !seen[a]) {
          seen[a] = 1;
          links.push_back(a);
        }
      }
    }
    for (size_t h = 0; h < links.size(); ++h) {
      const uint32_t a = links[h];
      for (uint32_t b : choices(static_cast<uint32_t>(far_switch(net, a)), lid)) {
        if (far_switch(net, b) < 0) continue;
        edges[a].push_back(b);
        if (!seen[b]) {
          seen[b] = 1;
          links.push_back(b);
        }
      }
    }
  }
  std::vector<uint8_t> colour(net.num_ports(), 0);  // 0 white, 1 on the stack, 2 done
  std::vector<std::pair<uint32_t, size_t>> stack;
  for (uint32_t start = 0; start < net.num_ports(); ++start) {
    if (colour[start] != 0) continue;
    stack.push_back({start, 0});
    colour[start] = 1;
    while (!stack.empty()) {
      auto& [v, i] = stack.back();
      if (i == edges[v].size()) {
        colour[v] = 2;
        stack.pop_back();
        continue;
      }
      const uint32_t w = edges[v][i++];
      if (colour[w] == 1) return true;
      if (colour[w] == 0) {
        colour[w] = 1;
        stack.push_back({w, 0});
      }
    }
  }
  return false;
}

std::vector<std::unique_ptr<Fabric>> all_topologies() {
  std::vector<std::unique_ptr<Fabric>> out;
  out.push_back(fat_tree(2, 8));
  out.push_back(fat_tree(3, 4));
  out.push_back(fat_tree(3, 8));
  out.push_back(damaged_leaf_spine());
  out.push_back(damaged_fat_tree());
  out.push_back(twice_damaged_fat_tree());
  out.push_back(ring(6, false));
  out.push_back(ring(6, true));
  return out;
}

class EveryEngine : public ::testing::TestWithParam<SmEngine> {};

TEST_P(EveryEngine, CompleteLoopFreeTablesOnEveryTopology) {
  for (const auto& f : all_topologies()) {
    SubnetManager sm(GetParam());
    const LidRoutes r = sm.sweep(f->net);
    check_tables(*f, r, GetParam());
    if (HasFatalFailure()) return;
    if (!r.note.empty())
      std::printf("  [%s] %s: %s\n", sm_engine_name(GetParam()), f->name.c_str(), r.note.c_str());
  }
}

TEST_P(EveryEngine, LidsPersistAndRoutesFollowLinkFailures) {
  auto f = fat_tree(2, 8);  // 8 leaves x 4 NICs, 4 spines (switches 8..11)
  net::Network& net = f->net;
  const uint32_t nic0_port = net.nic_port(0);
  net.port(nic0_port).up = net.port(net.port(nic0_port).peer).up = false;
  SubnetManager sm(GetParam());
  LidRoutes r = sm.sweep(net);
  EXPECT_EQ(r.nic_lid[0], 0) << "NIC 0 is not discovered, so it gets no LID";
  EXPECT_EQ(r.nic_lid[1], 1) << "discovered CAs are numbered first, from LID 1";
  EXPECT_EQ(r.switch_lid[0], 32) << "31 CAs, then the switches";
  EXPECT_EQ(r.unreachable_pairs, 0) << "a NIC without a LID is no destination";

  net.port(nic0_port).up = net.port(net.port(nic0_port).peer).up = true;
  const LidRoutes back = sm.sweep(net);
  EXPECT_EQ(back.nic_lid[0], 31 + 12 + 1) << "a new port gets the next free LID (guid2lid)";
  for (uint32_t nic = 1; nic < net.num_nics(); ++nic) {
    EXPECT_EQ(back.nic_lid[nic], r.nic_lid[nic]) << "NIC " << nic << " keeps its LID";
  }
  EXPECT_EQ(back.switch_lid, r.switch_lid) << "switches keep their LIDs";
  EXPECT_EQ(back.num_lids, 45u) << "LIDs 1..44";

  take_down(net, 0, 8);  // leaf 0 - spine 8
  r = sm.sweep(net);
  EXPECT_EQ(r.nic_lid, back.nic_lid) << "a link failure changes no LID";
  EXPECT_EQ(r.switch_lid, back.switch_lid) << "a link failure changes no LID";
  for (uint32_t s = 0; s < net.num_switches(); ++s) {
    for (uint32_t lid = 1; lid < r.num_lids; ++lid) {
      const uint32_t lft_port = r.lft[s][lid];
      EXPECT_TRUE(lft_port == net::kNoPort || works(net, lft_port))
          << "switch " << s << " LID " << lid << ": LFT points at down port " << lft_port;
      for (uint32_t p : r.ar_group(s, lid)) {
        EXPECT_TRUE(works(net, p)) << "switch " << s << " LID " << lid << " uses down port " << p;
      }
    }
  }
  f->name = "leaf-spine r8 after a failure";
  check_tables(*f, r, GetParam());

  for (uint32_t spine = 8; spine < 12; ++spine) take_down(net, 7, spine);  // cut leaf 7 off
  r = sm.sweep(net);
  // Leaf 7 is not discovered (empty LFT: 32 CA LIDs), the 11 other switches miss its 4 NICs.
  EXPECT_EQ(r.unreachable_pairs, 1 * 32 + 11 * 4) << "partitioned fabric";
  EXPECT_EQ(r.nic_lid, back.nic_lid) << "vanished ports keep their LIDs";
  for (uint32_t s = 0; s < 7; ++s) {
    for (uint32_t d = 0; d < 28; ++d) expect_delivers(*f, r, s, d);
  }
}

INSTANTIATE_TEST_SUITE_P(SubnetManager, EveryEngine,
                         ::testing::Values(SmEngine::kMinHop, SmEngine::kUpDown,
                                           SmEngine::kFatTree),
                         [](const auto& info) { return std::string(sm_engine_name(info.param)); });

TEST(SubnetManager, FirstSweepNumbersCasThenSwitches) {
  auto f = fat_tree(3, 4);  // 16 NICs, 20 switches
  const LidRoutes r = SubnetManager(SmEngine::kMinHop).sweep(f->net);
  for (uint32_t nic = 0; nic < 16; ++nic) EXPECT_EQ(r.nic_lid[nic], nic + 1) << "NIC " << nic;
  for (uint32_t s = 0; s < 20; ++s) EXPECT_EQ(r.switch_lid[s], 17 + s) << "switch " << s;
  EXPECT_EQ(r.num_lids, 37u) << "LIDs 1..36 and the reserved 0";
  for (uint32_t s = 0; s < 20; ++s) {
    EXPECT_EQ(r.lft[s][r.switch_lid[s]], net::kNoPort) << "own LID: management port 0";
  }
}

TEST(UpDown, RanksFollowTheTiersOfATree) {
  for (const auto& f : all_topologies()) {
    if (f->name.find("ring") != std::string::npos || f->name.find("damaged") != std::string::npos) {
      continue;  // no tiers, or re-ranked
    }
    const LidRoutes r = SubnetManager(SmEngine::kUpDown).sweep(f->net);
    int top = 0;
    for (uint32_t s = 0; s < f->net.num_switches(); ++s)
      top = std::max(top, f->net.switch_at(s).tier);
    for (uint32_t s = 0; s < f->net.num_switches(); ++s) {
      EXPECT_EQ(r.rank[s], static_cast<uint32_t>(top - f->net.switch_at(s).tier))
          << f->name << ": roots are the top tier, one rank per tier below";
    }
  }
}

TEST(UpDown, NoCyclicChannelDependencyOnAnyTopology) {
  for (const auto& f : all_topologies()) {
    const LidRoutes r = SubnetManager(SmEngine::kUpDown).sweep(f->net);
    EXPECT_FALSE(has_dependency_cycle(f->net, r, false)) << f->name << ": LFT routes";
    EXPECT_FALSE(has_dependency_cycle(f->net, r, true)) << f->name << ": LFT + AR alternatives";
  }
}

TEST(UpDown, SingleFailuresLeaveEveryWorkingLinkInUse) {
  // OpenSM leaves a root that lost a down cable without routes to the CAs below it; the escape
  // entries fill them without taking the root, or any other link, out of service.
  std::vector<std::unique_ptr<Fabric>> fabrics;
  fabrics.push_back(damaged_leaf_spine());
  fabrics.push_back(damaged_fat_tree());
  for (const auto& f : fabrics) {
    const LidRoutes r = SubnetManager(SmEngine::kUpDown).sweep(f->net);
    EXPECT_EQ(r.note.find("re-ranked"), std::string::npos) << f->name << ": " << r.note;
    for (uint32_t p = 0; p < f->net.num_ports(); ++p) {
      if (net::Node n = f->net.node(f->net.port_node(p)); n.kind != net::NodeKind::kSwitch)
        continue;
      if (far_switch(f->net, p) < 0 || !works(f->net, p)) continue;
      EXPECT_GT(r.port_routes[p], 0) << f->name << ": working link at port " << p << " is idle";
    }
  }
  auto twice = twice_damaged_fat_tree();
  const LidRoutes r = SubnetManager(SmEngine::kUpDown).sweep(twice->net);
  EXPECT_NE(r.note.find("re-ranked"), std::string::npos)
      << "edge 0 (j1 plane only) and edge 2 (j0 only) need a single root: " << r.note;
}

TEST(MinHop, RingHasACyclicChannelDependency) {
  // Every switch reaches the NICs two switches clockwise through the next one, so the six
  // clockwise links depend on each other in a circle: the checker must see it.
  auto f = ring(6, false);
  const LidRoutes r = SubnetManager(SmEngine::kMinHop).sweep(f->net);
  EXPECT_TRUE(has_dependency_cycle(f->net, r, false)) << "min-hop on a ring is not deadlock-free";
  const LidRoutes updn = SubnetManager(SmEngine::kUpDown).sweep(f->net);
  EXPECT_FALSE(has_dependency_cycle(f->net, updn, true)) << "up/down breaks the ring's cycle";
}

// Full fat-trees: leaf-spine radix 8 and 3-tier k=4 and k=8.
std::vector<std::unique_ptr<Fabric>> full_fat_trees() {
  std::vector<std::unique_ptr<Fabric>> trees;
  trees.push_back(fat_tree(2, 8));
  trees.push_back(fat_tree(3, 4));
  trees.push_back(fat_tree(3, 8));
  return trees;
}

TEST(FatTree, UpPortRoutesDifferByAtMostOne) {
  const std::vector<std::unique_ptr<Fabric>> trees = full_fat_trees();
  for (const auto& f : trees) {
    const net::Network& net = f->net;
    const LidRoutes r = SubnetManager(SmEngine::kFatTree).sweep(net);
    EXPECT_EQ(r.engine_used, SmEngine::kFatTree) << f->name << ": " << r.note;
    EXPECT_TRUE(r.fallback_reason.empty()) << f->name << ": " << r.fallback_reason;
    int printed_tier = -1;
    for (uint32_t s = 0; s < net.num_switches(); ++s) {
      const uint32_t node = net.switch_node(s);
      std::vector<int32_t> counts;
      for (uint32_t p = net.node_first_port(node);
           p < net.node_first_port(node) + net.node_port_count(node); ++p) {
        const int64_t n = far_switch(net, p);
        if (n >= 0 && net.switch_at(n).tier > net.switch_at(s).tier)
          counts.push_back(r.port_routes[p]);
      }
      if (counts.empty()) continue;
      const auto [lo, hi] = std::minmax_element(counts.begin(), counts.end());
      EXPECT_LE(*hi - *lo, 1) << f->name << ": switch " << s << " up ports " << *lo << ".." << *hi;
      // Every CA outside the switch's subtree leaves through exactly one up port.
      int32_t sum = 0;
      for (int32_t c : counts) sum += c;
      const int32_t outside = static_cast<int32_t>(net.num_nics()) - cas_below(net, s);
      EXPECT_EQ(sum, outside) << f->name << ": switch " << s;
      const int tier = net.switch_at(s).tier;
      if (tier != printed_tier) {
        printed_tier = tier;
        std::printf("  %s switch %u (tier %d) up-port routes:", f->name.c_str(), s, tier);
        for (int32_t c : counts) std::printf(" %d", c);
        std::printf(" (%d CAs outside its subtree)\n", outside);
      }
    }
  }
}

// [OSM] ftree: each CA has one main path, so traffic to it comes down from one top switch
// whatever the source, and consecutive CAs of a leaf take different top switches: what makes
// shift permutations contention-free.
TEST(FatTree, EachCaComesDownFromOneTopSwitchConsecutiveCasFromDifferentOnes) {
  const std::vector<std::unique_ptr<Fabric>> trees = full_fat_trees();
  for (const auto& f : trees) {
    const net::Network& net = f->net;
    const LidRoutes r = SubnetManager(SmEngine::kFatTree).sweep(net);
    int top = 0;
    for (uint32_t s = 0; s < net.num_switches(); ++s) top = std::max(top, net.switch_at(s).tier);
    std::vector<uint32_t> top_of(net.num_nics(), kInf);
    for (uint32_t d = 0; d < net.num_nics(); ++d) {
      for (uint32_t src = 0; src < net.num_nics(); ++src) {
        uint32_t sw = leaf_of(net, src);
        for (int64_t n = 0; n >= 0 && net.switch_at(sw).tier != top;) {
          n = far_switch(net, r.lft[sw][r.nic_lid[d]]);
          if (n >= 0) sw = static_cast<uint32_t>(n);
        }
        if (net.switch_at(sw).tier != top) continue;  // d is below src's path's peak
        if (top_of[d] == kInf) top_of[d] = sw;
        EXPECT_EQ(sw, top_of[d]) << f->name << ": NIC " << d << " is reached through two tops";
      }
    }
    for (uint32_t d = 1; d < net.num_nics(); ++d) {
      if (leaf_of(net, d) != leaf_of(net, d - 1)) continue;
      EXPECT_NE(top_of[d], top_of[d - 1])
          << f->name << ": NICs " << d - 1 << " and " << d << " of one leaf share their top switch";
    }
  }
}

TEST(FatTree, FallsBackToUpDownWhenNotUniform) {
  auto f = damaged_fat_tree();
  const LidRoutes r = SubnetManager(SmEngine::kFatTree).sweep(f->net);
  EXPECT_EQ(r.engine_used, SmEngine::kUpDown) << "a missing cable makes the tree non-uniform";
  EXPECT_NE(r.note.find("fell back to updn"), std::string::npos) << r.note;
  // The reason names the first switch whose tier differs from its first switch: k=4 edges have
  // 2 agg uplinks, and edge 0 lost one (OpenSM's ERR AB09, "Different number of upward port
  // groups on switches").
  EXPECT_EQ(r.fallback_reason.rfind("tier 1 is not uniform: switch 0 has 1 up", 0), 0u)
      << r.fallback_reason;
  EXPECT_FALSE(has_dependency_cycle(f->net, r, true)) << "the fallback is deadlock-free";
}

// OpenSM with a plain `routing_engine ftree` falls back to its default, min-hop
// (osm_ucast_mgr.c osm_ucast_mgr_process): routing.sm.fallback=minhop.
TEST(FatTree, FallsBackToMinHopWhenAsked) {
  auto f = damaged_fat_tree();
  const LidRoutes r =
      SubnetManager(SmEngine::kFatTree, /*adaptive_groups=*/true, SmEngine::kMinHop).sweep(f->net);
  EXPECT_EQ(r.engine_used, SmEngine::kMinHop);
  EXPECT_EQ(r.fallback_reason.rfind("tier 1 is not uniform: switch 0 has 1 up", 0), 0u)
      << r.fallback_reason;
  EXPECT_EQ(r.unreachable_pairs, 0) << "min-hop routes every CA on the connected subnet";
  EXPECT_TRUE(r.rank.empty()) << "min-hop has no up/down order";
  const LidRoutes same = SubnetManager(SmEngine::kMinHop).sweep(f->net);
  EXPECT_EQ(r.lft, same.lft) << "the fallback routes exactly as min-hop itself";
}

}  // namespace subnet_manager_test
}  // namespace fabricsim::routing
