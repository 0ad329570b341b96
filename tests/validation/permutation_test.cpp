// Permutation traffic on a non-blocking 3-tier k=8 fat-tree (128 NICs, 100 Gb/s).
//
// With per-flow ECMP, each flow's path is fixed by its 5-tuple hash; flows that hash onto the
// same uplink share it, so some flows run at 1/2 (or less) of line rate and the aggregate stays
// below the bisection bandwidth (SPEC §8: hashing n flows onto n paths leaves a fraction
// (1 - 1/n)^n of them idle). A permutation that keeps every flow under one edge switch has a
// single path per flow by construction and must reach line rate.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/run.h"
#include "engine/packet/simulation.h"

namespace fabricsim {
namespace permutation_test {

constexpr double kRateBps = 100e9;
constexpr double kGoodputBps = kRateBps * 4096.0 / (4096.0 + 82.0);

scenario::Scenario fat_tree_k8() {
  scenario::Scenario sc;
  sc.topology.tiers = 3;
  sc.topology.radix = 8;
  sc.topology.hosts = 128;
  sc.link.rate_bps = static_cast<int64_t>(kRateBps);
  sc.switch_config.buffer_bytes = 1ll << 32;  // no drops: only the paths matter
  sc.workload.kind = workload::WorkloadKind::kPattern;
  sc.workload.pattern = workload::PatternKind::kPermutation;
  sc.workload.flow_size_bytes = 1'000'000;
  return sc;
}

TEST(Permutation, EcmpCollisionsKeepThroughputBelowBisection) {
  const scenario::RunResult r = scenario::run_scenario(fat_tree_k8());
  ASSERT_TRUE(r.completed);
  ASSERT_EQ(r.flows.size(), 128u);
  const double bisection_goodput_bps = 128 * kGoodputBps;  // every NIC at line rate
  int at_line_rate = 0;
  double worst_slowdown = 0, sum_flow_bps = 0;
  for (const scenario::FlowRecord& f : r.flows) {
    ASSERT_EQ(f.sent_bytes, f.delivered_bytes + f.dropped_bytes) << "flow " << f.id;
    const double bps = f.size_bytes * 8.0 / (f.fct_ps() * 1e-12);
    sum_flow_bps += bps;
    if (bps > 0.95 * kGoodputBps) ++at_line_rate;
    worst_slowdown = std::max(worst_slowdown, f.slowdown());
  }
  EXPECT_LT(r.aggregate_throughput_gbps * 1e9, 0.9 * bisection_goodput_bps)
      << "aggregate " << r.aggregate_throughput_gbps << " Gb/s";
  EXPECT_LT(sum_flow_bps, 0.95 * bisection_goodput_bps) << "sum of per-flow rates";
  EXPECT_LT(at_line_rate, 128) << "with random hashing some flows must collide";
  EXPECT_GT(at_line_rate, 0) << "and some must not";
  EXPECT_GE(worst_slowdown, 1.9) << "a two-way collision halves a flow's rate";
}

TEST(Permutation, OnePathPerFlowByConstructionReachesLineRate) {
  scenario::Scenario sc = fat_tree_k8();
  scenario::Simulation sim(sc);
  // NIC i <-> NIC i^1: both under the same edge switch, so each flow has exactly one path and
  // every cable carries one flow per direction.
  for (uint32_t i = 0; i < 128; ++i) sim.transport().post(i, i ^ 1, 1'000'000, 0);
  ASSERT_TRUE(sim.run());
  // The wire's goodput: without the NIC/host latencies (net/config.h NicConfig), which delay a
  // flow once but do not slow its packets: the post's overhead, the two NIC pipelines and the
  // receiver's completion.
  const net::NicConfig& nic = sim.scenario().nic;
  const int64_t host_ps = nic.send_overhead_ps(1'000'000) + nic.tx_latency_ps +
                          nic.rx_latency_ps + nic.completion_ps();
  for (uint32_t m = 0; m < 128; ++m) {
    const transport::MessageRecord& msg = sim.transport().message(m);
    const double bps = msg.size_bytes * 8.0 / ((msg.rx_done_ps - msg.post_ps - host_ps) * 1e-12);
    EXPECT_GT(bps, 0.97 * kGoodputBps) << "flow " << m;
  }
}

}  // namespace permutation_test
}  // namespace fabricsim
