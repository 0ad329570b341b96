// Topology shapes: counts from the closed forms, and impossible shapes refused with a reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "core/error.h"
#include "core/scheduler.h"
#include "net/network.h"
#include "topo/topology.h"

namespace fabricsim::topo {
namespace fat_tree_test {

BuiltTopology build_spec(const TopologySpec& spec) {
  Scheduler sched;
  net::Network net(sched);
  return build(spec, FabricParams{}, net);
}

TEST(FatTree, FullKaryFatTreeHasClosedFormCounts) {
  for (int k : {4, 8, 16}) {
    TopologySpec spec;
    spec.tiers = 3;
    spec.radix = k;
    spec.hosts = k * k * k / 4;
    const BuiltTopology t = build_spec(spec);
    EXPECT_EQ(t.nics, k * k * k / 4) << "k=" << k;
    EXPECT_EQ(t.switches, 5 * k * k / 4) << "k=" << k << ": k^2 edge+agg, k^2/4 core";
    EXPECT_EQ(t.cables, 3 * k * k * k / 4) << "k=" << k << ": k^3/4 per tier";
  }
}

TEST(FatTree, LeafSpineCounts) {
  TopologySpec spec;
  spec.tiers = 2;
  spec.radix = 16;
  spec.hosts = 128;
  const BuiltTopology t = build_spec(spec);
  EXPECT_EQ(t.switches, 16 + 8) << "16 leaves x 8 spines";
  EXPECT_EQ(t.cables, 128 + 16 * 8);
}

TEST(FatTree, OversubscribedLeafSplitsPorts) {
  TopologySpec spec;
  spec.tiers = 2;
  spec.radix = 16;
  spec.oversubscription = 3;  // 12 down, 4 up
  spec.hosts = 48;
  const BuiltTopology t = build_spec(spec);
  EXPECT_EQ(t.switches, 4 + 1) << "48 NICs / 12 per leaf = 4 leaves; their 4 x 4 uplinks "
                                   "fill one 16-port spine (4 cables per leaf)";
  EXPECT_EQ(t.cables, 48 + 4 * 4);
}

TEST(FatTree, NicsPerHostMultiplyEndpoints) {
  TopologySpec spec;
  spec.tiers = 2;
  spec.radix = 8;
  spec.hosts = 4;
  spec.nics_per_host = 2;
  const BuiltTopology t = build_spec(spec);
  EXPECT_EQ(t.nics, 8);
  EXPECT_EQ(t.host_of_nic[5], 2) << "NICs of a host are numbered together";
}

// A partial tree is built as a buyer builds it (topo/fat_tree.cpp): the fewest top-tier
// switches that take every uplink, parallel cables where a pair needs more than one.
struct Counted {
  BuiltTopology topo;
  std::vector<int> per_tier;  // switches per tier, [tier - 1]
};

Counted count(const TopologySpec& spec) {
  Scheduler sched;
  net::Network net(sched);
  Counted c;
  c.topo = build(spec, FabricParams{}, net);
  for (uint32_t s = 0; s < net.num_switches(); ++s) {
    const int tier = net.switch_at(s).tier;
    if (static_cast<int>(c.per_tier.size()) < tier) c.per_tier.resize(tier, 0);
    ++c.per_tier[tier - 1];
  }
  return c;
}

TopologySpec tree(int tiers, int radix, int nics) {
  TopologySpec s;
  s.tiers = tiers;
  s.radix = radix;
  s.hosts = nics;
  return s;
}

TEST(FatTree, PartialLeafSpineBuildsTheSpinesItNeeds) {
  // 1,024 NICs on 64-port switches: 1024/32 = 32 leaves, their 32 x 32 = 1,024 uplinks fill
  // 1,024/64 = 16 spines, 2 cables per leaf-spine pair -- the DGX SuperPOD B200 RA's 4-SU
  // row (32 leaves, 16 spines, 1,024 leaf-spine cables), and N/(k/2) + N/k switches.
  Counted c = count(tree(2, 64, 1024));
  EXPECT_EQ(c.per_tier, (std::vector<int>{32, 16}));
  EXPECT_EQ(c.topo.cables, 1024 + 1024);
  EXPECT_NE(c.topo.description.find("2 cables per leaf-spine"), std::string::npos)
      << c.topo.description;
  // 16 NICs, radix 16: 2 leaves x 8 uplinks = 16 spine ports, one spine, 8 cables per leaf.
  c = count(tree(2, 16, 16));
  EXPECT_EQ(c.per_tier, (std::vector<int>{2, 1}));
  EXPECT_EQ(c.topo.cables, 16 + 16);
}

TEST(FatTree, PartialLeafSpineThatDoesNotDivide) {
  // 100 NICs, radix 16: ceil(100/8) = 13 leaves (the last with 4 NICs, all 8 uplinks cabled,
  // as the SuperPOD RAs cable a partial SU in full). 13 x 8 = 104 uplinks need >= ceil(104/16)
  // = 7 spines, but 8 uplinks split evenly only over 1, 2, 4 or 8: 8 spines, 1 cable each.
  Counted c = count(tree(2, 16, 100));
  EXPECT_EQ(c.per_tier, (std::vector<int>{13, 8}));
  EXPECT_EQ(c.topo.cables, 100 + 13 * 8);
  // 40 NICs, radix 16: 5 leaves, 40 uplinks >= ceil(40/16) = 3 spines -> divisor 4, 2 cables
  // per pair, each spine using 5 x 2 = 10 of its 16 ports.
  c = count(tree(2, 16, 40));
  EXPECT_EQ(c.per_tier, (std::vector<int>{5, 4}));
  EXPECT_EQ(c.topo.cables, 40 + 5 * 8);
}

TEST(FatTree, PartialThreeTierBuildsTheCoresItNeeds) {
  // 1,024 NICs, k = 32: 16 x 16 = 256 NICs per pod, 4 pods of 16 edges and 16 aggs; each core
  // group (one per agg index) takes 4 pods x 16 uplinks = 64 cables, 2 cores of 32 ports, 8
  // cables per agg-core pair: 64 + 64 + 32 = 160 = 5N/k switches, 1,024 cables per tier.
  Counted c = count(tree(3, 32, 1024));
  EXPECT_EQ(c.per_tier, (std::vector<int>{64, 64, 32}));
  EXPECT_EQ(c.topo.switches, 5 * 1024 / 32);
  EXPECT_EQ(c.topo.cables, 3 * 1024);
  // NVIDIA's B200 SuperPOD RA, 16 SUs: 4,096 NICs on 64-port switches as 128 leaves, 128
  // spines, 64 cores, 4,096 cables per tier (docs/reference/gpu-node.md §4).
  c = count(tree(3, 64, 4096));
  EXPECT_EQ(c.per_tier, (std::vector<int>{128, 128, 64}));
  EXPECT_EQ(c.topo.cables, 3 * 4096);
  // 48 NICs, k = 8: 3 pods of 16 NICs (4 edges, 4 aggs); a core group takes 3 x 4 = 12
  // uplinks: >= ceil(12/8) = 2 cores, 2 divides 4: 2 cores per group, 8 cores, 2 cables per
  // agg-core pair, each core using 6 of 8 ports.
  c = count(tree(3, 8, 48));
  EXPECT_EQ(c.per_tier, (std::vector<int>{12, 12, 8}));
  EXPECT_EQ(c.topo.cables, 48 + 48 + 48);
  // 40 NICs, k = 8: 10 edges in 3 pods (the last with 2 edges); every pod keeps 4 aggs with
  // all 4 uplinks: 12 aggs, 8 cores as above; 40 + 10 x 4 + 12 x 4 cables.
  c = count(tree(3, 8, 40));
  EXPECT_EQ(c.per_tier, (std::vector<int>{10, 12, 8}));
  EXPECT_EQ(c.topo.cables, 40 + 40 + 48);
}

TEST(FatTree, FullTreesKeepOneCablePerPair) {
  // A full tree's rule gives the classic shape: radix 16 leaf-spine 16 x 8, k = 8 fat-tree 16
  // cores, no parallel cables.
  Counted c = count(tree(2, 16, 128));
  EXPECT_EQ(c.per_tier, (std::vector<int>{16, 8}));
  EXPECT_EQ(c.topo.description.find("cables per"), std::string::npos) << c.topo.description;
  c = count(tree(3, 8, 128));
  EXPECT_EQ(c.per_tier, (std::vector<int>{32, 32, 16}));
  EXPECT_EQ(c.topo.description.find("cables per"), std::string::npos) << c.topo.description;
}

// Full bisection by counting: a switch's uplinks carry at least its downlinks, and every
// switch reaches each of its upper neighbours' peers over the same number of cables, so
// spreading each flow evenly over the upper switches (what ECMP/adaptive routing approximate)
// loads no cable above line rate for any permutation. Checked on partial trees of every kind
// above, with every NIC reachable from every other.
void expect_non_blocking(const TopologySpec& spec) {
  Scheduler sched;
  net::Network net(sched);
  const BuiltTopology t = build(spec, FabricParams{}, net);
  SCOPED_TRACE(t.description);
  for (uint32_t s = 0; s < net.num_switches(); ++s) {
    const net::Switch& x = net.switch_at(s);
    int up = 0, down = 0;
    std::map<int32_t, int> cables_to;  // upper neighbour -> parallel cables
    for (uint32_t p = x.first_port; p < x.first_port + x.num_ports; ++p) {
      const net::Port& far = net.port(net.port(p).peer);
      if (far.is_nic || net.switch_at(static_cast<uint32_t>(far.switch_index)).tier < x.tier) {
        ++down;
      } else {
        ++up;
        ++cables_to[far.switch_index];
      }
    }
    EXPECT_LE(x.num_ports, static_cast<uint32_t>(spec.radix)) << "switch " << s;
    if (x.tier == static_cast<int>(t.tiers)) continue;
    EXPECT_GE(up, down) << "switch " << s << " (tier " << x.tier << ") is oversubscribed";
    ASSERT_FALSE(cables_to.empty());
    for (const auto& [peer, n] : cables_to) {
      EXPECT_EQ(n, cables_to.begin()->second) << "switch " << s << " to " << peer;
    }
  }
  // Reachability: the switch graph is connected (every NIC hangs off one switch).
  std::vector<char> seen(net.num_switches(), 0);
  std::vector<uint32_t> stack{0};
  seen[0] = 1;
  while (!stack.empty()) {
    const net::Switch& x = net.switch_at(stack.back());
    stack.pop_back();
    for (uint32_t p = x.first_port; p < x.first_port + x.num_ports; ++p) {
      const net::Port& far = net.port(net.port(p).peer);
      if (far.is_nic) continue;
      const auto n = static_cast<uint32_t>(far.switch_index);
      if (!seen[n]) {
        seen[n] = 1;
        stack.push_back(n);
      }
    }
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), static_cast<long>(net.num_switches()));
}

TEST(FatTree, PartialTreesStayNonBlocking) {
  for (const TopologySpec& s : {tree(2, 64, 1024), tree(2, 16, 100), tree(2, 16, 40),
                                tree(2, 8, 8), tree(3, 32, 1024), tree(3, 8, 48),
                                tree(3, 8, 40), tree(3, 8, 16), tree(3, 16, 200)}) {
    expect_non_blocking(s);
  }
}

void expect_refused(TopologySpec spec, const std::string& key) {
  try {
    check_shape(spec);
    FAIL() << "shape should be refused at " << key;
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), key) << e.what();
    EXPECT_GT(std::string(e.what()).size(), 10u) << "the reason must be stated";
  }
}

TEST(FatTree, ImpossibleShapesAreRefused) {
  TopologySpec s;
  s.tiers = 4;
  expect_refused(s, "topology.tiers");
  s = TopologySpec{};
  s.radix = 7;
  expect_refused(s, "topology.radix");
  s = TopologySpec{};
  s.hosts = 129;  // radix 16 leaf-spine holds 128
  expect_refused(s, "hosts.count");
  s = TopologySpec{};
  s.oversubscription = 2;  // 16 ports cannot split 2:1
  expect_refused(s, "topology.oversubscription");
  s = TopologySpec{};
  s.oversubscription = 0.5;
  expect_refused(s, "topology.oversubscription");
  s = TopologySpec{};
  s.tiers = 3;
  s.radix = 4;
  s.hosts = 17;  // k=4 holds 16
  expect_refused(s, "hosts.count");
  s = TopologySpec{};
  s.hosts = 1;
  expect_refused(s, "hosts.count");
}

}  // namespace fat_tree_test
}  // namespace fabricsim::topo
