// topo::shape_counts (topo/shape_counts.cpp), the closed form the memory pre-flight counts a
// fabric by, against what topo::build really creates, for every kind: leaf-spine and 3-tier
// fat-tree (full, partial, oversubscribed, upper_tiers: full), rail, Dragonfly, multi-plane and a
// topology file. A builder change that the closed form does not follow fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "core/scheduler.h"
#include "net/network.h"
#include "topo/topology.h"

namespace fabricsim::topo {
namespace shape_counts_test {

TopologySpec tree(TopologyKind kind, int tiers, int radix, int hosts, int nics_per_host = 1) {
  TopologySpec s;
  s.kind = kind;
  s.tiers = tiers;
  s.radix = radix;
  s.hosts = hosts;
  s.nics_per_host = nics_per_host;
  return s;
}

TopologySpec with(TopologySpec s, double oversubscription, UpperTiers upper, int planes) {
  s.oversubscription = oversubscription;
  s.upper_tiers = upper;
  s.planes = planes;
  return s;
}

TopologySpec dragonfly(int p, int a, int h, int groups) {
  TopologySpec s;
  s.kind = TopologyKind::kDragonfly;
  s.dfly_p = p;
  s.dfly_a = a;
  s.dfly_h = h;
  s.dfly_groups = groups;
  return s;
}

void expect_counts_match(const TopologySpec& spec) {
  Scheduler sched;
  net::Network net{sched};
  const BuiltTopology built = build(spec, FabricParams{}, net);
  const ShapeCounts c = shape_counts(spec);
  SCOPED_TRACE(built.description);
  EXPECT_EQ(c.nics, net.num_nics());
  EXPECT_EQ(c.switches, net.num_switches());
  EXPECT_EQ(c.cables, net.num_cables());
  EXPECT_EQ(2 * c.cables, net.num_ports());
  EXPECT_EQ(c.switches, built.switches);
  EXPECT_EQ(c.cables, built.cables);
  uint32_t largest = 0;
  for (uint32_t sw = 0; sw < net.num_switches(); ++sw) {
    largest = std::max(largest, net.switch_at(sw).num_ports);
  }
  EXPECT_LE(largest, c.radix) << "radix bounds every switch's ports";
  if (spec.planes == 1) {
    // Leaves: the switches the NICs are cabled to.
    std::set<int32_t> leaves;
    for (uint32_t nic = 0; nic < net.num_nics(); ++nic) {
      leaves.insert(net.port(net.port(net.nic_port(nic)).peer).switch_index);
    }
    EXPECT_EQ(c.leaves, static_cast<int64_t>(leaves.size()));
  }
  if (spec.kind == TopologyKind::kDragonfly || spec.kind == TopologyKind::kFile) {
    EXPECT_EQ(largest, c.radix) << "every switch of the kind has the same or the largest degree";
  }
}

TEST(ShapeCounts, MatchTheBuiltFabricOfEveryKind) {
  const std::vector<TopologySpec> specs = {
      tree(TopologyKind::kFatTree, 2, 8, 32),
      tree(TopologyKind::kFatTree, 2, 16, 50),
      with(tree(TopologyKind::kFatTree, 2, 16, 100), 3, UpperTiers::kFewest, 1),
      with(tree(TopologyKind::kFatTree, 2, 16, 40), 1, UpperTiers::kFull, 1),
      tree(TopologyKind::kFatTree, 2, 64, 128, 8),
      tree(TopologyKind::kFatTree, 3, 8, 128),
      tree(TopologyKind::kFatTree, 3, 8, 60, 2),
      tree(TopologyKind::kFatTree, 3, 8, 40),
      tree(TopologyKind::kFatTree, 3, 8, 12),
      with(tree(TopologyKind::kFatTree, 3, 8, 40), 1, UpperTiers::kFull, 1),
      tree(TopologyKind::kRail, 2, 8, 6, 4),
      tree(TopologyKind::kRail, 2, 16, 2, 5),
      with(tree(TopologyKind::kRail, 2, 8, 10, 2), 3, UpperTiers::kFewest, 1),
      with(tree(TopologyKind::kRail, 2, 8, 6, 2), 1, UpperTiers::kFull, 1),
      dragonfly(2, 4, 2, 0),
      dragonfly(1, 2, 1, 3),
      dragonfly(2, 4, 2, 5),
      with(tree(TopologyKind::kFatTree, 2, 8, 32), 1, UpperTiers::kFewest, 2),
      with(tree(TopologyKind::kFatTree, 3, 8, 40), 1, UpperTiers::kFewest, 4),
      with(tree(TopologyKind::kRail, 2, 8, 6, 2), 1, UpperTiers::kFewest, 2),
  };
  for (const TopologySpec& spec : specs) expect_counts_match(spec);
}

TEST(ShapeCounts, MatchTheBuiltTopologyFile) {
  TopologySpec spec;
  spec.kind = TopologyKind::kFile;
  spec.file = std::string(FABRICSIM_SOURCE_DIR) + "/tests/topo/data/hpcc_fat.txt";
  spec.nics_per_host = 1;
  expect_counts_match(spec);
  const ShapeCounts c = shape_counts(spec);
  EXPECT_EQ(c.nics, 320) << "tests/topo/data/README.md";
  EXPECT_EQ(c.switches, 56);
  EXPECT_EQ(c.cables, 480);
}

}  // namespace shape_counts_test
}  // namespace fabricsim::topo
