// Message retirement (issue 24 item 1, transport/transport.h retire_messages): RoCE hands each
// finished message to the flow recorder and frees it. The flow table must be the same record
// for record as when every message is kept to the end, lossless or with drops and go-back-N
// duplicates still in flight after a message completes, and nothing may stay behind.
#include <gtest/gtest.h>

#include <string>

#include "engine/packet/simulation.h"
#include "spec/load.h"

namespace fabricsim::scenario {
namespace flow_retirement_test {

RunResult run(const std::string& yaml, bool retire, uint32_t* left = nullptr) {
  Simulation sim(load_scenario_string(yaml, "r.yaml").scenario);
  if (retire) sim.set_flow_harvest(FlowHarvest{.keep_records = true, .csv_dir = {}});
  sim.start_workload();
  sim.run();
  if (left != nullptr) {
    *left = sim.transport().num_messages() - sim.transport().first_live_message();
  }
  return sim.harvest(true);
}

// `trims`: a trimmed packet's payload is in neither delivered_bytes nor dropped_bytes (UET).
void expect_same_flows(const RunResult& kept, const RunResult& retired, bool trims = false) {
  ASSERT_EQ(kept.flows.size(), retired.flows.size());
  for (size_t i = 0; i < kept.flows.size(); ++i) {
    const FlowRecord& a = kept.flows[i];
    const FlowRecord& b = retired.flows[i];
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.finish_ps, b.finish_ps) << i;
    EXPECT_EQ(a.sent_bytes, b.sent_bytes) << i;
    EXPECT_EQ(a.delivered_bytes, b.delivered_bytes) << i;
    EXPECT_EQ(a.dropped_bytes, b.dropped_bytes) << i;
    EXPECT_EQ(a.retransmitted_packets, b.retransmitted_packets) << i;
    // Conservation holds per flow in the retired record: nothing arrived after it was taken.
    if (!trims) {
      EXPECT_EQ(b.sent_bytes, b.delivered_bytes + b.dropped_bytes) << i;
    }
  }
  EXPECT_EQ(kept.flow_summary.stats.fct_p99_ps, retired.flow_summary.stats.fct_p99_ps);
  EXPECT_EQ(kept.flow_summary.stats.mean_slowdown, retired.flow_summary.stats.mean_slowdown);
  EXPECT_EQ(kept.counters.dropped_packets, retired.counters.dropped_packets);
}

TEST(FlowRetirement, PoissonFlowsAreTheSameAndAllRetired) {
  const std::string yaml =
      "fabric: {technology: roce, link: {rate: 100Gbps, cable: 3m}}\n"
      "topology: {kind: leaf_spine, radix: 8}\nhosts: {count: 16}\n"
      "workload: {kind: pattern, pattern: poisson, load: 0.5, duration: 1ms,\n"
      "           size_cdf: [[1KB, 0.5], [64KB, 0.9], [1MB, 1.0]]}\n";
  uint32_t left = 1;
  const RunResult kept = run(yaml, false);
  const RunResult retired = run(yaml, true, &left);
  ASSERT_GT(kept.flows.size(), 100u);
  expect_same_flows(kept, retired);
  EXPECT_EQ(left, 0u) << "every message of a finished lossless run has been retired";
  // Kept: every record at once. Retired: the ids posted while the oldest unfinished flow was
  // in flight: a 1 MB flow takes >= 80 us at 100 Gb/s, while the 16 NICs post ~1.5 flows a
  // microsecond (load 0.5 x 100 Gb/s / ~66 KB mean size each), so a window of a few hundred
  // of the ~1,500 flows of 1 ms (549 of 1,485 when written).
  EXPECT_EQ(kept.run.peak_live_messages, static_cast<int64_t>(kept.flows.size()));
  EXPECT_LT(retired.run.peak_live_messages, static_cast<int64_t>(kept.flows.size()) / 2);
  EXPECT_GT(retired.run.peak_live_messages, 0);
}

TEST(FlowRetirement, LossyIncastWithRetransmissionsIsTheSame) {
  // 8-to-1 without PFC into 1 MiB of buffer: drops, go-back-N and duplicates in flight.
  const std::string yaml =
      "fabric: {technology: roce, link: {rate: 100Gbps, cable: 3m}, switch: {buffer: 1MiB},\n"
      "         pfc: {enabled: false}, roce: {ack_timeout_exponent: 8}}\n"
      "topology: {kind: leaf_spine, radix: 8}\nhosts: {count: 16}\n"
      "workload: {kind: pattern, pattern: incast, senders: 8, flow_size: 512KB}\n";
  const RunResult kept = run(yaml, false);
  const RunResult retired = run(yaml, true);
  ASSERT_GT(kept.counters.dropped_packets, 0) << "the case must lose packets";
  expect_same_flows(kept, retired);
}

}  // namespace flow_retirement_test
}  // namespace fabricsim::scenario

