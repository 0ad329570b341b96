// Completions at zero NIC delay (fabric.nic.profile: zero): the application sees a message the
// moment its last byte is placed, and its reaction (a ping-pong's pong, a collective's next
// step) posts a message, often on a pair with no connection yet, so the transport's connection
// table grows. That reaction must not run while the transport still holds references into its
// own tables: every transport hands a completion to the workload through a kMsgComplete event
// (transport/nic_core.h), never from inside the receive path. Run under the sanitizer build
// (scripts/sanitize), a call from inside the receive path shows as a heap-use-after-free.
#include <gtest/gtest.h>

#include <string>

#include "spec/load.h"
#include "engine/run.h"

namespace fabricsim {
namespace zero_completion_test {

const char* const kTechnologies[] = {"roce", "ib", "uet", "tcp", "iwarp"};

scenario::RunResult run_yaml(const std::string& technology, const std::string& body) {
  const std::string y = "name: zero\nseed: 3\nfabric:\n  technology: " + technology +
                        "\n  link: {rate: 400Gbps, cable: 3m}\n  nic: {profile: zero}\n" + body;
  const scenario::LoadedScenario s = scenario::load_scenario_string(y, "zero.yaml");
  return scenario::run_scenario(s.scenario);
}

// Two pairs: every pong, and each pair's first ping after the other's, posts on a connection
// the transport opens while the ping's delivery is still on the stack.
TEST(ZeroDelayCompletion, PingPongOnEveryTransport) {
  for (const char* tech : kTechnologies) {
    SCOPED_TRACE(tech);
    const scenario::RunResult r = run_yaml(
        tech,
        "topology: {kind: fat_tree, tiers: 2, radix: 4}\nhosts: {count: 4}\n"
        "workload:\n  kind: pattern\n  pattern: ping_pong\n"
        "  ping_pong: {pairs: [0, 1, 2, 3], size: 2B, iterations: 20, warmup: 0}\n");
    EXPECT_TRUE(r.completed);
    ASSERT_EQ(r.ping_pong.size(), 2u);
    for (const workload::PingPongStats& s : r.ping_pong) {
      EXPECT_EQ(s.iterations, 20);
      ASSERT_EQ(s.rtt_ps.size(), 20u);
      // Not all equal: from the second round on the next ping leaves behind the ACK of the pong
      // (sent as the pong arrives, before the application reacts), and iWARP adds phase jitter.
      for (int64_t rtt : s.rtt_ps) EXPECT_GT(rtt, 0);
    }
  }
}

// A ring all-reduce on 8 NICs: each step's delivery posts the next step's message to the next
// rank, opening that pair's connection during the run.
TEST(ZeroDelayCompletion, RingAllReduceOnEveryTransport) {
  for (const char* tech : kTechnologies) {
    SCOPED_TRACE(tech);
    const scenario::RunResult r = run_yaml(
        tech,
        "topology: {kind: fat_tree, tiers: 2, radix: 4}\nhosts: {count: 8}\n"
        "workload: {kind: collective, op: all_reduce, algorithm: ring, size: 256KiB, "
        "slice: 16KiB}\n");
    EXPECT_TRUE(r.completed);
    EXPECT_GT(r.collective.time_ps, 0);
    for (const scenario::FlowRecord& f : r.flows) EXPECT_GE(f.finish_ps, f.start_ps);
  }
}

}  // namespace zero_completion_test
}  // namespace fabricsim
