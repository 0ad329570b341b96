// Topology shapes: counts from the closed forms, and impossible shapes refused with a reason.
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/scheduler.h"
#include "net/network.h"
#include "topo/topology.h"

namespace fabricsim::topo {
namespace {

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
  EXPECT_EQ(t.switches, 4 + 4) << "48 NICs / 12 per leaf = 4 leaves; 4 uplinks = 4 spines";
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

}  // namespace
}  // namespace fabricsim::topo