namespace fabricsim::scenario {
namespace flow_retirement_test {

// UET: the same, with trimming (a trimmed packet's payload is accounted as trimmed, then the
// packet is resent) and with plain drops when trimming is off.
TEST(FlowRetirement, UetWithTrimsAndWithDropsIsTheSame) {
  for (const char* trimming : {"true", "false"}) {
    const std::string yaml =
        std::string("fabric: {technology: uet, link: {rate: 100Gbps, cable: 3m},\n"
                    "         switch: {buffer: 1MiB}, pfc: {enabled: false},\n"
                    "         uet: {trimming: ") +
        trimming +
        "}}\n"
        "topology: {kind: leaf_spine, radix: 8}\nhosts: {count: 16}\n"
        "workload: {kind: pattern, pattern: incast, senders: 8, flow_size: 512KB}\n";
    uint32_t left = 1;
    const RunResult kept = run(yaml, false);
    const RunResult retired = run(yaml, true, &left);
    ASSERT_GT(kept.counters.dropped_packets + kept.counters.trimmed_packets, 0) << trimming;
    expect_same_flows(kept, retired, true);
    EXPECT_EQ(left, 0u) << "trimming " << trimming << ": every message retired";
  }
}

}  // namespace flow_retirement_test
}  // namespace fabricsim::scenario

namespace fabricsim::scenario {
namespace flow_retirement_test {

// TCP (kernel stack) and iWARP: a segment may carry the tail of one message and the head of the
// next; lossy incast with retransmissions, and Poisson flows that leave connections idle.
TEST(FlowRetirement, TcpAndIwarpAreTheSame) {
  for (const char* tech : {"tcp", "iwarp"}) {
    const std::string incast =
        std::string("fabric: {technology: ") + tech +
        ", link: {rate: 100Gbps, cable: 3m}, switch: {buffer: 1MiB}}\n"
        "topology: {kind: leaf_spine, radix: 8}\nhosts: {count: 16}\n"
        "workload: {kind: pattern, pattern: incast, senders: 8, flow_size: 512KB}\n";
    const std::string poisson =
        std::string("fabric: {technology: ") + tech + ", link: {rate: 100Gbps, cable: 3m}}\n"
        "topology: {kind: leaf_spine, radix: 8}\nhosts: {count: 16}\n"
        "workload: {kind: pattern, pattern: poisson, load: 0.5, duration: 100us,\n"
        "           size_cdf: [[1KB, 0.5], [64KB, 0.9], [1MB, 1.0]]}\n";
    for (const std::string& yaml : {incast, poisson}) {
      uint32_t left = 1;
      const RunResult kept = run(yaml, false);
      const RunResult retired = run(yaml, true, &left);
      ASSERT_GT(kept.flows.size(), 0u);
      expect_same_flows(kept, retired);
      EXPECT_EQ(left, 0u) << tech << ": every message retired";
    }
  }
}

}  // namespace flow_retirement_test
}  // namespace fabricsim::scenario
