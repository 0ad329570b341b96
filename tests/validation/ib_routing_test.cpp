// InfiniBand routing at run time: adaptive routing against static LFTs, and recovery from a link
// failure by the Subnet Manager (IB) or ECMP reconvergence (RoCE).
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "net/network.h"
#include "spec/load.h"
#include "engine/run.h"
#include "engine/packet/simulation.h"

namespace fabricsim {
namespace ib_routing_test {

constexpr int64_t kPsPerUs = 1'000'000;

// A pattern on the 3-tier k=8 fat-tree (128 NICs, 100 Gb/s, no oversubscription), InfiniBand
// with ftree routes, static or adaptive.
scenario::RunResult run_k8(bool adaptive, workload::PatternKind pattern, int64_t flow_bytes) {
  scenario::Scenario sc;
  sc.seed = 3;
  sc.technology = scenario::Technology::kInfiniband;
  sc.topology.tiers = 3;
  sc.topology.radix = 8;
  sc.topology.hosts = 128;
  sc.link.rate_bps = 100'000'000'000;
  sc.switch_config.buffer_bytes = 16 << 20;
  sc.recovery.adaptive = adaptive;
  sc.workload.kind = workload::WorkloadKind::kPattern;
  sc.workload.pattern = pattern;
  sc.workload.flow_size_bytes = flow_bytes;
  return scenario::run_scenario(sc);
}

TEST(AdaptiveRouting, RaisesPermutationThroughputOnAFullFatTree) {
  // 3-tier k=8 fat-tree, 128 NICs at 100 Gb/s, no oversubscription: a random permutation's
  // bisection demand fits, so any shortfall is path collisions. Static ftree LFTs pin each
  // destination to one path; adaptive routing spreads packets by queue occupancy.
  const auto pattern = workload::PatternKind::kPermutation;
  const scenario::RunResult fixed = run_k8(false, pattern, 2'000'000);
  const scenario::RunResult ar = run_k8(true, pattern, 2'000'000);
  ASSERT_TRUE(fixed.completed && ar.completed) << "both runs finish";
  EXPECT_EQ(fixed.counters.dropped_packets + ar.counters.dropped_packets, 0) << "lossless";
  EXPECT_EQ(fixed.counters.out_of_order_packets, 0) << "static routes keep PSN order";
  EXPECT_GT(ar.counters.out_of_order_packets, 0) << "AR reorders; the responder places them";
  EXPECT_EQ(ar.counters.retransmitted_packets, 0) << "reordering must not cause retransmission";
  EXPECT_GT(ar.aggregate_throughput_gbps, 1.2 * fixed.aggregate_throughput_gbps)
      << "static ftree " << fixed.aggregate_throughput_gbps << " Gb/s vs adaptive "
      << ar.aggregate_throughput_gbps << " Gb/s";
  EXPECT_LT(ar.aggregate_throughput_gbps, 128 * 100.0) << "below the sum of the NIC links";
}

TEST(AdaptiveRouting, AllToAllIsHostLimitedEitherWay) {
  // All-to-all on the same fabric: every NIC link is the bottleneck (each NIC sends to 127 others
  // at once), so path choice cannot help; both must sit at the NIC-link ceiling. A 64 KB message is
  // 16 packets of 26 header bytes plus one 16-byte RETH, and each NIC link also carries the 30-byte
  // ACK (LRH 8, BTH 12, AETH 4, ICRC 4, VCRC 2) of every packet its NIC receives
  // (fabric.nic.ack_every 1): ceiling = 128 x 100 Gb/s x 64000 / (64000 + 16 x 26 + 16 + 16 x 30).
  const double ceiling_gbps = 128 * 100.0 * 64'000 / (64'000 + 16 * 26 + 16 + 16 * 30);
  for (const bool adaptive : {false, true}) {
    const scenario::RunResult r = run_k8(adaptive, workload::PatternKind::kAllToAll, 64'000);
    ASSERT_TRUE(r.completed) << "adaptive=" << adaptive;
    EXPECT_GT(r.aggregate_throughput_gbps, 0.97 * ceiling_gbps)
        << "adaptive=" << adaptive << ": " << r.aggregate_throughput_gbps << " of " << ceiling_gbps;
    EXPECT_LE(r.aggregate_throughput_gbps, ceiling_gbps * 1.0001) << "cannot beat the NIC links";
    EXPECT_EQ(r.counters.retransmitted_packets, 0) << "adaptive=" << adaptive << ": lossless";
  }
}

struct FailoverRun {
  std::vector<int64_t> epsn_at_fail;      // per message's QP, in-order PSN when the link fails
  std::vector<int64_t> epsn_before_fix;   // just before the new routes take effect
  std::vector<int64_t> epsn_after_fix;    // shortly after
  std::map<uint32_t, int> deliveries;     // message -> on_delivered calls
  int64_t link_down_drops = 0;
  int64_t restored_ps = -1;
};

// Leaf-spine radix 8 (4 leaves x 4 spines, NICs 0-3 on leaf 0); 8 long flows leave leaf 0 and
// leaf 1; leaf 0's first uplink (port 4) fails at 100 us; routes are recomputed after `delay`.
FailoverRun failover(scenario::Technology tech, int64_t delay_ps) {
  scenario::Scenario sc;
  sc.seed = 11;
  sc.technology = tech;
  sc.topology.tiers = 2;
  sc.topology.radix = 8;
  sc.topology.hosts = 16;
  sc.link.rate_bps = 100'000'000'000;
  sc.switch_config.buffer_bytes = 4 << 20;
  sc.switch_config.pfc.enabled = tech == scenario::Technology::kRoce;  // lossless either way
  sc.roce.ack_timeout_exponent = 6;  // 262 us: recovery of what was lost on the cable
  sc.recovery.sm_sweep_delay_ps = delay_ps - 20 * kPsPerUs;
  sc.recovery.sm_reprogram_ps = 20 * kPsPerUs;
  sc.recovery.ecmp_convergence_ps = delay_ps;
  sc.link_fail = {0, 4, 100 * kPsPerUs};
  sc.workload.kind = workload::WorkloadKind::kPattern;
  sc.workload.pattern = workload::PatternKind::kFlows;
  for (int s = 0; s < 4; ++s) {
    sc.workload.flows.push_back({s, 8 + s, 8'000'000, 0});
    sc.workload.flows.push_back({4 + s, 12 + s, 8'000'000, 0});
  }
  FailoverRun out;
  scenario::Simulation sim(sc);
  auto& transport = *sim.roce();
  auto forward = transport.on_delivered;
  transport.on_delivered = [&out, forward](uint32_t m) {
    ++out.deliveries[m];
    forward(m);
  };
  sim.start_workload();
  auto snapshot = [&](std::vector<int64_t>& v) {
    for (uint32_t m = 0; m < transport.num_messages(); ++m) {
      v.push_back(transport.qp(transport.message(m).qp).epsn);
    }
  };
  sim.run(101 * kPsPerUs);
  snapshot(out.epsn_at_fail);
  sim.run(100 * kPsPerUs + delay_ps - 1 * kPsPerUs);
  snapshot(out.epsn_before_fix);
  sim.run(100 * kPsPerUs + delay_ps + 30 * kPsPerUs);
  snapshot(out.epsn_after_fix);
  sim.run();
  out.restored_ps = sim.routes_restored_ps();
  out.link_down_drops = sim.network().counters().link_down_drops;
  for (uint32_t m = 0; m < transport.num_messages(); ++m) {
    EXPECT_GE(transport.message(m).rx_done_ps, 0) << "message " << m << " completes";
  }
  return out;
}

void expect_recovery(const FailoverRun& r, int64_t delay_ps, const std::string& fabric) {
  EXPECT_EQ(r.restored_ps, 100 * kPsPerUs + delay_ps)
      << fabric << ": routes take effect exactly the configured time after the failure";
  int cut = 0, untouched = 0;
  for (size_t m = 0; m < r.epsn_at_fail.size(); ++m) {
    const bool stalled = r.epsn_before_fix[m] - r.epsn_at_fail[m] <= 1;
    if (stalled) {
      ++cut;
      EXPECT_GT(r.epsn_after_fix[m], r.epsn_before_fix[m] + 10)
          << fabric << ": flow " << m << " resumes within 30 us of the new routes";
    } else {
      ++untouched;
    }
  }
  EXPECT_GE(cut, 1) << fabric << ": some flow used the failed link and lost connectivity";
  EXPECT_GE(untouched, 1) << fabric << ": flows on other links kept going";
  EXPECT_GT(r.link_down_drops, 0) << fabric << ": packets sent into the dead link were lost";
  ASSERT_EQ(r.deliveries.size(), 8u) << fabric << ": every message delivered";
  for (const auto& [m, n] : r.deliveries) {
    EXPECT_EQ(n, 1) << fabric << ": message " << m << " delivered exactly once";
  }
}

TEST(Failover, InfiniBandResumesAfterSweepAndReprogramming) {
  const int64_t delay = 300 * kPsPerUs;  // 280 us sweep + 20 us programming
  const FailoverRun r = failover(scenario::Technology::kInfiniband, delay);
  expect_recovery(r, delay, "ib");
}

TEST(Failover, RoceResumesAfterEcmpConvergence) {
  const int64_t delay = 300 * kPsPerUs;
  const FailoverRun r = failover(scenario::Technology::kRoce, delay);
  expect_recovery(r, delay, "roce");
}

// The ring all-reduce of examples/sm-failover.yaml (shrunk to 16 MiB): a ring moves at the pace of
// its slowest link, and the failure stops the one ring link that leaves leaf 0 until routes are
// restored, so the whole collective is delayed by about that outage: at least 80% of it (some
// slices were already past the link) and at most the outage plus one retransmit timeout (the
// loss on the cable itself may need the timer).
TEST(Failover, CollectiveSlowdownIsTheOutageOnBothFabrics) {
  const std::string file = std::string(FABRICSIM_SOURCE_DIR) + "/examples/sm-failover.yaml";
  for (const char* tech : {"ib", "roce"}) {
    // The file describes RoCE with PFC; the IB run switches the technology and PFC off.
    std::vector<std::string> sets = {"workload.size=16MiB", std::string("fabric.technology=") + tech};
    if (std::string(tech) == "ib") sets.push_back("fabric.pfc.enabled=false");
    const scenario::RunResult with = scenario::run_scenario(scenario::load_scenario_file(file, sets));
    sets.push_back("faults.link_down.switch=-1");
    const scenario::RunResult without =
        scenario::run_scenario(scenario::load_scenario_file(file, sets));
    ASSERT_TRUE(with.completed && without.completed) << tech << ": both collectives finish";
    ASSERT_GE(with.failure.routes_restored_ps, 0) << tech << ": routes were restored";
    EXPECT_GT(with.counters.link_down_drops, 0) << tech << ": the ring used the failed link";
    const int64_t outage = with.failure.routes_restored_ps - with.failure.link_failed_ps;
    const int64_t slowdown = with.collective.time_ps - without.collective.time_ps;
    const int64_t rto = (4096ll * 1000) << 6;  // the example's ack_timeout_exponent 6
    EXPECT_GE(slowdown, outage * 8 / 10)
        << tech << ": collective " << without.collective.time_ps << " -> " << with.collective.time_ps
        << " ps, outage " << outage << " ps";
    EXPECT_LE(slowdown, outage + rto) << tech << ": slowdown " << slowdown << " ps";
    // Recovery: every packet the failure destroyed is delivered again, not before a route exists,
    // and at the latest one retransmit timeout after it (the timer re-arms every RTO without
    // progress) plus the time to resend what was lost, which was sent during the outage at no
    // more than line rate, plus 10 us of path and queueing.
    EXPECT_GE(with.failure.affected_qps, 1) << tech << ": some QP lost data";
    EXPECT_GE(with.failure.recovered_ps, with.failure.routes_restored_ps)
        << tech << ": nothing is re-delivered without a route";
    EXPECT_LE(with.failure.recovered_ps,
              with.failure.routes_restored_ps + rto + outage + 10'000'000)
        << tech << ": recovered at " << with.failure.recovered_ps << " ps";
    for (const scenario::FlowRecord& f : with.flows) {
      ASSERT_GE(f.finish_ps, 0) << tech << ": slice " << f.id << " delivered";
    }
  }
}

}  // namespace ib_routing_test
}  // namespace fabricsim
