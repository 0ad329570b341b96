// outputs.flows.path (engine/packet/flow_paths.h): the ports a flow's data packets crossed.
// On a 2-tier fat-tree (radix 4, 8 hosts: 4 leaves of 2 NICs, 2 spines) with ECMP, a
// flow between leaves crosses NIC -> leaf -> spine -> leaf -> NIC = 4 ports and a flow inside
// a leaf NIC -> leaf -> NIC = 2; consecutive ports are connected (the far end of one is the
// node that owns the next). These are checked against the network's cabling, not against the
// recorder's own bookkeeping.
#include "engine/packet/flow_paths.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "output/csv.h"
#include "engine/packet/link_load.h"
#include "spec/load.h"
#include "engine/run.h"
#include "engine/packet/simulation.h"

namespace fabricsim {
namespace flow_paths_test {

constexpr const char* kFatTree = R"(
name: paths
seed: 1
fabric:
  technology: roce
  link: {rate: 100Gbps, cable: 3m}
topology: {kind: fat_tree, tiers: 2, radix: 4}
hosts: {count: 8}
outputs: {flows: {path: true}}
workload:
  kind: pattern
  pattern: flows
  flows: [[0, 1, 100KB, 0us], [0, 7, 100KB, 0us], [5, 2, 200KB, 0us]]
)";

scenario::Scenario load(const std::vector<std::string>& set = {}) {
  return scenario::load_scenario_string(kFatTree, "paths.yaml", set).scenario;
}

TEST(FlowPaths, InterLeafFlowsCrossFourPortsIntraLeafTwoEachConnectedToTheNext) {
  scenario::Simulation sim(load());
  sim.start_workload();
  ASSERT_TRUE(sim.run());
  const net::Network& net = sim.network();
  const scenario::FlowPaths* fp = sim.flow_paths();
  ASSERT_NE(fp, nullptr);
  for (uint32_t msg = 0; msg < sim.transport().num_messages(); ++msg) {
    const transport::MessageRecord& m = sim.transport().message(msg);
    const bool same_leaf = net.leaf_slot_of_nic(m.src_nic) == net.leaf_slot_of_nic(m.dst_nic);
    const std::vector<std::vector<uint32_t>>& paths = fp->paths(msg);
    ASSERT_EQ(paths.size(), 1u) << "ECMP without spraying: one path per flow (msg " << msg << ")";
    const std::vector<uint32_t>& path = paths.front();
    ASSERT_EQ(path.size(), same_leaf ? 2u : 4u) << "msg " << msg;
    EXPECT_EQ(path.front(), net.nic_port(m.src_nic)) << "starts at the sender's NIC port";
    EXPECT_EQ(net.port(path.back()).peer, net.nic_port(m.dst_nic)) << "ends at the receiver";
    for (size_t i = 0; i + 1 < path.size(); ++i) {
      EXPECT_EQ(net.port_node(net.port(path[i]).peer), net.port_node(path[i + 1]))
          << "hop " << i << " of msg " << msg << " is followed by a port of its far end";
    }
    if (!same_leaf) {
      EXPECT_EQ(scenario::port_tier(net, net.port(path[1]).peer), 2) << "through a spine";
    }
    // The text form: the same ports by their links.csv names.
    std::string expected;
    for (size_t i = 0; i < path.size(); ++i) {
      expected += (i ? ";" : "") + scenario::port_label(net, path[i]);
    }
    EXPECT_EQ(fp->text(msg), expected);
  }
}

TEST(FlowPaths, SprayedFlowListsSeveralDistinctPaths) {
  scenario::Simulation sim(load({"fabric.roce.spray=true", "fabric.roce.out_of_order=true"}));
  sim.start_workload();
  ASSERT_TRUE(sim.run());
  const scenario::FlowPaths* fp = sim.flow_paths();
  // msg 1 (NIC 0 -> NIC 7, 25 packets) sprayed over the spines takes more than one path.
  const std::vector<std::vector<uint32_t>>& paths = fp->paths(1);
  ASSERT_GE(paths.size(), 2u);
  EXPECT_LE(paths.size(), scenario::kMaxFlowPaths);
  for (const std::vector<uint32_t>& p : paths) EXPECT_EQ(p.size(), 4u);
  const std::string text = fp->text(1);
  EXPECT_NE(text.find(" | "), std::string::npos) << text;
}

TEST(FlowPaths, FlowsCsvHasThePathColumnOnlyWhenAsked) {
  const scenario::RunResult on = scenario::run_scenario(load());
  ASSERT_TRUE(on.flow_paths);
  ASSERT_EQ(on.flows.size(), 3u);
  EXPECT_EQ(std::count(on.flows[1].path.begin(), on.flows[1].path.end(), ';'), 3)
      << "4 ports: " << on.flows[1].path;
  EXPECT_EQ(on.flows[1].path.rfind("nic0:0->", 0), 0u) << on.flows[1].path;
  const std::string csv = output::flows_csv_text(on.flows, on.flow_paths);
  EXPECT_NE(csv.substr(0, csv.find('\n')).find(",class,qp,path"), std::string::npos);

  const scenario::RunResult off = scenario::run_scenario(load({"outputs.flows.path=false"}));
  EXPECT_FALSE(off.flow_paths);
  EXPECT_TRUE(off.flows[1].path.empty());
  const std::string plain = output::flows_csv_text(off.flows, off.flow_paths);
  EXPECT_EQ(plain.substr(0, plain.find('\n')).find("path"), std::string::npos);
  // Recording observes the run; it changes none of its results.
  for (size_t i = 0; i < on.flows.size(); ++i) {
    EXPECT_EQ(on.flows[i].finish_ps, off.flows[i].finish_ps);
  }
}

TEST(FlowPaths, ANonBooleanValueIsAOneLineErrorAtItsKey) {
  std::string yaml = kFatTree;
  yaml.replace(yaml.find("path: true"), 10, "path: maybe");
  try {
    scenario::load_scenario_string(yaml, "paths.yaml");
    FAIL() << "outputs.flows.path: maybe must be refused";
  } catch (const std::exception& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("paths.yaml:", 0), 0u) << msg;
    EXPECT_NE(msg.find("outputs.flows.path"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

}  // namespace flow_paths_test
}  // namespace fabricsim
